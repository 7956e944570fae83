/*
 * Owners and set-id bits, by Linux's rules, for every file system: who
 * owns a new file and which of its mode bits it keeps (inode_init_owner),
 * who may chmod and chown (setattr_prepare, chown_common), and the
 * set-id bits a change of data or owner takes away (file_remove_privs).
 *
 * A guest's capabilities follow its fs ids here as on Linux, where
 * setfsuid() away from 0 drops CAP_CHOWN, CAP_FOWNER and CAP_FSETID: a
 * caller with fsuid 0 has them all, any other none.
 *
 * On a mount whose owners are host users (mp->hostowners: hostfs, where
 * guest uid N is host uid N) a set-id bit is one a host user could run
 * as the file's owner: it stays only on the caller's own files, so that
 * no guest makes a set-uid file of a user it is not.
 */
#include <errno.h>
#include <sys/stat.h>

#include "vkern/kern/proc.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/vfs.h"

#define SETID (S_ISUID | S_ISGID)

/* in_group_or_capable(): may p keep S_ISGID on a file of group gid? */
static bool
may_keep_sgid(const struct proc *p, uint32_t gid)
{
	return p->cred.fsuid == 0 || proc_in_group(p, gid);
}

int
vfs_new_owner(struct proc *p, struct vnode *dir, uint32_t *mode,
    uint32_t *gid)
{
	struct vattr dva;
	int r;

	if ((r = vnode_getperm(dir, &dva)) < 0)
		return r;
	/* mkdir(2) takes no set-id bits: a directory inherits S_ISGID. */
	if (S_ISDIR(*mode))
		*mode &= ~(uint32_t)SETID;
	*gid = p->cred.fsgid;
	if (!(dva.mode & S_ISGID))
		return 0;
	/* A set-gid directory gives its group, and S_ISGID to directories. */
	*gid = dva.gid;
	if (S_ISDIR(*mode))
		*mode |= S_ISGID;
	else if ((*mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) &&
	    !may_keep_sgid(p, dva.gid))
		*mode &= ~(uint32_t)S_ISGID;
	return 0;
}

/*
 * The set-id bits of a file with attributes va that a change by p takes
 * away: S_ISUID, and S_ISGID when it is a real one (group-executable) or
 * p could not set it (without group-x it marks mandatory locking).
 */
static uint32_t
setid_lost(const struct proc *p, const struct vattr *va)
{
	uint32_t kill = va->mode & S_ISUID;

	if ((va->mode & S_ISGID) && ((va->mode & S_IXGRP) ||
	    !may_keep_sgid(p, va->gid)))
		kill |= S_ISGID;
	return kill;
}

int
vfs_setattr_check(struct proc *p, struct vnode *vn, const struct vattr *va,
    struct vattr *nva, unsigned *maskp, bool chown)
{
	bool priv = p->cred.fsuid == 0, owner = va->uid == p->cred.fsuid;
	unsigned mask = *maskp;
	uint32_t kill, group;

	if ((mask & VA_UID) && !priv && !(owner && nva->uid == va->uid))
		return -EPERM;
	if ((mask & VA_GID) && !priv && !(owner && (nva->gid == va->gid ||
	    proc_in_group(p, nva->gid))))
		return -EPERM;
	/* chown(2), even to the same ids: no set-id bits survive it. */
	if (chown && vn->type != VDIR &&
	    (kill = setid_lost(p, va)) != 0) {
		nva->mode = va->mode & ~kill;
		mask |= VA_MODE;
	}
	if (!(mask & VA_MODE)) {
		*maskp = mask;
		return 0;
	}
	if (!vfs_owner_or_capable(p, va->uid))
		return -EPERM;
	group = (mask & VA_GID) ? nva->gid : va->gid;
	if (!may_keep_sgid(p, group))
		nva->mode &= ~(uint32_t)S_ISGID;
	if (vn->mount != NULL && vn->mount->hostowners && !owner)
		nva->mode &= ~(uint32_t)SETID;
	nva->mode = (va->mode & S_IFMT) | (nva->mode & 07777);
	*maskp = mask;
	return 0;
}

int
vfs_remove_privs(struct proc *p, struct vnode *vn)
{
	struct vattr va, nva;
	uint32_t kill;
	int r;

	/* CAP_FSETID keeps them; only regular files lose them. */
	if (vn->type != VREG || p->cred.fsuid == 0 || vn->ops->setattr == NULL)
		return 0;
	if ((r = vnode_getperm(vn, &va)) < 0)
		return r;
	if ((kill = setid_lost(p, &va)) == 0)
		return 0;
	nva.mode = va.mode & ~kill;
	return vn->ops->setattr(vn, &nva, VA_MODE);
}
