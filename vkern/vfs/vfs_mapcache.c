/*
 * Map caches (mapcache.h): the shadow tmpfs file holds the pages, and a
 * page is cached exactly when the shadow holds it: it is allocated when
 * it is read from the file, and given back if that read fails.  So the
 * cache costs nothing for the pages never reached, however large the
 * file, and write-back walks only the pages it has.  The shadow is
 * pinned by every mapping, as a tmpfs file mapped shared is, so that a
 * truncation zeroes its pages instead of giving them away while stubs
 * map them; a page cut off so reads zero if the file grows again, as the
 * file's own bytes there do.  Its size follows the file's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/mapcache.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"

struct mapcache {
	struct vnode *vn;             /* the file (its mappings hold it) */
	const struct mapcache_io *io;
	struct vnode *shadow;         /* referenced */
	uint64_t size;                /* the file's, as last known */
	int pins;
	bool wmapped;                 /* a mapping could write the pages */
	struct mapcache *next;        /* every cache, for sync(2) */
};

static struct mapcache *caches;

static uint64_t
npages(uint64_t size)
{
	return VK_ROUND_UP(size, VK_PAGE_SIZE) / VK_PAGE_SIZE;
}

/* The cached page idx inside the file, or NULL. */
static char *
cached_page(const struct mapcache *mc, uint64_t idx)
{
	uint64_t ram;

	if (idx >= npages(mc->size) || tmpfs_page_find(mc->shadow, idx,
	    &ram) < 0)
		return NULL;
	return (char *)plat_ram_base() + ram;
}

void
mapcache_resize(struct mapcache *mc, uint64_t size)
{
	struct vattr va = { .size = size };
	int r = mc->shadow->ops->setattr(mc->shadow, &va, VA_SIZE);

	/*
	 * A size is an off_t the file has (or had, on the host), and tmpfs
	 * takes every off_t: TMPFS_MAXFILESIZE is Linux's largest.
	 */
	VK_ASSERT(r == 0);
	mc->size = size;
}

static struct mapcache *
mapcache_new(struct vnode *vn, const struct mapcache_io *io)
{
	struct mapcache *mc = vk_xcalloc(1, sizeof(*mc));
	uint64_t size = 0;

	mc->vn = vn;
	mc->io = io;
	if (tmpfs_unlinked(0600, 0, 0, &mc->shadow) < 0) {
		free(mc);
		return NULL;
	}
	/* A file whose size cannot be read maps as empty: SIGBUS. */
	if (io->size(vn, &size) < 0)
		size = 0;
	mapcache_resize(mc, size);
	mc->next = caches;
	caches = mc;
	return mc;
}

int
mapcache_pin(struct mapcache **mcp, struct vnode *vn,
    const struct mapcache_io *io, bool on, bool maywrite)
{
	struct mapcache *mc = *mcp;

	if (on) {
		if (mc == NULL && (*mcp = mc = mapcache_new(vn, io)) == NULL)
			return -ENOMEM;
		mc->pins++;
		mc->wmapped |= maywrite;
		return tmpfs_map_pin(mc->shadow, true, maywrite);
	}
	VK_ASSERT(mc != NULL && mc->pins > 0);
	(void)tmpfs_map_pin(mc->shadow, false, maywrite);
	if (--mc->pins > 0)
		return 0;
	/* munmap(2) has no way to report a failed write-back. */
	(void)mapcache_flush(mc);
	for (struct mapcache **q = &caches; ; q = &(*q)->next) {
		if (*q == mc) {
			*q = mc->next;
			break;
		}
	}
	vnode_rel(mc->shadow);
	free(mc);
	*mcp = NULL;
	return 0;
}

/* Read page idx of the file into the cache. */
static int
page_fill(struct mapcache *mc, uint64_t idx, uint64_t ram)
{
	char *p = (char *)plat_ram_base() + ram;
	uint64_t off = idx * VK_PAGE_SIZE;
	size_t done = 0;

	while (done < VK_PAGE_SIZE) {
		long got = mc->io->pread(mc->vn, p + done, VK_PAGE_SIZE - done,
		    off + done);

		if (got < 0)
			return (int)got;
		if (got == 0)
			break;
		done += (size_t)got;
	}
	/* Past the end of the file the page reads zero. */
	memset(p + done, 0, VK_PAGE_SIZE - done);
	return 0;
}

