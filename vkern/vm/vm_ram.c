/*
 * The RAM file's extent allocator.
 *
 * Free offset ranges are kept in an array sorted by offset; allocation is
 * first fit, freeing merges with both neighbours.  The number of free
 * extents stays small because mappings are few and large, and because the
 * offset space is much larger than the memory limit.  Freed ranges are
 * discarded on the host, so every allocation starts out zeroed.
 *
 * Discards wait until memory is handed out again, the kernel is about to
 * sleep (vm_ram_flush) or many are waiting: a process's end frees its
 * pages extent by extent, and sorted and merged, those make far fewer
 * host calls than one each.
 *
 * The kernel's own objects are charged to the same limit (kmem.c), so
 * that guest pages and kernel memory together stay within --mem.
 */
#include <errno.h>
#include <string.h>

#include "vkern/platform.h"
#include "vkern/vk.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_ram.h"

struct extent {
	uint64_t off, len;
};

static struct extent *free_ext;
static unsigned nfree, capfree;
static uint64_t ram_used, ram_limit;
static uint64_t kmem_used;     /* the kernel's own objects, kmem.c */
static int overcommit;         /* VM_OVERCOMMIT_* */

#define PEND_MAX 256

static struct extent pend[PEND_MAX];   /* freed, not yet discarded */
static unsigned npend;

/*
 * Discard the freed ranges, merged where they touch.  An insertion sort,
 * not qsort(3): they are few and mostly in order, and glibc's qsort asks
 * the host for its memory size, which the lock-down forbids.
 */
static void
pend_flush(void)
{
	unsigned i = 0;

	for (unsigned j = 1; j < npend; j++) {
		struct extent x = pend[j];
		unsigned k = j;

		for (; k > 0 && pend[k - 1].off > x.off; k--)
			pend[k] = pend[k - 1];
		pend[k] = x;
	}
	while (i < npend) {
		uint64_t off = pend[i].off, end = off + pend[i].len;

		for (i++; i < npend && pend[i].off == end; i++)
			end += pend[i].len;
		plat_ram_discard(off, end - off);
	}
	npend = 0;
}

static void
pend_add(uint64_t off, uint64_t len)
{
	if (npend > 0 && pend[npend - 1].off + pend[npend - 1].len == off) {
		pend[npend - 1].len += len;
		return;
	}
	if (npend == PEND_MAX)
		pend_flush();
	pend[npend++] = (struct extent){ off, len };
}

static void
free_insert_at(unsigned i, uint64_t off, uint64_t len)
{
	if (nfree == capfree) {
		capfree = capfree ? capfree * 2 : 16;
		free_ext = vk_xrealloc(free_ext, capfree * sizeof(*free_ext));
	}
	memmove(&free_ext[i + 1], &free_ext[i],
	    (nfree - i) * sizeof(*free_ext));
	free_ext[i] = (struct extent){ off, len };
	nfree++;
}

static void
free_remove_at(unsigned i)
{
	memmove(&free_ext[i], &free_ext[i + 1],
	    (nfree - i - 1) * sizeof(*free_ext));
	nfree--;
}

void
vm_ram_init(uint64_t space, uint64_t limit)
{
	VK_ASSERT(VK_PAGE_ALIGNED(space) && VK_PAGE_ALIGNED(limit));
	nfree = 0;
	npend = 0;
	ram_used = 0;
	ram_limit = limit;
	overcommit = VM_OVERCOMMIT_GUESS;
	free_insert_at(0, 0, space);
}

/*
 * Whether len more bytes fit beside the guest pages and kernel objects
 * already charged.  Cached file pages nobody maps are the first to go.
 */
static bool
ram_room(uint64_t len)
{
	while (ram_used + kmem_used + len > ram_limit)
		if (!vm_pcache_reclaim())
			return false;
	return true;
}

int
vm_ram_alloc(uint64_t len, uint64_t *offp)
{
	VK_ASSERT(len > 0 && VK_PAGE_ALIGNED(len));
	if (!ram_room(len))
		return -ENOMEM;
	for (unsigned i = 0; i < nfree; i++) {
		struct extent *e = &free_ext[i];

		if (e->len < len)
			continue;
		*offp = e->off;
		e->off += len;
		e->len -= len;
		if (e->len == 0)
			free_remove_at(i);
		ram_used += len;
		vm_ram_flush();
		return 0;
	}
	return -ENOMEM;
}

/* Index of the first free extent that starts above off. */
static unsigned
free_search(uint64_t off)
{
	unsigned lo = 0, hi = nfree;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (free_ext[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void
vm_ram_free(uint64_t off, uint64_t len)
{
	unsigned i;

	VK_ASSERT(len > 0 && VK_PAGE_ALIGNED(off) && VK_PAGE_ALIGNED(len));
	VK_ASSERT(len <= ram_used);
	pend_add(off, len);
	ram_used -= len;
	i = free_search(off);
	/* A free range must never overlap one already free. */
	VK_ASSERT(i == 0 || free_ext[i - 1].off + free_ext[i - 1].len <= off);
	VK_ASSERT(i == nfree || off + len <= free_ext[i].off);
	if (i > 0 && free_ext[i - 1].off + free_ext[i - 1].len == off) {
		free_ext[i - 1].len += len;
		if (i < nfree && free_ext[i - 1].off + free_ext[i - 1].len ==
		    free_ext[i].off) {
			free_ext[i - 1].len += free_ext[i].len;
			free_remove_at(i);
		}
		return;
	}
	if (i < nfree && off + len == free_ext[i].off) {
		free_ext[i].off = off;
		free_ext[i].len += len;
		return;
	}
	free_insert_at(i, off, len);
}

void
vm_ram_flush(void)
{
	if (npend > 0)
		pend_flush();
}

int
vm_ram_extend(uint64_t off, uint64_t len, uint64_t extra)
{
	uint64_t end = off + len;
	unsigned i;

	VK_ASSERT(VK_PAGE_ALIGNED(extra));
	if (ram_used + kmem_used + extra > ram_limit)
		return -ENOMEM;
	i = free_search(end);
	if (i == 0 || free_ext[i - 1].off != end ||
	    free_ext[i - 1].len < extra)
		return -ENOMEM;
	free_ext[i - 1].off += extra;
	free_ext[i - 1].len -= extra;
	if (free_ext[i - 1].len == 0)
		free_remove_at(i - 1);
	ram_used += extra;
	vm_ram_flush();
	return 0;
}

uint64_t
vm_ram_used(void)
{
	return ram_used;
}

int
vm_ram_charge(uint64_t len)
{
	if (!ram_room(len))
		return -ENOMEM;
	kmem_used += len;
	return 0;
}

void
vm_ram_charge_force(uint64_t len)
{
	kmem_used += len;
}

void
vm_ram_uncharge(uint64_t len)
{
	VK_ASSERT(len <= kmem_used);
	kmem_used -= len;
}

uint64_t
vm_ram_kmem(void)
{
	return kmem_used;
}

uint64_t
vm_ram_limit(void)
{
	return ram_limit;
}

unsigned
vm_ram_nfree(void)
{
	return nfree;
}

int
vm_overcommit(void)
{
	return overcommit;
}

void
vm_overcommit_set(int mode)
{
	VK_ASSERT(mode >= VM_OVERCOMMIT_GUESS && mode <= VM_OVERCOMMIT_NEVER);
	overcommit = mode;
}
