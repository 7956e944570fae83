/*
 * tmpfs: a file system that lives in the kernel's memory.
 *
 * The tree (directories, names, attributes) is on the kernel's heap; the
 * data of regular files is in 4 KiB pages of the RAM file, so that it
 * counts against --mem like guest memory does, and a full RAM file makes
 * writes fail with -ENOMEM.  Permission checks are the VFS's: tmpfs only
 * enforces what the file system itself must (types, emptiness, names,
 * a read-only mount).
 *
 * An overlay keeps its upper layer here: a whiteout is a character device
 * with rdev 0, made with the ordinary create op; a directory can be marked
 * opaque with tmpfs_set_opaque().
 */
#ifndef VK_VFS_TMPFS_H
#define VK_VFS_TMPFS_H

#include <stdbool.h>
#include <stdint.h>

struct mount;
struct vnode;

/* Files may not grow beyond this (write and truncate give -EFBIG). */
#define TMPFS_MAXFILESIZE (1ULL << 40)

/*
 * Make a new tmpfs: a mount (not yet in the mount table) whose root is an
 * empty directory of mode S_IFDIR | (root_mode & 07777) owned by uid/gid.
 * The mount holds the only reference to its root.  Returns 0 with *mpp
 * set; cannot fail otherwise (kernel heap exhaustion aborts).
 */
int tmpfs_mount(bool rdonly, uint32_t root_mode, uint32_t uid, uint32_t gid,
    struct mount **mpp);

/*
 * Free the whole file system, its RAM pages and mp itself.  Every vnode of
 * it but the root must have been released, and mp must not be (or no
 * longer be) in the mount table: the caller detaches it first.
 */
void tmpfs_unmount(struct mount *mp);

/* Whether vn is a tmpfs vnode. */
bool tmpfs_is_tmpfs(const struct vnode *vn);

/*
 * Mark a directory opaque for an overlay (its lower layers are hidden) or
 * clear the mark.  Returns 0, -ENOTDIR for a non-directory, -EINVAL for a
 * vnode of another file system, -EROFS on a read-only mount.
 */
int tmpfs_set_opaque(struct vnode *dir, bool on);

/*
 * MAP_SHARED of a regular file: pin (on) or unpin it.  While pinned, a
 * truncation zeroes the pages beyond the end instead of freeing them,
 * so a mapping never points at RAM that went elsewhere.
 */
void tmpfs_map_pin(struct vnode *vn, bool on);

/*
 * The RAM offset of page idx of a regular file, allocated if it was a
 * hole.  Returns 0, -ENXIO beyond the end of the file, or -ENOMEM.
 */
int tmpfs_page(struct vnode *vn, uint64_t idx, uint64_t *ramoff);

/* Whether dir is a tmpfs directory marked opaque. */
bool tmpfs_is_opaque(const struct vnode *dir);

#endif
