/*
 * nsfs.c: namespaces as files, for the links of /proc/PID/ns and for
 * setns(2).
 *
 * vkernel has mount namespaces, any number of them (vfs_mount.c), and of
 * each other kind the one namespace the whole sandbox is: its pids, its
 * host name, its System V IPC, its network, its users, its cgroup and its
 * clocks.  Those have the inode numbers Linux gives its initial
 * namespaces; mount namespaces get numbers of their own, the boot's
 * first, as Linux counts them.
 */
#ifndef VK_VFS_NSFS_H
#define VK_VFS_NSFS_H

#include <stddef.h>
#include <stdint.h>

struct proc;
struct vnode;

/* Linux's inode numbers of its initial namespaces (PROC_*_INIT_INO). */
#define NSFS_INO_TIME   4026531834
#define NSFS_INO_CGROUP 4026531835
#define NSFS_INO_PID    4026531836
#define NSFS_INO_USER   4026531837
#define NSFS_INO_UTS    4026531838
#define NSFS_INO_IPC    4026531839
#define NSFS_INO_NET    4026531840
/* The boot's mount namespace, then those unshare and clone make. */
#define NSFS_INO_MNT    4026531841
#define NSFS_INO_NEXT   4026532096

/* The links of /proc/PID/ns, in Linux's order of its directory. */
enum nsfs_link {
	NSFS_CGROUP,
	NSFS_IPC,
	NSFS_MNT,
	NSFS_NET,
	NSFS_PID,
	NSFS_PID_FOR_CHILDREN,
	NSFS_TIME,
	NSFS_TIME_FOR_CHILDREN,
	NSFS_USER,
	NSFS_UTS,
	NSFS_NLINKS
};

/* Link l's target for process p, as Linux's: "mnt:[4026531841]". */
void nsfs_link_text(enum nsfs_link l, const struct proc *p, char *buf,
    size_t size);

/*
 * The file link l of p leads to, referenced: a regular file of the nsfs
 * file system whose inode number is the namespace's, one vnode per
 * namespace.  An open of it is what setns(2) takes.
 */
struct vnode *nsfs_vnode(enum nsfs_link l, const struct proc *p);

#endif
