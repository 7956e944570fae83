/*
 * Attributes and places: chdir, fchdir, getcwd, chroot, umask, chmod,
 * fchmod, fchmodat, chown, fchown, lchown, fchownat,
 * utimensat, utimes, truncate, ftruncate, fallocate, fadvise64, fsync,
 * fdatasync, sync, syncfs, sync_file_range.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/inotify.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/mapcache.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/pipe.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_notify.h"
#include "vkern/vm/copyio.h"

/* Linux 6.17's, newer than the UAPI headers here. */
#ifndef FALLOC_FL_WRITE_ZEROES
#define FALLOC_FL_WRITE_ZEROES 0x80
#endif
/* Every mode bit but FALLOC_FL_KEEP_SIZE (Linux's FALLOC_FL_MODE_MASK). */
#define FALLOC_MODE_MASK (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE | \
    FALLOC_FL_ZERO_RANGE | FALLOC_FL_INSERT_RANGE | \
    FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_WRITE_ZEROES)

#define UTIME_NOW_  ((1l << 30) - 1l)
#define UTIME_OMIT_ ((1l << 30) - 2l)

/* Resolve dirfd/upath to a referenced vnode. */
static long
vn_at(struct thread *td, int dirfd, uaddr_t upath, unsigned lflags,
    struct vnode **vpp, char *canon)
{
	char path[VK_PATH_MAX];
	struct nameidata nd;
	long r;

	if ((r = copyinstr(td, upath, path, sizeof(path))) < 0)
		return r;
	if ((r = vfs_lookup(td->proc, dirfd, path, lflags, &nd)) < 0)
		return r;
	*vpp = nd.vp;
	nd.vp = NULL;
	if (canon != NULL)
		memcpy(canon, nd.path, sizeof(nd.path));
	nd_release(&nd);
	return 0;
}

static void
proc_set_cwd(struct proc *p, struct vnode *vn, const char *path)
{
	vnode_rel(p->fs->cwd);
	p->fs->cwd = vn;
	free(p->fs->cwd_path);
	p->fs->cwd_path = strdup(path);
}

long
sys_chdir(struct thread *td, const struct sys_chdir_args *a)
{
	char canon[VK_CANON_MAX];
	struct vnode *vn;
	long r;

	if ((r = vn_at(td, AT_FDCWD, a->path, LOOKUP_FOLLOW, &vn, canon)) < 0)
		return r;
	if (vn->type != VDIR)
		r = -ENOTDIR;
	else
		r = vfs_access(td->proc, vn, 1, false);
	if (r < 0) {
		vnode_rel(vn);
		return r;
	}
	proc_set_cwd(td->proc, vn, canon);
	return 0;
}

long
sys_fchdir(struct thread *td, const struct sys_fchdir_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);
	int r;

	if (fp == NULL)
		return -EBADF;
	if (fp->vn == NULL || fp->vn->type != VDIR)
		return -ENOTDIR;
	if ((r = vfs_access(td->proc, fp->vn, 1, false)) < 0)
		return r;
	vnode_ref(fp->vn);
	proc_set_cwd(td->proc, fp->vn, fp->path);
	return 0;
}

long
sys_getcwd(struct thread *td, const struct sys_getcwd_args *a)
{
	size_t len = strlen(td->proc->fs->cwd_path) + 1;
	struct vattr va;
	int r;

	/* A removed working directory has no path (getcwd(3): ENOENT). */
	if (td->proc->fs->cwd->ops->getattr(td->proc->fs->cwd, &va) == 0 &&
	    va.nlink == 0)
		return -ENOENT;
	if (vfs_path_deep(td->proc->fs->cwd_path))
		return -ENAMETOOLONG;
	if (a->size < len)
		return -ERANGE;
	if ((r = copyout(td, td->proc->fs->cwd_path, a->buf, len)) < 0)
		return r;
	return (long)len;
}

long
sys_chroot(struct thread *td, const struct sys_chroot_args *a)
{
	struct proc *p = td->proc;
	struct vnode *vn;
	long r;

	if ((r = vn_at(td, AT_FDCWD, a->path, LOOKUP_FOLLOW, &vn, NULL)) < 0)
		return r;
	if (vn->type != VDIR)
		r = -ENOTDIR;
	else if (p->cred.euid != 0)
		r = -EPERM;   /* CAP_SYS_CHROOT */
	if (r < 0) {
		vnode_rel(vn);
		return r;
	}
	vnode_rel(p->fs->root);
	p->fs->root = vn;
	return 0;
}

