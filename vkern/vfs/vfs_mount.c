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
 * mount) stays the one that made it; when it leaves its table it is kept,
 * as detached, while files, working directories, lookups or other mounts
 * hold vnodes of its file system, and freed with the file system once
 * none does.  Other mounts are freed as they leave their tables.  Each
 * namespace has the inode number that /proc/PID/ns/mnt shows (nsfs.c).
 *
 * Mounts, their names and a namespace's copies are charged to the
 * sandbox (KM_FS), so that a guest that keeps mounts alive runs out of
 * --mem, not vkernel out of the host's memory.
 */
#include <errno.h>
#include <linux/mount.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/vfs/nsfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_mount_impl.h"
#include "vkern/vfs/vfs_notify.h"
#include "vkern/vk.h"

/* Boot's, and every process's whose fs state names none. */
static struct mntns init_ns = { .refs = 1, .ino = NSFS_INO_MNT };
static uint64_t next_ns_ino = NSFS_INO_NEXT;
static struct mntns *all_ns = &init_ns;
/* Unmounted, kept while what holds them does. */
static LIST_HEAD(, mount) detached = LIST_HEAD_INITIALIZER(detached);
static struct mount *reap_list; /* file systems that may be unused */
static uint64_t next_dev = 0x20;
static int next_id;
int mount_max = VFS_MOUNT_MAX;

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
mount_alloc(const char *fstype, const char *source, bool rdonly,
    int kmflags)
{
	struct mount *mp = kmem_alloc(sizeof(*mp), KM_ZERO | KM_FS | kmflags);

	if (mp == NULL)
		return NULL;
	mp->fstype = fstype;
	mount_set_source(mp, source != NULL ? source : fstype);
	mp->rdonly = rdonly;
	mp->magic = fs_magic(fstype);
	mp->dev = next_dev++;
	mp->id = next_id++;
	return mp;
}

struct mount *
mount_dup(const struct mount *fs, struct vnode *root)
{
	struct mount *mp = mount_alloc(fs->fstype, fs->source, fs->rdonly, 0);

	if (mp == NULL)
		return NULL;
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
	mount_destroy(mp);
}

void
mount_destroy(struct mount *mp)
{
	VK_ASSERT(mp->ns == NULL && !mp->detached && !mp->reap_queued);
	kmem_strfree(mp->source, KM_FS);
	kmem_strfree(mp->path, KM_FS);
	kmem_free(mp, sizeof(*mp), KM_FS);
}

void
mount_destroy_root(struct mount *mp)
{
	vnode_rel(mp->root);
	mp->root = NULL;
	mount_destroy(mp);
}

/*
 * Names are charged past the limit: the mount they go with was refused
 * when the sandbox was full, and each is a page at the most.
 */
void
mount_set_path(struct mount *mp, const char *s)
{
	kmem_strfree(mp->path, KM_FS);
	mp->path = kmem_strdup(s, KM_FS | KM_FORCE);
}

void
mount_set_source(struct mount *mp, const char *s)
{
	kmem_strfree(mp->source, KM_FS);
	mp->source = kmem_strdup(s, KM_FS | KM_FORCE);
}

struct mntns *
vfs_ns(const struct proc *p)
{
	return p != NULL && p->fs != NULL && p->fs->mntns != NULL ?
	    p->fs->mntns : &init_ns;
}

/*
 * The mounts on a directory in the mount that shows it, hashed by both,
 * as Linux's mount hash: a directory of a file system bound many times
 * over is a mount point in each bind, and finding the one a lookup
 * crosses, or the copy of a tree's mount, must not walk them all.
 */
#define COVER_HASH_SIZE 16384
static struct mount *cover_hash[COVER_HASH_SIZE];

static struct mount **
cover_bucket(const struct mount *parent, const struct vnode *dir)
{
	uint64_t h = (uint64_t)(uintptr_t)parent * 0x9e3779b97f4a7c15ULL ^
	    (uint64_t)(uintptr_t)dir * 0xc2b2ae3d27d4eb4fULL;

	return &cover_hash[(h >> 32) % COVER_HASH_SIZE];
}

static void
cover_hash_add(struct mount *mp)
{
	struct mount **b = cover_bucket(mp->parent, mp->covered);

	mp->hash_next = *b;
	*b = mp;
	if (mp->parent != NULL)
		mp->parent->nkids++;
}

