/*
 * Opening and descriptors: open, openat, openat2, creat, close,
 * close_range, dup, dup2, dup3, fcntl, flock.
 *
 * open checks what Linux's do_sys_open() and may_open() check, in their
 * order, so each bad call gets the errno Linux gives: the flags, then the
 * lookup, then O_EXCL/O_DIRECTORY/EISDIR, then permissions and EROFS.
 */
#include <errno.h>
#include <linux/mount.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/inotify.h>

#include "vkern/kern/kcov.h"
#include "vkern/kern/kern.h"
#include "vkern/kern/kmsg.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/vfs/console.h"
#include "vkern/vfs/devfs/devfs.h"
#include "vkern/vfs/devpts/devpts.h"
#include "vkern/vfs/fdlink.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/pipe.h"
#include "vkern/vfs/socket.h"
#include "vkern/vfs/pty.h"
#include "vkern/vfs/tty.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_notify.h"
#include "vkern/vfs/vfs_lock.h"
#include "vkern/vm/copyio.h"

/* The flags an open file keeps, and those F_SETFL may change. */
#define FILE_FLAGS (O_ACCMODE | O_APPEND | O_NONBLOCK | O_DIRECT | \
    O_NOATIME | O_ASYNC | O_SYNC | O_DSYNC | O_PATH | O_LARGEFILE)
#define SETFL_FLAGS (O_APPEND | O_NONBLOCK | O_DIRECT | O_NOATIME | O_ASYNC)
#define OPEN_VALID (FILE_FLAGS | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | \
    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | __O_TMPFILE)

int
proc_nofile(struct proc *p)
{
	return (int)VK_MIN(p->rlim[RLIMIT_NOFILE].cur, (uint64_t)1 << 20);
}

/* Create the last component of nd as a regular file. */
static int
open_create(struct proc *p, struct nameidata *nd, uint32_t mode)
{
	uint32_t gid;
	int r;

	if (nd->trailing_slash)
		return -EISDIR;
	if ((nd->dvp->mount != NULL && nd->dvp->mount->rdonly) ||
	    vfs_path_writable(vfs_ns(p), nd->path) < 0)
		return -EROFS;
	if ((r = vfs_access(p, nd->dvp, 3, false)) < 0)
		return r;
	if (nd->dvp->ops->create == NULL)
		return -EACCES;
	mode = S_IFREG | (mode & ~p->fs->umask & 07777);
	if ((r = vfs_new_owner(p, nd->dvp, &mode, &gid)) < 0)
		return r;
	return vn_create(nd->dvp, nd->last, mode, 0, NULL, p->cred.fsuid, gid,
	    &nd->vp);
}

/*
 * may_open(): what the file's type, mode and mount allow.  A file the
 * open just made is the caller's to use whatever its mode (Linux's
 * FMODE_CREATED).
 */
static int
open_check(struct proc *p, struct vnode *vn, const char *path, unsigned flags,
    bool created)
{
	unsigned acc = flags & O_ACCMODE;
	int want = 0, r;

	if (vn->type == VLNK)
		return (flags & O_PATH) ? 0 : -ELOOP;
	if ((flags & O_DIRECTORY) && vn->type != VDIR)
		return -ENOTDIR;
	if (flags & O_PATH)
		return 0;
	if (vn->type == VDIR && (acc != O_RDONLY || (flags & O_TRUNC) ||
	    (flags & O_CREAT)))
		return -EISDIR;
	if (vn->type == VSOCK)
		return -ENXIO;
	if (created)
		return 0;
	if (acc != O_WRONLY)
		want |= 4;
	if (acc != O_RDONLY || (flags & O_TRUNC))
		want |= 2;
	if ((r = vfs_access(p, vn, want, false)) < 0)
		return r;
	if ((want & 2) && vn->mount != NULL && (vn->mount->rdonly ||
	    vfs_path_writable(vfs_ns(p), path) < 0) &&
	    (vn->type == VREG || vn->type == VDIR))
		return -EROFS;
	if (want & 2)
		return vnode_check_write(vn);
	return 0;
}

static int
open_truncate(struct proc *p, struct vnode *vn, unsigned flags)
{
	int r;

	if (!(flags & O_TRUNC) || vn->type != VREG ||
	    (flags & O_ACCMODE) == O_RDONLY)
		return 0;
	if ((r = vfs_remove_privs(p, vn)) < 0)
		return r;
	return vn_truncate(vn, 0);
}

/*
 * /dev/tty: the caller's controlling terminal, ENXIO without one, as
 * Linux.  The console's, or a pty slave's.
 */
static struct file *
open_ctty(struct proc *p, unsigned flags, const char *path, int *errp)
{
	struct file *fp = NULL;

	*errp = 0;
	if (p->ctty != NULL && tty_is_console(p->ctty))
		fp = console_open_tty(flags, path);
	else if (p->ctty != NULL)
		return pty_open_ctty(p, p->ctty, flags, errp);
	if (fp == NULL)
		*errp = -ENXIO;
	return fp;
}

