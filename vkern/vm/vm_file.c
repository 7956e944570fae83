/*
 * File mappings.
 *
 * A shared mapping maps the file's own pages (its vnode's getpage): every
 * mapping and read(2) and write(2) see the same bytes.
 *
 * A private mapping is a copy: its pages are read from the file into
 * RAM of the mapping's own, when the mapping is made or, for pages
 * without RAM, when first touched.  Its entries keep the file and the
 * offset, so that the mapping can go back to the file as Linux's do:
 *
 *  - truncation lets go of every private page wholly past the new end,
 *    in every process, written copies included (Linux's truncation
 *    unmaps copy-on-write copies too); a page touched again is read
 *    from the file: zero once the file grew back over it, SIGBUS while
 *    it lies past the end;
 *  - pages wholly past the end of the file raise SIGBUS, when the
 *    mapping is made as after truncation;
 *  - MADV_DONTNEED makes a page read the file again;
 *  - mremap growing the mapping grows it into the file.
 *
 * The copy, rather than copy-on-write over the file's own pages: most
 * files a guest maps privately it never changes, so a copy costs one
 * read where copy-on-write costs the file system a page of its own for
 * each page mapped (the map cache of a host file, an entry a page) and
 * a fault per page written.  What it gives up: Linux's private pages
 * read the file's page until written, so a write(2) to the file after
 * mmap shows in pages not written yet; here the pages read at mmap time
 * keep the bytes they read.
 */
#include <errno.h>

#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_map_impl.h"
#include "vkern/vm/vm_ram.h"

/*
 * A fault reads the aligned 64 KiB around its page, as far as its entry
 * and the file go: a file mapping is read in runs, and a fault costs the
 * guest more than reading a few pages.
 */
#define FILL_AROUND (16 * VK_PAGE_SIZE)

long
vm_map_read_file(struct vm_map *m, struct vnode *vn, uint64_t va,
    uint64_t len, uint64_t off)
{
	char *base = plat_ram_base();
	long total = 0;

	while (len > 0) {
		void *hp;
		uint64_t n;
		long got;

		if (vm_map_hostptr(m, va, len, 0, &hp, &n) < 0)
			return total > 0 ? total : -EFAULT;
		got = vnode_read_ram(vn, (uint64_t)((char *)hp - base), n, off);
		if (got <= 0)
			return total > 0 || got == 0 ? total : got;
		total += got;
		va += (uint64_t)got;
		off += (uint64_t)got;
		len -= (uint64_t)got;
	}
	return total;
}

/* The object of a shared mapping of vn, with no entry yet: 0 or -errno. */
static int
file_obj_new(struct vnode *vn, bool maywrite, struct vm_obj **objp)
{
	struct vm_obj *obj;
	int r;

	if ((r = vn->ops->map_pin(vn, true, maywrite)) < 0)
		return r;
	obj = kmem_alloc(sizeof(*obj), KM_ZERO | KM_FORCE);
	vnode_ref(vn);
	obj->vn = vn;
	obj->maywrite = maywrite;
	obj->ramoff = VM_NORAM;
	*objp = obj;
	return 0;
}

int
vm_map_file_shared_lazy(struct vm_map *m, uint64_t start, uint64_t len,
    int prot, struct vnode *vn, bool maywrite)
{
	struct vm_entry e = { .start = start, .end = start + len,
	    .prot = prot, .flags = VME_SHARED, .ramoff = VM_NORAM };
	int r;

	VK_ASSERT(VK_PAGE_ALIGNED(start) && VK_PAGE_ALIGNED(len) && len > 0);
	VK_ASSERT(vm_map_range_free(m, start, start + len));
	if (vm_map_room(m, 1) < 0)
		return -ENOMEM;
	if ((r = file_obj_new(vn, maywrite, &e.obj)) < 0)
		return r;
	e.obj->refs = 1;
	vm_map_insert_at(m, vm_map_search(m, start), &e);
	return 0;
}

/*
 * Enter [start, end) of a shared mapping of obj's file from file offset
 * foff, with no RAM: its pages are the file's holes, which the first
 * touch fills (vm_map_file_fault).  Room was asked for.
 */
