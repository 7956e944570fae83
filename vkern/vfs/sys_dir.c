/*
 * Changing the name space: mkdir, mkdirat, mknod, mknodat, rmdir, unlink,
 * unlinkat, rename, renameat, renameat2, link, linkat, symlink, symlinkat.
 *
 * Each resolves the parent of the last component, then checks in Linux's
 * order: "." and "..", the mount (EROFS, EXDEV), write and search
 * permission on the directory, then asks the file system.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

static bool
is_dot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* Resolve the parent of upath and check we may change it. */
static long
parent_of(struct thread *td, int dirfd, uaddr_t upath, unsigned flags,
    struct nameidata *nd)
{
	char path[VK_PATH_MAX];
	long r;

	if ((r = copyinstr(td, upath, path, sizeof(path))) < 0)
		return r;
	if ((r = vfs_lookup(td->proc, dirfd, path, LOOKUP_PARENT | flags,
	    nd)) < 0)
		return r;
	return 0;
}

/*
 * Whether p may change names in nd's directory: its file system's and
 * its mount's read-only (EROFS), then its mode.
 */
static int
dir_writable(struct proc *p, const struct nameidata *nd)
{
	char dir[VK_CANON_MAX];
	char *s;

	/* nd's path is the last component's; the root keeps its slash. */
	snprintf(dir, sizeof(dir), "%s", nd->path);
	if (strcmp(nd->last, ".") != 0 && strcmp(nd->last, "..") != 0 &&
	    (s = strrchr(dir, '/')) != NULL)
		*(s == dir ? s + 1 : s) = '\0';
	if ((nd->dvp->mount != NULL && nd->dvp->mount->rdonly) ||
	    vfs_path_writable(vfs_ns(p), dir) < 0)
		return -EROFS;
	return vfs_access(p, nd->dvp, 3, false);
}

/*
 * A directory a file system is mounted on, or the root of one: EBUSY.
 * nd's vp is what the lookup crossed to; the name in its directory may
 * be a mount point of a bind, whose root is any directory.
 */
static bool
is_mountpoint(const struct nameidata *nd)
{
	const struct vnode *vp = nd->vp;
	struct vnode *entry;
	bool covered;

	if (vp->covered_by != NULL ||
	    (vp->mount != NULL && vp == vp->mount->root))
		return true;
	if (ncache_lookup(nd->dvp, nd->last, &entry) < 0)
		return false;
	covered = entry != vp || entry->covered_by != NULL;
	vnode_rel(entry);
	return covered;
}

/* Make the node path names (a kernel string); *vnp, if asked, gets it. */
static int
mknod_path(struct proc *p, int dirfd, const char *path, uint32_t mode,
    uint64_t dev, const char *target, struct vnode **vnp)
{
	struct nameidata nd;
	struct vnode *vn = NULL;
	uint32_t gid;
	int r;

	if ((r = vfs_lookup(p, dirfd, path, LOOKUP_PARENT, &nd)) < 0)
		return r;
	if (nd.vp != NULL || is_dot(nd.last))
		r = -EEXIST;
	else if (nd.trailing_slash && !S_ISDIR(mode))
		r = -ENOENT;
	else if ((r = dir_writable(p, &nd)) == 0 &&
	    (r = vfs_new_owner(p, nd.dvp, &mode, &gid)) == 0)
		r = vn_create(nd.dvp, nd.last, mode, dev, target,
		    p->cred.fsuid, gid, &vn);
	if (vn != NULL && vnp != NULL)
		*vnp = vn;
	else if (vn != NULL)
		vnode_rel(vn);
	nd_release(&nd);
	return r;
}

int
vfs_mknod(struct proc *p, int dirfd, const char *path, uint32_t mode,
    struct vnode **vnp)
{
	return mknod_path(p, dirfd, path, mode, 0, NULL, vnp);
}

static long
kern_mknod(struct thread *td, int dirfd, uaddr_t upath, uint32_t mode,
    uint64_t dev, const char *target)
{
	char path[VK_PATH_MAX];
	long r;

	if ((r = copyinstr(td, upath, path, sizeof(path))) < 0)
		return r;
	return mknod_path(td->proc, dirfd, path, mode, dev, target, NULL);
}

