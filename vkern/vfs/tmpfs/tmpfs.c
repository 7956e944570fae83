/*
 * tmpfs: an in-memory tree of nodes.
 *
 * Each file is a struct tmpfs_node on the kernel heap.  A node lives while
 * a directory entry names it (nlink > 0) or a vnode stands for it; the
 * last of the two to go frees it, which is how an unlinked file that is
 * still open keeps its data until the last close.  There is at most one
 * vnode per node (node->vnode), made on demand by lookup and create and
 * forgotten by inactive.
 *
 * A directory keeps its entries twice: in an array sorted by a sequence
 * number that only grows (readdir's order, and its cookie), and in a hash
 * table by name (lookup).  Because cookies are sequence numbers rather
 * than positions, a walk resumed after entries were added or removed
 * neither repeats nor skips the entries that stayed.
 *
 * The data of regular files is tmpfs_file.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/tmpfs/tmpfs_impl.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"
#include "vkern/vm/vm_ram.h"

#define TMPFS_NAME_MAX    255          /* Linux's NAME_MAX */
#define TMPFS_SYMLINK_MAX 4095         /* PATH_MAX less the NUL */
#define TMPFS_BOGO_DIRENT 20           /* Linux shmem's dir size unit */
#define TMPFS_DAY_NS      (86400LL * 1000000000LL)

/* The first cookie after "." (1) and ".." (2) is an entry's seq + 1. */
#define TMPFS_FIRST_SEQ 2

/* What a rename works on, once looked up. */
struct tmpfs_rename {
	struct tmpfs_node *fdir, *tdir;
	struct tmpfs_dirent *fde, *tde; /* tde is NULL when "to" is absent */
	const char *to;
	size_t tolen;
	unsigned flags;
};

static const struct vnode_ops tmpfs_vnops;

static void node_free(struct tmpfs_node *np);

int64_t
tmpfs_now(void)
{
	return plat_clock_ns(CLOCK_REALTIME);
}

static bool
node_isdir(const struct tmpfs_node *np)
{
	return S_ISDIR(np->mode);
}

/*
 * The length of a name to look up or make, or -errno as Linux gives it:
 * ENOENT for "", ENAMETOOLONG beyond NAME_MAX.  A '/' is a VFS bug that
 * must still not make a file no path can reach.
 */
static long
name_check(const char *name)
{
	size_t len;

	if (name == NULL)
		return -EINVAL;
	len = strnlen(name, TMPFS_NAME_MAX + 1);
	if (len == 0)
		return -ENOENT;
	if (len > TMPFS_NAME_MAX)
		return -ENAMETOOLONG;
	if (memchr(name, '/', len) != NULL)
		return -EINVAL;
	return (long)len;
}

static bool
name_is_dot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* FNV-1a: short names, no adversary worth a keyed hash here. */
static uint32_t
name_hash(const char *name, size_t len)
{
	uint32_t h = 2166136261U;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 16777619U;
	}
	return h;
}

/*
 * --- Directory entries ---
 */