long
sys_umask(struct thread *td, const struct sys_umask_args *a)
{
	uint32_t old = td->proc->fs->umask;

	td->proc->fs->umask = a->mask & 0777;
	return old;
}

/* kern_setattr's mask bit for chown(2): taken out before the op sees it. */
#define SETATTR_CHOWN 0x80000000U

/* Change attributes, as the owner or root may (chmod, chown, utimes). */
static int
kern_setattr(struct proc *p, struct vnode *vn, const char *path,
    struct vattr *nva, unsigned mask)
{
	bool chown = (mask & SETATTR_CHOWN) != 0;
	struct vattr va;
	int r;

	mask &= ~SETATTR_CHOWN;
	if ((r = vn->ops->getattr(vn, &va)) < 0)
		return r;
	if ((vn->mount != NULL && vn->mount->rdonly) ||
	    vfs_path_writable(vfs_ns(p), path) < 0)
		return -EROFS;
	if ((r = vfs_setattr_check(p, vn, &va, nva, &mask, chown)) < 0)
		return r;
	/* Linux's setattr_prepare(): times other than now take the owner. */
	if ((mask & (VA_ATIME | VA_MTIME)) &&
	    !vfs_owner_or_capable(p, va.uid)) {
		if (!(mask & VA_NOW))
			return -EPERM;
		if ((r = vfs_access(p, vn, 2, false)) < 0)
			return r;
	}
	if (vn->ops->setattr == NULL)
		return -EPERM;
	if ((r = vn->ops->setattr(vn, nva, mask)) == 0)
		vnotify_event(vn, IN_ATTRIB);
	return r;
}

static long
setattr_at(struct thread *td, int dirfd, uaddr_t upath, unsigned lflags,
    struct vattr *va, unsigned mask)
{
	char canon[VK_CANON_MAX];
	struct vnode *vn;
	long r;

	if ((r = vn_at(td, dirfd, upath, lflags, &vn, canon)) < 0)
		return r;
	r = kern_setattr(td->proc, vn, canon, va, mask);
	vnode_rel(vn);
	return r;
}

static long
setattr_fd(struct thread *td, int fd, struct vattr *va, unsigned mask)
{
	struct file *fp = fd_get(td->proc->fdt, fd);

	if (fp == NULL || (fp->flags & O_PATH))
		return -EBADF;
	if (fp->vn == NULL)
		return -EINVAL;
	return kern_setattr(td->proc, fp->vn, fp->path, va, mask);
}

long
sys_chmod(struct thread *td, const struct sys_chmod_args *a)
{
	struct vattr va = { .mode = a->mode };

	return setattr_at(td, AT_FDCWD, a->path, LOOKUP_FOLLOW, &va, VA_MODE);
}

long
sys_fchmod(struct thread *td, const struct sys_fchmod_args *a)
{
	struct vattr va = { .mode = a->mode };

	return setattr_fd(td, a->fd, &va, VA_MODE);
}

long
sys_fchmodat(struct thread *td, const struct sys_fchmodat_args *a)
{
	struct vattr va = { .mode = a->mode };

	return setattr_at(td, a->dirfd, a->path, LOOKUP_FOLLOW, &va, VA_MODE);
}

static unsigned
chown_mask(uint32_t uid, uint32_t gid, struct vattr *va)
{
	va->uid = uid;
	va->gid = gid;
	return SETATTR_CHOWN | (uid != (uint32_t)-1 ? VA_UID : 0) |
	    (gid != (uint32_t)-1 ? VA_GID : 0);
}

