/*
 * devfs: a fixed table of device nodes, symlinks and two directories.
 *
 * The table (devfs_specs) says what /dev holds and is shared by every
 * mount; each mount copies out what can change (mode, owner, times) into
 * its own nodes, so that a chmod in one container's /dev is not seen in
 * another's.  Node 0 is the root, node i + 1 is devfs_specs[i]; that index
 * is also the inode number less one and, for the root, readdir's cookie
 * less two.  As in tmpfs there is one vnode per node while it is
 * referenced.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/devfs/devfs.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"

#define DEVFS_RW_MAX 0x7ffff000UL  /* Linux's MAX_RW_COUNT */

/* How a node behaves. */
enum devfs_kind {
	DK_DIR,
	DK_LINK,
	DK_NULL,
	DK_ZERO,
	DK_FULL,
	DK_RANDOM,
	DK_TTY,         /* tty, console, ptmx: the VFS's to route */
	DK_KMSG,        /* the kernel's log: the VFS's to route */
};

struct devfs_spec {
	const char *name;
	enum devfs_kind kind;
	uint32_t mode;
	unsigned major, minor;
	const char *target;     /* symlinks */
};

static const struct devfs_spec devfs_root_spec = {
	"", DK_DIR, S_IFDIR | 0755, 0, 0, NULL
};

/* Device numbers are Linux's (Documentation/admin-guide/devices.txt). */
static const struct devfs_spec devfs_specs[] = {
	{ "null",    DK_NULL,   S_IFCHR | 0666, 1, 3, NULL },
	{ "zero",    DK_ZERO,   S_IFCHR | 0666, 1, 5, NULL },
	{ "full",    DK_FULL,   S_IFCHR | 0666, 1, 7, NULL },
	{ "random",  DK_RANDOM, S_IFCHR | 0666, 1, 8, NULL },
	{ "urandom", DK_RANDOM, S_IFCHR | 0666, 1, 9, NULL },
	{ "tty",     DK_TTY,    S_IFCHR | 0666, 5, 0, NULL },
	{ "console", DK_TTY,    S_IFCHR | 0600, 5, 1, NULL },
	{ "fd",      DK_LINK,   S_IFLNK | 0777, 0, 0, "/proc/self/fd" },
	{ "stdin",   DK_LINK,   S_IFLNK | 0777, 0, 0, "/proc/self/fd/0" },
	{ "stdout",  DK_LINK,   S_IFLNK | 0777, 0, 0, "/proc/self/fd/1" },
	{ "stderr",  DK_LINK,   S_IFLNK | 0777, 0, 0, "/proc/self/fd/2" },
	{ "shm",     DK_DIR,    S_IFDIR | 0755, 0, 0, NULL },
	{ "pts",     DK_DIR,    S_IFDIR | 0755, 0, 0, NULL },
	{ "mqueue",  DK_DIR,    S_IFDIR | 0755, 0, 0, NULL },
	{ "ptmx",    DK_TTY,    S_IFCHR | 0666, 5, 2, NULL },
	{ "kmsg",    DK_KMSG,   S_IFCHR | 0644, 1, 11, NULL },
};

#define DEVFS_NNODES (1 + VK_NELEM(devfs_specs))

struct devfs_fs;

struct devfs_node {
	const struct devfs_spec *spec;
	struct devfs_fs *fs;
	struct vnode *vnode;    /* while referenced, else NULL */
	uint64_t ino;
	struct devfs_attr a;
};

struct devfs_fs {
	struct devfs_node nodes[DEVFS_NNODES];
	unsigned nvnodes;       /* live vnodes, for unmount */
};

static const struct vnode_ops devfs_vnops;

static struct devfs_node *
devfs_root(struct devfs_fs *fs)
{
	return &fs->nodes[0];
}

/* The node's vnode, referenced: the live one, or a new one. */
static struct vnode *
devfs_vnode(struct devfs_node *dn, struct mount *mp)
{
	if (dn->vnode != NULL) {
		vnode_ref(dn->vnode);
		return dn->vnode;
	}
	dn->vnode = vnode_alloc(mp, vtype_from_mode(dn->a.mode), &devfs_vnops,
	    dn);
	dn->fs->nvnodes++;
	return dn->vnode;
}

/* The root's node named name, or NULL. */
static struct devfs_node *
devfs_find(struct devfs_fs *fs, const char *name)
{
	for (size_t i = 0; i < VK_NELEM(devfs_specs); i++)
		if (strcmp(devfs_specs[i].name, name) == 0)
			return &fs->nodes[i + 1];
	return NULL;
}

