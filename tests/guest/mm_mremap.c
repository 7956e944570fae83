/*
 * Verifies mremap(2) on private anonymous memory: growing in place, moving
 * with MREMAP_MAYMOVE, shrinking (shared memory too), and MREMAP_FIXED all
 * keep the contents and leave the old range unmapped, and the refusals
 * give the errno Linux gives (ENOMEM when growth is blocked, EINVAL for
 * bad flags, EFAULT for an unmapped or split source).  A mapping whose
 * pages a fork left partly shared and partly copied moves whole.  A
 * MREMAP_FIXED move into the middle of another mapping, which splits it,
 * keeps the moved page whatever the growth of the process's map.
 */
#include <stdint.h>
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

/* Tags each page of [p, p+len) with its index, salted. */
static void
tag_pages(unsigned char *p, size_t len, uint64_t salt)
{
	for (size_t i = 0; i < len / P; i++)
		*(uint64_t *)(p + i * P) = i ^ salt;
}

/* Counts the pages of [p, p+len) whose tag is wrong. */
static size_t
count_bad_tags(const unsigned char *p, size_t len, uint64_t salt)
{
	size_t bad = 0;

	for (size_t i = 0; i < len / P; i++)
		if (*(const uint64_t *)(p + i * P) != (i ^ salt))
			bad++;
	return bad;
}

/*
 * Maps n pages and makes the last one a separate read-only mapping, so the
 * first n - 1 pages cannot grow in place.
 */
static unsigned char *
map_blocked(size_t n)
{
	unsigned char *p;

	p = guest_anon(n * P, rw);
	if (p == MAP_FAILED)
		return NULL;
	p[(n - 1) * P] = 0xbb;
	if (guest_mprotect(p + (n - 1) * P, P, PROT_READ) != 0)
		return NULL;
	return p;
}

static void
test_grow_in_place(void)
{
	unsigned char *p, *q;

	p = guest_anon(2 * P, rw);
	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	memset(p, 0x5c, P);
	CHECK_OK(guest_munmap(p + P, P));
	q = raw_mremap(p, P, 2 * P, 0, NULL);
	CHECK(q == p, "grow into the free page after: %p, want %p", q, p);
	if (q == MAP_FAILED)
		return;
	CHECK_EQ(q[0], 0x5c);
	CHECK_EQ(q[P - 1], 0x5c);
	CHECK_EQ(q[P], 0);
	CHECK_EQ(guest_probe_write(q + P), 0);
	CHECK_OK(guest_munmap(q, 2 * P));
}

static void
test_grow_blocked(void)
{
	unsigned char *p, *q;

	p = map_blocked(2);
	if (!CHECK(p != NULL, "map two pages, second read-only"))
		return;
	memset(p, 0x6d, P);
	CHECK_ERR(raw_mremap(p, P, 2 * P, 0, NULL), ENOMEM);
	CHECK_EQ(p[0], 0x6d);

	q = raw_mremap(p, P, 4 * P, MREMAP_MAYMOVE, NULL);
	if (CHECK(q != MAP_FAILED && q != p, "MAYMOVE moves: %p", q)) {
		CHECK_EQ(q[0], 0x6d);
		CHECK_EQ(q[P - 1], 0x6d);
		CHECK_EQ(q[3 * P + 5], 0);
		CHECK_EQ(guest_probe_write(q + 3 * P), 0);
		CHECK_EQ(guest_probe_write(p), EFAULT);
		/* The blocker is untouched. */
		CHECK_EQ(p[P], 0xbb);
		CHECK_EQ(guest_probe_write(p + P), EFAULT);
		CHECK_OK(guest_munmap(q, 4 * P));
	}
	CHECK_OK(guest_munmap(p, 2 * P));
}

static void
test_shrink(void)
{
	unsigned char *p, *q;

	p = guest_anon(4 * P, rw);
	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	tag_pages(p, 4 * P, 0x1234);
	q = raw_mremap(p, 4 * P, 2 * P, 0, NULL);
	CHECK(q == p, "shrink stays in place: %p, want %p", q, p);
	CHECK_EQ(count_bad_tags(p, 2 * P, 0x1234), 0);
	CHECK_EQ(guest_probe_write(p + 2 * P), EFAULT);
	CHECK_EQ(guest_probe_write(p + 3 * P), EFAULT);
	/* MAYMOVE does not make a shrink move. */
	q = raw_mremap(p, 2 * P, P, MREMAP_MAYMOVE, NULL);
	CHECK(q == p, "shrink with MAYMOVE stays: %p, want %p", q, p);
	CHECK_EQ(guest_probe_write(p + P), EFAULT);
	/* Same size is a no-op that returns the address. */
	q = raw_mremap(p, P, P, 0, NULL);
	CHECK(q == p, "same size: %p, want %p", q, p);
	CHECK_EQ(count_bad_tags(p, P, 0x1234), 0);
	CHECK_OK(guest_munmap(p, P));
}