/*
 * Files that are not their vnode: the terminal behind /dev/tty and
 * /dev/console, a new pseudo-terminal for each open of /dev/ptmx (or
 * /dev/pts/ptmx), a pty slave, a new kcov for each open of
 * /sys/kernel/debug/kcov, a reader of the kernel's log for each of
 * /dev/kmsg, and what a /proc/PID/fd link leads to when its file had no
 * vnode (a console's host fd; the anonymous inode, which opens as
 * nothing).  Returns NULL with *errp 0 for an ordinary file.
 */
static struct file *
open_special(struct proc *p, struct vnode *vn, unsigned flags,
    const char *path, int *errp)
{
	struct file *fp;
	struct pty *pt;
	uint64_t rdev;

	*errp = 0;
	if (flags & O_PATH)
		return NULL;
	/* Devices on a nodev mount do not open, as Linux's may_open_dev(). */
	if ((vn->type == VCHR || vn->type == VBLK) && vn->mount != NULL &&
	    (vn->mount->flags & MS_NODEV)) {
		*errp = -EACCES;
		return NULL;
	}
	if (sysfs_is_kcov(vn))
		return kcov_open(flags & FILE_FLAGS, path, errp);
	if ((fp = fdlink_open(vn, flags & FILE_FLAGS, path, errp)) != NULL ||
	    *errp < 0)
		return fp;
	if (vn->type != VCHR)
		return NULL;
	if ((pt = devpts_pty(vn)) != NULL)
		return pty_open_slave(p, pt, vn, flags & (FILE_FLAGS |
		    O_NOCTTY), errp);
	if (devfs_node_rdev(vn, &rdev) < 0 && devpts_node_rdev(vn, &rdev) < 0)
		return NULL;
	if (rdev == makedev(1, 11))
		return kmsg_open(vn, flags & FILE_FLAGS, path);
	if (rdev == makedev(5, 2))
		return pty_open_master(p, vn, flags & FILE_FLAGS, path, errp);
	if (rdev == makedev(5, 0))
		return open_ctty(p, flags & FILE_FLAGS, path, errp);
	if (rdev != makedev(5, 1))
		return NULL;
	if ((fp = console_open_tty(flags & FILE_FLAGS, path)) == NULL)
		*errp = -ENXIO;
	return fp;
}

/* Open path, with the lookup restricted as lookup says (LOOKUP_*). */
static long
open_at(struct thread *td, int dirfd, const char *path, unsigned flags,
    uint32_t mode, unsigned lookup)
{
	struct proc *p = td->proc;
	struct nameidata nd;
	unsigned lf = LOOKUP_FOLLOW;
	bool created = false, opened = false;
	struct file *fp;
	int r;

	/* glibc's __O_TMPFILE includes O_DIRECTORY: test both bits. */
	if ((flags & __O_TMPFILE) == __O_TMPFILE)
		return -EOPNOTSUPP;
	if ((flags & O_NOFOLLOW) || ((flags & O_CREAT) && (flags & O_EXCL)))
		lf = 0;
	if (flags & O_CREAT)
		lf |= LOOKUP_PARENT;
	if ((r = vfs_lookup(p, dirfd, path, lf | lookup, &nd)) < 0)
		return r;
	if ((flags & O_CREAT) && nd.vp == NULL) {
		r = open_create(p, &nd, mode);
		created = r == 0;
	} else if ((flags & O_CREAT) && (flags & O_EXCL)) {
		r = -EEXIST;
	} else if ((flags & O_CREAT) && nd.vp->type != VDIR && !nd.magic)
		r = vfs_check_create_open(p, nd.dvp, nd.vp);
	if (r == 0)
		r = open_check(p, nd.vp, nd.path, flags, created);
	if (r == 0 && !created && !(flags & O_PATH)) {
		/* As Linux's: the open's event, then the truncation's. */
		if ((opened = (flags & O_TRUNC) != 0))
			vnotify_event(nd.vp, IN_OPEN);
		r = open_truncate(p, nd.vp, flags);
	}
	fp = r == 0 ? open_special(p, nd.vp, flags, nd.path, &r) : NULL;
	if (fp == NULL && r == 0 && nd.vp->type == VFIFO &&
	    !(flags & O_PATH)) {
		r = (int)fifo_open(td, nd.vp, flags & (FILE_FLAGS | O_CLOEXEC),
		    nd.path);
		nd_release(&nd);
		return r;
	}
	if (fp == NULL && r == 0) {
		fp = file_alloc(&vn_fileops, nd.vp, flags & FILE_FLAGS,
		    nd.path);
		nd.vp = NULL;
	}
	/* The terminal's file has no vnode to open. */
	if (fp != NULL && !(flags & O_PATH) && fp->vn != NULL &&
	    fp->vn->ops->open != NULL &&
	    (r = fp->vn->ops->open(fp->vn, fp)) < 0)
		file_rel(fp);
	else if (fp != NULL && (r = fd_alloc(p->fdt, fp, 0, proc_nofile(p),
	    flags & O_CLOEXEC)) >= 0 && !(flags & O_PATH) && !opened)
		vnotify_event(fp->vn, IN_OPEN);
	/* An open that fails makes nothing: a file it made goes again. */
	if (r < 0 && created)
		(void)vn_remove(nd.dvp, nd.last, false);
	nd_release(&nd);
	return r;
}

