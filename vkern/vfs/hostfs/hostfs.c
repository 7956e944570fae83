/*
 * hostfs: vnodes over the host objects of platform_hostfs.h.
 *
 * The vnodes themselves: hostfs_node.c.
 *
 * A read-only mount refuses every change with -EROFS before asking the
 * host.  st_dev is the host's, so that files of several host file systems
 * beneath the root keep distinct (st_dev, st_ino); the mount's dev is the
 * root's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/hostfs/hostfs.h"
#include "vkern/vfs/hostfs/hostfs_node.h"
#include "vkern/vfs/mapcache.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"

/* --- Vnode ops --- */

static bool
vn_rdonly(const struct vnode *vn)
{
	return vn->mount->rdonly;
}

/* "..": the directory hostfs found dir in; at the root, the root. */
static int
hostfs_dotdot(struct vnode *dir, struct vnode **vpp)
{
	struct hostfs_node *dn = dir->data;
	struct vnode *up = dn->parent;

	if (dir == dn->hm->mp->root)
		up = dir;   /* never sent by the VFS; never out of the tree */
	else if (up == NULL)
		return -ENOENT;   /* removed: Linux's answer inside one */
	vnode_ref(up);
	*vpp = up;
	return 0;
}

static int
hostfs_lookup(struct vnode *dir, const char *name, struct vnode **vpp)
{
	struct hostfs_node *dn = dir->data;
	struct plat_hostobj *obj;
	struct plat_hoststat st;
	int r;

	if (dir->type != VDIR)
		return -ENOTDIR;
	if (name != NULL && strcmp(name, ".") == 0) {
		vnode_ref(dir);
		*vpp = dir;
		return 0;
	}
	if (name != NULL && strcmp(name, "..") == 0)
		return hostfs_dotdot(dir, vpp);
	if ((r = hostfs_node_open(dn)) < 0 ||
	    (r = plat_hostobj_lookup(dn->obj, name, &obj, &st)) < 0)
		return r;
	return hostfs_node_get(dn->hm, obj, &st, dir, name, vpp);
}

static int
hostfs_getattr(struct vnode *vn, struct vattr *va)
{
	struct hostfs_node *n = vn->data;
	struct plat_hoststat st;
	int r;

	if ((r = hostfs_node_stat(n, &st)) < 0)
		return r;
	*va = (struct vattr){
		.ino = st.ino, .dev = st.dev, .rdev = st.rdev,
		.mode = st.mode, .uid = st.uid, .gid = st.gid,
		.nlink = st.nlink, .size = st.size, .blocks = st.blocks,
		.blksize = st.blksize,
		.atime_ns = st.atime_ns, .mtime_ns = st.mtime_ns,
		.ctime_ns = st.ctime_ns, .btime_ns = st.btime_ns,
	};
	return 0;
}

/*
 * The host moves a directory's ctime at every change of its names, in
 * steps of its clock tick: a ctime within a tick or two of now may move
 * no further at the next change, so it is no version (0) yet.
 *
 * Asking the host is a statx per directory per path component, nearly
 * half of what a cached stat of /etc/passwd costs; a version is trusted
 * for HOSTFS_NAMES_TTL_NS after it was asked.  A change the host makes
 * to a directory's names (the guest cannot change a read-only tree's,
 * and only those are cached) is seen at the first lookup at least that
 * long after it was made.  One the guest makes through a read-write
 * mount of the same host tree (another path to it) is seen at once:
 * every such change counts in names_changes, and a version asked before
 * the last one is asked again.
 *
 * The time a version was asked, and the time a lookup compares it with,
 * are the host's coarse monotonic clock (its tick: 4 ms on a 250 Hz
 * host), read at every directory of a path: a quarter of the fine
 * clock's cost (6 ns against 23), and a tick more or less of trust.  A
 * patched stat of /etc/passwd under systrap went from 717 to 655 ns.
 */
