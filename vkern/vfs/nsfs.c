/*
 * Namespaces as files (nsfs.h), and setns(2).
 *
 * A link of /proc/PID/ns leads to a regular file of the internal nsfs
 * file system, never in a mount table: read-only, root's, its inode
 * number the namespace's, so that two processes in one namespace see one
 * file.  The vnode of a mount namespace holds the namespace, as Linux's
 * open ns file keeps it alive, and setns(2) of a descriptor open on it
 * moves the caller there.  A pidfd names all the namespaces of its
 * process at once (Linux 5.8's setns).
 *
 * setns to a mount namespace takes guest root (CAP_SYS_ADMIN and
 * CAP_SYS_CHROOT, EPERM without), a process whose fs state no other
 * thread or process shares (EINVAL, as Linux's mntns_install()), and
 * makes the namespace's root the caller's root and working directory.
 * Of the other kinds there is one namespace each, the caller's already:
 * setns to it changes nothing, for guest root (EPERM for others), and
 * is EINVAL for the user namespace, as Linux's userns_install() answers
 * a process for its own.
 */
#include <errno.h>
#include <linux/sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kmem.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/nsfs.h"
#include "vkern/vfs/vfs.h"

#define NSFS_MAGIC 0x6e736673

/* Each link's name in /proc/PID/ns, its CLONE_NEW* kind and fixed inode. */
static const struct {
	const char *name;       /* as the link's text names the kind */
	int type;
	uint64_t ino;           /* 0: the process's mount namespace's */
} nsfs_kinds[NSFS_NLINKS] = {
	[NSFS_CGROUP] = { "cgroup", CLONE_NEWCGROUP, NSFS_INO_CGROUP },
	[NSFS_IPC] = { "ipc", CLONE_NEWIPC, NSFS_INO_IPC },
	[NSFS_MNT] = { "mnt", CLONE_NEWNS, 0 },
	[NSFS_NET] = { "net", CLONE_NEWNET, NSFS_INO_NET },
	[NSFS_PID] = { "pid", CLONE_NEWPID, NSFS_INO_PID },
	[NSFS_PID_FOR_CHILDREN] = { "pid", CLONE_NEWPID, NSFS_INO_PID },
	[NSFS_TIME] = { "time", CLONE_NEWTIME, NSFS_INO_TIME },
	[NSFS_TIME_FOR_CHILDREN] = { "time", CLONE_NEWTIME, NSFS_INO_TIME },
	[NSFS_USER] = { "user", CLONE_NEWUSER, NSFS_INO_USER },
	[NSFS_UTS] = { "uts", CLONE_NEWUTS, NSFS_INO_UTS },
};

/* Every kind setns(2) knows of, as a pidfd's mask may name them. */
#define NSFS_ALL_TYPES (CLONE_NEWCGROUP | CLONE_NEWIPC | CLONE_NEWNS | \
    CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWTIME | CLONE_NEWUSER | \
    CLONE_NEWUTS)

struct nsfs_node {
	int type;               /* CLONE_NEW* */
	uint64_t ino;
	struct mntns *mnt;      /* CLONE_NEWNS: the namespace, referenced */
	struct vnode *vn;
	struct nsfs_node *next;
};

static struct nsfs_node *nsfs_live;
static const struct vnode_ops nsfs_vnops;

static uint64_t
nsfs_ino(enum nsfs_link l, const struct proc *p)
{
	return nsfs_kinds[l].ino != 0 ? nsfs_kinds[l].ino :
	    mntns_ino(vfs_ns(p));
}

void
nsfs_link_text(enum nsfs_link l, const struct proc *p, char *buf,
    size_t size)
{
	snprintf(buf, size, "%s:[%llu]", nsfs_kinds[l].name,
	    (unsigned long long)nsfs_ino(l, p));
}

static int
nsfs_lookup(struct vnode *dir, const char *name, struct vnode **vpp)
{
	return -ENOTDIR;
}

static int
nsfs_getattr(struct vnode *vn, struct vattr *va)
{
	const struct nsfs_node *n = vn->data;

	*va = (struct vattr){ .ino = n->ino, .dev = vn->mount->dev,
	    .mode = S_IFREG | 0444, .nlink = 1, .blksize = 4096 };
	return 0;
}

/* As Linux's ns files: nothing to read or write. */
static long
nsfs_read(struct vnode *vn, void *buf, size_t len, uint64_t off)
{
	return -EINVAL;
}

static long
nsfs_write(struct vnode *vn, const void *buf, size_t len, uint64_t off)
{
	return -EINVAL;
}

static int
nsfs_setattr(struct vnode *vn, const struct vattr *va, unsigned mask)
{
	return -EPERM;
}

