/*
 * Verifies that every implemented syscall taking a pointer answers a bad one
 * (the NULL page, the kernel half, a non-canonical address, an unmapped
 * page, a buffer running off the end of a mapping, read-only memory for an
 * output) with EFAULT, never a crash, and that bad file descriptors give
 * EBADF.
 *
 * A syscall must only fault on memory it actually touches: a zero-length
 * write and nanosleep's unused remainder pointer are not errors.  write(2)
 * through a bad buffer is checked only on fds whose write really copies the
 * data (a pipe, a socket, a file or a tty, not /dev/null).
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "guest.h"

#define P	GUEST_PAGE
#define NBAD	5

/* Filled in by setup(): the pointers every check is run with. */
static void *bad[NBAD];
static const char *bad_name[NBAD] = {
	"NULL page", "low", "kernel half", "non-canonical", "unmapped page",
};
static unsigned char *page;	/* page is mapped, page + P is not */
static unsigned char *ro;	/* a read-only page */

static void
setup(void)
{
	page = guest_anon(2 * P, PROT_READ | PROT_WRITE);
	ro = guest_anon(P, PROT_READ);
	if (page == MAP_FAILED || ro == MAP_FAILED ||
	    guest_munmap(page + P, P) != 0) {
		CHECK(false, "setting up the test pages");
		syscall(SYS_exit_group, guest_done());
	}
	bad[0] = (void *)0;
	bad[1] = (void *)16;
	bad[2] = (void *)0xffffffff81000000UL;
	bad[3] = (void *)0x8000000000000000UL;
	bad[4] = page + P;
}

/*
 * Runs CHECK_ERR(call, EFAULT) once for each bad pointer from bad[first] on,
 * the pointer being named BAD in call.  Arguments where NULL means "none"
 * (gettimeofday's tz, rt_sigaction's oldact, ...) start at 1.
 */
#define FOR_EACH_BAD_FROM(first, call)					\
	do {								\
		for (int i_ = (first); i_ < NBAD; i_++) {		\
			void *BAD = bad[i_];				\
			if (!CHECK_ERR(call, EFAULT))			\
				guest_note("  ... with the %s pointer %p",\
				    bad_name[i_], BAD);			\
		}							\
	} while (0)
#define FOR_EACH_BAD(call)		FOR_EACH_BAD_FROM(0, call)
#define FOR_EACH_BAD_NONNULL(call)	FOR_EACH_BAD_FROM(1, call)

/*
 * Output structures written to memory the kernel may not write.  Where NULL
 * means "not wanted" it is skipped.
 */
static void
test_outputs(void)
{
	/* The end of the mapped page: the first bytes fit, the rest do not. */
	void *straddle = page + P - 8;

	FOR_EACH_BAD(syscall(SYS_uname, BAD));
	CHECK_ERR(syscall(SYS_uname, straddle), EFAULT);
	CHECK_ERR(syscall(SYS_uname, ro), EFAULT);

	FOR_EACH_BAD(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, BAD));
	FOR_EACH_BAD(syscall(SYS_clock_gettime, CLOCK_REALTIME, BAD));
	CHECK_ERR(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, straddle),
	    EFAULT);
	CHECK_ERR(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, ro), EFAULT);
	FOR_EACH_BAD_NONNULL(syscall(SYS_clock_getres, CLOCK_MONOTONIC, BAD));
	FOR_EACH_BAD_NONNULL(syscall(SYS_gettimeofday, BAD, NULL));
	FOR_EACH_BAD_NONNULL(syscall(SYS_gettimeofday, NULL, BAD));
	FOR_EACH_BAD_NONNULL(syscall(SYS_time, BAD));
	FOR_EACH_BAD(syscall(SYS_sysinfo, BAD));
	CHECK_ERR(syscall(SYS_sysinfo, straddle), EFAULT);
	FOR_EACH_BAD(syscall(SYS_getrandom, BAD, 16, 0));
	CHECK_ERR(syscall(SYS_getrandom, ro, 16, 0), EFAULT);
	FOR_EACH_BAD(syscall(SYS_sched_getaffinity, 0, 128, BAD));
	FOR_EACH_BAD(syscall(SYS_getrlimit, RLIMIT_NOFILE, BAD));
	FOR_EACH_BAD_NONNULL(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL,
	    BAD));
	FOR_EACH_BAD_NONNULL(syscall(SYS_rt_sigaction, SIGUSR1, NULL, BAD, 8));
	FOR_EACH_BAD_NONNULL(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, BAD,
	    8));
	FOR_EACH_BAD(syscall(SYS_fstat, 1, BAD));
	FOR_EACH_BAD(syscall(SYS_newfstatat, 1, "", BAD, AT_EMPTY_PATH));
	CHECK_ERR(syscall(SYS_fstat, 1, straddle), EFAULT);
	CHECK_ERR(syscall(SYS_fstat, 1, ro), EFAULT);
	/* ARCH_GET_FS stores the base through its pointer. */
	FOR_EACH_BAD(syscall(SYS_arch_prctl, 0x1003, BAD));
}

/*
 * Input structures read from memory the kernel may not read.  Where NULL
 * means "no new value" (setrlimit's is not one of them) it is skipped.
 */
