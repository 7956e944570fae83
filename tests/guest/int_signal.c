/*
 * Signal numbers, pids and sigset sizes at the edges of their types, as
 * raw syscalls with 64-bit register values: Linux reads an int argument
 * from the low 32 bits only, rejects a signal outside 1..64 (0 is a probe
 * where allowed), and answers a pid it cannot negate (INT_MIN) with ESRCH.
 * And any rax a handler leaves in its frame is what rt_sigreturn gives
 * back, a value the kernel uses inside for itself as much as any other.
 */
#include <sys/signalfd.h>
#include <sys/syscall.h>

#include <limits.h>
#include <ucontext.h>

#include "int_common.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

#define HI (1L << 32)

static const long bad_sigs[] = {
	-1, 65, 128, INT_MAX, INT_MIN, UINT_MAX, 1L << 31, HI | 65, HI - 1,
};

static void
check_kill(void)
{
	long pid = syscall(SYS_getpid), tid = syscall(SYS_gettid);

	for (size_t i = 0; i < sizeof(bad_sigs) / sizeof(bad_sigs[0]); i++) {
		CHECK_ERR(syscall(SYS_kill, pid, bad_sigs[i]), EINVAL);
		CHECK_ERR(syscall(SYS_tkill, tid, bad_sigs[i]), EINVAL);
		CHECK_ERR(syscall(SYS_tgkill, pid, tid, bad_sigs[i]), EINVAL);
	}
	/* The high bits of an int are not looked at. */
	CHECK_EQ(syscall(SYS_kill, HI | pid, HI), 0);
	CHECK_EQ(syscall(SYS_kill, pid, HI | 0), 0);
	CHECK_EQ(syscall(SYS_kill, (long)0xffffffff00000000UL, 0), 0);
	CHECK_EQ(syscall(SYS_tkill, HI | tid, HI), 0);
	CHECK_EQ(syscall(SYS_tgkill, HI | pid, HI | tid, HI), 0);
	/* -INT_MIN does not exist: ESRCH, before the signal is looked at. */
	CHECK_ERR(syscall(SYS_kill, (long)INT_MIN, 0), ESRCH);
	CHECK_ERR(syscall(SYS_kill, (long)INT_MIN, SIGKILL), ESRCH);
	CHECK_ERR(syscall(SYS_kill, 1L << 31, 0), ESRCH);
	CHECK_ERR(syscall(SYS_kill, (long)INT_MAX, 0), ESRCH);
	CHECK_ERR(syscall(SYS_kill, -(long)INT_MAX, 0), ESRCH);
	CHECK_ERR(syscall(SYS_tkill, (long)INT_MIN, 0), EINVAL);
	CHECK_ERR(syscall(SYS_tkill, (long)INT_MAX, 0), ESRCH);
	CHECK_ERR(syscall(SYS_tgkill, (long)INT_MIN, tid, 0), EINVAL);
	CHECK_ERR(syscall(SYS_tgkill, pid, (long)INT_MIN, 0), EINVAL);
	CHECK_ERR(syscall(SYS_tgkill, pid, (long)INT_MAX, 0), ESRCH);
	CHECK_ERR(syscall(SYS_tgkill, (long)INT_MAX, tid, 0), ESRCH);
	/* A missing target is ESRCH whatever the signal. */
	CHECK_ERR(syscall(SYS_kill, (long)INT_MIN, 65), ESRCH);
	CHECK_ERR(syscall(SYS_kill, (long)INT_MAX, 65), ESRCH);
	CHECK_ERR(syscall(SYS_kill, -(long)INT_MAX, -1L), ESRCH);
	CHECK_ERR(syscall(SYS_tkill, (long)INT_MAX, 65), ESRCH);
	CHECK_ERR(syscall(SYS_tkill, (long)INT_MIN, 65), EINVAL);
	CHECK_ERR(syscall(SYS_tgkill, (long)INT_MAX, tid, INT_MIN), ESRCH);
}