static void
test_fixed(void)
{
	unsigned char *src, *dst, *q;

	src = guest_anon(2 * P, rw);
	dst = guest_anon(4 * P, rw);
	if (!CHECK(src != MAP_FAILED && dst != MAP_FAILED, "mmap"))
		return;
	tag_pages(src, 2 * P, 0xabc);
	memset(dst, 0x22, 4 * P);

	CHECK_ERR(raw_mremap(src, 2 * P, 2 * P, MREMAP_FIXED, dst + P), EINVAL);
	CHECK_ERR(raw_mremap(src, 2 * P, 2 * P, MREMAP_MAYMOVE | MREMAP_FIXED,
	    dst + 1), EINVAL);
	/* The new range may not overlap the old one. */
	CHECK_ERR(raw_mremap(src, 2 * P, 2 * P, MREMAP_MAYMOVE | MREMAP_FIXED,
	    src + P), EINVAL);

	/* Onto the middle of dst, replacing what was there. */
	q = raw_mremap(src, 2 * P, 2 * P, MREMAP_MAYMOVE | MREMAP_FIXED,
	    dst + P);
	CHECK(q == dst + P, "MREMAP_FIXED: %p, want %p", q, dst + P);
	CHECK_EQ(count_bad_tags(dst + P, 2 * P, 0xabc), 0);
	CHECK_EQ(guest_probe_write(src), EFAULT);
	CHECK_EQ(dst[0], 0x22);
	CHECK_EQ(dst[3 * P], 0x22);
	CHECK_EQ(dst[P + 100], 0);

	/* A growing move to a fixed place, into a range we own. */
	src = guest_anon(3 * P, PROT_NONE);
	if (!CHECK(src != MAP_FAILED, "mmap"))
		return;
	q = raw_mremap(dst + P, 2 * P, 3 * P, MREMAP_MAYMOVE | MREMAP_FIXED,
	    src);
	if (CHECK(q == src, "grow with MREMAP_FIXED: %p, want %p", q, src)) {
		CHECK_EQ(count_bad_tags(src, 2 * P, 0xabc), 0);
		CHECK_EQ(src[2 * P + 7], 0);
		CHECK_EQ(guest_probe_write(src + 2 * P), 0);
	}
	CHECK_OK(guest_munmap(src, 3 * P));
	CHECK_EQ(guest_probe_write(dst + P), EFAULT);
	CHECK_OK(guest_munmap(dst, 4 * P));
}

static void
test_errors(void)
{
	unsigned char *p;

	p = guest_anon(2 * P, rw);
	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	CHECK_ERR(raw_mremap(p + 1, P, 2 * P, MREMAP_MAYMOVE, NULL), EINVAL);
	CHECK_ERR(raw_mremap(p, P, 0, MREMAP_MAYMOVE, NULL), EINVAL);
	CHECK_ERR(raw_mremap(p, P, 2 * P, 0x100, NULL), EINVAL);
	/* Two mappings (different protections) cannot be moved as one. */
	CHECK_OK(guest_mprotect(p + P, P, PROT_READ));
	CHECK_ERR(raw_mremap(p, 2 * P, 4 * P, MREMAP_MAYMOVE, NULL), EFAULT);
	CHECK_OK(guest_munmap(p, 2 * P));
	/* An unmapped source. */
	CHECK_ERR(raw_mremap(p, P, 2 * P, MREMAP_MAYMOVE, NULL), EFAULT);
}

/*
 * Shrinking unmaps the tail as munmap would, of a shared mapping too,
 * whose head stays shared with a child; the same size is a no-op.
 */
