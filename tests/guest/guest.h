/*
 * Check helpers for guest programs: the static x86-64 programs that the
 * guest test suite runs natively and under "vkernel run".
 *
 * A guest program runs its checks one after another, each failure prints one
 * "FAIL: file:line: what (errno=N NAME)" line on stderr and is counted, and
 * main() ends with "return guest_done();", which prints "ok: <prog>" on
 * stdout and returns 0 only if nothing failed.  A failed check does not stop
 * the program, so one run reports every broken behaviour at once.
 *
 * Output goes through write(2) on a stack buffer, never through stdio: a
 * check must not depend on buffering, on malloc working, or on the terminal.
 * The helpers use only syscalls the first vkernel implements: write, and
 * clock_gettime, rt_sigprocmask and mmap for the probes below.
 *
 * Syscalls whose behaviour is under test are made with raw syscall(): libc
 * wrappers may answer from the vDSO (clock_gettime, gettimeofday, time),
 * cache values (getpid in old glibc), translate arguments (sigaction adds
 * SA_RESTORER) or fault in user space on a bad pointer instead of letting the
 * kernel return EFAULT.
 *
 * Builds with glibc and musl, as C17 with GNU extensions (statement
 * expressions), one translation unit per program: everything is static, and
 * the functions are inline so that a program need not use them all.
 */
#ifndef GUEST_H
#define GUEST_H

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GUEST_PAGE	4096UL

/* Older libc headers lack these; the values are the Linux UAPI ones. */
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif
#ifndef MREMAP_MAYMOVE
#define MREMAP_MAYMOVE	1
#endif
#ifndef MREMAP_FIXED
#define MREMAP_FIXED	2
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP	4
#endif

static int guest_failures;
static int guest_checks;

/*
 * Names for the errnos these tests meet; a number alone in a failure line
 * makes the reader look it up, and strerror() drags in locale code.
 */
