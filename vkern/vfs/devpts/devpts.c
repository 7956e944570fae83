/*
 * devpts: the root, ptmx, and one node per live pseudo-terminal pair.
 *
 * Inode numbers are Linux's: 1 the root, 2 ptmx, N + 3 slave N.  A
 * slave's vnode holds its pair (pty_ref), so that a file open on it, or
 * a path being looked at, keeps the index from being used again; the
 * name goes as soon as the master closes (pty_get no longer finds it).
 * Names are never cached: they come and go without the VFS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/devfs/devfs.h"
#include "vkern/vfs/devpts/devpts.h"
#include "vkern/vfs/pty.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"

static struct {
	struct mount *mp;
	struct pty_node root, ptmx;
} devpts;

static const struct vnode_ops devpts_vnops;

/* Whether vn is a slave's node (its data the pair), not root or ptmx. */
static bool
devpts_is_slave(const struct vnode *vn)
{
	return vn->data != &devpts.root && vn->data != &devpts.ptmx;
}

static struct pty_node *
devpts_node(const struct vnode *vn)
{
	return devpts_is_slave(vn) ? pty_node(vn->data) : vn->data;
}

/* The node's vnode, referenced; data is what it stands for. */
static struct vnode *
devpts_vnode(struct pty_node *dn, uint32_t mode, void *data)
{
	if (dn->vnode != NULL) {
		vnode_ref(dn->vnode);
		return dn->vnode;
	}
	dn->vnode = vnode_alloc(devpts.mp, vtype_from_mode(mode),
	    &devpts_vnops, data);
	if (data != dn)
		pty_ref(data);
	return dn->vnode;
}

struct vnode *
devpts_slave_vnode(struct pty *pt)
{
	if (devpts.mp == NULL)
		return NULL;
	return devpts_vnode(pty_node(pt), S_IFCHR, pt);
}

struct pty *
devpts_pty(const struct vnode *vn)
{
	if (vn == NULL || vn->ops != &devpts_vnops || !devpts_is_slave(vn))
		return NULL;
	return vn->data;
}

int
devpts_node_rdev(const struct vnode *vn, uint64_t *rdev)
{
	if (vn == NULL || vn->ops != &devpts_vnops || vn->data != &devpts.ptmx)
		return -EINVAL;
	*rdev = makedev(5, 2);
	return 0;
}

/* A slave's number: decimal digits alone, no leading zero. */
static int
devpts_parse(const char *name, unsigned *ip)
{
	unsigned long v = 0;

	if (name[0] < '0' || name[0] > '9' || (name[0] == '0' &&
	    name[1] != '\0'))
		return -ENOENT;
	for (const char *s = name; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v >= PTY_MAX)
			return -ENOENT;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	*ip = (unsigned)v;
	return 0;
}

static int
devpts_lookup(struct vnode *dvn, const char *name, struct vnode **vpp)
{
	struct pty *pt;
	unsigned i;

	if (dvn->data != &devpts.root)
		return -ENOTDIR;
	if (strnlen(name, 256) > 255)
		return -ENAMETOOLONG;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		*vpp = devpts_vnode(&devpts.root, S_IFDIR, &devpts.root);
		return 0;
	}
	if (strcmp(name, "ptmx") == 0) {
		*vpp = devpts_vnode(&devpts.ptmx, S_IFCHR, &devpts.ptmx);
		return 0;
	}
	if (devpts_parse(name, &i) < 0 || (pt = pty_get(i)) == NULL)
		return -ENOENT;
	*vpp = devpts_vnode(pty_node(pt), S_IFCHR, pt);
	return 0;
}

static int
devpts_getattr(struct vnode *vn, struct vattr *va)
{
	struct pty_node *dn = devpts_node(vn);

	*va = (struct vattr){
		.dev = vn->mount->dev,
		.mode = dn->a.mode,
		.uid = dn->a.uid,
		.gid = dn->a.gid,
		.nlink = vn->data == &devpts.root ? 2 : 1,
		.blksize = 1024,
		.atime_ns = dn->a.atime,
		.mtime_ns = dn->a.mtime,
		.ctime_ns = dn->a.ctime,
	};
	if (vn->data == &devpts.root) {
		va->ino = 1;
	} else if (vn->data == &devpts.ptmx) {
		va->ino = 2;
		va->rdev = makedev(5, 2);
	} else {
		va->ino = pty_index(vn->data) + 3;
		va->rdev = makedev(PTY_SLAVE_MAJOR, pty_index(vn->data));
	}
	return 0;
}

