/*
 * Verifies the devices and /proc/self entries every program may rely on:
 * /dev/null, /dev/zero, /dev/full (ENOSPC on write), /dev/random and
 * /dev/urandom with their types and numbers, the /dev/fd and /dev/std*
 * symlinks, /dev/shm, and /proc/self, /proc/self/exe, /proc/self/cwd and
 * /proc/self/fd/N.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fcntl.h>

#include "guest.h"
#include "fs_common.h"

/* Checks that path is a character device numbered major:minor, mode 0666. */
#define CHECK_CHARDEV(path, maj, min)					\
	do {								\
		struct stat st_;					\
									\
		if (CHECK_OK(stat((path), &st_)) == 0) {		\
			CHECK(S_ISCHR(st_.st_mode), "%s is a character " \
			    "device", (path));				\
			CHECK_EQ(st_.st_mode & 0777, 0666);		\
			CHECK_EQ(major(st_.st_rdev), (maj));		\
			CHECK_EQ(minor(st_.st_rdev), (min));		\
		}							\
	} while (0)

/* Tells whether readlink(2) of path is exactly want. */
static bool
link_is(const char *path, const char *want)
{
	char buf[4096];
	long n = syscall(SYS_readlink, path, buf, sizeof(buf) - 1);

	if (n < 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, want) == 0;
}

static void
test_null_zero_full(void)
{
	unsigned char buf[4096];
	long fd;

	CHECK_CHARDEV("/dev/null", 1, 3);
	CHECK_CHARDEV("/dev/zero", 1, 5);
	CHECK_CHARDEV("/dev/full", 1, 7);

	fd = CHECK_OK(syscall(SYS_open, "/dev/null", O_RDWR, 0));
	if (fd >= 0) {
		/* Takes everything, gives nothing. */
		CHECK_EQ(write((int)fd, buf, sizeof(buf)), sizeof(buf));
		CHECK_EQ(read((int)fd, buf, sizeof(buf)), 0);
		CHECK_EQ(lseek((int)fd, 100, SEEK_SET), 0);
		close((int)fd);
	}
	fd = CHECK_OK(syscall(SYS_open, "/dev/zero", O_RDWR, 0));
	if (fd >= 0) {
		memset(buf, 0xff, sizeof(buf));
		CHECK_EQ(read((int)fd, buf, sizeof(buf)), sizeof(buf));
		CHECK(all_zero(buf, sizeof(buf)), "/dev/zero reads zeros");
		CHECK_EQ(write((int)fd, buf, 100), 100);
		close((int)fd);
	}
	fd = CHECK_OK(syscall(SYS_open, "/dev/full", O_RDWR, 0));
	if (fd >= 0) {
		/* Reads like /dev/zero, and is always full (null(4)). */
		memset(buf, 0xff, sizeof(buf));
		CHECK_EQ(read((int)fd, buf, 512), 512);
		CHECK(all_zero(buf, 512), "/dev/full reads zeros");
		FS_CHECK_ERR(write((int)fd, buf, 1), ENOSPC);
		FS_CHECK_ERR(write((int)fd, buf, sizeof(buf)), ENOSPC);
		close((int)fd);
	}
}

static void
test_random(void)
{
	unsigned char a[64], b[64];
	long fd;

	CHECK_CHARDEV("/dev/random", 1, 8);
	CHECK_CHARDEV("/dev/urandom", 1, 9);
	fd = CHECK_OK(syscall(SYS_open, "/dev/urandom", O_RDONLY, 0));
	if (fd >= 0) {
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		CHECK_EQ(read((int)fd, a, sizeof(a)), sizeof(a));
		CHECK_EQ(read((int)fd, b, sizeof(b)), sizeof(b));
		/* A 2^-512 chance of a false failure each. */
		CHECK(!all_zero(a, sizeof(a)), "urandom is not all zero");
		CHECK(memcmp(a, b, sizeof(a)) != 0, "two reads differ");
		close((int)fd);
	}
	/* Since Linux 5.6 /dev/random blocks only before the pool is ready. */
	fd = CHECK_OK(syscall(SYS_open, "/dev/random", O_RDONLY, 0));
	if (fd >= 0) {
		CHECK_EQ(read((int)fd, a, 16), 16);
		close((int)fd);
	}
}