#define HOSTFS_TICK_NS      20000000
#define HOSTFS_NAMES_TTL_NS 10000000

static uint64_t names_changes;

static uint64_t
hostfs_names_version(struct vnode *dir)
{
	struct hostfs_node *n = dir->data;
	struct plat_hoststat st;
	int64_t now = plat_clock_ns(CLOCK_MONOTONIC_COARSE);

	if (n->names_ver != 0 && n->names_gen == names_changes &&
	    now - n->names_seen_ns < HOSTFS_NAMES_TTL_NS)
		return n->names_ver;
	n->names_ver = 0;
	if (hostfs_node_host_stat(n, &st) == 0) {
		hostfs_node_saw(n, &st);
		if (st.ctime_ns > 0 && plat_clock_ns(CLOCK_REALTIME) -
		    st.ctime_ns >= HOSTFS_TICK_NS)
			n->names_ver = (uint64_t)st.ctime_ns;
	}
	n->names_seen_ns = now;
	n->names_gen = names_changes;
	return n->names_ver;
}

/*
 * A read-only mount's permissions are the ones seen last: the guest
 * cannot change them, and path lookup checks them at every directory.
 */
static int
hostfs_getperm(struct vnode *vn, struct vattr *va)
{
	struct hostfs_node *n = vn->data;

	if (!vn_rdonly(vn))
		return hostfs_getattr(vn, va);
	va->mode = n->mode;
	va->uid = n->uid;
	va->gid = n->gid;
	return 0;
}

static int
hostfs_statfs(struct vnode *vn, struct vfs_statfs *sf)
{
	struct hostfs_node *n = vn->data;
	struct plat_hoststatfs hs;
	int r;

	if ((r = hostfs_node_open(n)) < 0 ||
	    (r = plat_hostobj_statfs(n->obj, &hs)) < 0)
		return r;
	*sf = (struct vfs_statfs){
		.magic = hs.magic, .bsize = hs.bsize, .blocks = hs.blocks,
		.bfree = hs.bfree, .bavail = hs.bavail, .files = hs.files,
		.ffree = hs.ffree, .namelen = hs.namelen,
	};
	return 0;
}

static int
hostfs_truncate(struct hostfs_node *n, uint64_t size)
{
	int r;

	if (n->vn->type == VDIR)
		return -EISDIR;
	if (n->vn->type != VREG)
		return -EINVAL;
	if ((r = hostfs_node_want(n, PLAT_HOST_READ | PLAT_HOST_WRITE)) < 0 ||
	    (r = plat_hostobj_truncate(n->obj, size)) < 0)
		return r;
	if (n->mc != NULL)
		mapcache_resize(n->mc, size);
	return 0;
}

static int
hostfs_fallocate(struct vnode *vn, int mode, uint64_t off, uint64_t len)
{
	struct hostfs_node *n = vn->data;
	int r;

	if (vn_rdonly(vn))
		return -EROFS;
	hostfs_attr_changes++;
	if ((r = hostfs_node_want(n, PLAT_HOST_READ | PLAT_HOST_WRITE)) < 0)
		return r;
	/* Punching or shifting ranges moves data the mappings see. */
	if (n->mc != NULL && (r = mapcache_flush(n->mc)) < 0)
		return r;
	if ((r = plat_hostobj_fallocate(n->obj, mode, off, len)) < 0)
		return r;
	return n->mc != NULL ? mapcache_reload(n->mc) : 0;
}

