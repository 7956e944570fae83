/*
 * Verifies that every call taking a descriptor number takes it as Linux
 * does, for any value a guest register can hold: close(2), close_range(2),
 * dup2(2), dup3(2), fcntl(2) F_DUPFD/F_DUPFD_CLOEXEC/F_GETFD/F_SETFD,
 * ioctl(2) FIOCLEX, poll(2), select(2) and epoll_ctl(2) with INT_MAX,
 * INT_MIN, UINT_MAX, 2^31, 2^32 and 64-bit values with high bits (Linux
 * uses the low 32 bits of int and unsigned int arguments), each with
 * Linux's errno; F_SETPIPE_SZ sizes; RLIMIT_NOFILE at 0 and past
 * fs.nr_open; and, with more than 100,000 descriptors open, that open(2),
 * dup(2) and F_DUPFD always give the lowest free number after random
 * closes, with close-on-exec flags that stay with their descriptor.  The
 * checks run as root and again as an unprivileged user (uid 65534).
 * Natively, without CAP_SYS_RESOURCE, the table is only as big as the
 * hard RLIMIT_NOFILE allows.
 */
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>

#include "guest.h"

#ifndef SYS_close_range
#define SYS_close_range		436
#endif
#define FDT_CLOSE_RANGE_UNSHARE	(1U << 1)
#define FDT_CLOSE_RANGE_CLOEXEC	(1U << 2)

/* Register values with high bits: Linux sees only their low 32. */
#define HI(x)		((1UL << 32) | (unsigned long)(unsigned)(x))

/* How many descriptors the big table holds, and the limit set for it. */
#define FDT_MANY		100500
#define FDT_LIMIT		(1 << 17)

static long
fcntl3(unsigned long fd, unsigned long cmd, unsigned long arg)
{
	return syscall(SYS_fcntl, fd, cmd, arg);
}

static bool
is_open(int fd)
{
	return fcntl3((unsigned)fd, F_GETFD, 0) != -1;
}

static bool
is_cloexec(int fd)
{
	return fcntl3((unsigned)fd, F_GETFD, 0) == FD_CLOEXEC;
}

static long
nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	return (long)rl.rlim_cur;
}

