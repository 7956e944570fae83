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
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/tmpfs/tmpfs_impl.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"
#include "vkern/vm/vm_ram.h"

#define TMPFS_RW_MAX      0x7ffff000UL /* Linux's MAX_RW_COUNT */
/* Beyond any page of any file, as a byte offset. */
#define FILE_END          VK_ROUND_DOWN(UINT64_MAX, VK_PAGE_SIZE)

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

/*
 * A table node, charged to the sandbox.  XXX: never refused, since the
 * callers cannot fail yet; the page it is for is refused instead, so a
 * sparse file can go past --mem by one leaf for each page it has.
 */
static struct pgt_node *
pgt_node_alloc(bool leaf)
{
	struct pgt_node *n = kmem_alloc(sizeof(*n), KM_ZERO | KM_FORCE |
	    KM_FS);

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

/*
 * In the subtree n of height h that starts at page base: the first page
 * at or after idx that is allocated (data) or a hole (!data), or
 * UINT64_MAX.  Empty subtrees are skipped whole.
 */
static uint64_t
pgt_next_node(const struct pgt_node *n, unsigned h, uint64_t base,
    uint64_t idx, bool data)
{
	uint64_t span = pgt_span(h - 1);

	if (n == NULL)
		return data ? UINT64_MAX : VK_MAX(idx, base);
	for (uint64_t i = idx > base ? (idx - base) / span : 0;
	    i < PGT_FANOUT; i++) {
		uint64_t cb = base + i * span, r;

		if (h == 1) {
			if ((n->page[i] != VM_NORAM) == data)
				return VK_MAX(cb, idx);
			continue;
		}
		r = pgt_next_node(n->child[i], h - 1, cb, VK_MAX(idx, cb), data);
		if (r != UINT64_MAX)
			return r;
	}
	return UINT64_MAX;
}

/* The first page at or after idx that is data (or a hole), or UINT64_MAX. */
static uint64_t
pgt_next(const struct tmpfs_file *f, uint64_t idx, bool data)
{
	uint64_t r = UINT64_MAX;

	if (f->root != NULL && idx < pgt_span(f->height))
		r = pgt_next_node(f->root, f->height, 0, idx, data);
	/* Past the tree everything is a hole. */
	if (r == UINT64_MAX && !data)
		r = VK_MAX(idx, f->root != NULL ? pgt_span(f->height) : 0);
	return r;
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

uint64_t tmpfs_disk_max = UINT64_MAX;
uint64_t tmpfs_disk_used;

bool
tmpfs_fs_room(const struct tmpfs_fs *fs, uint64_t n)
{
	if (fs->max_pages != 0 && fs->max_pages - fs->npages < n)
		return false;
	return !fs->disk || tmpfs_disk_max - tmpfs_disk_used >= n;
}

void
tmpfs_fs_count(struct tmpfs_fs *fs, int64_t n)
{
	fs->npages += (uint64_t)n;
	if (fs->disk)
		tmpfs_disk_used += (uint64_t)n;
}

/* Whether n more pages of f fit its file system. */
static bool
file_pages_room(struct tmpfs_file *f, uint64_t n)
{
	return tmpfs_fs_room(VK_CONTAINER_OF(f, struct tmpfs_node, reg)->fs,
	    n);
}

/* f holds n pages more (or fewer), and so its file system. */
static void
file_pages_count(struct tmpfs_file *f, int64_t n)
{
	f->npages += (uint64_t)n;
	tmpfs_fs_count(VK_CONTAINER_OF(f, struct tmpfs_node, reg)->fs, n);
}

/*
 * What running out of RAM for a file's page is: a mounted file system
 * is full (-ENOSPC, as Linux's tmpfs, which fills at its size first),
 * a memfd's memory is out (-ENOMEM).
 */
static int
file_ram_full(const struct tmpfs_node *np)
{
	return np->fs->disk ? -ENOSPC : -ENOMEM;
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

/*
 * What pgt_range() does to the allocated pages of a range: free them, or
 * (while a stub may map them) only clear them.
 */
enum pgt_op { PGT_FREE, PGT_ZERO };

/* pgt_range() in a leaf for pages [base, base + 512). */
static bool
pgt_range_leaf(struct tmpfs_file *f, struct pgt_node *n, uint64_t base,
    uint64_t first, uint64_t end, enum pgt_op op, struct ram_run *run)
{
	bool empty = true;

	for (unsigned i = 0; i < PGT_FANOUT; i++) {
		bool in = base + i >= first && base + i < end;

		if (n->page[i] == VM_NORAM)
			continue;
		if (in && op == PGT_ZERO)
			memset((char *)plat_ram_base() + n->page[i], 0,
			    VK_PAGE_SIZE);
		if (!in || op == PGT_ZERO) {
			empty = false;
			continue;
		}
		ram_run_add(run, n->page[i]);
		n->page[i] = VM_NORAM;
		file_pages_count(f, -1);
	}
	return empty;
}

/*
 * Apply op to the pages [first, end) in the subtree n of height h whose
 * first page is base, freeing the nodes left empty.  Returns whether n
 * is empty.  Subtrees outside the range or never made are not walked,
 * so a range may be as large as the file may be.
 */
static bool
pgt_range_node(struct tmpfs_file *f, struct pgt_node *n, unsigned h,
    uint64_t base, uint64_t first, uint64_t end, enum pgt_op op,
    struct ram_run *run)
{
	uint64_t span = pgt_span(h - 1);
	bool empty = true;

	if (h == 1)
		return pgt_range_leaf(f, n, base, first, end, op, run);
	for (unsigned i = 0; i < PGT_FANOUT; i++) {
		uint64_t sbase = base + i * span;

		if (n->child[i] == NULL)
			continue;
		if (sbase + span <= first || sbase >= end ||
		    !pgt_range_node(f, n->child[i], h - 1, sbase, first, end,
		    op, run)) {
			empty = false;
			continue;
		}
		kmem_free(n->child[i], sizeof(*n->child[i]), KM_FS);
		n->child[i] = NULL;
	}
	return empty;
}

/* Apply op to every allocated page in [first, end). */
static void
pgt_range(struct tmpfs_file *f, uint64_t first, uint64_t end, enum pgt_op op)
{
	struct ram_run run = { 0, 0 };

	if (f->root == NULL || first >= end)
		return;
	if (pgt_range_node(f, f->root, f->height, 0, first, end, op, &run)) {
		kmem_free(f->root, sizeof(*f->root), KM_FS);
		f->root = NULL;
		f->height = 0;
	}
	ram_run_flush(&run);
}

/* Clear bytes [off, end) of one page of the file, if it is allocated. */
static void
file_zero_part(struct tmpfs_node *np, uint64_t off, uint64_t end)
{
	uint64_t ram = pgt_lookup(&np->reg, off / VK_PAGE_SIZE);

	VK_ASSERT(off < end && (end - 1) / VK_PAGE_SIZE == off / VK_PAGE_SIZE);
	if (ram != VM_NORAM)
		memset((char *)plat_ram_base() + ram + (off & VK_PAGE_MASK), 0,
		    end - off);
}

/*
 * Drop bytes [off, end) of the file: whole pages go (or are cleared,
 * while mapped), the parts of the pages at either edge are cleared.
 */
static void
file_clear(struct tmpfs_node *np, uint64_t off, uint64_t end)
{
	uint64_t first = VK_ROUND_UP(off, VK_PAGE_SIZE) / VK_PAGE_SIZE;
	uint64_t last = end / VK_PAGE_SIZE;

	if (first > last) {
		file_zero_part(np, off, end);
		return;
	}
	if (off & VK_PAGE_MASK)
		file_zero_part(np, off, first * VK_PAGE_SIZE);
	if (end & VK_PAGE_MASK)
		file_zero_part(np, last * VK_PAGE_SIZE, end);
	pgt_range(&np->reg, first, last,
	    np->reg.mapped > 0 ? PGT_ZERO : PGT_FREE);
}

void
tmpfs_file_resize(struct tmpfs_node *np, uint64_t size)
{
	/*
	 * Beyond the size, even in a last partial page, all must read zero;
	 * pages allocated beyond the old size (FALLOC_FL_KEEP_SIZE) go too.
	 */
	if (size < np->size)
		file_clear(np, size, FILE_END);
	np->size = size;
}

int
tmpfs_map_pin(struct vnode *vn, bool on, bool maywrite)
{
	struct tmpfs_node *np = vn->data;

	VK_ASSERT(vn->type == VREG && (on || np->reg.mapped > 0));
	VK_ASSERT(on || !maywrite || np->reg.wmapped > 0);
	np->reg.mapped += on ? 1 : -1;
	if (maywrite)
		np->reg.wmapped += on ? 1 : -1;
	return 0;
}

int
tmpfs_page(struct vnode *vn, uint64_t idx, uint64_t *ramoff)
{
	struct tmpfs_node *np = vn->data;
	uint64_t *slot;

	if (idx >= VK_ROUND_UP(np->size, VK_PAGE_SIZE) / VK_PAGE_SIZE)
		return -ENXIO;
	slot = pgt_slot(&np->reg, idx);
	if (*slot == VM_NORAM) {
		if (!file_pages_room(&np->reg, 1))
			return -ENOSPC;
		if (vm_ram_alloc(VK_PAGE_SIZE, slot) < 0)
			return file_ram_full(np);
		file_pages_count(&np->reg, 1);
	}
	*ramoff = *slot;
	return 0;
}

int
tmpfs_page_find(struct vnode *vn, uint64_t idx, uint64_t *ramoff)
{
	struct tmpfs_node *np = vn->data;
	uint64_t ram = pgt_lookup(&np->reg, idx);

	if (ram == VM_NORAM)
		return -ENXIO;
	*ramoff = ram;
	return 0;
}

uint64_t
tmpfs_page_next(struct vnode *vn, uint64_t idx)
{
	struct tmpfs_node *np = vn->data;

	return pgt_next(&np->reg, idx, true);
}

void
tmpfs_page_drop(struct vnode *vn, uint64_t idx)
{
	struct tmpfs_node *np = vn->data;

	pgt_range(&np->reg, idx, idx + 1, PGT_FREE);
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
 * Bytes of a write bound for pages this very write allocated, adjacent
 * in the RAM file.  They go in with one plat_ram_write(), which lets the
 * host back new pages without clearing them and without a page fault
 * each, as a memmove into them would take.
 */
struct fill_run {
	uint64_t ram;      /* RAM offset of the first byte */
	const char *src;
	size_t len;
};

static void
fill_run_flush(struct fill_run *run)
{
	if (run->len > 0)
		plat_ram_write(run->ram, run->src, run->len);
	run->len = 0;
}

/* Add n bytes for RAM offset ram, merged with the run when they touch. */
static void
fill_run_add(struct fill_run *run, uint64_t ram, const char *src, size_t n)
{
	if (run->len > 0 && run->ram + run->len == ram &&
	    run->src + run->len == src) {
		run->len += n;
		return;
	}
	fill_run_flush(run);
	*run = (struct fill_run){ ram, src, n };
}

/*
 * SEEK_DATA and SEEK_HOLE: allocated pages are data, as in Linux's
 * shmem, which reports the pages it holds whatever their bytes.
 */
int64_t
tmpfs_seek_hole(struct vnode *vn, uint64_t off, bool data)
{
	struct tmpfs_node *np = vn->data;
	uint64_t p = pgt_next(&np->reg, off / VK_PAGE_SIZE, data);

	if (p == UINT64_MAX || p >= VK_ROUND_UP(np->size, VK_PAGE_SIZE) /
	    VK_PAGE_SIZE)
		return data ? -ENXIO : (int64_t)np->size;
	return (int64_t)VK_MIN(VK_MAX(off, p * VK_PAGE_SIZE), np->size);
}

/*
 * Copy into the file from off on, allocating pages for holes.  Returns
 * the bytes copied: fewer than len when the file system is full (*errp
 * -ENOSPC: its size, --disk or the RAM file) or a memfd's memory is
 * (-ENOMEM).
 */
static size_t
file_fill(struct tmpfs_node *np, const char *src, size_t len, uint64_t off,
    int *errp)
{
	struct fill_run run = { 0, NULL, 0 };
	char *base = plat_ram_base();
	size_t done = 0;

	while (done < len) {
		uint64_t pos = off + done;
		size_t pgoff = pos & VK_PAGE_MASK;
		size_t n = VK_MIN(len - done, VK_PAGE_SIZE - pgoff);
		uint64_t *slot = pgt_slot(&np->reg, pos / VK_PAGE_SIZE);

		if (*slot != VM_NORAM) {
			/*
			 * The source may be a mapping of this file: the bytes
			 * before go in first, as in Linux's page by page
			 * copy, and memmove, as it may be this very page.
			 */
			fill_run_flush(&run);
			memmove(base + *slot + pgoff, src + done, n);
			done += n;
			continue;
		}
		/* A new page cannot be the source: that is allocated. */
		if (!file_pages_room(&np->reg, 1)) {
			*errp = -ENOSPC;
			break;
		}
		if (vm_ram_alloc(VK_PAGE_SIZE, slot) < 0) {
			*errp = file_ram_full(np);
			break;
		}
		file_pages_count(&np->reg, 1);
		fill_run_add(&run, *slot + pgoff, src + done, n);
		done += n;
	}
	fill_run_flush(&run);
	return done;
}

long
tmpfs_write(struct vnode *vn, const void *buf, size_t len, uint64_t off)
{
	struct tmpfs_node *np = vn->data;
	size_t done;
	int r, err = 0;

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
	done = file_fill(np, buf, len, off, &err);
	if (done == 0)
		return err;
	if (off + done > np->size)
		np->size = off + done;
	np->mtime = np->ctime = tmpfs_now();
	return (long)done;
}

/*
 * --- fallocate ---
 */

/*
 * Give pages [first, end) of the file RAM where they are holes.  All of
 * it is taken before any goes in, so running out (-ENOSPC, as a full
 * tmpfs says) changes nothing.
 */
static int
file_prealloc(struct tmpfs_file *f, uint64_t first, uint64_t end)
{
	uint64_t *ram, nholes = 0, n = 0;
	int r = 0;

	/* Not even all of --mem would do: too large to walk, as well. */
	if (end - first > vm_ram_limit() / VK_PAGE_SIZE)
		return -ENOSPC;
	for (uint64_t i = first; i < end; i++)
		nholes += pgt_lookup(f, i) == VM_NORAM;
	if (nholes == 0)
		return 0;
	if (!file_pages_room(f, nholes))
		return -ENOSPC;
	ram = vk_xcalloc(nholes, sizeof(*ram));
	while (n < nholes && (r = vm_ram_alloc(VK_PAGE_SIZE, &ram[n])) == 0)
		n++;
	if (r < 0) {
		while (n > 0)
			vm_ram_free(ram[--n], VK_PAGE_SIZE);
		free(ram);
		return -ENOSPC;
	}
	for (uint64_t i = first; i < end; i++) {
		uint64_t *slot = pgt_slot(f, i);

		if (*slot == VM_NORAM)
			*slot = ram[--n];
	}
	file_pages_count(f, (int64_t)nholes);
	free(ram);
	return 0;
}

/*
 * The modes Linux's shmem_fallocate() knows: allocation (growing the
 * file unless FALLOC_FL_KEEP_SIZE), and punching a hole, which the VFS
 * only passes with FALLOC_FL_KEEP_SIZE.  Seals refuse a hole under a
 * write seal and a growth beyond the size (even with KEEP_SIZE) under
 * F_SEAL_GROW.
 */
int
tmpfs_fallocate(struct vnode *vn, int mode, uint64_t off, uint64_t len)
{
	struct tmpfs_node *np = vn->data;
	uint64_t end = off + len;
	int r;

	if (vn->type != VREG)
		return -ENODEV;
	if (end > TMPFS_MAXFILESIZE)
		return -EFBIG;
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE))
		return -EOPNOTSUPP;
	if (vn->mount->rdonly)
		return -EROFS;
	if (mode & FALLOC_FL_PUNCH_HOLE) {
		if (seals_deny_write(np->reg.seals))
			return -EPERM;
		file_clear(np, off, end);
		np->mtime = np->ctime = tmpfs_now();
		return 0;
	}
	if ((np->reg.seals & F_SEAL_GROW) && end > np->size)
		return -EPERM;
	if ((r = file_prealloc(&np->reg, off / VK_PAGE_SIZE,
	    VK_ROUND_UP(end, VK_PAGE_SIZE) / VK_PAGE_SIZE)) < 0)
		return r;
	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > np->size) {
		np->size = end;
		np->ctime = tmpfs_now();
	}
	return 0;
}

void
tmpfs_file_free(struct tmpfs_file *f)
{
	pgt_range(f, 0, UINT64_MAX, PGT_FREE);
}