static int
hostfs_setattr(struct vnode *vn, const struct vattr *va, unsigned mask)
{
	struct hostfs_node *n = vn->data;
	unsigned times = 0;
	int r = 0;

	if (mask & ~(VA_MODE | VA_UID | VA_GID | VA_SIZE | VA_ATIME |
	    VA_MTIME | VA_NOW))
		return -EINVAL;
	if (vn_rdonly(vn))
		return -EROFS;
	hostfs_attr_changes++;
	if ((r = hostfs_node_open(n)) < 0)
		return r;
	if (mask & VA_SIZE)
		r = hostfs_truncate(n, va->size);
	/* Owner first: the host's chown would take set-id bits away. */
	if (r == 0 && (mask & (VA_UID | VA_GID)))
		r = plat_hostobj_chown(n->obj,
		    (mask & VA_UID) ? va->uid : (uint32_t)-1,
		    (mask & VA_GID) ? va->gid : (uint32_t)-1);
	if (r == 0 && (mask & VA_MODE)) {
		r = plat_hostobj_chmod(n->obj, va->mode & 07777);
		/* A host without fchmodat2 chmods a file only when open. */
		if (r == -EOPNOTSUPP && vn->type == VREG &&
		    hostfs_node_want(n, PLAT_HOST_READ) == 0)
			r = plat_hostobj_chmod(n->obj, va->mode & 07777);
	}
	times |= (mask & VA_ATIME) ? PLAT_UTIME_ATIME : 0;
	times |= (mask & VA_MTIME) ? PLAT_UTIME_MTIME : 0;
	times |= (mask & VA_NOW) ? PLAT_UTIME_NOW : 0;
	if (r == 0 && times != 0)
		r = plat_hostobj_utimens(n->obj, times, va->atime_ns,
		    va->mtime_ns);
	return r;
}

/* The host file's own data, for reads and for the map cache. */
static long
host_pread(struct vnode *vn, void *buf, size_t len, uint64_t off)
{
	struct hostfs_node *n = vn->data;
	int r;

	if ((r = hostfs_node_want(n, PLAT_HOST_READ)) < 0)
		return r;
	return plat_hostobj_pread(n->obj, buf, len, off);
}

static long
host_pwrite(struct vnode *vn, const void *buf, size_t len, uint64_t off)
{
	struct hostfs_node *n = vn->data;
	int r;

	hostfs_attr_changes++;
	if ((r = hostfs_node_want(n, PLAT_HOST_READ | PLAT_HOST_WRITE)) < 0)
		return r;
	return plat_hostobj_pwrite(n->obj, buf, len, off);
}

static int
host_size(struct vnode *vn, uint64_t *sizep)
{
	struct hostfs_node *n = vn->data;
	struct plat_hoststat st;
	int r;

	if ((r = hostfs_node_host_stat(n, &st)) < 0)
		return r;
	*sizep = st.size;
	return 0;
}

static const struct mapcache_io hostfs_mcio = {
	.pread = host_pread,
	.pwrite = host_pwrite,
	.size = host_size,
};

/*
 * A read's checks and, when the file is mapped shared, the map cache's
 * newer pages over the got bytes the host gave at buf.
 */
static int
read_check(struct vnode *vn)
{
	if (vn->type == VDIR)
		return -EISDIR;
	if (vn->type != VREG)
		return -EINVAL;
	return hostfs_node_want(vn->data, PLAT_HOST_READ);
}

static long
read_done(struct vnode *vn, void *buf, long got, uint64_t off)
{
	struct hostfs_node *n = vn->data;

	if (got > 0 && n->mc != NULL)
		mapcache_read(n->mc, buf, (size_t)got, off);
	return got;
}

static long
hostfs_read(struct vnode *vn, void *buf, size_t len, uint64_t off)
{
	struct hostfs_node *n = vn->data;
	int r;

	if ((r = read_check(vn)) < 0)
		return r;
	return read_done(vn, buf, plat_hostobj_pread(n->obj, buf, len, off),
	    off);
}

static long
hostfs_read_ram(struct vnode *vn, uint64_t ramoff, size_t len, uint64_t off)
{
	struct hostfs_node *n = vn->data;
	int r;

	if ((r = read_check(vn)) < 0)
		return r;
	return read_done(vn, (char *)plat_ram_base() + ramoff,
	    plat_hostobj_pread_ram(n->obj, ramoff, len, off), off);
}

