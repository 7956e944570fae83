/*
 * procfs and sysfs: the kernel's state as read-only files.
 *
 * /proc holds one directory per live process (stat, status, statm,
 * cmdline, environ, comm, maps, mounts, mountinfo, the exe, cwd and root
 * links, fd/, fdinfo/ and task/), the self and thread-self links, and the
 * system files meminfo, cpuinfo, stat, uptime, loadavg, mounts,
 * filesystems, version and a few of sys/.  /sys holds the CPU lists of
 * devices/system/cpu.  Content is made at read time from the process
 * table, the vm maps, the mount table and the RAM allocator, in the
 * formats of Linux's fs/proc, so that ps, top, free and their kind parse
 * it.  Nothing can be created, removed, renamed or changed (EPERM).
 *
 * Vnode ops get no process, so "self" needs the syscall layer's help:
 * see procfs_set_current().
 */
#ifndef VK_VFS_PROCFS_H
#define VK_VFS_PROCFS_H

struct file;
struct mount;
struct proc;
struct vnode;

/*
 * Make a new procfs: a mount (fstype and source "proc", not yet in the
 * mount table) that holds the only reference to its root.  The first
 * mount of procfs or sysfs also marks the boot, for /proc/uptime.
 * Returns 0 with *mpp set; cannot fail otherwise.
 */
int procfs_mount(struct mount **mpp);

/*
 * Free a procfs and mp.  Every vnode of it but the root must have been
 * released, and mp must not be (or no longer be) in the mount table.
 */
void procfs_unmount(struct mount *mp);

/*
 * Tell procfs which process is making the current system call: the one
 * /proc/self names, and the one whose files read as running ('R').  The
 * syscall layer calls it before each syscall (syscall_enter), with the
 * calling thread's process.  Only the pid is kept, so a process that
 * exits leaves nothing dangling; until the first call, or when that pid
 * is gone, the first process of the table stands in.  NULL forgets.
 */
void procfs_set_current(struct proc *p);

/*
 * p follows vn, a magic link of a process (fd/N, exe, cwd, root, ns/NAME):
 * only as Linux's ptrace access rule lets it (-EACCES), and only while
 * the process and fd are there (-ENOENT).  For fd/N *fpp is the open
 * file (not referenced; valid until that fd is closed), which Linux
 * opens itself rather than following the link's text: that is how
 * /dev/stdin reaches a pipe.  For ns/NAME *vpp is the namespace's file
 * (nsfs.h), referenced.  For the other links, or any other vnode, both
 * are NULL and the text is followed.  Returns 0 or -errno.
 */
int procfs_link_follow(const struct vnode *vn, struct proc *p,
    struct file **fpp, struct vnode **vpp);

/*
 * The pid whose /proc/PID directory vn is, or -1 for any other vnode
 * (/proc/PID/task/TID among them): pidfd_send_signal(2) takes an open
 * /proc/PID for the process, as Linux does.
 */
int procfs_pid_dir(const struct vnode *vn);

/*
 * Make a new sysfs (fstype and source "sysfs"): devices/system/cpu with
 * online, possible and present ("0-N\n", or "0\n" for one CPU, from
 * plat_ncpus()).  As procfs_mount otherwise.
 */
int sysfs_mount(struct mount **mpp);

/* Free a sysfs and mp; as procfs_unmount. */
void sysfs_unmount(struct mount *mp);

#endif
