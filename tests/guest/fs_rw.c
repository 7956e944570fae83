/*
 * Verifies file I/O on regular files: read(2), write(2), pread/pwrite,
 * readv/writev, preadv/pwritev and lseek(2) with their offsets and errnos,
 * O_APPEND, truncate/ftruncate, fallocate mode 0, big writes into new
 * pages and writes from a shared mapping of the file itself, the sync
 * calls and the readahead(2) hint, and a MAP_PRIVATE file mapping that shows the file but never
 * writes to it.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <fcntl.h>

#include "guest.h"
#include "fs_common.h"

/* Linux's UIO_MAXIOV (include/uapi/linux/uio.h). */
#define FS_IOV_MAX	1024

/* The raw calls: glibc and musl both check or split some arguments. */
static long
sys_pread(int fd, void *buf, size_t len, long off)
{
	return syscall(SYS_pread64, fd, buf, len, off);
}

static long
sys_pwrite(int fd, const void *buf, size_t len, long off)
{
	return syscall(SYS_pwrite64, fd, buf, len, off);
}

static long
sys_readv(int fd, const struct iovec *iov, long cnt)
{
	return syscall(SYS_readv, fd, iov, cnt);
}

static long
sys_writev(int fd, const struct iovec *iov, long cnt)
{
	return syscall(SYS_writev, fd, iov, cnt);
}

/* On x86-64 the whole offset is in pos_l; pos_h is ignored. */
static long
sys_preadv(int fd, const struct iovec *iov, long cnt, long off)
{
	return syscall(SYS_preadv, fd, iov, cnt, off, 0L);
}

static long
sys_pwritev(int fd, const struct iovec *iov, long cnt, long off)
{
	return syscall(SYS_pwritev, fd, iov, cnt, off, 0L);
}

static long
sys_lseek(int fd, long off, int whence)
{
	return syscall(SYS_lseek, fd, off, whence);
}

/* Opens name read-write, created empty. */
static long
open_empty(const char *name)
{
	return syscall(SYS_open, name, O_RDWR | O_CREAT | O_TRUNC, 0644);
}

/* The size fstat(2) reports for fd, or -1. */
static long
size_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? (long)st.st_size : -1;
}

/* Tells whether name holds exactly len bytes equal to want. */
static bool
file_is(const char *name, const void *want, size_t len)
{
	static unsigned char buf[65536];
	int fd = open(name, O_RDONLY);
	ssize_t n;

	if (fd < 0 || len > sizeof(buf) - 1)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == (ssize_t)len && memcmp(buf, want, len) == 0;
}

static void
test_read_write(void)
{
	char buf[32];
	long fd;

	fd = CHECK_OK(open_empty("rw"));
	if (fd < 0)
		return;
	CHECK_EQ(write((int)fd, "hello world", 11), 11);
	CHECK_EQ(sys_lseek((int)fd, 0, SEEK_CUR), 11);
	CHECK_EQ(write((int)fd, "", 0), 0);
	CHECK_EQ(size_of((int)fd), 11);
	CHECK_EQ(sys_lseek((int)fd, 0, SEEK_SET), 0);
	CHECK_EQ(read((int)fd, buf, 5), 5);
	CHECK(memcmp(buf, "hello", 5) == 0, "read the first 5 bytes");
	CHECK_EQ(read((int)fd, buf, sizeof(buf)), 6);
	CHECK(memcmp(buf, " world", 6) == 0, "read the rest");
	CHECK_EQ(read((int)fd, buf, sizeof(buf)), 0);
	CHECK_EQ(read((int)fd, buf, 0), 0);
	/* Overwrite in the middle: the size stays. */
	CHECK_EQ(sys_lseek((int)fd, 6, SEEK_SET), 6);
	CHECK_EQ(write((int)fd, "W", 1), 1);
	CHECK_EQ(size_of((int)fd), 11);
	CHECK(file_is("rw", "hello World", 11), "overwrite in place");
	close((int)fd);
}

