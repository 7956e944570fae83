/*
 * Guest virtual memory maps: a sorted array of entries.
 *
 * Every operation works in three steps: clip the entries at the edges of
 * the range so that the range is made of whole entries, change those
 * entries, and merge neighbours that became alike.  RAM is allocated when
 * memory becomes accessible and freed when it is unmapped.  Host mappings
 * follow each change, one call per range (see platform.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vk.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_map_impl.h"
#include "vkern/vm/vm_ram.h"
#include "vkern/vfs/vfs.h"

void
vm_obj_rel(struct vm_obj *obj)
{
	void (*watch)(void *, int) = obj->watch;
	void *arg = obj->watch_arg;

	VK_ASSERT(obj->refs > 0);
	if (--obj->refs > 0)
		return;
	if (obj->vn != NULL) {
		(void)obj->vn->ops->map_pin(obj->vn, false, obj->maywrite);
		vnode_rel(obj->vn);
	} else if (obj->ramoff != VM_NORAM) {
		vm_ram_free(obj->ramoff, obj->len);
	}
	kmem_free(obj, sizeof(*obj), 0);
	/* Last: the watcher may free what the object mapped. */
	if (watch != NULL)
		watch(arg, -1);
}

/*
 * A shared object with one reference.  Never refused: it stands for RAM
 * or a file mapping already charged, and one replaces an entry's own.
 */
static struct vm_obj *
vm_obj_alloc(void)
{
	struct vm_obj *obj = kmem_alloc(sizeof(*obj), KM_ZERO | KM_FORCE);

	obj->refs = 1;
	return obj;
}

/*
 * An object with no pages: what shared anonymous memory grew past, whose
 * every page raises SIGBUS (vm_map_file_fault finds no file).
 */
static struct vm_obj *
vm_obj_empty(void)
{
	struct vm_obj *obj = vm_obj_alloc();

	obj->ramoff = VM_NORAM;
	return obj;
}

void
vm_entry_release(struct vm_entry *e)
{
	if (e->obj != NULL)
		vm_obj_rel(e->obj);
	else if (e->ramoff != VM_NORAM)
		vm_ram_free(e->ramoff, e->end - e->start);
	e->obj = NULL;
	e->ramoff = VM_NORAM;
}

void
vm_entry_vn_ref(const struct vm_entry *e)
{
	if (e->vn == NULL)
		return;
	vnode_ref(e->vn);
	e->vn->privmaps++;
}

void
vm_entry_vn_rel(struct vm_entry *e)
{
	if (e->vn == NULL)
		return;
	VK_ASSERT(e->vn->privmaps > 0);
	e->vn->privmaps--;
	vnode_rel(e->vn);
	e->vn = NULL;
}

/* Free all an entry holds: its RAM and its file. */
static void
entry_free(struct vm_entry *e)
{
	vm_entry_release(e);
	vm_entry_vn_rel(e);
}

/* What the host may allow: copy-on-write memory is read-only there. */
static int
host_prot(const struct vm_entry *e)
{
	return (e->flags & VME_COW) ? e->prot & ~PLAT_PROT_WRITE : e->prot;
}

bool
vm_map_range_user(const struct vm_map *m, uint64_t start, uint64_t len)
{
	return len <= m->max && start <= m->max - len;
}

void
vm_map_init(struct vm_map *m, struct plat_space *sp, uint64_t min,
    uint64_t max)
{
	memset(m, 0, sizeof(*m));
	m->min = min;
	m->max = max;
	m->mmap_base = max;
	m->space = sp;
	m->refs = 1;
}

void
vm_map_destroy(struct vm_map *m)
{
	for (unsigned i = 0; i < m->n; i++)
		entry_free(&m->ent[i]);
	kmem_free(m->ent, m->cap * sizeof(*m->ent), 0);
	m->ent = NULL;
	m->n = m->cap = 0;
}

