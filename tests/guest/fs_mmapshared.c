/*
 * Verifies MAP_SHARED mappings of a regular file: stores through a mapping
 * show in read(2) and in every other mapping (another one of the same
 * file, a forked child's), write(2) shows in the mappings, truncation and
 * growth are seen by both sides, a read-only mapping of a read-only fd
 * follows later writes and may not become writable, and what a mapping
 * stored reaches the file: after msync(2), and after a process that
 * never unmapped exits.
 *
 * Usage: fs_mmapshared [DIR]  (DIR absolute; default /tmp).  Under
 * vkernel, /tmp is in memory, and "--bind HOST:/mnt:rw ... /mnt" runs the
 * same checks on a host file, which a map cache then serves.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <string.h>

#include "guest.h"
#include "fs_common.h"

#define PG	((off_t)GUEST_PAGE)

/* A byte of the file at off, read with pread(2). */
static int
byte_at(int fd, off_t off)
{
	unsigned char c;

	return pread(fd, &c, 1, off) == 1 ? c : -1;
}

/* Makes "f": 3 pages and 100 bytes, byte i being 'a' + i % 26. */
static int
make_file(void)
{
	char buf[3 * GUEST_PAGE + 100];
	int fd;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)('a' + i % 26);
	fd = (int)CHECK_OK(open("f", O_RDWR | O_CREAT | O_TRUNC, 0644));
	CHECK_EQ(write(fd, buf, sizeof(buf)), sizeof(buf));
	return fd;
}

static void
check_coherence(int fd, char *p)
{
	char *q;

	CHECK_EQ(p[0], 'a');
	CHECK_EQ(p[PG + 5], 'a' + (PG + 5) % 26);
	CHECK_EQ(p[3 * PG + 99], 'a' + (3 * PG + 99) % 26);
	/* The rest of the last page, past the end of the file, reads zero. */
	CHECK_EQ(p[3 * PG + 100], 0);
	p[10] = 'X';
	p[PG + 5] = 'Y';
	CHECK_EQ(byte_at(fd, 10), 'X');
	CHECK_EQ(byte_at(fd, PG + 5), 'Y');
	CHECK_EQ(pwrite(fd, "ZZ", 2, 2 * PG + 7), 2);
	CHECK_EQ(p[2 * PG + 7], 'Z');
	CHECK_EQ(p[2 * PG + 8], 'Z');
	/* A second mapping of part of the file shares the pages. */
	q = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, PG);
	if (CHECK(q != MAP_FAILED, "mmap of page 1")) {
		CHECK_EQ(q[5], 'Y');
		q[6] = 'W';
		CHECK_EQ(p[PG + 6], 'W');
		CHECK_OK(munmap(q, PG));
	}
}

static void
check_fork(int fd, char *p)
{
	pid_t pid = (pid_t)CHECK_OK(fork());
	int st;

	if (pid == 0) {
		p[20] = 'C';
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(p[20], 'C');
	CHECK_EQ(byte_at(fd, 20), 'C');
}

/* The file grows and shrinks under the mapping. */
static void
check_size(int fd, char *p)
{
	CHECK_OK(ftruncate(fd, 4 * PG));
	CHECK_EQ(p[3 * PG + 200], 0);
	p[3 * PG + 200] = 'G';
	CHECK_EQ(byte_at(fd, 3 * PG + 200), 'G');
	CHECK_EQ(pwrite(fd, "H", 1, 3 * PG + 300), 1);
	CHECK_EQ(p[3 * PG + 300], 'H');
	CHECK_OK(ftruncate(fd, PG + 10));
	CHECK_EQ(p[PG + 5], 'Y');
	/* Past the new end of the page, what was there reads zero. */
	CHECK_EQ(p[PG + 20], 0);
	CHECK_EQ(byte_at(fd, PG + 20), -1);
	CHECK_OK(ftruncate(fd, 3 * PG + 100));
	CHECK_EQ(byte_at(fd, 3 * PG + 200), -1);
	CHECK_EQ(byte_at(fd, 2 * PG + 7), 0);
	CHECK_EQ(p[2 * PG + 7], 0);
}

/* A read-only mapping of a read-only fd sees writes made elsewhere. */
static void
check_readonly(int fd)
{
	int ro = (int)CHECK_OK(open("f", O_RDONLY));
	char *r = mmap(NULL, PG, PROT_READ, MAP_SHARED, ro, 0);

	if (CHECK(r != MAP_FAILED, "mmap of a read-only fd")) {
		CHECK_EQ(pwrite(fd, "R", 1, 30), 1);
		CHECK_EQ(r[30], 'R');
		CHECK_ERR(mprotect(r, PG, PROT_READ | PROT_WRITE), EACCES);
		CHECK_OK(munmap(r, PG));
	}
	CHECK_ERR(mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0),
	    EACCES);
	close(ro);
}

/* After msync, and after the mapping is gone, a new fd reads the stores. */
static void
check_written(char *p)
{
	int fd2;

	CHECK_OK(msync(p, 4 * PG, MS_SYNC));
	CHECK_OK(msync(p, PG, MS_ASYNC));
	CHECK_ERR(msync(p + 1, PG, MS_SYNC), EINVAL);
	CHECK_ERR(msync(p, PG, MS_SYNC | MS_ASYNC), EINVAL);
	CHECK_OK(munmap(p, 4 * PG));
	fd2 = (int)CHECK_OK(open("f", O_RDONLY));
	CHECK_EQ(byte_at(fd2, 10), 'X');
	CHECK_EQ(byte_at(fd2, PG + 5), 'Y');
	CHECK_EQ(byte_at(fd2, PG + 6), 'W');
	CHECK_EQ(byte_at(fd2, 20), 'C');
	CHECK_EQ(byte_at(fd2, 30), 'R');
	close(fd2);
}

/* A child stores through a mapping and exits without unmapping. */
static void
check_exit_writes(void)
{
	pid_t pid = (pid_t)CHECK_OK(fork());
	int st, fd;

	if (pid == 0) {
		int cfd = open("f", O_RDWR);
		char *c = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE,
		    MAP_SHARED, cfd, 0);

		if (c == MAP_FAILED)
			_exit(1);
		close(cfd);
		c[0] = 'E';
		c[PG + 1] = 'F';
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	fd = (int)CHECK_OK(open("f", O_RDONLY));
	CHECK_EQ(byte_at(fd, 0), 'E');
	CHECK_EQ(byte_at(fd, PG + 1), 'F');
	CHECK_OK(fsync(fd));
	close(fd);
}

static void
check_file(void)
{
	int fd = make_file();
	char *p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
	    0);

	if (!CHECK(p != MAP_FAILED, "mmap MAP_SHARED"))
		return;
	check_coherence(fd, p);
	check_fork(fd, p);
	check_readonly(fd);
	check_size(fd, p);
	check_written(p);
	close(fd);
	check_exit_writes();
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";

	if (CHECK(scratch_enter_in(dir), "scratch directory in %s", dir)) {
		check_file();
		CHECK(scratch_leave(), "scratch removed");
	}
	return guest_done();
}
