/*
 * Where a magic link leads: /proc/PID/fd/N, and so /dev/fd/N and
 * /dev/stdin, names the open file itself, and a lookup through it goes
 * on from that file's vnode (Linux's nd_jump_link()), whatever the
 * link's text says.  stat(2) then sees the file, and open(2) opens it
 * again: a new open file of the same file, pipe or terminal, checked
 * as any open of it is.
 *
 * A file with a vnode leads to it.  The kinds without one get the
 * vnode Linux's internal file systems would give them: a pipe its FIFO
 * (pipe.c), which open makes one more reader or writer of; a socket a
 * socket inode, which open refuses (ENXIO, in open_check); the
 * eventfds, epolls, signalfds, timerfds and pidfds the one anonymous
 * inode they share, root's with mode 0600 and no type, which open
 * refuses too (ENXIO, or EACCES to others, as Linux's no_open()); and a
 * console file a vnode of its host fd, which open makes a new console
 * file on (console_reopen: only as the host fd allows).
 *
 * These vnodes live on an internal mount, never in the mount table,
 * one per object while referenced, as the VFS wants.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/console.h"
#include "vkern/vfs/fdlink.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/pipe.h"
#include "vkern/vfs/socket.h"
#include "vkern/vfs/vfs.h"

enum fdl_kind { FDL_ANON, FDL_SOCKET, FDL_CONSOLE };

struct fdl_node {
	enum fdl_kind kind;
	uint64_t key;           /* the socket's inode, the console's fd */
	struct vattr va;        /* a socket's, as it was made */
	struct vnode *vn;
	struct fdl_node *next;
};

static struct fdl_node *fdl_live;
static const struct vnode_ops fdl_vnops;

static int
fdl_lookup(struct vnode *dir, const char *name, struct vnode **vpp)
{
	return -ENOTDIR;
}

static int
fdl_getattr(struct vnode *vn, struct vattr *va)
{
	const struct fdl_node *n = vn->data;

	if (n->kind == FDL_CONSOLE)
		return console_getattr((int)n->key, va);
	*va = n->va;
	return 0;
}

/*
 * Only a console's host file has bytes to read here, for exec(2) of
 * /dev/stdin: the host fd's, as far as it may be read.
 */
static long
fdl_read(struct vnode *vn, void *buf, size_t len, uint64_t off)
{
	const struct fdl_node *n = vn->data;

	if (n->kind != FDL_CONSOLE)
		return -EINVAL;
	return plat_console_pread((int)n->key, buf, len, (int64_t)off);
}

/*
 * Only a console's host file changes here, in size: open(2) of
 * /dev/stdout with O_TRUNC truncates it, as Linux does, through the
 * host fd, so only when that fd may write it (EACCES otherwise, as
 * console_reopen() answers).
 */
static int
fdl_setattr(struct vnode *vn, const struct vattr *va, unsigned mask)
{
	const struct fdl_node *n = vn->data;
	int r;

	if (n->kind != FDL_CONSOLE || mask != VA_SIZE)
		return -EPERM;
	r = plat_console_truncate((int)n->key, va->size);
	return r == -EINVAL || r == -EBADF ? -EACCES : r;
}

static void
fdl_inactive(struct vnode *vn)
{
	struct fdl_node *n = vn->data;

	for (struct fdl_node **pp = &fdl_live; *pp != NULL;
	    pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			break;
		}
	}
	kmem_free(n, sizeof(*n), KM_FS);
}

static const struct vnode_ops fdl_vnops = {
	.lookup = fdl_lookup,
	.getattr = fdl_getattr,
	.setattr = fdl_setattr,
	.read = fdl_read,
	.inactive = fdl_inactive,
};

/* The internal mount the vnodes are on. */
static struct mount *
fdl_mount(void)
{
	static struct mount *mp;

	if (mp == NULL) {
		mp = mount_alloc("anon_inodefs", "anon_inodefs", false,
		    KM_FORCE);
		mp->magic = 0x09041934;		/* ANON_INODE_FS_MAGIC */
		mp->dev = ANON_INODE_DEV;
	}
	return mp;
}

/* The vnode of (kind, key), referenced: the live one or a new one. */
static struct vnode *
fdl_vnode(enum fdl_kind kind, uint64_t key, const struct vattr *va)
{
	struct fdl_node *n;

	for (n = fdl_live; n != NULL; n = n->next) {
		if (n->kind == kind && n->key == key) {
			vnode_ref(n->vn);
			return n->vn;
		}
	}
	n = kmem_alloc(sizeof(*n), KM_ZERO | KM_FORCE | KM_FS);
	n->kind = kind;
	n->key = key;
	n->va = *va;
	n->vn = vnode_alloc(fdl_mount(), vtype_from_mode(va->mode),
	    &fdl_vnops, n);
	n->next = fdl_live;
	fdl_live = n;
	return n->vn;
}

int
fdlink_vnode(struct file *fp, struct vnode **vpp)
{
	struct vattr va;
	int r;

	if (fp->vn != NULL) {
		vnode_ref(fp->vn);
		*vpp = fp->vn;
		return 0;
	}
	if (file_is_pipe(fp))
		return pipe_vnode(fp, vpp);
	if (fp->console_fd >= 0) {
		if ((r = console_getattr(fp->console_fd, &va)) < 0)
			return r;
		*vpp = fdl_vnode(FDL_CONSOLE, (uint64_t)fp->console_fd, &va);
		return 0;
	}
	if (file_is_socket(fp) && (r = fp->ops->stat(fp, &va)) == 0) {
		*vpp = fdl_vnode(FDL_SOCKET, va.ino, &va);
		return 0;
	}
	anon_stat(fp, &va);
	*vpp = fdl_vnode(FDL_ANON, 0, &va);
	return 0;
}

struct file *
fdlink_open(struct vnode *vn, unsigned flags, const char *path, int *errp)
{
	const struct fdl_node *n = vn->data;

	*errp = 0;
	if (vn->ops != &fdl_vnops)
		return NULL;
	if (n->kind == FDL_CONSOLE)
		return console_reopen((int)n->key, flags, path, errp);
	*errp = -ENXIO;
	return NULL;
}
