/*
 * Unit tests of the RAM file's extent allocator (vkern/vm/vm_ram.c):
 * first-fit allocation, the memory limit, coalescing of freed extents,
 * in-place growth and zeroing of what is freed.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/fake_platform.h"
#include "vkern/vm/vm_ram.h"

#define PG 4096ULL

/* 64 pages of offsets, at most 32 of them allocated at once. */
#define SPACE (64 * PG)
#define LIMIT (32 * PG)

static void
ram_setup(void)
{
	vm_ram_init(SPACE, LIMIT);
}

static uint64_t
alloc_ok(uint64_t len)
{
	uint64_t off = VM_NORAM;

	cr_assert_eq(vm_ram_alloc(len, &off), 0, "alloc of %#llx failed",
	    (unsigned long long)len);
	return off;
}

Test(vm_ram, init_sets_limit_and_one_free_extent, .init = ram_setup)
{
	cr_assert_eq(vm_ram_limit(), LIMIT);
	cr_assert_eq(vm_ram_used(), 0);
	cr_assert_eq(vm_ram_nfree(), 1);
}

Test(vm_ram, alloc_fresh_starts_at_offset_zero, .init = ram_setup)
{
	uint64_t off = alloc_ok(3 * PG);

	cr_assert_eq(off, 0);
	cr_assert_eq(vm_ram_used(), 3 * PG);
	cr_assert_eq(vm_ram_nfree(), 1);
}

Test(vm_ram, alloc_consecutive_are_adjacent, .init = ram_setup)
{
	uint64_t a = alloc_ok(2 * PG), b = alloc_ok(PG), c = alloc_ok(5 * PG);

	cr_assert_eq(b, a + 2 * PG);
	cr_assert_eq(c, b + PG);
	cr_assert_eq(vm_ram_used(), 8 * PG);
}

/* Requests against LIMIT (32 pages) with 30 pages already taken. */
struct alloc_case {
	uint64_t len;
	int expected;
};

