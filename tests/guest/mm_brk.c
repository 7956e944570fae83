/*
 * Verifies brk(2): brk(0) reports the break, growing by megabytes gives
 * zeroed writable memory, shrinking unmaps it (and growing again brings back
 * zeros, not the old data), refused requests return the old break unchanged,
 * and the libc's sbrk() works on top.
 *
 * The raw syscall returns the new break, or the old one on failure; it never
 * returns -1, so results are compared with the break we expect.  No malloc()
 * runs while the test moves the break, since the libc's allocator may own
 * memory above the break we first saw.
 */
#include <stdint.h>
#include <unistd.h>

#include "guest.h"

#define P	GUEST_PAGE
#define MIB	((uintptr_t)1 << 20)

static uintptr_t
raw_brk(uintptr_t want)
{
	return (uintptr_t)syscall(SYS_brk, want);
}

static uintptr_t
page_up(uintptr_t a)
{
	return (a + P - 1) & ~(P - 1);
}

/* Counts the pages in [from, to) that are not all zero. */
static size_t
count_dirty(uintptr_t from, uintptr_t to)
{
	size_t dirty = 0;

	for (uintptr_t a = from; a < to; a += P) {
		const unsigned char *c = (const unsigned char *)a;

		for (size_t i = 0; i < P; i++)
			if (c[i] != 0) {
				dirty++;
				break;
			}
	}
	return dirty;
}

static void
test_grow_shrink(uintptr_t base)
{
	uintptr_t top = base + 8 * MIB;
	uintptr_t r;
	size_t bad = 0;

	r = raw_brk(top);
	if (!CHECK(r == top, "brk grow 8 MiB: got %#lx, want %#lx",
	    (unsigned long)r, (unsigned long)top))
		return;
	CHECK_EQ(raw_brk(0), top);
	/* The memory up to the old break's page end may hold libc data. */
	CHECK(count_dirty(page_up(base), top) == 0, "grown break is zeroed");
	for (uintptr_t a = page_up(base); a < top; a += P)
		*(uint64_t *)a = a * 3;
	for (uintptr_t a = page_up(base); a < top; a += P)
		if (*(uint64_t *)a != a * 3)
			bad++;
	CHECK(bad == 0, "%zu grown pages lost their data", bad);
	CHECK_EQ(guest_probe_write((void *)(top - 16)), 0);
	CHECK_EQ(guest_probe_write((void *)top), EFAULT);

	/* Shrinking by half unmaps the top half. */
	r = raw_brk(base + 4 * MIB);
	CHECK_EQ(r, base + 4 * MIB);
	CHECK_EQ(guest_probe_write((void *)page_up(base + 4 * MIB)), EFAULT);
	CHECK_EQ(guest_probe_write((void *)(top - 16)), EFAULT);
	CHECK_EQ(*(uint64_t *)(page_up(base) + P), (page_up(base) + P) * 3);

	/* Growing again gives fresh zero pages, not the data of before. */
	CHECK_EQ(raw_brk(top), top);
	CHECK(count_dirty(page_up(base + 4 * MIB), top) == 0,
	    "re-grown break is zeroed");

	CHECK_EQ(raw_brk(base), base);
	CHECK_EQ(raw_brk(0), base);
}

/* The break need not be page-aligned; Linux keeps the exact value. */
static void
test_unaligned(uintptr_t base)
{
	uintptr_t want = page_up(base) + 3 * P + 123;

	CHECK_EQ(raw_brk(want), want);
	CHECK_EQ(raw_brk(0), want);
	/* The page holding the break is mapped to its end. */
	CHECK_EQ(guest_probe_write((void *)(page_up(want) - 16)), 0);
	CHECK_EQ(guest_probe_write((void *)page_up(want)), EFAULT);
	CHECK_EQ(raw_brk(base), base);
}

/* A refused brk returns the current break and changes nothing. */
static void
test_refused(uintptr_t base)
{
	void *blocker;

	/* Below the start of the data segment. */
	CHECK_EQ(raw_brk(4096), base);
	/* Beyond the user half of the address space. */
	CHECK_EQ(raw_brk(0xffff800000000000UL), base);
	CHECK_EQ(raw_brk(0), base);

	/* Growing over an existing mapping is refused too. */
	blocker = guest_mmap((void *)(page_up(base) + 16 * P), P,
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED_NOREPLACE, -1, 0);
	if (blocker == (void *)(page_up(base) + 16 * P)) {
		CHECK_EQ(raw_brk(page_up(base) + 32 * P), base);
		CHECK_EQ(raw_brk(0), base);
		CHECK_EQ(guest_munmap(blocker, P), 0);
	} else {
		guest_note("mm_brk: no room above the break to test a blocked "
		    "grow");
		if (blocker != MAP_FAILED)
			guest_munmap(blocker, P);
	}
}

/*
 * glibc's sbrk() moves the break both ways.  musl's (since 1.2.1) refuses any
 * non-zero increment with ENOMEM, so that a program cannot move the break
 * under its allocator; then the break must stay where it was.
 */
static void
test_sbrk(uintptr_t base)
{
	void *old;

	CHECK_EQ((uintptr_t)sbrk(0), base);
	errno = 0;
	old = sbrk(64 * P);
#ifndef __GLIBC__
	if (old == (void *)-1 && errno == ENOMEM) {
		CHECK_EQ(raw_brk(0), base);
		return;
	}
#endif
	CHECK(old == (void *)base, "sbrk returns the old break: %p, want %#lx",
	    old, (unsigned long)base);
	CHECK_EQ(raw_brk(0), base + 64 * P);
	CHECK_EQ(guest_probe_write((void *)(base + 64 * P - 16)), 0);
	old = sbrk(-64 * (intptr_t)P);
	CHECK(old == (void *)(base + 64 * P), "sbrk shrink returns %p", old);
	CHECK_EQ(raw_brk(0), base);
}

int
main(void)
{
	uintptr_t base;

	base = raw_brk(0);
	if (!CHECK(base != 0 && base != (uintptr_t)-1, "brk(0) = %#lx",
	    (unsigned long)base))
		return guest_done();
	/* Asking for the break we have is a no-op that returns it. */
	CHECK_EQ(raw_brk(base), base);
	test_grow_shrink(base);
	test_unaligned(base);
	test_refused(base);
	test_sbrk(base);
	return guest_done();
}
