/*
 * Unit tests of the per-process vm map (vkern/vm/vm_map.c): the sorted
 * entry array and its queries, top-down placement, clipping and merging
 * on anon/remove/protect/move, RAM accounting, and the mirror of every
 * change into the platform space (recorded by the fake platform).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/fake_platform.h"
#include "vkern/kmem.h"
#include "vkern/vm/copyio.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_ram.h"

#define PG 4096ULL
#define MAP_MIN 0x10000ULL
#define MAP_MAX 0x7ffffffff000ULL
#define A 0x100000ULL          /* a convenient guest address */
#define B 0x40000000ULL        /* far from A */

#define R PLAT_PROT_READ
#define W PLAT_PROT_WRITE
#define X PLAT_PROT_EXEC
#define RW (R | W)

static struct vm_map m;

static void
map_setup(void)
{
	vm_ram_init(plat_ram_size(), 256 * PG);
	vm_map_init(&m, NULL, MAP_MIN, MAP_MAX);
}

/*
 * Only 8 pages of RAM may be allocated, beside the map's first 32 entries
 * (charged to the same limit).
 */
static void
map_setup_tight(void)
{
	vm_ram_init(plat_ram_size(), 8 * PG + VK_ROUND_UP(kmem_size(32 *
	    sizeof(struct vm_entry)), PG));
	vm_map_init(&m, NULL, MAP_MIN, MAP_MAX);
}

/* A map mirrored into a (fake) platform space. */
static void
map_setup_space(void)
{
	vm_ram_init(plat_ram_size(), 256 * PG);
	vm_map_init(&m, fake_space(), MAP_MIN, MAP_MAX);
	fake_reset();
}

static void
map_teardown(void)
{
	vm_map_destroy(&m);
}

static void
anon_ok(uint64_t start, uint64_t len, int prot, unsigned flags)
{
	int r = vm_map_anon(&m, start, len, prot, flags);

	cr_assert_eq(r, 0, "anon %#llx+%#llx: %d", (unsigned long long)start,
	    (unsigned long long)len, r);
}

static void
check_entry(unsigned i, uint64_t start, uint64_t end, int prot)
{
	cr_assert_lt(i, m.n, "entry %u missing (n = %u)", i, m.n);
	cr_assert_eq(m.ent[i].start, start, "entry %u start %#llx", i,
	    (unsigned long long)m.ent[i].start);
	cr_assert_eq(m.ent[i].end, end, "entry %u end %#llx", i,
	    (unsigned long long)m.ent[i].end);
	cr_assert_eq(m.ent[i].prot, prot, "entry %u prot %d", i,
	    m.ent[i].prot);
}

static uint8_t *
ram_at(uint64_t ramoff)
{
	return (uint8_t *)plat_ram_base() + ramoff;
}

static void
check_call(unsigned i, enum fake_space_op op, uint64_t va, uint64_t len)
{
	cr_assert_lt(i, fake_space_ncalls, "call %u missing (%u calls)", i,
	    fake_space_ncalls);
	cr_assert_eq(fake_space_calls[i].op, op, "call %u op %d", i,
	    fake_space_calls[i].op);
	cr_assert_eq(fake_space_calls[i].sp, fake_space());
	cr_assert_eq(fake_space_calls[i].va, va, "call %u va %#llx", i,
	    (unsigned long long)fake_space_calls[i].va);
	cr_assert_eq(fake_space_calls[i].len, len, "call %u len %#llx", i,
	    (unsigned long long)fake_space_calls[i].len);
}

TestSuite(vm_map, .init = map_setup, .fini = map_teardown);

/* --- lookup and range queries --- */

Test(vm_map, lookup_empty_map_returns_null)
{
	cr_assert_null(vm_map_lookup(&m, A));
	cr_assert_eq(m.n, 0);
}

/*
 * A map that never held an entry (a process that unmapped everything,
 * then forked) has no array: unmapping from it changes nothing.
 */
Test(vm_map, remove_from_map_never_used)
{
	vm_map_remove(&m, A, A + PG);
	vm_map_remove(&m, 0, MAP_MAX + PG);
	cr_assert_eq(m.n, 0);
	cr_assert_null(vm_map_lookup(&m, A));
}

Test(vm_map, lookup_finds_containing_entry_only)
{
	struct vm_entry *e;

	anon_ok(A, 2 * PG, RW, 0);
	anon_ok(B, PG, R, 0);
	e = vm_map_lookup(&m, A + 2 * PG - 1);
	cr_assert_not_null(e);
	cr_assert_eq(e->start, A);
	cr_assert_eq(vm_map_lookup(&m, B), &m.ent[1]);
	cr_assert_null(vm_map_lookup(&m, A - 1));
	cr_assert_null(vm_map_lookup(&m, A + 2 * PG));
	cr_assert_null(vm_map_lookup(&m, B + PG));
}

/*
 * On [A, A+2) RW, [A+2, A+3) R, a hole [A+3, A+5), [A+5, A+6) PROT_NONE
 * (in pages): is the range free, and is it mapped without a gap?
 */
struct range_case {
	uint64_t start, end;
	bool is_free, is_mapped;
};

