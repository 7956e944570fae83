/*
 * Verifies fallocate(2): the errnos of its argument, mode and file checks
 * in Linux's order; on tmpfs (memfds, /dev/shm) allocation with and
 * without FALLOC_FL_KEEP_SIZE, punched holes that read back zero and free
 * their pages (mapped or not), the modes tmpfs lacks, and the seals; and
 * the modes every file system has on a file of the scratch directory.
 */
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <limits.h>

#include "guest.h"
#include "fs_common.h"

/* musl's <fcntl.h> has only the first two modes; these are Linux's. */
#ifndef FALLOC_FL_COLLAPSE_RANGE
#define FALLOC_FL_COLLAPSE_RANGE	0x08
#define FALLOC_FL_ZERO_RANGE		0x10
#define FALLOC_FL_INSERT_RANGE		0x20
#define FALLOC_FL_UNSHARE_RANGE		0x40
#endif

#define KEEP		FALLOC_FL_KEEP_SIZE
#define PUNCH		(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)

static long
falloc(long fd, int mode, long long off, long long len)
{
	return syscall(SYS_fallocate, fd, mode, off, len);
}

static struct stat
stat_of(long fd)
{
	struct stat st;

	if (fstat((int)fd, &st) != 0)
		memset(&st, 0xff, sizeof(st));
	return st;
}

/* Whether len bytes of fd from off read back as zeros. */
static bool
zeros_at(long fd, off_t off, size_t len)
{
	char buf[256];

	while (len > 0) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);

		if (pread((int)fd, buf, n, off) != (ssize_t)n)
			return false;
		for (size_t i = 0; i < n; i++)
			if (buf[i] != 0)
				return false;
		off += (off_t)n;
		len -= n;
	}
	return true;
}

static void
test_checks(void)
{
	long fd = CHECK_OK(syscall(SYS_memfd_create, "f", 0)), other;
	int p[2], sv[2];

	CHECK_ERR(falloc(-1, 0, 0, 1), EBADF);
	CHECK_ERR(falloc(fd, 0, -1, 1), EINVAL);
	CHECK_ERR(falloc(fd, 0, 0, 0), EINVAL);
	CHECK_ERR(falloc(fd, 0, 0, -1), EINVAL);
	/* A hole keeps the size, or it is no mode at all. */
	CHECK_ERR(falloc(fd, FALLOC_FL_PUNCH_HOLE, 0, 1), EOPNOTSUPP);
	CHECK_ERR(falloc(fd, FALLOC_FL_COLLAPSE_RANGE | KEEP, 0, 4096),
	    EOPNOTSUPP);
	CHECK_ERR(falloc(fd, PUNCH | FALLOC_FL_ZERO_RANGE, 0, 1), EOPNOTSUPP);
	CHECK_ERR(falloc(fd, 0x100, 0, 1), EOPNOTSUPP);
	/* Modes tmpfs does not have. */
	CHECK_ERR(falloc(fd, FALLOC_FL_ZERO_RANGE, 0, 1), EOPNOTSUPP);
	CHECK_ERR(falloc(fd, FALLOC_FL_ZERO_RANGE | KEEP, 0, 1), EOPNOTSUPP);
	CHECK_ERR(falloc(fd, FALLOC_FL_COLLAPSE_RANGE, 0, 4096), EOPNOTSUPP);
	CHECK_ERR(falloc(fd, FALLOC_FL_INSERT_RANGE, 0, 4096), EOPNOTSUPP);
	CHECK_ERR(falloc(fd, FALLOC_FL_UNSHARE_RANGE, 0, 4096), EOPNOTSUPP);
	/* Past the largest offset there is. */
	CHECK_ERR(falloc(fd, 0, LLONG_MAX, 1), EFBIG);
	CHECK_ERR(falloc(fd, 0, 1LL << 62, 1LL << 62), EFBIG);
	CHECK_ERR(falloc(fd, PUNCH, LLONG_MAX, 1), EFBIG);
	CHECK_EQ(stat_of(fd).st_size, 0);
	close((int)fd);

	if (CHECK_OK(pipe(p)) == 0) {
		CHECK_ERR(falloc(p[0], 0, 0, 1), EBADF);
		CHECK_ERR(falloc(p[1], 0, 0, 1), ESPIPE);
		CHECK_ERR(falloc(p[0], FALLOC_FL_PUNCH_HOLE, 0, 1), EOPNOTSUPP);
		close(p[0]);
		close(p[1]);
	}
	if (CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) == 0) {
		CHECK_ERR(falloc(sv[0], 0, 0, 1), ENODEV);
		close(sv[0]);
		close(sv[1]);
	}
	other = CHECK_OK(eventfd(0, 0));
	CHECK_ERR(falloc(other, 0, 0, 1), ENODEV);
	close((int)other);
	other = CHECK_OK(open("/dev/null", O_WRONLY));
	CHECK_ERR(falloc(other, 0, 0, 1), ENODEV);
	close((int)other);
	other = CHECK_OK(open("/", O_RDONLY | O_DIRECTORY));
	CHECK_ERR(falloc(other, 0, 0, 1), EBADF);
	close((int)other);
	/* A regular file of a file system without fallocate. */
	other = CHECK_OK(open("/proc/self/comm", O_WRONLY));
	CHECK_ERR(falloc(other, 0, 0, 1), EOPNOTSUPP);
	close((int)other);
}