static int
devfs_lookup(struct vnode *dvn, const char *name, struct vnode **vpp)
{
	struct devfs_node *dn = dvn->data, *np;

	if (dvn->type != VDIR)
		return -ENOTDIR;
	if (name == NULL || name[0] == '\0')
		return -ENOENT;
	if (strnlen(name, 256) > 255)
		return -ENAMETOOLONG;
	if (strcmp(name, ".") == 0)
		np = dn;
	else if (strcmp(name, "..") == 0)
		np = devfs_root(dn->fs);
	else if (dn == devfs_root(dn->fs))
		np = devfs_find(dn->fs, name);
	else
		np = NULL;      /* shm, pts and mqueue are empty */
	if (np == NULL)
		return -ENOENT;
	*vpp = devfs_vnode(np, dvn->mount);
	return 0;
}

static int
devfs_getattr(struct vnode *vn, struct vattr *va)
{
	struct devfs_node *dn = vn->data;
	const struct devfs_spec *sp = dn->spec;

	*va = (struct vattr){
		.ino = dn->ino,
		.dev = vn->mount->dev,
		.mode = dn->a.mode,
		.uid = dn->a.uid,
		.gid = dn->a.gid,
		.nlink = 1,
		.blksize = VK_PAGE_SIZE,
		.atime_ns = dn->a.atime,
		.mtime_ns = dn->a.mtime,
		.ctime_ns = dn->a.ctime,
		.btime_ns = dn->a.ctime,
	};
	if (S_ISCHR(dn->a.mode))
		va->rdev = makedev(sp->major, sp->minor);
	if (sp->kind == DK_LINK)
		va->size = strlen(sp->target);
	/* The root has shm's, pts's and mqueue's ".." besides its own two. */
	if (sp->kind == DK_DIR)
		va->nlink = dn == devfs_root(dn->fs) ? 5 : 2;
	return 0;
}

/*
 * Attributes change in memory, as root may chmod or touch a Linux /dev
 * node.  A size is ignored on a device: Linux never truncates one (open
 * drops O_TRUNC for it), and a "> /dev/null" must not fail here even if
 * the VFS forgets that.
 */
static int
devfs_setattr(struct vnode *vn, const struct vattr *va, unsigned mask)
{
	struct devfs_node *dn = vn->data;

	if (vn->mount->rdonly)
		return -EROFS;
	if ((mask & VA_SIZE) != 0 && vn->type == VDIR)
		return -EISDIR;
	if ((mask & VA_SIZE) != 0 && vn->type != VCHR)
		return -EINVAL;
	devfs_attr_set(&dn->a, va, mask);
	return 0;
}

void
devfs_attr_set(struct devfs_attr *a, const struct vattr *va, unsigned mask)
{
	if ((mask & VA_MODE) != 0)
		a->mode = (a->mode & S_IFMT) | (va->mode & 07777);
	if ((mask & VA_UID) != 0)
		a->uid = va->uid;
	if ((mask & VA_GID) != 0)
		a->gid = va->gid;
	if ((mask & VA_ATIME) != 0)
		a->atime = va->atime_ns;
	if ((mask & VA_MTIME) != 0)
		a->mtime = va->mtime_ns;
	a->ctime = plat_clock_ns(CLOCK_REALTIME);
}

/* Whether vn's kind does I/O here: 0, or the error its I/O gives. */
static int
devfs_io_check(const struct vnode *vn)
{
	const struct devfs_node *dn = vn->data;

	switch (dn->spec->kind) {
	case DK_DIR:
		return -EISDIR;
	case DK_LINK:
		return -EINVAL;
	case DK_TTY:
		return -ENXIO;
	case DK_KMSG:
		return -EINVAL;
	default:
		return 0;
	}
}

static long
devfs_read(struct vnode *vn, void *buf, size_t len, uint64_t off)
{
	const struct devfs_node *dn = vn->data;
	int r;

	if ((r = devfs_io_check(vn)) < 0)
		return r;
	len = VK_MIN(len, DEVFS_RW_MAX);
	switch (dn->spec->kind) {
	case DK_NULL:
		return 0;
	case DK_RANDOM:
		plat_random(buf, len);
		return (long)len;
	default:        /* zero and full read zeros */
		memset(buf, 0, len);
		return (long)len;
	}
}

static long
devfs_write(struct vnode *vn, const void *buf, size_t len, uint64_t off)
{
	const struct devfs_node *dn = vn->data;
	int r;

	if ((r = devfs_io_check(vn)) < 0)
		return r;
	if (dn->spec->kind == DK_FULL)
		return -ENOSPC;
	/* null and zero discard it; random takes it as (no) entropy. */
	return (long)VK_MIN(len, DEVFS_RW_MAX);
}

/* The root's entries: ".", "..", then the table; cookie = index + 2. */
static int
devfs_readdir(struct vnode *dvn, uint64_t cookie, vfs_dirent_fn fn,
    void *arg)
{
	struct devfs_node *dn = dvn->data, *root = devfs_root(dn->fs);

	if (dvn->type != VDIR)
		return -ENOTDIR;
	if (cookie == 0 && fn(arg, ".", 1, dn->ino, VDIR, 1) != 0)
		return 0;
	if (cookie <= 1 && fn(arg, "..", 2, root->ino, VDIR, 2) != 0)
		return 0;
	if (dn != root)
		return 0;
	for (uint64_t i = VK_MAX(cookie, 2) - 2; i < VK_NELEM(devfs_specs);
	    i++) {
		const struct devfs_node *np = &dn->fs->nodes[i + 1];

		if (fn(arg, np->spec->name, strlen(np->spec->name), np->ino,
		    vtype_from_mode(np->a.mode), i + 3) != 0)
			break;
	}
	return 0;
}

