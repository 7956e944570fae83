/*
 * Verifies the file descriptor calls on files: dup(2), dup2(2) and dup3(2)
 * with their lowest-free-number and shared-offset rules, the fcntl(2)
 * F_DUPFD, F_GETFD/F_SETFD and F_GETFL/F_SETFL commands, close(2) and
 * close_range(2), each refusal with the errno Linux gives.
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include <fcntl.h>

#include "guest.h"
#include "fs_common.h"

/* Older headers lack them; the values are the Linux UAPI ones. */
#ifndef SYS_close_range
#define SYS_close_range		436
#endif
#define FS_CLOSE_RANGE_CLOEXEC	(1U << 2)
/* Linux adds it on 64-bit opens; libc headers define O_LARGEFILE as 0. */
#define FS_O_LARGEFILE		0100000

static long
sys_fcntl(int fd, int cmd, long arg)
{
	return syscall(SYS_fcntl, fd, cmd, arg);
}

/* Tells whether fd is open. */
static bool
fd_is_open(int fd)
{
	return sys_fcntl(fd, F_GETFD, 0) != -1;
}

/* The lowest fd number not in use. */
static int
lowest_free(void)
{
	int fd = 0;

	while (fd_is_open(fd))
		fd++;
	return fd;
}

/* F_GETFL without the O_LARGEFILE bit Linux adds by itself. */
static long
status_flags(int fd)
{
	long fl = sys_fcntl(fd, F_GETFL, 0);

	return fl == -1 ? -1 : fl & ~FS_O_LARGEFILE;
}

/* Tells whether fd refers to the file at path. */
static bool
fd_is_file(long fd, const char *path)
{
	struct stat a, b;

	return fstat((int)fd, &a) == 0 && stat(path, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The soft RLIMIT_NOFILE: the first fd number that may not be used. */
static long
nofile_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur > 1L << 30)
		return -1;
	return (long)rl.rlim_cur;
}

static void
test_dup(void)
{
	long fd, d, dcx, cx, other, limit = nofile_limit();
	int low;

	fd = CHECK_OK(syscall(SYS_open, "f", O_RDWR | O_CREAT, 0644));
	cx = CHECK_OK(syscall(SYS_open, "f", O_RDONLY | O_CLOEXEC, 0));
	other = CHECK_OK(syscall(SYS_open, "g", O_RDWR | O_CREAT, 0644));
	if (fd < 0 || cx < 0 || other < 0)
		return;
	/* dup returns the lowest free number, sharing the file offset. */
	low = lowest_free();
	d = CHECK_OK(syscall(SYS_dup, (int)fd));
	CHECK_EQ(d, low);
	CHECK_EQ(write((int)fd, "abc", 3), 3);
	CHECK_EQ(lseek((int)d, 0, SEEK_CUR), 3);
	CHECK_EQ(lseek((int)d, 1, SEEK_SET), 1);
	CHECK_EQ(lseek((int)fd, 0, SEEK_CUR), 1);
	/* The close-on-exec flag belongs to the number, not the file. */
	dcx = CHECK_OK(syscall(SYS_dup, (int)cx));
	CHECK_EQ(sys_fcntl((int)dcx, F_GETFD, 0), 0);
	close((int)dcx);
	close((int)d);
	FS_CHECK_ERR(syscall(SYS_dup, -1), EBADF);
	FS_CHECK_ERR(syscall(SYS_dup, 9999), EBADF);

	/* dup2 of an fd to itself only checks it. */
	CHECK_EQ(syscall(SYS_dup2, (int)fd, (int)fd), fd);
	FS_CHECK_ERR(syscall(SYS_dup2, 9999, 9999), EBADF);
	CHECK_EQ(syscall(SYS_dup2, (int)cx, 50), 50);
	CHECK_EQ(sys_fcntl(50, F_GETFD, 0), 0);
	CHECK(fd_is_file(50, "f"), "fd 50 is f");
	/* dup2 onto an open number closes it first, silently. */
	CHECK_EQ(syscall(SYS_dup2, (int)fd, (int)other), other);
	CHECK(fd_is_file(other, "f"), "the old fd now refers to f");
	FS_CHECK_ERR(syscall(SYS_dup2, 9999, 50), EBADF);
	CHECK(fd_is_open(50), "a failed dup2 leaves newfd open");
	FS_CHECK_ERR(syscall(SYS_dup2, (int)fd, -1), EBADF);
	if (limit > 0)
		FS_CHECK_ERR(syscall(SYS_dup2, (int)fd, (int)limit), EBADF);

	/* dup3 refuses oldfd == newfd and any flag but O_CLOEXEC. */
	FS_CHECK_ERR(syscall(SYS_dup3, (int)fd, (int)fd, 0), EINVAL);
	FS_CHECK_ERR(syscall(SYS_dup3, (int)fd, (int)fd, O_CLOEXEC), EINVAL);
	CHECK_EQ(syscall(SYS_dup3, (int)fd, 52, O_CLOEXEC), 52);
	CHECK_EQ(sys_fcntl(52, F_GETFD, 0), FD_CLOEXEC);
	CHECK_EQ(syscall(SYS_dup3, (int)cx, 52, 0), 52);
	CHECK_EQ(sys_fcntl(52, F_GETFD, 0), 0);
	FS_CHECK_ERR(syscall(SYS_dup3, (int)fd, 53, O_APPEND), EINVAL);
	FS_CHECK_ERR(syscall(SYS_dup3, (int)fd, 53, -1), EINVAL);
	CHECK(!fd_is_open(53), "a refused dup3 opens nothing");
	FS_CHECK_ERR(syscall(SYS_dup3, 9999, 53, 0), EBADF);
	FS_CHECK_ERR(syscall(SYS_dup3, (int)fd, -1, 0), EBADF);
	close(50);
	close(52);
	close((int)fd);
	close((int)cx);
	close((int)other);
}