ParameterizedTestParameters(vm_map, range_queries_match_layout)
{
	static struct range_case cases[] = {
		{ A - PG, A, true, false },
		{ A - PG, A + 1, false, false },
		{ A, A + 3 * PG, false, true },
		{ A + PG, A + 2 * PG + 1, false, true },
		{ A + 3 * PG, A + 5 * PG, true, false },
		{ A + 2 * PG, A + 4 * PG, false, false },
		{ A + 4 * PG, A + 6 * PG, false, false },
		{ A + 5 * PG, A + 6 * PG, false, true },
		{ A + 6 * PG, A + 7 * PG, true, false },
		{ A, A + 6 * PG, false, false },
	};

	return cr_make_param_array(struct range_case, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct range_case *c, vm_map, range_queries_match_layout)
{
	anon_ok(A, 2 * PG, RW, 0);
	anon_ok(A + 2 * PG, PG, R, 0);
	anon_ok(A + 5 * PG, PG, 0, 0);
	cr_assert_eq(m.n, 3);
	cr_assert_eq(vm_map_range_free(&m, c->start, c->end), c->is_free,
	    "range_free(%#llx, %#llx)", (unsigned long long)c->start,
	    (unsigned long long)c->end);
	cr_assert_eq(vm_map_range_mapped(&m, c->start, c->end), c->is_mapped,
	    "range_mapped(%#llx, %#llx)", (unsigned long long)c->start,
	    (unsigned long long)c->end);
}

Test(vm_map, range_has_finds_flagged_entry)
{
	anon_ok(A, PG, RW, 0);
	anon_ok(A + PG, PG, RW, VME_STACK);
	cr_assert(vm_map_range_has(&m, A, A + 2 * PG, VME_STACK));
	cr_assert(vm_map_range_has(&m, A + PG, A + PG + 1, VME_STACK));
	cr_assert_not(vm_map_range_has(&m, A, A + PG, VME_STACK));
	cr_assert_not(vm_map_range_has(&m, A, A + 2 * PG, VME_HEAP));
}

/* Guest ranges: below the map's top, never wrapping around. */
struct user_case {
	uint64_t start, len;
	bool ok;
};

ParameterizedTestParameters(vm_map, range_user_stays_below_the_top)
{
	static struct user_case cases[] = {
		{ A, PG, true },
		{ MAP_MAX - PG, PG, true },
		{ 0, MAP_MAX, true },
		{ MAP_MAX - PG, 2 * PG, false },
		{ MAP_MAX, PG, false },
		{ A, MAP_MAX, false },
		{ A, 0 - PG, false },
		{ 0 - PG, PG, false },
		{ 0 - PG, 2 * PG, false },
		{ 0, UINT64_MAX, false },
	};

	return cr_make_param_array(struct user_case, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct user_case *c, vm_map, range_user_stays_below_the_top)
{
	cr_assert_eq(vm_map_range_user(&m, c->start, c->len), c->ok,
	    "range_user(%#llx, %#llx)", (unsigned long long)c->start,
	    (unsigned long long)c->len);
}

/* --- find_space --- */

Test(vm_map, find_space_empty_map_returns_top)
{
	uint64_t va = 0;

	cr_assert_eq(vm_map_find_space(&m, 4 * PG, MAP_MIN, MAP_MAX, &va), 0);
	cr_assert_eq(va, MAP_MAX - 4 * PG);
}

/*
 * Entries at [A, A+1), [A+3, A+4) and [A+8, A+10) (pages); each row asks
 * for len bytes in [lo, hi) and expects the highest fit or -ENOMEM.
 */
struct space_case {
	uint64_t len, lo, hi;
	int expected;
	uint64_t va;
};

ParameterizedTestParameters(vm_map, find_space_returns_highest_fit)
{
	static struct space_case cases[] = {
		{ PG, A, A + 10 * PG, 0, A + 7 * PG },
		{ 4 * PG, A, A + 10 * PG, 0, A + 4 * PG },
		{ 5 * PG, A, A + 10 * PG, -ENOMEM, 0 },
		{ 2 * PG, A, A + 4 * PG, 0, A + PG },
		{ PG, A + 2 * PG, A + 4 * PG, 0, A + 2 * PG },
		{ 2 * PG, A + 2 * PG, A + 4 * PG, -ENOMEM, 0 },
		{ PG, MAP_MIN, A + PG, 0, A - PG },
		{ PG, A, A + 9 * PG, 0, A + 7 * PG },
		{ 3 * PG, A + PG, A + 9 * PG, 0, A + 5 * PG },
		{ PG, A + 8 * PG, A + 10 * PG, -ENOMEM, 0 },
		{ PG, A + 10 * PG, A + 11 * PG, 0, A + 10 * PG },
		{ 2 * PG, A + 10 * PG, A + 11 * PG, -ENOMEM, 0 },
		{ 6 * PG, MAP_MIN, A + 10 * PG, 0, A - 6 * PG },
	};

	return cr_make_param_array(struct space_case, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct space_case *c, vm_map,
    find_space_returns_highest_fit)
{
	uint64_t va = 0xdead000;
	int r;

	anon_ok(A, PG, RW, 0);
	anon_ok(A + 3 * PG, PG, R, 0);
	anon_ok(A + 8 * PG, 2 * PG, RW, 0);
	r = vm_map_find_space(&m, c->len, c->lo, c->hi, &va);
	cr_assert_eq(r, c->expected, "len %#llx in [%#llx, %#llx): %d",
	    (unsigned long long)c->len, (unsigned long long)c->lo,
	    (unsigned long long)c->hi, r);
	if (r == 0) {
		cr_assert_eq(va, c->va, "got %#llx, want %#llx",
		    (unsigned long long)va, (unsigned long long)c->va);
		cr_assert(vm_map_range_free(&m, va, va + c->len));
	} else {
		cr_assert_eq(va, 0xdead000, "failure wrote *vap");
	}
}

/* --- anon --- */

Test(vm_map, anon_maps_range_with_fresh_ram)
{
	struct vm_entry *e;

	anon_ok(A, 4 * PG, RW, VME_HEAP);
	cr_assert_eq(m.n, 1);
	check_entry(0, A, A + 4 * PG, RW);
	e = &m.ent[0];
	cr_assert_eq(e->flags, VME_HEAP);
	cr_assert_neq(e->ramoff, VM_NORAM);
	cr_assert_eq(vm_ram_used(), 4 * PG);
	for (uint64_t i = 0; i < 4 * PG; i += 512)
		cr_assert_eq(ram_at(e->ramoff)[i], 0);
}

Test(vm_map, anon_prot_none_takes_no_ram)
{
	anon_ok(A, 16 * PG, 0, 0);
	cr_assert_eq(m.n, 1);
	check_entry(0, A, A + 16 * PG, 0);
	cr_assert_eq(m.ent[0].ramoff, VM_NORAM);
	cr_assert_eq(vm_ram_used(), 0);
}

Test(vm_map, anon_over_limit_fails_enomem, .init = map_setup_tight)
{
	cr_assert_eq(vm_map_anon(&m, A, 9 * PG, RW, 0), -ENOMEM);
	cr_assert_eq(m.n, 0);
	cr_assert_eq(vm_ram_used(), 0);
	/* PROT_NONE needs no RAM, so the same size succeeds. */
	cr_assert_eq(vm_map_anon(&m, A, 9 * PG, 0, 0), 0);
}

Test(vm_map, anon_overlap_aborts, .signal = SIGABRT)
{
	anon_ok(A, 2 * PG, RW, 0);
	vm_map_anon(&m, A + PG, 2 * PG, RW, 0);
}

Test(vm_map, anon_unaligned_aborts, .signal = SIGABRT)
{
	vm_map_anon(&m, A + 8, PG, RW, 0);
}

Test(vm_map, anon_adjacent_alike_merges)
{
	anon_ok(A, PG, RW, 0);
	anon_ok(A + PG, 2 * PG, RW, 0);
	cr_assert_eq(m.n, 1);
	check_entry(0, A, A + 3 * PG, RW);
	cr_assert_eq(vm_ram_used(), 3 * PG);
}

Test(vm_map, anon_adjacent_noncontiguous_ram_stays_split)
{
	/* The upper one gets RAM first, so the RAM runs the other way. */
	anon_ok(A + PG, PG, RW, 0);
	anon_ok(A, PG, RW, 0);
	cr_assert_eq(m.n, 2);
	check_entry(0, A, A + PG, RW);
	check_entry(1, A + PG, A + 2 * PG, RW);
	cr_assert_neq(m.ent[0].ramoff + PG, m.ent[1].ramoff);
}

Test(vm_map, anon_adjacent_other_prot_stays_split)
{
	anon_ok(A, PG, RW, 0);
	anon_ok(A + PG, PG, R, 0);
	cr_assert_eq(m.n, 2);
	check_entry(0, A, A + PG, RW);
	check_entry(1, A + PG, A + 2 * PG, R);
}

Test(vm_map, anon_adjacent_other_flags_stays_split)
{
	anon_ok(A, PG, RW, 0);
	anon_ok(A + PG, PG, RW, VME_STACK);
	cr_assert_eq(m.n, 2);
	cr_assert_eq(m.ent[1].flags, VME_STACK);
}

Test(vm_map, anon_adjacent_prot_none_merges)
{
	anon_ok(A + PG, PG, 0, 0);
	anon_ok(A, PG, 0, 0);
	cr_assert_eq(m.n, 1);
	check_entry(0, A, A + 2 * PG, 0);
}

Test(vm_map, anon_keeps_entries_sorted)
{
	static const uint64_t va[] = { 5, 1, 9, 3, 7 };

	for (unsigned i = 0; i < 5; i++)
		anon_ok(A + va[i] * 2 * PG, PG, RW, 0);
	cr_assert_eq(m.n, 5);
	for (unsigned i = 0; i < 5; i++)
		check_entry(i, A + (2 * i + 1) * 2 * PG,
		    A + (2 * i + 1) * 2 * PG + PG, RW);
}

/* --- reserve --- */

Test(vm_map, reserve_rounds_out_and_takes_no_ram)
{
	cr_assert_eq(vm_map_reserve(&m, A + 10, A + PG + 1), 0);
	cr_assert_eq(m.n, 1);
	check_entry(0, A, A + 2 * PG, 0);
	cr_assert_eq(m.ent[0].flags, VME_RESERVED);
	cr_assert_eq(m.ent[0].ramoff, VM_NORAM);
	cr_assert_eq(vm_ram_used(), 0);
	cr_assert(vm_map_range_has(&m, A, A + 1, VME_RESERVED));
}

Test(vm_map, reserve_over_entry_fails_eexist)
{
	anon_ok(A + PG, PG, RW, 0);
	cr_assert_eq(vm_map_reserve(&m, A, A + PG + 1), -EEXIST);
	cr_assert_eq(m.n, 1);
	cr_assert_eq(vm_map_reserve(&m, A, A + PG), 0);
	cr_assert_eq(m.n, 2);
}

/* --- remove --- */

Test(vm_map, remove_middle_splits_entry)
{
	uint64_t ramoff;

	anon_ok(A, 4 * PG, RW, 0);
	ramoff = m.ent[0].ramoff;
	vm_map_remove(&m, A + PG, A + 3 * PG);
	cr_assert_eq(m.n, 2);
	check_entry(0, A, A + PG, RW);
	check_entry(1, A + 3 * PG, A + 4 * PG, RW);
	cr_assert_eq(m.ent[0].ramoff, ramoff);
	cr_assert_eq(m.ent[1].ramoff, ramoff + 3 * PG);
	cr_assert_eq(vm_ram_used(), 2 * PG);
}

Test(vm_map, remove_frees_and_discards_exact_ram)
{
	uint64_t ramoff;

	anon_ok(A, 4 * PG, RW, 0);
	ramoff = m.ent[0].ramoff;
	memset(ram_at(ramoff), 0x77, 4 * PG);
	fake_reset();
	vm_map_remove(&m, A + 2 * PG, A + 3 * PG);
	vm_ram_flush();
	cr_assert_eq(fake_ndiscards, 1);
	cr_assert_eq(fake_discards[0].off, ramoff + 2 * PG);
	cr_assert_eq(fake_discards[0].len, PG);
	cr_assert_eq(ram_at(ramoff)[2 * PG], 0);
	cr_assert_eq(ram_at(ramoff)[2 * PG - 1], 0x77);
	cr_assert_eq(ram_at(ramoff)[3 * PG], 0x77);
}

Test(vm_map, remove_across_entries_and_holes_frees_all)
{
	anon_ok(A, 2 * PG, RW, 0);
	anon_ok(A + 3 * PG, PG, R, 0);
	anon_ok(A + 5 * PG, 3 * PG, 0, 0);
	anon_ok(B, PG, RW, 0);
	vm_map_remove(&m, A + PG, A + 6 * PG);
	cr_assert_eq(m.n, 3);
	check_entry(0, A, A + PG, RW);
	check_entry(1, A + 6 * PG, A + 8 * PG, 0);
	check_entry(2, B, B + PG, RW);
	cr_assert_eq(vm_ram_used(), 2 * PG);
}

Test(vm_map, remove_hole_changes_nothing)
{
	anon_ok(A, PG, RW, 0);
	vm_map_remove(&m, A + PG, A + 10 * PG);
	cr_assert_eq(m.n, 1);
	check_entry(0, A, A + PG, RW);
	cr_assert_eq(vm_ram_used(), PG);
}

/* --- protect --- */

Test(vm_map, protect_middle_splits_in_three)
{
	uint64_t ramoff;

	anon_ok(A, 4 * PG, RW, 0);
	ramoff = m.ent[0].ramoff;
	cr_assert_eq(vm_map_protect(&m, A + PG, A + 3 * PG, R), 0);
	cr_assert_eq(m.n, 3);
	check_entry(0, A, A + PG, RW);
	check_entry(1, A + PG, A + 3 * PG, R);
	check_entry(2, A + 3 * PG, A + 4 * PG, RW);
	cr_assert_eq(m.ent[1].ramoff, ramoff + PG);
	cr_assert_eq(m.ent[2].ramoff, ramoff + 3 * PG);
	cr_assert_eq(vm_ram_used(), 4 * PG);
}

Test(vm_map, protect_back_merges_into_one)
{
	anon_ok(A, 4 * PG, RW, 0);
	cr_assert_eq(vm_map_protect(&m, A + PG, A + 3 * PG, R), 0);
	cr_assert_eq(vm_map_protect(&m, A + PG, A + 3 * PG, RW), 0);
	cr_assert_eq(m.n, 1);
	check_entry(0, A, A + 4 * PG, RW);
}

Test(vm_map, protect_across_entries_merges_them)
{
	anon_ok(A, PG, RW, 0);
	anon_ok(A + PG, PG, R, 0);
	cr_assert_eq(m.n, 2);
	cr_assert_eq(vm_map_protect(&m, A, A + 2 * PG, R | X), 0);
	cr_assert_eq(m.n, 1);
	check_entry(0, A, A + 2 * PG, R | X);
}

Test(vm_map, protect_hole_fails_enomem)
{
	anon_ok(A, PG, RW, 0);
	anon_ok(A + 2 * PG, PG, RW, 0);
	cr_assert_eq(vm_map_protect(&m, A, A + 3 * PG, R), -ENOMEM);
	cr_assert_eq(m.n, 2);
	check_entry(0, A, A + PG, RW);
	check_entry(1, A + 2 * PG, A + 3 * PG, RW);
	cr_assert_eq(vm_map_protect(&m, A + 3 * PG, A + 4 * PG, R), -ENOMEM);
}

Test(vm_map, protect_none_to_rw_allocates_ram)
{
	void *hp;
	uint64_t n;

	anon_ok(A, 4 * PG, 0, 0);
	cr_assert_eq(vm_map_hostptr(&m, A + PG, 8, 0, &hp, &n), -EFAULT);
	cr_assert_eq(vm_map_protect(&m, A + PG, A + 2 * PG, RW), 0);
	cr_assert_eq(vm_ram_used(), PG);
	cr_assert_eq(m.n, 3);
	check_entry(1, A + PG, A + 2 * PG, RW);
	cr_assert_neq(m.ent[1].ramoff, VM_NORAM);
	cr_assert_eq(m.ent[0].ramoff, VM_NORAM);
	cr_assert_eq(m.ent[2].ramoff, VM_NORAM);
	cr_assert_eq(vm_map_hostptr(&m, A + PG, 8, W, &hp, &n), 0);
	cr_assert_eq(*(uint8_t *)hp, 0);
}

Test(vm_map, protect_none_to_rw_over_limit_fails_enomem,
    .init = map_setup_tight)
{
	anon_ok(A, 16 * PG, 0, 0);
	cr_assert_eq(vm_map_protect(&m, A, A + 16 * PG, RW), -ENOMEM);
	cr_assert_eq(vm_ram_used(), 0);
	cr_assert_eq(m.ent[0].ramoff, VM_NORAM);
	cr_assert_eq(m.ent[0].prot, 0);
	cr_assert_eq(vm_map_protect(&m, A, A + 8 * PG, RW), 0);
	cr_assert_eq(vm_ram_used(), 8 * PG);
}

Test(vm_map, protect_rw_to_none_keeps_ram_and_contents)
{
	uint64_t ramoff, n;
	void *hp;

	anon_ok(A, 2 * PG, RW, 0);
	ramoff = m.ent[0].ramoff;
	ram_at(ramoff)[PG + 5] = 0x42;
	cr_assert_eq(vm_map_protect(&m, A, A + 2 * PG, 0), 0);
	cr_assert_eq(m.ent[0].ramoff, ramoff);
	cr_assert_eq(vm_ram_used(), 2 * PG);
	cr_assert_eq(vm_map_hostptr(&m, A + PG + 5, 1, R, &hp, &n), -EFAULT);
	cr_assert_eq(vm_map_protect(&m, A, A + 2 * PG, R), 0);
	cr_assert_eq(vm_map_hostptr(&m, A + PG + 5, 1, R, &hp, &n), 0);
	cr_assert_eq(*(uint8_t *)hp, 0x42);
}

/* --- hostptr --- */

/* An entry of prot (PROT_NONE ones made from RW: they keep their RAM). */
struct hostptr_case {
	int prot, need, expected;
};

ParameterizedTestParameters(vm_map, hostptr_checks_protection)
{
	static struct hostptr_case cases[] = {
		{ R, R, 0 },
		{ R, W, -EFAULT },
		{ R, 0, 0 },
		{ RW, W, 0 },
		{ RW, RW, 0 },
		{ RW, X, -EFAULT },
		{ R | X, X, 0 },
		{ W, R, -EFAULT },
		{ 0, 0, 0 },
		{ 0, R, -EFAULT },
	};

	return cr_make_param_array(struct hostptr_case, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct hostptr_case *c, vm_map, hostptr_checks_protection)
{
	void *hp = NULL;
	uint64_t n = 0;
	int r;

	anon_ok(A, PG, RW, 0);
	cr_assert_eq(vm_map_protect(&m, A, A + PG, c->prot), 0);
	r = vm_map_hostptr(&m, A + 16, 32, c->need, &hp, &n);
	cr_assert_eq(r, c->expected, "prot %d need %d: %d", c->prot,
	    c->need, r);
	if (r == 0) {
		cr_assert_eq(hp, ram_at(m.ent[0].ramoff + 16));
		cr_assert_eq(n, 32);
	}
}

Test(vm_map, hostptr_clamps_to_entry_end)
{
	void *hp;
	uint64_t n;

	anon_ok(A, 2 * PG, RW, 0);
	anon_ok(A + 2 * PG, PG, R, 0);
	cr_assert_eq(vm_map_hostptr(&m, A + PG + 8, 10 * PG, R, &hp, &n), 0);
	cr_assert_eq(n, PG - 8);
	cr_assert_eq(hp, ram_at(m.ent[0].ramoff + PG + 8));
}

Test(vm_map, hostptr_unmapped_fails_efault)
{
	void *hp;
	uint64_t n;

	anon_ok(A, PG, RW, 0);
	cr_assert_eq(vm_map_hostptr(&m, A + PG, 1, 0, &hp, &n), -EFAULT);
	cr_assert_eq(vm_map_hostptr(&m, A - 1, 1, 0, &hp, &n), -EFAULT);
}

Test(vm_map, hostptr_reserved_fails_efault)
{
	void *hp;
	uint64_t n;

	cr_assert_eq(vm_map_reserve(&m, A, A + PG), 0);
	cr_assert_eq(vm_map_hostptr(&m, A, 1, 0, &hp, &n), -EFAULT);
}

Test(vm_map, hostptr_writes_reach_ram)
{
	void *hp;
	uint64_t n;

	anon_ok(A, PG, RW, 0);
	cr_assert_eq(vm_map_hostptr(&m, A + 100, 4, W, &hp, &n), 0);
	memcpy(hp, "abcd", 4);
	cr_assert_eq(memcmp(ram_at(m.ent[0].ramoff + 100), "abcd", 4), 0);
}

/* --- discard --- */

Test(vm_map, discard_zeroes_only_the_range)
{
	uint64_t ramoff;
	uint8_t *p;

	anon_ok(A, 3 * PG, RW, 0);
	ramoff = m.ent[0].ramoff;
	p = ram_at(ramoff);
	memset(p, 0x33, 3 * PG);
	fake_reset();
	cr_assert_eq(vm_map_discard(&m, A + PG, A + 2 * PG), 0);
	cr_assert_eq(fake_ndiscards, 1);
	cr_assert_eq(fake_discards[0].off, ramoff + PG);
	cr_assert_eq(fake_discards[0].len, PG);
	cr_assert_eq(p[PG - 1], 0x33);
	cr_assert_eq(p[PG], 0);
	cr_assert_eq(p[2 * PG - 1], 0);
	cr_assert_eq(p[2 * PG], 0x33);
	/* Discarding keeps the mapping and its RAM. */
	cr_assert_eq(m.n, 1);
	cr_assert_eq(vm_ram_used(), 3 * PG);
}

Test(vm_map, discard_skips_holes_and_ramless_entries)
{
	anon_ok(A, 2 * PG, RW, 0);
	anon_ok(A + 3 * PG, PG, 0, 0);
	anon_ok(A + 5 * PG, 2 * PG, R, 0);
	fake_reset();
	cr_assert_eq(vm_map_discard(&m, A + PG, A + 6 * PG), 0);
	cr_assert_eq(fake_ndiscards, 2);
	cr_assert_eq(fake_discards[0].off, m.ent[0].ramoff + PG);
	cr_assert_eq(fake_discards[0].len, PG);
	cr_assert_eq(fake_discards[1].off, m.ent[2].ramoff);
	cr_assert_eq(fake_discards[1].len, PG);
}

/* The platform's pages stop the walk: below them discarded, above kept. */
Test(vm_map, discard_stops_at_reserved)
{
	anon_ok(A, PG, RW, 0);
	cr_assert_eq(vm_map_reserve(&m, A + 2 * PG, A + 3 * PG), 0);
	anon_ok(A + 4 * PG, PG, RW, 0);
	fake_reset();
	cr_assert_eq(vm_map_discard(&m, A, A + 5 * PG), -EINVAL);
	cr_assert_eq(fake_ndiscards, 1);
	cr_assert_eq(fake_discards[0].off, m.ent[0].ramoff);
	cr_assert_eq(fake_discards[0].len, PG);
}

/* --- move (mremap) --- */

Test(vm_map, move_to_free_range_carries_extent)
{
	uint64_t ramoff;

	anon_ok(A, 2 * PG, RW, 0);
	ramoff = m.ent[0].ramoff;
	ram_at(ramoff)[PG] = 0x11;
	cr_assert_eq(vm_map_move(&m, A, 2 * PG, B, 2 * PG), 0);
	cr_assert_eq(m.n, 1);
	check_entry(0, B, B + 2 * PG, RW);
	cr_assert_eq(m.ent[0].ramoff, ramoff);
	cr_assert(vm_map_range_free(&m, A, A + 2 * PG));
	cr_assert_eq(vm_ram_used(), 2 * PG);
}

Test(vm_map, move_grow_in_place_extends_ram)
{
	uint64_t ramoff;

	anon_ok(A, 2 * PG, RW, 0);
	ramoff = m.ent[0].ramoff;
	ram_at(ramoff)[0] = 0x22;
	cr_assert_eq(vm_map_move(&m, A, 2 * PG, A, 5 * PG), 0);
	cr_assert_eq(m.n, 1);
	check_entry(0, A, A + 5 * PG, RW);
	cr_assert_eq(m.ent[0].ramoff, ramoff, "grew by copying");
	cr_assert_eq(ram_at(ramoff)[0], 0x22);
	cr_assert_eq(ram_at(ramoff)[4 * PG], 0);
	cr_assert_eq(vm_ram_used(), 5 * PG);
}

Test(vm_map, move_grow_blocked_copies_contents)
{
	uint64_t oldoff;

	anon_ok(A, 2 * PG, RW, 0);
	/* Takes the RAM just after A's, far away in the address space. */
	anon_ok(B, PG, RW, 0);
	oldoff = m.ent[0].ramoff;
	memset(ram_at(oldoff), 0x5c, 2 * PG);
	cr_assert_eq(vm_map_move(&m, A, 2 * PG, A, 3 * PG), 0);
	cr_assert_eq(m.n, 2);
	check_entry(0, A, A + 3 * PG, RW);
	cr_assert_neq(m.ent[0].ramoff, oldoff);
	cr_assert_eq(ram_at(m.ent[0].ramoff)[0], 0x5c);
	cr_assert_eq(ram_at(m.ent[0].ramoff)[2 * PG - 1], 0x5c);
	cr_assert_eq(ram_at(m.ent[0].ramoff)[2 * PG], 0);
	/* The old extent went back, zeroed. */
	vm_ram_flush();
	cr_assert_eq(vm_ram_used(), 4 * PG);
	cr_assert_eq(ram_at(oldoff)[0], 0);
}

Test(vm_map, move_shrink_frees_tail)
{
	uint64_t ramoff;

	anon_ok(A, 4 * PG, RW, 0);
	ramoff = m.ent[0].ramoff;
	cr_assert_eq(vm_map_move(&m, A, 4 * PG, A, PG), 0);
	cr_assert_eq(m.n, 1);
	check_entry(0, A, A + PG, RW);
	cr_assert_eq(m.ent[0].ramoff, ramoff);
	cr_assert_eq(vm_ram_used(), PG);
}

Test(vm_map, move_part_of_entry_splits_it)
{
	uint64_t ramoff;

	anon_ok(A, 3 * PG, RW, 0);
	ramoff = m.ent[0].ramoff;
	cr_assert_eq(vm_map_move(&m, A + PG, PG, B, PG), 0);
	cr_assert_eq(m.n, 3);
	check_entry(0, A, A + PG, RW);
	check_entry(1, A + 2 * PG, A + 3 * PG, RW);
	check_entry(2, B, B + PG, RW);
	cr_assert_eq(m.ent[1].ramoff, ramoff + 2 * PG);
	cr_assert_eq(m.ent[2].ramoff, ramoff + PG);
	cr_assert_eq(vm_ram_used(), 3 * PG);
}

/* One mapping made of two entries (their RAM apart) moves whole. */
Test(vm_map, move_mapping_of_two_entries_moves_both)
{
	uint64_t n;
	void *hp;

	anon_ok(A + PG, PG, RW, 0);
	anon_ok(A, PG, RW, 0);
	cr_assert_eq(m.n, 2);
	ram_at(m.ent[0].ramoff)[0] = 0x31;
	ram_at(m.ent[1].ramoff)[0] = 0x32;
	cr_assert(vm_map_range_one(&m, A, A + 2 * PG));
	cr_assert_eq(vm_map_move(&m, A, 2 * PG, B, 3 * PG), 0);
	cr_assert(vm_map_range_free(&m, A, A + 2 * PG));
	cr_assert(vm_map_range_one(&m, B, B + 3 * PG));
	cr_assert_eq(vm_map_hostptr(&m, B, 1, R, &hp, &n), 0);
	cr_assert_eq(*(uint8_t *)hp, 0x31);
	cr_assert_eq(vm_map_hostptr(&m, B + PG, 1, R, &hp, &n), 0);
	cr_assert_eq(*(uint8_t *)hp, 0x32);
	cr_assert_eq(vm_map_hostptr(&m, B + 2 * PG, 1, R, &hp, &n), 0);
	cr_assert_eq(*(uint8_t *)hp, 0);
	cr_assert_eq(vm_ram_used(), 3 * PG);
}

Test(vm_map, range_one_stops_at_another_mapping)
{
	anon_ok(A, PG, RW, 0);
	anon_ok(A + PG, PG, R, 0);
	cr_assert(!vm_map_range_one(&m, A, A + 2 * PG));
	cr_assert(vm_map_range_one(&m, A + PG, A + 2 * PG));
	cr_assert(!vm_map_range_one(&m, A + PG, A + 3 * PG));
	cr_assert(!vm_map_range_one(&m, A + 2 * PG, A + 3 * PG));
}

Test(vm_map, hole_lies_inside_one_entry)
{
	anon_ok(A, 4 * PG, RW, 0);
	cr_assert(vm_map_hole(&m, A + PG, A + 2 * PG));
	cr_assert(!vm_map_hole(&m, A, A + PG));
	cr_assert(!vm_map_hole(&m, A + 3 * PG, A + 4 * PG));
	cr_assert(!vm_map_hole(&m, A + 5 * PG, A + 6 * PG));
}

Test(vm_map, move_grow_overlapping_down_keeps_contents)
{
	uint64_t n;
	void *hp;

	/* mremap(MREMAP_FIXED) to just below: the ranges share a page. */
	anon_ok(A + PG, PG, RW, 0);
	ram_at(m.ent[0].ramoff)[7] = 0x99;
	cr_assert_eq(vm_map_move(&m, A + PG, PG, A, 2 * PG), 0);
	cr_assert_eq(m.n, 1);
	check_entry(0, A, A + 2 * PG, RW);
	cr_assert_eq(vm_map_hostptr(&m, A + 7, 1, R, &hp, &n), 0);
	cr_assert_eq(*(uint8_t *)hp, 0x99);
	cr_assert_eq(vm_map_hostptr(&m, A + PG + 7, 1, R, &hp, &n), 0);
	cr_assert_eq(*(uint8_t *)hp, 0);
	cr_assert_eq(vm_ram_used(), 2 * PG);
}

Test(vm_map, move_prot_none_stays_ramless)
{
	anon_ok(A, 2 * PG, 0, 0);
	cr_assert_eq(vm_map_move(&m, A, 2 * PG, B, 4 * PG), 0);
	cr_assert_eq(m.n, 1);
	check_entry(0, B, B + 4 * PG, 0);
	cr_assert_eq(m.ent[0].ramoff, VM_NORAM);
	cr_assert_eq(vm_ram_used(), 0);
}

Test(vm_map, move_grow_over_limit_fails_enomem, .init = map_setup_tight)
{
	uint64_t ramoff;

	anon_ok(A, 4 * PG, RW, 0);
	anon_ok(B, PG, RW, 0);
	ramoff = m.ent[0].ramoff;
	ram_at(ramoff)[0] = 0x66;
	/* Blocked in place (B's RAM follows), and 4 + 1 + 6 > 8 pages. */
	cr_assert_eq(vm_map_move(&m, A, 4 * PG, B + 2 * PG, 6 * PG), -ENOMEM);
	cr_assert_eq(m.n, 2);
	check_entry(0, A, A + 4 * PG, RW);
	cr_assert_eq(m.ent[0].ramoff, ramoff);
	cr_assert_eq(ram_at(ramoff)[0], 0x66);
	cr_assert_eq(vm_ram_used(), 5 * PG);
}

/* --- destroy --- */

Test(vm_map, destroy_frees_all_ram)
{
	anon_ok(A, 3 * PG, RW, 0);
	anon_ok(B, 2 * PG, R, 0);
	anon_ok(B + 4 * PG, 2 * PG, 0, 0);
	cr_assert_eq(vm_ram_used(), 5 * PG);
	vm_map_destroy(&m);
	cr_assert_eq(vm_ram_used(), 0);
	cr_assert_eq(m.n, 0);
	cr_assert_null(m.ent);
	cr_assert_eq(vm_ram_nfree(), 1);
}

/* --- the mirror into the platform space --- */

Test(vm_map, space_null_makes_no_calls)
{
	anon_ok(A, 4 * PG, RW, 0);
	cr_assert_eq(vm_map_protect(&m, A, A + PG, R), 0);
	cr_assert_eq(vm_map_move(&m, A + 2 * PG, 2 * PG, B, 2 * PG), 0);
	vm_map_remove(&m, A, A + 2 * PG);
	cr_assert_eq(fake_space_ncalls, 0);
}

Test(vm_map, space_anon_maps_once, .init = map_setup_space)
{
	anon_ok(A, 3 * PG, RW, 0);
	cr_assert_eq(fake_space_ncalls, 1);
	check_call(0, FAKE_MAP, A, 3 * PG);
	cr_assert_eq(fake_space_calls[0].prot, RW);
	cr_assert_eq(fake_space_calls[0].ramoff, m.ent[0].ramoff);
}

Test(vm_map, space_ramless_changes_make_no_calls, .init = map_setup_space)
{
	anon_ok(A, 3 * PG, 0, 0);
	cr_assert_eq(vm_map_reserve(&m, B, B + PG), 0);
	vm_map_remove(&m, A, A + PG);
	cr_assert_eq(vm_map_protect(&m, A + PG, A + 2 * PG, 0), 0);
	cr_assert_eq(fake_space_ncalls, 0);
}

Test(vm_map, space_remove_unmaps_range_once, .init = map_setup_space)
{
	anon_ok(A, 2 * PG, RW, 0);
	anon_ok(A + 2 * PG, 2 * PG, R, 0);
	fake_reset();
	vm_map_remove(&m, A + PG, A + 3 * PG);
	cr_assert_eq(fake_space_ncalls, 1);
	check_call(0, FAKE_UNMAP, A + PG, 2 * PG);
}

Test(vm_map, space_protect_one_call_per_entry, .init = map_setup_space)
{
	anon_ok(A, 2 * PG, RW, 0);
	anon_ok(A + 2 * PG, 2 * PG, R, 0);
	fake_reset();
	cr_assert_eq(vm_map_protect(&m, A + PG, A + 3 * PG, R | X), 0);
	cr_assert_eq(fake_space_ncalls, 2);
	check_call(0, FAKE_PROTECT, A + PG, PG);
	check_call(1, FAKE_PROTECT, A + 2 * PG, PG);
	cr_assert_eq(fake_space_calls[0].prot, R | X);
	cr_assert_eq(fake_space_calls[1].prot, R | X);
}

Test(vm_map, space_protect_none_to_rw_maps_new_ram, .init = map_setup_space)
{
	anon_ok(A, 4 * PG, 0, 0);
	cr_assert_eq(vm_map_protect(&m, A + PG, A + 3 * PG, R), 0);
	cr_assert_eq(fake_space_ncalls, 1);
	check_call(0, FAKE_MAP, A + PG, 2 * PG);
	cr_assert_eq(fake_space_calls[0].prot, R);
	cr_assert_eq(fake_space_calls[0].ramoff, m.ent[1].ramoff);
}

Test(vm_map, space_move_unmaps_old_maps_new, .init = map_setup_space)
{
	anon_ok(A, 2 * PG, RW, 0);
	fake_reset();
	cr_assert_eq(vm_map_move(&m, A, 2 * PG, B, 2 * PG), 0);
	cr_assert_eq(fake_space_ncalls, 2);
	check_call(0, FAKE_UNMAP, A, 2 * PG);
	check_call(1, FAKE_MAP, B, 2 * PG);
	cr_assert_eq(fake_space_calls[1].ramoff, m.ent[0].ramoff);
	cr_assert_eq(fake_space_calls[1].prot, RW);
}

Test(vm_map, attach_maps_every_ram_entry)
{
	anon_ok(A, 2 * PG, RW, 0);
	anon_ok(A + 4 * PG, PG, 0, 0);
	anon_ok(B, PG, R | X, 0);
	cr_assert_eq(vm_map_reserve(&m, B + 8 * PG, B + 9 * PG), 0);
	cr_assert_eq(fake_space_ncalls, 0);
	vm_map_attach(&m, fake_space());
	cr_assert_eq(m.space, fake_space());
	cr_assert_eq(fake_space_ncalls, 2);
	check_call(0, FAKE_MAP, A, 2 * PG);
	check_call(1, FAKE_MAP, B, PG);
	cr_assert_eq(fake_space_calls[1].prot, R | X);
}

/*
 * A write fault on a page shared after fork copies the aligned 64 KiB
 * around it within its entry, each page with its contents; the pages
 * beyond stay shared.  With RAM for no more, the page alone.
 */
static void
cow_fork_ok(struct vm_map *child, uint64_t len)
{
	anon_ok(A, len, RW, 0);
	for (uint64_t p = 0; p < len / PG; p++)
		ram_at(m.ent[0].ramoff)[p * PG] = (char)(p + 1);
	vm_map_init(child, NULL, MAP_MIN, MAP_MAX);
	vm_map_fork(&m, child, NULL, 0);
}

Test(vm_map, cow_copies_the_64k_around_a_fault, .init = map_setup,
    .fini = map_teardown)
{
	struct vm_map child;
	struct vm_entry *e;

	cow_fork_ok(&child, 40 * PG);
	cr_assert_eq(vm_map_cow(&child, A + 20 * PG + 7), 0);
	e = vm_map_lookup(&child, A + 20 * PG);
	cr_assert_eq(e->start, A + 16 * PG);
	cr_assert_eq(e->end, A + 32 * PG);
	cr_assert_null(e->obj);
	cr_assert_eq(e->flags & VME_COW, 0);
	for (uint64_t p = 16; p < 32; p++)
		cr_assert_eq(ram_at(e->ramoff)[(p - 16) * PG], (char)(p + 1));
	cr_assert_neq(vm_map_lookup(&child, A)->flags & VME_COW, 0);
	cr_assert_neq(vm_map_lookup(&child, A + 32 * PG)->flags & VME_COW, 0);
	/* The window stops at the entry's end. */
	cr_assert_eq(vm_map_cow(&child, A + 39 * PG), 0);
	e = vm_map_lookup(&child, A + 39 * PG);
	cr_assert_eq(e->start, A + 32 * PG);
	cr_assert_eq(e->end, A + 40 * PG);
	vm_map_destroy(&child);
}

Test(vm_map, cow_short_of_ram_copies_the_page, .init = map_setup_tight,
    .fini = map_teardown)
{
	struct vm_map child;
	struct vm_entry *e;

	cow_fork_ok(&child, 6 * PG);
	cr_assert_eq(vm_map_cow(&child, A + 3 * PG), 0);
	e = vm_map_lookup(&child, A + 3 * PG);
	cr_assert_eq(e->start, A + 3 * PG);
	cr_assert_eq(e->end, A + 4 * PG);
	cr_assert_eq(ram_at(e->ramoff)[0], 4);
	vm_map_destroy(&child);
}

/*
 * kern_text_replace's work: text shared with another map (a fork's, or
 * a file's cached pages) gets a copy of its own before the write, so the
 * other keeps the old bytes; only where the bytes still are the old
 * ones, only in executable memory the guest cannot write.
 */
Test(vm_map, text_replace_copies_shared_text, .init = map_setup,
    .fini = map_teardown)
{
	static const uint8_t old[] = { 0xb8, 39, 0, 0, 0, 0x0f, 0x05 };
	static const uint8_t jmp[] = { 0xff, 0x24, 0x25, 0, 0, 6, 0x7f };
	struct vm_map child;
	uint64_t parent_ram;

	anon_ok(A, 4 * PG, R | X, 0);
	memcpy(ram_at(m.ent[0].ramoff) + PG + 100, old, sizeof(old));
	vm_map_init(&child, NULL, MAP_MIN, MAP_MAX);
	vm_map_fork(&m, &child, NULL, 0);
	parent_ram = vm_map_lookup(&m, A + PG)->ramoff;
	cr_assert_eq(vm_text_replace(&child, A + PG + 100, jmp, jmp,
	    sizeof(jmp)), -EAGAIN);
	cr_assert_eq(vm_text_replace(&child, A + PG + 100, old, NULL,
	    sizeof(old)), 0);
	cr_assert_eq(vm_text_replace(&child, A + PG + 100, old, jmp,
	    sizeof(jmp)), 0);
	cr_assert_null(vm_map_lookup(&child, A + PG)->obj);
	cr_assert_arr_eq(ram_at(vm_map_lookup(&child, A + PG)->ramoff) +
	    PG + 100, jmp, sizeof(jmp));
	/* The parent's page: the old bytes, where they were. */
	cr_assert_eq(vm_map_lookup(&m, A + PG)->ramoff, parent_ram);
	cr_assert_arr_eq(ram_at(parent_ram) + PG + 100, old, sizeof(old));
	cr_assert_eq(vm_text_replace(&m, A + PG + 100, old, NULL,
	    sizeof(old)), 0);
	vm_map_destroy(&child);
}

Test(vm_map, text_replace_only_in_text, .init = map_setup,
    .fini = map_teardown)
{
	static const uint8_t z[2], one[2] = { 1, 1 };

	anon_ok(A, PG, R | W | X, 0);
	anon_ok(A + 2 * PG, PG, R, 0);
	anon_ok(A + 4 * PG, PG, R | X, 0);
	cr_assert_eq(vm_text_replace(&m, A, z, one, 2), -EFAULT);
	cr_assert_eq(vm_text_replace(&m, A + 2 * PG, z, one, 2), -EFAULT);
	cr_assert_eq(vm_text_replace(&m, A + 3 * PG, z, one, 2), -EFAULT);
	/* Within one page only. */
	cr_assert_eq(vm_text_replace(&m, A + 5 * PG - 1, z, one, 2), -EFAULT);
	cr_assert_eq(vm_text_replace(&m, A + 4 * PG, z, one, 2), 0);
	cr_assert_arr_eq(ram_at(m.ent[2].ramoff), one, 2);
}