static void
cover_hash_remove(struct mount *mp)
{
	struct mount **pp;

	for (pp = cover_bucket(mp->parent, mp->covered); *pp != mp;
	    pp = &(*pp)->hash_next)
		;
	*pp = mp->hash_next;
	mp->hash_next = NULL;
	if (mp->parent != NULL)
		mp->parent->nkids--;
}

void
mount_set_parent(struct mount *mp, struct mount *parent)
{
	if (mp->covered != NULL)
		cover_hash_remove(mp);
	mp->parent = parent;
	if (mp->covered != NULL)
		cover_hash_add(mp);
}

struct mount *
vfs_mount_on(const struct mntns *ns, const struct mount *at,
    const struct vnode *dir)
{
	struct mount *m;

	if (at == NULL) {
		for (m = dir->covered_by; m != NULL; m = m->cover_next)
			if (m->ns == ns)
				return m;
		return NULL;
	}
	for (m = *cover_bucket(at, dir); m != NULL; m = m->hash_next)
		if (m->parent == at && m->covered == dir && m->ns == ns)
			return m;
	return NULL;
}

struct mount *
vfs_mount_showing(const struct mntns *ns, const struct vnode *vn,
    const char *path)
{
	struct mount *rooted = NULL, *above = NULL;
	size_t best = 0;

	for (struct mount *m = ns->mounts; m != NULL; m = m->next) {
		size_t n = strlen(m->path);

		if (m->covered == NULL && m != ns->root)
			continue;
		if (m->root == vn && strcmp(m->path, path) == 0)
			rooted = m;
		if (m->root->mount == vn->mount && n >= best &&
		    vfs_path_below(path, m->path)) {
			above = m;
			best = n;
		}
	}
	return rooted != NULL ? rooted : above;
}

/* vfs_mount_holding(), given showing, the mount showing the directory. */
static struct mount *
mount_holding(const struct mntns *ns, struct mount *showing,
    const char *path)
{
	return showing != NULL ? showing : vfs_mount_of_path(ns, path);
}

struct mount *
vfs_mount_holding(const struct mntns *ns, const struct vnode *vn,
    const char *path)
{
	return mount_holding(ns, vfs_mount_showing(ns, vn, path), path);
}

void
cover_link(struct mount *mp, struct vnode *dir)
{
	vnode_ref(dir);
	mp->covered = dir;
	mp->cover_next = dir->covered_by;
	dir->covered_by = mp;
	cover_hash_add(mp);
}

void
cover_unlink(struct mount *mp)
{
	struct mount **pp;

	cover_hash_remove(mp);
	for (pp = &mp->covered->covered_by; *pp != mp; pp = &(*pp)->cover_next)
		;
	*pp = mp->cover_next;
	vnode_rel(mp->covered);
	mp->covered = NULL;
	mp->cover_next = NULL;
}

void
ns_append(struct mntns *ns, struct mount *mp)
{
	mp->ns = ns;
	mp->next = NULL;
	mp->prev = ns->tail;
	if (ns->tail != NULL)
		ns->tail->next = mp;
	else
		ns->mounts = mp;
	ns->tail = mp;
	ns->nmounts++;
	mp->root->mount->nshown++;
}

void
ns_remove(struct mntns *ns, struct mount *mp)
{
	if (mp->prev != NULL)
		mp->prev->next = mp->next;
	else
		ns->mounts = mp->next;
	if (mp->next != NULL)
		mp->next->prev = mp->prev;
	else
		ns->tail = mp->prev;
	mp->next = mp->prev = NULL;
	ns->nmounts--;
	mp->root->mount->nshown--;
}

int
vfs_mount_room(const struct mntns *ns)
{
	return ns->nmounts >= mount_max ? -ENOSPC : 0;
}

/* vfs_mount_check(), with showing the mount that shows dir (or NULL). */
static int
mount_check_in(const struct mntns *ns, struct mount *showing,
    const struct vnode *dir)
{
	if (dir->type != VDIR)
		return -ENOTDIR;
	if (vfs_mount_on(ns, showing, dir) != NULL)
		return -EBUSY;
	return 0;
}