/* Index of the first entry whose seq is at least seq. */
static size_t
dir_index(const struct tmpfs_dir *d, uint64_t seq)
{
	size_t lo = 0, hi = d->nents;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->ents[mid]->seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
dir_hash_insert(struct tmpfs_dir *d, struct tmpfs_dirent *de)
{
	size_t b = de->hash & (d->hsize - 1);

	de->hnext = d->htab[b];
	d->htab[b] = de;
}

static void
dir_hash_remove(struct tmpfs_dir *d, struct tmpfs_dirent *de)
{
	struct tmpfs_dirent **pp = &d->htab[de->hash & (d->hsize - 1)];

	while (*pp != de) {
		VK_ASSERT(*pp != NULL);
		pp = &(*pp)->hnext;
	}
	*pp = de->hnext;
}

/* Double the buckets, keeping chains about one entry long. */
static int
dir_hash_grow(struct tmpfs_dir *d)
{
	size_t hsize = d->hsize == 0 ? 8 : d->hsize * 2;
	struct tmpfs_dirent **htab = kmem_alloc(hsize * sizeof(*htab),
	    KM_ZERO | KM_FS);

	if (htab == NULL)
		return -ENOSPC;
	kmem_free(d->htab, d->hsize * sizeof(*d->htab), KM_FS);
	d->htab = htab;
	d->hsize = hsize;
	for (size_t i = 0; i < d->nents; i++)
		dir_hash_insert(d, d->ents[i]);
	return 0;
}

static struct tmpfs_dirent *
dir_find(const struct tmpfs_dir *d, const char *name, size_t len)
{
	uint32_t h;

	if (d->hsize == 0)
		return NULL;
	h = name_hash(name, len);
	for (struct tmpfs_dirent *de = d->htab[h & (d->hsize - 1)];
	    de != NULL; de = de->hnext)
		if (de->hash == h && de->namelen == len &&
		    memcmp(de->name, name, len) == 0)
			return de;
	return NULL;
}

/*
 * An entry naming np, not yet in a directory, or NULL when the sandbox's
 * memory is full.  Names and entries are charged to it, as Linux charges
 * dentries to the memory cgroup.
 */
static struct tmpfs_dirent *
dirent_new(const char *name, size_t len, struct tmpfs_node *np)
{
	struct tmpfs_dirent *de = kmem_alloc(sizeof(*de), KM_ZERO | KM_FS);

	if (de == NULL)
		return NULL;
	if ((de->name = kmem_alloc(len + 1, KM_FS)) == NULL) {
		kmem_free(de, sizeof(*de), KM_FS);
		return NULL;
	}
	memcpy(de->name, name, len);
	de->name[len] = '\0';
	de->namelen = len;
	de->hash = name_hash(name, len);
	de->node = np;
	return de;
}

static void
dirent_free(struct tmpfs_dirent *de)
{
	kmem_free(de->name, de->namelen + 1, KM_FS);
	kmem_free(de, sizeof(*de), KM_FS);
}

/* Room in d for one more entry: 0, or -ENOSPC. */
static int
dir_reserve(struct tmpfs_dir *d)
{
	size_t cap = d->cap == 0 ? 8 : d->cap * 2;
	struct tmpfs_dirent **ents;

	if (d->nents >= d->hsize && dir_hash_grow(d) < 0)
		return -ENOSPC;
	if (d->nents < d->cap)
		return 0;
	ents = kmem_realloc(d->ents, d->cap * sizeof(*d->ents),
	    cap * sizeof(*d->ents), KM_FS);
	if (ents == NULL)
		return -ENOSPC;
	d->ents = ents;
	d->cap = cap;
	return 0;
}

/* Append de to d, which has room for it (dir_reserve). */
static void
dir_insert(struct tmpfs_dir *d, struct tmpfs_dirent *de)
{
	de->seq = d->next_seq++;
	d->ents[d->nents++] = de;
	dir_hash_insert(d, de);
}

/* Append an entry for np: 0 or -ENOSPC; the caller accounts for the link. */
static int
dir_add(struct tmpfs_dir *d, const char *name, size_t len,
    struct tmpfs_node *np)
{
	struct tmpfs_dirent *de;

	if (dir_reserve(d) < 0 || (de = dirent_new(name, len, np)) == NULL)
		return -ENOSPC;
	dir_insert(d, de);
	return 0;
}

/* Drop an entry; the caller accounts for the link. */
static void
dir_del(struct tmpfs_dir *d, struct tmpfs_dirent *de)
{
	size_t i = dir_index(d, de->seq);

	VK_ASSERT(i < d->nents && d->ents[i] == de);
	memmove(&d->ents[i], &d->ents[i + 1],
	    (d->nents - i - 1) * sizeof(*d->ents));
	d->nents--;
	dir_hash_remove(d, de);
	dirent_free(de);
}

/*
 * Rename in place, to the name nde holds: the entry keeps its seq, so a
 * walk sees it once.  nde goes, with the old name.
 */
static void
dir_rename_entry(struct tmpfs_dir *d, struct tmpfs_dirent *de,
    struct tmpfs_dirent *nde)
{
	struct tmpfs_dirent old = *de;

	dir_hash_remove(d, de);
	de->name = nde->name;
	de->namelen = nde->namelen;
	de->hash = nde->hash;
	dir_hash_insert(d, de);
	nde->name = old.name;
	nde->namelen = old.namelen;
	dirent_free(nde);
}

/*
 * --- Nodes and their vnodes ---
 */

/*
 * Whether fs may take one more node, or one more name of a file that
 * has one: nr_inodes= counts both, as Linux's shmem_link() charges each
 * hard link an inode.
 */
static bool
fs_name_room(const struct tmpfs_fs *fs)
{
	return fs->max_nodes == 0 || fs->nnodes + fs->nextra < fs->max_nodes;
}

static bool
symlink_takes_page(const char *target)
{
	return strlen(target) + 1 > TMPFS_SYMLINK_PAGE;
}

static struct tmpfs_node *
node_make(struct tmpfs_fs *fs, uint32_t mode, uint64_t rdev,
    const char *target, uint32_t uid, uint32_t gid)
{
	bool page = S_ISLNK(mode) && symlink_takes_page(target);
	struct tmpfs_node *np;

	if (!fs_name_room(fs) || (page && !tmpfs_fs_room(fs, 1)))
		return NULL;
	if ((np = kmem_alloc(sizeof(*np), KM_ZERO | KM_FS)) == NULL)
		return NULL;
	if (S_ISLNK(mode) && (np->target = kmem_strdup(target, KM_FS)) ==
	    NULL) {
		kmem_free(np, sizeof(*np), KM_FS);
		return NULL;
	}
	if (page)
		tmpfs_fs_count(fs, 1);
	np->fs = fs;
	np->ino = fs->next_ino++;
	fs->nnodes++;
	np->mode = mode;
	np->uid = uid;
	np->gid = gid;
	np->atime = np->mtime = np->ctime = np->btime = tmpfs_now();
	if (S_ISCHR(mode) || S_ISBLK(mode))
		np->rdev = rdev;
	if (S_ISDIR(mode))
		np->dir.next_seq = TMPFS_FIRST_SEQ;
	/* Linux's shmem files can take no seals but memfds. */
	if (S_ISREG(mode))
		np->reg.seals = F_SEAL_SEAL;
	if (S_ISLNK(mode))
		np->size = strlen(target);
	return np;
}

static void
node_free(struct tmpfs_node *np)
{
	VK_ASSERT(np->vnode == NULL && np->nlink == 0);
	if (S_ISREG(np->mode))
		tmpfs_file_free(&np->reg);
	if (S_ISDIR(np->mode)) {
		VK_ASSERT(np->dir.nents == 0);
		kmem_free(np->dir.ents, np->dir.cap * sizeof(*np->dir.ents),
		    KM_FS);
		kmem_free(np->dir.htab, np->dir.hsize *
		    sizeof(*np->dir.htab), KM_FS);
	}
	if (S_ISLNK(np->mode)) {
		if (symlink_takes_page(np->target))
			tmpfs_fs_count(np->fs, -1);
		kmem_strfree(np->target, KM_FS);
	}
	np->fs->nnodes--;
	kmem_free(np, sizeof(*np), KM_FS);
}

/* Free a node that neither a name nor a vnode holds any more. */
static void
node_release_if_dead(struct tmpfs_node *np)
{
	if (np->nlink == 0 && np->vnode == NULL)
		node_free(np);
}

/* The node's vnode, referenced: the live one, or a new one. */
static struct vnode *
node_vnode(struct tmpfs_node *np, struct mount *mp)
{
	if (np->vnode != NULL) {
		vnode_ref(np->vnode);
		return np->vnode;
	}
	np->vnode = vnode_alloc(mp, vtype_from_mode(np->mode), &tmpfs_vnops,
	    np);
	np->fs->nvnodes++;
	return np->vnode;
}

void
tmpfs_touch_atime(struct tmpfs_node *np)
{
	int64_t now = tmpfs_now();

	if (np->atime <= np->mtime || np->atime <= np->ctime ||
	    now - np->atime >= TMPFS_DAY_NS)
		np->atime = now;
}

/* Note a change of dir's entries. */
static void
dir_changed(struct tmpfs_node *dp, int64_t now)
{
	dp->mtime = now;
	dp->ctime = now;
}

/*
 * Remove entry de of directory dp and drop the link it was.  Frees the
 * node when that was its last link and no vnode holds it.
 */
static void
entry_unlink(struct tmpfs_node *dp, struct tmpfs_dirent *de, int64_t now)
{
	struct tmpfs_node *np = de->node;

	dir_del(&dp->dir, de);
	if (node_isdir(np)) {
		np->nlink = 0;
		np->dir.parent = NULL;
		dp->dir.nsubdirs--;
	} else {
		if (np->nlink > 1)
			np->fs->nextra--;
		np->nlink--;
	}
	np->ctime = now;
	dir_changed(dp, now);
	node_release_if_dead(np);
}

/* dvn as a directory that can still hold entries, or -errno. */
static int
dir_live(struct vnode *dvn, struct tmpfs_node **dpp)
{
	struct tmpfs_node *dp = dvn->data;

	if (dvn->type != VDIR)
		return -ENOTDIR;
	/* Linux answers ENOENT in a directory that was removed. */
	if (dp->nlink == 0)
		return -ENOENT;
	*dpp = dp;
	return 0;
}

/*
 * --- Vnode ops: names ---
 */

static int
tmpfs_lookup(struct vnode *dvn, const char *name, struct vnode **vpp)
{
	struct tmpfs_node *dp = dvn->data, *np;
	struct tmpfs_dirent *de;
	long len;

	if (dvn->type != VDIR)
		return -ENOTDIR;
	if ((len = name_check(name)) < 0)
		return (int)len;
	if (strcmp(name, ".") == 0) {
		np = dp;
	} else if (strcmp(name, "..") == 0) {
		np = dp->dir.parent;
	} else {
		de = dir_find(&dp->dir, name, (size_t)len);
		np = de != NULL ? de->node : NULL;
	}
	if (np == NULL)
		return -ENOENT;
	*vpp = node_vnode(np, dvn->mount);
	return 0;
}

/* Whether a new file of mode (and target) can be made, or -errno. */
static int
create_check_type(uint32_t mode, const char *target)
{
	size_t len;

	switch (mode & S_IFMT) {
	case S_IFREG:
	case S_IFDIR:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		return 0;
	case S_IFLNK:
		if (target == NULL)
			return -EINVAL;
		len = strnlen(target, TMPFS_SYMLINK_MAX + 1);
		/* symlink(2) with an empty target is ENOENT on Linux. */
		if (len == 0)
			return -ENOENT;
		return len > TMPFS_SYMLINK_MAX ? -ENAMETOOLONG : 0;
	}
	return -EINVAL;
}

static int
tmpfs_create(struct vnode *dvn, const char *name, uint32_t mode,
    uint64_t rdev, const char *target, uint32_t uid, uint32_t gid,
    struct vnode **vpp)
{
	struct tmpfs_node *dp, *np;
	long len;
	int r;

	if ((r = dir_live(dvn, &dp)) < 0)
		return r;
	if ((len = name_check(name)) < 0)
		return (int)len;
	/* EEXIST before EROFS, as Linux's filename_create() orders them. */
	if (name_is_dot(name) || dir_find(&dp->dir, name, (size_t)len) != NULL)
		return -EEXIST;
	if (dvn->mount->rdonly)
		return -EROFS;
	/* A type of 0 is a regular file, as for mknod(2). */
	if ((mode & S_IFMT) == 0)
		mode |= S_IFREG;
	if ((r = create_check_type(mode, target)) < 0)
		return r;
	/*
	 * A full sandbox is a full tmpfs, and so is one with all the nodes
	 * nr_inodes= allows: ENOSPC, as Linux's shmem.
	 */
	np = node_make(dp->fs, mode & (S_IFMT | 07777), rdev, target, uid,
	    gid);
	if (np == NULL)
		return -ENOSPC;
	if ((r = dir_add(&dp->dir, name, (size_t)len, np)) < 0) {
		node_free(np);
		return r;
	}
	np->nlink = 1;
	if (node_isdir(np)) {
		np->dir.parent = dp;
		dp->dir.nsubdirs++;
	}
	dir_changed(dp, np->ctime);
	*vpp = node_vnode(np, dvn->mount);
	return 0;
}

static int
tmpfs_link(struct vnode *dvn, const char *name, struct vnode *vn)
{
	struct tmpfs_node *dp, *np = vn->data;
	long len;
	int r;

	if ((r = dir_live(dvn, &dp)) < 0)
		return r;
	if ((len = name_check(name)) < 0)
		return (int)len;
	if (name_is_dot(name) || dir_find(&dp->dir, name, (size_t)len) != NULL)
		return -EEXIST;
	if (vn->mount != dvn->mount)
		return -EXDEV;
	if (dvn->mount->rdonly)
		return -EROFS;
	if (vn->type == VDIR)
		return -EPERM;
	/* An unlinked file cannot come back (Linux's vfs_link()). */
	if (np->nlink == 0)
		return -ENOENT;
	if (!fs_name_room(np->fs))
		return -ENOSPC;
	if ((r = dir_add(&dp->dir, name, (size_t)len, np)) < 0)
		return r;
	np->fs->nextra++;
	np->nlink++;
	np->ctime = tmpfs_now();
	dir_changed(dp, np->ctime);
	return 0;
}

static int
tmpfs_remove(struct vnode *dvn, const char *name, bool rmdir)
{
	struct tmpfs_node *dp = dvn->data, *np;
	struct tmpfs_dirent *de;
	long len;

	if (dvn->type != VDIR)
		return -ENOTDIR;
	if ((len = name_check(name)) < 0)
		return (int)len;
	if (dvn->mount->rdonly)
		return -EROFS;
	/* rmdir(2): "." is EINVAL and ".." ENOTEMPTY; unlink(2) EISDIR. */
	if (strcmp(name, ".") == 0)
		return rmdir ? -EINVAL : -EISDIR;
	if (strcmp(name, "..") == 0)
		return rmdir ? -ENOTEMPTY : -EISDIR;
	if ((de = dir_find(&dp->dir, name, (size_t)len)) == NULL)
		return -ENOENT;
	np = de->node;
	if (rmdir && !node_isdir(np))
		return -ENOTDIR;
	if (!rmdir && node_isdir(np))
		return -EISDIR;
	if (rmdir && np->dir.nents > 0)
		return -ENOTEMPTY;
	entry_unlink(dp, de, tmpfs_now());
	return 0;
}

/*
 * --- Rename ---
 */

/* Whether directory np is anc or inside it. */
static bool
node_within(const struct tmpfs_node *np, const struct tmpfs_node *anc)
{
	while (np != NULL) {
		if (np == anc)
			return true;
		if (np->dir.parent == np)
			return false;
		np = np->dir.parent;
	}
	return false;
}

/* Find both entries and check the flags' conditions on them. */
static int
rename_lookup(struct tmpfs_rename *rn, const char *from)
{
	long flen, tlen;

	if ((flen = name_check(from)) < 0)
		return (int)flen;
	if ((tlen = name_check(rn->to)) < 0)
		return (int)tlen;
	/* Linux's do_renameat2() refuses "." and ".." with EBUSY. */
	if (name_is_dot(from) || name_is_dot(rn->to))
		return -EBUSY;
	if (rn->tdir->nlink == 0)
		return -ENOENT;
	rn->fde = dir_find(&rn->fdir->dir, from, (size_t)flen);
	if (rn->fde == NULL)
		return -ENOENT;
	rn->tolen = (size_t)tlen;
	rn->tde = dir_find(&rn->tdir->dir, rn->to, rn->tolen);
	if ((rn->flags & VFS_RENAME_EXCHANGE) != 0 && rn->tde == NULL)
		return -ENOENT;
	if ((rn->flags & VFS_RENAME_NOREPLACE) != 0 && rn->tde != NULL)
		return -EEXIST;
	return 0;
}

/* Linux's rules for what may go where (rename(2), vfs_rename()). */
static int
rename_check(const struct tmpfs_rename *rn)
{
	struct tmpfs_node *src = rn->fde->node;
	struct tmpfs_node *tgt = rn->tde != NULL ? rn->tde->node : NULL;
	bool exchange = (rn->flags & VFS_RENAME_EXCHANGE) != 0;

	/* A directory cannot move into its own subtree. */
	if (node_isdir(src) && node_within(rn->tdir, src))
		return -EINVAL;
	if (tgt == NULL)
		return 0;
	/* Nor can a target be an ancestor of the source. */
	if (node_isdir(tgt) && node_within(rn->fdir, tgt))
		return exchange ? -EINVAL : -ENOTEMPTY;
	if (exchange)
		return 0;
	if (node_isdir(src) && !node_isdir(tgt))
		return -ENOTDIR;
	if (!node_isdir(src) && node_isdir(tgt))
		return -EISDIR;
	if (node_isdir(tgt) && tgt->dir.nents > 0)
		return -ENOTEMPTY;
	return 0;
}

/* A directory changes parent: move its ".." and the subdir counts. */
static void
rename_reparent(struct tmpfs_node *np, struct tmpfs_node *from,
    struct tmpfs_node *to)
{
	if (!node_isdir(np) || from == to)
		return;
	np->dir.parent = to;
	from->dir.nsubdirs--;
	to->dir.nsubdirs++;
}

/*
 * Move the source to its new name, held by nde, which the target
 * directory has room for: nothing here can fail once the first change
 * is made.
 */
static void
rename_move(struct tmpfs_rename *rn, struct tmpfs_dirent *nde, int64_t now)
{
	struct tmpfs_node *src = rn->fde->node;

	if (rn->tde != NULL)
		entry_unlink(rn->tdir, rn->tde, now);
	if (rn->fdir == rn->tdir) {
		dir_rename_entry(&rn->fdir->dir, rn->fde, nde);
	} else {
		dir_del(&rn->fdir->dir, rn->fde);
		dir_insert(&rn->tdir->dir, nde);
		rename_reparent(src, rn->fdir, rn->tdir);
	}
	src->ctime = now;
}

/* The new name's entry, with room for it: 0, or -ENOSPC. */
static int
rename_prepare(struct tmpfs_rename *rn, struct tmpfs_dirent **ndep)
{
	if (rn->fdir != rn->tdir && dir_reserve(&rn->tdir->dir) < 0)
		return -ENOSPC;
	*ndep = dirent_new(rn->to, rn->tolen, rn->fde->node);
	return *ndep != NULL ? 0 : -ENOSPC;
}

static void
rename_exchange(struct tmpfs_rename *rn, int64_t now)
{
	struct tmpfs_node *a = rn->fde->node, *b = rn->tde->node;

	rn->fde->node = b;
	rn->tde->node = a;
	rename_reparent(a, rn->fdir, rn->tdir);
	rename_reparent(b, rn->tdir, rn->fdir);
	a->ctime = now;
	b->ctime = now;
}

static int
tmpfs_rename(struct vnode *fdvn, const char *from, struct vnode *tdvn,
    const char *to, unsigned flags)
{
	const unsigned both = VFS_RENAME_NOREPLACE | VFS_RENAME_EXCHANGE;
	struct tmpfs_rename rn = { .to = to, .flags = flags };
	struct tmpfs_dirent *nde = NULL;
	int64_t now;
	int r;

	if ((flags & ~both) != 0 || flags == both)
		return -EINVAL;
	if (fdvn->type != VDIR || tdvn->type != VDIR)
		return -ENOTDIR;
	if (fdvn->mount != tdvn->mount)
		return -EXDEV;
	if (fdvn->mount->rdonly)
		return -EROFS;
	rn.fdir = fdvn->data;
	rn.tdir = tdvn->data;
	if ((r = rename_lookup(&rn, from)) < 0)
		return r;
	/* Two names of one file: rename(2) does nothing and succeeds. */
	if (rn.tde != NULL && rn.tde->node == rn.fde->node)
		return 0;
	if ((r = rename_check(&rn)) < 0)
		return r;
	if ((flags & VFS_RENAME_EXCHANGE) == 0 &&
	    (r = rename_prepare(&rn, &nde)) < 0)
		return r;
	now = tmpfs_now();
	if ((flags & VFS_RENAME_EXCHANGE) != 0)
		rename_exchange(&rn, now);
	else
		rename_move(&rn, nde, now);
	dir_changed(rn.fdir, now);
	dir_changed(rn.tdir, now);
	return 0;
}

/*
 * --- Vnode ops: attributes ---
 */

static int
tmpfs_getattr(struct vnode *vn, struct vattr *va)
{
	struct tmpfs_node *np = vn->data;

	*va = (struct vattr){
		.ino = np->ino,
		.dev = vn->mount->dev,
		.rdev = np->rdev,
		.mode = np->mode,
		.uid = np->uid,
		.gid = np->gid,
		.nlink = np->nlink,
		.size = np->size,
		.blksize = VK_PAGE_SIZE,
		.atime_ns = np->atime,
		.mtime_ns = np->mtime,
		.ctime_ns = np->ctime,
		.btime_ns = np->btime,
	};
	if (S_ISREG(np->mode))
		va->blocks = np->reg.npages * (VK_PAGE_SIZE / 512);
	if (node_isdir(np)) {
		/* Its own "." and its name, and each subdirectory's "..". */
		va->nlink = np->nlink == 0 ? 0 : 2 + np->dir.nsubdirs;
		va->size = (np->dir.nents + 2) * TMPFS_BOGO_DIRENT;
	}
	return 0;
}

/* Whether setattr may change size to size, or -errno. */
static int
setattr_check_size(const struct vnode *vn, uint64_t size)
{
	if (vn->type == VDIR)
		return -EISDIR;
	if (vn->type != VREG)
		return -EINVAL;
	if (size > TMPFS_MAXFILESIZE)
		return -EFBIG;
	return 0;
}

static int
tmpfs_setattr(struct vnode *vn, const struct vattr *va, unsigned mask)
{
	struct tmpfs_node *np = vn->data;
	int64_t now;
	int r;

	if (vn->mount->rdonly)
		return -EROFS;
	/* Check what can fail first, so that a failure changes nothing. */
	if ((mask & VA_SIZE) != 0 &&
	    (r = setattr_check_size(vn, va->size)) < 0)
		return r;
	if (vn->type == VREG &&
	    (r = tmpfs_seals_check_setattr(np, va, mask)) < 0)
		return r;
	now = tmpfs_now();
	if ((mask & VA_SIZE) != 0 && va->size != np->size) {
		tmpfs_file_resize(np, va->size);
		np->mtime = now;
	}
	if ((mask & VA_MODE) != 0)
		np->mode = (np->mode & S_IFMT) | (va->mode & 07777);
	if ((mask & VA_UID) != 0)
		np->uid = va->uid;
	if ((mask & VA_GID) != 0)
		np->gid = va->gid;
	if ((mask & VA_ATIME) != 0)
		np->atime = va->atime_ns;
	if ((mask & VA_MTIME) != 0)
		np->mtime = va->mtime_ns;
	np->ctime = now;
	return 0;
}


static int
tmpfs_readdir(struct vnode *dvn, uint64_t cookie, vfs_dirent_fn fn,
    void *arg)
{
	struct tmpfs_node *dp;
	struct tmpfs_dir *d;
	int r;

	if ((r = dir_live(dvn, &dp)) < 0)
		return r;
	d = &dp->dir;
	if (cookie == 0 && fn(arg, ".", 1, dp->ino, VDIR, 1) != 0)
		return 0;
	/* fn may even have removed dvn: then ".." is dvn itself. */
	if (cookie <= 1 && fn(arg, "..", 2, d->parent != NULL ?
	    d->parent->ino : dp->ino, VDIR, 2) != 0)
		return 0;
	cookie = VK_MAX(cookie, TMPFS_FIRST_SEQ);
	/*
	 * Find the next entry afresh each time: fn may add or remove
	 * entries, which moves them in the array but not in seq order.
	 */
	for (;;) {
		size_t i = dir_index(d, cookie);
		struct tmpfs_dirent *de;

		if (i == d->nents)
			break;
		de = d->ents[i];
		cookie = de->seq + 1;
		if (fn(arg, de->name, de->namelen, de->node->ino,
		    vtype_from_mode(de->node->mode), cookie) != 0)
			break;
	}
	tmpfs_touch_atime(dp);
	return 0;
}

static long
tmpfs_readlink(struct vnode *vn, char *buf, size_t size)
{
	struct tmpfs_node *np = vn->data;
	size_t n;

	if (vn->type != VLNK)
		return -EINVAL;
	/* Like readlink(2): truncated silently, no NUL. */
	n = VK_MIN(size, np->size);
	if (n > 0)
		memcpy(buf, np->target, n);
	return (long)n;
}

/*
 * What all such file systems share (tmpfs_statfs_mem), within this
 * one's own bounds: the size is the least of size=, --disk and --mem,
 * free the least free of them, and nr_inodes= is the files.
 */
static int
tmpfs_statfs(struct vnode *vn, struct vfs_statfs *sf)
{
	const struct tmpfs_fs *fs = ((const struct tmpfs_node *)vn->data)->fs;

	tmpfs_statfs_mem(sf, fs->nnodes);
	if (fs->max_pages != 0) {
		sf->blocks = VK_MIN(sf->blocks, fs->max_pages);
		sf->bfree = sf->bavail = VK_MIN(sf->bfree,
		    fs->max_pages - fs->npages);
	}
	if (fs->max_nodes != 0) {
		sf->files = fs->max_nodes;
		sf->ffree = fs->max_nodes - fs->nnodes - fs->nextra;
	}
	return 0;
}

void
tmpfs_statfs_mem(struct vfs_statfs *sf, uint64_t nfiles)
{
	uint64_t limit = vm_ram_limit();
	uint64_t used = VK_MIN(vm_ram_used() + vm_ram_kmem(), limit);

	sf->bsize = VK_PAGE_SIZE;
	sf->blocks = limit / VK_PAGE_SIZE;
	sf->bfree = sf->bavail = (limit - used) / VK_PAGE_SIZE;
	/* --disk, where it is less, is the size; free is the less free. */
	if (tmpfs_disk_max < sf->blocks) {
		sf->blocks = tmpfs_disk_max;
		sf->bfree = sf->bavail = VK_MIN(sf->bfree,
		    tmpfs_disk_max - tmpfs_disk_used);
	}
	sf->files = sf->blocks;
	sf->ffree = sf->files - VK_MIN(nfiles, sf->files);
}

static void
tmpfs_inactive(struct vnode *vn)
{
	struct tmpfs_node *np = vn->data;

	VK_ASSERT(np->vnode == vn);
	np->vnode = NULL;
	np->fs->nvnodes--;
	node_release_if_dead(np);
}

static const struct vnode_ops tmpfs_vnops = {
	.lookup = tmpfs_lookup,
	.getattr = tmpfs_getattr,
	.setattr = tmpfs_setattr,
	.read = tmpfs_read,
	.write = tmpfs_write,
	.fallocate = tmpfs_fallocate,
	.readdir = tmpfs_readdir,
	.readlink = tmpfs_readlink,
	.create = tmpfs_create,
	.link = tmpfs_link,
	.remove = tmpfs_remove,
	.rename = tmpfs_rename,
	.inactive = tmpfs_inactive,
	.statfs = tmpfs_statfs,
	.seek_hole = tmpfs_seek_hole,
	.getpage = tmpfs_page,
	.map_pin = tmpfs_map_pin,
};

int
tmpfs_unlinked(uint32_t mode, uint32_t uid, uint32_t gid, struct vnode **vnp)
{
	static struct mount *anon_mnt;
	static uint64_t seq;
	struct vnode *root, *vn;
	char name[32];
	int r;

	if (anon_mnt == NULL) {
		tmpfs_mount(false, 01777, 0, 0, &anon_mnt);
		/* memfds and shadows are memory, not --disk's data. */
		((struct tmpfs_node *)anon_mnt->root->data)->fs->disk = false;
	}
	root = anon_mnt->root;
	snprintf(name, sizeof(name), "%lu", (unsigned long)seq++);
	/*
	 * A fresh name in a directory nobody else sees fails only when the
	 * sandbox's memory is full.
	 */
	r = tmpfs_create(root, name, S_IFREG | (mode & 07777), 0, NULL, uid,
	    gid, &vn);
	if (r < 0)
		return -ENOMEM;
	tmpfs_remove(root, name, false);
	*vnp = vn;
	return 0;
}

/*
 * --- Mounting ---
 */

int
tmpfs_mount(bool rdonly, uint32_t root_mode, uint32_t uid, uint32_t gid,
    struct mount **mpp)
{
	struct tmpfs_fs *fs = kmem_alloc(sizeof(*fs), KM_ZERO | KM_FS);
	struct mount *mp = mount_alloc("tmpfs", "tmpfs", rdonly, 0);
	struct tmpfs_node *root = NULL;

	if (fs != NULL && mp != NULL) {
		fs->next_ino = 1;
		fs->disk = true;
		root = node_make(fs, S_IFDIR | (root_mode & 07777), 0, NULL,
		    uid, gid);
	}
	if (root == NULL) {
		if (mp != NULL)
			mount_destroy(mp);
		kmem_free(fs, sizeof(*fs), KM_FS);
		return -ENOMEM;
	}
	/* The mount is the root's one link; its ".." is itself. */
	root->nlink = 1;
	root->dir.parent = root;
	fs->root = root;
	mp->root = node_vnode(root, mp);
	mp->fs_free = tmpfs_unmount;
	*mpp = mp;
	return 0;
}

int
tmpfs_set_limits(struct mount *mp, uint64_t max_pages, uint64_t max_nodes)
{
	struct tmpfs_fs *fs;

	VK_ASSERT(tmpfs_is_tmpfs(mp->root));
	fs = ((struct tmpfs_node *)mp->root->data)->fs;
	if ((max_pages != 0 && fs->npages > max_pages) ||
	    (max_nodes != 0 && fs->nnodes + fs->nextra > max_nodes))
		return -EINVAL;
	fs->max_pages = max_pages;
	fs->max_nodes = max_nodes;
	return 0;
}

/*
 * Free the whole tree without recursion (a guest can nest directories
 * deeper than the host stack): always take the last entry of the
 * current directory, going down into a non-empty directory and coming
 * back up, through its parent's last entry, once it is empty.
 */
static void
tree_free(struct tmpfs_node *root)
{
	struct tmpfs_node *cur = root;

	for (;;) {
		struct tmpfs_dir *d = &cur->dir;
		struct tmpfs_node *np;

		if (d->nents == 0) {
			if (cur == root)
				break;
			np = cur;
			cur = np->dir.parent;
			entry_unlink(cur, cur->dir.ents[cur->dir.nents - 1], 0);
			continue;
		}
		np = d->ents[d->nents - 1]->node;
		if (node_isdir(np) && np->dir.nents > 0) {
			cur = np;
			continue;
		}
		entry_unlink(cur, d->ents[d->nents - 1], 0);
	}
	root->nlink = 0;
	node_free(root);
}

void
tmpfs_unmount(struct mount *mp)
{
	struct tmpfs_node *root;
	struct tmpfs_fs *fs;

	VK_ASSERT(mp->root != NULL && tmpfs_is_tmpfs(mp->root));
	root = mp->root->data;
	fs = root->fs;
	vnode_rel(mp->root);
	mp->root = NULL;
	/* A vnode still held would point at a freed node. */
	VK_ASSERT(fs->nvnodes == 0);
	tree_free(root);
	kmem_free(fs, sizeof(*fs), KM_FS);
	mount_destroy(mp);
}

bool
tmpfs_is_tmpfs(const struct vnode *vn)
{
	return vn != NULL && vn->ops == &tmpfs_vnops;
}

int
tmpfs_set_opaque(struct vnode *dir, bool on)
{
	struct tmpfs_node *np;

	if (!tmpfs_is_tmpfs(dir))
		return -EINVAL;
	if (dir->type != VDIR)
		return -ENOTDIR;
	if (dir->mount->rdonly)
		return -EROFS;
	np = dir->data;
	np->dir.opaque = on;
	/* Linux keeps the mark in an xattr, and xattr changes move ctime. */
	np->ctime = tmpfs_now();
	return 0;
}

void
tmpfs_set_origin(struct vnode *vn, uint64_t ino)
{
	if (tmpfs_is_tmpfs(vn))
		((struct tmpfs_node *)vn->data)->origin = ino;
}

uint64_t
tmpfs_origin(const struct vnode *vn)
{
	return tmpfs_is_tmpfs(vn) ?
	    ((const struct tmpfs_node *)vn->data)->origin : 0;
}

void
tmpfs_set_lower_attrs(struct vnode *dir, bool on)
{
	if (tmpfs_is_tmpfs(dir) && dir->type == VDIR)
		((struct tmpfs_node *)dir->data)->dir.lower_attrs = on;
}

bool
tmpfs_lower_attrs(const struct vnode *dir)
{
	return tmpfs_is_tmpfs(dir) && dir->type == VDIR &&
	    ((const struct tmpfs_node *)dir->data)->dir.lower_attrs;
}

bool
tmpfs_is_opaque(const struct vnode *dir)
{
	const struct tmpfs_node *np;

	if (!tmpfs_is_tmpfs(dir) || dir->type != VDIR)
		return false;
	np = dir->data;
	return np->dir.opaque;
}