ParameterizedTestParameters(vm_ram, alloc_near_limit_returns_expected)
{
	static struct alloc_case cases[] = {
		{ PG, 0 },
		{ 2 * PG, 0 },
		{ 3 * PG, -ENOMEM },
		{ 32 * PG, -ENOMEM },
		{ 64 * PG, -ENOMEM },
	};

	return cr_make_param_array(struct alloc_case, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct alloc_case *c, vm_ram,
    alloc_near_limit_returns_expected, .init = ram_setup)
{
	uint64_t off = VM_NORAM;
	int r;

	alloc_ok(30 * PG);
	r = vm_ram_alloc(c->len, &off);
	cr_assert_eq(r, c->expected, "alloc %#llx: got %d, want %d",
	    (unsigned long long)c->len, r, c->expected);
	if (r == 0) {
		cr_assert_eq(off, 30 * PG);
		cr_assert_eq(vm_ram_used(), 30 * PG + c->len);
	} else {
		cr_assert_eq(off, VM_NORAM, "failed alloc wrote *offp");
		cr_assert_eq(vm_ram_used(), 30 * PG);
	}
}

Test(vm_ram, alloc_fragmented_space_fails_enomem)
{
	uint64_t off = VM_NORAM;

	/* The limit allows 8 pages, but only 4 pages of offsets exist. */
	vm_ram_init(4 * PG, 8 * PG);
	cr_assert_eq(vm_ram_alloc(5 * PG, &off), -ENOMEM);
	cr_assert_eq(vm_ram_used(), 0);
	cr_assert_eq(alloc_ok(4 * PG), 0);
	cr_assert_eq(vm_ram_alloc(PG, &off), -ENOMEM);
	cr_assert_eq(vm_ram_nfree(), 0);
}

Test(vm_ram, alloc_first_fit_reuses_lowest_hole, .init = ram_setup)
{
	uint64_t a = alloc_ok(2 * PG);

	alloc_ok(PG);
	vm_ram_free(a, 2 * PG);
	cr_assert_eq(vm_ram_nfree(), 2);
	/* One page fits the hole at 0; two more pages no longer do. */
	cr_assert_eq(alloc_ok(PG), 0);
	cr_assert_eq(alloc_ok(2 * PG), 3 * PG);
	cr_assert_eq(alloc_ok(PG), PG);
	cr_assert_eq(vm_ram_nfree(), 1);
}

Test(vm_ram, free_coalesces_with_both_neighbours, .init = ram_setup)
{
	uint64_t a = alloc_ok(PG), b = alloc_ok(2 * PG), c = alloc_ok(PG);

	alloc_ok(PG);   /* keeps c's right neighbour allocated */
	vm_ram_free(a, PG);
	cr_assert_eq(vm_ram_nfree(), 2);
	vm_ram_free(c, PG);
	cr_assert_eq(vm_ram_nfree(), 3);
	/* b joins a's extent on its left and c's on its right. */
	vm_ram_free(b, 2 * PG);
	cr_assert_eq(vm_ram_nfree(), 2);
	cr_assert_eq(vm_ram_used(), PG);
	cr_assert_eq(alloc_ok(4 * PG), 0, "the merged hole is not first fit");
}

Test(vm_ram, free_merges_with_right_neighbour_only, .init = ram_setup)
{
	uint64_t a = alloc_ok(PG), b = alloc_ok(PG);

	(void)a;
	vm_ram_free(b, PG);
	/* b touches the big free tail: still one extent, starting at b. */
	cr_assert_eq(vm_ram_nfree(), 1);
	cr_assert_eq(alloc_ok(PG), b);
}

Test(vm_ram, free_all_restores_single_extent, .init = ram_setup)
{
	uint64_t off[8];

	for (int i = 0; i < 8; i++)
		off[i] = alloc_ok(PG);
	/* Free the even ones, then the odd ones, out of order. */
	for (int i = 0; i < 8; i += 2)
		vm_ram_free(off[i], PG);
	cr_assert_eq(vm_ram_nfree(), 5);
	for (int i = 7; i > 0; i -= 2)
		vm_ram_free(off[i], PG);
	cr_assert_eq(vm_ram_nfree(), 1);
	cr_assert_eq(vm_ram_used(), 0);
	cr_assert_eq(alloc_ok(LIMIT), 0);
}

Test(vm_ram, free_part_of_extent_keeps_the_rest, .init = ram_setup)
{
	uint64_t a = alloc_ok(4 * PG);

	vm_ram_free(a + PG, 2 * PG);
	cr_assert_eq(vm_ram_used(), 2 * PG);
	cr_assert_eq(vm_ram_nfree(), 2);
	cr_assert_eq(alloc_ok(2 * PG), a + PG);
}

Test(vm_ram, free_discards_and_reads_zero, .init = ram_setup)
{
	uint8_t *base = plat_ram_base();
	uint64_t a = alloc_ok(2 * PG), b = alloc_ok(PG);

	memset(base + a, 0xa5, 2 * PG);
	memset(base + b, 0x5a, PG);
	fake_reset();
	vm_ram_free(a, 2 * PG);
	/* Reallocated, the range reads zero; the neighbour is untouched. */
	cr_assert_eq(alloc_ok(2 * PG), a);
	cr_assert_eq(fake_ndiscards, 1);
	cr_assert_eq(fake_discards[0].off, a);
	cr_assert_eq(fake_discards[0].len, 2 * PG);
	for (uint64_t i = 0; i < 2 * PG; i++)
		cr_assert_eq(base[a + i], 0, "byte %#llx not zero",
		    (unsigned long long)i);
	cr_assert_eq(base[b], 0x5a);
	cr_assert_eq(base[b + PG - 1], 0x5a);
}

Test(vm_ram, frees_are_discarded_merged_before_the_next_alloc,
    .init = ram_setup)
{
	uint64_t a = alloc_ok(PG), b = alloc_ok(PG), c = alloc_ok(PG);
	uint64_t d = alloc_ok(PG);

	fake_reset();
	/* Out of order, and with a gap at c: two host discards, not three. */
	vm_ram_free(b, PG);
	vm_ram_free(d, PG);
	vm_ram_free(a, PG);
	cr_assert_eq(fake_ndiscards, 0, "a discard before any allocation");
	(void)alloc_ok(8 * PG);
	cr_assert_eq(fake_ndiscards, 2);
	cr_assert_eq(fake_discards[0].off, a);
	cr_assert_eq(fake_discards[0].len, 2 * PG);
	cr_assert_eq(fake_discards[1].off, d);
	cr_assert_eq(fake_discards[1].len, PG);
	cr_assert_eq(vm_ram_used(), 9 * PG);
	(void)c;
}

Test(vm_ram, extend_into_free_tail_succeeds, .init = ram_setup)
{
	uint64_t a = alloc_ok(2 * PG);

	cr_assert_eq(vm_ram_extend(a, 2 * PG, 3 * PG), 0);
	cr_assert_eq(vm_ram_used(), 5 * PG);
	/* The next allocation starts after the grown extent. */
	cr_assert_eq(alloc_ok(PG), a + 5 * PG);
}

Test(vm_ram, extend_blocked_by_neighbour_fails_enomem, .init = ram_setup)
{
	uint64_t a = alloc_ok(2 * PG);

	alloc_ok(PG);
	cr_assert_eq(vm_ram_extend(a, 2 * PG, PG), -ENOMEM);
	cr_assert_eq(vm_ram_used(), 3 * PG);
}

Test(vm_ram, extend_hole_too_small_fails_enomem, .init = ram_setup)
{
	uint64_t a = alloc_ok(PG), b = alloc_ok(2 * PG);

	alloc_ok(PG);
	vm_ram_free(b, 2 * PG);
	cr_assert_eq(vm_ram_extend(a, PG, 3 * PG), -ENOMEM);
	cr_assert_eq(vm_ram_nfree(), 2);
	cr_assert_eq(vm_ram_used(), 2 * PG);
}

Test(vm_ram, extend_filling_hole_removes_extent, .init = ram_setup)
{
	uint64_t a = alloc_ok(PG), b = alloc_ok(2 * PG);

	alloc_ok(PG);
	vm_ram_free(b, 2 * PG);
	cr_assert_eq(vm_ram_nfree(), 2);
	cr_assert_eq(vm_ram_extend(a, PG, 2 * PG), 0);
	cr_assert_eq(vm_ram_nfree(), 1);
	cr_assert_eq(vm_ram_used(), 4 * PG);
}

Test(vm_ram, extend_over_limit_fails_enomem, .init = ram_setup)
{
	uint64_t a = alloc_ok(30 * PG);

	cr_assert_eq(vm_ram_extend(a, 30 * PG, 3 * PG), -ENOMEM);
	cr_assert_eq(vm_ram_used(), 30 * PG);
	cr_assert_eq(vm_ram_extend(a, 30 * PG, 2 * PG), 0);
	cr_assert_eq(vm_ram_used(), LIMIT);
}

Test(vm_ram, free_twice_aborts, .init = ram_setup, .signal = SIGABRT)
{
	uint64_t a = alloc_ok(PG);

	alloc_ok(PG);
	vm_ram_free(a, PG);
	vm_ram_free(a, PG);
}

Test(vm_ram, alloc_unaligned_len_aborts, .init = ram_setup,
    .signal = SIGABRT)
{
	uint64_t off;

	vm_ram_alloc(PG + 1, &off);
}

Test(vm_ram, init_unaligned_aborts, .signal = SIGABRT)
{
	vm_ram_init(SPACE + 12, LIMIT);
}