/*
 * The host's holes, but while the file is mapped shared its map cache
 * may hold newer pages the host does not have yet: all of it is data.
 */
static int64_t
hostfs_seek_hole(struct vnode *vn, uint64_t off, bool data)
{
	struct hostfs_node *n = vn->data;
	struct vattr va;
	int r;

	if ((r = read_check(vn)) < 0)
		return r;
	if (n->mc != NULL) {
		if ((r = hostfs_getattr(vn, &va)) < 0)
			return r;
		return data ? (int64_t)off : (int64_t)va.size;
	}
	return plat_hostobj_seek_hole(n->obj, off, data);
}

static long
hostfs_write(struct vnode *vn, const void *buf, size_t len, uint64_t off)
{
	struct hostfs_node *n = vn->data;
	long put;

	if (vn_rdonly(vn))
		return -EROFS;
	if (vn->type == VDIR)
		return -EISDIR;
	if (vn->type != VREG)
		return -EINVAL;
	put = host_pwrite(vn, buf, len, off);
	if (put > 0 && n->mc != NULL)
		mapcache_wrote(n->mc, buf, (size_t)put, off);
	return put;
}

/*
 * Shared mappings of a host file map its map cache.  A read-only mount's
 * files are not mapped this way: the kernel maps copies of them, since
 * nothing in the sandbox can change them.
 */
static int
hostfs_getpage(struct vnode *vn, uint64_t idx, uint64_t *ramoff)
{
	struct hostfs_node *n = vn->data;

	VK_ASSERT(n->mc != NULL);
	return mapcache_getpage(n->mc, idx, ramoff);
}

static int
hostfs_map_pin(struct vnode *vn, bool on, bool maywrite)
{
	struct hostfs_node *n = vn->data;

	VK_ASSERT(vn->type == VREG);
	return mapcache_pin(&n->mc, vn, &hostfs_mcio, on, maywrite);
}

/*
 * The map cache goes to the host file, whole (it keeps no dirty ranges);
 * then, unless only that was asked, the host file to the host's disk.
 * What other opens wrote may be in the host's cache still, so a file
 * this open never read or wrote is opened for it: one the host will not
 * let vkernel read, vkernel never wrote either (writes read too).
 */
static int
hostfs_fsync(struct vnode *vn, enum vfs_sync how)
{
	struct hostfs_node *n = vn->data;
	int r;

	if (n->mc != NULL && (r = mapcache_flush(n->mc)) < 0)
		return r;
	if (how == VFS_SYNC_CACHE || (vn->type != VREG && vn->type != VDIR) ||
	    hostfs_node_want(n, PLAT_HOST_READ) < 0)
		return 0;
	return plat_hostobj_sync(n->obj, how == VFS_SYNC_DATA);
}

/*
 * As fsync here, without the host's disk: sync_file_range(2) promises
 * nothing of the file's metadata, and the lock-down keeps no host call
 * that would wait on a range.
 */
static int
hostfs_sync_range(struct vnode *vn, uint64_t off, uint64_t len,
    unsigned flags)
{
	struct hostfs_node *n = vn->data;

	if ((flags & SYNC_FILE_RANGE_WRITE) && n->mc != NULL)
		return mapcache_flush(n->mc);
	return 0;
}

struct readdir_ctx {
	vfs_dirent_fn fn;
	void *arg;
	bool root;
	uint64_t root_ino;
};

static int
readdir_entry(void *arg, const char *name, size_t len, uint64_t ino,
    uint32_t type, uint64_t next_cookie)
{
	struct readdir_ctx *c = arg;

	/* The root's ".." is outside: name the root, as Linux does at "/". */
	if (c->root && len == 2 && memcmp(name, "..", 2) == 0)
		ino = c->root_ino;
	return c->fn(c->arg, name, len, ino, vtype_from_mode(type),
	    next_cookie);
}