long
kern_openat(struct thread *td, int dirfd, const char *path, unsigned flags,
    uint32_t mode, unsigned lookup)
{
	return open_at(td, dirfd, path, flags, mode, lookup);
}

static long
open_user(struct thread *td, int dirfd, uaddr_t upath, uint64_t flags,
    uint32_t mode, unsigned lookup)
{
	char path[VK_PATH_MAX];
	long n;

	if ((n = copyinstr(td, upath, path, sizeof(path))) < 0)
		return n;
	/* Unknown bits are ignored by open(2), as Linux does. */
	return open_at(td, dirfd, path, (unsigned)flags & OPEN_VALID, mode,
	    lookup);
}

long
sys_open(struct thread *td, const struct sys_open_args *a)
{
	return open_user(td, AT_FDCWD, a->path, a->flags, a->mode, 0);
}

long
sys_openat(struct thread *td, const struct sys_openat_args *a)
{
	return open_user(td, a->dirfd, a->path, a->flags, a->mode, 0);
}

long
sys_creat(struct thread *td, const struct sys_creat_args *a)
{
	return open_user(td, AT_FDCWD, a->path, O_CREAT | O_WRONLY | O_TRUNC,
	    a->mode, 0);
}

/* openat2's RESOLVE_* flags as lookup flags. */
static int
resolve_flags(uint64_t resolve, uint64_t flags, unsigned *lfp)
{
	static const struct {
		uint64_t resolve;
		unsigned lookup;
	} map[] = {
		{ RESOLVE_BENEATH, LOOKUP_BENEATH },
		{ RESOLVE_IN_ROOT, LOOKUP_IN_ROOT },
		{ RESOLVE_NO_XDEV, LOOKUP_NO_XDEV },
		{ RESOLVE_NO_MAGICLINKS, LOOKUP_NO_MAGIC },
		{ RESOLVE_NO_SYMLINKS, LOOKUP_NO_SYMLINKS | LOOKUP_NO_MAGIC },
		{ RESOLVE_CACHED, 0 },
	};
	uint64_t known = 0;

	*lfp = 0;
	for (size_t i = 0; i < VK_NELEM(map); i++) {
		known |= map[i].resolve;
		if (resolve & map[i].resolve)
			*lfp |= map[i].lookup;
	}
	if ((resolve & ~known) || ((resolve & RESOLVE_BENEATH) &&
	    (resolve & RESOLVE_IN_ROOT)))
		return -EINVAL;
	/*
	 * Every lookup here is served without waiting on a device, so each
	 * is "cached"; only a create or truncate never is, as on Linux.
	 */
	if ((resolve & RESOLVE_CACHED) && (flags & (O_TRUNC | O_CREAT |
	    __O_TMPFILE)))
		return -EAGAIN;
	return 0;
}

long
sys_openat2(struct thread *td, const struct sys_openat2_args *a)
{
	struct open_how how;
	unsigned lf;
	int r;

	if (a->size < sizeof(how))
		return -EINVAL;
	/* A larger struct is fine if what we do not know is zero. */
	if ((r = copyin_struct(td, a->how, &how, sizeof(how), a->size)) < 0)
		return r;
	if ((how.flags & ~(uint64_t)OPEN_VALID) || how.mode & ~07777ULL)
		return -EINVAL;
	if (how.mode != 0 && !(how.flags & (O_CREAT | __O_TMPFILE)))
		return -EINVAL;
	if ((r = resolve_flags(how.resolve, how.flags, &lf)) < 0)
		return r;
	return open_user(td, a->dirfd, a->path, how.flags, (uint32_t)how.mode,
	    lf);
}

long
sys_close(struct thread *td, const struct sys_close_args *a)
{
	long r;

	/* A socket's SO_LINGER may make the last close wait. */
	if ((r = sock_close_linger(td, a->fd)) != 0)
		return r;
	return fd_close(td->proc->fdt, a->fd);
}

/*
 * close_range(2): first and last are unsigned, so a range past every
 * open fd (up to ~0U) is fine and closes nothing there.
 * XXX: the fd table is the process's, so CLOSE_RANGE_UNSHARE copies it
 * only for a process of one thread, as unshare(CLONE_FILES) here.
 */
