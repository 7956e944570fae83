/*
 * Unit tests of fork's copy of a vm map (vkern/vm/vm_map.c): memory
 * shared copy-on-write, and the windows around the addresses both sides
 * write at once (the forking thread's stack and TLS) and small writable
 * memory, which the child gets a copy of at once while the parent keeps
 * its own writable.
 */
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tests/unit/fake_platform.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_ram.h"

#define PG 4096ULL
#define MAP_MIN 0x10000ULL
#define MAP_MAX 0x7ffffffff000ULL
#define A 0x100000ULL          /* 64 KiB aligned */
#define RW (PLAT_PROT_READ | PLAT_PROT_WRITE)

static struct vm_map m, child;

static void
setup(void)
{
	vm_ram_init(plat_ram_size(), 256 * PG);
	vm_map_init(&m, fake_space(), MAP_MIN, MAP_MAX);
	vm_map_init(&child, NULL, MAP_MIN, MAP_MAX);
}

static void
teardown(void)
{
	vm_map_destroy(&child);
	vm_map_destroy(&m);
}

static uint8_t *
ram_at(uint64_t ramoff)
{
	return (uint8_t *)plat_ram_base() + ramoff;
}

/*
 * 80 pages at A (too many to be copied as small memory), page p holding
 * p + 1, forked with hot addresses.
 */
static void
fork_ok(int prot, unsigned flags, const uint64_t *hot, unsigned nhot)
{
	cr_assert_eq(vm_map_anon(&m, A, 80 * PG, prot, flags), 0);
	for (uint64_t p = 0; p < 80; p++)
		ram_at(m.ent[0].ramoff)[p * PG] = (uint8_t)(p + 1);
	fake_reset();
	cr_assert_eq(vm_map_fork(&m, &child, hot, nhot), 0);
}

/* The page at va of map mp reads v, from RAM of the entry's. */
static void
check_page(struct vm_map *mp, uint64_t va, uint8_t v)
{
	struct vm_entry *e = vm_map_lookup(mp, va);

	cr_assert_not_null(e);
	cr_assert_eq(ram_at(e->ramoff + (va - e->start))[0], v,
	    "page %#llx", (unsigned long long)va);
}

/* Whether any queued call of the parent's space touches [va, va + len). */
static bool
parent_call_in(uint64_t va, uint64_t len)
{
	for (unsigned i = 0; i < fake_space_ncalls; i++)
		if (fake_space_calls[i].va < va + len &&
		    va < fake_space_calls[i].va + fake_space_calls[i].len)
			return true;
	return false;
}

Test(vm_fork, the_window_around_a_hot_address_is_copied_at_once,
    .init = setup, .fini = teardown)
{
	uint64_t hot[] = { A + 36 * PG + 100 };
	struct vm_entry *pe, *ce;

	fork_ok(RW, 0, hot, 1);
	pe = vm_map_lookup(&m, A + 36 * PG);
	ce = vm_map_lookup(&child, A + 36 * PG);
	/* Both own the aligned 64 KiB: the parent its RAM, the child a copy. */
	cr_assert_eq(pe->start, A + 32 * PG);
	cr_assert_eq(pe->end, A + 48 * PG);
	cr_assert_eq(ce->start, A + 32 * PG);
	cr_assert_eq(ce->end, A + 48 * PG);
	cr_assert_null(pe->obj);
	cr_assert_null(ce->obj);
	cr_assert_eq(pe->flags & VME_COW, 0);
	cr_assert_eq(ce->flags & VME_COW, 0);
	cr_assert_neq(pe->ramoff, ce->ramoff);
	for (uint64_t p = 32; p < 48; p++)
		check_page(&child, A + p * PG, (uint8_t)(p + 1));
	/* The parent's window is not write-protected; the rest is. */
	cr_assert(!parent_call_in(A + 32 * PG, 16 * PG));
	cr_assert(parent_call_in(A, 32 * PG));
	cr_assert(parent_call_in(A + 48 * PG, 32 * PG));
	cr_assert_neq(vm_map_lookup(&m, A)->flags & VME_COW, 0);
	cr_assert_neq(vm_map_lookup(&child, A + 48 * PG)->flags & VME_COW, 0);
	/* A write by one side is not seen by the other. */
	ram_at(pe->ramoff)[4 * PG] = 0xaa;
	check_page(&child, A + 36 * PG, 37);
	ram_at(ce->ramoff)[5 * PG] = 0xbb;
	check_page(&m, A + 37 * PG, 38);
}

/*
 * Entries of 16 pages apart from each other, five of them, then one of
 * 17, each page p of entry k holding k + p + 1: forked with nhot hot
 * addresses far from them all.
 */
static void
fork_small(unsigned nhot)
{
	uint64_t hot[] = { 0x7f0000000000ULL };

	for (uint64_t k = 0; k < 6; k++) {
		uint64_t len = (k < 5 ? 16 : 17) * PG;

		cr_assert_eq(vm_map_anon(&m, A + k * 32 * PG, len, RW, 0), 0);
		for (uint64_t p = 0; p < len / PG; p++)
			ram_at(vm_map_lookup(&m, A + k * 32 * PG)->ramoff)
			    [p * PG] = (uint8_t)(k + p + 1);
	}
	fake_reset();
	cr_assert_eq(vm_map_fork(&m, &child, hot, nhot), 0);
}