long
sys_fchownat(struct thread *td, const struct sys_fchownat_args *a)
{
	struct vattr va;
	unsigned mask = chown_mask(a->uid, a->gid, &va);

	if (a->flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	return setattr_at(td, a->dirfd, a->path,
	    ((a->flags & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW) |
	    ((a->flags & AT_EMPTY_PATH) ? LOOKUP_EMPTY : 0), &va, mask);
}

long
sys_chown(struct thread *td, const struct sys_chown_args *a)
{
	struct vattr va;
	unsigned mask = chown_mask(a->uid, a->gid, &va);

	return setattr_at(td, AT_FDCWD, a->path, LOOKUP_FOLLOW, &va, mask);
}

long
sys_lchown(struct thread *td, const struct sys_lchown_args *a)
{
	struct vattr va;
	unsigned mask = chown_mask(a->uid, a->gid, &va);

	return setattr_at(td, AT_FDCWD, a->path, 0, &va, mask);
}

long
sys_fchown(struct thread *td, const struct sys_fchown_args *a)
{
	struct vattr va;
	unsigned mask = chown_mask(a->uid, a->gid, &va);

	return setattr_fd(td, a->fd, &va, mask);
}

/* One utimensat timestamp: now, omit, or a value; 0 or -EINVAL. */
static int
utime_one(const int64_t ts[2], int64_t now, int64_t *out, bool *set)
{
	*set = true;
	if (ts[1] == UTIME_OMIT_) {
		*set = false;
		return 0;
	}
	if (ts[1] == UTIME_NOW_) {
		*out = now;
		return 0;
	}
	if (ts[1] < 0 || ts[1] >= 1000000000)
		return -EINVAL;
	*out = vk_ns(ts[0], ts[1], 1);
	return 0;
}

long
sys_utimensat(struct thread *td, const struct sys_utimensat_args *a)
{
	int64_t ts[2][2], now = plat_clock_ns(0);
	struct vattr va;
	unsigned mask = 0;
	bool set;
	int r;

	if (a->times.va == 0) {
		va.atime_ns = va.mtime_ns = now;
		mask = VA_ATIME | VA_MTIME | VA_NOW;
	} else {
		if ((r = copyin(td, a->times, ts, sizeof(ts))) < 0)
			return r;
		/* Linux looks at nothing else, not even the path. */
		if (ts[0][1] == UTIME_OMIT_ && ts[1][1] == UTIME_OMIT_)
			return 0;
		if ((r = utime_one(ts[0], now, &va.atime_ns, &set)) < 0)
			return r;
		mask |= set ? VA_ATIME : 0;
		if ((r = utime_one(ts[1], now, &va.mtime_ns, &set)) < 0)
			return r;
		mask |= set ? VA_MTIME : 0;
		if (ts[0][1] == UTIME_NOW_ && ts[1][1] == UTIME_NOW_)
			mask |= VA_NOW;
	}
	if (a->flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (a->path.va == 0)
		return setattr_fd(td, a->dirfd, &va, mask);
	return setattr_at(td, a->dirfd, a->path,
	    ((a->flags & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW) |
	    ((a->flags & AT_EMPTY_PATH) ? LOOKUP_EMPTY : 0), &va, mask);
}

/* utimes(2) and utime(2): set both times to ns, or to now without ns. */
static long
utimes_path(struct thread *td, uaddr_t path, const int64_t *ns)
{
	struct vattr va;
	unsigned mask = VA_ATIME | VA_MTIME;

	if (ns == NULL) {
		va.atime_ns = va.mtime_ns = plat_clock_ns(0);
		mask |= VA_NOW;
	} else {
		va.atime_ns = ns[0];
		va.mtime_ns = ns[1];
	}
	return setattr_at(td, AT_FDCWD, path, LOOKUP_FOLLOW, &va, mask);
}

long
sys_utimes(struct thread *td, const struct sys_utimes_args *a)
{
	int64_t tv[2][2], ns[2];
	int r;

	if (a->times.va == 0)
		return utimes_path(td, a->path, NULL);
	if ((r = copyin(td, a->times, tv, sizeof(tv))) < 0)
		return r;
	if (tv[0][1] < 0 || tv[0][1] >= 1000000 || tv[1][1] < 0 ||
	    tv[1][1] >= 1000000)
		return -EINVAL;
	ns[0] = vk_ns(tv[0][0], tv[0][1], 1000);
	ns[1] = vk_ns(tv[1][0], tv[1][1], 1000);
	return utimes_path(td, a->path, ns);
}

/* utime(2): whole seconds, in a struct utimbuf (actime, modtime). */
long
sys_utime(struct thread *td, const struct sys_utime_args *a)
{
	int64_t t[2], ns[2];
	int r;

	if (a->times.va == 0)
		return utimes_path(td, a->path, NULL);
	if ((r = copyin(td, a->times, t, sizeof(t))) < 0)
		return r;
	ns[0] = vk_ns(t[0], 0, 1);
	ns[1] = vk_ns(t[1], 0, 1);
	return utimes_path(td, a->path, ns);
}

static int
truncate_vn(struct proc *p, struct vnode *vn, const char *path, int64_t len)
{
	struct vattr va = { .size = (uint64_t)len };
	int r;

	if (vn->type == VDIR)
		return -EISDIR;
	if (vn->type != VREG)
		return -EINVAL;
	if ((vn->mount != NULL && vn->mount->rdonly) ||
	    vfs_path_writable(vfs_ns(p), path) < 0)
		return -EROFS;
	if ((r = vfs_fsize_grow(p, vn, va.size)) < 0 ||
	    (r = vfs_remove_privs(p, vn)) < 0)
		return r;
	return vn_truncate(vn, va.size);
}

long
sys_truncate(struct thread *td, const struct sys_truncate_args *a)
{
	char canon[VK_CANON_MAX];
	struct vnode *vn;
	long r;

	if (a->length < 0)
		return -EINVAL;
	if ((r = vn_at(td, AT_FDCWD, a->path, LOOKUP_FOLLOW, &vn, canon)) < 0)
		return r;
	if ((r = vfs_access(td->proc, vn, 2, false)) == 0 &&
	    (r = vnode_check_write(vn)) == 0)
		r = truncate_vn(td->proc, vn, canon, a->length);
	vnode_rel(vn);
	return r;
}

long
sys_ftruncate(struct thread *td, const struct sys_ftruncate_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);

	if (a->length < 0)
		return -EINVAL;
	if (fp == NULL)
		return -EBADF;
	if (fp->vn == NULL || !file_writable(fp))
		return -EINVAL;
	return truncate_vn(td->proc, fp->vn, fp->path, a->length);
}

/*
 * The modes Linux's vfs_fallocate() passes on: one of allocation,
 * FALLOC_FL_UNSHARE_RANGE or FALLOC_FL_ZERO_RANGE with or without
 * FALLOC_FL_KEEP_SIZE; FALLOC_FL_PUNCH_HOLE only with it; collapsing,
 * inserting and writing zeroes only without it.
 */
static int
fallocate_check_mode(int mode)
{
	if (mode & ~(FALLOC_MODE_MASK | FALLOC_FL_KEEP_SIZE))
		return -EOPNOTSUPP;
	switch (mode & FALLOC_MODE_MASK) {
	case 0:
	case FALLOC_FL_UNSHARE_RANGE:
	case FALLOC_FL_ZERO_RANGE:
		return 0;
	case FALLOC_FL_PUNCH_HOLE:
		return (mode & FALLOC_FL_KEEP_SIZE) ? 0 : -EOPNOTSUPP;
	case FALLOC_FL_COLLAPSE_RANGE:
	case FALLOC_FL_INSERT_RANGE:
	case FALLOC_FL_WRITE_ZEROES:
		return (mode & FALLOC_FL_KEEP_SIZE) ? -EOPNOTSUPP : 0;
	}
	return -EOPNOTSUPP;
}

/* fallocate(2)'s checks, in the order of Linux's vfs_fallocate(). */
long
sys_fallocate(struct thread *td, const struct sys_fallocate_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);
	struct vnode *vn;
	int64_t end;
	int r;

	if (fp == NULL)
		return -EBADF;
	if (a->off < 0 || a->len <= 0)
		return -EINVAL;
	if ((r = fallocate_check_mode(a->mode)) < 0)
		return r;
	if (!file_writable(fp))
		return -EBADF;
	vn = fp->vn;
	if (file_is_pipe(fp) || (vn != NULL && vn->type == VFIFO))
		return -ESPIPE;
	if (vn != NULL && vn->type == VDIR)
		return -EISDIR;
	if (vn == NULL || vn->type != VREG)
		return -ENODEV;
	if (__builtin_add_overflow(a->off, a->len, &end))
		return -EFBIG;
	if (vn->ops->fallocate == NULL)
		return -EOPNOTSUPP;
	/* The modes that may grow the file to end meet RLIMIT_FSIZE. */
	if (!(a->mode & (FALLOC_FL_KEEP_SIZE | FALLOC_FL_COLLAPSE_RANGE |
	    FALLOC_FL_INSERT_RANGE)) &&
	    (r = vfs_fsize_grow(td->proc, vn, (uint64_t)end)) < 0)
		return r;
	if ((r = vfs_remove_privs(td->proc, vn)) < 0)
		return r;
	if ((r = vn->ops->fallocate(vn, a->mode, (uint64_t)a->off,
	    (uint64_t)a->len)) == 0)
		vnotify_event(vn, IN_MODIFY);
	return r;
}

/* Advice is checked and taken as a hint: file data is already in memory. */
long
sys_fadvise64(struct thread *td, const struct sys_fadvise64_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);

	if (fp == NULL)
		return -EBADF;
	if (!fp->seekable)
		return -ESPIPE;
	if (a->len < 0 || a->advice < POSIX_FADV_NORMAL ||
	    a->advice > POSIX_FADV_NOREUSE)
		return -EINVAL;
	return 0;
}

/* A hint too, after Linux's checks: a regular file open for reading. */
long
sys_readahead(struct thread *td, const struct sys_readahead_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);

	if (fp == NULL || (fp->flags & O_PATH) ||
	    (fp->flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	if (fp->vn == NULL || fp->vn->type != VREG)
		return -EINVAL;
	return 0;
}

/*
 * Writes reach tmpfs and host files at once; what a file system may
 * hold back is what shared mappings wrote to a host file's map cache,
 * and a host file's data the host's cache.  A device node opens as a
 * file of its file system, but Linux syncs only what has an fsync.
 */
static long
kern_fsync(struct thread *td, int fd, enum vfs_sync how)
{
	struct file *fp = fd_get(td->proc->fdt, fd);

	if (fp == NULL || (fp->flags & O_PATH))
		return -EBADF;
	if (!fp->ops->syncs || (fp->vn != NULL && (fp->vn->type == VCHR ||
	    fp->vn->type == VBLK)))
		return -EINVAL;
	if (fp->vn == NULL || fp->vn->ops->fsync == NULL)
		return 0;
	return fp->vn->ops->fsync(fp->vn, how);
}

long
sys_fsync(struct thread *td, const struct sys_fsync_args *a)
{
	return kern_fsync(td, a->fd, VFS_SYNC_ALL);
}

long
sys_fdatasync(struct thread *td, const struct sys_fdatasync_args *a)
{
	return kern_fsync(td, a->fd, VFS_SYNC_DATA);
}

/* Every map cache, whatever its file system: they are few. */
long
sys_syncfs(struct thread *td, const struct sys_syncfs_args *a)
{
	if (fd_get(td->proc->fdt, a->fd) == NULL)
		return -EBADF;
	return mapcache_sync_all();
}

#define SYNC_RANGE_FLAGS (SYNC_FILE_RANGE_WAIT_BEFORE | \
	SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER)

/*
 * sync_file_range(2), with Linux's checks in its order: the descriptor,
 * the flags and the range (EINVAL for a negative one or one past the
 * largest offset), then the kind of file: ESPIPE for what has no pages
 * to write (pipes, sockets, character devices).
 */
long
sys_sync_file_range(struct thread *td,
    const struct sys_sync_file_range_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);
	struct vnode *vn;

	if (fp == NULL || (fp->flags & O_PATH))
		return -EBADF;
	if ((a->flags & ~(unsigned)SYNC_RANGE_FLAGS) || a->off < 0 ||
	    a->nbytes < 0 || a->nbytes > INT64_MAX - a->off)
		return -EINVAL;
	vn = fp->vn;
	if (vn == NULL || (vn->type != VREG && vn->type != VDIR &&
	    vn->type != VLNK && vn->type != VBLK))
		return -ESPIPE;
	if (vn->ops->sync_range == NULL || a->flags == 0)
		return 0;
	return vn->ops->sync_range(vn, (uint64_t)a->off, (uint64_t)a->nbytes,
	    a->flags);
}

/* sync(2) cannot fail: write-back errors are for fsync to report. */
long
sys_sync(struct thread *td, const struct sys_sync_args *a)
{
	(void)mapcache_sync_all();
	return 0;
}
