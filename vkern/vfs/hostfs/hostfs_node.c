/*
 * hostfs's vnodes (hostfs_node.h): the table of live ones, their names,
 * their host objects' descriptors and status.
 *
 * Identity.  Each mount keeps a table of its live vnodes keyed by the
 * host's (st_dev, st_ino), so that looking a file up again, by any name,
 * gives the same vnode (hard links share one).  The table holds no
 * reference: a vnode leaves it when its last reference goes.  While it is
 * there with a host fd, the fd pins the inode, so the number cannot be
 * reused; without one, see Access below.
 *
 * Names.  Every vnode but the root holds a reference to the directory it
 * was found in, and its name there.  That answers "..": from hostfs's own
 * record and never from the host's, so a directory moved out of the tree
 * on the host does not take the guest out with it.  It also lets a
 * regular file be reopened by name for I/O, which an O_PATH fd cannot be
 * after the lock-down.  Renames and removals made through hostfs keep the
 * record true; those made on the host behind its back make it stale,
 * which costs an -ESTALE, never an escape.  The parent references make
 * no cycle: a directory is never moved beneath itself (rename_check).
 *
 * Access.  A lookup stats a name, nothing more: the vnode's host object
 * has no descriptor, and gets one by name only when an op needs it (a
 * directory to look names up in, a symlink to read, a file to change);
 * until then the inode is not held, and the identity table may find an
 * inode number the host has given to another file since: such a vnode
 * takes the name it was found by now, or leaves the table for a new one
 * when the type differs.  Only a directory with a descriptor can have
 * names looked up in it, so a vnode without one is no vnode's parent,
 * and every parent can stat and open its children by name.  The first
 * read opens a file read-only, the first write or truncate read-write,
 * and the vnode keeps that.  Before the guest removes the name hostfs
 * knows a live file by, hostfs opens it, since afterwards it could not:
 * a guest may still use a file it has open after unlinking it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vkern/platform.h"
#include "vkern/vfs/hostfs/hostfs_node.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"

/* --- Live vnodes --- */

static size_t
node_bucket(uint64_t dev, uint64_t ino)
{
	uint64_t h = (ino ^ (dev << 32 | dev >> 32)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 56) % HOSTFS_NHASH;
}

struct hostfs_node *
hostfs_node_find(struct hostfs_mount *hm, uint64_t dev, uint64_t ino)
{
	struct hostfs_node *n = hm->hash[node_bucket(dev, ino)];

	while (n != NULL && (n->dev != dev || n->ino != ino))
		n = n->hnext;
	return n;
}

void
hostfs_node_unhash(struct hostfs_node *n)
{
	struct hostfs_node **pp = &n->hm->hash[node_bucket(n->dev, n->ino)];

	if (!n->hashed)
		return;
	while (*pp != n) {
		VK_ASSERT(*pp != NULL);
		pp = &(*pp)->hnext;
	}
	*pp = n->hnext;
	n->hashed = false;
	n->hm->nnodes--;
}

static char *
name_dup(const char *name)
{
	size_t len = strlen(name) + 1;

	return memcpy(vk_xmalloc(len), name, len);
}

/* Record that n is called name in dir (NULL: it has no name we know). */
void
hostfs_node_set_name(struct hostfs_node *n, struct vnode *dir,
    const char *name)
{
	struct vnode *old = n->parent;

	free(n->name);
	n->name = dir != NULL ? name_dup(name) : NULL;
	if (dir != NULL)
		vnode_ref(dir);
	n->parent = dir;
	if (old != NULL)
		vnode_rel(old);
}

/* Whether hostfs knows n by name in dir. */
bool
hostfs_node_named(const struct hostfs_node *n, const struct vnode *dir,
    const char *name)
{
	return n->parent == dir && n->name != NULL &&
	    strcmp(n->name, name) == 0;
}

/*
 * A read-only mount's files change only on the host (or through another,
 * read-write, mount of the same host tree), so their status is asked of
 * the host at most every HOSTFS_ATTR_TTL_NS: stat(2) of a cached path then
 * costs no host call, and a lookup's status serves the stat that follows
 * it.  A change the host makes is seen at the first stat at least that
 * long after it was made, as a change of names is (hostfs_names_version).
 * One the guest makes through any hostfs mount counts in
 * hostfs_attr_changes and is seen at once.  The times are the coarse
 * clock's, as the names' (hostfs_names_version).
 */
#define HOSTFS_ATTR_TTL_NS 10000000

uint64_t hostfs_attr_changes;

/* n's status st was asked of the host just now. */
void
hostfs_node_saw(struct hostfs_node *n, const struct plat_hoststat *st)
{
	n->mode = st->mode;
	n->uid = st->uid;
	n->gid = st->gid;
	n->st = *st;
	n->st_seen_ns = plat_clock_ns(CLOCK_MONOTONIC_COARSE);
	n->st_gen = hostfs_attr_changes;
}

/* A new vnode for obj (taken over), found as name in dir (NULL: root). */
struct vnode *
hostfs_node_new(struct hostfs_mount *hm, struct plat_hostobj *obj,
    const struct plat_hoststat *st, struct vnode *dir, const char *name)
{
	struct hostfs_node *n = vk_xcalloc(1, sizeof(*n));
	size_t b = node_bucket(st->dev, st->ino);

	n->hm = hm;
	n->obj = obj;
	n->dev = st->dev;
	n->ino = st->ino;
	hostfs_node_saw(n, st);
	n->vn = vnode_alloc(hm->mp, vtype_from_mode(st->mode), &hostfs_vnops,
	    n);
	if (dir != NULL)
		hostfs_node_set_name(n, dir, name);
	n->hnext = hm->hash[b];
	hm->hash[b] = n;
	n->hashed = true;
	hm->nnodes++;
	return n->vn;
}

