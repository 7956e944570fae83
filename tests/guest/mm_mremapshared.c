/*
 * Verifies mremap(2) of shared mappings as Linux: a MAP_SHARED mapping of
 * a file grows in place and moves with MREMAP_MAYMOVE, and the grown part
 * maps the file's next pages, which writes through the mapping and
 * pwrite(2) share; a page wholly past the end of the file raises SIGBUS.
 * A shared anonymous mapping moves and stays shared with a child, and
 * growing it gives pages past its object, which raise SIGBUS.  A shared
 * mapping of a host file open read-only grows too.  mprotect(2) refuses
 * PROT_WRITE on a shared mapping of a file opened O_RDONLY (EACCES), and
 * allows it on a private one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "guest.h"

#define P	GUEST_PAGE

static const int rw = PROT_READ | PROT_WRITE;

/* Raw, because musl's wrapper filters lengths and glibc's is variadic. */
static void *
raw_mremap(void *old, size_t old_len, size_t new_len, int flags, void *new)
{
	return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new);
}

/* A new file of n pages in /tmp, page i filled with 'a' + i; -1 on error. */
static int
page_file(size_t n)
{
	char path[] = "/tmp/vk-mremapshared-XXXXXX";
	char buf[P];
	int fd = mkstemp(path);

	if (!CHECK(fd >= 0, "mkstemp"))
		return -1;
	unlink(path);
	for (size_t i = 0; i < n; i++) {
		memset(buf, 'a' + (int)i, P);
		if (!CHECK(pwrite(fd, buf, P, (off_t)(i * P)) == (ssize_t)P,
		    "pwrite page %zu", i)) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* The signal that ends a child touching p (writing when wr), or 0. */
static int
touch_signal(volatile unsigned char *p, bool wr)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		if (wr)
			*p = 1;
		else
			(void)*p;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

/* Grows a one-page shared mapping of a three-page file in place. */
static void
test_file_grow_in_place(void)
{
	int fd = page_file(3);
	unsigned char *room, *p;
	char c;

	if (fd < 0)
		return;
	/* Three free pages: the mapping's first, then room to grow. */
	room = guest_anon(3 * P, PROT_NONE);
	if (!CHECK(room != MAP_FAILED, "mmap room")) {
		close(fd);
		return;
	}
	guest_munmap(room + P, 2 * P);
	p = guest_mmap(room, P, rw, MAP_SHARED | MAP_FIXED, fd, 0);
	if (CHECK(p == room, "mmap MAP_SHARED of the file")) {
		p = raw_mremap(p, P, 3 * P, 0, NULL);
		if (CHECK(p == room, "mremap grows in place")) {
			CHECK(p[0] == 'a' && p[P] == 'b' && p[2 * P] == 'c',
			    "grown part maps the file: %c%c%c", p[0], p[P],
			    p[2 * P]);
			p[2 * P + 5] = 'Z';
			CHECK(pread(fd, &c, 1, 2 * P + 5) == 1 && c == 'Z',
			    "write through the grown part reaches the file");
			c = 'Y';
			CHECK_OK(pwrite(fd, &c, 1, P + 7));
			CHECK(p[P + 7] == 'Y', "pwrite shows in the grown part");
		}
	}
	guest_munmap(room, 3 * P);
	close(fd);
}

/* Grows with MREMAP_MAYMOVE when a mapping blocks the way. */
static void
test_file_grow_move(void)
{
	int fd = page_file(2);
	unsigned char *p, *q, *guard;
	char c;

	if (fd < 0)
		return;
	p = guest_mmap(NULL, 2 * P, rw, MAP_SHARED, fd, 0);
	if (!CHECK(p != MAP_FAILED, "mmap")) {
		close(fd);
		return;
	}
	/* Keep one page, and block the one after it. */
	guest_munmap(p + P, P);
	guard = guest_mmap(p + P, P, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED, -1, 0);
	CHECK(guard == p + P, "guard mapping");
	p[1] = 'X';
	errno = 0;
	CHECK(raw_mremap(p, P, 2 * P, 0, NULL) == MAP_FAILED &&
	    errno == ENOMEM, "blocked growth without MAYMOVE: ENOMEM (errno %d)",
	    errno);
	q = raw_mremap(p, P, 3 * P, MREMAP_MAYMOVE, NULL);
	if (CHECK(q != MAP_FAILED && q != p, "mremap MAYMOVE moves")) {
		CHECK(q[0] == 'a' && q[1] == 'X' && q[P] == 'b',
		    "moved mapping keeps the file's bytes");
		q[P + 3] = 'W';
		CHECK(pread(fd, &c, 1, P + 3) == 1 && c == 'W',
		    "moved mapping writes the file");
		CHECK(guest_probe_read(p) == EFAULT, "old range unmapped");
		/* The third page lies wholly past the end: SIGBUS. */
		CHECK_EQ(touch_signal(q + 2 * P, false), SIGBUS);
		CHECK_OK(ftruncate(fd, 3 * P));
		CHECK(q[2 * P] == 0, "page past the old end reads zero");
		guest_munmap(q, 3 * P);
	}
	guest_munmap(guard, P);
	close(fd);
}

/* Shared anonymous memory moves, stays shared, and grows past its object. */
static void
test_anon_shared(void)
{
	unsigned char *p, *q, *room;
	int st = -1;
	pid_t pid;

	p = guest_mmap(NULL, 2 * P, rw, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	room = guest_anon(2 * P, PROT_NONE);
	if (!CHECK(p != MAP_FAILED && room != MAP_FAILED, "mmap"))
		return;
	p[0] = 'x';
	p[P] = 'y';
	q = raw_mremap(p, 2 * P, 2 * P, MREMAP_MAYMOVE | MREMAP_FIXED, room);
	if (!CHECK(q == room, "MREMAP_FIXED move of shared anonymous memory"))
		return;
	CHECK(q[0] == 'x' && q[P] == 'y', "moved shared memory keeps bytes");
	pid = fork();
	if (pid == 0) {
		q[1] = 'c';
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && st == 0, "child");
	CHECK(q[1] == 'c', "moved memory still shared with a child");
	p = raw_mremap(q, 2 * P, 4 * P, MREMAP_MAYMOVE, NULL);
	if (CHECK(p != MAP_FAILED, "growing shared anonymous memory")) {
		CHECK(p[0] == 'x' && p[1] == 'c', "grown keeps bytes");
		CHECK_EQ(touch_signal(p + 2 * P, true), SIGBUS);
		guest_munmap(p, 4 * P);
	}
}

/* A shared mapping of a host file opened read-only grows as well. */
static void
test_rdonly_host_file(void)
{
	int fd = open("/etc/passwd", O_RDONLY);
	unsigned char *p, *q;

	if (!CHECK(fd >= 0, "open /etc/passwd"))
		return;
	p = guest_mmap(NULL, P, PROT_READ, MAP_SHARED, fd, 0);
	if (CHECK(p != MAP_FAILED, "mmap /etc/passwd shared")) {
		q = raw_mremap(p, P, 2 * P, MREMAP_MAYMOVE, NULL);
		if (CHECK(q != MAP_FAILED, "mremap of it grows"))
			CHECK(memcmp(q, "root:", 5) == 0, "its bytes kept");
		guest_munmap(q != MAP_FAILED ? q : p, q != MAP_FAILED ? 2 * P :
		    P);
	}
	close(fd);
}

/* The classic mprotect check: no write access the descriptor lacked. */
static void
test_mprotect_rdonly(void)
{
	int fd = page_file(1), ro;
	char path[64];
	unsigned char *p;

	if (fd < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY);
	if (!CHECK(ro >= 0, "reopen read-only")) {
		close(fd);
		return;
	}
	p = guest_mmap(NULL, P, PROT_READ, MAP_SHARED, ro, 0);
	if (CHECK(p != MAP_FAILED, "mmap PROT_READ MAP_SHARED of O_RDONLY")) {
		CHECK_ERR(guest_mprotect(p, P, rw), EACCES);
		CHECK_OK(guest_mprotect(p, P, PROT_READ));
		CHECK(p[0] == 'a', "still readable");
		guest_munmap(p, P);
	}
	errno = 0;
	CHECK(guest_mmap(NULL, P, rw, MAP_SHARED, ro, 0) == MAP_FAILED &&
	    errno == EACCES, "writable shared mmap of O_RDONLY: EACCES");
	p = guest_mmap(NULL, P, PROT_READ, MAP_PRIVATE, ro, 0);
	if (CHECK(p != MAP_FAILED, "mmap MAP_PRIVATE")) {
		CHECK_OK(guest_mprotect(p, P, rw));
		p[0] = 'q';
		guest_munmap(p, P);
	}
	close(ro);
	close(fd);
}

static void
tests(void)
{
	test_file_grow_in_place();
	test_file_grow_move();
	test_anon_shared();
	test_rdonly_host_file();
	test_mprotect_rdonly();
}

int
main(void)
{
	return guest_main_twice(tests);
}