long
sys_mkdir(struct thread *td, const struct sys_mkdir_args *a)
{
	return kern_mknod(td, AT_FDCWD, a->path, S_IFDIR | (a->mode & 07777 &
	    ~td->proc->fs->umask), 0, NULL);
}

long
sys_mkdirat(struct thread *td, const struct sys_mkdirat_args *a)
{
	return kern_mknod(td, a->dirfd, a->path, S_IFDIR | (a->mode & 07777 &
	    ~td->proc->fs->umask), 0, NULL);
}

static long
mknod_check(struct thread *td, uint32_t mode)
{
	switch (mode & S_IFMT) {
	case 0:
	case S_IFREG:
	case S_IFIFO:
	case S_IFSOCK:
		return 0;
	case S_IFCHR:
	case S_IFBLK:
		/* Device nodes take CAP_MKNOD, which the guest lacks. */
		return td->proc->cred.euid == 0 ? 0 : -EPERM;
	case S_IFDIR:
		return -EPERM;
	}
	return -EINVAL;
}

long
sys_mknodat(struct thread *td, const struct sys_mknodat_args *a)
{
	uint32_t mode = a->mode;
	long r;

	if ((r = mknod_check(td, mode)) < 0)
		return r;
	if ((mode & S_IFMT) == 0)
		mode |= S_IFREG;
	return kern_mknod(td, a->dirfd, a->path, (mode & S_IFMT) |
	    (mode & 07777 & ~td->proc->fs->umask), a->dev, NULL);
}

long
sys_mknod(struct thread *td, const struct sys_mknod_args *a)
{
	struct sys_mknodat_args b = { AT_FDCWD, a->path, a->mode, a->dev };

	return sys_mknodat(td, &b);
}

long
sys_symlinkat(struct thread *td, const struct sys_symlinkat_args *a)
{
	char target[VK_PATH_MAX];
	long r;

	if ((r = copyinstr(td, a->target, target, sizeof(target))) < 0)
		return r;
	if (target[0] == '\0')
		return -ENOENT;
	return kern_mknod(td, a->dirfd, a->path, S_IFLNK | 0777, 0, target);
}

long
sys_symlink(struct thread *td, const struct sys_symlink_args *a)
{
	struct sys_symlinkat_args b = { a->target, AT_FDCWD, a->path };

	return sys_symlinkat(td, &b);
}

static long
kern_remove(struct thread *td, int dirfd, uaddr_t upath, bool rmdir)
{
	struct nameidata nd;
	long r;

	if ((r = parent_of(td, dirfd, upath, 0, &nd)) < 0)
		return r;
	if (rmdir && strcmp(nd.last, ".") == 0)
		r = -EINVAL;
	else if (rmdir && strcmp(nd.last, "..") == 0)
		r = -ENOTEMPTY;
	else if (is_dot(nd.last))
		r = -EISDIR;
	else if (nd.vp == NULL)
		r = -ENOENT;
	else if (!rmdir && nd.trailing_slash)
		r = nd.vp->type == VDIR ? -EISDIR : -ENOTDIR;
	else if (rmdir && nd.vp->type != VDIR)
		r = -ENOTDIR;
	else if (is_mountpoint(&nd))
		r = -EBUSY;
	else if ((r = dir_writable(td->proc, &nd)) == 0 &&
	    (r = vfs_check_sticky(td->proc, nd.dvp, nd.vp)) == 0)
		r = vn_remove(nd.dvp, nd.last, rmdir);
	nd_release(&nd);
	return r;
}

long
sys_rmdir(struct thread *td, const struct sys_rmdir_args *a)
{
	return kern_remove(td, AT_FDCWD, a->path, true);
}

long
sys_unlink(struct thread *td, const struct sys_unlink_args *a)
{
	return kern_remove(td, AT_FDCWD, a->path, false);
}

long
sys_unlinkat(struct thread *td, const struct sys_unlinkat_args *a)
{
	if (a->flags & ~AT_REMOVEDIR)
		return -EINVAL;
	return kern_remove(td, a->dirfd, a->path, a->flags & AT_REMOVEDIR);
}

