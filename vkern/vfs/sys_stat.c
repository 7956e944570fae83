/*
 * File status: stat, lstat, fstat, newfstatat, statx, access, faccessat,
 * faccessat2, readlink, readlinkat, getdents64, statfs, fstatfs, ioctl.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include "arch/x86/abi.h"
#include "vkern/kern/kcov.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vfs/console.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/pipe.h"
#include "vkern/vfs/socket.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/pty.h"
#include "vkern/vfs/tty.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_notify.h"
#include "vkern/vm/copyio.h"

#define NS 1000000000LL

static long
path_in(struct thread *td, uaddr_t u, char *buf)
{
	return copyinstr(td, u, buf, VK_PATH_MAX);
}

/* The status of what dirfd/path names, as the *at calls resolve it. */
static int
stat_at(struct thread *td, int dirfd, const char *path, bool follow,
    bool empty, struct vattr *va)
{
	struct nameidata nd;
	struct file *fp;
	int r;

	if (path[0] == '\0' && empty) {
		if (dirfd == AT_FDCWD)
			return td->proc->fs->cwd->ops->getattr(td->proc->fs->cwd, va);
		if ((fp = fd_get(td->proc->fdt, dirfd)) == NULL)
			return -EBADF;
		return fp->ops->stat(fp, va);
	}
	if ((r = vfs_lookup(td->proc, dirfd, path, follow ? LOOKUP_FOLLOW : 0,
	    &nd)) < 0)
		return r;
	r = nd.vp->ops->getattr(nd.vp, va);
	nd_release(&nd);
	return r;
}

static int
stat_out(struct thread *td, const struct vattr *va, uaddr_t ubuf)
{
	struct arch_stat st;

	memset(&st, 0, sizeof(st));
	st.st_dev = va->dev;
	st.st_ino = va->ino;
	st.st_nlink = va->nlink;
	st.st_mode = va->mode;
	st.st_uid = va->uid;
	st.st_gid = va->gid;
	st.st_rdev = va->rdev;
	st.st_size = (int64_t)va->size;
	st.st_blksize = (int64_t)va->blksize;
	st.st_blocks = (int64_t)va->blocks;
	st.st_atime_sec = (uint64_t)(va->atime_ns / NS);
	st.st_atime_nsec = (uint64_t)(va->atime_ns % NS);
	st.st_mtime_sec = (uint64_t)(va->mtime_ns / NS);
	st.st_mtime_nsec = (uint64_t)(va->mtime_ns % NS);
	st.st_ctime_sec = (uint64_t)(va->ctime_ns / NS);
	st.st_ctime_nsec = (uint64_t)(va->ctime_ns % NS);
	return copyout(td, &st, ubuf, sizeof(st));
}

static long
kern_stat(struct thread *td, int dirfd, uaddr_t upath, uaddr_t ubuf,
    unsigned flags)
{
	char path[VK_PATH_MAX];
	struct vattr va;
	long r;

	if (flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH |
	    AT_NO_AUTOMOUNT))
		return -EINVAL;
	if ((r = path_in(td, upath, path)) < 0)
		return r;
	if ((r = stat_at(td, dirfd, path, !(flags & AT_SYMLINK_NOFOLLOW),
	    flags & AT_EMPTY_PATH, &va)) < 0)
		return r;
	return stat_out(td, &va, ubuf);
}

long
sys_stat(struct thread *td, const struct sys_stat_args *a)
{
	return kern_stat(td, AT_FDCWD, a->path, a->statbuf, 0);
}

long
sys_lstat(struct thread *td, const struct sys_lstat_args *a)
{
	return kern_stat(td, AT_FDCWD, a->path, a->statbuf,
	    AT_SYMLINK_NOFOLLOW);
}

long
sys_newfstatat(struct thread *td, const struct sys_newfstatat_args *a)
{
	return kern_stat(td, a->dirfd, a->path, a->statbuf, (unsigned)a->flags);
}

long
sys_fstat(struct thread *td, const struct sys_fstat_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);
	struct vattr va;
	int r;

	if (fp == NULL)
		return -EBADF;
	if ((r = fp->ops->stat(fp, &va)) < 0)
		return r;
	return stat_out(td, &va, a->statbuf);
}