static inline const char *
guest_errno_name(int e)
{
	static const struct {
		int		 e;
		const char	*name;
	} names[] = {
		{ 0, "0" }, { EPERM, "EPERM" }, { ENOENT, "ENOENT" },
		{ ESRCH, "ESRCH" }, { EINTR, "EINTR" }, { EIO, "EIO" },
		{ E2BIG, "E2BIG" }, { ENOEXEC, "ENOEXEC" }, { EBADF, "EBADF" },
		{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" },
		{ EACCES, "EACCES" }, { EFAULT, "EFAULT" }, { EBUSY, "EBUSY" },
		{ EEXIST, "EEXIST" }, { EXDEV, "EXDEV" }, { ENODEV, "ENODEV" },
		{ ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" },
		{ EINVAL, "EINVAL" }, { EMFILE, "EMFILE" },
		{ EFBIG, "EFBIG" },
		{ ENOTTY, "ENOTTY" }, { ENOSPC, "ENOSPC" },
		{ ENOBUFS, "ENOBUFS" }, { ENOLCK, "ENOLCK" },
		{ ESPIPE, "ESPIPE" }, { ERANGE, "ERANGE" },
		{ ENAMETOOLONG, "ENAMETOOLONG" }, { ENOSYS, "ENOSYS" },
		{ ENOTEMPTY, "ENOTEMPTY" }, { ELOOP, "ELOOP" },
		{ EOVERFLOW, "EOVERFLOW" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ EPIPE, "EPIPE" }, { ENOTSOCK, "ENOTSOCK" },
		{ EAFNOSUPPORT, "EAFNOSUPPORT" },
		{ EADDRINUSE, "EADDRINUSE" },
		{ ECONNREFUSED, "ECONNREFUSED" },
		{ ECONNRESET, "ECONNRESET" }, { ENOTCONN, "ENOTCONN" },
		{ EISCONN, "EISCONN" }, { EPROTOTYPE, "EPROTOTYPE" },
		{ EMSGSIZE, "EMSGSIZE" }, { ENOPROTOOPT, "ENOPROTOOPT" },
		{ ESOCKTNOSUPPORT, "ESOCKTNOSUPPORT" },
		{ EPROTONOSUPPORT, "EPROTONOSUPPORT" }, { EDOM, "EDOM" },
		{ ETXTBSY, "ETXTBSY" },
		{ EDEADLK, "EDEADLK" }, { ETIMEDOUT, "ETIMEDOUT" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	return "?";
}

/* Writes all of buf to fd, ignoring errors: there is nowhere to report them. */
static inline void
guest_write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		long n = syscall(SYS_write, fd, buf, len);

		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/*
 * Prints one line to fd, built with vsnprintf on the stack.  A line longer
 * than the buffer is cut, which is fine for diagnostics.
 */
static inline void __attribute__((format(printf, 2, 0)))
guest_vline(int fd, const char *fmt, va_list ap)
{
	char buf[512];
	int n;

	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	guest_write_all(fd, buf, (size_t)n);
}

/* Prints an informational line on stdout (e.g. "skipped: stdin is a tty"). */
static inline void __attribute__((format(printf, 1, 2)))
guest_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	guest_vline(1, fmt, ap);
	va_end(ap);
}

/* Returns the part of a path after the last '/'. */
static inline const char *
guest_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/*
 * Records one check.  On failure prints "FAIL: file:line: what (errno=N
 * NAME)" on stderr, with the errno the caller saved right after the call
 * under test, before formatting could change it.
 */
static inline bool __attribute__((format(printf, 5, 6)))
guest_check_(bool ok, int saved_errno, const char *file, int line,
    const char *fmt, ...)
{
	char what[384], buf[512];
	va_list ap;
	int n;

	guest_checks++;
	if (ok)
		return true;
	guest_failures++;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	n = snprintf(buf, sizeof(buf), "FAIL: %s:%d: %s (errno=%d %s)\n",
	    guest_basename(file), line, what, saved_errno,
	    guest_errno_name(saved_errno));
	if (n > 0)
		guest_write_all(2, buf, (size_t)n < sizeof(buf) ?
		    (size_t)n : sizeof(buf) - 1);
	return false;
}

/*
 * CHECK(cond, fmt, ...): records a failure with the printf-style message
 * unless cond holds.  Evaluates to cond, so a test can skip the checks that
 * depend on an earlier one: "if (CHECK(p != MAP_FAILED, "mmap")) ...".
 */
#define CHECK(cond, ...)						\
	({								\
		bool ok_ = (cond);					\
		int e_ = errno;						\
		guest_check_(ok_, e_, __FILE__, __LINE__, __VA_ARGS__);	\
	})

/*
 * CHECK_ERR(call, err): the call must fail the syscall way, returning -1
 * (MAP_FAILED for mmap) with errno exactly err.  errno is cleared first so
 * that a stale value can never make a wrong result look right.
 */
#define CHECK_ERR(call, err)						\
	({								\
		errno = 0;						\
		long r_ = (long)(call);					\
		int e_ = errno;						\
		guest_check_(r_ == -1 && e_ == (err), e_, __FILE__,	\
		    __LINE__, "%s: want -1 %s, got %ld", #call,	\
		    guest_errno_name(err), r_);				\
	})

/*
 * CHECK_OK(call): the call must not return -1.  Evaluates to the call's
 * result as a long, so "long n = CHECK_OK(syscall(SYS_write, ...));".
 */
#define CHECK_OK(call)							\
	({								\
		errno = 0;						\
		long r_ = (long)(call);					\
		int e_ = errno;						\
		guest_check_(r_ != -1, e_, __FILE__, __LINE__,		\
		    "%s failed", #call);				\
		r_;							\
	})

/* CHECK_EQ(a, b): two integer values must be equal; prints both on failure. */
#define CHECK_EQ(a, b)							\
	({								\
		long long a_ = (long long)(a);				\
		long long b_ = (long long)(b);				\
		int e_ = errno;						\
		guest_check_(a_ == b_, e_, __FILE__, __LINE__,		\
		    "%s == %s: %lld != %lld", #a, #b, a_, b_);		\
	})

/*
 * Ends the program's checks: prints "ok: <prog> (N checks)" on stdout and
 * returns 0 if every check passed, else a summary on stderr and returns 1.
 * Use as "return guest_done();" from main().
 */
#define guest_done()	guest_done_(__FILE__)

static inline int
guest_done_(const char *file)
{
	char buf[256];
	int n;
	const char *name = guest_basename(file);
	const char *dot = strrchr(name, '.');
	int len = dot != NULL ? (int)(dot - name) : (int)strlen(name);

	if (guest_failures == 0) {
		n = snprintf(buf, sizeof(buf), "ok: %.*s (%d checks)\n", len,
		    name, guest_checks);
		guest_write_all(1, buf, (size_t)n);
		return 0;
	}
	n = snprintf(buf, sizeof(buf), "FAILED: %.*s: %d of %d checks\n", len,
	    name, guest_failures, guest_checks);
	guest_write_all(2, buf, (size_t)n);
	return 1;
}

/*
 * Ends a program whose checks cannot apply here (a limit too low, say):
 * prints "skip: <prog>: why" on stdout and returns 77, which meson reports
 * as SKIP rather than a pass or a failure.  Use as "return guest_skip(...);".
 */
#define guest_skip(...)	(guest_note("skip: " __VA_ARGS__), 77)

/*
 * Tells whether the kernel may write sizeof(struct timespec) bytes at p:
 * clock_gettime(2) copies its result out, so the kernel itself probes the
 * memory and answers EFAULT instead of a signal we could not catch (signal
 * delivery does not exist in the first vkernel).  Returns 0 if writable, else
 * the errno.
 */
static inline int
guest_probe_write(void *p)
{
	errno = 0;
	if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, p) == 0)
		return 0;
	return errno;
}

/*
 * Tells whether the kernel may read 8 bytes at p: rt_sigprocmask(2) copies
 * in the set to block, and the old mask is put back at once (no signal is
 * ever sent, so blocking whatever bits p holds for an instant is harmless).
 * Unlike a sleep it cannot hang on whatever the memory holds.  Returns 0 if
 * readable, else the errno.
 */
static inline int
guest_probe_read(const void *p)
{
	uint64_t old;

	errno = 0;
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, p, &old, 8) != 0)
		return errno;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, 8);
	return 0;
}