int
vfs_mount_check(const struct mntns *ns, const struct vnode *dir,
    const char *path)
{
	return mount_check_in(ns, vfs_mount_showing(ns, dir, path), dir);
}

/*
 * vfs_mount_check() of directory dir at path, and in *parentp the mount
 * a new mount there goes on: the table walked once for both.
 */
static int
mount_place(const struct mntns *ns, const struct vnode *dir,
    const char *path, struct mount **parentp)
{
	struct mount *showing = vfs_mount_showing(ns, dir, path);
	int r;

	if ((r = mount_check_in(ns, showing, dir)) == 0)
		*parentp = mount_holding(ns, showing, path);
	return r;
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
		struct mount *parent;

		if ((r = mount_place(ns, dir, path, &parent)) < 0 ||
		    (r = vfs_mount_room(ns)) < 0)
			return r;
		mp->parent = parent;
		cover_link(mp, dir);
	}
	mount_set_path(mp, path);
	ns_append(ns, mp);
	return 0;
}

/* Put mp, just out of its table, on the list of the detached. */
static void
detached_add(struct mount *mp)
{
	mp->detached = true;
	LIST_INSERT_HEAD(&detached, mp, dlink);
}

static void
detached_remove(struct mount *mp)
{
	LIST_REMOVE(mp, dlink);
	mp->detached = false;
}

#ifdef VK_TEST_HOOKS
void
vfs_mount_max_set(int max)
{
	mount_max = max;
}

int
vfs_mount_again(struct mount *mp, struct vnode *dir)
{
	struct mount *parent;
	int r;

	VK_ASSERT(mp->kept && mp->detached);
	if ((r = mount_place(&init_ns, dir, mp->path, &parent)) < 0)
		return r;
	detached_remove(mp);
	mp->parent = parent;
	cover_link(mp, dir);
	ns_append(&init_ns, mp);
	return 0;
}

struct mount *
vfs_detached_first(void)
{
	return LIST_FIRST(&detached);
}
#endif

struct mount *
vfs_mounts(const struct mntns *ns)
{
	return ns->mounts;
}

struct mount *
vfs_mounts_last(const struct mntns *ns)
{
	return ns->tail;
}

int
vfs_mount_count(const struct mntns *ns)
{
	return ns->nmounts;
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
	size_t n = strlen(mp->path);
	bool after = false;

	VK_ASSERT(mp->covered != NULL);
	cover_unlink(mp);
	mp->parent = vfs_mount_holding(ns, dir, path);
	cover_link(mp, dir);
	for (m = ns->mounts; m != NULL; m = next) {
		next = m->next;
		after = after || m == mp;
		if (!mount_on(m, mp, after))
			continue;
		if (m != mp) {
			char *s = vfs_path_rebase(m->path, n, path);

			mount_set_path(m, s);
			free(s);
		}
		ns_remove(ns, m);
		*tail = m;
		tail = &m->next;
	}
	for (m = moved; m != NULL; m = next) {
		next = m->next;
		ns_append(ns, m);
	}
	mount_set_path(mp, path);
}

void
vfs_mount_set_propagation(struct mount *mp, unsigned long type, bool rec)
{
	bool after = false;

	if (!rec) {
		vfs_propagation_make(mp, type);
		return;
	}
	for (struct mount *m = mp->ns->mounts; m != NULL; m = m->next) {
		after = after || m == mp;
		if (mount_on(m, mp, after))
			vfs_propagation_make(m, type);
	}
}

bool
vfs_mount_tree_unbindable(const struct mount *mp)
{
	bool after = false;

	for (struct mount *m = mp->ns->mounts; m != NULL; m = m->next) {
		after = after || m == mp;
		if (mount_on(m, mp, after) && m->unbindable)
			return true;
	}
	return false;
}

struct mntns *
mntns_next(const struct mntns *ns)
{
	return ns == NULL ? all_ns : ns->next;
}

/* Whether a mount of any namespace still shows the files of fs. */
static bool
vfs_fs_shown(const struct mount *fs)
{
	return fs->nshown > 0;
}

/*
 * Whether nothing holds file system fs any more: its mount is out of
 * every table, no mount shows its files, and of its vnodes only the root
 * is left, held by the mount alone.
 */
static bool
vfs_fs_unused(const struct mount *fs)
{
	return fs->detached && !fs->kept && fs->fs_free != NULL &&
	    fs->vnodes == 1 && fs->root->refs == 1 && !vfs_fs_shown(fs);
}

