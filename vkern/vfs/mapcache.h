/*
 * A map cache: the pages of a file whose data lives outside the RAM file
 * (a host file on a read-write mount), kept in RAM while the file is
 * mapped shared, so that every MAP_SHARED mapping of it maps the same
 * pages.
 *
 * The pages are those of an unlinked tmpfs file, the shadow, as long as
 * the file.  A page is read from the file when a mapping first reaches
 * it.  From then on the cached page is the newer one: the file system
 * lays it over what its reads return, and copies its writes into it.
 * The cache is written back to the file on msync(2) and fsync(2), and
 * when the last mapping goes (munmap, exit, exec).  Changes made to the
 * file behind the kernel's back (on the host) are not seen by pages
 * already cached.
 */
#ifndef VK_VFS_MAPCACHE_H
#define VK_VFS_MAPCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vnode;

/* How the cache reaches the file's own data, bypassing the cache. */
struct mapcache_io {
	long (*pread)(struct vnode *vn, void *buf, size_t len, uint64_t off);
	long (*pwrite)(struct vnode *vn, const void *buf, size_t len,
	    uint64_t off);
	int (*size)(struct vnode *vn, uint64_t *sizep);
};

struct mapcache;

/*
 * Count a shared mapping of vn on (the first makes the cache in *mcp)
 * or off (the last writes the cache back and frees it, *mcp = NULL).
 * Returns 0, or -ENOMEM when a first cache does not fit.
 * maywrite: the mapping is or may become writable.
 */
int mapcache_pin(struct mapcache **mcp, struct vnode *vn,
    const struct mapcache_io *io, bool on, bool maywrite);

/* The vnode ops' getpage: 0, -ENXIO past the end of the file, -ENOMEM. */
int mapcache_getpage(struct mapcache *mc, uint64_t idx, uint64_t *ramoff);

/*
 * After the file's own read of n bytes at off into buf: lay over them
 * the cached pages, which are newer.
 */
void mapcache_read(struct mapcache *mc, void *buf, size_t n, uint64_t off);

/* After n bytes of buf were written to the file at off: cache them too. */
void mapcache_wrote(struct mapcache *mc, const void *buf, size_t n,
    uint64_t off);

/* The file was truncated or extended to size. */
void mapcache_resize(struct mapcache *mc, uint64_t size);

/*
 * Write the cached pages back to the file, as far as its size.  Returns
 * 0 or the first error of the file's writes.
 */
int mapcache_flush(struct mapcache *mc);

/*
 * The file changed under the cache (fallocate): its size is read again
 * and the cached pages are read from the file again.  The caller has
 * flushed the cache before it changed the file.
 */
int mapcache_reload(struct mapcache *mc);

/* Flush every map cache (sync(2)); 0 or the first error. */
int mapcache_sync_all(void);

#endif