static int
hostfs_readdir(struct vnode *dir, uint64_t cookie, vfs_dirent_fn fn,
    void *arg)
{
	struct hostfs_node *dn = dir->data;
	struct readdir_ctx c = {
		.fn = fn, .arg = arg, .root = dir == dn->hm->mp->root,
		.root_ino = dn->ino,
	};
	int r;

	if (dir->type != VDIR)
		return -ENOTDIR;
	if ((r = hostfs_node_want(dn, PLAT_HOST_READ)) < 0)
		return r;
	return plat_hostobj_readdir(dn->obj, cookie, readdir_entry, &c);
}

static long
hostfs_readlink(struct vnode *vn, char *buf, size_t size)
{
	struct hostfs_node *n = vn->data;

	int r;

	if (vn->type != VLNK)
		return -EINVAL;
	if ((r = hostfs_node_open(n)) < 0)
		return r;
	return plat_hostobj_readlink(n->obj, buf, size);
}

/*
 * Give the new host file obj (status *st) the owner uid, group gid and
 * mode the guest's call gave it.  Guest ids are host ids (the identity
 * map): a vkernel run as root gives the file away.  One that cannot
 * (EPERM: not root; EINVAL: an id its user namespace lacks) leaves it
 * its own, and then its set-id bits are never kept: a set-id bit stays
 * only where the host owner (and group, for S_ISGID) is what the guest
 * asked for.  The host made the file without them, so no moment has a
 * set-id file of the wrong owner.
 */
static int
create_own(struct plat_hostobj *obj, struct plat_hoststat *st,
    uint32_t mode, uint32_t uid, uint32_t gid)
{
	uint32_t want = mode & 07777;
	int r;

	if (st->uid != uid || st->gid != gid) {
		r = plat_hostobj_chown(obj, uid, gid);
		if (r < 0 && r != -EPERM && r != -EINVAL)
			return r;
		if ((r = plat_hostobj_stat(obj, st)) < 0)
			return r;
	}
	if (st->uid != uid)
		want &= ~(uint32_t)(S_ISUID | S_ISGID);
	if (st->gid != gid)
		want &= ~(uint32_t)S_ISGID;
	if (S_ISLNK(st->mode) || (st->mode & 07777) == want)
		return 0;
	/* A host that cannot chmod this object leaves it without them. */
	if ((r = plat_hostobj_chmod(obj, want)) < 0)
		return r == -EOPNOTSUPP ? 0 : r;
	return plat_hostobj_stat(obj, st);
}

static int
hostfs_create(struct vnode *dir, const char *name, uint32_t mode,
    uint64_t rdev, const char *target, uint32_t uid, uint32_t gid,
    struct vnode **vpp)
{
	struct hostfs_node *dn = dir->data;
	struct plat_hostobj *obj;
	struct plat_hoststat st;
	int r;

	if (vn_rdonly(dir))
		return -EROFS;
	names_changes++;
	hostfs_attr_changes++;
	if (dir->type != VDIR)
		return -ENOTDIR;
	if (name != NULL && (strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0))
		return -EEXIST;
	if ((r = hostfs_node_open(dn)) < 0)
		return r;
	r = plat_hostobj_create(dn->obj, name,
	    mode & ~(uint32_t)(S_ISUID | S_ISGID), target, &obj, &st);
	if (r < 0)
		return r;
	/* Failing after the host made it, leave nothing behind. */
	if ((r = create_own(obj, &st, mode, uid, gid)) < 0) {
		plat_hostobj_close(obj);
		(void)plat_hostobj_remove(dn->obj, name, S_ISDIR(mode));
		return r;
	}
	return hostfs_node_get(dn->hm, obj, &st, dir, name, vpp);
}