static void
test_inputs(void)
{
	struct timespec zero = { 0, 0 };
	struct iovec iov;

	FOR_EACH_BAD(syscall(SYS_nanosleep, BAD, NULL));
	FOR_EACH_BAD(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, BAD,
	    NULL));
	/* The remainder is written only when a signal cuts the sleep short. */
	CHECK_EQ(syscall(SYS_nanosleep, &zero, bad[1]), 0);
	FOR_EACH_BAD(syscall(SYS_setrlimit, RLIMIT_NOFILE, BAD));
	FOR_EACH_BAD_NONNULL(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, BAD,
	    NULL));
	FOR_EACH_BAD_NONNULL(syscall(SYS_rt_sigaction, SIGUSR1, BAD, NULL, 8));
	FOR_EACH_BAD_NONNULL(syscall(SYS_rt_sigprocmask, SIG_BLOCK, BAD, NULL,
	    8));
	/*
	 * Path strings: even an empty-path lookup must read the string
	 * (Linux 6.11 and later take NULL as "" with AT_EMPTY_PATH).
	 */
	FOR_EACH_BAD_NONNULL(syscall(SYS_newfstatat, 1, BAD, page,
	    AT_EMPTY_PATH));
	FOR_EACH_BAD(syscall(SYS_newfstatat, AT_FDCWD, BAD, page, 0));

	/* The iovec array itself, before any fd-specific work. */
	FOR_EACH_BAD(syscall(SYS_writev, 1, BAD, 1));
	FOR_EACH_BAD(syscall(SYS_readv, 0, BAD, 1));
	/* No iovecs means nothing to read, so no fault. */
	CHECK_EQ(syscall(SYS_writev, 1, bad[1], 0), 0);
	CHECK_EQ(syscall(SYS_write, 1, bad[1], 0), 0);

	/* An iovec array running off the mapped page. */
	memset(page + P - sizeof(iov), 0, sizeof(iov));
	CHECK_ERR(syscall(SYS_writev, 1, page + P - sizeof(iov), 2), EFAULT);
}

/*
 * Tells whether a write(2) to fd copies the caller's data, so that a bad
 * buffer must give EFAULT: true for pipes, sockets, regular files and ttys,
 * false for other character devices such as /dev/null that drop it unread.
 */
static bool
write_copies(int fd)
{
	struct stat st;
	char termios[64];

	if (syscall(SYS_fstat, fd, &st) != 0)
		return false;
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISREG(st.st_mode))
		return true;
	return S_ISCHR(st.st_mode) &&
	    syscall(SYS_ioctl, fd, TCGETS, termios) == 0;
}

static void
test_write_buffer(void)
{
	struct iovec iov;
	int fds[] = { 2, 1 };
	int checked = 0;

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		int fd = fds[i];

		if (!write_copies(fd))
			continue;
		checked++;
		FOR_EACH_BAD(syscall(SYS_write, fd, BAD, 10));
		iov.iov_base = bad[1];
		iov.iov_len = 10;
		CHECK_ERR(syscall(SYS_writev, fd, &iov, 1), EFAULT);
	}
	if (checked == 0)
		guest_note("efault: neither stdout nor stderr copies written "
		    "data; write buffer checks skipped");
}

/*
 * ioctl(TCGETS) writes a termios on a tty; on anything else it fails
 * ENOTTY before touching memory.
 */
static void
test_ioctl(void)
{
	char termios[64];

	for (int fd = 0; fd <= 2; fd++) {
		errno = 0;
		if (syscall(SYS_ioctl, fd, TCGETS, termios) == 0) {
			FOR_EACH_BAD(syscall(SYS_ioctl, fd, TCGETS, BAD));
			FOR_EACH_BAD(syscall(SYS_ioctl, fd, TIOCGWINSZ, BAD));
		} else {
			CHECK(errno == ENOTTY, "TCGETS on fd %d: ENOTTY", fd);
			CHECK_ERR(syscall(SYS_ioctl, fd, TCGETS, bad[1]),
			    ENOTTY);
		}
	}
}

static void
check_ebadf(int fd)
{
	char buf[16];
	struct stat st;
	struct iovec iov = { buf, sizeof(buf) };

	CHECK_ERR(syscall(SYS_write, fd, "x", 1), EBADF);
	CHECK_ERR(syscall(SYS_read, fd, buf, sizeof(buf)), EBADF);
	CHECK_ERR(syscall(SYS_writev, fd, &iov, 1), EBADF);
	CHECK_ERR(syscall(SYS_readv, fd, &iov, 1), EBADF);
	CHECK_ERR(syscall(SYS_pread64, fd, buf, sizeof(buf), 0), EBADF);
	CHECK_ERR(syscall(SYS_fstat, fd, &st), EBADF);
	CHECK_ERR(syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH), EBADF);
	CHECK_ERR(syscall(SYS_ioctl, fd, TCGETS, buf), EBADF);
}

static void
test_ebadf(void)
{
	struct stat st;

	check_ebadf(-1);
	check_ebadf(-1000);
	check_ebadf(1 << 30);
	check_ebadf(INT_MAX);
	/*
	 * A small fd that nothing opened.  The test runner may leak an fd
	 * into a native run, so 99 is checked only if it is closed.
	 */
	errno = 0;
	if (syscall(SYS_fstat, 99, &st) == -1 && errno == EBADF)
		check_ebadf(99);
	else
		guest_note("efault: fd 99 is open here; not checked");
}

int
main(void)
{
	setup();
	test_outputs();
	test_inputs();
	test_write_buffer();
	test_ioctl();
	test_ebadf();
	return guest_done();
}
