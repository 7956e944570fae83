/*
 * Verifies memfd_create(2) and file sealing (fcntl(2) F_ADD_SEALS,
 * F_GET_SEALS): the flags' and name's checks, the seals each memfd starts
 * with, the errnos of adding seals, and that every way of writing a
 * sealed file (write, pwrite, writev, sendfile, copy_file_range, splice,
 * ftruncate, shared mappings) is refused as Linux refuses it.
 */
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <fcntl.h>

#include "guest.h"

/* Linux 6.3's flags and seal, when the libc headers are older. */
#ifndef MFD_EXEC
#define MFD_NOEXEC_SEAL	0x0008U
#define MFD_EXEC	0x0010U
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC	0x0020
#endif
#define MFD_HUGE_2MB_	(21U << 26)

#define SEALS_RW	(F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)

static long
memfd(const char *name, unsigned flags)
{
	return syscall(SYS_memfd_create, name, flags);
}

static long
seals_get(long fd)
{
	return syscall(SYS_fcntl, fd, F_GET_SEALS);
}

static long
seals_add(long fd, unsigned long seals)
{
	return syscall(SYS_fcntl, fd, F_ADD_SEALS, seals);
}

/* A sealable memfd of size bytes. */
static long
sealable(size_t size)
{
	long fd = CHECK_OK(memfd("seal", MFD_ALLOW_SEALING));

	CHECK_OK(ftruncate((int)fd, (off_t)size));
	return fd;
}

static off_t
size_of(long fd)
{
	struct stat st;

	return fstat((int)fd, &st) == 0 ? st.st_size : -1;
}

static void
test_create_flags(void)
{
	char name[300];
	struct stat st;
	long fd;

	CHECK_ERR(memfd("x", 0x80), EINVAL);
	CHECK_ERR(memfd("x", MFD_HUGE_2MB_), EINVAL);
	CHECK_ERR(memfd("x", MFD_EXEC | MFD_NOEXEC_SEAL), EINVAL);
	CHECK_ERR(memfd((const char *)1, 0), EFAULT);
	memset(name, 'a', sizeof(name));
	name[249] = '\0';
	fd = CHECK_OK(memfd(name, 0));
	close((int)fd);
	name[249] = 'a';
	name[250] = '\0';
	CHECK_ERR(memfd(name, 0), EINVAL);
	/* Huge pages where the kernel has them, ENOSYS where it has not. */
	errno = 0;
	fd = memfd("x", MFD_HUGETLB | MFD_HUGE_2MB_);
	CHECK(fd >= 0 || errno == ENOSYS, "memfd MFD_HUGETLB");
	if (fd >= 0)
		close((int)fd);

	fd = CHECK_OK(memfd("x", MFD_CLOEXEC));
	CHECK_EQ(syscall(SYS_fcntl, fd, F_GETFD), FD_CLOEXEC);
	CHECK_EQ(fstat((int)fd, &st), 0);
	CHECK_EQ(st.st_mode, S_IFREG | 0777);
	CHECK_EQ(st.st_size, 0);
	close((int)fd);
	fd = CHECK_OK(memfd("x", 0));
	CHECK_EQ(syscall(SYS_fcntl, fd, F_GETFD), 0);
	close((int)fd);
}