long
sys_close_range(struct thread *td, const struct sys_close_range_args *a)
{
	struct proc *p = td->proc;

	if (a->flags & ~(unsigned)(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC))
		return -EINVAL;
	if (a->first > a->last)
		return -EINVAL;
	if ((a->flags & CLOSE_RANGE_UNSHARE) && p->nthreads == 1)
		proc_unshare_files(p);
	fd_close_range(p->fdt, a->first, a->last,
	    (a->flags & CLOSE_RANGE_CLOEXEC) != 0);
	return 0;
}

#define DUP_ANY (-1)	/* kern_dup's newfd: the lowest free fd >= minfd */

static long
kern_dup(struct proc *p, int oldfd, int newfd, int minfd, bool cloexec)
{
	struct file *fp = fd_get(p->fdt, oldfd);

	if (fp == NULL)
		return -EBADF;
	file_ref(fp);
	if (newfd == DUP_ANY)
		return fd_alloc(p->fdt, fp, minfd, proc_nofile(p), cloexec);
	return fd_install(p->fdt, newfd, fp, cloexec, proc_nofile(p));
}

long
sys_dup(struct thread *td, const struct sys_dup_args *a)
{
	return kern_dup(td->proc, a->fd, DUP_ANY, 0, false);
}

long
sys_dup2(struct thread *td, const struct sys_dup2_args *a)
{
	if (fd_get(td->proc->fdt, a->oldfd) == NULL)
		return -EBADF;
	if (a->oldfd == a->newfd)
		return a->newfd;
	if (a->newfd < 0)
		return -EBADF;
	return kern_dup(td->proc, a->oldfd, a->newfd, 0, false);
}

long
sys_dup3(struct thread *td, const struct sys_dup3_args *a)
{
	if (a->flags & ~(unsigned)O_CLOEXEC)
		return -EINVAL;
	if (a->oldfd == a->newfd)
		return -EINVAL;
	if (a->newfd < 0)
		return -EBADF;
	return kern_dup(td->proc, a->oldfd, a->newfd, 0, a->flags != 0);
}

/* What an O_PATH fd answers to: the rest is EBADF, as on Linux. */
static bool
fcntl_path_cmd(int cmd)
{
	return cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC || cmd == F_GETFD ||
	    cmd == F_SETFD || cmd == F_GETFL;
}

long
sys_fcntl(struct thread *td, const struct sys_fcntl_args *a)
{
	struct proc *p = td->proc;
	struct file *fp = fd_get(p->fdt, a->fd);

	if (fp == NULL || ((fp->flags & O_PATH) && !fcntl_path_cmd(a->cmd)))
		return -EBADF;
	switch (a->cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		/* Linux takes the low 32 bits, as an unsigned minimum. */
		if ((uint32_t)a->arg >= (uint32_t)proc_nofile(p))
			return -EINVAL;
		return kern_dup(p, a->fd, DUP_ANY, (int)(uint32_t)a->arg,
		    a->cmd == F_DUPFD_CLOEXEC);
	case F_GETFD:
		return fd_cloexec(p->fdt, a->fd) ? FD_CLOEXEC : 0;
	case F_SETFD:
		return fd_set_cloexec(p->fdt, a->fd,
		    (a->arg & FD_CLOEXEC) != 0);
	case F_GETFL:
		return fp->flags;
	case F_SETFL:
		fp->flags = (fp->flags & ~(unsigned)SETFL_FLAGS) |
		    ((unsigned)a->arg & SETFL_FLAGS);
		fown_setfl(fp, a->fd);
		return 0;
	case F_GETPIPE_SZ:
	case F_SETPIPE_SZ:
		if (!file_is_pipe(fp))
			return -EBADF;
		return pipe_fcntl_size(fp, a->cmd == F_SETPIPE_SZ,
		    (uint32_t)a->arg);
	case F_GETLK: case F_SETLK: case F_SETLKW:
	case F_OFD_GETLK: case F_OFD_SETLK: case F_OFD_SETLKW:
		return lf_fcntl(td, fp, a->cmd, UADDR(a->arg));
	case F_ADD_SEALS:
	case F_GET_SEALS:
		return memfd_fcntl(fp, a->cmd, a->arg);
	case F_GETOWN: case F_SETOWN: case F_GETOWN_EX: case F_SETOWN_EX:
	case F_GETSIG: case F_SETSIG:
		return fown_fcntl(td, fp, a->cmd, a->arg);
	}
	/* XXX: leases are still to come. */
	return -EINVAL;
}

long
sys_flock(struct thread *td, const struct sys_flock_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);

	if (fp == NULL || (fp->flags & O_PATH))
		return -EBADF;
	return lf_flock(td, fp, a->op);
}