static void
test_dev_links(void)
{
	struct stat st;
	char name[sizeof("/dev/shm/vk-fs_dev.") + 16];
	long fd;

	CHECK(link_is("/dev/fd", "/proc/self/fd"), "/dev/fd");
	CHECK(link_is("/dev/stdin", "/proc/self/fd/0"), "/dev/stdin");
	CHECK(link_is("/dev/stdout", "/proc/self/fd/1"), "/dev/stdout");
	CHECK(link_is("/dev/stderr", "/proc/self/fd/2"), "/dev/stderr");

	/* /dev/shm is a sticky, world-writable directory for files. */
	CHECK_OK(stat("/dev/shm", &st));
	CHECK_EQ(st.st_mode, S_IFDIR | 01777);
	snprintf(name, sizeof(name), "/dev/shm/vk-fs_dev.%ld",
	    (long)getpid());
	fd = CHECK_OK(syscall(SYS_open, name, O_RDWR | O_CREAT | O_EXCL,
	    0600));
	if (fd >= 0) {
		CHECK_EQ(pwrite((int)fd, "shm", 3, 0), 3);
		CHECK_OK(fstat((int)fd, &st));
		CHECK_EQ(st.st_size, 3);
		close((int)fd);
		CHECK_OK(unlink(name));
	}
}

static void
test_proc_self(void)
{
	char buf[4096], want[64], path[64];
	struct stat a, b;
	long n, fd;

	/* /proc/self names this process. */
	snprintf(want, sizeof(want), "%ld", (long)getpid());
	CHECK(link_is("/proc/self", want), "/proc/self -> %s", want);

	n = CHECK_OK(syscall(SYS_readlink, "/proc/self/exe", buf,
	    sizeof(buf) - 1));
	if (n > 0) {
		buf[n] = '\0';
		CHECK(buf[0] == '/', "/proc/self/exe is absolute: %s", buf);
		/* The link and the path it names are one file. */
		CHECK_OK(stat("/proc/self/exe", &a));
		CHECK_OK(stat(buf, &b));
		CHECK(a.st_dev == b.st_dev && a.st_ino == b.st_ino,
		    "/proc/self/exe is %s", buf);
	}
	CHECK(link_is("/proc/self/cwd", scratch), "/proc/self/cwd is %s",
	    scratch);
	CHECK(getcwd(buf, sizeof(buf)) != NULL && link_is("/proc/self/cwd",
	    buf), "/proc/self/cwd is getcwd");

	/* /proc/self/fd/N names the open file, and reopens it. */
	fd = CHECK_OK(syscall(SYS_open, "f", O_RDWR | O_CREAT, 0644));
	if (fd < 0)
		return;
	CHECK_EQ(write((int)fd, "proc fd", 7), 7);
	snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
	snprintf(buf, sizeof(buf), "%s/f", scratch);
	CHECK(link_is(path, buf), "%s -> %s", path, buf);
	n = syscall(SYS_open, path, O_RDONLY, 0);
	if (CHECK(n >= 0, "open %s", path)) {
		/* A new open file: its own offset, from 0. */
		CHECK_EQ(read((int)n, buf, sizeof(buf)), 7);
		CHECK(memcmp(buf, "proc fd", 7) == 0, "read through %s", path);
		close((int)n);
	}
	close((int)fd);
}

int
main(void)
{
	if (!CHECK(scratch_enter(), "make scratch directory %s", scratch))
		return guest_done();
	test_null_zero_full();
	test_random();
	test_dev_links();
	test_proc_self();
	CHECK(scratch_leave(), "remove scratch directory %s", scratch);
	return guest_done();
}