/* close, dup2, dup3 and fcntl with out-of-range and wide numbers. */
static void
test_boundaries(void)
{
	static const unsigned long bad[] = { INT_MAX, (unsigned long)INT_MIN,
	    UINT_MAX, 1UL << 31, (unsigned long)-1L, HI(INT_MAX),
	    (unsigned long)LONG_MIN | 0x7fffffffUL };
	int fd = (int)CHECK_OK(open("/dev/null", O_RDONLY));
	long lim = nofile(), r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_ERR(syscall(SYS_close, bad[i]), EBADF);
		CHECK_ERR(syscall(SYS_dup, bad[i]), EBADF);
		CHECK_ERR(syscall(SYS_dup2, (unsigned long)fd, bad[i]), EBADF);
		CHECK_ERR(syscall(SYS_dup2, bad[i], bad[i]), EBADF);
		CHECK_ERR(syscall(SYS_dup3, (unsigned long)fd, bad[i], 0),
		    EBADF);
		CHECK_ERR(syscall(SYS_dup3, bad[i], 5UL, 0), EBADF);
		CHECK_ERR(fcntl3(bad[i], F_GETFD, 0), EBADF);
		CHECK_ERR(fcntl3(bad[i], F_SETFD, FD_CLOEXEC), EBADF);
		CHECK_ERR(syscall(SYS_ioctl, bad[i], FIOCLEX), EBADF);
		/* Below the limit, the low 32 bits taken as unsigned. */
		if ((unsigned)bad[i] >= (unsigned long)lim) {
			CHECK_ERR(fcntl3((unsigned)fd, F_DUPFD, bad[i]),
			    EINVAL);
			CHECK_ERR(fcntl3((unsigned)fd, F_DUPFD_CLOEXEC,
			    bad[i]), EINVAL);
		}
	}
	CHECK_ERR(syscall(SYS_dup2, (unsigned long)fd, (unsigned long)lim),
	    EBADF);
	CHECK_ERR(fcntl3((unsigned)fd, F_DUPFD, (unsigned long)lim), EINVAL);
	CHECK_EQ(syscall(SYS_dup2, (unsigned long)fd, lim - 1), lim - 1);
	CHECK_OK(close((int)lim - 1));
	CHECK_EQ(syscall(SYS_dup2, (unsigned long)fd, (unsigned long)fd), fd);
	CHECK_ERR(syscall(SYS_dup3, (unsigned long)fd, (unsigned long)fd, 0),
	    EINVAL);
	CHECK_ERR(syscall(SYS_dup3, (unsigned long)fd, 100UL, 1UL), EINVAL);

	/* The high half of each register is not Linux's to read. */
	CHECK_EQ(syscall(SYS_dup2, HI(fd), HI(fd)), fd);
	CHECK_EQ(syscall(SYS_dup2, HI(fd), HI(100)), 100);
	CHECK(!is_cloexec(100), "dup2 sets no FD_CLOEXEC");
	CHECK_EQ(syscall(SYS_dup3, HI(fd), HI(101), HI(O_CLOEXEC)), 101);
	CHECK(is_cloexec(101), "dup3 O_CLOEXEC in the low bits");
	CHECK_EQ(fcntl3(HI(101), HI(F_SETFD), HI(0)), 0);
	CHECK(!is_cloexec(101), "F_SETFD through wide registers");
	CHECK_EQ(syscall(SYS_ioctl, HI(101), HI(FIOCLEX)), 0);
	CHECK(is_cloexec(101), "FIOCLEX through wide registers");
	r = CHECK_OK(fcntl3((unsigned)fd, F_DUPFD, HI(200)));
	CHECK(r >= 200 && r < 300, "F_DUPFD minimum 2^32 + 200: %ld", r);
	CHECK_OK(syscall(SYS_close, HI(r)));
	CHECK(!is_open((int)r), "close of a wide fd closes its low half");
	CHECK_EQ(syscall(SYS_close_range, HI(100), HI(101), HI(0)), 0);
	CHECK(!is_open(100) && !is_open(101), "close_range, wide registers");
	r = CHECK_OK(fcntl3((unsigned)fd, F_DUPFD_CLOEXEC, 1UL << 32));
	CHECK(r >= 0 && r < 300 && is_cloexec((int)r),
	    "F_DUPFD_CLOEXEC minimum 2^32: %ld", r);
	CHECK_OK(close((int)r));
	CHECK_OK(close(fd));
}

