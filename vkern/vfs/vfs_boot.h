/*
 * Building the guest's file tree at boot (vfs_boot.c).  Each returns 0 or
 * -errno: the host's error for a bad host directory, ENOTDIR or ENOENT
 * for a guest path that cannot be a mount point.
 */
#ifndef VK_VFS_BOOT_H
#define VK_VFS_BOOT_H

#include <stdbool.h>
#include <stdint.h>

/* The root: the host directory, under a tmpfs overlay when overlay. */
int vfs_boot_root(const char *hostdir, bool overlay);

/* devfs on /dev, a tmpfs on /dev/shm, procfs on /proc, sysfs on /sys. */
int vfs_boot_std(void);

/*
 * Bound the data of the root overlay's upper layer to max_pages pages
 * (tmpfs_set_limits); -EINVAL when the root is no overlay.
 */
int vfs_boot_root_size(uint64_t max_pages);

/*
 * /etc/hostname with hostname (at most 64 bytes), and /etc/hosts with
 * localhost, ::1 and hostname before the root's own lines, written into
 * the root's overlay: before any bind, so never onto the host.
 */
int vfs_boot_names(const char *hostname);

int vfs_boot_bind(const char *hostdir, const char *guestpath, bool rw);
/* A tmpfs at guestpath bounded as tmpfs_set_limits() says (0: none). */
int vfs_boot_tmpfs(const char *guestpath, uint64_t max_pages,
    uint64_t max_nodes);

#endif