static void
check_sigaction(void)
{
	uint64_t old[4];
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		uint64_t mask;
	} act = { .handler = SIG_IGN };

	for (size_t i = 0; i < sizeof(bad_sigs) / sizeof(bad_sigs[0]); i++)
		CHECK_ERR(syscall(SYS_rt_sigaction, bad_sigs[i], NULL, old, 8),
		    EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigaction, 0, NULL, old, 8), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigaction, HI, NULL, old, 8), EINVAL);
	CHECK_EQ(syscall(SYS_rt_sigaction, HI | SIGUSR1, NULL, old, 8), 0);
	CHECK_EQ(syscall(SYS_rt_sigaction, HI | 64, NULL, old, 8), 0);
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGKILL, &act, NULL, 8), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigaction, HI | SIGSTOP, &act, NULL, 8),
	    EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, NULL, old, 16), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, NULL, old, HI | 8),
	    EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, NULL, old, -1L), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, NULL, old, 0), EINVAL);
}

static void
check_sigmask(void)
{
	uint64_t set = 0, old, four[2];

	CHECK_ERR(syscall(SYS_rt_sigprocmask, INT_MAX, &set, NULL, 8),
	    EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigprocmask, INT_MIN, &set, NULL, 8),
	    EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigprocmask, -1L, &set, NULL, 8), EINVAL);
	CHECK_EQ(syscall(SYS_rt_sigprocmask, HI | SIG_BLOCK, &set, &old, 8),
	    0);
	CHECK_ERR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, HI | 8),
	    EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 4),
	    EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigpending, four, 16), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigpending, four, HI | 8), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigpending, four, -1L), EINVAL);
	CHECK_EQ(syscall(SYS_rt_sigpending, four, 4), 0);
	CHECK_ERR(syscall(SYS_rt_sigsuspend, &set, 16), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigsuspend, &set, HI | 8), EINVAL);
}

static void
check_sigqueue(void)
{
	long pid = syscall(SYS_getpid), tid = syscall(SYS_gettid);
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_code = SI_QUEUE;
	si.si_pid = (pid_t)pid;
	CHECK_ERR(syscall(SYS_rt_sigqueueinfo, pid, 65, &si), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigqueueinfo, pid, -1L, &si), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigqueueinfo, pid, INT_MIN, &si), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigqueueinfo, (long)INT_MIN, 0, &si),
	    ESRCH);
	CHECK_ERR(syscall(SYS_rt_sigqueueinfo, (long)INT_MAX, 0, &si),
	    ESRCH);
	CHECK_ERR(syscall(SYS_rt_sigqueueinfo, (long)INT_MAX, 65, &si),
	    ESRCH);
	CHECK_ERR(syscall(SYS_rt_sigqueueinfo, (long)INT_MIN, INT_MIN, &si),
	    ESRCH);
	CHECK_EQ(syscall(SYS_rt_sigqueueinfo, HI | pid, HI, &si), 0);
	CHECK_ERR(syscall(SYS_rt_tgsigqueueinfo, pid, tid, 65, &si), EINVAL);
	CHECK_ERR(syscall(SYS_rt_tgsigqueueinfo, pid, (long)INT_MIN, 0, &si),
	    EINVAL);
	CHECK_ERR(syscall(SYS_rt_tgsigqueueinfo, (long)INT_MIN, tid, 0, &si),
	    EINVAL);
	CHECK_ERR(syscall(SYS_rt_tgsigqueueinfo, pid, (long)INT_MAX, 0, &si),
	    ESRCH);
	CHECK_ERR(syscall(SYS_rt_tgsigqueueinfo, pid, (long)INT_MAX, 65, &si),
	    ESRCH);
	CHECK_EQ(syscall(SYS_rt_tgsigqueueinfo, HI | pid, HI | tid, HI, &si),
	    0);
}

static void
check_sigtimedwait(void)
{
	uint64_t set = 1UL << (SIGUSR2 - 1);
	struct timespec zero = { 0, 0 }, bad = { 0, 1000000000 };
	struct timespec neg = { -1, 0 };

	CHECK_ERR(syscall(SYS_rt_sigtimedwait, &set, NULL, &zero, 16), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigtimedwait, &set, NULL, &zero, HI | 8),
	    EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigtimedwait, &set, NULL, &bad, 8), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigtimedwait, &set, NULL, &neg, 8), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigtimedwait, &set, NULL, &zero, 8), EAGAIN);
}