/* Whether the child has a copy of its own of entry k (else it shares). */
static bool
child_copied(uint64_t k)
{
	uint64_t va = A + k * 32 * PG;
	struct vm_entry *pe = vm_map_lookup(&m, va);
	struct vm_entry *ce = vm_map_lookup(&child, va);

	cr_assert_not_null(pe);
	cr_assert_not_null(ce);
	for (uint64_t p = 0; p < (ce->end - ce->start) / PG; p++)
		check_page(&child, va + p * PG, (uint8_t)(k + p + 1));
	if (ce->ramoff == pe->ramoff) {
		cr_assert_neq(pe->flags & VME_COW, 0);
		cr_assert_neq(ce->flags & VME_COW, 0);
		cr_assert(parent_call_in(va, PG));
		return false;
	}
	cr_assert_eq(pe->flags & VME_COW, 0);
	cr_assert_eq(ce->flags & VME_COW, 0);
	cr_assert(!parent_call_in(va, ce->end - ce->start));
	return true;
}

Test(vm_fork, small_writable_memory_is_copied_up_to_a_bound,
    .init = setup, .fini = teardown)
{
	fork_small(1);
	/* 64 pages a fork: four entries of 16, not the fifth nor 17 pages. */
	for (uint64_t k = 0; k < 4; k++)
		cr_assert(child_copied(k), "entry %llu", (unsigned long long)k);
	cr_assert(!child_copied(4));
	cr_assert(!child_copied(5));
	/* The child's writes are its own. */
	ram_at(vm_map_lookup(&child, A)->ramoff)[0] = 0xcc;
	check_page(&m, A, 1);
}

Test(vm_fork, with_other_threads_small_memory_is_shared,
    .init = setup, .fini = teardown)
{
	fork_small(0);
	for (uint64_t k = 0; k < 6; k++)
		cr_assert(!child_copied(k), "entry %llu", (unsigned long long)k);
}

Test(vm_fork, the_child_maps_its_copies_once_it_has_a_space,
    .init = setup, .fini = teardown)
{
	uint64_t hot[] = { A + 3 * PG };

	fork_ok(RW, 0, hot, 1);
	fake_reset();
	vm_map_fork_attach(&child, fake_space());
	cr_assert_eq(child.space, fake_space());
	cr_assert_eq(fake_space_ncalls, 1);
	cr_assert_eq(fake_space_calls[0].op, FAKE_MAP);
	cr_assert_eq(fake_space_calls[0].va, A);
	cr_assert_eq(fake_space_calls[0].len, 16 * PG);
	cr_assert_eq(fake_space_calls[0].ramoff,
	    vm_map_lookup(&child, A)->ramoff);
	cr_assert_eq(fake_space_calls[0].prot, RW);
}

/* Read-only memory, shared memory and no hot address: shared as ever. */
Test(vm_fork, only_private_writable_memory_is_copied, .init = setup,
    .fini = teardown)
{
	uint64_t hot[] = { A + PG };

	fork_ok(PLAT_PROT_READ, 0, hot, 1);
	cr_assert_eq(vm_map_lookup(&child, A + PG)->ramoff,
	    vm_map_lookup(&m, A + PG)->ramoff);
	cr_assert_not_null(vm_map_lookup(&child, A + PG)->obj);
	cr_assert_eq(child.n, 1);
}

Test(vm_fork, shared_memory_stays_shared, .init = setup, .fini = teardown)
{
	uint64_t hot[] = { A + PG };

	fork_ok(RW, VME_SHARED, hot, 1);
	cr_assert_eq(vm_map_lookup(&child, A + PG)->ramoff,
	    vm_map_lookup(&m, A + PG)->ramoff);
	cr_assert_eq(vm_map_lookup(&child, A + PG)->flags & VME_COW, 0);
}

Test(vm_fork, without_hot_addresses_everything_is_shared, .init = setup,
    .fini = teardown)
{
	fork_ok(RW, 0, NULL, 0);
	cr_assert_eq(child.n, 1);
	cr_assert_eq(child.ent[0].ramoff, m.ent[0].ramoff);
	cr_assert_neq(child.ent[0].flags & VME_COW, 0);
}

/*
 * Cutting the windows out may grow the parent's entry array, which moves
 * its entries: the entry looked up before must not be used after.  The
 * map is made full to the array's capacity first (ASan sees the old read).
 */
Test(vm_fork, a_full_entry_array_grows_under_the_window,
    .init = setup, .fini = teardown)
{
	uint64_t hot[] = { A + 20 * PG };

	cr_assert_eq(vm_map_anon(&m, A, 40 * PG, RW, 0), 0);
	for (uint64_t p = 0; p < 40; p++)
		ram_at(m.ent[0].ramoff)[p * PG] = (uint8_t)(p + 1);
	for (uint64_t k = 0; m.n < m.cap; k++)
		cr_assert_eq(vm_map_anon(&m, 0x40000000ULL + k * 2 * PG, PG,
		    RW, 0), 0);
	cr_assert_eq(vm_map_fork(&m, &child, hot, VK_NELEM(hot)), 0);
	for (uint64_t p = 0; p < 40; p++) {
		check_page(&child, A + p * PG, (uint8_t)(p + 1));
		check_page(&m, A + p * PG, (uint8_t)(p + 1));
	}
}
