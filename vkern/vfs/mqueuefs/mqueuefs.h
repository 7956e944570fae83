/*
 * The mqueue file system: the sandbox's POSIX message queues as files
 * (mq_overview(7)), mounted on /dev/mqueue at boot as Debian's systemd
 * does.
 */
#ifndef VK_VFS_MQUEUEFS_MQUEUEFS_H
#define VK_VFS_MQUEUEFS_MQUEUEFS_H

struct mount;

/*
 * A mount of it, not yet in the mount table.  Every mount shows the same
 * queues, as Linux's mounts of one IPC namespace: the first makes the
 * file system, the rest are mounts of its root.  Returns 0.
 */
int mqueuefs_mount(struct mount **mpp);

#endif
