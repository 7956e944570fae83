/*
 * mqueue: the POSIX message queues of the sandbox as files of one
 * directory (mq_overview(7)).  kern/mqueue.c holds the queues; this is
 * their names seen through the VFS.  A queue's file reads as its QSIZE
 * line, unlink(2) is mq_unlink(3), creat(2) makes a queue of the default
 * attributes, chmod and chown change its owner and mode, and a file
 * opened here is the queue's descriptor, as mq_open's is.  There are no
 * directories, links nor renames (EPERM, as Linux's mqueue).
 *
 * A queue's vnode holds the queue (mq_get), so that an open file, or a
 * path being looked at, keeps it; there is one vnode per queue while it
 * is referenced, whichever mount it is seen through.  Names are never
 * cached: mq_open and mq_unlink change them without the VFS.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/mqueue.h"
#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/mqueuefs/mqueuefs.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"

#define MQUEUE_MAGIC 0x19800202

/* A queue's vnode: the queue it holds, on the list of live ones. */
struct mqfs_node {
	LIST_ENTRY(mqfs_node) link;
	struct vnode *vn;
	struct mqueue *q;
};

static struct {
	struct mount *mp;                  /* the file system's own mount */
	int64_t time;                      /* its root's times: the mount's */
	LIST_HEAD(, mqfs_node) nodes;
} mqfs = { .nodes = LIST_HEAD_INITIALIZER(mqfs.nodes) };

static const struct vnode_ops mqfs_vnops;

static bool
mqfs_is_root(const struct vnode *vn)
{
	return vn->data == NULL;
}

/* q's vnode, referenced: the live one, or a new one that holds q. */
static struct vnode *
mqfs_vnode(struct mqueue *q)
{
	struct mqfs_node *n;

	LIST_FOREACH(n, &mqfs.nodes, link) {
		if (n->q == q) {
			vnode_ref(n->vn);
			mq_put(q);
			return n->vn;
		}
	}
	n = vk_xcalloc(1, sizeof(*n));
	n->q = q;
	n->vn = vnode_alloc(mqfs.mp, VREG, &mqfs_vnops, n);
	LIST_INSERT_HEAD(&mqfs.nodes, n, link);
	return n->vn;
}

static struct mqueue *
mqfs_queue(const struct vnode *vn)
{
	return ((const struct mqfs_node *)vn->data)->q;
}

static int
mqfs_lookup(struct vnode *dvn, const char *name, struct vnode **vpp)
{
	struct mqueue *q;

	if (!mqfs_is_root(dvn))
		return -ENOTDIR;
	if ((q = mq_get(name)) == NULL)
		return -ENOENT;
	*vpp = mqfs_vnode(q);
	return 0;
}

static int
mqfs_getattr(struct vnode *vn, struct vattr *va)
{
	if (mqfs_is_root(vn)) {
		*va = (struct vattr){ .ino = 1, .mode = S_IFDIR | 01777,
		    .nlink = 2, .blksize = 4096, .atime_ns = mqfs.time,
		    .mtime_ns = mqfs.time, .ctime_ns = mqfs.time };
	} else {
		mq_getattr(mqfs_queue(vn), va);
	}
	va->dev = vn->mount->dev;
	return 0;
}

/* A queue's file has no size to change: a truncation is taken. */
static int
mqfs_setattr(struct vnode *vn, const struct vattr *va, unsigned mask)
{
	if (mqfs_is_root(vn))
		return (mask & VA_SIZE) ? -EISDIR : 0;
	mq_setattr(mqfs_queue(vn), va, mask & ~(unsigned)VA_SIZE);
	return 0;
}

static long
mqfs_read(struct vnode *vn, void *buf, size_t len, uint64_t off)
{
	if (mqfs_is_root(vn))
		return -EISDIR;
	return mq_status(mqfs_queue(vn), buf, len, off);
}

/* As Linux's mqueue files, which have no write. */
static long
mqfs_write(struct vnode *vn, const void *buf, size_t len, uint64_t off)
{
	return mqfs_is_root(vn) ? -EISDIR : -EINVAL;
}

