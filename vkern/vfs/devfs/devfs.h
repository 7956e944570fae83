/*
 * devfs: the fixed /dev every guest gets.
 *
 * Character devices null (1:3), zero (1:5), full (1:7), random (1:8),
 * urandom (1:9), tty (5:0), console (5:1) and ptmx (5:2); symlinks fd, stdin, stdout
 * and stderr into /proc/self/fd; empty directories shm and pts for the
 * VFS to mount on.  The memory devices do their I/O in the device
 * vnodes' read and write ops; tty, console and ptmx answer -ENXIO there
 * because the VFS routes them to the console itself (devfs_node_rdev()
 * tells it which they are).  The set of files is fixed: create, link,
 * remove and rename fail with -EPERM (-EEXIST for a name that exists).
 */
#ifndef VK_VFS_DEVFS_H
#define VK_VFS_DEVFS_H

#include <stdbool.h>
#include <stdint.h>

struct mount;
struct vattr;
struct vnode;

/* A device node's attributes, which chmod, chown and utimes change. */
struct devfs_attr {
	uint32_t mode, uid, gid;
	int64_t atime, mtime, ctime;
};

/* setattr's VA_MODE, VA_UID, VA_GID, VA_ATIME and VA_MTIME on a; ctime. */
void devfs_attr_set(struct devfs_attr *a, const struct vattr *va,
    unsigned mask);

/*
 * Make a new devfs: a mount (not yet in the mount table) whose root is
 * the directory above, timestamped now.  Each mount has its own copy of
 * the nodes' attributes.  Returns 0 with *mpp set.
 */
int devfs_mount(struct mount **mpp);

/*
 * Free the devfs and mp itself.  Every vnode of it but the root must have
 * been released, and mp must not be (or no longer be) in the mount table.
 */
void devfs_unmount(struct mount *mp);

/* Whether vn is a devfs vnode. */
bool devfs_is_devfs(const struct vnode *vn);

/*
 * The device number (makedev(major, minor), Linux's encoding) of a devfs
 * device node.  Returns 0, or -EINVAL when vn is not one.
 */
int devfs_node_rdev(const struct vnode *vn, uint64_t *rdev);

/*
 * The namespace ops of a file system whose names no call makes or
 * removes (devfs, devpts): EEXIST for a name there, else EPERM.
 */
int devfs_fixed_create(struct vnode *dvn, const char *name, uint32_t mode,
    uint64_t rdev, const char *target, uint32_t uid, uint32_t gid,
    struct vnode **vpp);
int devfs_fixed_link(struct vnode *dvn, const char *name, struct vnode *vn);
int devfs_fixed_remove(struct vnode *dvn, const char *name, bool rmdir);
int devfs_fixed_rename(struct vnode *fromdir, const char *from,
    struct vnode *todir, const char *to, unsigned flags);

#endif