static long
rename_check(struct thread *td, struct nameidata *from, struct nameidata *to,
    unsigned flags)
{
	long r;

	if (is_dot(from->last) || is_dot(to->last))
		return -EBUSY;
	if (from->vp == NULL)
		return -ENOENT;
	if ((from->trailing_slash || to->trailing_slash) &&
	    from->vp->type != VDIR)
		return -ENOTDIR;
	if (from->dvp->mount != to->dvp->mount)
		return -EXDEV;
	if ((flags & RENAME_NOREPLACE) && to->vp != NULL)
		return -EEXIST;
	if ((flags & RENAME_EXCHANGE) && to->vp == NULL)
		return -ENOENT;
	if ((r = dir_writable(td->proc, from)) < 0 ||
	    (r = dir_writable(td->proc, to)) < 0)
		return r;
	/* Moving a name onto another of the same file changes nothing. */
	if (from->vp == to->vp)
		return 0;
	if ((r = vfs_check_sticky(td->proc, from->dvp, from->vp)) < 0 ||
	    (to->vp != NULL &&
	    (r = vfs_check_sticky(td->proc, to->dvp, to->vp)) < 0))
		return r;
	/* As Linux, once the permissions are checked: no mount moves. */
	if (is_mountpoint(from) || (to->vp != NULL && is_mountpoint(to)))
		return -EBUSY;
	return 0;
}

long
sys_renameat2(struct thread *td, const struct sys_renameat2_args *a)
{
	struct nameidata from, to;
	long r;

	if (a->flags & ~(unsigned)(RENAME_NOREPLACE | RENAME_EXCHANGE |
	    RENAME_WHITEOUT))
		return -EINVAL;
	if ((a->flags & RENAME_EXCHANGE) &&
	    (a->flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)))
		return -EINVAL;
	if (a->flags & RENAME_WHITEOUT)
		return -EPERM;
	if ((r = parent_of(td, a->olddirfd, a->oldpath, 0, &from)) < 0)
		return r;
	if ((r = parent_of(td, a->newdirfd, a->newpath, 0, &to)) < 0) {
		nd_release(&from);
		return r;
	}
	r = rename_check(td, &from, &to, a->flags);
	if (r == 0)
		r = vn_rename(from.dvp, from.last, to.dvp, to.last, a->flags);
	nd_release(&from);
	nd_release(&to);
	return r;
}

long
sys_renameat(struct thread *td, const struct sys_renameat_args *a)
{
	struct sys_renameat2_args b = {
		a->olddirfd, a->oldpath, a->newdirfd, a->newpath, 0,
	};

	return sys_renameat2(td, &b);
}

long
sys_rename(struct thread *td, const struct sys_rename_args *a)
{
	struct sys_renameat2_args b = {
		AT_FDCWD, a->oldpath, AT_FDCWD, a->newpath, 0,
	};

	return sys_renameat2(td, &b);
}

long
sys_linkat(struct thread *td, const struct sys_linkat_args *a)
{
	char path[VK_PATH_MAX];
	struct nameidata old, nw;
	long r;

	if (a->flags & ~(unsigned)(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if ((r = copyinstr(td, a->oldpath, path, sizeof(path))) < 0)
		return r;
	if ((r = vfs_lookup(td->proc, a->olddirfd, path,
	    ((a->flags & AT_SYMLINK_FOLLOW) ? LOOKUP_FOLLOW : 0) |
	    ((a->flags & AT_EMPTY_PATH) ? LOOKUP_EMPTY : 0), &old)) < 0)
		return r;
	if ((r = parent_of(td, a->newdirfd, a->newpath, 0, &nw)) < 0) {
		nd_release(&old);
		return r;
	}
	if (old.vp->type == VDIR)
		r = -EPERM;
	else if (nw.vp == NULL && nw.trailing_slash)
		r = -ENOENT;
	else if (nw.vp != NULL || is_dot(nw.last))
		r = -EEXIST;
	else if (old.vp->mount != nw.dvp->mount)
		r = -EXDEV;
	else if ((r = vfs_check_link(td->proc, old.vp)) == 0 &&
	    (r = dir_writable(td->proc, &nw)) == 0)
		r = vn_link(nw.dvp, nw.last, old.vp);
	nd_release(&old);
	nd_release(&nw);
	return r;
}

long
sys_link(struct thread *td, const struct sys_link_args *a)
{
	struct sys_linkat_args b = { AT_FDCWD, a->oldpath, AT_FDCWD,
	    a->newpath, 0 };

	return sys_linkat(td, &b);
}
