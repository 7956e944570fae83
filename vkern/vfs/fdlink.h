/*
 * vfs_fdlink.c: the vnode a /proc/PID/fd/N link leads to, and opening
 * it again.
 */
#ifndef VK_VFS_FDLINK_H
#define VK_VFS_FDLINK_H

struct file;
struct vnode;

/*
 * The vnode that open file fp is, referenced: its own, or for a file
 * without one the vnode of what it is open on (a pipe's FIFO, a
 * socket's inode, the anonymous inode, a console's host fd).  Returns
 * 0 or -errno (a console's host fd that fstat refuses).
 */
int fdlink_vnode(struct file *fp, struct vnode **vpp);

/*
 * open(2) of vn, when it is one fdlink_vnode() made for a console or
 * the anonymous inode: a new console file, or NULL with *errp -ENXIO
 * (the anonymous inode) or console_reopen()'s error.  NULL with *errp
 * 0 for any other vnode.
 */
struct file *fdlink_open(struct vnode *vn, unsigned flags, const char *path,
    int *errp);

#endif
