/*
 * Verifies private mappings of files that change under them, on a memfd,
 * a /dev/shm file, a file in /tmp and one in the directory given (a host
 * bind): stress-ng's memfd check (write both pages of a two-page private
 * mapping, truncate the file to one page and back to two: the first page
 * keeps what was written, the second reads zero), SIGBUS for pages wholly
 * past the end of the file, when mapped so or after truncation, the
 * truncation reaching a forked child's copy-on-write copies too, and
 * pages read from the file again after MADV_DONTNEED, after mremap grows
 * the mapping and after mprotect opens a PROT_NONE one.  As root and
 * then, when started as root, again as uid 65534.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>

#include "guest.h"

#define PG	GUEST_PAGE
#define RW	(PROT_READ | PROT_WRITE)

static sigjmp_buf bus_env;

static void
on_bus(int sig)
{
	(void)sig;
	siglongjmp(bus_env, 1);
}

/* Read the byte at p: its value, or -1 when the read raises SIGBUS. */
static int
read_or_bus(const volatile unsigned char *p)
{
	if (sigsetjmp(bus_env, 1) != 0)
		return -1;
	return *p;
}

/* The file's n pages, page i filled with the byte 'a' + i. */
static bool
fill_file(int fd, int n)
{
	unsigned char buf[PG];

	if (ftruncate(fd, 0) != 0)
		return false;
	for (int i = 0; i < n; i++) {
		memset(buf, 'a' + i, PG);
		if (pwrite(fd, buf, PG, (off_t)i * PG) != (ssize_t)PG)
			return false;
	}
	return true;
}

/* stress-ng's memfd check, and SIGBUS while the page is past the end. */
static void
check_truncate(const char *what, int fd)
{
	unsigned char *p;

	CHECK_OK(ftruncate(fd, 2 * PG));
	p = guest_mmap(NULL, 2 * PG, RW, MAP_PRIVATE, fd, 0);
	if (!CHECK(p != MAP_FAILED, "%s: mmap", what))
		return;
	memset(p, 0x5a, 2 * PG);
	(void)madvise(p, 2 * PG, MADV_PAGEOUT);
	CHECK_OK(ftruncate(fd, PG));
	CHECK(read_or_bus(p + PG) == -1, "%s: page past the end: SIGBUS",
	    what);
	CHECK(all_byte(p, PG, 0x5a), "%s: first page kept while shrunk", what);
	CHECK_OK(ftruncate(fd, 2 * PG));
	CHECK(all_byte(p, PG, 0x5a), "%s: first page kept", what);
	CHECK(all_byte(p + PG, PG, 0), "%s: second page zero", what);
	p[PG] = 1;
	CHECK_EQ(p[PG], 1);
	CHECK_OK(guest_munmap(p, 2 * PG));
}

/* Mapped past the end: SIGBUS, then the file's bytes once it grows. */
static void
check_past_end(const char *what, int fd)
{
	unsigned char *p;

	if (!CHECK(fill_file(fd, 1), "%s: write the file", what))
		return;
	CHECK_OK(ftruncate(fd, PG - 100));
	p = guest_mmap(NULL, 3 * PG, RW, MAP_PRIVATE, fd, 0);
	if (!CHECK(p != MAP_FAILED, "%s: mmap", what))
		return;
	CHECK_EQ(p[PG - 101], 'a');
	CHECK(all_byte(p + PG - 100, 100, 0), "%s: last page's tail zero",
	    what);
	CHECK(read_or_bus(p + PG) == -1, "%s: mapped past the end: SIGBUS",
	    what);
	CHECK(read_or_bus(p + 2 * PG + 9) == -1, "%s: third page: SIGBUS",
	    what);
	/* The kernel's own access to such a page fails too. */
	CHECK_EQ(guest_probe_read(p + PG), EFAULT);
	CHECK_OK(ftruncate(fd, 2 * PG));
	CHECK_EQ(pwrite(fd, "xyz", 3, PG), 3);
	CHECK_EQ(read_or_bus(p + PG), 'x');
	CHECK_EQ(read_or_bus(p + PG + 3), 0);
	CHECK(read_or_bus(p + 2 * PG) == -1, "%s: still past the end", what);
	CHECK_OK(guest_munmap(p, 3 * PG));
}

