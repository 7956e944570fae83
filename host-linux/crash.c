/*
 * Crash reports (--crash-dir DIR).  When vkernel gives up on itself (a
 * failed VK_ASSERT or an allocation that cannot fail, a sanitizer's
 * error, a fatal signal of its own), it writes DIR/crash-<time>/:
 *
 *   message      what went wrong, and the command line that ran
 *   backtrace    vkernel's own stack, a frame a line
 *   strace.TID   each live guest thread's last system calls (SYSRING_LEN),
 *                oldest first, in --strace's format
 *
 * and exits with CRASH_EXIT_STATUS.  A host SIGUSR1 asks for DIR/state-<time>/
 * instead, with "tasks" (each guest thread: who, state, what it waits
 * for, its signals) and the same strace.TID files, and vkernel goes on.
 *
 * The writer runs under the lock-down, in a vkernel whose state may be
 * broken, so everything it needs from the host is taken at start-up: DIR
 * is opened, and a first backtrace() loads libgcc's unwinder (a later
 * dlopen would need open and an executable mmap, which the lock-down
 * kills).  Writing then takes only mkdirat, openat2 beneath DIR, write
 * and close, which the lock-down keeps for hostfs and the console, and no
 * allocation: the time is made into a name without the C library's time
 * zone code, which would open /etc/localtime.
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "host-linux/host.h"
#include "vkern/kern/proc_report.h"
#include "vkern/kern/syscall.h"

#define CRASH_FRAMES 64

/* The sanitizer runtime's hooks, present only in sanitizer builds. */
extern void __sanitizer_set_death_callback(void (*cb)(void))
    __attribute__((weak));
extern void __asan_set_error_report_callback(void (*cb)(const char *))
    __attribute__((weak));

static int crash_dirfd = -1;
static const char *crash_dirname;
static char *const *crash_argv;
static volatile sig_atomic_t crash_entered;
static char sanitizer_report[16384];
static char altstack[64 * 1024];

/* The file being written and its thread, for sysring_dump's lines. */
struct crash_out {
	int dirfd, fd, tid;
};

static void
crash_puts(int fd, const char *s)
{
	host_write_all(fd, s, strlen(s));
}