static void
file_shared_hole(struct vm_map *m, uint64_t start, uint64_t end, int prot,
    struct vm_obj *obj, uint64_t foff)
{
	struct vm_entry e = {
		.start = start, .end = end, .prot = prot, .flags = VME_SHARED,
		.obj = obj, .foff = foff, .ramoff = VM_NORAM,
	};

	obj->refs++;
	vm_map_insert_at(m, vm_map_search(m, start), &e);
}

/*
 * A range of a tmpfs file (a memfd, /dev/shm) larger than half the
 * memory left is mapped as it is: the pages the file holds, and holes
 * that take memory only when touched, as Linux's shmem allocates a page
 * at its first fault, one fault a page.  A sparse file far larger than
 * memory (a vkernel's own RAM file, inside vkernel) maps at no cost.
 * Smaller ranges get all their pages at once, which the host then
 * serves without a fault through the kernel.
 */
static bool
file_shared_is_sparse(const struct vnode *vn, uint64_t len)
{
	uint64_t used = vm_ram_used() + vm_ram_kmem();

	return tmpfs_is_tmpfs(vn) && (used >= vm_ram_limit() ||
	    len > (vm_ram_limit() - used) / 2);
}

static int
file_shared_sparse(struct vm_map *m, uint64_t start, uint64_t len, int prot,
    struct vm_obj *obj, uint64_t off)
{
	struct vattr va;
	uint64_t idx = off / VK_PAGE_SIZE, end = idx + len / VK_PAGE_SIZE;
	uint64_t eof, ram;
	int r;

	if ((r = obj->vn->ops->getattr(obj->vn, &va)) < 0)
		return r;
	eof = VK_MIN(end, VK_ROUND_UP(va.size, VK_PAGE_SIZE) / VK_PAGE_SIZE);
	while (idx < end) {
		uint64_t va0 = start + (idx * VK_PAGE_SIZE - off), next;
		struct vm_entry *e;

		if ((r = vm_map_room(m, 1)) < 0)
			break;
		if (idx < eof && tmpfs_page_find(obj->vn, idx, &ram) == 0) {
			/* A page the file holds. */
			file_shared_hole(m, va0, va0 + VK_PAGE_SIZE, prot, obj,
			    idx * VK_PAGE_SIZE);
			e = vm_map_lookup(m, va0);
			e->ramoff = ram;
			vm_entry_host_map(m, e);
			idx++;
			continue;
		}
		/* A hole, to the next page held or, past those, the end. */
		next = idx < eof ? VK_MIN(tmpfs_page_next(obj->vn, idx), eof) :
		    end;
		if (next >= eof)
			next = end;
		file_shared_hole(m, va0, va0 + (next - idx) * VK_PAGE_SIZE,
		    prot, obj, idx * VK_PAGE_SIZE);
		idx = next;
	}
	vm_map_merge_around(m, start, start + len);
	return r;
}

int
vm_map_file_shared(struct vm_map *m, uint64_t start, uint64_t len, int prot,
    struct vnode *vn, uint64_t off, bool maywrite)
{
	bool sparse = file_shared_is_sparse(vn, len);
	struct vm_obj *obj;
	int r;

	VK_ASSERT(VK_PAGE_ALIGNED(start) && VK_PAGE_ALIGNED(len) && len > 0);
	VK_ASSERT(vm_map_range_free(m, start, start + len));
	/* XXX: an entry a page, where Linux has one for the mapping. */
	if (!sparse && vm_map_room(m, len / VK_PAGE_SIZE) < 0)
		return -ENOMEM;
	if ((r = file_obj_new(vn, maywrite, &obj)) < 0)
		return r;
	if (sparse) {
		/* Held while entries are made: then they alone hold it. */
		obj->refs++;
		if ((r = file_shared_sparse(m, start, len, prot, obj, off)) < 0)
			vm_map_remove(m, start, start + len);
		vm_obj_rel(obj);
		return r;
	}
	for (uint64_t va = start; va < start + len; va += VK_PAGE_SIZE) {
		struct vm_entry e = {
			.start = va, .end = va + VK_PAGE_SIZE, .prot = prot,
			.flags = VME_SHARED, .obj = obj,
			.foff = off + (va - start), .ramoff = VM_NORAM,
		};
		r = vn->ops->getpage(vn, e.foff / VK_PAGE_SIZE, &e.ramoff);
		/*
		 * Past the end, or past --disk (as Linux's shmem, whose
		 * fault then gives SIGBUS): a hole, left to vm_fault.
		 */
		if (r < 0 && r != -ENXIO && r != -ENOSPC) {
			/* Undo: the entries made so far hold the object. */
			obj->refs++;
			vm_map_remove(m, start, va);
			vm_obj_rel(obj);
			return r;
		}
		if (r < 0)
			e.ramoff = VM_NORAM;
		obj->refs++;
		vm_map_insert_at(m, vm_map_search(m, va), &e);
		vm_entry_host_map(m, &e);
	}
	vm_map_merge_around(m, start, start + len);
	return 0;
}

