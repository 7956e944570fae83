/*
 * Verifies mremap(2) with MREMAP_DONTUNMAP on private anonymous memory:
 * the pages always move (to a place of the kernel's choosing, to the
 * hint when it is free, or to MREMAP_FIXED's address), the new range has
 * the data, and the old range stays mapped with its protection, reading
 * zero; also after fork, where the pages were shared copy-on-write.  The
 * refusals are Linux's: EINVAL without MREMAP_MAYMOVE, for differing
 * sizes, and for a new address that is unaligned, above the top or
 * overlapping the old range.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "guest.h"

#define P	GUEST_PAGE
#define N	8

#define MOVE	(MREMAP_MAYMOVE | MREMAP_DONTUNMAP)

static const int rw = PROT_READ | PROT_WRITE;

/*
 * Raw, because glibc's wrapper passes no new address without
 * MREMAP_FIXED, and the kernel checks MREMAP_DONTUNMAP's hint.
 */
static unsigned char *
raw_mremap(void *old, size_t old_len, size_t new_len, int flags, void *new)
{
	return (unsigned char *)syscall(SYS_mremap, old, old_len, new_len,
	    flags, new);
}

/* n pages of private anonymous memory, page i holding i ^ salt. */
static unsigned char *
tagged(size_t n, uint64_t salt)
{
	unsigned char *p = guest_anon(n * P, rw);

	if (p == MAP_FAILED)
		return NULL;
	for (size_t i = 0; i < n; i++)
		*(uint64_t *)(p + i * P) = i ^ salt;
	return p;
}

/* Pages of [p, p + n pages) whose tag is not i ^ salt. */
static size_t
bad_tags(const unsigned char *p, size_t n, uint64_t salt)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += *(const uint64_t *)(p + i * P) != (i ^ salt);
	return bad;
}

/* Bytes of [p, p + len) that are not zero. */
static size_t
nonzero(const unsigned char *p, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += p[i] != 0;
	return n;
}

/* The old range still mapped, reading zero, and writable. */
static void
check_left(unsigned char *old, size_t len)
{
	CHECK_EQ(nonzero(old, len), 0);
	old[len - 1] = 9;
	CHECK_EQ(old[len - 1], 9);
}

/* Equal sizes and no address: the pages move, the old range reads zero. */
static void
check_equal(void)
{
	unsigned char *a = tagged(N, 0xa1), *b;

	if (a == NULL)
		return (void)CHECK(false, "mmap");
	b = raw_mremap(a, N * P, N * P, MOVE, NULL);
	CHECK(b != MAP_FAILED && b != a, "moved to %p from %p", b, a);
	if (b == MAP_FAILED || b == a)
		return;
	CHECK_EQ(bad_tags(b, N, 0xa1), 0);
	check_left(a, N * P);
	CHECK_OK(guest_munmap(a, N * P));
	CHECK_OK(guest_munmap(b, N * P));
}

/* A free hint is taken; MREMAP_FIXED replaces what was there. */
static void
check_placed(void)
{
	unsigned char *a = tagged(N, 0xb2), *hole = guest_anon(N * P, rw);
	unsigned char *h = tagged(N, 0xc3), *b;

	if (a == NULL || hole == MAP_FAILED || h == NULL)
		return (void)CHECK(false, "mmap");
	CHECK_OK(guest_munmap(hole, N * P));
	b = raw_mremap(a, N * P, N * P, MOVE, hole);
	CHECK(b == hole, "moved to %p, hint %p", b, hole);
	if (b != MAP_FAILED) {
		CHECK_EQ(bad_tags(b, N, 0xb2), 0);
		check_left(a, N * P);
	}
	b = raw_mremap(b, N * P, N * P, MOVE | MREMAP_FIXED, h);
	CHECK(b == h, "moved to %p, fixed %p", b, h);
	if (b == h) {
		CHECK_EQ(bad_tags(h, N, 0xb2), 0);
		check_left(hole, N * P);
	}
	guest_munmap(a, N * P);
	guest_munmap(hole, N * P);
	guest_munmap(h, N * P);
}