void
vfs_fs_maybe_unused(struct mount *fs)
{
	if (fs->reap_queued)
		return;
	fs->reap_queued = true;
	fs->reap_next = reap_list;
	reap_list = fs;
}

/*
 * Freeing a file system lets its root go, which is a vnode_rel() that
 * comes back here: each is taken off the list before it is looked at.
 */
void
vfs_fs_reap(void)
{
	struct mount *fs;

	while ((fs = reap_list) != NULL) {
		reap_list = fs->reap_next;
		fs->reap_queued = false;
		if (!vfs_fs_unused(fs))
			continue;
		detached_remove(fs);
		fs->fs_free(fs);
	}
}

/*
 * What was mounted on mp and stays in the table keeps a parent that
 * exists: mp's.  (mount_busy() and MNT_DETACH find the mounts on mp by
 * their paths, which a move or a bind may have made differ from where
 * each was made.)
 */
static void
mount_reparent(const struct mntns *ns, struct mount *mp)
{
	for (struct mount *m = ns->mounts; m != NULL && mp->nkids > 0;
	    m = m->next)
		if (m->parent == mp)
			mount_set_parent(m, mp->parent);
}

/*
 * Take mp out of its table.  When no mount shows its file system any
 * more, that file system is unmounted for its watchers (Linux: its
 * superblock shuts down), at once or, while files are open on it (after
 * MNT_DETACH), at the last one's close, as Linux.  XXX: Linux also waits
 * for a working directory or a mapping in it; here only open files
 * count.  The struct of a file system's own mount stays until the file
 * system goes; any other's goes now, which may be the last hold on its
 * file system's root.
 */
void
vfs_umount(struct mount *mp)
{
	struct mount *fs = mp->root->mount;

	VK_ASSERT(mp->covered != NULL);
	ns_remove(mp->ns, mp);
	cover_unlink(mp);
	mount_reparent(mp->ns, mp);
	mp->ns = NULL;
	mp->parent = NULL;
	if (fs->opens > 0)
		fs->unmount_pending = true;
	else
		vfs_fs_idle(fs);
	if (mp != fs && !mp->kept) {
		mount_free(mp);
		return;
	}
	detached_add(mp);
	if (mp == fs) {
		vfs_fs_maybe_unused(fs);
		vfs_fs_reap();
	}
}

void
vfs_fs_idle(struct mount *fs)
{
	fs->unmount_pending = false;
	if (!vfs_fs_shown(fs))
		vnotify_unmount(fs);
}

struct mntns *
mntns_new(void)
{
	struct mntns *c = kmem_alloc(sizeof(*c), KM_ZERO | KM_FS);

	if (c == NULL)
		return NULL;
	c->refs = 1;
	c->ino = next_ns_ino++;
	c->next = all_ns;
	all_ns = c;
	return c;
}

void
mntns_ref(struct mntns *ns)
{
	ns->refs++;
}

uint64_t
mntns_ino(const struct mntns *ns)
{
	return ns->ino;
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
	/* Off their directories first, while every parent is there. */
	for (m = ns->mounts; m != NULL; m = m->next)
		if (m->covered != NULL)
			cover_unlink(m);
	for (m = ns->mounts; m != NULL; m = next) {
		next = m->next;
		ns_remove(ns, m);
		m->ns = NULL;
		m->parent = NULL;
		if (m->root->mount != m) {
			mount_free(m);
			continue;
		}
		detached_add(m);
		vfs_fs_maybe_unused(m);
	}
	kmem_free(ns, sizeof(*ns), KM_FS);
	vfs_fs_reap();
}

void
mntns_install(struct mntns **nsp, struct mntns *ns)
{
	struct mntns *old = *nsp;

	*nsp = ns;
	if (old != NULL)
		mntns_rel(old);
}

void
mntns_enter(struct mntns **nsp, struct mntns *ns, struct vnode **rootp)
{
	struct mntns *old = *nsp;

	if (ns != &init_ns)
		mntns_ref(ns);
	*nsp = ns != &init_ns ? ns : NULL;
	if (old != NULL)
		mntns_rel(old);
	*rootp = ns->root->root;
	vnode_ref(*rootp);
}
