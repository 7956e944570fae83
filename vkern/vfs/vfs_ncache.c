/*
 * The name cache: what a name in a directory was found to be, so that
 * looking it up again asks no file system.  A hostfs lookup costs the host
 * an open and a stat per component, and every guest program start walks
 * the same few dozen library and configuration paths.
 *
 * An entry maps (directory, name) to a vnode, or to "no such name".  It
 * names the directory by its id and holds no reference to it: a directory
 * that goes away leaves entries nothing can match, which age out.  A
 * positive entry holds a reference to its vnode, which keeps that file's
 * host descriptors open, so the cache is bounded and least recently used
 * entries go first.
 *
 * Only mounts that set ncache are cached: those whose names change only
 * through the VFS, which purges an entry whenever an op may change what
 * its name stands for (vn_create, vn_remove, vn_rename, vn_link), or
 * whose directories tell when the host changed them (names_version: a
 * read-only host tree, and the overlay above it, which the host may
 * still change under the guest).  A read-write host directory is left
 * out, since the host changes it as often as the guest does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "vkern/vfs/namei.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_notify.h"
#include "vkern/vk.h"

#define NC_MAX   1024   /* entries */
#define NC_HASH  2048   /* buckets */

struct ncentry {
	LIST_ENTRY(ncentry) hlink;
	TAILQ_ENTRY(ncentry) lru;      /* most recently used first */
	uint64_t dir;                  /* the directory's vnode id */
	uint64_t version;              /* its names_version then */
	struct vnode *vp;              /* referenced; NULL: no such name */
	size_t len;
	char name[];
};

LIST_HEAD(nc_chain, ncentry);
static struct nc_chain nc_hash[NC_HASH];
static TAILQ_HEAD(nc_lru_head, ncentry) nc_lru =
    TAILQ_HEAD_INITIALIZER(nc_lru);
static size_t nc_count;

static struct nc_chain *
nc_bucket(uint64_t dir, const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ dir;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ULL;
	return &nc_hash[(h ^ h >> 29) % NC_HASH];
}

static struct ncentry *
nc_find(const struct vnode *dir, const char *name, size_t len)
{
	struct ncentry *e;

	LIST_FOREACH(e, nc_bucket(dir->id, name, len), hlink)
		if (e->dir == dir->id && e->len == len &&
		    memcmp(e->name, name, len) == 0)
			return e;
	return NULL;
}

static void
nc_drop(struct ncentry *e)
{
	LIST_REMOVE(e, hlink);
	TAILQ_REMOVE(&nc_lru, e, lru);
	nc_count--;
	if (e->vp != NULL)
		vnode_rel(e->vp);
	free(e);
}

static bool
nc_enabled(const struct vnode *dir)
{
	return dir->mount != NULL && dir->mount->ncache;
}

/*
 * Look name up in dir, through the cache where dir's mount allows it:
 * as ops->lookup, a referenced vnode or -ENOENT, or another -errno from
 * the file system (which is not cached).
 */
int
ncache_lookup(struct vnode *dir, const char *name, struct vnode **vpp)
{
	size_t len = strlen(name);
	struct ncentry *e;
	uint64_t ver;
	int r;

	if (!nc_enabled(dir))
		return dir->ops->lookup(dir, name, vpp);
	ver = dir->ops->names_version != NULL ?
	    dir->ops->names_version(dir) : 1;
	if ((e = nc_find(dir, name, len)) != NULL && e->version != ver) {
		nc_drop(e);
		e = NULL;
	}
	if (e != NULL) {
		TAILQ_REMOVE(&nc_lru, e, lru);
		TAILQ_INSERT_HEAD(&nc_lru, e, lru);
		if (e->vp == NULL)
			return -ENOENT;
		vnode_ref(e->vp);
		*vpp = e->vp;
		return 0;
	}
	r = dir->ops->lookup(dir, name, vpp);
	if ((r < 0 && r != -ENOENT) || ver == 0)
		return r;
	if (nc_count == NC_MAX)
		nc_drop(TAILQ_LAST(&nc_lru, nc_lru_head));
	e = vk_xmalloc(sizeof(*e) + len);
	e->dir = dir->id;
	e->version = ver;
	e->vp = r == 0 ? *vpp : NULL;
	if (e->vp != NULL)
		vnode_ref(e->vp);
	e->len = len;
	memcpy(e->name, name, len);
	LIST_INSERT_HEAD(nc_bucket(dir->id, name, len), e, hlink);
	TAILQ_INSERT_HEAD(&nc_lru, e, lru);
	nc_count++;
	return r;
}

