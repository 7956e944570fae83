/*
 * hostfs: a directory of the host, shown to the guest (--root, --bind).
 *
 * The files are the host's: reads and, on a read-write mount, writes go
 * to them.  Nothing beneath the directory can lead outside it: names are
 * resolved one at a time by the host beneath their directory, symlinks
 * are handed to the VFS to resolve inside the guest's root, and ".." is
 * answered from hostfs's own record of where each directory was found.
 * Permission checks are the VFS's, with the guest's credentials; the host
 * checks again with the vkernel's own.  Owners are host ids as they are
 * (guest uid N is host uid N): a new file belongs to its maker when the
 * vkernel may give it away (runs as root), else to the vkernel, and a
 * set-id bit stays only on a file whose host owner is the guest user
 * that set it (mp->hostowners, vfs_owner.c).
 */
#ifndef VK_VFS_HOSTFS_H
#define VK_VFS_HOSTFS_H

#include <stdbool.h>

struct mount;
struct vnode;

/*
 * Make a hostfs of the host directory hostpath: a mount (not yet in the
 * mount table) whose root is that directory.  A read-only mount refuses
 * every change with -EROFS.  The mount's dev is the host's st_dev of the
 * directory, and files report the host's st_dev and st_ino.  Start-up
 * only, before the lock-down.  Returns 0 with *mpp set, or the host's
 * -errno: -ENOENT, -ENOTDIR, -EACCES, ...
 */
int hostfs_mount(const char *hostpath, bool rdonly, struct mount **mpp);

/*
 * Free the file system and mp itself.  Every vnode of it but the root
 * must have been released, and mp must not be (or no longer be) in the
 * mount table: the caller detaches it first.
 */
void hostfs_unmount(struct mount *mp);

/* Whether vn is a hostfs vnode. */
bool hostfs_is_hostfs(const struct vnode *vn);

#endif
