/*
 * The guest's file tree at boot.
 *
 * By default the root is the host's "/" read-only under a tmpfs overlay:
 * the guest may change anything and nothing reaches the host.  devfs is
 * mounted on /dev with a tmpfs on /dev/shm and the mqueue file system on
 * /dev/mqueue (as Debian's systemd mounts it), procfs on /proc, sysfs on
 * /sys; binds and extra tmpfs mounts
 * from the command line go where they say, their mount points made in the
 * overlay when missing.  /etc/hostname and /etc/hosts name the sandbox,
 * written into the overlay.  Lookups here run with root's credentials.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/vfs/devfs/devfs.h"
#include "vkern/vfs/devpts/devpts.h"
#include "vkern/vfs/mqueuefs/mqueuefs.h"
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
	r = vfs_mount(vfs_ns(&boot_proc), mp, dir, path);
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
	if ((r = vfs_mount(vfs_ns(&boot_proc), mp, NULL, "/")) < 0)
		return r;
	boot_fs.root = boot_fs.cwd = vfs_root();
	boot_fs.cwd_path = (char *)"/";
	return 0;
}

int
vfs_boot_std(void)
{
	struct mount *dev, *pts, *shm, *mq, *proc, *sys;
	int r;

	if ((r = devfs_mount(&dev)) < 0 || (r = boot_mount_at(dev, "/dev")) < 0)
		return r;
	if ((r = devpts_mount(&pts)) < 0 ||
	    (r = boot_mount_at(pts, "/dev/pts")) < 0)
		return r;
	tmpfs_mount(false, 01777, 0, 0, &shm);
	if ((r = boot_mount_at(shm, "/dev/shm")) < 0)
		return r;
	mqueuefs_mount(&mq);
	mq->flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
	if ((r = boot_mount_at(mq, "/dev/mqueue")) < 0)
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

/* The most of the root's own /etc/hosts that the guest's keeps. */
#define BOOT_HOSTS_MAX (64 * 1024)

/*
 * Replace name in dir with a new regular file (root's, 0644) holding
 * data.  Removing first leaves the layer below as it was: in the root's
 * overlay the old name becomes a whiteout, and a symlink is not followed.
 */
static int
boot_write_file(struct vnode *dir, const char *name, const char *data,
    size_t len)
{
	struct vnode *vn;
	long r;

	if ((r = vn_remove(dir, name, false)) < 0 && r != -ENOENT)
		return (int)r;
	if ((r = vn_create(dir, name, S_IFREG | 0644, 0, NULL, 0, 0, &vn)) < 0)
		return (int)r;
	r = vn->ops->write(vn, data, len, 0);
	vnode_rel(vn);
	return r < 0 ? (int)r : r == (long)len ? 0 : -EIO;
}

/* Up to size bytes of the regular file at path into buf; 0 if none. */
static size_t
boot_read_file(const char *path, char *buf, size_t size)
{
	struct nameidata nd;
	long r = 0;

	if (vfs_lookup(&boot_proc, AT_FDCWD, path, LOOKUP_FOLLOW, &nd) < 0)
		return 0;
	if (nd.vp->type == VREG)
		r = nd.vp->ops->read(nd.vp, buf, size, 0);
	nd_release(&nd);
	return r > 0 ? (size_t)r : 0;
}

int
vfs_boot_names(const char *hostname)
{
	char *old = kmem_alloc(BOOT_HOSTS_MAX, KM_FORCE), *hosts;
	const char *dot = strchr(hostname, '.');
	size_t oldlen = boot_read_file("/etc/hosts", old, BOOT_HOSTS_MAX);
	size_t size = oldlen + 512;
	struct vnode *etc;
	int n, r;

	hosts = kmem_alloc(size, KM_FORCE);
	/*
	 * Debian's layout: the name on 127.0.1.1, with its first label as
	 * an alias when it has a domain, so that hostname -f finds it.
	 */
	n = snprintf(hosts, size, "# This sandbox's names (vkernel "
	    "--hostname); the root's own /etc/hosts follows.\n"
	    "127.0.0.1\tlocalhost\n"
	    "127.0.1.1\t%s%s%.*s\n"
	    "::1\tlocalhost ip6-localhost ip6-loopback\n"
	    "ff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n\n",
	    hostname, dot != NULL ? " " : "",
	    dot != NULL ? (int)(dot - hostname) : 0, hostname);
	memcpy(hosts + n, old, oldlen);
	if ((r = boot_mkdirs("/etc", &etc)) == 0) {
		r = boot_write_file(etc, "hosts", hosts, (size_t)n + oldlen);
		if (r == 0) {
			n = snprintf(hosts, size, "%s\n", hostname);
			r = boot_write_file(etc, "hostname", hosts, (size_t)n);
		}
		vnode_rel(etc);
	}
	kmem_free(hosts, size, KM_FORCE);
	kmem_free(old, BOOT_HOSTS_MAX, KM_FORCE);
	return r;
}