static void
check_signalfd(void)
{
	uint64_t mask = ~0UL;
	long fd;

	CHECK_ERR(syscall(SYS_signalfd4, -1, &mask, 16, 0), EINVAL);
	CHECK_ERR(syscall(SYS_signalfd4, -1, &mask, HI | 8, 0), EINVAL);
	CHECK_ERR(syscall(SYS_signalfd4, -1, &mask, -1L, 0), EINVAL);
	CHECK_ERR(syscall(SYS_signalfd4, -1, &mask, 8, INT_MAX), EINVAL);
	CHECK_ERR(syscall(SYS_signalfd4, -1, &mask, 8, -1L), EINVAL);
	CHECK_ERR(syscall(SYS_signalfd, -1, &mask, 16), EINVAL);
	/* A mask with every bit, SIGKILL and SIGSTOP too, is taken. */
	fd = CHECK_OK(syscall(SYS_signalfd4, -1, &mask, 8, HI | SFD_CLOEXEC));
	if (fd >= 0) {
		CHECK_EQ(syscall(SYS_signalfd4, fd, &mask, 8, HI), fd);
		CHECK_EQ(syscall(SYS_signalfd4, HI | fd, &mask, 8, 0), fd);
		close((int)fd);
	}
}

static void
check_pidfd(void)
{
	long pid = syscall(SYS_getpid);
	long pfd = syscall(SYS_pidfd_open, pid, 0);
	siginfo_t si;

	if (pfd < 0) {
		guest_note("pidfd_open unavailable: skipped");
		return;
	}
	for (size_t i = 0; i < sizeof(bad_sigs) / sizeof(bad_sigs[0]); i++)
		CHECK_ERR(syscall(SYS_pidfd_send_signal, pfd, bad_sigs[i], NULL,
		    0), EINVAL);
	CHECK_EQ(syscall(SYS_pidfd_send_signal, pfd, HI, NULL, HI), 0);
	/* The siginfo's signal must be the one sent. */
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGUSR2;
	si.si_code = SI_QUEUE;
	CHECK_ERR(syscall(SYS_pidfd_send_signal, pfd, 0, &si, 0), EINVAL);
	si.si_signo = 0;
	CHECK_EQ(syscall(SYS_pidfd_send_signal, pfd, HI, &si, 0), 0);
	CHECK_ERR(syscall(SYS_pidfd_send_signal, pfd, 0, NULL, INT_MAX),
	    EINVAL);
	CHECK_ERR(syscall(SYS_pidfd_open, (long)INT_MIN, 0), EINVAL);
	CHECK_ERR(syscall(SYS_pidfd_open, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_pidfd_open, (long)INT_MAX, 0), ESRCH);
	CHECK_ERR(syscall(SYS_pidfd_open, pid, INT_MAX), EINVAL);
	close((int)pfd);
}

static volatile long sr_rax;

static void
on_usr1_rax(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	(void)si;
	((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RAX] = sr_rax;
}

/*
 * The handler of the signal kill sends itself puts each value in the
 * frame's rax: the kill "returns" it.  Linux's own restart codes are
 * there, and the numbers just past them that a kernel might keep for
 * its own use (a call that waits, one to run again).
 */
static void
check_sigreturn_rax(void)
{
	static const long vals[] = {
		-1, -512, -513, -514, -516, -599, -600, -601, -602, -603,
		-4095,
	};
	struct sigaction sa = { .sa_sigaction = on_usr1_rax,
	    .sa_flags = SA_SIGINFO };
	long pid = syscall(SYS_getpid);

	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		sr_rax = vals[i];
		CHECK_ERR(syscall(SYS_kill, pid, SIGUSR1), (int)-vals[i]);
	}
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = 0;
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
}

int
main(int argc, char **argv)
{
	int r;

	if ((r = int_drop_if_asked(argc, argv)) != 0)
		return r;
	check_kill();
	check_sigaction();
	check_sigmask();
	check_sigqueue();
	check_sigtimedwait();
	check_signalfd();
	check_pidfd();
	check_sigreturn_rax();
	return guest_done();
}