static void
statx_ts(struct statx_timestamp *t, int64_t ns)
{
	t->tv_sec = ns / NS;
	t->tv_nsec = (uint32_t)(ns % NS);
}

long
sys_statx(struct thread *td, const struct sys_statx_args *a)
{
	char path[VK_PATH_MAX];
	struct statx sx;
	struct vattr va;
	long r;

	if (a->flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH |
	    AT_NO_AUTOMOUNT | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	if ((a->flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE)
		return -EINVAL;
	if (a->mask & STATX__RESERVED)
		return -EINVAL;
	if ((r = path_in(td, a->path, path)) < 0)
		return r;
	if ((r = stat_at(td, a->dirfd, path, !(a->flags & AT_SYMLINK_NOFOLLOW),
	    a->flags & AT_EMPTY_PATH, &va)) < 0)
		return r;
	memset(&sx, 0, sizeof(sx));
	sx.stx_mask = STATX_BASIC_STATS;
	sx.stx_blksize = (uint32_t)va.blksize;
	sx.stx_nlink = (uint32_t)va.nlink;
	sx.stx_uid = va.uid;
	sx.stx_gid = va.gid;
	sx.stx_mode = (uint16_t)va.mode;
	sx.stx_ino = va.ino;
	sx.stx_size = va.size;
	sx.stx_blocks = va.blocks;
	statx_ts(&sx.stx_atime, va.atime_ns);
	statx_ts(&sx.stx_mtime, va.mtime_ns);
	statx_ts(&sx.stx_ctime, va.ctime_ns);
	/* A file system that keeps no birth time leaves it out of the mask. */
	if (va.btime_ns != 0) {
		sx.stx_mask |= STATX_BTIME;
		statx_ts(&sx.stx_btime, va.btime_ns);
	}
	sx.stx_rdev_major = major(va.rdev);
	sx.stx_rdev_minor = minor(va.rdev);
	sx.stx_dev_major = major(va.dev);
	sx.stx_dev_minor = minor(va.dev);
	return copyout(td, &sx, a->buf, sizeof(sx));
}

static long
kern_access(struct thread *td, int dirfd, uaddr_t upath, int mode,
    unsigned flags)
{
	char path[VK_PATH_MAX];
	struct nameidata nd;
	long r;

	if (mode & ~7)
		return -EINVAL;
	if (flags & ~(unsigned)(AT_EACCESS | AT_SYMLINK_NOFOLLOW |
	    AT_EMPTY_PATH))
		return -EINVAL;
	if ((r = path_in(td, upath, path)) < 0)
		return r;
	if ((r = vfs_lookup(td->proc, dirfd, path,
	    ((flags & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW) |
	    ((flags & AT_EMPTY_PATH) ? LOOKUP_EMPTY : 0), &nd)) < 0)
		return r;
	r = vfs_access(td->proc, nd.vp, mode, !(flags & AT_EACCESS));
	if (r == 0 && (mode & 2) && nd.vp->mount != NULL &&
	    (nd.vp->mount->rdonly ||
	    vfs_path_writable(vfs_ns(td->proc), nd.path) < 0) &&
	    (nd.vp->type == VREG || nd.vp->type == VDIR))
		r = -EROFS;
	nd_release(&nd);
	return r;
}

long
sys_access(struct thread *td, const struct sys_access_args *a)
{
	return kern_access(td, AT_FDCWD, a->path, a->mode, 0);
}

long
sys_faccessat(struct thread *td, const struct sys_faccessat_args *a)
{
	return kern_access(td, a->dirfd, a->path, a->mode, 0);
}

long
sys_faccessat2(struct thread *td, const struct sys_faccessat2_args *a)
{
	return kern_access(td, a->dirfd, a->path, a->mode, (unsigned)a->flags);
}

static long
kern_readlink(struct thread *td, int dirfd, uaddr_t upath, uaddr_t ubuf,
    int size)
{
	char path[VK_PATH_MAX], target[VK_PATH_MAX];
	struct nameidata nd;
	long r;

	if (size <= 0)
		return -EINVAL;
	if ((r = path_in(td, upath, path)) < 0)
		return r;
	if ((r = vfs_lookup(td->proc, dirfd, path, LOOKUP_EMPTY, &nd)) < 0)
		return r;
	if (nd.vp->type != VLNK || nd.vp->ops->readlink == NULL)
		r = -EINVAL;
	else
		r = nd.vp->ops->readlink(nd.vp, target, sizeof(target));
	nd_release(&nd);
	if (r < 0)
		return r;
	r = VK_MIN(r, (long)size);
	return copyout(td, target, ubuf, (size_t)r) < 0 ? -EFAULT : r;
}

long
sys_readlink(struct thread *td, const struct sys_readlink_args *a)
{
	return kern_readlink(td, AT_FDCWD, a->path, a->buf, a->size);
}

long
sys_readlinkat(struct thread *td, const struct sys_readlinkat_args *a)
{
	return kern_readlink(td, a->dirfd, a->path, a->buf, a->size);
}

/* --- getdents64 --- */

struct dents {
	uint8_t buf[32768];
	size_t used, size;
	uint64_t cookie;
	bool full;
};

static unsigned char
vtype_dt(enum vtype t)
{
	static const unsigned char dt[] = {
		[VNON] = 0, [VREG] = 8, [VDIR] = 4, [VLNK] = 10, [VCHR] = 2,
		[VBLK] = 6, [VFIFO] = 1, [VSOCK] = 12,
	};

	return dt[t];
}

static int
dents_add(void *arg, const char *name, size_t len, uint64_t ino,
    enum vtype type, uint64_t next)
{
	struct dents *d = arg;
	size_t reclen = VK_ROUND_UP(19 + len + 1, 8);
	uint8_t *e = d->buf + d->used;
	uint16_t rl = (uint16_t)reclen;
	int64_t off = (int64_t)next;

	if (d->used + reclen > d->size) {
		d->full = true;
		return 1;
	}
	memset(e, 0, reclen);
	memcpy(e, &ino, 8);
	memcpy(e + 8, &off, 8);
	memcpy(e + 16, &rl, 2);
	e[18] = vtype_dt(type);
	memcpy(e + 19, name, len);
	d->used += reclen;
	d->cookie = next;
	return 0;
}

long
sys_getdents64(struct thread *td, const struct sys_getdents64_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);
	struct dents *d;
	long r;

	if (fp == NULL)
		return -EBADF;
	if (fp->vn == NULL || fp->vn->type != VDIR ||
	    fp->vn->ops->readdir == NULL)
		return -ENOTDIR;
	d = vk_xmalloc(sizeof(*d));
	d->used = 0;
	d->full = false;
	d->size = VK_MIN((size_t)a->count, sizeof(d->buf));
	d->cookie = fp->off;
	r = fp->vn->ops->readdir(fp->vn, fp->off, dents_add, d);
	if (r == 0 && d->used == 0 && d->full)
		r = -EINVAL;    /* the buffer cannot hold one entry */
	if (r == 0 && (r = copyout(td, d->buf, a->dirp, d->used)) == 0) {
		fp->off = d->cookie;
		r = (long)d->used;
	}
	free(d);
	return r;
}

/* --- statfs --- */

/* f_flags holds the mount flags: the kernel's, in no UAPI header. */
#define ST_VALID 0x0020

/*
 * The figures Linux's simple_statfs() gives, which a file system's
 * statfs op starts from (see struct vfs_statfs).
 */
static void
statfs_simple(struct vfs_statfs *sf, uint32_t magic)
{
	*sf = (struct vfs_statfs){ .magic = magic, .bsize = 4096,
	    .namelen = VK_NAME_MAX };
}

/* The figures of the file system vn is on. */
static int
vnode_statfs(struct vnode *vn, struct vfs_statfs *sf)
{
	statfs_simple(sf, vn->mount != NULL ? vn->mount->magic : 0);
	return vn->ops->statfs != NULL ? vn->ops->statfs(vn, sf) : 0;
}

/* Files without a vnode are on the internal file systems Linux names. */
static void
anon_statfs(const struct file *fp, struct vfs_statfs *sf)
{
	if (file_is_pipe(fp))
		statfs_simple(sf, 0x50495045);          /* PIPEFS_MAGIC */
	else if (fp->ops == &console_fileops)
		statfs_simple(sf, 0x1cd1);              /* DEVPTS_SUPER_MAGIC */
	else
		statfs_simple(sf, 0x09041934);          /* ANON_INODE_FS_MAGIC */
}

/*
 * f_flags are the mount's flags, with ST_VALID to say so: every mount
 * here is relatime (as /proc/mounts says), and read-only ones ST_RDONLY.
 * f_fsid is the mount's device number, as Linux derives it for tmpfs.
 */
static int
statfs_out(struct thread *td, const struct vfs_statfs *vs, struct vnode *vn,
    const char *path, uaddr_t ubuf)
{
	struct mount *mp = vn != NULL ? vn->mount : NULL;
	struct statfs sf;

	memset(&sf, 0, sizeof(sf));
	sf.f_type = vs->magic;
	sf.f_bsize = (long)vs->bsize;
	sf.f_frsize = (long)vs->bsize;
	sf.f_blocks = vs->blocks;
	sf.f_bfree = vs->bfree;
	sf.f_bavail = vs->bavail;
	sf.f_files = vs->files;
	sf.f_ffree = vs->ffree;
	sf.f_namelen = (long)vs->namelen;
	sf.f_flags = ST_VALID | ST_RELATIME;
	if (mp != NULL && (mp->rdonly ||
	    vfs_path_writable(vfs_ns(td->proc), path) < 0))
		sf.f_flags |= ST_RDONLY;
	if (mp != NULL) {
		sf.f_fsid.__val[0] = (int)(uint32_t)mp->dev;
		sf.f_fsid.__val[1] = (int)(uint32_t)(mp->dev >> 32);
	}
	return copyout(td, &sf, ubuf, sizeof(sf));
}

long
sys_statfs(struct thread *td, const struct sys_statfs_args *a)
{
	char path[VK_PATH_MAX];
	struct nameidata nd;
	struct vfs_statfs vs;
	long r;

	if ((r = path_in(td, a->path, path)) < 0)
		return r;
	if ((r = vfs_lookup(td->proc, AT_FDCWD, path, LOOKUP_FOLLOW, &nd)) < 0)
		return r;
	if ((r = vnode_statfs(nd.vp, &vs)) == 0)
		r = statfs_out(td, &vs, nd.vp, nd.path, a->buf);
	nd_release(&nd);
	return r;
}

long
sys_fstatfs(struct thread *td, const struct sys_fstatfs_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);
	struct vfs_statfs vs;
	int r;

	if (fp == NULL)
		return -EBADF;
	if (fp->vn == NULL)
		anon_statfs(fp, &vs);
	else if ((r = vnode_statfs(fp->vn, &vs)) < 0)
		return r;
	return statfs_out(td, &vs, fp->vn, fp->path, a->buf);
}

/* --- ioctl --- */

long
sys_ioctl(struct thread *td, const struct sys_ioctl_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);
	/* Linux's ioctl takes cmd as an unsigned int. */
	unsigned cmd = (unsigned)a->cmd;
	int r, one;

	if (fp == NULL)
		return -EBADF;
	switch (cmd) {
	case FIOCLEX:
	case FIONCLEX:
		return fd_set_cloexec(td->proc->fdt, a->fd, cmd == FIOCLEX);
	case FIONBIO:
		if ((r = copyin(td, UADDR(a->arg), &one, sizeof(one))) < 0)
			return r;
		fp->flags = one ? fp->flags | O_NONBLOCK :
		    fp->flags & ~(unsigned)O_NONBLOCK;
		return 0;
	case FIONREAD:
		if (inotify_is_file(fp))
			one = inotify_nread(fp);
		else if (file_is_pipe(fp))
			one = (int)pipe_nread(fp);
		else
			break;
		return copyout(td, &one, UADDR(a->arg), sizeof(one));
	}
	if (file_is_socket(fp))
		return sock_ioctl(td, fp, cmd, a->arg);
	if (kcov_is_file(fp))
		return kcov_ioctl(td, fp, cmd, a->arg);
	if (pty_is_file(fp))
		return pty_ioctl(td, fp, cmd, a->arg);
	if (fp->console_fd < 0)
		return -ENOTTY;
	return tty_ioctl(td, fp, cmd, a->arg);
}