static int
hostfs_link(struct vnode *dir, const char *name, struct vnode *vn)
{
	struct hostfs_node *dn = dir->data, *n = vn->data, *pn;
	struct plat_hoststat st;
	int r;

	if (vn_rdonly(dir))
		return -EROFS;
	names_changes++;
	hostfs_attr_changes++;
	if (vn->ops != &hostfs_vnops || vn->mount != dir->mount)
		return -EXDEV;
	if (dir->type != VDIR)
		return -ENOTDIR;
	if (vn->type == VDIR)
		return -EPERM;
	/* The host links names: vn's must still be its own. */
	if (n->parent == NULL)
		return -ENOENT;   /* unlinked: linkat(2) says ENOENT too */
	pn = n->parent->data;
	if ((r = hostfs_node_open(dn)) < 0)
		return r;
	if ((r = plat_hostobj_statat(pn->obj, n->name, &st)) < 0)
		return r == -ENOENT ? -ESTALE : r;
	if (st.dev != n->dev || st.ino != n->ino)
		return -ESTALE;
	return plat_hostobj_link(pn->obj, n->name, dn->obj, name);
}

static int
hostfs_remove(struct vnode *dir, const char *name, bool rmdir)
{
	struct hostfs_node *dn = dir->data, *victim;
	int r;

	if (vn_rdonly(dir))
		return -EROFS;
	names_changes++;
	hostfs_attr_changes++;
	if (dir->type != VDIR)
		return -ENOTDIR;
	if ((r = hostfs_node_at(dn, name, &victim)) < 0)
		return r;
	if (victim != NULL && hostfs_node_named(victim, dir, name))
		hostfs_node_keep_open(victim);
	if ((r = plat_hostobj_remove(dn->obj, name, rmdir)) < 0)
		return r;
	if (victim != NULL && hostfs_node_named(victim, dir, name))
		hostfs_node_set_name(victim, NULL, NULL);
	return 0;
}

/* Refuse to move a directory beneath itself, in hostfs's own record. */
static int
rename_check(const struct hostfs_node *src, const struct hostfs_node *dst,
    const struct vnode *fromdir, const struct vnode *todir, unsigned flags)
{
	if (flags & ~(VFS_RENAME_NOREPLACE | VFS_RENAME_EXCHANGE))
		return -EINVAL;
	if (src != NULL && src->vn->type == VDIR &&
	    hostfs_node_is_ancestor(src->vn, todir))
		return -EINVAL;
	if ((flags & VFS_RENAME_EXCHANGE) && dst != NULL &&
	    dst->vn->type == VDIR && hostfs_node_is_ancestor(dst->vn, fromdir))
		return -EINVAL;
	return 0;
}

/* After the host renamed: make hostfs's record of names agree. */
static void
rename_record(struct hostfs_node *src, struct hostfs_node *dst,
    struct vnode *fromdir, const char *from, struct vnode *todir,
    const char *to, unsigned flags)
{
	bool src_named = src != NULL && hostfs_node_named(src, fromdir, from);
	bool dst_named = dst != NULL && hostfs_node_named(dst, todir, to);

	/* Two names of one file: rename(2) does nothing at all. */
	if (src != NULL && src == dst)
		return;
	if (src_named)
		hostfs_node_set_name(src, todir, to);
	if (dst_named && (flags & VFS_RENAME_EXCHANGE))
		hostfs_node_set_name(dst, fromdir, from);
	else if (dst_named)
		hostfs_node_set_name(dst, NULL, NULL);
}