static void
test_tmpfs_alloc(void)
{
	long fd = CHECK_OK(syscall(SYS_memfd_create, "f", 0));
	struct stat st;

	/* KEEP_SIZE allocates the pages and leaves the size. */
	CHECK_OK(falloc(fd, KEEP, 0, 10000));
	st = stat_of(fd);
	CHECK_EQ(st.st_size, 0);
	CHECK_EQ(st.st_blocks, 3 * 8);
	CHECK_OK(falloc(fd, 0, 100, 10000));
	st = stat_of(fd);
	CHECK_EQ(st.st_size, 10100);
	CHECK_EQ(st.st_blocks, 3 * 8);
	CHECK(zeros_at(fd, 0, 10100), "allocated bytes read zero");
	/* Within the size: nothing changes. */
	CHECK_OK(falloc(fd, 0, 0, 5));
	CHECK_EQ(stat_of(fd).st_size, 10100);
	/* Truncation drops the pages allocated beyond the size too. */
	CHECK_OK(falloc(fd, KEEP, 0, 8 * 4096));
	CHECK_EQ(stat_of(fd).st_blocks, 8 * 8);
	CHECK_OK(ftruncate((int)fd, 4096));
	CHECK_EQ(stat_of(fd).st_blocks, 1 * 8);
	CHECK_OK(ftruncate((int)fd, 8 * 4096));
	CHECK(zeros_at(fd, 0, 8 * 4096), "grown file reads zero");
	close((int)fd);
}