/*
 * mmap(2) as the raw syscall: glibc and musl both reject an unaligned offset
 * and musl a huge length before the kernel sees them, and these tests want
 * the kernel's answer.  Returns MAP_FAILED ((void *)-1) with errno on error.
 */
static inline void *
guest_mmap(void *addr, size_t len, int prot, int flags, int fd, long off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/*
 * munmap(2) and mprotect(2) as raw syscalls: musl's mprotect() rounds an
 * unaligned address down to its page, hiding the kernel's EINVAL.
 */
static inline int
guest_munmap(void *addr, size_t len)
{
	return (int)syscall(SYS_munmap, addr, len);
}

static inline int
guest_mprotect(void *addr, size_t len, int prot)
{
	return (int)syscall(SYS_mprotect, addr, len, prot);
}

/*
 * mount(2) and umount2(2) as raw syscalls, so that every program that
 * mounts sees the kernel's own answer and errno the same way.
 */
static inline long
guest_mount(const char *src, const char *tgt, const char *type,
    unsigned long flags, const void *data)
{
	return syscall(SYS_mount, src, tgt, type, flags, data);
}

static inline long
guest_umount2(const char *tgt, long flags)
{
	return syscall(SYS_umount2, tgt, flags);
}

/* Tells whether paths a and b name the same inode, following symlinks. */
static inline bool
guest_same_inode(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * "dir/name" in one of four static buffers used in turn, so that a call
 * may take up to four joined paths at once.
 */
static inline const char *
guest_join(const char *dir, const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* Tells whether all len bytes at p are b. */
static inline bool
all_byte(const void *p, size_t len, unsigned char b)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++)
		if (c[i] != b)
			return false;
	return true;
}

/*
 * Whether this user namespace maps uid: its /proc/self/uid_map has a
 * range with it, or there is no such file (vkernel, or no namespaces).
 */
static inline bool
guest_uid_mapped(unsigned long uid)
{
	FILE *f = fopen("/proc/self/uid_map", "r");
	unsigned long in, out, n;
	bool found = false;

	if (f == NULL)
		return true;
	while (!found && fscanf(f, "%lu %lu %lu", &in, &out, &n) == 3)
		found = uid >= in && uid - in < n;
	fclose(f);
	return found;
}

/*
 * When the program runs as root, runs fn(arg) again in a child as uid
 * and gid 65534 without groups: the checks of an unprivileged user,
 * whose failures count here as one.  A root whose user namespace maps
 * no uid 65534 (unshare --map-root-user run by an ordinary user) cannot
 * become it, and those checks are left out.
 */
static inline void
guest_as_nobody(void (*fn)(const void *), const void *arg)
{
	int st = -1;
	pid_t pid;

	if (getuid() != 0)
		return;
	if (!guest_uid_mapped(65534)) {
		fprintf(stderr, "note: uid 65534 is not mapped here: its "
		    "checks left out\n");
		return;
	}
	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) != 0)
			_exit(2);
		fn(arg);
		_exit(guest_failures == 0 ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "uid 65534: status %#x", st);
}