unsigned
vm_map_search(const struct vm_map *m, uint64_t va)
{
	unsigned lo = 0, hi = m->n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (m->ent[mid].end <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct vm_entry *
vm_map_lookup(struct vm_map *m, uint64_t va)
{
	unsigned i = vm_map_search(m, va);

	if (i < m->n && m->ent[i].start <= va)
		return &m->ent[i];
	return NULL;
}

bool
vm_map_range_free(const struct vm_map *m, uint64_t start, uint64_t end)
{
	unsigned i = vm_map_search(m, start);

	return i == m->n || m->ent[i].start >= end;
}

bool
vm_map_range_mapped(const struct vm_map *m, uint64_t start, uint64_t end)
{
	uint64_t va = start;

	for (unsigned i = vm_map_search(m, start); va < end; i++) {
		if (i == m->n || m->ent[i].start > va)
			return false;
		va = m->ent[i].end;
	}
	return true;
}

bool
vm_map_range_has(const struct vm_map *m, uint64_t start, uint64_t end,
    unsigned flags)
{
	for (unsigned i = vm_map_search(m, start);
	    i < m->n && m->ent[i].start < end; i++)
		if (m->ent[i].flags & flags)
			return true;
	return false;
}

bool
vm_map_is_data(int prot, unsigned flags)
{
	return (prot & PLAT_PROT_WRITE) &&
	    !(flags & (VME_SHARED | VME_STACK | VME_RESERVED));
}

void
vm_map_usage(const struct vm_map *m, uint64_t start, uint64_t end,
    struct vm_usage *u)
{
	*u = (struct vm_usage){ 0, 0, 0, 0 };
	for (unsigned i = vm_map_search(m, start);
	    i < m->n && m->ent[i].start < end; i++) {
		const struct vm_entry *e = &m->ent[i];
		uint64_t n = VK_MIN(e->end, end) - VK_MAX(e->start, start);

		if (e->flags & VME_RESERVED)
			continue;
		u->total += n;
		if (vm_map_is_data(e->prot, e->flags))
			u->data += n;
		if (vm_map_is_data(PLAT_PROT_WRITE, e->flags))
			u->priv += n;
		if (e->flags & VME_LOCKED)
			u->locked += n;
	}
}

static void
vm_map_set_flags(struct vm_map *m, uint64_t start, uint64_t end,
    unsigned add, unsigned clear)
{
	vm_map_clip(m, start);
	vm_map_clip(m, end);
	for (unsigned i = vm_map_search(m, start);
	    i < m->n && m->ent[i].start < end; i++)
		m->ent[i].flags = (m->ent[i].flags & ~clear) | add;
	vm_map_merge_around(m, start, end);
}

void
vm_map_add_flags(struct vm_map *m, uint64_t start, uint64_t end,
    unsigned flags)
{
	vm_map_set_flags(m, start, end, flags, 0);
}

void
vm_map_clear_flags(struct vm_map *m, uint64_t start, uint64_t end,
    unsigned flags)
{
	vm_map_set_flags(m, start, end, 0, flags);
}

int
vm_map_find_space(const struct vm_map *m, uint64_t len, uint64_t lo,
    uint64_t hi, uint64_t *vap)
{
	uint64_t top = hi;
	unsigned i = vm_map_search(m, hi);

	/* Walk the gaps downwards from hi: gap i lies below entry i. */
	for (;;) {
		uint64_t bottom = i == 0 ? lo : VK_MAX(m->ent[i - 1].end, lo);

		if (i < m->n && m->ent[i].start < top)
			top = m->ent[i].start;
		if (top >= bottom && top - bottom >= len) {
			*vap = top - len;
			return 0;
		}
		if (i == 0 || m->ent[i - 1].end <= lo)
			return -ENOMEM;
		i--;
		top = m->ent[i].start;
		if (top <= lo)
			return -ENOMEM;
	}
}

/*
 * Room for k more entries, charged to the sandbox: 0, or -ENOMEM.  An
 * operation that may split entries asks first, so that it fails before
 * it changes anything.
 */
int
vm_map_room(struct vm_map *m, uint64_t k)
{
	uint64_t cap = m->cap ? m->cap : 32;
	struct vm_entry *ent;

	if (m->n + k <= m->cap)
		return 0;
	if (m->n + k > UINT32_MAX / 2)
		return -ENOMEM;
	while (cap < m->n + k)
		cap *= 2;
	ent = kmem_realloc(m->ent, m->cap * sizeof(*m->ent), cap *
	    sizeof(*m->ent), 0);
	if (ent == NULL)
		return -ENOMEM;
	m->ent = ent;
	m->cap = (unsigned)cap;
	return 0;
}

unsigned
vm_map_splits(const struct vm_map *m, uint64_t start, uint64_t end)
{
	unsigned i = vm_map_search(m, start), j = vm_map_search(m, end);

	return (i < m->n && m->ent[i].start < start) +
	    (j < m->n && m->ent[j].start < end);
}

void
vm_map_insert_at(struct vm_map *m, unsigned i, const struct vm_entry *e)
{
	if (m->n == m->cap) {
		unsigned cap = m->cap + 16;

		m->ent = kmem_realloc(m->ent, m->cap * sizeof(*m->ent),
		    cap * sizeof(*m->ent), KM_FORCE);
		m->cap = cap;
	}
	memmove(&m->ent[i + 1], &m->ent[i], (m->n - i) * sizeof(*m->ent));
	m->ent[i] = *e;
	m->n++;
}

void
vm_map_delete_at(struct vm_map *m, unsigned i, unsigned count)
{
	/* A map that never held an entry has no array to move in. */
	if (count == 0)
		return;
	memmove(&m->ent[i], &m->ent[i + count],
	    (m->n - i - count) * sizeof(*m->ent));
	m->n -= count;
}

void
vm_map_clip(struct vm_map *m, uint64_t va)
{
	unsigned i = vm_map_search(m, va);
	struct vm_entry tail;

	if (i == m->n || m->ent[i].start >= va)
		return;
	tail = m->ent[i];
	tail.start = va;
	if (tail.ramoff != VM_NORAM)
		tail.ramoff += va - m->ent[i].start;
	tail.foff += va - m->ent[i].start;
	if (tail.obj != NULL)
		tail.obj->refs++;
	vm_entry_vn_ref(&tail);
	m->ent[i].end = va;
	vm_map_insert_at(m, i + 1, &tail);
}

static bool
vm_entry_mergeable(const struct vm_entry *a, const struct vm_entry *b)
{
	if (a->end != b->start || a->prot != b->prot || a->flags != b->flags ||
	    a->obj != b->obj || a->vn != b->vn)
		return false;
	if ((a->vn != NULL || (a->obj != NULL && a->obj->vn != NULL)) &&
	    a->foff + (a->end - a->start) != b->foff)
		return false;
	if (a->ramoff == VM_NORAM || b->ramoff == VM_NORAM)
		return a->ramoff == b->ramoff;
	return a->ramoff + (a->end - a->start) == b->ramoff;
}

/*
 * Merge entries that became alike in and next to [start, end), in one
 * pass that moves the entries it keeps down over the ones merged away,
 * then the rest of the map down once: a range of a million page entries
 * merges in linear time.
 */
void
vm_map_merge_around(struct vm_map *m, uint64_t start, uint64_t end)
{
	unsigned i = vm_map_search(m, start), w;

	if (i > 0)
		i--;
	if (i >= m->n)
		return;
	for (w = i, i++; i < m->n && m->ent[w].start <= end; i++) {
		if (vm_entry_mergeable(&m->ent[w], &m->ent[i])) {
			m->ent[w].end = m->ent[i].end;
			if (m->ent[i].obj != NULL)
				vm_obj_rel(m->ent[i].obj);
			vm_entry_vn_rel(&m->ent[i]);
		} else {
			m->ent[++w] = m->ent[i];
		}
	}
	if (w + 1 < i)
		memmove(&m->ent[w + 1], &m->ent[i], (m->n - i) *
		    sizeof(*m->ent));
	m->n = w + 1 + (m->n - i);
}

void
vm_entry_host_map(struct vm_map *m, const struct vm_entry *e)
{
	if (m->space != NULL && e->ramoff != VM_NORAM)
		plat_space_map(m->space, e->start, e->end - e->start,
		    host_prot(e), e->ramoff);
}

/* An anonymous entry; with RAM now (charge) unless prot is PROT_NONE. */
static int
anon_insert(struct vm_map *m, uint64_t start, uint64_t len, int prot,
    unsigned flags, bool charge)
{
	struct vm_entry e = {
		.start = start,
		.end = start + len,
		.ramoff = VM_NORAM,
		.prot = prot,
		.flags = flags,
	};
	int r;

	VK_ASSERT(VK_PAGE_ALIGNED(start) && VK_PAGE_ALIGNED(len) && len > 0);
	VK_ASSERT(vm_map_range_free(m, e.start, e.end));
	if ((r = vm_map_room(m, 1)) < 0)
		return r;
	if (charge && prot != 0 && (r = vm_ram_alloc(len, &e.ramoff)) < 0)
		return r;
	vm_map_insert_at(m, vm_map_search(m, start), &e);
	vm_entry_host_map(m, &e);
	vm_map_merge_around(m, e.start, e.end);
	return 0;
}

int
vm_map_anon(struct vm_map *m, uint64_t start, uint64_t len, int prot,
    unsigned flags)
{
	return anon_insert(m, start, len, prot, flags, true);
}

int
vm_map_anon_lazy(struct vm_map *m, uint64_t start, uint64_t len, int prot,
    unsigned flags)
{
	return anon_insert(m, start, len, prot, flags, false);
}

int
vm_map_reserve(struct vm_map *m, uint64_t start, uint64_t end)
{
	struct vm_entry e = {
		.start = VK_ROUND_DOWN(start, VK_PAGE_SIZE),
		.end = VK_ROUND_UP(end, VK_PAGE_SIZE),
		.ramoff = VM_NORAM,
		.flags = VME_RESERVED,
	};

	if (!vm_map_range_free(m, e.start, e.end))
		return -EEXIST;
	vm_map_insert_at(m, vm_map_search(m, e.start), &e);
	return 0;
}

void
vm_map_remove(struct vm_map *m, uint64_t start, uint64_t end)
{
	unsigned i, j;
	bool host = false;

	vm_map_clip(m, start);
	vm_map_clip(m, end);
	i = j = vm_map_search(m, start);
	for (; j < m->n && m->ent[j].start < end; j++) {
		struct vm_entry *e = &m->ent[j];

		if (e->ramoff != VM_NORAM)
			host = true;
		entry_free(e);
	}
	vm_map_delete_at(m, i, j - i);
	if (host && m->space != NULL)
		plat_space_unmap(m->space, start, end - start);
}

int
vm_map_protect(struct vm_map *m, uint64_t start, uint64_t end, int prot)
{
	int r = 0;

	if (!vm_map_range_mapped(m, start, end))
		return -ENOMEM;
	if ((prot & PLAT_PROT_WRITE) && vm_map_range_has(m, start, end,
	    VME_NOWRITE))
		return -EACCES;
	if ((r = vm_map_room(m, vm_map_splits(m, start, end))) < 0)
		return r;
	vm_map_clip(m, start);
	vm_map_clip(m, end);
	for (unsigned i = vm_map_search(m, start);
	    i < m->n && m->ent[i].start < end; i++) {
		struct vm_entry *e = &m->ent[i];
		uint64_t len = e->end - e->start;

		/*
		 * A file's pages are read when first touched, and large or
		 * untouched private memory is charged then.
		 */
		if (e->ramoff == VM_NORAM && prot != 0 && e->vn == NULL &&
		    e->obj == NULL && !vm_entry_untouched(e) &&
		    !vm_anon_lazy(len, e->flags, false)) {
			if ((r = vm_ram_alloc(len, &e->ramoff)) < 0)
				break;
			e->prot = prot;
			vm_entry_host_map(m, e);
			continue;
		}
		e->prot = prot;
		if (e->ramoff != VM_NORAM && m->space != NULL)
			plat_space_protect(m->space, e->start, len,
			    host_prot(e));
	}
	vm_map_merge_around(m, start, end);
	return r;
}

int
vm_map_discard(struct vm_map *m, uint64_t start, uint64_t end)
{
	for (unsigned i = vm_map_search(m, start);
	    i < m->n && m->ent[i].start < end; i++) {
		struct vm_entry *e = &m->ent[i];
		uint64_t s = VK_MAX(e->start, start), t = VK_MIN(e->end, end);
		int prot = e->prot;
		unsigned flags = e->flags & ~VME_COW;

		if (e->flags & VME_RESERVED)
			return -EINVAL;
		if (e->flags & VME_SHARED)
			continue;   /* the pages are the file's or shared */
		if (e->vn != NULL) {
			/* A private file page is read from the file again. */
			if (vm_map_room(m, 2) < 0)
				return -ENOMEM;
			vm_map_zap(m, s, t);
			i = vm_map_search(m, t) - 1;
			continue;
		}
		if (e->obj != NULL) {
			/* Shared pages stay the other side's: map fresh ones. */
			vm_map_remove(m, s, t);
			if (vm_map_anon(m, s, t - s, prot, flags) < 0)
				return -ENOMEM;
			i = vm_map_search(m, t) - 1;
			continue;
		}
		if (e->ramoff != VM_NORAM)
			plat_ram_discard(e->ramoff + (s - e->start), t - s);
	}
	return 0;
}

/*
 * Move [old, old + oldlen), part of one entry, to newva, grown to newlen
 * (at least oldlen).  Only a growth allocates, so only a growth fails:
 * -ENOMEM, with nothing changed.
 */
static int
move_entry(struct vm_map *m, uint64_t old, uint64_t oldlen, uint64_t newva,
    uint64_t newlen)
{
	struct vm_entry *e = vm_map_lookup(m, old);
	struct vm_entry ne;
	int r;

	VK_ASSERT(e != NULL && old + oldlen <= e->end && newlen >= oldlen);
	/*
	 * A file mapping grows into the file: the new pages are the file's,
	 * a private mapping's read and a shared one's mapped when first
	 * touched.  Shared anonymous memory grows past its object, into
	 * pages that raise SIGBUS, as Linux's shmem object keeps its size.
	 */
	if ((e->vn != NULL || (e->flags & VME_SHARED)) && newlen > oldlen) {
		ne = *e;
		ne.foff += old - e->start + oldlen;
		if ((r = vm_map_room(m, 3)) < 0 ||
		    (r = move_entry(m, old, oldlen, newva, oldlen)) < 0)
			return r;
		ne.start = newva + oldlen;
		ne.end = newva + newlen;
		ne.ramoff = VM_NORAM;
		ne.flags &= ~(unsigned)VME_COW;
		if (ne.vn != NULL)
			ne.obj = NULL;
		else if (ne.obj != NULL)
			ne.obj->refs++;
		else
			ne.obj = vm_obj_empty();
		vm_entry_vn_ref(&ne);
		vm_map_insert_at(m, vm_map_search(m, ne.start), &ne);
		vm_map_merge_around(m, ne.start, ne.end);
		return 0;
	}
	ne = *e;
	ne.foff += old - e->start;
	if (e->start != old)
		ne.ramoff = e->ramoff == VM_NORAM ? VM_NORAM :
		    e->ramoff + (old - e->start);
	ne.start = newva;
	ne.end = newva + newlen;
	if (ne.ramoff != VM_NORAM && newlen > oldlen && (ne.obj != NULL ||
	    newva != old || old + oldlen != e->end ||
	    vm_ram_extend(ne.ramoff, oldlen, newlen - oldlen) < 0)) {
		/* Cannot grow the extent where it is: copy to a new one. */
		uint64_t off;

		if ((r = vm_ram_alloc(newlen, &off)) < 0)
			return r;
		plat_ram_write(off, (char *)plat_ram_base() + ne.ramoff,
		    oldlen);
		vm_entry_vn_ref(&ne);   /* the old entry's goes */
		vm_map_remove(m, old, old + oldlen);
		ne.ramoff = off;
		ne.obj = NULL;
		ne.flags &= ~VME_COW;
	} else {
		/* The extent, or the share of one, moves with the entry. */
		vm_map_clip(m, old);
		vm_map_clip(m, old + oldlen);
		e = vm_map_lookup(m, old);
		vm_map_delete_at(m, (unsigned)(e - m->ent), 1);
		if (m->space != NULL)
			plat_space_unmap(m->space, old, oldlen);
	}
	VK_ASSERT(vm_map_range_free(m, ne.start, ne.end));
	vm_map_insert_at(m, vm_map_search(m, ne.start), &ne);
	vm_entry_host_map(m, &ne);
	vm_map_merge_around(m, ne.start, ne.end);
	return 0;
}

/*
 * One mapping may be several entries (parts with RAM and without,
 * copy-on-write parts): each moves on its own.  The last one, which
 * grows, goes first, since only a growth can fail.
 */
int
vm_map_move(struct vm_map *m, uint64_t old, uint64_t oldlen, uint64_t newva,
    uint64_t newlen)
{
	uint64_t last, n = 0;
	int r;

	/* As Linux's mremap, a shrinking move unmaps the tail first. */
	if (newlen < oldlen) {
		vm_map_remove(m, old + newlen, old + oldlen);
		oldlen = newlen;
	}
	last = VK_MAX(vm_map_lookup(m, old + oldlen - 1)->start, old);
	for (unsigned i = vm_map_search(m, old);
	    i < m->n && m->ent[i].start < old + oldlen; i++)
		n++;
	if ((r = vm_map_room(m, n + 2)) < 0 ||
	    (r = move_entry(m, last, old + oldlen - last, newva + (last - old),
	    newlen - (last - old))) < 0)
		return r;
	for (uint64_t va = old; va < last && newva != old; ) {
		uint64_t end = VK_MIN(vm_map_lookup(m, va)->end, last);

		(void)move_entry(m, va, end - va, newva + (va - old), end - va);
		va = end;
	}
	return 0;
}

bool
vm_entry_continues(const struct vm_entry *a, const struct vm_entry *b)
{
	if (a->end != b->start || a->prot != b->prot || a->vn != b->vn ||
	    ((a->flags ^ b->flags) & ~(unsigned)VME_COW) != 0)
		return false;
	if ((a->flags & VME_SHARED) && a->obj != b->obj)
		return false;
	if (a->vn != NULL || (a->obj != NULL && a->obj->vn != NULL))
		return a->foff + (a->end - a->start) == b->foff;
	return true;
}

bool
vm_map_range_one(const struct vm_map *m, uint64_t start, uint64_t end)
{
	unsigned i = vm_map_search(m, start);

	if (i == m->n || m->ent[i].start > start)
		return false;
	for (; m->ent[i].end < end; i++)
		if (i + 1 == m->n ||
		    !vm_entry_continues(&m->ent[i], &m->ent[i + 1]))
			return false;
	return true;
}

bool
vm_map_count_above(const struct vm_map *m, unsigned k)
{
	return m->n + PLAT_SPACE_OWN_MAPS > k;
}

bool
vm_map_may_cut(struct vm_map *m, uint64_t start, uint64_t end,
    bool (*same)(const struct vm_entry *, int), int arg)
{
	unsigned n = 0;

	for (int k = 0; k < 2; k++) {
		uint64_t va = k == 0 ? start : end;
		const struct vm_entry *e = vm_map_lookup(m, va);

		if (e != NULL && e->start < va && !same(e, arg))
			n++;
	}
	return n == 0 || !vm_map_count_above(m, VM_MAX_MAP_COUNT - n);
}

bool
vm_map_hole(struct vm_map *m, uint64_t start, uint64_t end)
{
	const struct vm_entry *e = vm_map_lookup(m, start);

	return e != NULL && e->start < start && end < e->end;
}

int
vm_map_hostptr(struct vm_map *m, uint64_t va, uint64_t len, int need,
    void **hpp, uint64_t *np)
{
	struct vm_entry *e = vm_map_lookup(m, va);

	/* A kernel write into copy-on-write memory copies the page first. */
	if (e != NULL && (e->flags & VME_COW) && (need & PLAT_PROT_WRITE) &&
	    (e->prot & PLAT_PROT_WRITE)) {
		if (vm_fill_oom(m, va, vm_map_cow) < 0)
			return -EFAULT;
		e = vm_map_lookup(m, va);
	}
	/* A shared file page not mapped yet is mapped, as a fault would. */
	if (e != NULL && (e->flags & VME_SHARED) && e->obj != NULL &&
	    e->obj->vn != NULL && e->ramoff == VM_NORAM && e->prot != 0 &&
	    (e->prot & need) == need) {
		if (vm_map_file_fault(m, va) < 0)
			return -EFAULT;
		e = vm_map_lookup(m, va);
	}
	/* A private file page not read yet is read, as a fault would. */
	if (e != NULL && e->vn != NULL && e->ramoff == VM_NORAM &&
	    e->prot != 0 && (e->prot & need) == need) {
		if (vm_fill_oom(m, va, vm_map_file_fill) < 0)
			return -EFAULT;
		e = vm_map_lookup(m, va);
	}

	/* Untouched private memory gets its pages, as a fault would. */
	if (e != NULL && vm_entry_untouched(e) &&
	    (e->prot & need) == need) {
		if (vm_fill_oom(m, va, vm_map_anon_fill) < 0)
			return -EFAULT;
		e = vm_map_lookup(m, va);
	}

	if (e == NULL || e->ramoff == VM_NORAM || (e->flags & VME_RESERVED))
		return -EFAULT;
	if ((e->prot & need) != need || (need != 0 && e->prot == 0))
		return -EFAULT;
	*hpp = (char *)plat_ram_base() + e->ramoff + (va - e->start);
	*np = VK_MIN(len, e->end - va);
	return 0;
}

void
vm_map_attach(struct vm_map *m, struct plat_space *sp)
{
	m->space = sp;
	for (unsigned i = 0; i < m->n; i++)
		vm_entry_host_map(m, &m->ent[i]);
}

void
vm_map_fork_attach(struct vm_map *m, struct plat_space *sp)
{
	m->space = sp;
	for (unsigned i = 0; i < m->n; i++)
		if (m->ent[i].ramoff != VM_NORAM && m->ent[i].obj == NULL)
			vm_entry_host_map(m, &m->ent[i]);
}

void
vm_map_unmap_host(const struct vm_map *m, struct plat_space *sp)
{
	for (unsigned i = 0; i < m->n; i++)
		if (!(m->ent[i].flags & VME_RESERVED))
			plat_space_unmap(sp, m->ent[i].start,
			    m->ent[i].end - m->ent[i].start);
}

/*
 * A write fault copies the aligned 64 KiB around the page, as far as its
 * entry goes: the fault costs the guest several stops of its thread, a
 * copy of a page a fraction of one, and a stack, heap or data segment
 * is written a run of pages at a time.  Short of RAM, the page alone.
 * A fork copies as much around each address both sides write at once.
 */
#define COW_AROUND (16 * VK_PAGE_SIZE)

/*
 * Small private writable memory (a program's data and bss, a small heap)
 * is copied at fork too, up to FORK_COPY_MAX bytes a fork: sharing it
 * costs the parent a mapping change at the fork and another when the
 * child execs or exits, and the side that writes it first a fault, each
 * dearer here than copying tens of KiB.
 */
#define FORK_COPY_SMALL (16 * VK_PAGE_SIZE)
#define FORK_COPY_MAX   (64 * VK_PAGE_SIZE)

/* Whether e lies within the aligned window around one of hot[0, nhot). */
static bool
fork_hot(const struct vm_entry *e, const uint64_t *hot, unsigned nhot)
{
	for (unsigned i = 0; i < nhot; i++) {
		uint64_t lo = VK_ROUND_DOWN(hot[i], COW_AROUND);

		if (e->start >= lo && e->end <= lo + COW_AROUND)
			return true;
	}
	return false;
}

/*
 * Cut src's private writable memory of its own at the windows around
 * hot, so that fork_copy() finds each window an entry.  Never near the
 * limit on entries.
 */
static void
fork_clip_hot(struct vm_map *src, const uint64_t *hot, unsigned nhot)
{
	for (unsigned i = 0; i < nhot; i++) {
		uint64_t lo = VK_ROUND_DOWN(hot[i], COW_AROUND), hi;
		struct vm_entry *e;

		/* Room first: it may move the entries, and e with them. */
		if (vm_map_count_above(src, VM_MAX_MAP_COUNT - 4) ||
		    vm_map_room(src, 2) < 0)
			return;
		e = vm_map_lookup(src, hot[i]);
		if (e == NULL || e->ramoff == VM_NORAM || e->obj != NULL ||
		    (e->flags & (VME_SHARED | VME_COW | VME_RESERVED)) ||
		    !(e->prot & PLAT_PROT_WRITE))
			continue;
		hi = VK_MIN(lo + COW_AROUND, e->end);
		lo = VK_MAX(lo, e->start);
		vm_map_clip(src, lo);
		vm_map_clip(src, hi);
	}
}

/*
 * The child's own copy of e, private writable memory of src's own in a
 * window around a hot address, or small enough to fit what is left of
 * *smallp: RAM at *offp, holding e's bytes.  The copy is made now rather
 * than at the two write faults (the parent's and the child's) that
 * sharing it would cost.  False when e is not such memory, or RAM is
 * short: e is then shared.
 */
static bool
fork_copy(const struct vm_entry *e, const uint64_t *hot, unsigned nhot,
    uint64_t *smallp, uint64_t *offp)
{
	uint64_t len = e->end - e->start;
	bool hotwin;

	if (nhot == 0 || e->ramoff == VM_NORAM || e->obj != NULL ||
	    (e->flags & (VME_SHARED | VME_COW | VME_RESERVED)) ||
	    !(e->prot & PLAT_PROT_WRITE))
		return false;
	hotwin = fork_hot(e, hot, nhot);
	if (!hotwin && (len > FORK_COPY_SMALL || len > *smallp))
		return false;
	if (vm_ram_alloc(len, offp) < 0)
		return false;
	plat_ram_write(*offp, plat_ram_base() + e->ramoff, len);
	if (!hotwin)
		*smallp -= len;
	return true;
}

int
vm_map_fork(struct vm_map *src, struct vm_map *dst, const uint64_t *hot,
    unsigned nhot)
{
	uint64_t small = FORK_COPY_MAX;
	int r;

	fork_clip_hot(src, hot, nhot);
	if ((r = vm_map_room(dst, src->n)) < 0)
		return r;
	dst->min = src->min;
	dst->max = src->max;
	dst->mmap_base = src->mmap_base;
	dst->brk_start = src->brk_start;
	dst->brk_cur = src->brk_cur;
	for (unsigned i = 0; i < src->n; i++) {
		struct vm_entry *e = &src->ent[i];
		uint64_t copy = VM_NORAM;

		if (fork_copy(e, hot, nhot, &small, &copy)) {
			/* The parent's stays as it is, writable. */
		} else if (e->flags & VME_SHARED) {
			/* Shared memory stays shared: the child maps it too. */
			if (e->obj == NULL && e->ramoff != VM_NORAM) {
				e->obj = vm_obj_alloc();
				e->obj->ramoff = e->ramoff;
				e->obj->len = e->end - e->start;
			}
			if (e->obj != NULL)
				e->obj->refs++;
		} else if (e->ramoff != VM_NORAM) {
			if (e->obj == NULL) {
				e->obj = vm_obj_alloc();
				e->obj->ramoff = e->ramoff;
				e->obj->len = e->end - e->start;
			}
			e->obj->refs++;
			if ((e->prot & PLAT_PROT_WRITE) &&
			    !(e->flags & VME_COW) && src->space != NULL)
				plat_space_protect(src->space, e->start,
				    e->end - e->start, e->prot &
				    ~PLAT_PROT_WRITE);
			e->flags |= VME_COW;
		}
		vm_entry_vn_ref(e);
		vm_map_insert_at(dst, dst->n, e);
		if (copy != VM_NORAM)
			dst->ent[dst->n - 1].ramoff = copy;
		/* Memory locks are not inherited (mlock(2)). */
		dst->ent[dst->n - 1].flags &= ~(unsigned)VME_LOCKED;
		if (e->obj != NULL && e->obj->watch != NULL)
			vm_obj_fork_watched(&dst->ent[dst->n - 1]);
	}
	vm_obj_fork_done(src);
	return 0;
}

/*
 * The only sharer left owns its RAM again: the rest of the object's
 * extent, which no entry maps any more, goes back to the allocator.
 */
static void
cow_take_all(struct vm_map *m, struct vm_entry *e)
{
	struct vm_obj *obj = e->obj;
	uint64_t head = e->ramoff - obj->ramoff;
	uint64_t tail = obj->ramoff + obj->len - (e->ramoff + e->end -
	    e->start);

	if (head > 0)
		vm_ram_free(obj->ramoff, head);
	if (tail > 0)
		vm_ram_free(obj->ramoff + obj->len - tail, tail);
	kmem_free(obj, sizeof(*obj), 0);
	e->obj = NULL;
	e->flags &= ~VME_COW;
	if (m->space != NULL)
		plat_space_protect(m->space, e->start, e->end - e->start,
		    e->prot);
}

int
vm_map_cow(struct vm_map *m, uint64_t va)
{
	uint64_t page = VK_ROUND_DOWN(va, VK_PAGE_SIZE), start, end, off;
	struct vm_entry *e = vm_map_lookup(m, page);
	char *ram = plat_ram_base();
	int r;

	VK_ASSERT(e != NULL && (e->flags & VME_COW) && e->obj != NULL);
	if (e->obj->refs == 1) {
		cow_take_all(m, e);
		return 0;
	}
	start = VK_MAX(e->start, VK_ROUND_DOWN(page, COW_AROUND));
	end = VK_MIN(e->end, VK_ROUND_DOWN(page, COW_AROUND) + COW_AROUND);
	/* At the limit on entries, all of the entry: cut nothing. */
	if (vm_map_count_above(m, VM_MAX_MAP_COUNT - 2)) {
		start = e->start;
		end = e->end;
	}
	if (vm_ram_alloc(end - start, &off) < 0) {
		start = page;
		end = page + VK_PAGE_SIZE;
		if ((r = vm_ram_alloc(VK_PAGE_SIZE, &off)) < 0)
			return r;
	}
	plat_ram_write(off, ram + e->ramoff + (start - e->start), end - start);
	vm_map_clip(m, start);
	vm_map_clip(m, end);
	e = vm_map_lookup(m, page);
	vm_obj_rel(e->obj);
	e->obj = NULL;
	e->ramoff = off;
	e->flags &= ~VME_COW;
	vm_entry_host_map(m, e);
	return 0;
}

int
vm_map_obj_cow(struct vm_map *m, uint64_t start, uint64_t len, int prot,
    struct vm_obj *obj, uint64_t off, struct vnode *vn)
{
	struct vm_entry e = {
		.start = start, .end = start + len, .prot = prot,
		.flags = VME_COW, .obj = obj, .ramoff = obj->ramoff + off,
		.foff = off, .vn = vn,
	};

	VK_ASSERT(VK_PAGE_ALIGNED(start) && VK_PAGE_ALIGNED(len) && len > 0);
	VK_ASSERT(vm_map_range_free(m, start, start + len));
	VK_ASSERT(off + len <= obj->len);
	obj->refs++;
	vm_entry_vn_ref(&e);
	vm_map_insert_at(m, vm_map_search(m, start), &e);
	vm_entry_host_map(m, &e);
	return 0;
}
