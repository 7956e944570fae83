/*
 * What vfs_mount.c and vfs_mount_copy.c share of the mount tables: a
 * namespace's table, and the steps that put a mount in one and on its
 * directory.
 */
#ifndef VKERN_VFS_VFS_MOUNT_IMPL_H
#define VKERN_VFS_VFS_MOUNT_IMPL_H

#include "vkern/vfs/vfs.h"

struct mntns {
	int refs;
	uint64_t ino;           /* its nsfs inode */
	struct mount *mounts, *tail;
	int nmounts;            /* on the list: at most mount_max */
	struct mount *root;
	struct mntns *next;     /* on the list of every namespace */
};

/* The most mounts a namespace holds (VFS_MOUNT_MAX unless a test's). */
extern int mount_max;

/* A new empty namespace, referenced, or NULL when it does not fit. */
struct mntns *mntns_new(void);
/*
 * mp joins the end of ns's table, or leaves it; its file system counts
 * the mounts that show it in any table.
 */
void ns_append(struct mntns *ns, struct mount *mp);
void ns_remove(struct mntns *ns, struct mount *mp);
/* mp goes on directory dir, in the mount that is its parent already. */
void cover_link(struct mount *mp, struct vnode *dir);
void cover_unlink(struct mount *mp);
/* Put mp, which may be on a directory, on parent. */
void mount_set_parent(struct mount *mp, struct mount *parent);

#endif
