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
#include <fcntl.h>
#include <stdint.h>

struct mount;
struct vnode;

/*
 * Files may not grow beyond this (write and truncate give -EFBIG): Linux's
 * MAX_LFS_FILESIZE, the largest off_t, as its tmpfs allows.  The page
 * tree holds holes for free, so only the pages written cost RAM.
 */
#define TMPFS_MAXFILESIZE ((uint64_t)INT64_MAX)

/*
 * Make a new tmpfs: a mount (not yet in the mount table) whose root is an
 * empty directory of mode S_IFDIR | (root_mode & 07777) owned by uid/gid.
 * The mount holds the only reference to its root.  Returns 0 with *mpp
 * set; cannot fail otherwise (kernel heap exhaustion aborts).
 */
int tmpfs_mount(bool rdonly, uint32_t root_mode, uint32_t uid, uint32_t gid,
    struct mount **mpp);

/*
 * Bound a tmpfs as Linux's size= and nr_inodes= mount options do: the
 * data of its files to max_pages pages, beyond which writes and
 * fallocate give -ENOSPC, and its nodes (the root included) to
 * max_nodes, beyond which making a file, directory or symlink gives
 * -ENOSPC.  0 is no bound of its own: --mem and --disk still hold.
 * statfs shows the bounds.  Returns 0, or -EINVAL when the file system
 * already holds more than a bound.
 */
int tmpfs_set_limits(struct mount *mp, uint64_t max_pages,
    uint64_t max_nodes);

/*
 * Free the whole file system, its RAM pages and mp itself.  Every vnode of
 * it but the root must have been released, and mp must not be (or no
 * longer be) in the mount table: the caller detaches it first.
 */
void tmpfs_unmount(struct mount *mp);

/*
 * --disk in pages: what the data of every mounted tmpfs (an overlay's
 * upper layer too) may take together, beyond which writes and
 * fallocate give -ENOSPC.  UINT64_MAX: only --mem bounds it.
 * Unlinked files (memfds) are memory, not counted.
 */
extern uint64_t tmpfs_disk_max;

/*
 * The figures of a file system in the kernel's memory that holds nfiles
 * files (tmpfs, devfs): its blocks are all of --mem (or --disk) and the
 * free ones what of it is free, shared by all such file systems, as every tmpfs
 * of Linux's takes from one RAM; it may hold a file per block.
 */
struct vfs_statfs;
void tmpfs_statfs_mem(struct vfs_statfs *sf, uint64_t nfiles);

/*
 * A new regular file of mode (permission bits) owned by uid/gid, with no
 * name: it lives while references to it do (memfd_create(2), shadows of
 * shared host mappings).  It is made on a tmpfs of its own, mounted
 * nowhere.  Returns it referenced.
 */
int tmpfs_unlinked(uint32_t mode, uint32_t uid, uint32_t gid,
    struct vnode **vnp);

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
 * truncation or a punched hole zeroes pages instead of freeing them, so
 * a mapping never points at RAM that went elsewhere.  maywrite: the
 * mapping is or may be made writable, which F_SEAL_WRITE waits out.
 */
int tmpfs_map_pin(struct vnode *vn, bool on, bool maywrite);

/* F_SEAL_EXEC is Linux 6.3's, newer than the UAPI headers here. */
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020
#endif
#define TMPFS_SEALS_ALL (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | \
    F_SEAL_WRITE | F_SEAL_FUTURE_WRITE | F_SEAL_EXEC)

/*
 * File seals (fcntl(2), "File sealing"), which belong to the file, not
 * to an open file.  Every tmpfs regular file has them, and starts with
 * F_SEAL_SEAL, as Linux's shmem files do; memfd_create(2) may start a
 * file with others.  The data ops, setattr and fallocate enforce them.
 * Files of other file systems have none: -EINVAL.
 *
 * tmpfs_seals_get() returns the seals.  tmpfs_seals_add() adds some:
 * -EINVAL for bits beyond TMPFS_SEALS_ALL, -EPERM once F_SEAL_SEAL is
 * set, -EBUSY for F_SEAL_WRITE while a shared mapping may write.
 * tmpfs_seals_set() sets them outright on a new file.
 * tmpfs_write_sealed() says whether F_SEAL_WRITE or F_SEAL_FUTURE_WRITE
 * forbids new writes (and new writable shared mappings).
 */
int tmpfs_seals_get(const struct vnode *vn);
int tmpfs_seals_add(struct vnode *vn, unsigned seals);
void tmpfs_seals_set(struct vnode *vn, unsigned seals);
bool tmpfs_write_sealed(const struct vnode *vn);

/*
 * The RAM offset of page idx of a regular file, allocated if it was a
 * hole.  Returns 0, -ENXIO beyond the end of the file, or -ENOMEM.
 */
int tmpfs_page(struct vnode *vn, uint64_t idx, uint64_t *ramoff);

/*
 * The pages a regular file holds, whatever its size, for a caller that
 * keeps its own pages in it (a map cache's shadow).  tmpfs_page_find()
 * gives the RAM offset of page idx if it is allocated (0), else -ENXIO.
 * tmpfs_page_next() returns the first allocated page at or after idx, or
 * UINT64_MAX.  tmpfs_page_drop() frees page idx, which nothing may map.
 */
int tmpfs_page_find(struct vnode *vn, uint64_t idx, uint64_t *ramoff);
uint64_t tmpfs_page_next(struct vnode *vn, uint64_t idx);
void tmpfs_page_drop(struct vnode *vn, uint64_t idx);

/* Whether dir is a tmpfs directory marked opaque. */
bool tmpfs_is_opaque(const struct vnode *dir);

/*
 * Mark an overlay's upper directory as holding nothing of its own yet
 * (made for copy-up, or the overlay's root), so that the overlay shows
 * its lower directory's attributes; cleared when the guest changes it.
 */
void tmpfs_set_lower_attrs(struct vnode *dir, bool on);
bool tmpfs_lower_attrs(const struct vnode *dir);

/*
 * The inode number of the lower file an overlay copied vn up from, kept
 * with the copy as Linux's overlayfs keeps its origin xattr, so every
 * name of the copy (a hard link made after) shows the lower number; 0
 * for none.
 */
void tmpfs_set_origin(struct vnode *vn, uint64_t ino);
uint64_t tmpfs_origin(const struct vnode *vn);

#endif