static void
test_tmpfs_punch(void)
{
	long fd = CHECK_OK(syscall(SYS_memfd_create, "f", 0));
	char data[3 * 4096], *m;

	memset(data, 'x', sizeof(data));
	CHECK_EQ(pwrite((int)fd, data, sizeof(data), 0), sizeof(data));
	CHECK_EQ(stat_of(fd).st_blocks, 3 * 8);
	/* From the middle of page 0 to the middle of page 2. */
	CHECK_OK(falloc(fd, PUNCH, 4092, 4096 + 8));
	CHECK_EQ(stat_of(fd).st_size, sizeof(data));
	CHECK_EQ(stat_of(fd).st_blocks, 2 * 8);
	CHECK(zeros_at(fd, 4092, 4096 + 8), "the hole reads zero");
	CHECK_EQ(pread((int)fd, data, 4, 4088), 4);
	CHECK(memcmp(data, "xxxx", 4) == 0, "bytes before the hole kept");
	CHECK_EQ(pread((int)fd, data, 4, 8196), 4);
	CHECK(memcmp(data, "xxxx", 4) == 0, "bytes after the hole kept");
	/* Inside one page, and beyond the end: the size stays. */
	CHECK_OK(falloc(fd, PUNCH, 10, 20));
	CHECK(zeros_at(fd, 10, 20), "a hole inside a page reads zero");
	CHECK_OK(falloc(fd, PUNCH, 0, 1LL << 30));
	CHECK_EQ(stat_of(fd).st_size, sizeof(data));
	CHECK_EQ(stat_of(fd).st_blocks, 0);
	CHECK(zeros_at(fd, 0, sizeof(data)), "the whole file reads zero");

	/* A shared mapping sees the hole. */
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (CHECK(m != MAP_FAILED, "mmap shared")) {
		memset(m, 'm', 4096);
		CHECK_OK(falloc(fd, PUNCH, 0, 100));
		CHECK_EQ(m[0], 0);
		CHECK_EQ(m[99], 0);
		CHECK_EQ(m[100], 'm');
		CHECK_OK(falloc(fd, PUNCH, 0, 4096));
		CHECK_EQ(m[4095], 0);
		m[1] = 'n';
		CHECK_EQ(pread((int)fd, data, 2, 0), 2);
		CHECK(data[0] == 0 && data[1] == 'n', "the mapping still writes");
		munmap(m, 4096);
	}
	close((int)fd);
}

static void
test_tmpfs_seals(void)
{
	long fd = CHECK_OK(syscall(SYS_memfd_create, "f", MFD_ALLOW_SEALING));

	CHECK_OK(ftruncate((int)fd, 8192));
	CHECK_OK(syscall(SYS_fcntl, fd, F_ADD_SEALS, F_SEAL_GROW |
	    F_SEAL_SHRINK));
	CHECK_ERR(falloc(fd, 0, 4096, 8192), EPERM);
	CHECK_ERR(falloc(fd, KEEP, 4096, 8192), EPERM);
	CHECK_OK(falloc(fd, 0, 0, 8192));
	/* A hole neither grows nor shrinks the file. */
	CHECK_OK(falloc(fd, PUNCH, 0, 1 << 20));
	CHECK_OK(syscall(SYS_fcntl, fd, F_ADD_SEALS, F_SEAL_WRITE));
	CHECK_ERR(falloc(fd, PUNCH, 0, 4096), EPERM);
	CHECK_OK(falloc(fd, 0, 0, 4096));
	CHECK_EQ(stat_of(fd).st_size, 8192);
	close((int)fd);

	fd = CHECK_OK(syscall(SYS_memfd_create, "f", MFD_ALLOW_SEALING));
	CHECK_OK(syscall(SYS_fcntl, fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE));
	CHECK_ERR(falloc(fd, PUNCH, 0, 4096), EPERM);
	CHECK_OK(falloc(fd, 0, 0, 4096));
	close((int)fd);
}

static void
test_shm(void)
{
	char path[64];
	long fd, ro;

	snprintf(path, sizeof(path), "/dev/shm/fs_falloc.%d", getpid());
	fd = CHECK_OK(open(path, O_RDWR | O_CREAT | O_EXCL, 0600));
	CHECK_OK(falloc(fd, 0, 0, 4096));
	CHECK_EQ(stat_of(fd).st_size, 4096);
	CHECK_ERR(falloc(fd, FALLOC_FL_ZERO_RANGE, 0, 4096), EOPNOTSUPP);
	ro = CHECK_OK(open(path, O_RDONLY));
	CHECK_ERR(falloc(ro, 0, 0, 1), EBADF);
	CHECK_ERR(falloc(ro, FALLOC_FL_PUNCH_HOLE, 0, 1), EOPNOTSUPP);
	close((int)ro);
	close((int)fd);
	unlink(path);
}