static void
test_fcntl_dupfd(void)
{
	long fd, limit = nofile_limit();

	fd = CHECK_OK(syscall(SYS_open, "f", O_RDWR | O_CREAT, 0644));
	if (fd < 0)
		return;
	/* F_DUPFD takes the lowest free number at or above its argument. */
	CHECK(!fd_is_open(100) && !fd_is_open(101), "fds 100, 101 are free");
	CHECK_EQ(sys_fcntl((int)fd, F_DUPFD, 100), 100);
	CHECK_EQ(sys_fcntl((int)fd, F_DUPFD, 100), 101);
	CHECK_EQ(sys_fcntl(100, F_GETFD, 0), 0);
	CHECK_EQ(sys_fcntl((int)fd, F_DUPFD_CLOEXEC, 100), 102);
	CHECK_EQ(sys_fcntl(102, F_GETFD, 0), FD_CLOEXEC);
	CHECK(fd_is_file(102, "f"), "fd 102 is f");
	close(100);
	CHECK_EQ(sys_fcntl((int)fd, F_DUPFD, 99), 99);
	CHECK_EQ(sys_fcntl((int)fd, F_DUPFD, 99), 100);
	FS_CHECK_ERR(sys_fcntl((int)fd, F_DUPFD, -1), EINVAL);
	if (limit > 0)
		FS_CHECK_ERR(sys_fcntl((int)fd, F_DUPFD, limit), EINVAL);
	FS_CHECK_ERR(sys_fcntl(9999, F_DUPFD, 0), EBADF);
	for (int i = 99; i <= 102; i++)
		close(i);
	close((int)fd);
}

static void
test_fcntl_flags(void)
{
	long fd, d, rd, cx;
	char buf[16];

	fd = CHECK_OK(syscall(SYS_open, "h", O_RDWR | O_CREAT | O_TRUNC,
	    0644));
	rd = CHECK_OK(syscall(SYS_open, "h", O_RDONLY, 0));
	cx = CHECK_OK(syscall(SYS_open, "h", O_WRONLY | O_CLOEXEC, 0));
	if (fd < 0 || rd < 0 || cx < 0)
		return;
	CHECK_EQ(sys_fcntl((int)fd, F_GETFD, 0), 0);
	CHECK_EQ(sys_fcntl((int)cx, F_GETFD, 0), FD_CLOEXEC);
	CHECK_OK(sys_fcntl((int)fd, F_SETFD, FD_CLOEXEC));
	CHECK_EQ(sys_fcntl((int)fd, F_GETFD, 0), FD_CLOEXEC);
	CHECK_OK(sys_fcntl((int)fd, F_SETFD, 0));
	CHECK_EQ(sys_fcntl((int)fd, F_GETFD, 0), 0);

	CHECK_EQ(status_flags((int)fd), O_RDWR);
	CHECK_EQ(status_flags((int)rd), O_RDONLY);
	CHECK_EQ(status_flags((int)cx), O_WRONLY);
	/* O_CLOEXEC is an fd flag and never shows in F_GETFL. */
	CHECK_EQ(status_flags((int)cx) & O_CLOEXEC, 0);

	/* F_SETFL O_APPEND: writes go to the end from now on. */
	CHECK_EQ(write((int)fd, "0123456789", 10), 10);
	CHECK_EQ(lseek((int)fd, 2, SEEK_SET), 2);
	d = CHECK_OK(syscall(SYS_dup, (int)fd));
	CHECK_OK(sys_fcntl((int)fd, F_SETFL, O_APPEND));
	CHECK_EQ(status_flags((int)fd), O_RDWR | O_APPEND);
	/* Status flags live in the open file, shared with the dup. */
	CHECK_EQ(status_flags((int)d), O_RDWR | O_APPEND);
	CHECK_OK(sys_fcntl((int)fd, F_SETFD, FD_CLOEXEC));
	CHECK_EQ(sys_fcntl((int)d, F_GETFD, 0), 0);
	CHECK_EQ(write((int)fd, "A", 1), 1);
	CHECK_EQ(lseek((int)fd, 0, SEEK_CUR), 11);
	CHECK_EQ(pread((int)rd, buf, sizeof(buf), 0), 11);
	CHECK(memcmp(buf, "0123456789A", 11) == 0, "written at the end");
	/* Clearing it writes at the offset again. */
	CHECK_OK(sys_fcntl((int)fd, F_SETFL, 0));
	CHECK_EQ(status_flags((int)d), O_RDWR);
	CHECK_EQ(lseek((int)fd, 0, SEEK_SET), 0);
	CHECK_EQ(write((int)fd, "B", 1), 1);
	CHECK_EQ(pread((int)rd, buf, 1, 0), 1);
	CHECK_EQ(buf[0], 'B');

	/* F_SETFL ignores the access mode and the creation flags. */
	CHECK_OK(sys_fcntl((int)rd, F_SETFL, O_RDWR | O_CREAT | O_TRUNC));
	CHECK_EQ(status_flags((int)rd), O_RDONLY);
	FS_CHECK_ERR(write((int)rd, "x", 1), EBADF);
	CHECK_EQ(pread((int)rd, buf, sizeof(buf), 0), 11);

	FS_CHECK_ERR(sys_fcntl(-1, F_GETFD, 0), EBADF);
	FS_CHECK_ERR(sys_fcntl(9999, F_SETFD, FD_CLOEXEC), EBADF);
	FS_CHECK_ERR(sys_fcntl(9999, F_GETFL, 0), EBADF);
	FS_CHECK_ERR(sys_fcntl((int)fd, 9999, 0), EINVAL);
	close((int)d);
	close((int)fd);
	close((int)rd);
	close((int)cx);
}

