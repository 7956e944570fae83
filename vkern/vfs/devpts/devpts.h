/*
 * devpts: /dev/pts, the pseudo-terminals' slaves by number, and ptmx
 * (5:2, mode 0000 as Linux's default ptmxmode).  An entry N is there
 * while pair N's master is open (pty.c keeps the pairs); its owner, group
 * and mode are the pair's, and chmod and chown change them.
 */
#ifndef VK_VFS_DEVPTS_H
#define VK_VFS_DEVPTS_H

#include <stdbool.h>
#include <stdint.h>

struct mount;
struct pty;
struct vnode;

/* The devpts: a mount (not yet in the mount table), at most one. */
int devpts_mount(struct mount **mpp);

/* The pair whose slave node vn is, or NULL. */
struct pty *devpts_pty(const struct vnode *vn);

/* ptmx's device number (5:2) when vn is devpts's ptmx; else -EINVAL. */
int devpts_node_rdev(const struct vnode *vn, uint64_t *rdev);

/* Pair pt's slave node, referenced, or NULL without a devpts. */
struct vnode *devpts_slave_vnode(struct pty *pt);

#endif
