/*
 * Path lookup.
 *
 * vfs_lookup() walks a guest path one component at a time from the
 * process's root or cwd (or a directory fd), crossing mount points,
 * resolving "." and ".." (never above the process's root) and symlinks
 * (at most 40, then ELOOP), checking search permission on each directory.
 * It builds the canonical absolute path of what it finds as it goes, for
 * getcwd and /proc/self/fd.  A /proc/PID/fd/N link leads to the open
 * file itself (see vfs_fdlink.c), whose name becomes the path.
 *
 * A directory can be nested deeper than a path can be long.  A canonical
 * path that would not fit in VK_PATH_MAX is kept as the path of the
 * deepest ancestor that fits, "//" and the number of levels below it, so
 * that climbing back up with ".." finds the true path again; nothing may
 * show such a path to the guest (vfs_path_deep: ENAMETOOLONG, as Linux).
 */
#ifndef VK_VFS_NAMEI_H
#define VK_VFS_NAMEI_H

#include <stdbool.h>
#include <stdint.h>

#define VK_PATH_MAX 4096
#define VK_NAME_MAX 255
#define VK_MAXSYMLINKS 40
/* Room for a canonical path: VK_PATH_MAX and a count of levels below. */
#define VK_CANON_MAX (VK_PATH_MAX + 24)

#define LOOKUP_FOLLOW  0x1   /* follow a symlink as the last component */
#define LOOKUP_PARENT  0x2   /* stop at the parent; the last may not exist */
#define LOOKUP_EMPTY   0x4   /* AT_EMPTY_PATH: "" names dirfd itself */
/* openat2's RESOLVE_* restrictions. */
#define LOOKUP_BENEATH     0x08   /* never above dirfd: EXDEV */
#define LOOKUP_IN_ROOT     0x10   /* dirfd is the root */
#define LOOKUP_NO_XDEV     0x20   /* never across a mount: EXDEV */
#define LOOKUP_NO_MAGIC    0x40   /* no /proc/PID/fd-style links: ELOOP */
#define LOOKUP_NO_SYMLINKS 0x80   /* no symlinks at all: ELOOP */

struct proc;
struct vattr;
struct vnode;

struct nameidata {
	struct vnode *vp;    /* the file (referenced); NULL if PARENT and absent */
	struct vnode *dvp;   /* LOOKUP_PARENT: its directory (referenced) */
	char last[VK_NAME_MAX + 1];
	bool trailing_slash;
	bool magic;          /* the path ended at a /proc/PID/fd/N's file */
	char path[VK_CANON_MAX];  /* canonical path of vp (or of dvp/last) */
};

/*
 * Resolve path (a kernel string) for p, relative to dirfd (AT_FDCWD for
 * the cwd).  Returns 0 with nd filled in, or -errno: ENOENT, ENOTDIR,
 * EACCES, ELOOP, ENAMETOOLONG, EBADF (dirfd).
 */
int vfs_lookup(struct proc *p, int dirfd, const char *path, unsigned flags,
    struct nameidata *nd);
void nd_release(struct nameidata *nd);
/* Whether a canonical path is too long to be shown (see above). */
bool vfs_path_deep(const char *path);

/*
 * Make a node of mode (S_IFSOCK, S_IFIFO, a regular file) at path, as
 * mknod(2) does for p; *vnp gets it, referenced.
 */
int vfs_mknod(struct proc *p, int dirfd, const char *path, uint32_t mode,
    struct vnode **vnp);

/*
 * Permission to read (4), write (2) or search/execute (1) vn: the owner's,
 * the group's (the file's group is the caller's fsgid, or its gid with
 * real_ids, or one of its supplementary groups) or the others' bits.
 */
int vfs_access(struct proc *p, struct vnode *vn, int want, bool real_ids);

/*
 * vfs_perm.c: the rules beyond the mode bits.  The fs.protected_*
 * sysctls vkernel enforces, as /proc/sys/fs reports them: Debian 12's.
 */
#define VFS_PROTECTED_HARDLINKS 1
#define VFS_PROTECTED_SYMLINKS  1
#define VFS_PROTECTED_FIFOS     1
#define VFS_PROTECTED_REGULAR   2

/* Whether p owns files of uid, or may act as their owner (CAP_FOWNER). */
bool vfs_owner_or_capable(const struct proc *p, uint32_t uid);
/*
 * Removing or replacing the entry for vn in directory dvp: a sticky
 * directory lets only the entry's owner, its own owner or a CAP_FOWNER
 * caller do it (unlink(2), rename(2): EPERM).  Returns 0 or -EPERM.
 */
int vfs_check_sticky(struct proc *p, struct vnode *dvp, struct vnode *vn);
/*
 * fs.protected_hardlinks: a link to a file the caller does not own
 * needs a regular file it may read and write, neither set-uid nor
 * executable set-gid.  Returns 0 or -EPERM.
 */
int vfs_check_link(struct proc *p, struct vnode *vn);
/*
 * fs.protected_symlinks: following link, the last component of a path,
 * found in directory dvp.  In a sticky world-writable directory only
 * a link of the follower's or of the directory's owner is followed.
 * Returns 0 or -EACCES.
 */
int vfs_check_follow(struct proc *p, struct vnode *dvp, struct vnode *link);
/*
 * fs.protected_fifos and fs.protected_regular: an O_CREAT open of vn,
 * which already exists in directory dvp.  In a sticky world-writable
 * (level 2: or group-writable) directory, only a file of the caller's or
 * of the directory's owner opens.  Returns 0 or -EACCES.
 */
int vfs_check_create_open(struct proc *p, struct vnode *dvp,
    struct vnode *vn);

/*
 * vfs_owner.c.  vfs_new_owner(): the group a new file p makes in dir
 * gets, and the bits of *mode (S_IFMT included) it keeps; its owner is
 * p's fsuid.
 */
int vfs_new_owner(struct proc *p, struct vnode *dir, uint32_t *mode,
    uint32_t *gid);

/*
 * Whether p may change the owner, group or mode of vn (attributes va) as
 * nva and *maskp ask: 0 or -EPERM.  Set-id bits p may not set are taken
 * out of nva->mode; a chown (chown true, even with no id to change) adds
 * VA_MODE to *maskp when it takes set-id bits away.
 */
int vfs_setattr_check(struct proc *p, struct vnode *vn,
    const struct vattr *va, struct vattr *nva, unsigned *maskp, bool chown);

/*
 * Before p writes, truncates or allocates regular file vn: the set-id
 * bits a change by a caller without CAP_FSETID takes away go.
 */
int vfs_remove_privs(struct proc *p, struct vnode *vn);

/*
 * RLIMIT_FSIZE, as Linux's generic_write_checks() and inode_newsize_ok():
 * a write of *lenp bytes at pos to a regular file is cut at p's limit,
 * and one starting at or past it gives SIGXFSZ and -EFBIG.
 * vfs_fsize_grow: the same for growing vn to size (truncate, fallocate),
 * past the limit.  Both return 0 or -EFBIG.
 */
int vfs_fsize_write(struct proc *p, uint64_t pos, size_t *lenp);
int vfs_fsize_grow(struct proc *p, struct vnode *vn, uint64_t size);

#endif
