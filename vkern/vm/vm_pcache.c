/*
 * The page cache: the pages of read-only host files that private
 * mappings map, kept in RAM once and shared by every mapping of them in
 * every process, copy-on-write.  Every process maps the same libc, and
 * each run of a compiler the same cc1, at the cost of mapping it.
 *
 * A cache is a RAM object the size of its file, filled page by page as
 * mappings first reach the pages.  Only mappings without write access
 * use it (program text, read-only data): a write fault costs a round
 * trip through the kernel, more than copying a page that will be
 * written anyway.  Only files on read-only mounts are
 * cached: nothing in the sandbox can change them.  The cache holds a
 * reference on its object, so a mapping's write always copies the page;
 * when RAM runs out, caches that no mapping uses are dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/platform.h"
#include "vkern/vfs/overlay/overlay.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_ram.h"

#define PCACHE_MAX_FILE (512ULL << 20)   /* larger files are copied */

struct pcache {
	struct vnode *vn;        /* referenced */
	struct vm_obj *obj;      /* referenced */
	uint64_t npages;
	uint8_t *filled;         /* a byte per page */
	struct pcache *next;
};

static struct pcache *caches;

/*
 * Free a cache no mapping uses: it holds the last reference to its
 * object, which it made outside the kernel's charge (a cache outlives
 * the processes the charge is for), so the object goes here and not
 * through vm_obj_rel(), which would uncharge what was never charged.
 */
static void
pcache_free(struct pcache *pc)
{
	VK_ASSERT(pc->obj->refs == 1);
	vm_ram_free(pc->obj->ramoff, pc->obj->len);
	free(pc->obj);
	vnode_rel(pc->vn);
	free(pc->filled);
	free(pc);
}

bool
vm_pcache_reclaim(void)
{
	struct pcache **q = &caches, *pc;
	bool freed = false;

	while ((pc = *q) != NULL) {
		if (pc->obj->refs == 1) {
			*q = pc->next;
			pcache_free(pc);
			freed = true;
		} else {
			q = &pc->next;
		}
	}
	return freed;
}

static int
pcache_find(struct vnode *vn, uint64_t size, struct pcache **pcp)
{
	struct pcache *pc;
	uint64_t len = VK_ROUND_UP(size, VK_PAGE_SIZE);
	int r;

	for (pc = caches; pc != NULL; pc = pc->next) {
		if (pc->vn == vn && pc->npages * VK_PAGE_SIZE == len) {
			*pcp = pc;
			return 0;
		}
	}
	pc = vk_xcalloc(1, sizeof(*pc));
	pc->obj = vk_xcalloc(1, sizeof(*pc->obj));
	if ((r = vm_ram_alloc(len, &pc->obj->ramoff)) < 0) {
		free(pc->obj);
		free(pc);
		return r;
	}
	pc->obj->refs = 1;
	pc->obj->len = len;
	pc->npages = len / VK_PAGE_SIZE;
	pc->filled = vk_xcalloc(pc->npages, 1);
	vnode_ref(vn);
	pc->vn = vn;
	pc->next = caches;
	caches = pc;
	*pcp = pc;
	return 0;
}

/* Read the pages [first, last) that are not there yet, a run at a time. */
static int
pcache_fill(struct pcache *pc, uint64_t first, uint64_t last)
{
	char *ram = plat_ram_base() + pc->obj->ramoff;

	for (uint64_t p = first; p < last; ) {
		uint64_t end = p, off, len;

		if (pc->filled[p]) {
			p++;
			continue;
		}
		while (end < last && !pc->filled[end])
			end++;
		off = p * VK_PAGE_SIZE;
		len = (end - p) * VK_PAGE_SIZE;
		while (len > 0) {
			long got = vnode_read_ram(pc->vn, pc->obj->ramoff + off,
			    len, off);

			if (got < 0)
				return (int)got;
			if (got == 0)
				break;
			off += (uint64_t)got;
			len -= (uint64_t)got;
		}
		/* What lies past the end of the file reads zero. */
		memset(ram + off, 0, len);
		memset(pc->filled + p, 1, end - p);
		p = end;
	}
	return 0;
}

int
vm_pcache_map(struct vm_map *m, uint64_t va, uint64_t len, int prot,
    struct vnode *file, uint64_t foff)
{
	/* An overlay file is cached by its layer's, if that is a host one. */
	struct vnode *vn = overlay_upper(file, false);
	uint64_t head;
	struct vattr at;
	struct pcache *pc;
	int r;

	if ((prot & PLAT_PROT_WRITE) || vn == NULL || tmpfs_is_tmpfs(vn) ||
	    vn->type != VREG ||
	    vn->mount == NULL || !vn->mount->rdonly ||
	    vn->ops->getattr(vn, &at) < 0 || at.size > PCACHE_MAX_FILE)
		return -ENOTSUP;
	/* Pages wholly past the end of the file: the caller's. */
	if (foff >= VK_ROUND_UP(at.size, VK_PAGE_SIZE))
		return -ENOTSUP;
	head = VK_MIN(len, VK_ROUND_UP(at.size, VK_PAGE_SIZE) - foff);
	if ((r = pcache_find(vn, at.size, &pc)) < 0 ||
	    (r = pcache_fill(pc, foff / VK_PAGE_SIZE,
	    (foff + head) / VK_PAGE_SIZE)) < 0 ||
	    (r = vm_map_obj_cow(m, va, head, prot, pc->obj, foff, file)) < 0)
		return r;
	/* Those wholly past the end raise SIGBUS (vm_file.c). */
	if (head < len && (r = vm_map_file_private(m, va + head, len - head,
	    prot, file, foff + head)) < 0)
		vm_map_remove(m, va, va + head);
	return r;
}
