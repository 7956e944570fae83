/*
 * The kernel state a run may change besides the file tree and the mounts
 * (fuzz_tree.c), noted at boot and put back after every run, so that each
 * run starts from the same kernel and no input's outcome hangs on the
 * inputs before it:
 * - what root may write under /proc/sys: the UTS names (which sethostname
 *   and setdomainname change too), the System V IPC and message queue
 *   limits, overcommit, the local port range.  A file that reads
 *   otherwise than at boot gets the boot's text written back;
 * - the attributes of the boot's device file systems' nodes (/dev and its
 *   entries, /dev/pts, /dev/mqueue): a chmod, chown or touch of /dev/null
 *   is put back by setattr, at the tree's clock, which was the boot's;
 * - the mounts a run unmounted, or that left with its mount namespaces:
 *   the VFS keeps them detached while anything holds their files, and
 *   frees them once nothing does, so when the sandbox is gone none may
 *   be left (fz_state_diff), else the heap would grow with every run that
 *   mounts.  The boot's own are kept, and mounted again (fuzz_tree.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_kern.h"
#include "vkern/kern/mqueue.h"
#include "vkern/kern/proc.h"
#include "vkern/vfs/vfs.h"

/* The writable files of /proc/sys, held, and what each read at boot. */
static struct fz_sysctl {
	struct vnode *vn;
	char path[96];
	char text[256];
	long len;
} fz_sysctls[64];
static size_t fz_nsysctls;

/* The device file systems' nodes, held, with their boot attributes. */
static struct fz_attr {
	struct vnode *vn;
	struct vattr va;
	char path[64];
} fz_attrs[64];
static size_t fz_nattrs;

static char fz_diff[160];

static long
fz_read(struct vnode *vn, char *buf, size_t size)
{
	return vn->ops->read(vn, buf, size, 0);
}

/* Note every file below dir (at path) that root may write. */
static void
fz_sysctl_walk(struct vnode *dir, const char *path)
{
	struct fz_names nm;

	fz_list(dir, &nm);
	for (size_t i = 0; i < nm.n; i++) {
		struct fz_sysctl *s = &fz_sysctls[fz_nsysctls];
		struct vnode *vn;
		struct vattr va;
		char sub[96];

		if (dir->ops->lookup(dir, nm.name[i], &vn) < 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, nm.name[i]);
		if (vn->type == VDIR) {
			fz_sysctl_walk(vn, sub);
		} else if (vn->type == VREG && vn->ops->getattr(vn, &va) == 0 &&
		    (va.mode & 0200) != 0 && fz_nsysctls <
		    VK_NELEM(fz_sysctls) && (s->len = fz_read(vn, s->text,
		    sizeof(s->text))) >= 0) {
			s->vn = vn;
			snprintf(s->path, sizeof(s->path), "%s", sub);
			fz_nsysctls++;
			continue;
		}
		vnode_rel(vn);
	}
	free(nm.name);
}

static void
fz_attr_note(struct vnode *vn, const char *path)
{
	struct fz_attr *a = &fz_attrs[fz_nattrs];

	if (fz_nattrs == VK_NELEM(fz_attrs) || vn->ops->getattr(vn,
	    &a->va) < 0) {
		vnode_rel(vn);
		return;
	}
	a->vn = vn;
	snprintf(a->path, sizeof(a->path), "%s", path);
	fz_nattrs++;
}

/*
 * Whether a mount's nodes have attributes a run may change: the tree's
 * tmpfs and overlay are fuzz_tree.c's, procfs and sysfs refuse setattr.
 */
static bool
fz_attr_fs(const struct mount *mp)
{
	static const char *const skip[] = { "overlay", "tmpfs", "proc",
	    "sysfs" };

	for (size_t i = 0; i < VK_NELEM(skip); i++)
		if (strcmp(mp->fstype, skip[i]) == 0)
			return false;
	return true;
}

void
fz_state_boot(void)
{
	struct vnode *sys = fz_find("/proc/sys");

	if (sys == NULL)
		abort();
	fz_sysctl_walk(sys, "/proc/sys");
	vnode_rel(sys);
	for (struct mount *mp = vfs_mounts(vfs_ns(NULL)); mp != NULL;
	    mp = mp->next) {
		struct fz_names nm;

		if (mp->covered == NULL || !fz_attr_fs(mp))
			continue;
		vnode_ref(mp->root);
		fz_attr_note(mp->root, mp->path);
		fz_list(mp->root, &nm);
		for (size_t i = 0; i < nm.n; i++) {
			struct vnode *vn;
			char sub[64];

			if (mp->root->ops->lookup(mp->root, nm.name[i],
			    &vn) < 0)
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", mp->path,
			    nm.name[i]);
			fz_attr_note(vn, sub);
		}
		free(nm.name);
	}
}

/* Whether the sysctl reads as at boot. */
static bool
fz_sysctl_same(const struct fz_sysctl *s)
{
	char now[sizeof(s->text)];

	return fz_read(s->vn, now, sizeof(now)) == s->len &&
	    memcmp(now, s->text, (size_t)s->len) == 0;
}

static bool
fz_attr_same(const struct fz_attr *a)
{
	struct vattr va;

	return a->vn->ops->getattr(a->vn, &va) == 0 &&
	    va.mode == a->va.mode && va.uid == a->va.uid &&
	    va.gid == a->va.gid && va.atime_ns == a->va.atime_ns &&
	    va.mtime_ns == a->va.mtime_ns && va.ctime_ns == a->va.ctime_ns;
}

void
fz_state_reset(void)
{
	/* Twice: a limit may bound another, which then went back first. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < fz_nsysctls; i++)
			if (!fz_sysctl_same(&fz_sysctls[i]))
				(void)fz_sysctls[i].vn->ops->write(
				    fz_sysctls[i].vn, fz_sysctls[i].text,
				    (size_t)fz_sysctls[i].len, 0);
	for (size_t i = 0; i < fz_nattrs; i++)
		if (!fz_attr_same(&fz_attrs[i]))
			(void)fz_attrs[i].vn->ops->setattr(fz_attrs[i].vn,
			    &fz_attrs[i].va, VA_MODE | VA_UID | VA_GID |
			    VA_ATIME | VA_MTIME);
}

const char *
fz_state_diff(void)
{
	struct mount *mp;
	const char *fs;

	if ((fs = fz_mounts_diff()) != NULL) {
		snprintf(fz_diff, sizeof(fz_diff), "the flags of a %s mount",
		    fs);
		return fz_diff;
	}
	for (size_t i = 0; i < fz_nsysctls; i++)
		if (!fz_sysctl_same(&fz_sysctls[i])) {
			snprintf(fz_diff, sizeof(fz_diff), "%s",
			    fz_sysctls[i].path);
			return fz_diff;
		}
	for (size_t i = 0; i < fz_nattrs; i++)
		if (!fz_attr_same(&fz_attrs[i])) {
			snprintf(fz_diff, sizeof(fz_diff), "the attributes of %s",
			    fz_attrs[i].path);
			return fz_diff;
		}
	if (mq_nth(0) != NULL) {
		snprintf(fz_diff, sizeof(fz_diff), "message queue /%s",
		    mq_name(mq_nth(0)));
		return fz_diff;
	}
	if ((mp = vfs_detached_first()) != NULL) {
		snprintf(fz_diff, sizeof(fz_diff), "a detached mount of %s",
		    mp->fstype);
		return fz_diff;
	}
	return NULL;
}