/*
 * One byte each way through a pipe, for two processes taking turns:
 * guest_step() lets the other go on, guest_await() waits for its step.
 * A broken pipe ends the process (status 3).
 */
static inline void
guest_step(int fd)
{
	if (write(fd, "s", 1) != 1)
		_exit(3);
}

static inline void
guest_await(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		_exit(3);
}

/* Whether child pid, reaped here, exited with status 0. */
static inline bool
guest_child_ok(pid_t pid)
{
	int st = -1;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0;
}

/*
 * Writes text to path in one write(2), as "echo -n text > path" with
 * O_WRONLY alone (a /proc or /sys file): 0, or the errno of the open
 * or the write.
 */
static inline int
guest_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), e = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		e = errno;
	close(fd);
	return e;
}

/* The number on /proc/self/status's line for field ("VmLck:"), or -1. */
static inline long
guest_status_num(const char *field)
{
	char buf[4096], *s;
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((s = strstr(buf, field)) == NULL)
		return -1;
	return strtol(s + strlen(field), NULL, 10);
}

/* A private anonymous mapping anywhere, or MAP_FAILED. */
static inline void *
guest_anon(size_t len, int prot)
{
	return guest_mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/*
 * Runs tests() as the caller, then in a child as uid and gid 65534, so
 * that both a guest root and an unprivileged guest user try them, and
 * returns what main() should: 0 if every check passed in both.  Core
 * dumps are off, so that whole wait statuses can be compared.  Use as
 * "return guest_main_twice(tests);".
 */
#define guest_main_twice(tests)	guest_main_twice_((tests), __FILE__)

static inline int
guest_main_twice_(void (*tests)(void), const char *file)
{
	struct rlimit nocore = { 0, 0 };
	pid_t pid;
	int st = 0;

	CHECK_OK(setrlimit(RLIMIT_CORE, &nocore));
	tests();
	pid = fork();
	if (pid == 0) {
		if (syscall(SYS_setresgid, 65534, 65534, 65534) < 0 ||
		    syscall(SYS_setresuid, 65534, 65534, 65534) < 0)
			_exit(77);
		tests();
		_exit(guest_done_(file));
	}
	CHECK(pid > 0, "fork");
	if (pid > 0 && waitpid(pid, &st, 0) == pid) {
		if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
			guest_note("skip: not allowed to switch to uid 65534");
		else
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			    "as uid 65534: status %#x", st);
	}
	return guest_done_(file);
}

#endif /* GUEST_H */
