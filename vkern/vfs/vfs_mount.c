/*
 * The mount table.  Mounts form a tree under the root mount; a directory
 * with a file system mounted on it points at that mount (covered_by), and
 * path lookup steps from one to the other.  Each mount gets its own
 * st_dev number.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"

static struct mount *mounts, *mounts_tail;
static struct mount *root_mount;
static struct mount *detached;  /* unmounted, kept for files still open */
static uint64_t next_dev = 0x20;
static int next_id;

/* The f_type Linux reports for each kind of file system. */
static const struct {
	const char *fstype;
	uint32_t magic;
} fs_magics[] = {
	{ "tmpfs", 0x01021994 },
	{ "devtmpfs", 0x01021994 },
	{ "overlay", 0x794c7630 },
	{ "proc", 0x9fa0 },
	{ "sysfs", 0x62656572 },
};

static uint32_t
fs_magic(const char *fstype)
{
	for (size_t i = 0; i < VK_NELEM(fs_magics); i++)
		if (strcmp(fs_magics[i].fstype, fstype) == 0)
			return fs_magics[i].magic;
	return 0;
}

struct mount *
mount_alloc(const char *fstype, const char *source, bool rdonly)
{
	struct mount *mp = vk_xcalloc(1, sizeof(*mp));

	mp->fstype = fstype;
	mp->source = strdup(source != NULL ? source : fstype);
	mp->rdonly = rdonly;
	mp->magic = fs_magic(fstype);
	mp->dev = next_dev++;
	mp->id = next_id++;
	return mp;
}

int
vfs_mount_check(struct vnode *root, struct vnode *dir)
{
	if (dir->type != VDIR)
		return -ENOTDIR;
	if (dir->covered_by != NULL)
		return -EBUSY;
	/*
	 * Lookups step from a directory to what covers it until nothing
	 * does: a bind whose root leads back to dir would never end.
	 */
	for (struct vnode *vn = root; vn != NULL;
	    vn = vn->covered_by != NULL ? vn->covered_by->root : NULL)
		if (vn == dir)
			return -EINVAL;
	return 0;
}

/* Put mp on dir (NULL: as the root) and at the end of the table. */
static void
mount_link(struct mount *mp, struct vnode *dir)
{
	if (dir != NULL) {
		vnode_ref(dir);
		mp->covered = dir;
		mp->parent = dir->mount;
		dir->covered_by = mp;
	}
	if (mounts_tail != NULL)
		mounts_tail->next = mp;
	else
		mounts = mp;
	mounts_tail = mp;
}

int
vfs_mount(struct mount *mp, struct vnode *dir, const char *path)
{
	int r;

	VK_ASSERT(mp->root != NULL);
	if (dir == NULL) {
		if (root_mount != NULL)
			return -EBUSY;
		root_mount = mp;
	} else if ((r = vfs_mount_check(mp->root, dir)) < 0) {
		return r;
	}
	mp->path = strdup(path);
	mount_link(mp, dir);
	return 0;
}

#ifdef VK_TEST_HOOKS
int
vfs_mount_again(struct mount *mp, struct vnode *dir)
{
	struct mount **pp;
	int r;

	if ((r = vfs_mount_check(mp->root, dir)) < 0)
		return r;
	for (pp = &detached; *pp != mp; pp = &(*pp)->next)
		VK_ASSERT(*pp != NULL);
	*pp = mp->next;
	mp->next = NULL;
	mount_link(mp, dir);
	return 0;
}
#endif

struct mount *
vfs_mounts(void)
{
	return mounts;
}

struct vnode *
vfs_root(void)
{
	return root_mount != NULL ? root_mount->root : NULL;
}

struct mount *
vfs_mount_at(const char *path)
{
	struct mount *found = NULL;

	for (struct mount *m = mounts; m != NULL; m = m->next)
		if (m->covered != NULL && strcmp(m->path, path) == 0)
			found = m;
	return found;
}

void
vfs_umount(struct mount *mp)
{
	struct mount **pp, *prev = NULL;

	VK_ASSERT(mp->covered != NULL && mp->covered->covered_by == mp);
	for (pp = &mounts; *pp != mp; pp = &(*pp)->next)
		prev = *pp;
	*pp = mp->next;
	if (mounts_tail == mp)
		mounts_tail = prev;
	mp->covered->covered_by = NULL;
	vnode_rel(mp->covered);
	mp->covered = NULL;
	mp->next = detached;
	detached = mp;
}