#ifdef VK_TEST_HOOKS
void
ncache_flush(void)
{
	while (!TAILQ_EMPTY(&nc_lru))
		nc_drop(TAILQ_FIRST(&nc_lru));
}
#endif

/* Forget what name in dir stands for. */
static void
ncache_purge(const struct vnode *dir, const char *name)
{
	struct ncentry *e;

	if (nc_enabled(dir) && (e = nc_find(dir, name, strlen(name))) != NULL)
		nc_drop(e);
}

/* --- The namespace ops, each keeping the cache true --- */

int
vn_create(struct vnode *dir, const char *name, uint32_t mode, uint64_t rdev,
    const char *target, uint32_t uid, uint32_t gid, struct vnode **vpp)
{
	int r;

	if (dir->ops->create == NULL)
		return -EPERM;
	ncache_purge(dir, name);
	r = dir->ops->create(dir, name, mode, rdev, target, uid, gid, vpp);
	if (r == 0 && vpp != NULL && *vpp != NULL)
		vnotify_create(dir, name, *vpp);
	return r;
}

/* What name in dir is, for the change hooks: NULL when nobody watches. */
static struct vnode *
vn_notify_lookup(struct vnode *dir, const char *name)
{
	struct vnode *vn = NULL;

	if (vnotify_nwatches == 0 || dir->ops->lookup(dir, name, &vn) < 0)
		return NULL;
	return vn;
}

/* Whether vn has lost its last name (a directory: its only one). */
static bool
vn_gone(struct vnode *vn)
{
	struct vattr va;

	return vn->type == VDIR || (vn->ops->getattr(vn, &va) == 0 &&
	    va.nlink == 0);
}

int
vn_remove(struct vnode *dir, const char *name, bool rmdir)
{
	struct vnode *vn;
	int r;

	ncache_purge(dir, name);
	vn = vn_notify_lookup(dir, name);
	r = dir->ops->remove(dir, name, rmdir);
	if (vn != NULL) {
		if (r == 0)
			vnotify_remove(dir, name, vn, vn_gone(vn));
		vnode_rel(vn);
	}
	return r;
}

int
vn_rename(struct vnode *fromdir, const char *from, struct vnode *todir,
    const char *to, unsigned flags)
{
	struct vnode *vn, *old;
	int r;

	ncache_purge(fromdir, from);
	ncache_purge(todir, to);
	vn = vn_notify_lookup(fromdir, from);
	old = vn != NULL ? vn_notify_lookup(todir, to) : NULL;
	r = fromdir->ops->rename(fromdir, from, todir, to, flags);
	if (r == 0 && vn != NULL) {
		vnotify_rename(fromdir, from, todir, to, vn);
		if (old != NULL && (flags & VFS_RENAME_EXCHANGE))
			vnotify_rename(todir, to, fromdir, from, old);
		else if (old != NULL && old != vn)
			vnotify_remove(NULL, to, old, vn_gone(old));
	}
	if (vn != NULL)
		vnode_rel(vn);
	if (old != NULL)
		vnode_rel(old);
	return r;
}

int
vn_link(struct vnode *dir, const char *name, struct vnode *vn)
{
	int r;

	if (dir->ops->link == NULL)
		return -EPERM;
	ncache_purge(dir, name);
	if ((r = dir->ops->link(dir, name, vn)) == 0) {
		vnotify_link(dir, name, vn);
	}
	return r;
}
