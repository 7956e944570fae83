/*
 * tmpfs: the data of regular files.
 *
 * The data of a regular file is a sparse array of RAM file offsets, one
 * per 4 KiB page, kept in a radix tree of 512-slot nodes (a hole is
 * VM_NORAM and reads as zeros).  Bytes of an allocated page beyond the
 * file's size are always zero, so that growing a file never has to clear
 * anything: truncation clears the tail of the last page instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/platform.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/tmpfs/tmpfs_impl.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"
#include "vkern/vm/vm_ram.h"

#define TMPFS_RW_MAX      0x7ffff000UL /* Linux's MAX_RW_COUNT */

/* Contiguous RAM ranges freed together: one host discard per run. */
struct ram_run {
	uint64_t off, len;
};

/*
 * --- The page tree of a regular file ---
 */

/* Pages covered by a subtree of height h (h >= 0). */
static uint64_t
pgt_span(unsigned h)
{
	return 1ULL << (PGT_SHIFT * h);
}

static struct pgt_node *
pgt_node_alloc(bool leaf)
{
	struct pgt_node *n = vk_xcalloc(1, sizeof(*n));

	/* Offset 0 is a valid page, so a leaf's holes must be said. */
	if (leaf)
		for (unsigned i = 0; i < PGT_FANOUT; i++)
			n->page[i] = VM_NORAM;
	return n;
}

/* The RAM offset of page idx, or VM_NORAM for a hole. */
static uint64_t
pgt_lookup(const struct tmpfs_file *f, uint64_t idx)
{
	const struct pgt_node *n = f->root;

	if (n == NULL || idx >= pgt_span(f->height))
		return VM_NORAM;
	for (unsigned h = f->height; h > 1; h--) {
		n = n->child[(idx >> (PGT_SHIFT * (h - 1))) & PGT_MASK];
		if (n == NULL)
			return VM_NORAM;
	}
	return n->page[idx & PGT_MASK];
}

/* Add levels on top until the tree covers page idx. */
static void
pgt_grow(struct tmpfs_file *f, uint64_t idx)
{
	if (f->root == NULL) {
		f->height = 1;
		while (idx >= pgt_span(f->height))
			f->height++;
		f->root = pgt_node_alloc(f->height == 1);
		return;
	}
	while (idx >= pgt_span(f->height)) {
		struct pgt_node *n = pgt_node_alloc(false);

		n->child[0] = f->root;
		f->root = n;
		f->height++;
	}
}

/* The slot of page idx, made along with the nodes above it if need be. */
static uint64_t *
pgt_slot(struct tmpfs_file *f, uint64_t idx)
{
	struct pgt_node *n;

	pgt_grow(f, idx);
	n = f->root;
	for (unsigned h = f->height; h > 1; h--) {
		struct pgt_node **cp =
		    &n->child[(idx >> (PGT_SHIFT * (h - 1))) & PGT_MASK];

		if (*cp == NULL)
			*cp = pgt_node_alloc(h == 2);
		n = *cp;
	}
	return &n->page[idx & PGT_MASK];
}

static void
ram_run_flush(struct ram_run *run)
{
	if (run->len > 0)
		vm_ram_free(run->off, run->len);
	run->len = 0;
}

/* Free a page, merged with the run before it when they touch. */
static void
ram_run_add(struct ram_run *run, uint64_t off)
{
	if (run->len > 0 && run->off + run->len == off) {
		run->len += VK_PAGE_SIZE;
		return;
	}
	ram_run_flush(run);
	run->off = off;
	run->len = VK_PAGE_SIZE;
}

/* Free the pages from first on of a leaf for pages [base, base + 512). */
static bool
pgt_trunc_leaf(struct tmpfs_file *f, struct pgt_node *n, uint64_t base,
    uint64_t first, struct ram_run *run)
{
	bool empty = true;

	for (unsigned i = 0; i < PGT_FANOUT; i++) {
		if (n->page[i] == VM_NORAM)
			continue;
		if (base + i < first) {
			empty = false;
			continue;
		}
		ram_run_add(run, n->page[i]);
		n->page[i] = VM_NORAM;
		f->npages--;
	}
	return empty;
}

/*
 * Free the pages from first on in the subtree n of height h whose first
 * page is base, and the nodes left empty.  Returns whether n is empty.
 */
static bool
pgt_trunc_node(struct tmpfs_file *f, struct pgt_node *n, unsigned h,
    uint64_t base, uint64_t first, struct ram_run *run)
{
	uint64_t span = pgt_span(h - 1);
	bool empty = true;

	if (h == 1)
		return pgt_trunc_leaf(f, n, base, first, run);
	for (unsigned i = 0; i < PGT_FANOUT; i++) {
		uint64_t sbase = base + i * span;

		if (n->child[i] == NULL)
			continue;
		if (sbase + span <= first || !pgt_trunc_node(f, n->child[i],
		    h - 1, sbase, first, run)) {
			empty = false;
			continue;
		}
		free(n->child[i]);
		n->child[i] = NULL;
	}
	return empty;
}