static void
test_add_errors(void)
{
	long fd, ro, pfd[2];
	char path[64];
	int p[2];

	/* Without MFD_ALLOW_SEALING a memfd is sealed against seals. */
	fd = CHECK_OK(memfd("x", 0));
	CHECK_EQ(seals_get(fd), F_SEAL_SEAL);
	CHECK_ERR(seals_add(fd, F_SEAL_GROW), EPERM);
	close((int)fd);

	fd = CHECK_OK(memfd("x", MFD_ALLOW_SEALING));
	CHECK_EQ(seals_get(fd), 0);
	CHECK_ERR(seals_add(fd, 0x40), EINVAL);
	/* The seals are an unsigned int: higher bits are cut off. */
	CHECK_OK(seals_add(fd, (1UL << 32) | F_SEAL_SHRINK));
	CHECK_EQ(seals_get(fd), F_SEAL_SHRINK);
	CHECK_OK(seals_add(fd, 0));
	CHECK_OK(seals_add(fd, F_SEAL_SEAL));
	CHECK_ERR(seals_add(fd, 0), EPERM);
	CHECK_ERR(seals_add(fd, F_SEAL_GROW), EPERM);
	CHECK_EQ(seals_get(fd), F_SEAL_SEAL | F_SEAL_SHRINK);
	close((int)fd);

	/* No seals on a pipe: EPERM for the read end comes first. */
	if (CHECK_OK(pipe(p)) == 0) {
		pfd[0] = p[0];
		pfd[1] = p[1];
		CHECK_ERR(seals_add(pfd[0], F_SEAL_GROW), EPERM);
		CHECK_ERR(seals_add(pfd[1], F_SEAL_GROW), EINVAL);
		CHECK_ERR(seals_get(pfd[0]), EINVAL);
		close(p[0]);
		close(p[1]);
	}
	/* Other tmpfs files have seals too, and start sealed. */
	snprintf(path, sizeof(path), "/dev/shm/fs_memfd.%d", getpid());
	fd = CHECK_OK(open(path, O_RDWR | O_CREAT | O_EXCL, 0600));
	CHECK_EQ(seals_get(fd), F_SEAL_SEAL);
	CHECK_ERR(seals_add(fd, F_SEAL_GROW), EPERM);
	ro = CHECK_OK(open(path, O_RDONLY));
	CHECK_EQ(seals_get(ro), F_SEAL_SEAL);
	close((int)ro);
	close((int)fd);
	unlink(path);
	/* A file of a file system without seals. */
	fd = CHECK_OK(open("/proc/self/stat", O_RDONLY));
	CHECK_ERR(seals_get(fd), EINVAL);
	close((int)fd);
	CHECK_ERR(seals_get(-1), EBADF);
	CHECK_ERR(seals_add(1000, 0), EBADF);
}

static void
test_exec_seal(void)
{
	struct stat st;
	long fd;

	/* F_SEAL_EXEC on an executable file seals it against writes too. */
	fd = CHECK_OK(memfd("x", MFD_ALLOW_SEALING));
	CHECK_OK(seals_add(fd, F_SEAL_EXEC));
	CHECK_EQ(seals_get(fd), F_SEAL_EXEC | F_SEAL_SHRINK | F_SEAL_GROW |
	    SEALS_RW);
	CHECK_ERR(fchmod((int)fd, 0666), EPERM);
	CHECK_OK(fchmod((int)fd, 0755));
	CHECK_ERR(write((int)fd, "x", 1), EPERM);
	close((int)fd);

	fd = CHECK_OK(memfd("x", MFD_NOEXEC_SEAL));
	CHECK_EQ(seals_get(fd), F_SEAL_EXEC);
	CHECK_EQ(fstat((int)fd, &st), 0);
	CHECK_EQ(st.st_mode, S_IFREG | 0666);
	CHECK_ERR(fchmod((int)fd, 0766), EPERM);
	CHECK_OK(fchmod((int)fd, 0600));
	CHECK_EQ(write((int)fd, "x", 1), 1);
	close((int)fd);
}

static void
test_shrink_grow(void)
{
	char big[8192] = { 0 };
	long fd;

	fd = sealable(4096);
	CHECK_OK(seals_add(fd, F_SEAL_GROW));
	CHECK_EQ(write((int)fd, "abc", 3), 3);
	/* A write stops short at the page that would grow the file. */
	CHECK_EQ(pwrite((int)fd, "abc", 3, 4094), 2);
	CHECK_EQ(pwrite((int)fd, big, sizeof(big), 0), 4096);
	CHECK_ERR(pwrite((int)fd, "abc", 3, 4096), EPERM);
	CHECK_ERR(ftruncate((int)fd, 4097), EPERM);
	CHECK_EQ(size_of(fd), 4096);
	CHECK_OK(ftruncate((int)fd, 4000));
	CHECK_ERR(pwrite((int)fd, big, 200, 3900), EPERM);
	CHECK_EQ(pwrite((int)fd, big, 100, 3900), 100);
	CHECK_EQ(size_of(fd), 4000);
	close((int)fd);

	fd = sealable(4096);
	CHECK_OK(seals_add(fd, F_SEAL_SHRINK));
	CHECK_OK(ftruncate((int)fd, 4096));
	CHECK_ERR(ftruncate((int)fd, 4095), EPERM);
	CHECK_ERR(ftruncate((int)fd, 0), EPERM);
	CHECK_OK(ftruncate((int)fd, 5000));
	CHECK_EQ(pwrite((int)fd, "abc", 3, 9000), 3);
	CHECK_EQ(size_of(fd), 9003);
	close((int)fd);
}