static long
devfs_readlink(struct vnode *vn, char *buf, size_t size)
{
	const struct devfs_node *dn = vn->data;
	size_t n;

	if (dn->spec->kind != DK_LINK)
		return -EINVAL;
	n = VK_MIN(size, strlen(dn->spec->target));
	if (n > 0)
		memcpy(buf, dn->spec->target, n);
	return (long)n;
}

/*
 * The set of files is fixed; a name that exists is EEXIST, as mknod's.
 * devpts's names come and go, but never through these calls either.
 */
int
devfs_fixed_create(struct vnode *dvn, const char *name, uint32_t mode,
    uint64_t rdev, const char *target, uint32_t uid, uint32_t gid,
    struct vnode **vpp)
{
	struct vnode *vn;

	if (dvn->ops->lookup(dvn, name, &vn) == 0) {
		vnode_rel(vn);
		return -EEXIST;
	}
	return dvn->type == VDIR ? -EPERM : -ENOTDIR;
}

int
devfs_fixed_link(struct vnode *dvn, const char *name, struct vnode *vn)
{
	return -EPERM;
}

int
devfs_fixed_remove(struct vnode *dvn, const char *name, bool rmdir)
{
	struct vnode *vn;
	int r;

	if ((r = dvn->ops->lookup(dvn, name, &vn)) < 0)
		return r;
	vnode_rel(vn);
	return -EPERM;
}

int
devfs_fixed_rename(struct vnode *fromdir, const char *from,
    struct vnode *todir, const char *to, unsigned flags)
{
	return -EPERM;
}

static void
devfs_inactive(struct vnode *vn)
{
	struct devfs_node *dn = vn->data;

	VK_ASSERT(dn->vnode == vn);
	dn->vnode = NULL;
	dn->fs->nvnodes--;
}

/* devtmpfs is a tmpfs on Linux, and says so. */
static int
devfs_statfs(struct vnode *vn, struct vfs_statfs *sf)
{
	tmpfs_statfs_mem(sf, DEVFS_NNODES);
	return 0;
}

static const struct vnode_ops devfs_vnops = {
	.lookup = devfs_lookup,
	.getattr = devfs_getattr,
	.setattr = devfs_setattr,
	.read = devfs_read,
	.write = devfs_write,
	.readdir = devfs_readdir,
	.readlink = devfs_readlink,
	.create = devfs_fixed_create,
	.link = devfs_fixed_link,
	.remove = devfs_fixed_remove,
	.rename = devfs_fixed_rename,
	.inactive = devfs_inactive,
	.statfs = devfs_statfs,
};

static void
devfs_node_init(struct devfs_fs *fs, unsigned i, int64_t now)
{
	struct devfs_node *dn = &fs->nodes[i];

	dn->spec = i == 0 ? &devfs_root_spec : &devfs_specs[i - 1];
	dn->fs = fs;
	dn->ino = i + 1;
	dn->a.mode = dn->spec->mode;
	dn->a.atime = dn->a.mtime = dn->a.ctime = now;
}

int
devfs_mount(struct mount **mpp)
{
	struct devfs_fs *fs = vk_xcalloc(1, sizeof(*fs));
	struct mount *mp = mount_alloc("devtmpfs", "devtmpfs", false,
	    KM_FORCE);
	int64_t now = plat_clock_ns(CLOCK_REALTIME);

	for (unsigned i = 0; i < DEVFS_NNODES; i++)
		devfs_node_init(fs, i, now);
	mp->root = devfs_vnode(devfs_root(fs), mp);
	mp->fs_free = devfs_unmount;
	*mpp = mp;
	return 0;
}

void
devfs_unmount(struct mount *mp)
{
	struct devfs_fs *fs;

	VK_ASSERT(mp->root != NULL && devfs_is_devfs(mp->root));
	fs = ((struct devfs_node *)mp->root->data)->fs;
	vnode_rel(mp->root);
	mp->root = NULL;
	/* A vnode still held would point into fs. */
	VK_ASSERT(fs->nvnodes == 0);
	free(fs);
	mount_destroy(mp);
}

bool
devfs_is_devfs(const struct vnode *vn)
{
	return vn != NULL && vn->ops == &devfs_vnops;
}

int
devfs_node_rdev(const struct vnode *vn, uint64_t *rdev)
{
	const struct devfs_node *dn;

	if (!devfs_is_devfs(vn) || vn->type != VCHR)
		return -EINVAL;
	dn = vn->data;
	*rdev = makedev(dn->spec->major, dn->spec->minor);
	return 0;
}