static int
devpts_setattr(struct vnode *vn, const struct vattr *va, unsigned mask)
{
	struct pty_node *dn = devpts_node(vn);

	if ((mask & VA_SIZE) != 0)
		return vn->type == VDIR ? -EISDIR : 0;
	devfs_attr_set(&dn->a, va, mask);
	return 0;
}

/* The devices' I/O is their files' (pty.c); a directory has none. */
static long
devpts_read(struct vnode *vn, void *buf, size_t len, uint64_t off)
{
	return vn->type == VDIR ? -EISDIR : -ENXIO;
}

static long
devpts_write(struct vnode *vn, const void *buf, size_t len, uint64_t off)
{
	return vn->type == VDIR ? -EISDIR : -ENXIO;
}

/* ".", "..", ptmx, then the live slaves: cookie = index + 4. */
static int
devpts_readdir(struct vnode *dvn, uint64_t cookie, vfs_dirent_fn fn,
    void *arg)
{
	char name[16];

	if (dvn->data != &devpts.root)
		return -ENOTDIR;
	if (cookie == 0 && fn(arg, ".", 1, 1, VDIR, 1) != 0)
		return 0;
	if (cookie <= 1 && fn(arg, "..", 2, 1, VDIR, 2) != 0)
		return 0;
	if (cookie <= 2 && fn(arg, "ptmx", 4, 2, VCHR, 3) != 0)
		return 0;
	for (unsigned i = pty_next(cookie <= 3 ? 0 : (unsigned)cookie - 3);
	    i < PTY_MAX; i = pty_next(i + 1)) {
		int n = snprintf(name, sizeof(name), "%u", i);

		if (fn(arg, name, (size_t)n, i + 3, VCHR, i + 4) != 0)
			break;
	}
	return 0;
}

static void
devpts_inactive(struct vnode *vn)
{
	struct pty_node *dn = devpts_node(vn);

	dn->vnode = NULL;
	if (devpts_is_slave(vn))
		pty_rel(vn->data);
}

static int
devpts_statfs(struct vnode *vn, struct vfs_statfs *sf)
{
	tmpfs_statfs_mem(sf, 0);
	sf->magic = 0x1cd1;     /* DEVPTS_SUPER_MAGIC */
	return 0;
}

static const struct vnode_ops devpts_vnops = {
	.lookup = devpts_lookup,
	.getattr = devpts_getattr,
	.setattr = devpts_setattr,
	.read = devpts_read,
	.write = devpts_write,
	.readdir = devpts_readdir,
	.create = devfs_fixed_create,
	.link = devfs_fixed_link,
	.remove = devfs_fixed_remove,
	.rename = devfs_fixed_rename,
	.inactive = devpts_inactive,
	.statfs = devpts_statfs,
};

/*
 * Unmounted and unused: the root goes, and a mount of devpts makes the
 * file system again, over the same pairs.
 */
static void
devpts_unmount(struct mount *mp)
{
	devpts.mp = NULL;
	mount_destroy_root(mp);
}

int
devpts_mount(struct mount **mpp)
{
	int64_t now = plat_clock_ns(CLOCK_REALTIME);

	if (devpts.mp != NULL)
		return -EBUSY;
	devpts.mp = mount_alloc("devpts", "devpts", false, KM_FORCE);
	devpts.root = (struct pty_node){ .a = { .mode = S_IFDIR | 0755,
	    .atime = now, .mtime = now, .ctime = now } };
	devpts.ptmx = (struct pty_node){ .a = { .mode = S_IFCHR,
	    .atime = now, .mtime = now, .ctime = now } };
	devpts.mp->root = devpts_vnode(&devpts.root, S_IFDIR, &devpts.root);
	devpts.mp->fs_free = devpts_unmount;
	*mpp = devpts.mp;
	return 0;
}