/* ".", "..", then the queues: the cookie after queue i is i + 3. */
static int
mqfs_readdir(struct vnode *dvn, uint64_t cookie, vfs_dirent_fn fn,
    void *arg)
{
	struct mqueue *q;

	if (!mqfs_is_root(dvn))
		return -ENOTDIR;
	if (cookie == 0 && fn(arg, ".", 1, 1, VDIR, 1) != 0)
		return 0;
	if (cookie <= 1 && fn(arg, "..", 2, 1, VDIR, 2) != 0)
		return 0;
	for (uint64_t i = cookie <= 2 ? 0 : cookie - 2;
	    (q = mq_nth(i)) != NULL; i++) {
		const char *name = mq_name(q);

		if (fn(arg, name, strlen(name), mq_ino(q), VREG, i + 3) != 0)
			break;
	}
	return 0;
}

/*
 * creat(2) and mknod(2) of a regular file make a queue for the calling
 * process (it is charged for it); anything else is EPERM.
 */
static int
mqfs_create(struct vnode *dvn, const char *name, uint32_t mode,
    uint64_t rdev, const char *target, uint32_t uid, uint32_t gid,
    struct vnode **vpp)
{
	struct mqueue *q;
	long r;

	if ((mode & S_IFMT) != S_IFREG)
		return -EPERM;
	if ((r = kern_mq_create(curthread->proc, name, mode & 0777, &q)) < 0)
		return (int)r;
	*vpp = mqfs_vnode(q);
	return 0;
}

static int
mqfs_link(struct vnode *dvn, const char *name, struct vnode *vn)
{
	return -EPERM;
}

/* The VFS checked the sticky root's rule: the queue's name goes. */
static int
mqfs_remove(struct vnode *dvn, const char *name, bool rmdir)
{
	struct mqueue *q;

	if ((q = mq_get(name)) == NULL)
		return -ENOENT;
	if (!rmdir)
		mq_unname(q);
	mq_put(q);
	return rmdir ? -ENOTDIR : 0;
}

static int
mqfs_rename(struct vnode *fromdir, const char *from, struct vnode *todir,
    const char *to, unsigned flags)
{
	return -EPERM;
}

/* An open file of a queue is the queue's descriptor. */
static int
mqfs_open(struct vnode *vn, struct file *fp)
{
	if (!mqfs_is_root(vn))
		mq_file_attach(fp, mqfs_queue(vn));
	return 0;
}

static void
mqfs_inactive(struct vnode *vn)
{
	struct mqfs_node *n = vn->data;

	if (n == NULL)
		return;
	LIST_REMOVE(n, link);
	mq_put(n->q);
	free(n);
}

static int
mqfs_statfs(struct vnode *vn, struct vfs_statfs *sf)
{
	tmpfs_statfs_mem(sf, 0);
	sf->magic = MQUEUE_MAGIC;
	return 0;
}

static const struct vnode_ops mqfs_vnops = {
	.lookup = mqfs_lookup,
	.getattr = mqfs_getattr,
	.setattr = mqfs_setattr,
	.read = mqfs_read,
	.write = mqfs_write,
	.readdir = mqfs_readdir,
	.create = mqfs_create,
	.link = mqfs_link,
	.remove = mqfs_remove,
	.rename = mqfs_rename,
	.open = mqfs_open,
	.inactive = mqfs_inactive,
	.statfs = mqfs_statfs,
};

/*
 * Unmounted and unused: the root goes, and the next mount of mqueue
 * makes the file system again, over the same queues.
 */
static void
mqfs_unmount(struct mount *mp)
{
	mqfs.mp = NULL;
	mount_destroy_root(mp);
}

int
mqueuefs_mount(struct mount **mpp)
{
	if (mqfs.mp != NULL) {
		*mpp = mount_dup(mqfs.mp, mqfs.mp->root);
		return *mpp != NULL ? 0 : -ENOMEM;
	}
	mqfs.time = plat_clock_ns(CLOCK_REALTIME);
	mqfs.mp = mount_alloc("mqueue", "mqueue", false, KM_FORCE);
	mqfs.mp->root = vnode_alloc(mqfs.mp, VDIR, &mqfs_vnops, NULL);
	mqfs.mp->fs_free = mqfs_unmount;
	*mpp = mqfs.mp;
	return 0;
}