/* Free every page at index first or above. */
static void
pgt_truncate(struct tmpfs_file *f, uint64_t first)
{
	struct ram_run run = { 0, 0 };

	if (f->root == NULL)
		return;
	if (pgt_trunc_node(f, f->root, f->height, 0, first, &run)) {
		free(f->root);
		f->root = NULL;
		f->height = 0;
	}
	ram_run_flush(&run);
}

/* Clear the bytes of the last page beyond size (the tail invariant). */
static void
file_zero_tail(struct tmpfs_node *np, uint64_t size)
{
	uint64_t pgoff = size & VK_PAGE_MASK;
	uint64_t ram;

	if (pgoff == 0)
		return;
	ram = pgt_lookup(&np->reg, size / VK_PAGE_SIZE);
	if (ram != VM_NORAM)
		memset((char *)plat_ram_base() + ram + pgoff, 0,
		    VK_PAGE_SIZE - pgoff);
}

void
tmpfs_file_resize(struct tmpfs_node *np, uint64_t size)
{
	uint64_t first = VK_ROUND_UP(size, VK_PAGE_SIZE) / VK_PAGE_SIZE;

	if (size < np->size && np->reg.mapped > 0) {
		for (uint64_t i = first; i * VK_PAGE_SIZE < np->size; i++) {
			uint64_t ram = pgt_lookup(&np->reg, i);

			if (ram != VM_NORAM)
				memset((char *)plat_ram_base() + ram, 0,
				    VK_PAGE_SIZE);
		}
		file_zero_tail(np, size);
	} else if (size < np->size) {
		pgt_truncate(&np->reg, first);
		file_zero_tail(np, size);
	}
	np->size = size;
}

void
tmpfs_map_pin(struct vnode *vn, bool on, bool maywrite)
{
	struct tmpfs_node *np = vn->data;

	VK_ASSERT(vn->type == VREG && (on || np->reg.mapped > 0));
	VK_ASSERT(on || !maywrite || np->reg.wmapped > 0);
	np->reg.mapped += on ? 1 : -1;
	if (maywrite)
		np->reg.wmapped += on ? 1 : -1;
}

int
tmpfs_page(struct vnode *vn, uint64_t idx, uint64_t *ramoff)
{
	struct tmpfs_node *np = vn->data;
	uint64_t *slot;
	int r;

	if (idx >= VK_ROUND_UP(np->size, VK_PAGE_SIZE) / VK_PAGE_SIZE)
		return -ENXIO;
	slot = pgt_slot(&np->reg, idx);
	if (*slot == VM_NORAM) {
		if ((r = vm_ram_alloc(VK_PAGE_SIZE, slot)) < 0)
			return r;
		np->reg.npages++;
	}
	*ramoff = *slot;
	return 0;
}

/*
 * --- Seals ---
 */

static bool
seals_deny_write(unsigned seals)
{
	return (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) != 0;
}

/* vn's node if it is a tmpfs regular file, the only kind with seals. */
static struct tmpfs_node *
seals_node(const struct vnode *vn)
{
	if (!tmpfs_is_tmpfs(vn) || vn->type != VREG)
		return NULL;
	return vn->data;
}

int
tmpfs_seals_get(const struct vnode *vn)
{
	const struct tmpfs_node *np = seals_node(vn);

	return np == NULL ? -EINVAL : (int)np->reg.seals;
}

int
tmpfs_seals_add(struct vnode *vn, unsigned seals)
{
	struct tmpfs_node *np = seals_node(vn);

	/* In the order of Linux's memfd_add_seals(). */
	if ((seals & ~(unsigned)TMPFS_SEALS_ALL) != 0 || np == NULL)
		return -EINVAL;
	if (np->reg.seals & F_SEAL_SEAL)
		return -EPERM;
	if ((seals & F_SEAL_WRITE) && !(np->reg.seals & F_SEAL_WRITE) &&
	    np->reg.wmapped > 0)
		return -EBUSY;
	/* An executable file sealed against exec is sealed against writes. */
	if ((seals & F_SEAL_EXEC) && (np->mode & 0111))
		seals |= F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
		    F_SEAL_FUTURE_WRITE;
	np->reg.seals |= seals;
	return 0;
}

void
tmpfs_seals_set(struct vnode *vn, unsigned seals)
{
	struct tmpfs_node *np = seals_node(vn);

	VK_ASSERT(np != NULL);
	np->reg.seals = seals;
}