void
vm_map_watch(struct vm_map *m, uint64_t va, void (*fn)(void *, int),
    void *arg)
{
	struct vm_entry *e = vm_map_lookup(m, va);

	VK_ASSERT(e != NULL && e->obj != NULL && e->obj->watch == NULL);
	e->obj->watch = fn;
	e->obj->watch_arg = arg;
	fn(arg, 1);
}

void
vm_obj_fork_watched(struct vm_entry *e)
{
	struct vm_obj *src = e->obj, *c = src->fork_copy;

	if (c == NULL) {
		c = kmem_alloc(sizeof(*c), KM_ZERO | KM_FORCE);
		c->ramoff = src->ramoff;
		c->len = src->len;
		c->vn = src->vn;
		c->maywrite = src->maywrite;
		c->watch = src->watch;
		c->watch_arg = src->watch_arg;
		/* A tmpfs file's pin is a count: it cannot fail. */
		(void)c->vn->ops->map_pin(c->vn, true, c->maywrite);
		vnode_ref(c->vn);
		src->fork_copy = c;
		c->watch(c->watch_arg, 1);
	}
	/* The entry's reference, which vm_map_fork() took, moves over. */
	src->refs--;
	c->refs++;
	e->obj = c;
}

void
vm_obj_fork_done(struct vm_map *src)
{
	for (unsigned i = 0; i < src->n; i++)
		if (src->ent[i].obj != NULL)
			src->ent[i].obj->fork_copy = NULL;
}

int
vm_map_file_fault(struct vm_map *m, uint64_t va)
{
	uint64_t page = VK_ROUND_DOWN(va, VK_PAGE_SIZE), ram;
	struct vm_entry *e = vm_map_lookup(m, page);
	int r;

	if (e == NULL || e->obj == NULL || e->obj->vn == NULL ||
	    e->ramoff != VM_NORAM)
		return -ENXIO;
	if ((r = e->obj->vn->ops->getpage(e->obj->vn, (e->foff +
	    (page - e->start)) / VK_PAGE_SIZE, &ram)) < 0)
		return r == -ENOMEM ? r : -ENXIO;
	vm_map_clip(m, page);
	vm_map_clip(m, page + VK_PAGE_SIZE);
	e = vm_map_lookup(m, page);
	e->ramoff = ram;
	vm_entry_host_map(m, e);
	/* Pages the file holds in a run become one entry again. */
	vm_map_merge_around(m, page, page + VK_PAGE_SIZE);
	return 0;
}

/*
 * Read the private file pages [start, end), one entry's and without RAM,
 * from its file: RAM of their own holding the file's bytes, zero past
 * its end within the last page.  Pages wholly past the end stay without
 * RAM.  Returns 0, -ENXIO when page need lies wholly past the end, or
 * -ENOMEM, or the file's -errno.
 */