/* close_range's unsigned range, its flags and the holes in it. */
static void
test_close_range(void)
{
	int fd = (int)CHECK_OK(open("/dev/null", O_RDONLY));

	CHECK_EQ(syscall(SYS_close_range, 0x80000000UL, 0xffffffffUL, 0), 0);
	CHECK_EQ(syscall(SYS_close_range, 0x80000000UL, 0xffffffffUL,
	    FDT_CLOSE_RANGE_CLOEXEC), 0);
	CHECK_EQ(syscall(SYS_close_range, 0xffffffffUL, 0xffffffffUL,
	    FDT_CLOSE_RANGE_CLOEXEC), 0);
	CHECK_EQ(syscall(SYS_close_range, (unsigned long)INT_MAX, UINT_MAX,
	    0), 0);
	CHECK_ERR(syscall(SYS_close_range, 0xffffffffUL, 0x80000000UL, 0),
	    EINVAL);
	CHECK_ERR(syscall(SYS_close_range, 10UL, 9UL, 0), EINVAL);
	CHECK_ERR(syscall(SYS_close_range, 0x80000000UL, 0xffffffffUL, 1),
	    EINVAL);
	CHECK_ERR(syscall(SYS_close_range, 0x80000000UL, 0xffffffffUL,
	    0x80000000UL), EINVAL);
	CHECK(is_open(fd), "fd survives the refused and empty ranges");

	/* CLOEXEC marks the open fds of the range, and the holes stay free. */
	CHECK_EQ(syscall(SYS_dup2, (unsigned long)fd, 300UL), 300);
	CHECK_EQ(syscall(SYS_dup2, (unsigned long)fd, 302UL), 302);
	CHECK_EQ(syscall(SYS_close_range, 300UL, 0xffffffffUL,
	    FDT_CLOSE_RANGE_CLOEXEC), 0);
	CHECK(is_cloexec(300) && is_cloexec(302) && !is_open(301),
	    "CLOSE_RANGE_CLOEXEC over a hole");
	CHECK(!is_cloexec(fd), "fds before the range keep their flag");
	CHECK_EQ(syscall(SYS_dup2, (unsigned long)fd, 301UL), 301);
	CHECK(!is_cloexec(301), "a hole filled later has no FD_CLOEXEC");
	CHECK_OK(close(302));
	CHECK_EQ(syscall(SYS_dup2, (unsigned long)fd, 302UL), 302);
	CHECK(!is_cloexec(302), "a reused fd does not inherit FD_CLOEXEC");
	CHECK_EQ(syscall(SYS_close_range, 300UL, 0xffffffffUL,
	    FDT_CLOSE_RANGE_UNSHARE), 0);
	CHECK(!is_open(300) && !is_open(301) && !is_open(302) && is_open(fd),
	    "close_range(300, ~0U, UNSHARE)");
	CHECK_OK(close(fd));
}

/* poll, select and epoll_ctl with numbers no table can hold. */
static void
test_readiness(void)
{
	struct pollfd p[3] = { { .fd = INT_MAX, .events = POLLIN },
	    { .fd = INT_MIN, .events = POLLIN }, { .fd = -1 } };
	struct epoll_event ev = { .events = EPOLLIN };
	struct timeval tv = { 0, 0 };
	int ep = (int)CHECK_OK(epoll_create1(0));

	CHECK_EQ(poll(p, 3, 0), 1);
	CHECK_EQ(p[0].revents, POLLNVAL);
	CHECK_EQ(p[1].revents, 0);
	/* Linux reads no more of the sets than the table has slots. */
	CHECK_EQ(syscall(SYS_select, INT_MAX, NULL, NULL, NULL, &tv), 0);
	CHECK_ERR(syscall(SYS_select, -1, NULL, NULL, NULL, &tv), EINVAL);
	CHECK_ERR(epoll_ctl(ep, EPOLL_CTL_ADD, INT_MAX, &ev), EBADF);
	CHECK_ERR(epoll_ctl(ep, EPOLL_CTL_ADD, INT_MIN, &ev), EBADF);
	CHECK_ERR(epoll_ctl(INT_MAX, EPOLL_CTL_ADD, 0, &ev), EBADF);
	CHECK_OK(close(ep));
}

/*
 * F_SETPIPE_SZ takes an unsigned int: past 2^31 is EINVAL, the high half
 * of the register is not read; past pipe-max-size (1 MiB) is EPERM
 * without CAP_SYS_RESOURCE, which root has natively.
 */