/*
 * The vnode for obj (taken over), found as name in dir: the live one if
 * there is one, which gets the name if it had lost its own (a directory
 * keeps its record: a new parent could be beneath it).  Referenced.
 */
int
hostfs_node_get(struct hostfs_mount *hm, struct plat_hostobj *obj,
    const struct plat_hoststat *st, struct vnode *dir, const char *name,
    struct vnode **vpp)
{
	struct hostfs_node *n = hostfs_node_find(hm, st->dev, st->ino);
	struct plat_hostobj *old;

	/* Without a descriptor, n is what its number is now (see the top). */
	if (n != NULL && !plat_hostobj_opened(n->obj) &&
	    n->vn->type != vtype_from_mode(st->mode)) {
		hostfs_node_unhash(n);
		n = NULL;
	}
	if (n == NULL) {
		*vpp = hostfs_node_new(hm, obj, st, dir, name);
		return 0;
	}
	if (!plat_hostobj_opened(n->obj) && !hostfs_node_named(n, dir, name))
		hostfs_node_set_name(n, dir, name);
	else if (n->name == NULL && n->vn->type != VDIR)
		hostfs_node_set_name(n, dir, name);
	/* A descriptor that came with the name (a file made) is n's now. */
	old = obj;
	if (!plat_hostobj_opened(n->obj) && plat_hostobj_opened(obj)) {
		old = n->obj;
		n->obj = obj;
	}
	plat_hostobj_close(old);
	hostfs_node_saw(n, st);
	vnode_ref(n->vn);
	*vpp = n->vn;
	return 0;
}

/* Give n's host object the access in want (PLAT_HOST_*). */
int
hostfs_node_want(struct hostfs_node *n, int want)
{
	struct hostfs_node *pn = n->parent != NULL ? n->parent->data : NULL;

	return plat_hostobj_reopen(n->obj, pn != NULL ? pn->obj : NULL,
	    n->name, want);
}

/* Give n's host object its descriptor, by its name in its parent. */
int
hostfs_node_open(struct hostfs_node *n)
{
	struct hostfs_node *pn = n->parent != NULL ? n->parent->data : NULL;

	if (plat_hostobj_opened(n->obj))
		return 0;
	return plat_hostobj_open(n->obj, pn != NULL ? pn->obj : NULL,
	    n->name);
}

/*
 * n's status from the host: through its descriptor, or by its name in
 * its parent if the name still holds it (-ESTALE if not).
 */
int
hostfs_node_host_stat(struct hostfs_node *n, struct plat_hoststat *st)
{
	struct hostfs_node *pn = n->parent != NULL ? n->parent->data : NULL;
	int r;

	if (plat_hostobj_opened(n->obj))
		return plat_hostobj_stat(n->obj, st);
	if (pn == NULL)
		return -ESTALE;
	if ((r = plat_hostobj_statat(pn->obj, n->name, st)) < 0)
		return r == -ENOENT ? -ESTALE : r;
	if (st->dev != n->dev || st->ino != n->ino ||
	    vtype_from_mode(st->mode) != n->vn->type)
		return -ESTALE;
	return 0;
}

/*
 * n's status: the host's, or on a read-only mount the one seen lately.
 * A vnode without a descriptor whose name the host gave to another file
 * keeps the status it was last seen with, as one with a descriptor keeps
 * its inode's.
 */
int
hostfs_node_stat(struct hostfs_node *n, struct plat_hoststat *st)
{
	int r;

	if (n->hm->mp->rdonly && n->st_gen == hostfs_attr_changes &&
	    plat_clock_ns(CLOCK_MONOTONIC_COARSE) - n->st_seen_ns <
	    HOSTFS_ATTR_TTL_NS) {
		*st = n->st;
		return 0;
	}
	if ((r = hostfs_node_host_stat(n, st)) == -ESTALE &&
	    !plat_hostobj_opened(n->obj)) {
		*st = n->st;
		return 0;
	}
	if (r < 0)
		return r;
	hostfs_node_saw(n, st);
	return 0;
}

/*
 * n is a live file about to lose the name hostfs could reopen it by:
 * give it its descriptor now, and a regular file its I/O, read-write if
 * the host lets us, else read-only, so that the guest can go on using
 * it.  Failure only means it stays unopened.
 */
void
hostfs_node_keep_open(struct hostfs_node *n)
{
	if (hostfs_node_open(n) < 0 || n->vn->type != VREG)
		return;
	if (hostfs_node_want(n, PLAT_HOST_READ | PLAT_HOST_WRITE) < 0)
		(void)hostfs_node_want(n, PLAT_HOST_READ);
}

/* The live vnode name in dir stands for, if any: NULL when none is. */
int
hostfs_node_at(struct hostfs_node *dn, const char *name,
    struct hostfs_node **np)
{
	struct plat_hoststat st;
	int r;

	*np = NULL;
	if ((r = hostfs_node_open(dn)) < 0 ||
	    (r = plat_hostobj_statat(dn->obj, name, &st)) < 0)
		return r;
	*np = hostfs_node_find(dn->hm, st.dev, st.ino);
	return 0;
}

/* Whether directory a is d or one of d's ancestors, as hostfs knows them. */
bool
hostfs_node_is_ancestor(const struct vnode *a, const struct vnode *d)
{
	for (; d != NULL; d = ((struct hostfs_node *)d->data)->parent)
		if (d == a)
			return true;
	return false;
}