static void
nsfs_inactive(struct vnode *vn)
{
	struct nsfs_node *n = vn->data;

	for (struct nsfs_node **pp = &nsfs_live; *pp != NULL;
	    pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			break;
		}
	}
	if (n->mnt != NULL)
		mntns_rel(n->mnt);
	kmem_free(n, sizeof(*n), KM_FS);
}

/* Linux's namespace files have no fsync(2). */
static int
nsfs_fsync(struct vnode *vn, enum vfs_sync how)
{
	return -EINVAL;
}

static const struct vnode_ops nsfs_vnops = {
	.lookup = nsfs_lookup,
	.getattr = nsfs_getattr,
	.setattr = nsfs_setattr,
	.read = nsfs_read,
	.write = nsfs_write,
	.inactive = nsfs_inactive,
	.fsync = nsfs_fsync,
};

static struct mount *
nsfs_mount(void)
{
	static struct mount *mp;

	if (mp == NULL) {
		mp = mount_alloc("nsfs", "nsfs", true, KM_FORCE);
		mp->magic = NSFS_MAGIC;
	}
	return mp;
}

struct vnode *
nsfs_vnode(enum nsfs_link l, const struct proc *p)
{
	uint64_t ino = nsfs_ino(l, p);
	struct nsfs_node *n;

	for (n = nsfs_live; n != NULL; n = n->next) {
		if (n->ino == ino) {
			vnode_ref(n->vn);
			return n->vn;
		}
	}
	n = kmem_alloc(sizeof(*n), KM_ZERO | KM_FORCE | KM_FS);
	n->type = nsfs_kinds[l].type;
	n->ino = ino;
	if (n->type == CLONE_NEWNS) {
		n->mnt = vfs_ns(p);
		mntns_ref(n->mnt);
	}
	n->vn = vnode_alloc(nsfs_mount(), VREG, &nsfs_vnops, n);
	n->next = nsfs_live;
	nsfs_live = n;
	return n->vn;
}

/*
 * Whether p may join a namespace of type (the one there is, or a mount
 * namespace), as each kind's install check of Linux answers: 0 or
 * -errno.
 */
static int
nsfs_may_join(const struct proc *p, int type)
{
	if (type == CLONE_NEWUSER)
		return -EINVAL;         /* it is in that one already */
	if (p->cred.euid != 0)
		return -EPERM;          /* CAP_SYS_ADMIN */
	if (type == CLONE_NEWNS && (p->fs->refs > 1 || p->nthreads > 1))
		return -EINVAL;
	return 0;
}

/*
 * Move p into mount namespace ns, as Linux's mntns_install(): its root
 * and working directory become ns's root.
 */
static void
nsfs_enter_mnt(struct proc *p, struct mntns *ns)
{
	struct fs_ctx *fs = p->fs;
	struct vnode *root;

	mntns_enter(&fs->mntns, ns, &root);
	vnode_rel(fs->root);
	vnode_rel(fs->cwd);
	fs->root = root;
	fs->cwd = root;
	vnode_ref(root);
	free(fs->cwd_path);
	fs->cwd_path = strdup("/");
}

/*
 * setns of a pidfd: every kind in mask at once (one at least), each
 * checked before any changes, the user namespace first as Linux does.
 */
static long
nsfs_setns_pidfd(struct thread *td, int pid, int mask)
{
	struct proc *q;
	int r;

	if (mask == 0 || (mask & ~NSFS_ALL_TYPES) != 0)
		return -EINVAL;
	if ((q = proc_find(pid)) == NULL || q->exiting)
		return -ESRCH;
	if (!proc_may_trace(td->proc, q, false))
		return -EPERM;
	if ((mask & CLONE_NEWUSER) &&
	    (r = nsfs_may_join(td->proc, CLONE_NEWUSER)) < 0)
		return r;
	for (unsigned bit = 1; bit != 0; bit <<= 1)
		if ((mask & (int)bit) &&
		    (r = nsfs_may_join(td->proc, (int)bit)) < 0)
			return r;
	if (mask & CLONE_NEWNS)
		nsfs_enter_mnt(td->proc, vfs_ns(q));
	return 0;
}

long
sys_setns(struct thread *td, const struct sys_setns_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);
	const struct nsfs_node *n;
	int pid, r;

	if (fp == NULL)
		return -EBADF;
	if (fp->vn == NULL || fp->vn->ops != &nsfs_vnops) {
		pid = pidfd_pid(td, a->fd);
		return pid < 0 ? -EINVAL : nsfs_setns_pidfd(td, pid,
		    (int)a->nstype);
	}
	n = fp->vn->data;
	if (a->nstype != 0 && a->nstype != (unsigned)n->type)
		return -EINVAL;
	if ((r = nsfs_may_join(td->proc, n->type)) < 0)
		return r;
	if (n->type == CLONE_NEWNS)
		nsfs_enter_mnt(td->proc, n->mnt);
	return 0;
}