static int
hostfs_rename(struct vnode *fromdir, const char *from, struct vnode *todir,
    const char *to, unsigned flags)
{
	struct hostfs_node *fdn = fromdir->data, *tdn = todir->data;
	struct hostfs_node *src, *dst;
	unsigned pf = 0;
	int r;

	if (vn_rdonly(fromdir))
		return -EROFS;
	names_changes++;
	hostfs_attr_changes++;
	if (todir->ops != &hostfs_vnops || todir->mount != fromdir->mount)
		return -EXDEV;
	if (fromdir->type != VDIR || todir->type != VDIR)
		return -ENOTDIR;
	if ((r = hostfs_node_at(fdn, from, &src)) < 0)
		return r;
	if ((r = hostfs_node_at(tdn, to, &dst)) < 0 && r != -ENOENT)
		return r;
	if ((r = hostfs_node_open(tdn)) < 0)
		return r;
	if ((r = rename_check(src, dst, fromdir, todir, flags)) < 0)
		return r;
	if (dst != NULL && dst != src && !(flags & VFS_RENAME_EXCHANGE) &&
	    hostfs_node_named(dst, todir, to))
		hostfs_node_keep_open(dst);
	pf |= (flags & VFS_RENAME_NOREPLACE) ? PLAT_RENAME_NOREPLACE : 0;
	pf |= (flags & VFS_RENAME_EXCHANGE) ? PLAT_RENAME_EXCHANGE : 0;
	if ((r = plat_hostobj_rename(fdn->obj, from, tdn->obj, to, pf)) < 0)
		return r;
	rename_record(src, dst, fromdir, from, todir, to, flags);
	return 0;
}

static void
hostfs_inactive(struct vnode *vn)
{
	struct hostfs_node *n = vn->data;

	/* Every mapping holds a reference. */
	VK_ASSERT(n->mc == NULL);
	hostfs_node_unhash(n);
	plat_hostobj_close(n->obj);
	free(n->name);
	if (n->parent != NULL)
		vnode_rel(n->parent);
	free(n);
}

const struct vnode_ops hostfs_vnops = {
	.lookup = hostfs_lookup,
	.getattr = hostfs_getattr,
	.getperm = hostfs_getperm,
	.statfs = hostfs_statfs,
	.setattr = hostfs_setattr,
	.read = hostfs_read,
	.read_ram = hostfs_read_ram,
	.seek_hole = hostfs_seek_hole,
	.write = hostfs_write,
	.fallocate = hostfs_fallocate,
	.readdir = hostfs_readdir,
	.readlink = hostfs_readlink,
	.create = hostfs_create,
	.link = hostfs_link,
	.remove = hostfs_remove,
	.rename = hostfs_rename,
	.inactive = hostfs_inactive,
	.getpage = hostfs_getpage,
	.map_pin = hostfs_map_pin,
	.fsync = hostfs_fsync,
	.sync_range = hostfs_sync_range,
	.names_version = hostfs_names_version,
};

/* --- Mounts --- */

int
hostfs_mount(const char *hostpath, bool rdonly, struct mount **mpp)
{
	struct plat_hostobj *obj;
	struct plat_hoststat st;
	struct hostfs_mount *hm;
	int r;

	if ((r = plat_hostdir_open_root(hostpath, &obj, &st)) < 0)
		return r;
	hm = vk_xcalloc(1, sizeof(*hm));
	hm->mp = mount_alloc("hostfs", hostpath, rdonly, KM_FORCE);
	hm->mp->dev = st.dev;
	/* The guest cannot change a read-only one; the host should not. */
	hm->mp->ncache = rdonly;
	/* Nor may a remount make it writable: the host's is not. */
	hm->mp->ro_locked = rdonly;
	hm->mp->hostowners = true;
	hm->mp->root = hostfs_node_new(hm, obj, &st, NULL, NULL);
	hm->mp->fs_free = hostfs_unmount;
	*mpp = hm->mp;
	return 0;
}

void
hostfs_unmount(struct mount *mp)
{
	struct hostfs_mount *hm;

	VK_ASSERT(mp->root != NULL && hostfs_is_hostfs(mp->root));
	hm = ((struct hostfs_node *)mp->root->data)->hm;
	VK_ASSERT(mp->root->refs == 1);
	vnode_rel(mp->root);
	VK_ASSERT(hm->nnodes == 0);
	free(hm);
	mount_destroy(mp);
}

bool
hostfs_is_hostfs(const struct vnode *vn)
{
	return vn->ops == &hostfs_vnops;
}