static void
test_pipe_size(void)
{
	int p[2];

	if (!CHECK(pipe(p) == 0, "pipe"))
		return;
	CHECK_EQ(fcntl3((unsigned)p[0], F_SETPIPE_SZ, 0), 4096);
	CHECK_EQ(fcntl3((unsigned)p[0], F_SETPIPE_SZ, 4097), 8192);
	CHECK_EQ(fcntl3((unsigned)p[0], F_SETPIPE_SZ, 1UL << 32), 4096);
	CHECK_EQ(fcntl3((unsigned)p[0], F_SETPIPE_SZ, HI(8192)), 8192);
	CHECK_ERR(fcntl3((unsigned)p[0], F_SETPIPE_SZ, (1UL << 31) + 1),
	    EINVAL);
	CHECK_ERR(fcntl3((unsigned)p[0], F_SETPIPE_SZ, UINT_MAX), EINVAL);
	CHECK_ERR(fcntl3((unsigned)p[0], F_SETPIPE_SZ, ~0UL), EINVAL);
	if (getuid() != 0) {
		CHECK_ERR(fcntl3((unsigned)p[0], F_SETPIPE_SZ,
		    (1UL << 20) + 1), EPERM);
		CHECK_ERR(fcntl3((unsigned)p[0], F_SETPIPE_SZ, 1UL << 31),
		    EPERM);
	}
	CHECK_EQ(fcntl3((unsigned)p[0], F_GETPIPE_SZ, 0), 8192);
	close(p[0]);
	close(p[1]);
}

/* fs.nr_open: the most RLIMIT_NOFILE may be. */
static long
nr_open(void)
{
	char buf[32] = "";
	long n = 1048576;
	int fd;

	if ((fd = open("/proc/sys/fs/nr_open", O_RDONLY)) >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) > 0)
			n = atol(buf);
		close(fd);
	}
	return n;
}

