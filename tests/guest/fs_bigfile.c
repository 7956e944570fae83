/*
 * Verifies files of impossible or merely huge sizes: a file mapped
 * MAP_SHARED grows by ftruncate to 2 TiB, and as far as its file system
 * lets it (2^62 on tmpfs; ext4 answers EFBIG), with the mapping, pages
 * mapped near the end, msync, fallocate and read all agreeing; offsets
 * and sizes beyond an off_t give Linux's EINVAL, EFBIG and EOVERFLOW.
 * Runs in the directory given (default /tmp), as root and then, when
 * started as root, again as uid 65534.
 */
#include <sys/wait.h>

#include <grp.h>

#include "fs_common.h"

#define PG	GUEST_PAGE
#define TIB	(1LL << 40)
#define MAPLEN	(256 * PG)

static const int rw = PROT_READ | PROT_WRITE;

static long
falloc(int fd, int mode, long off, long len)
{
	return syscall(SYS_fallocate, fd, mode, off, len);
}

/* The byte at off, read with pread, or -1. */
static int
byte_at(int fd, long off)
{
	unsigned char c;

	return pread(fd, &c, 1, off) == 1 ? c : -1;
}

/* Map one page at off shared, store c at its end, and read it back. */
static void
check_page_at(int fd, long off, unsigned char c)
{
	unsigned char *q = guest_mmap(NULL, PG, rw, MAP_SHARED, fd, off);

	if (!CHECK(q != MAP_FAILED, "mmap at %#lx", off))
		return;
	CHECK_EQ(q[0], 0);
	q[PG - 1] = c;
	CHECK_OK(msync(q, PG, MS_SYNC));
	CHECK_EQ(byte_at(fd, off + PG - 1), c);
	CHECK_OK(guest_munmap(q, PG));
	CHECK_EQ(byte_at(fd, off + PG - 1), c);
}

/* A shared mapping while the file grows to 2 TiB and beyond. */
static void
check_grow(int fd)
{
	unsigned char *p = guest_mmap(NULL, MAPLEN, rw, MAP_SHARED, fd, 0);
	struct stat st;
	long r;

	if (!CHECK(p != MAP_FAILED, "mmap MAP_SHARED"))
		return;
	CHECK_OK(ftruncate(fd, 2 * TIB));
	CHECK(fstat(fd, &st) == 0 && st.st_size == 2 * TIB, "size 2 TiB");
	CHECK_EQ(p[0], 'h');
	CHECK_EQ(p[2 * PG], 0);
	p[2 * PG] = 7;
	CHECK_OK(msync(p, MAPLEN, MS_SYNC));
	CHECK_EQ(byte_at(fd, 2 * PG), 7);
	check_page_at(fd, 2 * TIB - PG, 'e');

	/* fallocate past the end grows the file under the mapping. */
	CHECK_OK(falloc(fd, 0, 3 * TIB, PG));
	CHECK(fstat(fd, &st) == 0 && st.st_size == 3 * TIB + (long)PG,
	    "size after fallocate");
	CHECK_EQ(p[2 * PG], 7);
	check_page_at(fd, 3 * TIB, 'f');

	/* As far as the file system goes: tmpfs takes 2^62, ext4 not. */
	errno = 0;
	r = ftruncate(fd, 1L << 62);
	CHECK(r == 0 || errno == EFBIG, "ftruncate 2^62: %ld", r);
	if (r == 0)
		check_page_at(fd, (1L << 62) - PG, 'g');
	CHECK_EQ(p[0], 'h');
	CHECK_OK(ftruncate(fd, PG));
	CHECK_EQ(p[0], 'h');
	CHECK_OK(guest_munmap(p, MAPLEN));
}

/* Offsets and sizes past an off_t, as Linux refuses them. */
static void
check_limits(int fd)
{
	long top = INT64_MAX & ~(long)(PG - 1), r;

	errno = 0;
	r = pwrite(fd, "x", 1, INT64_MAX - 1);
	CHECK(r == 1 || errno == EFBIG, "pwrite at 2^63 - 2: %ld", r);
	CHECK_ERR(syscall(SYS_ftruncate, fd, -1L), EINVAL);
	CHECK_ERR(syscall(SYS_ftruncate, fd, 1UL << 63), EINVAL);
	CHECK_ERR(pwrite(fd, "x", 1, INT64_MAX), EINVAL);
	CHECK_ERR(pwrite(fd, "x", 1, -1), EINVAL);
	CHECK_ERR(pread(fd, &r, 1, INT64_MAX), EINVAL);
	CHECK_ERR(pread(fd, &r, 8, INT64_MAX - 4), EINVAL);
	CHECK_ERR(falloc(fd, 0, -1, PG), EINVAL);
	CHECK_ERR(falloc(fd, 0, 0, -1), EINVAL);
	CHECK_ERR(falloc(fd, 0, 1L << 62, 1L << 62), EFBIG);
	CHECK_ERR(falloc(fd, 0, INT64_MAX - PG, PG + 1), EFBIG);
	CHECK_ERR(guest_mmap(NULL, MAPLEN, rw, MAP_SHARED, fd, top),
	    EOVERFLOW);
	CHECK_ERR(guest_mmap(NULL, 2 * PG, rw, MAP_SHARED, fd, top - PG),
	    EOVERFLOW);
	CHECK_ERR(guest_mmap(NULL, PG, rw, MAP_PRIVATE, fd, top), EOVERFLOW);
	CHECK_ERR(guest_mmap(NULL, PG, rw, MAP_SHARED, fd, -(long)PG),
	    EOVERFLOW);
	CHECK_OK(ftruncate(fd, 0));
}

static void
check_all(const char *name)
{
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0666);

	if (!CHECK(fd >= 0, "open %s", name))
		return;
	CHECK_EQ(write(fd, "hello", 5), 5);
	check_grow(fd);
	check_limits(fd);
	close(fd);
}

/* The same as uid 65534, in a child. */
static void
check_unprivileged(void)
{
	int st = -1;
	pid_t pid;

	if (getuid() != 0)
		return;
	/* Made by root, for the other user to open. */
	CHECK_OK(chmod(".", 0755));
	CHECK_OK(close(CHECK_OK(open("nobody", O_CREAT | O_WRONLY, 0))));
	CHECK_OK(chmod("nobody", 0666));
	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) != 0)
			_exit(2);
		check_all("nobody");
		_exit(guest_failures == 0 ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "uid 65534: status %#x", st);
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";

	if (CHECK(scratch_enter_in(dir), "scratch directory in %s", dir)) {
		check_all("big");
		CHECK_OK(unlink("big"));
		check_unprivileged();
		CHECK(scratch_leave(), "scratch removed");
	}
	return guest_done();
}
