/*
 * Anonymous memory charged when touched: overcommit.
 *
 * A small mapping gets its RAM when it is made and is mapped whole into
 * the stub, so that the host serves every fault in it.  A large one, or
 * one made with MAP_NORESERVE, is only an entry without RAM: its pages
 * take RAM, and count against --mem, when first touched.  The stub has
 * no mapping there, so the touch reaches vm_fault(), which gives the
 * page and those around it zeroed RAM and maps them.  This is what lets
 * a program reserve far more than it uses (AddressSanitizer's shadow,
 * a garbage-collected heap, a thread stack) while --mem still bounds the
 * pages in use; a touch that finds no room is the OOM killer's.
 *
 * A touch takes 64 KiB around its page; a touch just past memory filled
 * before takes as much again as that run holds, up to 2 MiB, from the
 * RAM right after the run's where it is free, so that memory written in
 * order costs few faults and stays one entry.
 */
#include <errno.h>

#include "vkern/platform.h"
#include "vkern/vk.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_map_impl.h"
#include "vkern/vm/vm_ram.h"

#define FILL_MIN (16 * VK_PAGE_SIZE)
#define FILL_MAX (512 * VK_PAGE_SIZE)

bool
vm_anon_lazy(uint64_t len, unsigned flags, bool noreserve)
{
	if (flags & (VME_SHARED | VME_RESERVED) ||
	    vm_overcommit() == VM_OVERCOMMIT_NEVER)
		return false;
	return noreserve || len > VM_EAGER_MAX;
}

bool
vm_entry_untouched(const struct vm_entry *e)
{
	return e->ramoff == VM_NORAM && e->prot != 0 && e->vn == NULL &&
	    e->obj == NULL && !(e->flags & (VME_SHARED | VME_RESERVED));
}

/*
 * The run filled before that ends where e starts: an entry with RAM of
 * its own that e continues.  NULL when there is none.
 */
static const struct vm_entry *
fill_run_before(const struct vm_map *m, const struct vm_entry *e)
{
	const struct vm_entry *b;

	if (e == m->ent)
		return NULL;
	b = e - 1;
	if (b->end != e->start || b->ramoff == VM_NORAM || b->obj != NULL ||
	    b->vn != NULL || b->prot != e->prot || b->flags != e->flags)
		return NULL;
	return b;
}

int
vm_map_anon_fill(struct vm_map *m, uint64_t va)
{
	uint64_t page = VK_ROUND_DOWN(va, VK_PAGE_SIZE), start, end, off;
	struct vm_entry *e = vm_map_lookup(m, page);
	const struct vm_entry *run;
	bool taken = false;     /* RAM for [start, end) is had */
	uint64_t grow;
	int r;

	if (e == NULL || !vm_entry_untouched(e))
		return -EFAULT;
	/* Room for the two cuts; it may move the entries. */
	if ((r = vm_map_room(m, 2)) < 0)
		return r;
	e = vm_map_lookup(m, page);
	run = fill_run_before(m, e);
	grow = run == NULL ? 0 : VK_MIN(VK_MAX(run->end - run->start,
	    FILL_MIN), FILL_MAX);
	if (page - e->start < grow) {
		/* Written in order: the run grows, in place if it can. */
		start = e->start;
		end = VK_MIN(e->end, start + grow);
		off = run->ramoff + (run->end - run->start);
		taken = vm_ram_extend(run->ramoff, run->end - run->start,
		    end - start) == 0;
	} else {
		start = VK_MAX(e->start, VK_ROUND_DOWN(page, FILL_MIN));
		end = VK_MIN(e->end, VK_ROUND_DOWN(page, FILL_MIN) + FILL_MIN);
	}
	/* At the limit on entries, all of the entry if it fits: no cut. */
	if (!taken && vm_map_count_above(m, VM_MAX_MAP_COUNT - 2) &&
	    vm_ram_alloc(e->end - e->start, &off) == 0) {
		start = e->start;
		end = e->end;
		taken = true;
	}
	if (!taken && vm_ram_alloc(end - start, &off) < 0) {
		start = page;
		end = page + VK_PAGE_SIZE;
		if ((r = vm_ram_alloc(VK_PAGE_SIZE, &off)) < 0)
			return r;
	}
	vm_map_clip(m, start);
	vm_map_clip(m, end);
	e = vm_map_lookup(m, page);
	e->ramoff = off;
	vm_entry_host_map(m, e);
	vm_map_merge_around(m, start, end);
	return 0;
}