/* Runs fn in a child, whose limits may change; checks it exits 0. */
static void
in_child(void (*fn)(void), const char *what)
{
	int status;
	pid_t pid;

	if ((pid = fork()) == 0) {
		guest_failures = 0;
		fn();
		_exit(guest_failures != 0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", what);
}

/* RLIMIT_NOFILE 0: no new fd at all, and dup2 onto itself still works. */
static void
nofile_zero(void)
{
	struct rlimit zero = { 0, 0 };
	int pfd[2];

	CHECK_OK(setrlimit(RLIMIT_NOFILE, &zero));
	CHECK_ERR(open("/dev/null", O_RDONLY), EMFILE);
	CHECK_ERR(dup(1), EMFILE);
	CHECK_ERR(pipe(pfd), EMFILE);
	CHECK_ERR(fcntl3(1, F_DUPFD, 0), EINVAL);
	CHECK_ERR(syscall(SYS_dup2, 1UL, 2UL), EBADF);
	CHECK_EQ(syscall(SYS_dup2, 1UL, 1UL), 1);
	CHECK_ERR(syscall(SYS_dup3, 1UL, 2UL, 0), EBADF);
	CHECK_EQ(syscall(SYS_close_range, 3UL, 0xffffffffUL, 0), 0);
}

/*
 * RLIMIT_NOFILE at fs.nr_open, where whoever may raise it that far (root
 * with CAP_SYS_RESOURCE): the last fd works, the next is refused.
 */
static void
nofile_nr_open(void)
{
	long n = nr_open();
	struct rlimit big = { (rlim_t)n, (rlim_t)n };

	if (setrlimit(RLIMIT_NOFILE, &big) != 0)
		return;
	CHECK_EQ(syscall(SYS_dup2, 1UL, (unsigned long)n - 1), n - 1);
	CHECK_ERR(syscall(SYS_dup2, 1UL, (unsigned long)n), EBADF);
	CHECK_ERR(fcntl3(1, F_DUPFD, (unsigned long)n), EINVAL);
	CHECK_EQ(fcntl3(1, F_DUPFD, (unsigned long)n - 2), n - 2);
	CHECK_ERR(fcntl3(1, F_DUPFD, (unsigned long)n - 2), EMFILE);
	CHECK_EQ(syscall(SYS_close_range, (unsigned long)n - 2, UINT_MAX, 0),
	    0);
	CHECK(!is_open((int)n - 1), "close_range up to nr_open");
}

/* RLIMIT_NOFILE at 0, at fs.nr_open and past it. */
static void
test_nofile_edges(void)
{
	struct rlimit rl;

	CHECK_OK(getrlimit(RLIMIT_NOFILE, &rl));
	rl.rlim_max = (rlim_t)nr_open() + 1;
	CHECK_ERR(setrlimit(RLIMIT_NOFILE, &rl), EPERM);
	rl.rlim_max = RLIM_INFINITY;
	CHECK_ERR(setrlimit(RLIMIT_NOFILE, &rl), EPERM);
	CHECK_OK(getrlimit(RLIMIT_NOFILE, &rl));
	rl.rlim_cur = rl.rlim_max + 1;
	CHECK_ERR(setrlimit(RLIMIT_NOFILE, &rl), EINVAL);
	in_child(nofile_zero, "RLIMIT_NOFILE 0");
	in_child(nofile_nr_open, "RLIMIT_NOFILE at fs.nr_open");
}

/* A reference bitmap of the fds that should be open, from 3 up. */
static uint64_t ref_open[FDT_LIMIT / 64], ref_cloexec[FDT_LIMIT / 64];

static void
ref_set(int fd, bool on, bool cloexec)
{
	uint64_t bit = 1ULL << (fd % 64);

	ref_open[fd / 64] = on ? ref_open[fd / 64] | bit :
	    ref_open[fd / 64] & ~bit;
	ref_cloexec[fd / 64] = on && cloexec ? ref_cloexec[fd / 64] | bit :
	    ref_cloexec[fd / 64] & ~bit;
}

static bool
ref_is_open(int fd)
{
	return (ref_open[fd / 64] >> (fd % 64)) & 1;
}

static int
ref_lowest(int from)
{
	while (ref_is_open(from))
		from++;
	return from;
}

/* A small LCG: the same closes every run and on every libc. */
static unsigned
rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* select with sets far past FD_SETSIZE: hi, the highest open fd, is ready. */
static void
test_many_select(int hi)
{
	size_t words = (size_t)hi / 64 + 1;
	uint64_t *set = calloc(words, sizeof(uint64_t));
	struct timeval tv = { 0, 0 };

	if (!CHECK(set != NULL, "calloc"))
		return;
	set[hi / 64] = 1ULL << (hi % 64);
	CHECK_EQ(syscall(SYS_select, hi + 1, set, NULL, NULL, &tv), 1);
	CHECK_EQ(set[hi / 64], 1ULL << (hi % 64));
	free(set);
}

/* A child's copy of the big table: the same fds and flags, its own holes. */
static void
test_many_fork(int hi)
{
	int status, low = ref_lowest(0);
	pid_t pid;

	if ((pid = fork()) == 0) {
		bool ok = is_open(hi) && is_cloexec(hi) ==
		    ((ref_cloexec[hi / 64] >> (hi % 64)) & 1) &&
		    !is_open(low) && dup(hi) == low && !is_open(hi + 1);

		_exit(ok ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the big table in a forked child");
	CHECK(!is_open(low), "the child's dup is its own");
}

/*
 * More than 100,000 fds (fewer natively when the hard limit is lower and
 * the user cannot raise it), random closes, and every new fd the lowest
 * free one; close-on-exec flags follow their fd.
 */
static void
test_many(void)
{
	int base = (int)CHECK_OK(open("/dev/null", O_RDONLY)), top = base;
	int many = (int)(nofile() < FDT_MANY + 64 ? nofile() - 64 : FDT_MANY);
	unsigned seed = 18;
	int hi;
	bool ok = true;

	/* What the harness may have left open above is not ours to count. */
	CHECK_EQ(syscall(SYS_close_range, (unsigned long)base + 1,
	    0xffffffffUL, 0), 0);
	memset(ref_open, 0, sizeof(ref_open));
	memset(ref_cloexec, 0, sizeof(ref_cloexec));
	for (int fd = 0; fd <= base; fd++)
		ref_set(fd, true, false);
	while (top < many && ok) {
		bool cx = rnd(&seed) % 3 == 0;
		int fd = (int)(cx ? fcntl3((unsigned)base, F_DUPFD_CLOEXEC,
		    0) : dup(base));

		ok = CHECK_EQ(fd, top + 1);
		ref_set(fd, true, cx);
		top = fd;
	}
	/* Close a random quarter, then refill: always the lowest free. */
	for (int i = 0; i < many / 4; i++) {
		int fd = base + 1 + (int)(rnd(&seed) % (unsigned)(top - base));

		if (ref_is_open(fd)) {
			CHECK_OK(close(fd));
			ref_set(fd, false, false);
		}
	}
	CHECK_ERR(close(top + 1), EBADF);
	for (int i = 0; i < many / 8 && ok; i++) {
		int want, fd, kind = (int)(rnd(&seed) % 4), min = 0;

		if (kind == 0)
			fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		else if (kind == 1)
			fd = dup(base);
		else {
			min = (int)(rnd(&seed) % (unsigned)top);
			fd = (int)fcntl3((unsigned)base, kind == 2 ? F_DUPFD :
			    F_DUPFD_CLOEXEC, (unsigned)min);
		}
		want = ref_lowest(min);
		ok = CHECK_EQ(fd, want);
		ref_set(want, true, kind == 0 || kind == 3);
	}
	for (int fd = 0; fd <= top + 64 && ok; fd++) {
		long want = !ref_is_open(fd) ? -1 :
		    (ref_cloexec[fd / 64] >> (fd % 64)) & 1 ? FD_CLOEXEC : 0;

		ok = CHECK(fcntl3((unsigned)fd, F_GETFD, 0) == want,
		    "fd %d: open and close-on-exec as the reference", fd);
	}
	hi = top + 64;
	while (!ref_is_open(hi))
		hi--;
	test_many_select(hi);
	test_many_fork(hi);
	/* A big table indexed at 2^31 and past it. */
	CHECK_EQ(syscall(SYS_close_range, 0x80000000UL, 0xffffffffUL,
	    FDT_CLOSE_RANGE_CLOEXEC), 0);
	CHECK_EQ(syscall(SYS_close_range, 0x80000000UL, 0xffffffffUL, 0), 0);
	CHECK_ERR(syscall(SYS_close, 0x80000000UL), EBADF);
	CHECK_ERR(syscall(SYS_dup2, (unsigned long)base,
	    (unsigned long)INT_MAX), EBADF);
	CHECK(is_open(top) == ref_is_open(top), "the top survives");
	CHECK_EQ(syscall(SYS_close_range, (unsigned long)base + 1,
	    0xffffffffUL, 0), 0);
	CHECK_EQ(dup(base), base + 1);
	CHECK_OK(close(base + 1));
	CHECK_OK(close(base));
}

/* The big table only once: its rules are the same for every user. */
static void
test_all(bool many)
{
	test_boundaries();
	test_close_range();
	test_readiness();
	test_pipe_size();
	test_nofile_edges();
	if (many)
		test_many();
}

/* The same checks as an unprivileged user, but for the big table. */
static void
test_as_nobody(void)
{
	if (CHECK(setgroups(0, NULL) == 0 && setresgid(65534, 65534,
	    65534) == 0 && setresuid(65534, 65534, 65534) == 0,
	    "drop to 65534"))
		test_all(false);
}

int
main(void)
{
	struct rlimit rl;

	/*
	 * Room for the big table; where even root may not raise the hard
	 * limit (a container without CAP_SYS_RESOURCE), as far as it goes.
	 */
	CHECK_OK(getrlimit(RLIMIT_NOFILE, &rl));
	if (rl.rlim_max < FDT_LIMIT) {
		struct rlimit want = { FDT_LIMIT, FDT_LIMIT };

		if (setrlimit(RLIMIT_NOFILE, &want) == 0)
			rl = want;
	}
	rl.rlim_cur = rl.rlim_max > FDT_LIMIT ? FDT_LIMIT : rl.rlim_max;
	if (!CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "RLIMIT_NOFILE %ld",
	    (long)rl.rlim_cur))
		return guest_done();
	test_all(true);
	if (getuid() == 0)
		in_child(test_as_nobody, "the checks as uid 65534");
	return guest_done();
}