/* Truncation reaches a forked child's copy-on-write copies as well. */
static void
check_fork(const char *what, int fd)
{
	unsigned char *p;
	int go[2], st = -1;
	char c;
	pid_t pid;

	CHECK_OK(ftruncate(fd, 2 * PG));
	p = guest_mmap(NULL, 2 * PG, RW, MAP_PRIVATE, fd, 0);
	if (!CHECK(p != MAP_FAILED, "%s: mmap", what))
		return;
	if (CHECK_OK(pipe(go)) != 0) {
		guest_munmap(p, 2 * PG);
		return;
	}
	memset(p, 0x77, 2 * PG);
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(all_byte(p, PG, 0x77) && all_byte(p + PG, PG, 0) ? 0 :
		    1);
	}
	close(go[0]);
	CHECK_OK(ftruncate(fd, PG));
	CHECK_OK(ftruncate(fd, 2 * PG));
	CHECK_EQ(write(go[1], "g", 1), 1);
	close(go[1]);
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "%s: the child's copies: status %#x", what,
	    st);
	CHECK(all_byte(p, PG, 0x77) && all_byte(p + PG, PG, 0),
	    "%s: the parent's pages", what);
	CHECK_OK(guest_munmap(p, 2 * PG));
}

/* Pages that go back to the file: DONTNEED, mremap, PROT_NONE. */
static void
check_reread(const char *what, int fd)
{
	unsigned char *p, *q;

	if (!CHECK(fill_file(fd, 3), "%s: write the file", what))
		return;
	p = guest_mmap(NULL, 2 * PG, RW, MAP_PRIVATE, fd, 0);
	if (!CHECK(p != MAP_FAILED, "%s: mmap", what))
		return;
	memset(p, 0x11, 2 * PG);
	CHECK_OK(madvise(p + PG, PG, MADV_DONTNEED));
	CHECK(all_byte(p, PG, 0x11), "%s: page kept", what);
	CHECK(all_byte(p + PG, PG, 'b'), "%s: DONTNEED: the file's", what);
	q = mremap(p, 2 * PG, 3 * PG, MREMAP_MAYMOVE);
	if (CHECK(q != MAP_FAILED, "%s: mremap", what)) {
		CHECK(all_byte(q, PG, 0x11), "%s: moved page kept", what);
		CHECK(all_byte(q + 2 * PG, PG, 'c'), "%s: grown: the file's",
		    what);
		p = q;
	}
	CHECK_OK(guest_munmap(p, 3 * PG));

	p = guest_mmap(NULL, 2 * PG, PROT_NONE, MAP_PRIVATE, fd, PG);
	if (!CHECK(p != MAP_FAILED, "%s: mmap PROT_NONE", what))
		return;
	CHECK_OK(guest_mprotect(p, 2 * PG, PROT_READ));
	CHECK(all_byte(p, PG, 'b') && all_byte(p + PG, PG, 'c'),
	    "%s: PROT_NONE opened: the file's", what);
	CHECK_OK(guest_munmap(p, 2 * PG));
}

static void
check_file(const char *what, int fd)
{
	if (!CHECK(fd >= 0, "%s: open", what))
		return;
	check_truncate(what, fd);
	check_past_end(what, fd);
	check_fork(what, fd);
	check_reread(what, fd);
	close(fd);
}

/* A new file in dir, unlinked at once. */
static int
temp_in(const char *dir)
{
	char name[256];
	int fd;

	snprintf(name, sizeof(name), "%s/vk-mm_privfile.XXXXXX", dir);
	if ((fd = mkstemp(name)) >= 0)
		unlink(name);
	return fd;
}

static void
check_all(const void *dir)
{
	check_file("memfd", memfd_create("privfile", 0));
	check_file("/dev/shm", temp_in("/dev/shm"));
	check_file("/tmp", temp_in("/tmp"));
	if (dir != NULL)
		check_file(dir, temp_in(dir));
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : NULL;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_bus;
	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(SIGBUS, &sa, NULL));
	check_all(dir);
	guest_as_nobody(check_all, dir);
	return guest_done();
}
