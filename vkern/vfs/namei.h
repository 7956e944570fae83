/*
 * Path lookup.
 *
 * vfs_lookup() walks a guest path one component at a time from the
 * process's root or cwd (or a directory fd), crossing mount points,
 * resolving "." and ".." (never above the process's root) and symlinks
 * (at most 40, then ELOOP), checking search permission on each directory.
 * It builds the canonical absolute path of what it finds as it goes, for
 * getcwd and /proc/self/fd.
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
struct vnode;

struct nameidata {
	struct vnode *vp;    /* the file (referenced); NULL if PARENT and absent */
	struct vnode *dvp;   /* LOOKUP_PARENT: its directory (referenced) */
	char last[VK_NAME_MAX + 1];
	bool trailing_slash;
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

/* Permission to read (4), write (2) or search/execute (1) vn. */
int vfs_access(struct proc *p, struct vnode *vn, int want, bool real_ids);

#endif