static void
test_close(void)
{
	long fd;

	fd = CHECK_OK(syscall(SYS_open, "f", O_RDONLY, 0));
	if (fd < 0)
		return;
	CHECK_OK(syscall(SYS_close, (int)fd));
	FS_CHECK_ERR(syscall(SYS_close, (int)fd), EBADF);
	FS_CHECK_ERR(syscall(SYS_close, -1), EBADF);
	FS_CHECK_ERR(syscall(SYS_close, 9999), EBADF);
	FS_CHECK_ERR(read((int)fd, &fd, 1), EBADF);
}

/* Opens f at each number of fds[0..n); false if one fails. */
static bool
open_at(const int *fds, int n)
{
	long fd = syscall(SYS_open, "f", O_RDONLY, 0);
	bool ok = fd >= 0;

	for (int i = 0; ok && i < n; i++)
		ok = syscall(SYS_dup2, (int)fd, fds[i]) == fds[i];
	if (fd >= 0)
		close((int)fd);
	return ok;
}

static void
test_close_range(void)
{
	static const int some[] = { 200, 201, 202, 203 };
	static const int cloexec[] = { 210, 211 };
	static const int high[] = { 299, 300, 301, 1000 };
	bool std_open[3];

	for (int i = 0; i < 3; i++)
		std_open[i] = fd_is_open(i);

	/* Closes [200, 202] and nothing else. */
	if (CHECK(open_at(some, 4), "open fds 200-203")) {
		CHECK_OK(syscall(SYS_close_range, 200U, 202U, 0U));
		CHECK(!fd_is_open(200) && !fd_is_open(201) &&
		    !fd_is_open(202), "fds 200-202 are closed");
		CHECK(fd_is_open(203), "fd 203 stays open");
		close(203);
	}
	/* Ranges with nothing open, and one fd alone, are fine. */
	CHECK_OK(syscall(SYS_close_range, 400U, 500U, 0U));
	CHECK_OK(syscall(SYS_close_range, 400U, 400U, 0U));
	FS_CHECK_ERR(syscall(SYS_close_range, 5U, 4U, 0U), EINVAL);
	FS_CHECK_ERR(syscall(SYS_close_range, 200U, 300U, 0x80U), EINVAL);

	/* CLOSE_RANGE_CLOEXEC marks instead of closing (Linux 5.11). */
	if (CHECK(open_at(cloexec, 2), "open fds 210, 211")) {
		CHECK_OK(syscall(SYS_close_range, 210U, 211U,
		    FS_CLOSE_RANGE_CLOEXEC));
		CHECK_EQ(sys_fcntl(210, F_GETFD, 0), FD_CLOEXEC);
		CHECK_EQ(sys_fcntl(211, F_GETFD, 0), FD_CLOEXEC);
		close(210);
		close(211);
	}
	/* ~0U as last means "to the end of the table". */
	if (CHECK(open_at(high, 4), "open fds 299-301 and 1000")) {
		CHECK_OK(syscall(SYS_close_range, 300U, ~0U, 0U));
		CHECK(fd_is_open(299), "fd 299 stays open");
		CHECK(!fd_is_open(300) && !fd_is_open(301) &&
		    !fd_is_open(1000), "fds 300, 301, 1000 are closed");
		close(299);
	}
	for (int i = 0; i < 3; i++)
		CHECK(!std_open[i] || fd_is_open(i), "fd %d survives", i);
}

int
main(void)
{
	if (!CHECK(scratch_enter(), "make scratch directory %s", scratch))
		return guest_done();
	test_dup();
	test_fcntl_dupfd();
	test_fcntl_flags();
	test_close();
	test_close_range();
	CHECK(scratch_leave(), "remove scratch directory %s", scratch);
	return guest_done();
}
