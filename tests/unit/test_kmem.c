/*
 * Charged kernel memory: objects and guest pages share one budget, a
 * charge comes back exactly when its object goes, and an allocation that
 * does not fit fails without changing anything.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tests/unit/fake_platform.h"
#include "vkern/kmem.h"
#include "vkern/vm/vm_ram.h"

#define PG 4096ULL

static void
kmem_setup(void)
{
	vm_ram_init(1024 * PG, 16 * PG);
}

TestSuite(kmem, .init = kmem_setup);

Test(kmem, size_models_malloc_chunks)
{
	cr_assert_eq(kmem_size(0), 32);
	cr_assert_eq(kmem_size(24), 32);
	cr_assert_eq(kmem_size(25), 48);
	cr_assert_eq(kmem_size(4096), 4112);
	cr_assert_eq(kmem_size(1 << 20), (1 << 20) + PG);
}

Test(kmem, alloc_charges_and_free_returns_it)
{
	void *p = kmem_alloc(100, 0), *q = kmem_alloc(5000, KM_ZERO);

	cr_assert_not_null(p);
	cr_assert_not_null(q);
	cr_assert_eq(((char *)q)[4999], 0);
	cr_assert_eq(vm_ram_kmem(), kmem_size(100) + kmem_size(5000));
	cr_assert_eq(kmem_charged(0), vm_ram_kmem());
	kmem_free(p, 100, 0);
	kmem_free(q, 5000, 0);
	cr_assert_eq(vm_ram_kmem(), 0);
	kmem_free(NULL, 100, 0);
	cr_assert_eq(vm_ram_kmem(), 0);
}

Test(kmem, over_limit_fails_enomem_and_changes_nothing)
{
	void *p = kmem_alloc(12 * PG, 0);

	cr_assert_not_null(p);
	cr_assert_null(kmem_alloc(4 * PG, 0));
	cr_assert_eq(vm_ram_kmem(), kmem_size(12 * PG));
	kmem_free(p, 12 * PG, 0);
	cr_assert_eq(vm_ram_kmem(), 0);
}

Test(kmem, objects_and_pages_share_the_limit)
{
	uint64_t off;
	void *p = kmem_alloc(10 * PG, 0);

	cr_assert_not_null(p);
	/* 16 pages, 10 (and a bit) taken by the object: 5 pages fit. */
	cr_assert_eq(vm_ram_alloc(6 * PG, &off), -ENOMEM);
	cr_assert_eq(vm_ram_alloc(5 * PG, &off), 0);
	cr_assert_null(kmem_alloc(PG, 0));
	kmem_free(p, 10 * PG, 0);
	cr_assert_eq(vm_ram_alloc(10 * PG, &off), 0);
	cr_assert_eq(vm_ram_used(), 15 * PG);
}

Test(kmem, force_goes_past_the_limit_then_refuses_the_rest)
{
	uint64_t off;
	void *p = kmem_alloc(20 * PG, KM_FORCE);

	cr_assert_not_null(p);
	cr_assert_null(kmem_alloc(1, 0));
	cr_assert_eq(vm_ram_alloc(PG, &off), -ENOMEM);
	kmem_free(p, 20 * PG, 0);
	cr_assert_not_null(p = kmem_alloc(1, 0));
	kmem_free(p, 1, 0);
	cr_assert_eq(vm_ram_kmem(), 0);
}

Test(kmem, realloc_charges_the_difference)
{
	char *p = kmem_realloc(NULL, 0, 100, KM_ZERO), *q;

	cr_assert_not_null(p);
	memset(p, 'x', 100);
	cr_assert_eq(vm_ram_kmem(), kmem_size(100));
	p = kmem_realloc(p, 100, 3000, KM_ZERO);
	cr_assert_eq(p[99], 'x');
	cr_assert_eq(p[100], 0);
	cr_assert_eq(p[2999], 0);
	cr_assert_eq(vm_ram_kmem(), kmem_size(3000));
	/* Too much: NULL, and p as it was. */
	cr_assert_null(kmem_realloc(p, 3000, 20 * PG, 0));
	cr_assert_eq(vm_ram_kmem(), kmem_size(3000));
	cr_assert_eq(p[0], 'x');
	q = kmem_realloc(p, 3000, 10, 0);
	cr_assert_eq(vm_ram_kmem(), kmem_size(10));
	kmem_free(q, 10, 0);
	cr_assert_eq(vm_ram_kmem(), 0);
}

Test(kmem, realloc_needs_room_for_old_and_new_at_once)
{
	void *p = kmem_alloc(6 * PG, 0), *q;

	/* 16 pages: 6 and 12 do not fit together, 6 and 9 do. */
	cr_assert_null(kmem_realloc(p, 6 * PG, 12 * PG, 0));
	cr_assert_eq(vm_ram_kmem(), kmem_size(6 * PG));
	cr_assert_not_null(q = kmem_realloc(p, 6 * PG, 9 * PG, 0));
	cr_assert_eq(vm_ram_kmem(), kmem_size(9 * PG));
	kmem_free(q, 9 * PG, 0);
	cr_assert_eq(vm_ram_kmem(), 0);
}

Test(kmem, strdup_and_classes)
{
	char *s = kmem_strdup("a name", KM_FS), *t = kmem_strdup("x", 0);

	cr_assert_str_eq(s, "a name");
	cr_assert_eq(kmem_charged(KM_FS), kmem_size(7));
	cr_assert_eq(kmem_charged(0), kmem_size(2));
	kmem_strfree(s, KM_FS);
	kmem_strfree(t, 0);
	cr_assert_eq(kmem_charged(KM_FS), 0);
	cr_assert_eq(kmem_charged(0), 0);
}

Test(kmem, check_passes_when_the_charge_is_back)
{
	void *fs = kmem_alloc(64, KM_FS), *p;

	kmem_mark();
	p = kmem_alloc(64, 0);
	kmem_free(p, 64, 0);
	/* A file system's objects may outlive the sandbox's processes. */
	kmem_check();
	kmem_free(fs, 64, KM_FS);
}

Test(kmem, check_catches_a_charge_not_returned, .signal = SIGABRT)
{
	kmem_mark();
	(void)kmem_alloc(64, 0);
	kmem_check();
}

Test(kmem, free_of_more_than_charged_panics, .signal = SIGABRT)
{
	void *p = kmem_alloc(64, 0);

	kmem_free(p, 4096, 0);
}
