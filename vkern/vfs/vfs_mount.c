/*
 * The mount tables.  Each mount namespace has its own table, a list in
 * the order its mounts were made (a mount on another comes after it, and
 * a move takes a mount and those on it to the end), and its root mount.
 * A directory with file systems mounted on it points at those mounts
 * (covered_by, one per namespace at most, chained by cover_next), and
 * path lookup steps from it to its namespace's.  Each new file system
 * gets its own st_dev number.
 *
 * unshare(CLONE_NEWNS) gives a process a copy of its namespace's table:
 * new mounts of the same roots on the same directories, so that what is
 * mounted or unmounted on either side afterwards is not seen on the
 * other (mount_namespaces(7)).  A file system's own mount (a vnode's
 * mount) stays the one that made it; when it leaves the last table it is
 * kept, as detached, for the files still open on it.
 */
#include <errno.h>
#include <linux/mount.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kern/proc.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_notify.h"
#include "vkern/vk.h"

struct mntns {
	int refs;
	struct mount *mounts, *tail;
	struct mount *root;
	struct mntns *next;     /* on the list of every namespace */
};

/* Boot's, and every process's whose fs state names none. */
static struct mntns init_ns = { .refs = 1 };
static struct mntns *all_ns = &init_ns;
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

void
mount_free(struct mount *mp)
{
	VK_ASSERT(mp->ns == NULL && mp->root->mount != mp);
	vnode_rel(mp->root);
	free(mp->source);
	free(mp->path);
	free(mp);
}

struct mntns *
vfs_ns(const struct proc *p)
{
	return p != NULL && p->fs != NULL && p->fs->mntns != NULL ?
	    p->fs->mntns : &init_ns;
}

struct mount *
vfs_mount_on(const struct mntns *ns, const struct vnode *dir)
{
	struct mount *m;

	for (m = dir->covered_by; m != NULL; m = m->cover_next)
		if (m->ns == ns)
			return m;
	return NULL;
}

static void
cover_link(struct mount *mp, struct vnode *dir)
{
	vnode_ref(dir);
	mp->covered = dir;
	mp->cover_next = dir->covered_by;
	dir->covered_by = mp;
}

static void
cover_unlink(struct mount *mp)
{
	struct mount **pp;

	for (pp = &mp->covered->covered_by; *pp != mp; pp = &(*pp)->cover_next)
		;
	*pp = mp->cover_next;
	vnode_rel(mp->covered);
	mp->covered = NULL;
	mp->cover_next = NULL;
}

static void
ns_append(struct mntns *ns, struct mount *mp)
{
	mp->ns = ns;
	mp->next = NULL;
	if (ns->tail != NULL)
		ns->tail->next = mp;
	else
		ns->mounts = mp;
	ns->tail = mp;
}

static void
ns_remove(struct mntns *ns, struct mount *mp)
{
	struct mount **pp, *prev = NULL;

	for (pp = &ns->mounts; *pp != mp; pp = &(*pp)->next)
		prev = *pp;
	*pp = mp->next;
	if (ns->tail == mp)
		ns->tail = prev;
	mp->next = NULL;
}

int
vfs_mount_check(const struct mntns *ns, struct vnode *root,
    struct vnode *dir)
{
	struct mount *m;

	if (dir->type != VDIR)
		return -ENOTDIR;
	if (vfs_mount_on(ns, dir) != NULL)
		return -EBUSY;
	/*
	 * Lookups step from a directory to what covers it until nothing
	 * does: a bind whose root leads back to dir would never end.
	 */
	for (struct vnode *vn = root; vn != NULL;
	    vn = (m = vfs_mount_on(ns, vn)) != NULL ? m->root : NULL)
		if (vn == dir)
			return -EINVAL;
	return 0;
}

int
vfs_mount(struct mntns *ns, struct mount *mp, struct vnode *dir,
    const char *path)
{
	int r;

	VK_ASSERT(mp->root != NULL);
	if (dir == NULL) {
		if (ns->root != NULL)
			return -EBUSY;
		ns->root = mp;
	} else {
		if ((r = vfs_mount_check(ns, mp->root, dir)) < 0)
			return r;
		mp->parent = vfs_mount_of_path(ns, path);
		cover_link(mp, dir);
	}
	mp->path = strdup(path);
	ns_append(ns, mp);
	return 0;
}