static int
file_fill(struct vm_map *m, uint64_t start, uint64_t end, uint64_t need)
{
	struct vm_entry *e = vm_map_lookup(m, start);
	struct vnode *vn = e->vn;
	uint64_t foff = e->foff + (start - e->start), eof, off, done = 0;
	struct vattr at;
	int r;

	VK_ASSERT(vn != NULL && e->ramoff == VM_NORAM && end <= e->end);
	if ((r = vn->ops->getattr(vn, &at)) < 0)
		return r;
	eof = VK_ROUND_UP(at.size, VK_PAGE_SIZE);
	if (foff + (need - start) >= eof)
		return -ENXIO;
	end = VK_MIN(end, start + (eof - foff));
	if ((r = vm_ram_alloc(end - start, &off)) < 0)
		return r;
	while (done < end - start) {
		long got = vnode_read_ram(vn, off + done, end - start - done,
		    foff + done);

		if (got < 0) {
			vm_ram_free(off, end - start);
			return (int)got;
		}
		if (got == 0)
			break;   /* the rest reads zero, as the RAM does */
		done += (uint64_t)got;
	}
	vm_map_clip(m, start);
	vm_map_clip(m, end);
	e = vm_map_lookup(m, start);
	e->ramoff = off;
	vm_entry_host_map(m, e);
	vm_map_merge_around(m, start, end);
	return 0;
}

int
vm_map_file_private(struct vm_map *m, uint64_t start, uint64_t len, int prot,
    struct vnode *vn, uint64_t foff)
{
	struct vm_entry e = {
		.start = start, .end = start + len, .ramoff = VM_NORAM,
		.prot = prot, .foff = foff, .vn = vn,
	};
	int r;

	VK_ASSERT(VK_PAGE_ALIGNED(start) && VK_PAGE_ALIGNED(len) && len > 0);
	VK_ASSERT(vm_map_range_free(m, start, start + len));
	/* The entry, and the split where the file ends. */
	if ((r = vm_map_room(m, 2)) < 0)
		return r;
	vm_entry_vn_ref(&e);
	vm_map_insert_at(m, vm_map_search(m, start), &e);
	/* Memory made accessible later is read when touched. */
	if (prot == 0)
		return 0;
	r = file_fill(m, start, start + len, start);
	if (r == -ENXIO)
		return 0;   /* all of it past the end */
	if (r < 0)
		vm_map_remove(m, start, start + len);
	return r;
}

int
vm_map_file_fill(struct vm_map *m, uint64_t va)
{
	uint64_t page = VK_ROUND_DOWN(va, VK_PAGE_SIZE), start, end;
	struct vm_entry *e = vm_map_lookup(m, page);
	int r;

	if (e == NULL || e->vn == NULL || e->ramoff != VM_NORAM)
		return -ENXIO;
	start = VK_MAX(e->start, VK_ROUND_DOWN(page, FILL_AROUND));
	end = VK_MIN(e->end, VK_ROUND_DOWN(page, FILL_AROUND) + FILL_AROUND);
	if ((r = vm_map_room(m, 2)) < 0)
		return r;
	return file_fill(m, start, end, page);
}

void
vm_map_zap(struct vm_map *m, uint64_t start, uint64_t end)
{
	vm_map_clip(m, start);
	vm_map_clip(m, end);
	for (unsigned i = vm_map_search(m, start);
	    i < m->n && m->ent[i].start < end; i++) {
		vm_entry_release(&m->ent[i]);
		m->ent[i].flags &= ~(unsigned)VME_COW;
	}
	if (m->space != NULL)
		plat_space_unmap(m->space, start, end - start);
	vm_map_merge_around(m, start, end);
}

/* In m: let go of the private pages of vn from file offset hole on. */
static void
file_cut(struct vm_map *m, struct vnode *vn, uint64_t hole)
{
	for (unsigned i = 0; i < m->n; i++) {
		struct vm_entry *e = &m->ent[i];
		uint64_t start, end = e->end;

		if (e->vn != vn || e->ramoff == VM_NORAM ||
		    e->foff + (e->end - e->start) <= hole)
			continue;
		start = e->start + (e->foff >= hole ? 0 : hole - e->foff);
		vm_map_zap(m, start, end);
		i = vm_map_search(m, end) - 1;
	}
}

/*
 * XXX: the threads of another process may be running; they keep the
 * pages let go of until they next stop, as a thread keeps those its
 * sibling unmaps.
 */
void
vm_file_truncated(struct vnode *vn, uint64_t size)
{
	uint64_t hole = VK_ROUND_UP(size, VK_PAGE_SIZE);

	if (vn->privmaps == 0)
		return;
	for (struct proc *p = proc_first(); p != NULL; p = p->next)
		if (p->vm != NULL)
			file_cut(p->vm, vn, hole);
}