int
mapcache_getpage(struct mapcache *mc, uint64_t idx, uint64_t *ramoff)
{
	uint64_t size;
	int r;

	/* The file may have grown since (a mapping faults past the end). */
	if (idx >= npages(mc->size) && mc->io->size(mc->vn, &size) == 0 &&
	    size > mc->size)
		mapcache_resize(mc, size);
	if (idx >= npages(mc->size))
		return -ENXIO;
	if (tmpfs_page_find(mc->shadow, idx, ramoff) == 0)
		return 0;
	if ((r = tmpfs_page(mc->shadow, idx, ramoff)) < 0)
		return r;
	/* Unread, the page is not cached: nothing maps it yet. */
	if ((r = page_fill(mc, idx, *ramoff)) < 0)
		tmpfs_page_drop(mc->shadow, idx);
	return r;
}

/*
 * For each cached page that [off, off + n) reaches: fn with the part of
 * the range in it, at p (the range's bytes) and c (the page's).
 */
static void
cached_parts(struct mapcache *mc, uint64_t off, size_t n,
    void (*fn)(char *p, char *c, size_t len), char *p)
{
	uint64_t end = off + n;

	for (uint64_t idx = off / VK_PAGE_SIZE; idx * VK_PAGE_SIZE < end;
	    idx++) {
		uint64_t s = VK_MAX(off, idx * VK_PAGE_SIZE);
		uint64_t e = VK_MIN(end, (idx + 1) * VK_PAGE_SIZE);
		char *c = cached_page(mc, idx);

		if (c != NULL)
			fn(p + (s - off), c + (s & VK_PAGE_MASK), e - s);
	}
}

static void
copy_from_cache(char *p, char *c, size_t len)
{
	memcpy(p, c, len);
}

static void
copy_to_cache(char *p, char *c, size_t len)
{
	/* memmove: the source may be a mapping of this very page. */
	memmove(c, p, len);
}

void
mapcache_read(struct mapcache *mc, void *buf, size_t n, uint64_t off)
{
	cached_parts(mc, off, n, copy_from_cache, buf);
}

void
mapcache_wrote(struct mapcache *mc, const void *buf, size_t n, uint64_t off)
{
	if (off + n > mc->size)
		mapcache_resize(mc, off + n);
	cached_parts(mc, off, n, copy_to_cache, (char *)buf);
}

int
mapcache_flush(struct mapcache *mc)
{
	uint64_t size;
	int r;

	/* Nothing but the file's own writes changed the pages. */
	if (!mc->wmapped)
		return 0;
	/* Never past the file's end: a host truncation wins. */
	if ((r = mc->io->size(mc->vn, &size)) < 0)
		return r;
	size = VK_MIN(size, mc->size);
	for (uint64_t idx = tmpfs_page_next(mc->shadow, 0);
	    idx < npages(size); idx = tmpfs_page_next(mc->shadow, idx + 1)) {
		uint64_t off = idx * VK_PAGE_SIZE;
		size_t len = (size_t)VK_MIN(VK_PAGE_SIZE, size - off);
		long w;

		w = mc->io->pwrite(mc->vn, cached_page(mc, idx), len, off);
		if (w < 0)
			return (int)w;
		if ((size_t)w < len)
			return -EIO;
	}
	return 0;
}

int
mapcache_reload(struct mapcache *mc)
{
	uint64_t size;
	int r;

	if ((r = mc->io->size(mc->vn, &size)) < 0)
		return r;
	mapcache_resize(mc, size);
	for (uint64_t idx = tmpfs_page_next(mc->shadow, 0);
	    idx < npages(size); idx = tmpfs_page_next(mc->shadow, idx + 1)) {
		uint64_t ram;

		if ((r = tmpfs_page_find(mc->shadow, idx, &ram)) < 0 ||
		    (r = page_fill(mc, idx, ram)) < 0)
			return r;
	}
	return 0;
}

int
mapcache_sync_all(void)
{
	int r = 0, e;

	for (struct mapcache *mc = caches; mc != NULL; mc = mc->next)
		if ((e = mapcache_flush(mc)) < 0 && r == 0)
			r = e;
	return r;
}