#ifdef VK_TEST_HOOKS
int
vfs_mount_again(struct mount *mp, struct vnode *dir)
{
	struct mount **pp;
	int r;

	if ((r = vfs_mount_check(&init_ns, mp->root, dir)) < 0)
		return r;
	for (pp = &detached; *pp != mp; pp = &(*pp)->next)
		VK_ASSERT(*pp != NULL);
	*pp = mp->next;
	mp->parent = vfs_mount_of_path(&init_ns, mp->path);
	cover_link(mp, dir);
	ns_append(&init_ns, mp);
	return 0;
}

struct mount *
vfs_detached_take(void)
{
	struct mount *list = detached;

	detached = NULL;
	return list;
}
#endif

struct mount *
vfs_mounts(const struct mntns *ns)
{
	return ns->mounts;
}

struct vnode *
vfs_root(void)
{
	return init_ns.root != NULL ? init_ns.root->root : NULL;
}

struct mount *
vfs_mount_at(const struct mntns *ns, const char *path)
{
	struct mount *found = NULL;

	for (struct mount *m = ns->mounts; m != NULL; m = m->next)
		if (m->covered != NULL && strcmp(m->path, path) == 0)
			found = m;
	return found;
}

/*
 * Without a mount at path (a chrooted walk's paths are not the table's),
 * a file system's root is taken for the root of the mount last made of
 * it; any other directory for no mount's.
 */