/* The modes every Linux file system with fallocate has. */
static void
test_scratch_file(void)
{
	long fd = CHECK_OK(open("f", O_RDWR | O_CREAT, 0600));
	char buf[4];

	CHECK_OK(falloc(fd, 0, 0, 10000));
	CHECK_EQ(stat_of(fd).st_size, 10000);
	CHECK_OK(falloc(fd, KEEP, 0, 50000));
	CHECK_EQ(stat_of(fd).st_size, 10000);
	CHECK_EQ(pwrite((int)fd, "abcd", 4, 5000), 4);
	CHECK_OK(falloc(fd, PUNCH, 5001, 2));
	CHECK_EQ(pread((int)fd, buf, 4, 5000), 4);
	CHECK(memcmp(buf, "a\0\0d", 4) == 0, "punched bytes read zero");
	CHECK_EQ(stat_of(fd).st_size, 10000);
	CHECK_ERR(falloc(fd, FALLOC_FL_PUNCH_HOLE, 0, 1), EOPNOTSUPP);
	close((int)fd);
	unlink("f");
}

/*
 * lseek's SEEK_DATA and SEEK_HOLE on a tmpfs file with holes, written
 * pages and a punched one: tmpfs reports the pages it holds, exactly;
 * the offset moves to what is found; ENXIO at and past the end.
 */
static void
test_seek_holes(void)
{
	long fd = CHECK_OK(syscall(SYS_memfd_create, "f", 0));
	const long M = 1 << 20, P = 4096;

	CHECK_EQ(pwrite((int)fd, "a", 1, 0), 1);
	CHECK_EQ(pwrite((int)fd, "b", 1, M + 10), 1);
	CHECK_EQ(pwrite((int)fd, "c", 1, M + P), 1);
	CHECK_OK(ftruncate((int)fd, 2 * M));
	CHECK_EQ(lseek((int)fd, 0, SEEK_DATA), 0);
	CHECK_EQ(lseek((int)fd, 0, SEEK_HOLE), P);
	CHECK_EQ(lseek((int)fd, 0, SEEK_CUR), P);
	CHECK_EQ(lseek((int)fd, 100, SEEK_DATA), 100);
	CHECK_EQ(lseek((int)fd, P, SEEK_DATA), M);
	CHECK_EQ(lseek((int)fd, 0, SEEK_CUR), M);
	CHECK_EQ(lseek((int)fd, M + 5, SEEK_HOLE), M + 2 * P);
	CHECK_EQ(lseek((int)fd, M + 2 * P, SEEK_HOLE), M + 2 * P);
	/* A punched page is a hole again. */
	CHECK_OK(falloc(fd, PUNCH, M, P));
	CHECK_EQ(lseek((int)fd, P, SEEK_DATA), M + P);
	CHECK_EQ(lseek((int)fd, M, SEEK_HOLE), M);
	FS_CHECK_ERR(lseek((int)fd, M + 2 * P, SEEK_DATA), ENXIO);
	FS_CHECK_ERR(lseek((int)fd, 2 * M, SEEK_DATA), ENXIO);
	FS_CHECK_ERR(lseek((int)fd, 2 * M, SEEK_HOLE), ENXIO);
	FS_CHECK_ERR(lseek((int)fd, -1, SEEK_HOLE), ENXIO);
	/* A whole file of data has its one hole at the end. */
	CHECK_OK(ftruncate((int)fd, 100));
	CHECK_EQ(lseek((int)fd, 5, SEEK_HOLE), 100);
	close((int)fd);
}

int
main(void)
{
	test_checks();
	test_tmpfs_alloc();
	test_tmpfs_punch();
	test_seek_holes();
	test_tmpfs_seals();
	test_shm();
	if (CHECK(scratch_enter(), "scratch directory")) {
		test_scratch_file();
		CHECK(scratch_leave(), "scratch removed");
	}
	return guest_done();
}
