/*
 * The mount table.  Mounts form a tree under the root mount; a directory
 * with a file system mounted on it points at that mount (covered_by), and
 * path lookup steps from one to the other.  Each mount gets its own
 * st_dev number.
 */
#include <errno.h>
#include <linux/mount.h>
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

struct mount *
mount_dup(const struct mount *fs, struct vnode *root)
{
	struct mount *mp = mount_alloc(fs->fstype, fs->source, fs->rdonly);

	mp->dev = fs->dev;
	mp->magic = fs->magic;
	mp->ncache = fs->ncache;
	mp->hostowners = fs->hostowners;
	mp->ro_locked = fs->ro_locked;
	mp->flags = fs->flags;
	vnode_ref(root);
	mp->root = root;
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

int
vfs_mount(struct mount *mp, struct vnode *dir, const char *path)
{
	int r;

	VK_ASSERT(mp->root != NULL);
	if (dir == NULL) {
		if (root_mount != NULL)
			return -EBUSY;
		root_mount = mp;
	} else {
		if ((r = vfs_mount_check(mp->root, dir)) < 0)
			return r;
		vnode_ref(dir);
		mp->covered = dir;
		mp->parent = vfs_mount_of_path(path);
		dir->covered_by = mp;
	}
	mp->path = strdup(path);
	if (mounts_tail != NULL)
		mounts_tail->next = mp;
	else
		mounts = mp;
	mounts_tail = mp;
	return 0;
}

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

/* Whether path is at or below the mount point mp_path. */
bool
vfs_path_below(const char *path, const char *mp_path)
{
	size_t n = strlen(mp_path);

	if (strcmp(mp_path, "/") == 0)
		return path != NULL && path[0] == '/';
	return path != NULL && strncmp(path, mp_path, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

struct mount *
vfs_mount_of_path(const char *path)
{
	struct mount *found = root_mount;
	size_t best = 0;

	for (struct mount *m = mounts; m != NULL; m = m->next) {
		size_t n = strlen(m->path);

		if (m->covered != NULL && n >= best &&
		    vfs_path_below(path, m->path)) {
			found = m;
			best = n;
		}
	}
	return found;
}

int
vfs_path_writable(const char *path)
{
	const struct mount *mp = vfs_mount_of_path(path);

	return mp != NULL && (mp->flags & MS_RDONLY) ? -EROFS : 0;
}

/* newp, then what path has beyond its first n bytes: a new string. */
char *
vfs_path_rebase(const char *path, size_t n, const char *newp)
{
	size_t len = strlen(newp), rest = strlen(path + n);
	char *s = vk_xcalloc(1, len + rest + 2);

	memcpy(s, newp, len);
	/* "/" and "x" is "/x", not "//x". */
	if (len == 1 && rest > 0)
		len = 0;
	memcpy(s + len, path + n, rest + 1);
	return s;
}

/*
 * The mounts made on mp after it, stacked on it or below its mount
 * point, are on it and go with it; those made before are below it.
 */
void
vfs_mount_move(struct mount *mp, struct vnode *dir, const char *path)
{
	char *old = mp->path;
	size_t n = strlen(old);
	bool after = false;

	VK_ASSERT(mp->covered != NULL && dir->covered_by == NULL);
	mp->covered->covered_by = NULL;
	vnode_rel(mp->covered);
	vnode_ref(dir);
	mp->covered = dir;
	mp->parent = vfs_mount_of_path(path);
	dir->covered_by = mp;
	for (struct mount *m = mounts; m != NULL; m = m->next) {
		if (m == mp)
			after = true;
		else if (after && vfs_path_below(m->path, old)) {
			char *s = vfs_path_rebase(m->path, n, path);

			free(m->path);
			m->path = s;
		}
	}
	mp->path = strdup(path);
	free(old);
}

/* Whether m is mp or on it: made after it, at or below its path. */
static bool
mount_on(const struct mount *m, const struct mount *mp, bool after)
{
	return after && (mp->covered == NULL ||
	    vfs_path_below(m->path, mp->path));
}

void
vfs_mount_set_propagation(struct mount *mp, unsigned long type)
{
	bool after = false;

	for (struct mount *m = mounts; m != NULL; m = m->next) {
		after = after || m == mp;
		if (mount_on(m, mp, after))
			m->propagation = type;
	}
}

bool
vfs_mount_tree_has(const struct mount *mp, unsigned long type)
{
	bool after = false;

	for (struct mount *m = mounts; m != NULL; m = m->next) {
		after = after || m == mp;
		if (mount_on(m, mp, after) && m->propagation == type)
			return true;
	}
	return false;
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
