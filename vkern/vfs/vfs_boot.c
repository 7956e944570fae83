/*
 * The guest's file tree at boot.
 *
 * By default the root is the host's "/" read-only under a tmpfs overlay:
 * the guest may change anything and nothing reaches the host.  devfs is
 * mounted on /dev with a tmpfs on /dev/shm, procfs on /proc, sysfs on
 * /sys; binds and extra tmpfs mounts
 * from the command line go where they say, their mount points made in the
 * overlay when missing.  Lookups here run with root's credentials.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "vkern/kern/proc.h"
#include "vkern/vfs/devfs/devfs.h"
#include "vkern/vfs/devpts/devpts.h"
#include "vkern/vfs/hostfs/hostfs.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/overlay/overlay.h"
#include "vkern/vfs/procfs/procfs.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_boot.h"

static struct fs_ctx boot_fs;
static struct proc boot_proc = { .fs = &boot_fs };
static struct mount *boot_upper;        /* the root overlay's upper layer */

/* Look up path as root, making missing directories on the way. */
static int
boot_mkdirs(const char *path, struct vnode **vpp)
{
	char part[VK_PATH_MAX];
	struct nameidata nd;
	size_t len = strlen(path);
	int r;

	if (path[0] != '/' || len >= sizeof(part))
		return -EINVAL;
	for (size_t i = 1; i <= len; i++) {
		struct vnode *vn = NULL;

		if (path[i] != '/' && path[i] != '\0')
			continue;
		memcpy(part, path, i);
		part[i] = '\0';
		if ((r = vfs_lookup(&boot_proc, AT_FDCWD, part,
		    LOOKUP_PARENT | LOOKUP_FOLLOW, &nd)) < 0)
			return r;
		if (nd.vp == NULL)
			r = vn_create(nd.dvp, nd.last, S_IFDIR | 0755,
			    0, NULL, 0, 0, &vn);
		if (vn != NULL)
			vnode_rel(vn);
		nd_release(&nd);
		if (r < 0)
			return r;
	}
	if ((r = vfs_lookup(&boot_proc, AT_FDCWD, path, LOOKUP_FOLLOW,
	    &nd)) < 0)
		return r;
	*vpp = nd.vp;
	nd.vp = NULL;
	nd_release(&nd);
	return (*vpp)->type == VDIR ? 0 : -ENOTDIR;
}

static int
boot_mount_at(struct mount *mp, const char *path)
{
	struct vnode *dir;
	int r;

	if ((r = boot_mkdirs(path, &dir)) < 0)
		return r;
	r = vfs_mount(mp, dir, path);
	vnode_rel(dir);
	return r;
}

int
vfs_boot_root(const char *hostdir, bool overlay)
{
	struct mount *lower, *upper, *mp;
	int r;

	if ((r = hostfs_mount(hostdir, true, &lower)) < 0)
		return r;
	mp = lower;
	if (overlay) {
		tmpfs_mount(false, 0755, 0, 0, &upper);
		boot_upper = upper;
		vnode_ref(upper->root);
		vnode_ref(lower->root);
		overlay_mount(upper->root, lower->root, &mp);
	}
	if ((r = vfs_mount(mp, NULL, "/")) < 0)
		return r;
	boot_fs.root = boot_fs.cwd = vfs_root();
	boot_fs.cwd_path = (char *)"/";
	return 0;
}

int
vfs_boot_std(void)
{
	struct mount *dev, *pts, *shm, *proc, *sys;
	int r;

	if ((r = devfs_mount(&dev)) < 0 || (r = boot_mount_at(dev, "/dev")) < 0)
		return r;
	if ((r = devpts_mount(&pts)) < 0 ||
	    (r = boot_mount_at(pts, "/dev/pts")) < 0)
		return r;
	tmpfs_mount(false, 01777, 0, 0, &shm);
	if ((r = boot_mount_at(shm, "/dev/shm")) < 0)
		return r;
	if ((r = procfs_mount(&proc)) < 0 ||
	    (r = boot_mount_at(proc, "/proc")) < 0)
		return r;
	if ((r = sysfs_mount(&sys)) < 0)
		return r;
	return boot_mount_at(sys, "/sys");
}

int
vfs_boot_bind(const char *hostdir, const char *guestpath, bool rw)
{
	struct mount *mp;
	int r;

	if ((r = hostfs_mount(hostdir, !rw, &mp)) < 0)
		return r;
	return boot_mount_at(mp, guestpath);
}

int
vfs_boot_root_size(uint64_t max_pages)
{
	if (boot_upper == NULL)
		return -EINVAL;
	return tmpfs_set_limits(boot_upper, max_pages, 0);
}

int
vfs_boot_tmpfs(const char *guestpath, uint64_t max_pages,
    uint64_t max_nodes)
{
	struct mount *mp;
	int r;

	tmpfs_mount(false, 01777, 0, 0, &mp);
	/* An empty tmpfs holds one node and no data: no bound is below. */
	if ((r = tmpfs_set_limits(mp, max_pages, max_nodes)) < 0)
		return r;
	return boot_mount_at(mp, guestpath);
}