static void
test_pread_pwrite(void)
{
	unsigned char buf[128];
	long fd;

	fd = CHECK_OK(open_empty("p"));
	if (fd < 0)
		return;
	CHECK_EQ(write((int)fd, "abc", 3), 3);
	/* pwrite beyond the end leaves a hole that reads as zeros. */
	CHECK_EQ(sys_pwrite((int)fd, "Z", 1, 100), 1);
	CHECK_EQ(sys_lseek((int)fd, 0, SEEK_CUR), 3);
	CHECK_EQ(size_of((int)fd), 101);
	memset(buf, 0xff, sizeof(buf));
	CHECK_EQ(sys_pread((int)fd, buf, sizeof(buf), 0), 101);
	CHECK(memcmp(buf, "abc", 3) == 0, "pread the start");
	CHECK(all_zero(buf + 3, 97), "the hole reads as zeros");
	CHECK_EQ(buf[100], 'Z');
	CHECK_EQ(sys_pread((int)fd, buf, 2, 1), 2);
	CHECK(memcmp(buf, "bc", 2) == 0, "pread at offset 1");
	CHECK_EQ(sys_pread((int)fd, buf, 10, 101), 0);
	CHECK_EQ(sys_pread((int)fd, buf, 10, 5000), 0);
	CHECK_EQ(sys_lseek((int)fd, 0, SEEK_CUR), 3);
	FS_CHECK_ERR(sys_pread((int)fd, buf, 1, -1), EINVAL);
	FS_CHECK_ERR(sys_pwrite((int)fd, buf, 1, -1), EINVAL);
	FS_CHECK_ERR(sys_pread(-1, buf, 1, 0), EBADF);
	close((int)fd);
}