bool
tmpfs_write_sealed(const struct vnode *vn)
{
	const struct tmpfs_node *np = seals_node(vn);

	return np != NULL && seals_deny_write(np->reg.seals);
}

int
tmpfs_seals_check_setattr(const struct tmpfs_node *np,
    const struct vattr *va, unsigned mask)
{
	unsigned seals = np->reg.seals;

	if ((mask & VA_SIZE) != 0 &&
	    ((va->size < np->size && (seals & F_SEAL_SHRINK)) ||
	    (va->size > np->size && (seals & F_SEAL_GROW))))
		return -EPERM;
	if ((mask & VA_MODE) != 0 && (seals & F_SEAL_EXEC) &&
	    ((np->mode ^ va->mode) & 0111) != 0)
		return -EPERM;
	return 0;
}

/*
 * What the seals let a write of *lenp bytes at off do: -EPERM, or under
 * F_SEAL_GROW go on short, up to the page where it would grow the file,
 * as Linux's shmem_write_begin() refuses the first page that would.
 */
static int
seals_check_write(const struct tmpfs_node *np, uint64_t off, size_t *lenp)
{
	uint64_t end;

	if (seals_deny_write(np->reg.seals))
		return -EPERM;
	if (!(np->reg.seals & F_SEAL_GROW) || off + *lenp <= np->size)
		return 0;
	end = VK_ROUND_DOWN(np->size, VK_PAGE_SIZE);
	if (end <= off)
		return -EPERM;
	*lenp = (size_t)(end - off);
	return 0;
}

/*
 * --- Vnode ops: data ---
 */

/* Whether vn can be read or written as a regular file, or -errno. */
static int
io_check(const struct vnode *vn)
{
	if (vn->type == VDIR)
		return -EISDIR;
	return vn->type == VREG ? 0 : -EINVAL;
}

long
tmpfs_read(struct vnode *vn, void *buf, size_t len, uint64_t off)
{
	struct tmpfs_node *np = vn->data;
	char *base = plat_ram_base(), *dst = buf;
	size_t done = 0;
	int r;

	if ((r = io_check(vn)) < 0)
		return r;
	if (off >= np->size || len == 0)
		return 0;
	len = VK_MIN(len, VK_MIN(np->size - off, TMPFS_RW_MAX));
	while (done < len) {
		uint64_t pos = off + done;
		size_t pgoff = pos & VK_PAGE_MASK;
		size_t n = VK_MIN(len - done, VK_PAGE_SIZE - pgoff);
		uint64_t ram = pgt_lookup(&np->reg, pos / VK_PAGE_SIZE);

		if (ram == VM_NORAM)
			memset(dst + done, 0, n);
		else
			memmove(dst + done, base + ram + pgoff, n);
		done += n;
	}
	tmpfs_touch_atime(np);
	return (long)done;
}

/*
 * Copy into the file from off on, allocating pages for holes.  Returns
 * the bytes copied: fewer than len when the RAM file is full.
 */
static size_t
file_fill(struct tmpfs_node *np, const char *src, size_t len, uint64_t off)
{
	char *base = plat_ram_base();
	size_t done = 0;

	while (done < len) {
		uint64_t pos = off + done;
		size_t pgoff = pos & VK_PAGE_MASK;
		size_t n = VK_MIN(len - done, VK_PAGE_SIZE - pgoff);
		uint64_t *slot = pgt_slot(&np->reg, pos / VK_PAGE_SIZE);

		if (*slot == VM_NORAM) {
			if (vm_ram_alloc(VK_PAGE_SIZE, slot) < 0)
				break;
			np->reg.npages++;
		}
		/* memmove: the source may be a mapping of this very page. */
		memmove(base + *slot + pgoff, src + done, n);
		done += n;
	}
	return done;
}

long
tmpfs_write(struct vnode *vn, const void *buf, size_t len, uint64_t off)
{
	struct tmpfs_node *np = vn->data;
	size_t done;
	int r;

	if ((r = io_check(vn)) < 0)
		return r;
	if (vn->mount->rdonly)
		return -EROFS;
	if (len == 0)
		return 0;
	/* As Linux's generic_write_check_limits(): EFBIG, or write short. */
	if (off >= TMPFS_MAXFILESIZE)
		return -EFBIG;
	len = VK_MIN(len, VK_MIN(TMPFS_MAXFILESIZE - off, TMPFS_RW_MAX));
	if ((r = seals_check_write(np, off, &len)) < 0)
		return r;
	done = file_fill(np, buf, len, off);
	if (done == 0)
		return -ENOMEM;
	if (off + done > np->size)
		np->size = off + done;
	np->mtime = np->ctime = tmpfs_now();
	return (long)done;
}

void
tmpfs_file_free(struct tmpfs_file *f)
{
	pgt_truncate(f, 0);
}