/* Each way of writing into fd is refused with EPERM. */
static void
check_writes_refused(long fd)
{
	struct iovec iov = { .iov_base = "xy", .iov_len = 2 };
	long src;
	int p[2];

	CHECK_EQ(write((int)fd, "x", 0), 0);
	CHECK_ERR(write((int)fd, "x", 1), EPERM);
	CHECK_ERR(pwrite((int)fd, "x", 1, 0), EPERM);
	CHECK_ERR(writev((int)fd, &iov, 1), EPERM);
	src = CHECK_OK(memfd("src", 0));
	CHECK_EQ(write((int)src, "data", 4), 4);
	CHECK_ERR(sendfile((int)fd, (int)src, &(off_t){ 0 }, 4), EPERM);
	CHECK_ERR(syscall(SYS_copy_file_range, src, &(off_t){ 0 }, fd,
	    &(off_t){ 0 }, 4, 0), EPERM);
	close((int)src);
	if (CHECK_OK(pipe(p)) == 0) {
		CHECK_EQ(write(p[1], "data", 4), 4);
		CHECK_ERR(splice(p[0], NULL, (int)fd, &(off_t){ 0 }, 4, 0),
		    EPERM);
		close(p[0]);
		close(p[1]);
	}
}

static void
test_write_seal(void)
{
	char *m, *w, buf[4];
	long fd;

	fd = sealable(8192);
	CHECK_EQ(pwrite((int)fd, "seal", 4, 0), 4);
	/* A shared mapping of a writable fd may become writable: EBUSY. */
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, (int)fd, 0);
	CHECK(m != MAP_FAILED, "mmap shared");
	CHECK_ERR(seals_add(fd, F_SEAL_WRITE), EBUSY);
	CHECK_EQ(seals_get(fd), 0);
	munmap(m, 4096);
	/* A private one does not count. */
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, (int)fd, 0);
	CHECK(m != MAP_FAILED, "mmap private");
	CHECK_OK(seals_add(fd, F_SEAL_WRITE));
	CHECK_EQ(seals_get(fd), F_SEAL_WRITE);
	if (m != MAP_FAILED) {
		m[0] = 'S';
		munmap(m, 4096);
	}

	check_writes_refused(fd);
	CHECK_EQ(pread((int)fd, buf, 4, 0), 4);
	CHECK(memcmp(buf, "seal", 4) == 0, "sealed contents kept");
	/* The size may still change. */
	CHECK_OK(ftruncate((int)fd, 9000));
	CHECK_OK(ftruncate((int)fd, 8192));

	CHECK_ERR(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
	    (int)fd, 0), EPERM);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, (int)fd, 0);
	if (CHECK(m != MAP_FAILED, "mmap shared read-only")) {
		CHECK_EQ(m[0], 's');
		CHECK_ERR(mprotect(m, 4096, PROT_READ | PROT_WRITE), EACCES);
		munmap(m, 4096);
	}
	w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, (int)fd, 0);
	if (CHECK(w != MAP_FAILED, "mmap private writable")) {
		w[0] = 'p';
		munmap(w, 4096);
	}
	CHECK_EQ(pread((int)fd, buf, 1, 0), 1);
	CHECK_EQ(buf[0], 's');
	close((int)fd);
}

static void
test_future_write(void)
{
	char *m, c = 0;
	long fd;

	fd = sealable(4096);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (!CHECK(m != MAP_FAILED, "mmap shared writable")) {
		close((int)fd);
		return;
	}
	CHECK_OK(seals_add(fd, F_SEAL_FUTURE_WRITE));
	/* The mapping made before the seal keeps writing. */
	m[0] = 'z';
	CHECK_EQ(pread((int)fd, &c, 1, 0), 1);
	CHECK_EQ(c, 'z');
	check_writes_refused(fd);
	CHECK_ERR(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
	    (int)fd, 0), EPERM);
	CHECK_ERR(seals_add(fd, F_SEAL_WRITE), EBUSY);
	CHECK_OK(ftruncate((int)fd, 8192));
	munmap(m, 4096);
	CHECK_OK(seals_add(fd, F_SEAL_WRITE));
	CHECK_EQ(seals_get(fd), SEALS_RW);
	close((int)fd);
}

int
main(void)
{
	test_create_flags();
	test_add_errors();
	test_exec_seal();
	test_shrink_grow();
	test_write_seal();
	test_future_write();
	return guest_done();
}