struct mount *
vfs_mount_rooted(const struct mntns *ns, const struct vnode *vn,
    const char *path)
{
	struct mount *at = NULL, *any = NULL;

	for (struct mount *m = ns->mounts; m != NULL; m = m->next) {
		if (m->root != vn)
			continue;
		any = m;
		if (strcmp(m->path, path) == 0)
			at = m;
	}
	if (at != NULL)
		return at;
	return vn->mount != NULL && vn == vn->mount->root ? any : NULL;
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
vfs_mount_of_path(const struct mntns *ns, const char *path)
{
	struct mount *found = ns->root;
	size_t best = 0;

	for (struct mount *m = ns->mounts; m != NULL; m = m->next) {
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
vfs_path_writable(const struct mntns *ns, const char *path)
{
	const struct mount *mp = vfs_mount_of_path(ns, path);

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

/* Whether m is mp or on it: made after it, at or below its path. */
static bool
mount_on(const struct mount *m, const struct mount *mp, bool after)
{
	return after && (mp->covered == NULL ||
	    vfs_path_below(m->path, mp->path));
}

/*
 * The mounts made on mp after it, stacked on it or below its mount
 * point, are on it and go with it, in their order, to the end of the
 * table (they are on what they cover there); those made before are
 * below it and stay.
 */
void
vfs_mount_move(struct mount *mp, struct vnode *dir, const char *path)
{
	struct mntns *ns = mp->ns;
	struct mount *m, *next, *moved = NULL, **tail = &moved;
	char *old = mp->path;
	size_t n = strlen(old);
	bool after = false;

	VK_ASSERT(mp->covered != NULL && vfs_mount_on(ns, dir) == NULL);
	cover_unlink(mp);
	mp->parent = vfs_mount_of_path(ns, path);
	cover_link(mp, dir);
	for (m = ns->mounts; m != NULL; m = next) {
		next = m->next;
		after = after || m == mp;
		if (!mount_on(m, mp, after))
			continue;
		if (m != mp) {
			char *s = vfs_path_rebase(m->path, n, path);

			free(m->path);
			m->path = s;
		}
		ns_remove(ns, m);
		*tail = m;
		tail = &m->next;
	}
	for (m = moved; m != NULL; m = next) {
		next = m->next;
		ns_append(ns, m);
	}
	mp->path = strdup(path);
	free(old);
}

void
vfs_mount_set_propagation(struct mount *mp, unsigned long type)
{
	bool after = false;

	for (struct mount *m = mp->ns->mounts; m != NULL; m = m->next) {
		after = after || m == mp;
		if (mount_on(m, mp, after))
			m->propagation = type;
	}
}

bool
vfs_mount_tree_has(const struct mount *mp, unsigned long type)
{
	bool after = false;

	for (struct mount *m = mp->ns->mounts; m != NULL; m = m->next) {
		after = after || m == mp;
		if (mount_on(m, mp, after) && m->propagation == type)
			return true;
	}
	return false;
}

/* Whether a mount of any namespace still shows the files of fs. */
static bool
vfs_fs_shown(const struct mount *fs)
{
	for (const struct mntns *ns = all_ns; ns != NULL; ns = ns->next)
		for (const struct mount *m = ns->mounts; m != NULL;
		    m = m->next)
			if (m->root->mount == fs)
				return true;
	return false;
}

/*
 * Take mp out of its table.  When no mount shows its file system any
 * more, that file system is unmounted for its watchers (Linux: its
 * superblock shuts down).  XXX: for MNT_DETACH with files still open
 * Linux waits for their last close; here it is at once.
 */
void
vfs_umount(struct mount *mp)
{
	VK_ASSERT(mp->covered != NULL &&
	    vfs_mount_on(mp->ns, mp->covered) == mp);
	ns_remove(mp->ns, mp);
	cover_unlink(mp);
	mp->ns = NULL;
	mp->parent = NULL;      /* which may go with its namespace */
	mp->next = detached;
	detached = mp;
	if (!vfs_fs_shown(mp->root->mount))
		vnotify_unmount(mp->root->mount);
}

/*
 * A copy of ns's table: each mount the same root on the same directory
 * at the same path, with the same flags and propagation type, and its
 * parent the copy of the parent.
 */
static struct mntns *
mntns_copy(const struct mntns *ns)
{
	struct mntns *c = vk_xcalloc(1, sizeof(*c));
	struct mount *m, *d, *pm, *pd;

	c->refs = 1;
	c->next = all_ns;
	all_ns = c;
	for (m = ns->mounts; m != NULL; m = m->next) {
		d = mount_dup(m->root->mount, m->root);
		free(d->source);
		d->source = strdup(m->source);
		d->flags = m->flags;
		d->propagation = m->propagation;
		d->path = strdup(m->path);
		if (m->covered != NULL)
			cover_link(d, m->covered);
		else
			c->root = d;
		ns_append(c, d);
	}
	/* Both lists are in the same order. */
	for (m = ns->mounts, d = c->mounts; m != NULL;
	    m = m->next, d = d->next)
		for (pm = ns->mounts, pd = c->mounts; pm != NULL;
		    pm = pm->next, pd = pd->next)
			if (pm == m->parent)
				d->parent = pd;
	return c;
}

void
mntns_ref(struct mntns *ns)
{
	ns->refs++;
}

/*
 * The last reference gone: every mount leaves the table; a file
 * system's own mount is kept, detached, for its vnodes, the others go.
 */
void
mntns_rel(struct mntns *ns)
{
	struct mount *m, *next;

	if (--ns->refs > 0)
		return;
	VK_ASSERT(ns != &init_ns);
	for (struct mntns **q = &all_ns; *q != NULL; q = &(*q)->next)
		if (*q == ns) {
			*q = ns->next;
			break;
		}
	for (m = ns->mounts; m != NULL; m = next) {
		next = m->next;
		if (m->covered != NULL)
			cover_unlink(m);
		m->ns = NULL;
		m->parent = NULL;
		if (m->root->mount == m) {
			m->next = detached;
			detached = m;
			continue;
		}
		mount_free(m);
	}
	free(ns);
}

struct mntns *
mntns_next(const struct mntns *ns)
{
	return ns == NULL ? all_ns : ns->next;
}

void
mntns_unshare(struct mntns **nsp)
{
	struct mntns *ns = *nsp != NULL ? *nsp : &init_ns;

	*nsp = mntns_copy(ns);
	if (ns != &init_ns)
		mntns_rel(ns);
}