/* Part of a mapping: its neighbours keep their data. */
static void
check_part(void)
{
	unsigned char *a = tagged(N, 0xd4), *b;

	if (a == NULL)
		return (void)CHECK(false, "mmap");
	b = raw_mremap(a + 2 * P, 3 * P, 3 * P, MOVE, NULL);
	CHECK(b != MAP_FAILED, "mremap of pages 2-4");
	if (b == MAP_FAILED)
		return;
	CHECK_EQ(*(uint64_t *)b, 2 ^ 0xd4);
	CHECK_EQ(*(uint64_t *)(b + 2 * P), 4 ^ 0xd4);
	CHECK_EQ(*(uint64_t *)(a + P), 1 ^ 0xd4);
	CHECK_EQ(*(uint64_t *)(a + 5 * P), 5 ^ 0xd4);
	CHECK_EQ(nonzero(a + 2 * P, 3 * P), 0);
	guest_munmap(a, N * P);
	guest_munmap(b, 3 * P);
}

/* A read-only mapping's old range stays read-only. */
static void
check_prot(void)
{
	unsigned char *a = tagged(1, 0xe5), *b;

	if (a == NULL || guest_mprotect(a, P, PROT_READ) != 0)
		return (void)CHECK(false, "mmap");
	b = raw_mremap(a, P, P, MOVE, NULL);
	CHECK(b != MAP_FAILED, "mremap of a read-only page");
	if (b == MAP_FAILED)
		return;
	CHECK_EQ(*(uint64_t *)b, 0xe5);
	CHECK_EQ(guest_probe_read(a), 0);
	CHECK_EQ(guest_probe_write(a), EFAULT);
	CHECK_EQ(nonzero(a, P), 0);
	guest_munmap(a, P);
	guest_munmap(b, P);
}

/* In a child, after fork: copy-on-write pages move, the parent's stay. */
static void
check_fork(void)
{
	unsigned char *a = tagged(N, 0xf6), *h = guest_anon(N * P, rw);
	int st = -1;
	long pid;

	if (a == NULL || h == MAP_FAILED)
		return (void)CHECK(false, "mmap");
	pid = CHECK_OK(syscall(SYS_fork));
	if (pid == 0) {
		unsigned char *b = raw_mremap(a, N * P, N * P,
		    MOVE | MREMAP_FIXED, h);
		int bad = b != h || bad_tags(h, N, 0xf6) != 0 ||
		    nonzero(a, N * P) != 0;

		/* Writes to both ranges fault in pages of the child's own. */
		a[0] = 1;
		h[P] = 2;
		syscall(SYS_exit_group, bad || a[0] != 1 || h[P] != 2 ? 3 : 0);
	}
	if (pid > 0) {
		CHECK_EQ(syscall(SYS_wait4, pid, &st, 0, NULL), pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "child: status %#x", st);
	}
	CHECK_EQ(bad_tags(a, N, 0xf6), 0);
	CHECK_EQ(nonzero(h, N * P), 0);
	guest_munmap(a, N * P);
	guest_munmap(h, N * P);
}

static void
check_refused(void)
{
	unsigned char *a = tagged(N, 0x17);

	if (a == NULL)
		return (void)CHECK(false, "mmap");
	CHECK_ERR(raw_mremap(a, N * P, N * P, MREMAP_DONTUNMAP, NULL), EINVAL);
	CHECK_ERR(raw_mremap(a, N * P, 2 * N * P, MOVE, NULL), EINVAL);
	CHECK_ERR(raw_mremap(a, N * P, P, MOVE, NULL), EINVAL);
	CHECK_ERR(raw_mremap(a, P, P, MOVE, (void *)1), EINVAL);
	CHECK_ERR(raw_mremap(a, 2 * P, 2 * P, MOVE, a + P), EINVAL);
	CHECK_ERR(raw_mremap(a, P, P, MOVE, (void *)0x7ffffffff000UL), EINVAL);
	CHECK_ERR(raw_mremap(a, P, P, MOVE, (void *)-P), EINVAL);
	/* Nothing moved. */
	CHECK_EQ(bad_tags(a, N, 0x17), 0);
	guest_munmap(a, N * P);
}

int
main(void)
{
	check_equal();
	check_placed();
	check_part();
	check_prot();
	check_fork();
	check_refused();
	return guest_done();
}