static void
test_vectors(void)
{
	char a[2], b[10], c[4];
	struct iovec out[3] = {
		{ "ab", 2 }, { "", 0 }, { "cdefg", 5 },
	};
	struct iovec in[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct iovec one[1] = { { c, sizeof(c) } };
	long fd;

	fd = CHECK_OK(open_empty("v"));
	if (fd < 0)
		return;
	CHECK_EQ(sys_writev((int)fd, out, 3), 7);
	CHECK_EQ(sys_lseek((int)fd, 0, SEEK_CUR), 7);
	CHECK_EQ(sys_lseek((int)fd, 0, SEEK_SET), 0);
	/* readv fills each buffer in turn and stops at the end of file. */
	memset(b, 0, sizeof(b));
	CHECK_EQ(sys_readv((int)fd, in, 2), 7);
	CHECK(memcmp(a, "ab", 2) == 0 && memcmp(b, "cdefg", 5) == 0,
	    "readv scatters \"ab\" and \"cdefg\"");
	CHECK_EQ(sys_readv((int)fd, in, 2), 0);
	CHECK_EQ(sys_readv((int)fd, in, 0), 0);

	/* The positioned forms leave the file offset alone. */
	CHECK_EQ(sys_lseek((int)fd, 1, SEEK_SET), 1);
	CHECK_EQ(sys_pwritev((int)fd, out, 3, 5), 7);
	CHECK_EQ(sys_lseek((int)fd, 0, SEEK_CUR), 1);
	CHECK(file_is("v", "abcdeabcdefg", 12), "pwritev at offset 5");
	CHECK_EQ(sys_preadv((int)fd, one, 1, 8), 4);
	CHECK(memcmp(c, "defg", 4) == 0, "preadv at offset 8");
	CHECK_EQ(sys_preadv((int)fd, one, 1, 12), 0);
	CHECK_EQ(sys_lseek((int)fd, 0, SEEK_CUR), 1);

	FS_CHECK_ERR(sys_readv((int)fd, in, -1), EINVAL);
	FS_CHECK_ERR(sys_writev((int)fd, out, FS_IOV_MAX + 1), EINVAL);
	FS_CHECK_ERR(sys_preadv((int)fd, one, 1, -1), EINVAL);
	FS_CHECK_ERR(sys_pwritev((int)fd, out, 3, -1), EINVAL);
	FS_CHECK_ERR(sys_writev(-1, out, 3), EBADF);
	close((int)fd);
}

static void
test_lseek(void)
{
	unsigned char buf[16];
	long fd;

	fd = CHECK_OK(open_empty("s"));
	if (fd < 0)
		return;
	CHECK_EQ(write((int)fd, "0123456789", 10), 10);
	CHECK_EQ(sys_lseek((int)fd, 4, SEEK_SET), 4);
	CHECK_EQ(sys_lseek((int)fd, 3, SEEK_CUR), 7);
	CHECK_EQ(sys_lseek((int)fd, -5, SEEK_CUR), 2);
	CHECK_EQ(read((int)fd, buf, 1), 1);
	CHECK_EQ(buf[0], '2');
	CHECK_EQ(sys_lseek((int)fd, 0, SEEK_END), 10);
	CHECK_EQ(sys_lseek((int)fd, -3, SEEK_END), 7);
	CHECK_EQ(read((int)fd, buf, 1), 1);
	CHECK_EQ(buf[0], '7');

	/* A negative result is refused and the offset does not move. */
	FS_CHECK_ERR(sys_lseek((int)fd, -1, SEEK_SET), EINVAL);
	FS_CHECK_ERR(sys_lseek((int)fd, -100, SEEK_CUR), EINVAL);
	FS_CHECK_ERR(sys_lseek((int)fd, -11, SEEK_END), EINVAL);
	FS_CHECK_ERR(sys_lseek((int)fd, 0, 99), EINVAL);
	CHECK_EQ(sys_lseek((int)fd, 0, SEEK_CUR), 8);
	FS_CHECK_ERR(sys_lseek(-1, 0, SEEK_SET), EBADF);

	/* Seeking past the end is allowed; a write there leaves a hole. */
	CHECK_EQ(sys_lseek((int)fd, 20, SEEK_END), 30);
	CHECK_EQ(size_of((int)fd), 10);
	CHECK_EQ(read((int)fd, buf, 1), 0);
	CHECK_EQ(write((int)fd, "E", 1), 1);
	CHECK_EQ(size_of((int)fd), 31);
	memset(buf, 0xff, sizeof(buf));
	CHECK_EQ(sys_pread((int)fd, buf, 16, 10), 16);
	CHECK(all_zero(buf, 16), "bytes 10..25 of the hole are zero");
	close((int)fd);
}

/* Creates name holding text; false on failure. */
static bool
put_file(const char *name, const char *text)
{
	long fd = open_empty(name);
	bool ok;

	if (fd < 0)
		return false;
	ok = write((int)fd, text, strlen(text)) == (ssize_t)strlen(text);
	return close((int)fd) == 0 && ok;
}

static void
test_append(void)
{
	char buf[8];
	long fd;

	CHECK(put_file("ap", "12345"), "create ap");
	fd = CHECK_OK(syscall(SYS_open, "ap", O_WRONLY | O_APPEND, 0));
	if (fd < 0)
		return;
	/* O_APPEND moves every write to the end first. */
	CHECK_EQ(sys_lseek((int)fd, 0, SEEK_SET), 0);
	CHECK_EQ(write((int)fd, "ab", 2), 2);
	CHECK_EQ(sys_lseek((int)fd, 0, SEEK_CUR), 7);
	/*
	 * "BUGS: On Linux, if a file is opened with O_APPEND, pwrite()
	 * appends data to the end of the file, regardless of the value of
	 * offset" (pwrite(2)).
	 */
	CHECK_EQ(sys_pwrite((int)fd, "P", 1, 0), 1);
	CHECK(file_is("ap", "12345abP", 8), "appended, even by pwrite");
	FS_CHECK_ERR(read((int)fd, buf, 1), EBADF);
	close((int)fd);

	/* O_TRUNC empties the file on open. */
	fd = CHECK_OK(syscall(SYS_open, "ap", O_WRONLY | O_TRUNC, 0));
	if (fd >= 0) {
		CHECK_EQ(size_of((int)fd), 0);
		close((int)fd);
	}
}

static void
test_access_modes(void)
{
	char buf[8];
	long fd;

	CHECK(put_file("ro", "read only"), "create ro");
	fd = CHECK_OK(syscall(SYS_open, "ro", O_RDONLY, 0));
	if (fd >= 0) {
		FS_CHECK_ERR(write((int)fd, "x", 1), EBADF);
		FS_CHECK_ERR(sys_pwrite((int)fd, "x", 1, 0), EBADF);
		close((int)fd);
	}
	CHECK_OK(mkdir("dir", 0755));
	fd = CHECK_OK(syscall(SYS_open, "dir", O_RDONLY | O_DIRECTORY, 0));
	if (fd >= 0) {
		FS_CHECK_ERR(read((int)fd, buf, sizeof(buf)), EISDIR);
		FS_CHECK_ERR(sys_pread((int)fd, buf, sizeof(buf), 0), EISDIR);
		close((int)fd);
	}
	FS_CHECK_ERR(read(-1, buf, 1), EBADF);
	FS_CHECK_ERR(write(9999, buf, 1), EBADF);
}

static void
test_truncate(void)
{
	static unsigned char buf[10000];
	long fd;

	CHECK(put_file("tr", "hello"), "create tr");
	/* Growing adds zeros after the old end. */
	CHECK_OK(syscall(SYS_truncate, "tr", 10000L));
	fd = CHECK_OK(syscall(SYS_open, "tr", O_RDWR, 0));
	if (fd < 0)
		return;
	CHECK_EQ(size_of((int)fd), 10000);
	memset(buf, 0xff, sizeof(buf));
	CHECK_EQ(read((int)fd, buf, sizeof(buf)), 10000);
	CHECK(memcmp(buf, "hello", 5) == 0, "the old bytes stay");
	CHECK(all_zero(buf + 5, sizeof(buf) - 5), "the new bytes are zero");

	/* Shrinking drops the tail; the offset may stay past the end. */
	CHECK_OK(syscall(SYS_ftruncate, (int)fd, 3L));
	CHECK_EQ(size_of((int)fd), 3);
	CHECK_EQ(sys_lseek((int)fd, 0, SEEK_CUR), 10000);
	CHECK_EQ(read((int)fd, buf, 1), 0);
	CHECK(file_is("tr", "hel", 3), "shrunk to \"hel\"");
	/* Regrowing does not bring the old bytes back. */
	CHECK_OK(syscall(SYS_ftruncate, (int)fd, 5L));
	CHECK(file_is("tr", "hel\0\0", 5), "regrown with zeros");
	CHECK_OK(syscall(SYS_ftruncate, (int)fd, 0L));
	CHECK_EQ(size_of((int)fd), 0);

	FS_CHECK_ERR(syscall(SYS_ftruncate, (int)fd, -1L), EINVAL);
	FS_CHECK_ERR(syscall(SYS_truncate, "tr", -1L), EINVAL);
	close((int)fd);
	FS_CHECK_ERR(syscall(SYS_truncate, "missing", 0L), ENOENT);
	FS_CHECK_ERR(syscall(SYS_truncate, "tr/x", 0L), ENOTDIR);
	CHECK_OK(mkdir("trdir", 0755));
	FS_CHECK_ERR(syscall(SYS_truncate, "trdir", 0L), EISDIR);
	/* ftruncate needs a file open for writing (fs/open.c). */
	fd = CHECK_OK(syscall(SYS_open, "tr", O_RDONLY, 0));
	if (fd >= 0) {
		FS_CHECK_ERR(syscall(SYS_ftruncate, (int)fd, 0L), EINVAL);
		close((int)fd);
	}
	FS_CHECK_ERR(syscall(SYS_ftruncate, -1, 0L), EBADF);
}

static void
test_fallocate(void)
{
	static unsigned char buf[8192];
	long fd;

	CHECK(put_file("fa", "xyz"), "create fa");
	fd = CHECK_OK(syscall(SYS_open, "fa", O_RDWR, 0));
	if (fd < 0)
		return;
	/* Mode 0 allocates and extends the size; the data stays. */
	CHECK_OK(syscall(SYS_fallocate, (int)fd, 0, 0L, 8192L));
	CHECK_EQ(size_of((int)fd), 8192);
	memset(buf, 0xff, sizeof(buf));
	CHECK_EQ(sys_pread((int)fd, buf, sizeof(buf), 0), 8192);
	CHECK(memcmp(buf, "xyz", 3) == 0, "fallocate keeps the data");
	CHECK(all_zero(buf + 3, sizeof(buf) - 3), "the new range reads zero");
	/* A range inside the file changes nothing visible. */
	CHECK_OK(syscall(SYS_fallocate, (int)fd, 0, 1L, 2L));
	CHECK_EQ(size_of((int)fd), 8192);
	CHECK_OK(syscall(SYS_fallocate, (int)fd, 0, 10000L, 100L));
	CHECK_EQ(size_of((int)fd), 10100);

	FS_CHECK_ERR(syscall(SYS_fallocate, (int)fd, 0, 0L, 0L), EINVAL);
	FS_CHECK_ERR(syscall(SYS_fallocate, (int)fd, 0, -1L, 10L), EINVAL);
	FS_CHECK_ERR(syscall(SYS_fallocate, (int)fd, 0, 0L, -10L), EINVAL);
	close((int)fd);
	fd = CHECK_OK(syscall(SYS_open, "fa", O_RDONLY, 0));
	if (fd >= 0) {
		FS_CHECK_ERR(syscall(SYS_fallocate, (int)fd, 0, 0L, 1L), EBADF);
		close((int)fd);
	}
	FS_CHECK_ERR(syscall(SYS_fallocate, -1, 0, 0L, 1L), EBADF);
}

/*
 * One write across many new pages, at an offset inside the first: the
 * data reads back, the head of the first page reads zero, and so do the
 * pages again after a truncation frees them and a shorter write refills.
 */
static void
test_big_write(void)
{
	enum { HEAD = 4000, LEN = (1 << 20) + 123 };
	static unsigned char in[LEN], out[HEAD + LEN];
	long fd;

	fd = CHECK_OK(open_empty("big"));
	if (fd < 0)
		return;
	for (size_t i = 0; i < LEN; i++)
		in[i] = (unsigned char)(i * 13 + 5);
	CHECK_EQ(sys_pwrite((int)fd, in, LEN, HEAD), LEN);
	memset(out, 0xff, sizeof(out));
	CHECK_EQ(sys_pread((int)fd, out, sizeof(out), 0), HEAD + LEN);
	CHECK(all_zero(out, HEAD), "the head before the write reads zero");
	CHECK(memcmp(out + HEAD, in, LEN) == 0, "the big write reads back");
	/* The freed pages come back zeroed: only "xy" is new. */
	CHECK_OK(syscall(SYS_ftruncate, (int)fd, 0L));
	CHECK_EQ(sys_pwrite((int)fd, "xy", 2, 70000), 2);
	CHECK_OK(syscall(SYS_ftruncate, (int)fd, (long)(HEAD + LEN)));
	memset(out, 0xff, sizeof(out));
	CHECK_EQ(sys_pread((int)fd, out, sizeof(out), 0), HEAD + LEN);
	CHECK(all_zero(out, 70000) && memcmp(out + 70000, "xy", 2) == 0 &&
	    all_zero(out + 70002, sizeof(out) - 70002),
	    "after truncation only the new bytes are not zero");
	close((int)fd);
}

/*
 * A write from a shared mapping of the file itself copies page by page
 * in order: page 0, a hole, takes page 1 as it was before page 1 takes
 * page 2.
 */
static void
test_write_from_own_mapping(void)
{
	static unsigned char buf[2 * 4096];
	unsigned char got[3];
	char *map;
	long fd;

	fd = CHECK_OK(open_empty("self"));
	if (fd < 0)
		return;
	memset(buf, 'B', 4096);
	memset(buf + 4096, 'C', 4096);
	CHECK_EQ(sys_pwrite((int)fd, buf, sizeof(buf), 4096), sizeof(buf));
	map = mmap(NULL, 3 * 4096, PROT_READ, MAP_SHARED, (int)fd, 0);
	if (CHECK(map != MAP_FAILED, "mmap the file shared")) {
		CHECK_EQ(sys_pwrite((int)fd, map + 4096, 2 * 4096, 0),
		    2 * 4096);
		CHECK_EQ(sys_pread((int)fd, &got[0], 1, 0), 1);
		CHECK_EQ(sys_pread((int)fd, &got[1], 1, 4096), 1);
		CHECK_EQ(sys_pread((int)fd, &got[2], 1, 2 * 4096), 1);
		CHECK(memcmp(got, "BCC", 3) == 0, "read %.3s, want BCC",
		    (char *)got);
		munmap(map, 3 * 4096);
	}
	close((int)fd);
}

static void
test_sync(void)
{
	long fd, dir;
	int pfd[2];

	CHECK(put_file("sy", "sync me"), "create sy");
	fd = CHECK_OK(syscall(SYS_open, "sy", O_RDWR, 0));
	dir = CHECK_OK(syscall(SYS_open, ".", O_RDONLY | O_DIRECTORY, 0));
	if (fd >= 0) {
		CHECK_OK(syscall(SYS_fsync, (int)fd));
		CHECK_OK(syscall(SYS_fdatasync, (int)fd));
		CHECK_OK(syscall(SYS_syncfs, (int)fd));
		CHECK_OK(syscall(SYS_fadvise64, (int)fd, 0, 0,
		    POSIX_FADV_SEQUENTIAL));
		FS_CHECK_ERR(syscall(SYS_fadvise64, (int)fd, 0, 0, 99), EINVAL);
		CHECK_OK(syscall(SYS_readahead, (int)fd, 0, 1 << 20));
		close((int)fd);
	}
	if (dir >= 0) {
		CHECK_OK(syscall(SYS_fsync, (int)dir));
		FS_CHECK_ERR(syscall(SYS_readahead, (int)dir, 0, 4096), EINVAL);
		close((int)dir);
	}
	/* readahead(2) wants a regular file open for reading. */
	fd = CHECK_OK(syscall(SYS_open, "sy", O_WRONLY, 0));
	if (fd >= 0) {
		FS_CHECK_ERR(syscall(SYS_readahead, (int)fd, 0, 4096), EBADF);
		close((int)fd);
	}
	FS_CHECK_ERR(syscall(SYS_readahead, -1, 0, 4096), EBADF);
	/* sync(2) cannot fail. */
	CHECK_EQ(syscall(SYS_sync), 0);
	FS_CHECK_ERR(syscall(SYS_fsync, -1), EBADF);
	FS_CHECK_ERR(syscall(SYS_fdatasync, 9999), EBADF);
	FS_CHECK_ERR(syscall(SYS_syncfs, -1), EBADF);
	FS_CHECK_ERR(syscall(SYS_fadvise64, -1, 0, 0, POSIX_FADV_NORMAL),
	    EBADF);
	if (pipe(pfd) == 0) {
		FS_CHECK_ERR(syscall(SYS_fadvise64, pfd[0], 0, 0,
		    POSIX_FADV_NORMAL), ESPIPE);
		FS_CHECK_ERR(syscall(SYS_readahead, pfd[0], 0, 4096), EINVAL);
		close(pfd[0]);
		close(pfd[1]);
	}
	CHECK(file_is("sy", "sync me", 7), "sync leaves the data");
}

/* Byte i of the mapped test file. */
static unsigned char
pattern(size_t i)
{
	return (unsigned char)(i * 7 + i / 251 + 1);
}

static void
test_mmap_private(void)
{
	static unsigned char data[5000], back[5000];
	unsigned char *p;
	bool same = true;
	long fd;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = pattern(i);
	fd = CHECK_OK(open_empty("map"));
	if (fd < 0)
		return;
	CHECK_EQ(write((int)fd, data, sizeof(data)), sizeof(data));
	p = guest_mmap(NULL, 2 * GUEST_PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE, (int)fd, 0);
	if (CHECK(p != MAP_FAILED, "mmap the file MAP_PRIVATE")) {
		CHECK(memcmp(p, data, sizeof(data)) == 0,
		    "the mapping shows the file");
		/* The rest of the last page is zero (mmap(2)). */
		CHECK(all_zero(p + sizeof(data), 2 * GUEST_PAGE -
		    sizeof(data)), "the page past the end of file is zero");
		memset(p, 'W', 100);
		p[4999] = 'W';
		CHECK_EQ(p[0], 'W');
		CHECK_EQ(sys_pread((int)fd, back, sizeof(back), 0),
		    sizeof(back));
		CHECK(memcmp(back, data, sizeof(data)) == 0,
		    "writes to a private mapping do not reach the file");
		CHECK_OK(guest_munmap(p, 2 * GUEST_PAGE));
	}
	/* A mapping at a page offset shows the file from there. */
	p = guest_mmap(NULL, GUEST_PAGE, PROT_READ, MAP_PRIVATE, (int)fd,
	    GUEST_PAGE);
	if (CHECK(p != MAP_FAILED, "mmap the file at offset 4096")) {
		for (size_t i = GUEST_PAGE; i < sizeof(data); i++)
			same = same && p[i - GUEST_PAGE] == data[i];
		CHECK(same, "the mapping at 4096 shows bytes 4096..4999");
		CHECK_OK(guest_munmap(p, GUEST_PAGE));
	}
	/*
	 * Not checked: on Linux a write to the file after a MAP_PRIVATE
	 * mapping is made shows through in pages not yet written (POSIX
	 * leaves it unspecified).  vkernel's private mappings are copies
	 * until the shared page cache exists.
	 */
	close((int)fd);
}

int
main(void)
{
	if (!CHECK(scratch_enter(), "make scratch directory %s", scratch))
		return guest_done();
	test_read_write();
	test_pread_pwrite();
	test_vectors();
	test_lseek();
	test_append();
	test_access_modes();
	test_truncate();
	test_fallocate();
	test_big_write();
	test_write_from_own_mapping();
	test_sync();
	test_mmap_private();
	CHECK(scratch_leave(), "remove scratch directory %s", scratch);
	return guest_done();
}
