/*
 * overlay: a writable tmpfs upper layer over a read-only lower layer.
 *
 * The guest sees the union: a name in the upper layer hides the same
 * name below; a whiteout (a character device 0:0 in the upper layer)
 * hides a lower name that was deleted; an opaque upper directory hides
 * everything below it.  The first change to a lower file copies it up.
 * Renaming a directory that has a lower part gives EXDEV, as Linux's
 * overlayfs does without redirect_dir; mv copes by copying.
 */
#ifndef VK_VFS_OVERLAY_H
#define VK_VFS_OVERLAY_H

struct mount;
struct vnode;

/* A mount of upper (a tmpfs root) over lower; takes both references. */
int overlay_mount(struct vnode *upper, struct vnode *lower,
    struct mount **mpp);

/*
 * The layer file behind vn (vn itself when it is no overlay vnode),
 * copied up first when copy_up; NULL when the copy-up failed.
 */
#include <stdbool.h>
struct vnode *overlay_upper(struct vnode *vn, bool copy_up);

#endif