/* Days since 1970-01-01 as a proleptic Gregorian date. */
static void
crash_civil(int64_t days, int *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;

	days += 719468;
	era = (days >= 0 ? days : days - 146096) / 146097;
	doe = days - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

/* DIR/KIND-YYYYmmddTHHMMSS.uuuuuuZ, made anew; its fd, or -1. */
static int
crash_mkdir(const char *kind, char *name, size_t size)
{
	struct timespec ts;
	int y, mo, d, s, fd;

	clock_gettime(CLOCK_REALTIME, &ts);
	crash_civil(ts.tv_sec / 86400, &y, &mo, &d);
	s = (int)(ts.tv_sec % 86400);
	snprintf(name, size, "%s-%04d%02d%02dT%02d%02d%02d.%06ldZ", kind, y,
	    mo, d, s / 3600, s / 60 % 60, s % 60, ts.tv_nsec / 1000);
	if (mkdirat(crash_dirfd, name, 0700) < 0)
		return -1;
	fd = host_openat2(crash_dirfd, name, O_PATH | O_DIRECTORY, 0);
	return fd < 0 ? -1 : fd;
}

static int
crash_create(int dirfd, const char *name)
{
	int fd = host_openat2(dirfd, name, O_WRONLY | O_CREAT | O_EXCL, 0600);

	return fd < 0 ? -1 : fd;
}

static void
crash_message(int dirfd, const char *why)
{
	int fd = crash_create(dirfd, "message");

	if (fd < 0)
		return;
	crash_puts(fd, why);
	crash_puts(fd, "\ncommand: vkernel run ... --");
	for (char *const *a = crash_argv; a != NULL && *a != NULL; a++) {
		crash_puts(fd, " ");
		crash_puts(fd, *a);
	}
	crash_puts(fd, "\n");
	if (sanitizer_report[0] != '\0') {
		crash_puts(fd, "\n");
		crash_puts(fd, sanitizer_report);
	}
	close(fd);
}

/*
 * A frame a line, as "FILE(SYMBOL+0xOFF) [ADDR]", or "FILE(+0xOFF)" for
 * a static function, whose offset in FILE addr2line turns into a line.
 * Not backtrace_symbols_fd(): it writes with writev, which the lock-down
 * does not keep.
 */
static void
crash_backtrace(int dirfd)
{
	void *frames[CRASH_FRAMES];
	int n = backtrace(frames, CRASH_FRAMES);
	int fd = crash_create(dirfd, "backtrace");
	char line[512];

	if (fd < 0)
		return;
	for (int i = 0; i < n; i++) {
		Dl_info di = { 0 };
		uintptr_t pc = (uintptr_t)frames[i];

		if (dladdr(frames[i], &di) == 0 || di.dli_fname == NULL)
			snprintf(line, sizeof(line), "?? [%#lx]\n", pc);
		else if (di.dli_sname != NULL)
			snprintf(line, sizeof(line), "%s(%s+%#lx) [%#lx]\n",
			    di.dli_fname, di.dli_sname,
			    pc - (uintptr_t)di.dli_saddr, pc);
		else
			snprintf(line, sizeof(line), "%s(+%#lx) [%#lx]\n",
			    di.dli_fname, pc - (uintptr_t)di.dli_fbase, pc);
		crash_puts(fd, line);
	}
	close(fd);
}

static void
crash_ring_line(void *arg, int tid, const char *line, size_t len)
{
	struct crash_out *o = arg;
	char name[32];

	if (tid != o->tid) {
		if (o->fd >= 0)
			close(o->fd);
		snprintf(name, sizeof(name), "strace.%d", tid);
		o->fd = crash_create(o->dirfd, name);
		o->tid = tid;
	}
	if (o->fd >= 0)
		host_write_all(o->fd, line, len);
}

/* "vkernel: KIND report in DIR/NAME" on stderr. */
static void
crash_say_where(const char *kind, const char *name)
{
	crash_puts(2, "vkernel: ");
	crash_puts(2, kind);
	crash_puts(2, " report in ");
	crash_puts(2, crash_dirname);
	crash_puts(2, "/");
	crash_puts(2, name);
	crash_puts(2, "\n");
}

/*
 * Leave at once with the crash status.  Not by _exit(): a sanitizer
 * runtime intercepts it to look for leaks, which reads /proc/self/maps
 * and, in vkernel's empty root under its lock-down, fails a check of its
 * own and exits with another status.
 */
static _Noreturn void
crash_exit(void)
{
	for (;;)
		syscall(SYS_exit_group, CRASH_EXIT_STATUS);
}

void
crash_report(const char *why)
{
	struct crash_out o = { .fd = -1, .tid = 0 };
	char name[64];

	if (crash_dirfd < 0 || crash_entered)
		return;
	crash_entered = 1;
	if ((o.dirfd = crash_mkdir("crash", name, sizeof(name))) < 0) {
		crash_puts(2, "vkernel: cannot make a crash report in ");
		crash_puts(2, crash_dirname);
		crash_puts(2, "\n");
		crash_exit();
	}
	crash_message(o.dirfd, why[0] != '\0' ? why : "abort");
	crash_backtrace(o.dirfd);
	sysring_dump(crash_ring_line, &o);
	if (o.fd >= 0)
		close(o.fd);
	crash_say_where("crash", name);
	crash_exit();
}

static void
crash_task_line(void *arg, const char *line, size_t len)
{
	host_write_all(*(int *)arg, line, len);
}

/*
 * What a host SIGUSR1 asks for: a look at a sandbox that seems stuck,
 * which then goes on.  With --crash-dir, DIR/state-<time>/ gets "tasks"
 * (proc_report's lines) and the threads' last calls as a crash report's;
 * without, the tasks go to stderr.  Called between guest events.
 */
void
crash_state_report(void)
{
	struct crash_out o = { .fd = -1, .tid = 0 };
	char name[64];
	int fd = 2;

	if (crash_dirfd >= 0) {
		if ((o.dirfd = crash_mkdir("state", name, sizeof(name))) < 0 ||
		    (fd = crash_create(o.dirfd, "tasks")) < 0) {
			if (o.dirfd >= 0)
				close(o.dirfd);
			crash_puts(2, "vkernel: cannot make a state report\n");
			return;
		}
	} else
		crash_puts(2, "vkernel: guest threads:\n");
	proc_report(crash_task_line, &fd);
	if (crash_dirfd < 0)
		return;
	close(fd);
	sysring_dump(crash_ring_line, &o);
	if (o.fd >= 0)
		close(o.fd);
	close(o.dirfd);
	crash_say_where("state", name);
}

static void
crash_sanitizer_report(const char *report)
{
	snprintf(sanitizer_report, sizeof(sanitizer_report), "%s", report);
}

static void
crash_sanitizer_death(void)
{
	crash_report("sanitizer error (its report is on stderr, and below "
	    "when AddressSanitizer made it)");
}

/*
 * A fatal signal of vkernel's own.  SA_RESETHAND put the default action
 * back: were the report already being written, returning faults again
 * and the signal ends vkernel.
 */
static void
crash_signal(int sig, siginfo_t *si, void *uc)
{
	char why[96];

	snprintf(why, sizeof(why), "fatal signal SIG%s at address %p",
	    sigabbrev_np(sig) != NULL ? sigabbrev_np(sig) : "?", si->si_addr);
	crash_puts(2, "vkernel: ");
	crash_puts(2, why);
	crash_puts(2, "\n");
	crash_report(why);
}

static int
crash_signals(struct vk_error **err)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa = {
		.sa_sigaction = crash_signal,
		.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK,
	};

	if (sigaltstack(&ss, NULL) < 0)
		return vk_error_make(err, errno, "--crash-dir: signal stack");
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return vk_error_make(err, errno, "--crash-dir: "
			    "signal handler");
	return 0;
}

int
crash_init(const char *dir, char *const *argv, struct vk_error **err)
{
	void *frame;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return vk_error_make(err, errno, "--crash-dir %s", dir);
	crash_dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (crash_dirfd < 0)
		return vk_error_make(err, errno, "--crash-dir %s", dir);
	crash_dirname = dir;
	crash_argv = argv;
	/* Loads the unwinder now, while dlopen may still open it. */
	(void)backtrace(&frame, 1);
	/*
	 * A sanitizer catches the faults itself, and its report is better:
	 * it calls back when it is done.
	 */
	if (__sanitizer_set_death_callback != NULL) {
		__sanitizer_set_death_callback(crash_sanitizer_death);
		if (__asan_set_error_report_callback != NULL)
			__asan_set_error_report_callback(
			    crash_sanitizer_report);
		return 0;
	}
	return crash_signals(err);
}

int
crash_dir_fd(void)
{
	return crash_dirfd;
}
