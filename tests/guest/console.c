/*
 * Verifies the console fds 0-2: write and writev return the full count (also
 * past a pipe's buffer size), iovec limits give EINVAL, fstat and newfstatat
 * agree, TCGETS and TIOCGWINSZ succeed exactly on ttys and fail ENOTTY
 * elsewhere, pread64 gives ESPIPE on pipes, sockets and ttys, and reading
 * /dev/null gives end of file.
 *
 * What fds 0-2 are depends on who runs the program; each check follows from
 * fstat.  "meson test" passes /dev/null as stdin and pipes as stdout and
 * stderr, so there every check applies; run by hand on a terminal, the
 * stdin checks are skipped with a note rather than blocking on a read.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include "guest.h"

static struct stat fd_stat[3];
static bool fd_tty[3];

static void
test_fstat(void)
{
	struct stat st;
	char termios[64];

	for (int fd = 0; fd <= 2; fd++) {
		struct stat *s = &fd_stat[fd];
		mode_t type;

		/* Nothing below means anything without it. */
		if (!CHECK(syscall(SYS_fstat, fd, s) == 0, "fstat(%d)", fd))
			syscall(SYS_exit_group, guest_done());
		type = s->st_mode & S_IFMT;
		CHECK(type == S_IFCHR || type == S_IFIFO || type == S_IFREG ||
		    type == S_IFSOCK, "fd %d has a console-like type %#o", fd,
		    (unsigned)type);
		CHECK(s->st_blksize > 0, "fd %d st_blksize %ld", fd,
		    (long)s->st_blksize);
		CHECK(s->st_ino != 0, "fd %d st_ino %lu", fd,
		    (unsigned long)s->st_ino);

		memset(&st, 0, sizeof(st));
		CHECK_OK(syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH));
		CHECK(st.st_dev == s->st_dev && st.st_ino == s->st_ino &&
		    st.st_mode == s->st_mode && st.st_rdev == s->st_rdev,
		    "newfstatat(%d, \"\", AT_EMPTY_PATH) matches fstat", fd);

		errno = 0;
		fd_tty[fd] = syscall(SYS_ioctl, fd, TCGETS, termios) == 0;
		if (!fd_tty[fd])
			CHECK(errno == ENOTTY, "TCGETS on fd %d: ENOTTY", fd);
		/* Only character devices can be terminals. */
		CHECK(!fd_tty[fd] || S_ISCHR(s->st_mode),
		    "fd %d is a tty but not a character device", fd);
	}
}

static void
test_winsize(void)
{
	struct winsize ws;

	for (int fd = 0; fd <= 2; fd++) {
		memset(&ws, 0, sizeof(ws));
		if (fd_tty[fd])
			CHECK_OK(syscall(SYS_ioctl, fd, TIOCGWINSZ, &ws));
		else
			CHECK_ERR(syscall(SYS_ioctl, fd, TIOCGWINSZ, &ws),
			    ENOTTY);
	}
}

static void
test_write(void)
{
	static const char line[] = "console: a line through write(2)\n";
	static char big[96 * 1024];
	char a[] = "console: a line ", b[] = "through ", c[] = "writev(2)\n";
	struct iovec iov[4] = {
		{ a, sizeof(a) - 1 }, { b, sizeof(b) - 1 }, { NULL, 0 },
		{ c, sizeof(c) - 1 },
	};
	size_t total = iov[0].iov_len + iov[1].iov_len + iov[3].iov_len;

	CHECK_EQ(syscall(SYS_write, 1, line, sizeof(line) - 1),
	    sizeof(line) - 1);
	CHECK_EQ(syscall(SYS_write, 2, line, sizeof(line) - 1),
	    sizeof(line) - 1);
	CHECK_EQ(syscall(SYS_writev, 1, iov, 4), total);
	CHECK_EQ(syscall(SYS_write, 1, line, 0), 0);
	CHECK_EQ(syscall(SYS_writev, 1, iov, 0), 0);

	/*
	 * More than a pipe holds (64 KiB by default): a blocking write must
	 * wait for the reader and still return the whole count.
	 */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (i + 1) % 64 == 0 ? '\n' : 'a' + (char)(i % 64 % 26);
	CHECK_EQ(syscall(SYS_write, 1, big, sizeof(big)), sizeof(big));

	CHECK_ERR(syscall(SYS_writev, 1, iov, -1), EINVAL);
	/* UIO_MAXIOV is 1024. */
	CHECK_ERR(syscall(SYS_writev, 1, iov, 1025), EINVAL);
	/* A length sum that does not fit a ssize_t. */
	iov[2].iov_base = b;
	iov[2].iov_len = (size_t)SSIZE_MAX + 1;
	CHECK_ERR(syscall(SYS_writev, 1, iov, 4), EINVAL);
}

/* Linux checks pread64's offset before it even looks at the fd. */
static void
test_pread(void)
{
	char buf[16];
	long r;

	for (int fd = 0; fd <= 2; fd++) {
		mode_t m = fd_stat[fd].st_mode;

		CHECK_ERR(syscall(SYS_pread64, fd, buf, sizeof(buf), -1L),
		    EINVAL);
		if (S_ISFIFO(m) || S_ISSOCK(m) || fd_tty[fd]) {
			CHECK_ERR(syscall(SYS_pread64, fd, buf, sizeof(buf), 0),
			    ESPIPE);
		} else {
			/*
			 * A file or another device is seekable; whether it is
			 * readable depends on its open mode, which no call we
			 * have can tell.
			 */
			errno = 0;
			r = syscall(SYS_pread64, fd, buf, 0, 0);
			CHECK(r == 0 || (r == -1 && errno == EBADF),
			    "pread64(%d, 0 bytes) on a seekable fd: %ld", fd,
			    r);
		}
	}
}

static bool
is_dev_null(const struct stat *s)
{
	return S_ISCHR(s->st_mode) && major(s->st_rdev) == 1 &&
	    minor(s->st_rdev) == 3;
}

static void
test_stdin(void)
{
	char buf[64];
	struct iovec iov = { buf, sizeof(buf) };

	if (!is_dev_null(&fd_stat[0])) {
		guest_note("console: stdin is not /dev/null; read checks "
		    "skipped");
		return;
	}
	CHECK_EQ(syscall(SYS_read, 0, buf, sizeof(buf)), 0);
	CHECK_EQ(syscall(SYS_read, 0, buf, 0), 0);
	CHECK_EQ(syscall(SYS_readv, 0, &iov, 1), 0);
	CHECK_EQ(syscall(SYS_pread64, 0, buf, sizeof(buf), 0), 0);
	CHECK_EQ(syscall(SYS_pread64, 0, buf, sizeof(buf), 1L << 40), 0);
	CHECK_ERR(syscall(SYS_readv, 0, &iov, -1), EINVAL);
}

int
main(void)
{
	test_fstat();
	test_winsize();
	test_write();
	test_pread();
	test_stdin();
	return guest_done();
}
