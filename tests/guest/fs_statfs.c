/*
 * Verifies statfs(2), fstatfs(2) and statvfs(3): the magic of each kind
 * of file system (tmpfs, proc, pipes), figures that add up (free blocks
 * within the total, a tmpfs's free blocks going down as a file grows and
 * up as it shrinks), the name length, f_flags with ST_VALID's meaning,
 * and the errnos for bad paths, fds and buffers.
 */
#include <sys/statfs.h>
#include <sys/statvfs.h>

#include <fcntl.h>

#include "guest.h"

#define TMPFS_MAGIC_	0x01021994
#define PROC_MAGIC_	0x9fa0
#define PIPEFS_MAGIC_	0x50495045

static long
sys_statfs(const char *path, struct statfs *sf)
{
	return syscall(SYS_statfs, path, sf);
}

static long
sys_fstatfs(long fd, struct statfs *sf)
{
	return syscall(SYS_fstatfs, fd, sf);
}

/* The figures of a file system with blocks must add up. */
static void
check_sane(const char *what, const struct statfs *sf)
{
	CHECK(sf->f_bsize > 0 && sf->f_frsize > 0, "%s: block size", what);
	CHECK(sf->f_blocks > 0, "%s: blocks", what);
	CHECK(sf->f_bfree <= sf->f_blocks, "%s: free blocks", what);
	CHECK(sf->f_bavail <= sf->f_bfree, "%s: available blocks", what);
	CHECK(sf->f_ffree <= sf->f_files, "%s: free files", what);
	CHECK_EQ(sf->f_namelen, 255);
	/* ST_VALID (0x20) is the kernel's; statfs says it, statvfs not. */
	CHECK((sf->f_flags & 0x20) != 0, "%s: f_flags has ST_VALID", what);
}

static void
test_tmpfs(void)
{
	static char chunk[1 << 20];
	struct statfs a, b;
	struct statvfs v;
	char path[64];
	long fd;

	if (CHECK_OK(sys_statfs("/dev/shm", &a)) != 0)
		return;
	CHECK_EQ(a.f_type, TMPFS_MAGIC_);
	CHECK_EQ(a.f_bsize, 4096);
	check_sane("/dev/shm", &a);
	CHECK_EQ(a.f_flags & ST_RDONLY, 0);
	CHECK_OK(statvfs("/dev/shm", &v));
	CHECK_EQ(v.f_blocks, a.f_blocks);
	CHECK_EQ(v.f_namemax, 255);
	CHECK_EQ(v.f_flag & ST_RDONLY, 0);

	/* Four MiB of data take at least half as many blocks from free. */
	snprintf(path, sizeof(path), "/dev/shm/fs_statfs.%d", getpid());
	fd = CHECK_OK(open(path, O_RDWR | O_CREAT | O_EXCL, 0600));
	memset(chunk, 'x', sizeof(chunk));
	for (int i = 0; i < 4; i++)
		CHECK_EQ(write((int)fd, chunk, sizeof(chunk)), sizeof(chunk));
	CHECK_OK(sys_fstatfs(fd, &b));
	CHECK_EQ(b.f_blocks, a.f_blocks);
	CHECK_EQ(b.f_type, TMPFS_MAGIC_);
	CHECK(a.f_bfree >= b.f_bfree + 512, "free blocks %llu then %llu",
	    (unsigned long long)a.f_bfree, (unsigned long long)b.f_bfree);
	CHECK_OK(ftruncate((int)fd, 0));
	CHECK_OK(sys_statfs("/dev/shm", &a));
	CHECK(a.f_bfree >= b.f_bfree + 512, "free blocks %llu then %llu",
	    (unsigned long long)b.f_bfree, (unsigned long long)a.f_bfree);
	close((int)fd);
	unlink(path);
}

static void
test_kinds(void)
{
	struct statfs sf;
	int p[2];
	long fd;

	if (CHECK_OK(sys_statfs("/proc", &sf)) == 0) {
		CHECK_EQ(sf.f_type, PROC_MAGIC_);
		CHECK_EQ(sf.f_blocks, 0);
		CHECK_EQ(sf.f_namelen, 255);
	}
	fd = CHECK_OK(open("/proc/self/stat", O_RDONLY));
	if (CHECK_OK(sys_fstatfs(fd, &sf)) == 0)
		CHECK_EQ(sf.f_type, PROC_MAGIC_);
	close((int)fd);
	if (CHECK_OK(pipe(p)) == 0) {
		if (CHECK_OK(sys_fstatfs(p[0], &sf)) == 0) {
			CHECK_EQ(sf.f_type, PIPEFS_MAGIC_);
			CHECK_EQ(sf.f_bsize, 4096);
			CHECK_EQ(sf.f_blocks, 0);
			CHECK_EQ(sf.f_files, 0);
		}
		close(p[0]);
		close(p[1]);
	}
	/* The root, whatever it is, has blocks. */
	if (CHECK_OK(sys_statfs("/", &sf)) == 0)
		check_sane("/", &sf);
	if (CHECK_OK(sys_statfs("/tmp", &sf)) == 0)
		check_sane("/tmp", &sf);
}

static void
test_errors(void)
{
	struct statfs sf;

	CHECK_ERR(sys_statfs("/nonexistent/x", &sf), ENOENT);
	CHECK_ERR(sys_statfs("", &sf), ENOENT);
	CHECK_ERR(sys_statfs("/proc/self/stat/x", &sf), ENOTDIR);
	CHECK_ERR(sys_statfs((const char *)1, &sf), EFAULT);
	CHECK_ERR(sys_statfs("/", (struct statfs *)1), EFAULT);
	CHECK_ERR(sys_fstatfs(-1, &sf), EBADF);
	CHECK_ERR(sys_fstatfs(1000, &sf), EBADF);
	CHECK_ERR(sys_fstatfs(0, (struct statfs *)1), EFAULT);
}

int
main(void)
{
	test_tmpfs();
	test_kinds();
	test_errors();
	return guest_done();
}
