/*
 * The permission rules beyond the mode bits that Linux enforces in every
 * file system, so they are checked here once rather than by each of
 * tmpfs, hostfs and the overlay: the sticky bit on directories, the owner
 * rule for changing a file's times, and the link and open restrictions of
 * the fs.protected_* sysctls (Documentation/admin-guide/sysctl/fs.rst),
 * with the values a Debian 12 system sets (procps's protect-links.conf).
 *
 * The guest has no capability sets: a file-system uid of 0 stands for
 * CAP_FOWNER, as it does for the DAC checks in vfs_access().
 */
#include <errno.h>
#include <sys/stat.h>

#include "vkern/kern/proc.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/vfs.h"

bool
vfs_owner_or_capable(const struct proc *p, uint32_t uid)
{
	return p->cred.fsuid == 0 || p->cred.fsuid == uid;
}

int
vfs_check_sticky(struct proc *p, struct vnode *dvp, struct vnode *vn)
{
	struct vattr dva, va;
	int r;

	if ((r = vnode_getperm(dvp, &dva)) < 0)
		return r;
	if (!(dva.mode & S_ISVTX) || p->cred.fsuid == dva.uid)
		return 0;
	if ((r = vnode_getperm(vn, &va)) < 0)
		return r;
	return vfs_owner_or_capable(p, va.uid) ? 0 : -EPERM;
}

/*
 * A file that may be pinned by a link its owner did not make: a regular
 * file, neither set-uid nor set-gid and group-executable, that the caller
 * could read and write anyway.
 */
static bool
link_source_safe(struct proc *p, struct vnode *vn, const struct vattr *va)
{
	if (vn->type != VREG || (va->mode & S_ISUID))
		return false;
	if ((va->mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		return false;
	return vfs_access(p, vn, 6, false) == 0;
}

int
vfs_check_link(struct proc *p, struct vnode *vn)
{
	struct vattr va;
	int r;

	if (VFS_PROTECTED_HARDLINKS == 0)
		return 0;
	if ((r = vnode_getperm(vn, &va)) < 0)
		return r;
	if (vfs_owner_or_capable(p, va.uid) || link_source_safe(p, vn, &va))
		return 0;
	return -EPERM;
}

/*
 * No capability lifts this one: a root follower is refused too, as
 * Linux refuses it.
 */
int
vfs_check_follow(struct proc *p, struct vnode *dvp, struct vnode *link)
{
	struct vattr dva, va;
	int r;

	if (VFS_PROTECTED_SYMLINKS == 0)
		return 0;
	if ((r = vnode_getperm(link, &va)) < 0)
		return r;
	if (va.uid == p->cred.fsuid)
		return 0;
	if ((r = vnode_getperm(dvp, &dva)) < 0)
		return r;
	if ((dva.mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH) ||
	    dva.uid == va.uid)
		return 0;
	return -EACCES;
}

/*
 * The level of protection for a file of vn's type: FIFOs and regular
 * files have a sysctl each; Linux's may_create_in_sticky() holds the
 * other types to level 1 whatever the sysctls say.
 */
static int
create_protect_level(const struct vnode *vn)
{
	if (vn->type == VFIFO)
		return VFS_PROTECTED_FIFOS;
	if (vn->type == VREG)
		return VFS_PROTECTED_REGULAR;
	return 1;
}

int
vfs_check_create_open(struct proc *p, struct vnode *dvp, struct vnode *vn)
{
	int level = create_protect_level(vn);
	struct vattr dva, va;
	int r;

	if (level == 0)
		return 0;
	if ((r = vnode_getperm(dvp, &dva)) < 0 ||
	    (r = vnode_getperm(vn, &va)) < 0)
		return r;
	if (!(dva.mode & S_ISVTX) || va.uid == dva.uid ||
	    va.uid == p->cred.fsuid)
		return 0;
	if ((dva.mode & S_IWOTH) || (level >= 2 && (dva.mode & S_IWGRP)))
		return -EACCES;
	return 0;
}