static void
test_shrink_shared(void)
{
	unsigned char *p = guest_mmap(NULL, 4 * P, rw, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0);
	int st = -1;
	long pid;

	if (!CHECK(p != MAP_FAILED, "mmap MAP_SHARED"))
		return;
	memset(p, 0x3c, 4 * P);
	CHECK_EQ((long)raw_mremap(p, 4 * P, 4 * P, 0, NULL), (long)p);
	CHECK_EQ((long)raw_mremap(p, 4 * P, 2 * P, 0, NULL), (long)p);
	CHECK_EQ(guest_probe_write(p + 2 * P), EFAULT);
	CHECK_EQ(p[2 * P - 1], 0x3c);
	pid = CHECK_OK(syscall(SYS_fork));
	if (pid == 0) {
		p[0] = 0x7e;
		syscall(SYS_exit_group, 0);
	}
	CHECK_EQ(syscall(SYS_wait4, pid, &st, 0, NULL), pid);
	CHECK_EQ(p[0], 0x7e);
	CHECK_OK(guest_munmap(p, 2 * P));
}

/* A 16 MiB region moved while growing to 32 MiB keeps every page. */
static void
test_large_move(void)
{
	size_t len = (size_t)16 << 20;
	unsigned char *p, *q;

	p = map_blocked(len / P + 1);
	if (!CHECK(p != NULL, "map 16 MiB and a blocker"))
		return;
	tag_pages(p, len, 0x5eed);
	q = raw_mremap(p, len, 2 * len, MREMAP_MAYMOVE, NULL);
	if (CHECK(q != MAP_FAILED && q != p, "16 MiB move: %p", q)) {
		CHECK_EQ(count_bad_tags(q, len, 0x5eed), 0);
		CHECK_EQ(q[2 * len - 1], 0);
		CHECK_EQ(guest_probe_write(p), EFAULT);
		CHECK_EQ(guest_probe_write(p + len - P), EFAULT);
		CHECK_OK(guest_munmap(q, 2 * len));
	}
	CHECK_OK(guest_munmap(p, len + P));
}

/*
 * One mapping, shared copy-on-write with a child, with pages written
 * since in its middle: it moves and grows as one.
 */
static void
test_after_fork(void)
{
	unsigned char *p, *q;
	int go[2], st = -1;
	char c;
	pid_t pid;

	p = guest_anon(64 * P, rw);
	if (!CHECK(p != MAP_FAILED, "mmap") || CHECK_OK(pipe(go)) != 0)
		return;
	tag_pages(p, 64 * P, 0x3f);
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		_exit(read(go[0], &c, 1) == 0 &&
		    count_bad_tags(p, 64 * P, 0x3f) == 0 ? 0 : 1);
	}
	close(go[0]);
	/* Copies of their own, while the child shares the rest. */
	p[20 * P + 8] = 1;
	p[50 * P + 8] = 2;
	q = raw_mremap(p, 64 * P, 128 * P, MREMAP_MAYMOVE, NULL);
	if (CHECK(q != MAP_FAILED, "mremap after fork")) {
		CHECK_EQ(count_bad_tags(q, 64 * P, 0x3f), 0);
		CHECK_EQ(q[20 * P + 8], 1);
		CHECK_EQ(q[50 * P + 8], 2);
		CHECK_EQ(q[100 * P], 0);
		p = q;
	}
	close(go[1]);
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "the child's pages: status %#x", st);
	CHECK_OK(guest_munmap(p, q != MAP_FAILED ? 128 * P : 64 * P));
}

/*
 * Moves a page into the middle of a three-page mapping, 80 times with
 * every result kept, so that one of the splits meets the map when it is
 * full and must grow (vkernel once read the source's entry after that).
 */
static void
test_fixed_split(void)
{
	unsigned char *t[80], *s, *q;
	int i, bad = 0;

	for (i = 0; i < 80; i++) {
		t[i] = guest_anon(3 * P, rw);
		s = guest_anon(P, PROT_READ);
		if (!CHECK(t[i] != MAP_FAILED && s != MAP_FAILED, "mmap"))
			break;
		q = raw_mremap(s, P, P, MREMAP_MAYMOVE | MREMAP_FIXED,
		    t[i] + P);
		if (q != t[i] + P || guest_probe_write(q) != EFAULT ||
		    guest_probe_write(t[i]) != 0)
			bad++;
	}
	CHECK_EQ(bad, 0);
	while (i-- > 0)
		CHECK_OK(guest_munmap(t[i], 3 * P));
}

int
main(void)
{
	test_grow_in_place();
	test_grow_blocked();
	test_shrink();
	test_shrink_shared();
	test_fixed();
	test_errors();
	test_large_move();
	test_after_fork();
	test_fixed_split();
	return guest_done();
}
