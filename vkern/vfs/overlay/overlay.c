/*
 * overlay: see overlay.h.
 *
 * Each overlay vnode holds its upper and lower vnodes (either may be
 * missing, not both) and its parent, which copy-up needs to find where
 * the upper copy goes.  One overlay vnode per file while referenced: a
 * table keyed by the lower vnode (or the upper one for files that
 * exist only above) gives the live one back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/overlay/overlay.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"
#include <stdbool.h>

struct ovl {
	struct vnode *upper, *lower;    /* referenced, or NULL */
	struct vnode *parent;           /* the overlay parent (referenced) */
	char *name;                     /* the name in the parent */
	struct vnode *vn;               /* the overlay vnode */
	struct ovl *hnext;
};

/*
 * The table of live overlay vnodes, by the key vnode (the lower one, or
 * the upper one for a file only above), doubled whenever it holds as
 * many as it has chains: a guest makes as many files as it likes.
 */
static struct ovl **ovl_hash;
static size_t ovl_hsize, ovl_count;
static const struct vnode_ops ovl_ops;

#define OVL(vn) ((struct ovl *)(vn)->data)

static size_t
ovl_key(const struct vnode *key)
{
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & (ovl_hsize - 1);
}

static struct vnode *
ovl_keyvn(const struct ovl *o)
{
	return o->lower != NULL ? o->lower : o->upper;
}

static struct vnode *
ovl_real(const struct ovl *o)
{
	return o->upper != NULL ? o->upper : o->lower;
}

static struct ovl *
ovl_find(struct vnode *lower, struct vnode *upper)
{
	struct vnode *key = lower != NULL ? lower : upper;

	if (ovl_hsize == 0)
		return NULL;
	for (struct ovl *o = ovl_hash[ovl_key(key)]; o != NULL; o = o->hnext)
		if ((lower != NULL && o->lower == lower) ||
		    (lower == NULL && o->lower == NULL && o->upper == upper))
			return o;
	return NULL;
}

static void
ovl_chain(struct ovl *o)
{
	size_t h = ovl_key(ovl_keyvn(o));

	o->hnext = ovl_hash[h];
	ovl_hash[h] = o;
}

static void
ovl_hash_insert(struct ovl *o)
{
	struct ovl **old = ovl_hash, *x;
	size_t n = ovl_hsize;

	if (ovl_count == ovl_hsize) {
		ovl_hsize = n != 0 ? 2 * n : 1024;
		ovl_hash = vk_xcalloc(ovl_hsize, sizeof(*ovl_hash));
		for (size_t i = 0; i < n; i++) {
			while ((x = old[i]) != NULL) {
				old[i] = x->hnext;
				ovl_chain(x);
			}
		}
		free(old);
	}
	ovl_chain(o);
	ovl_count++;
}

/* The overlay vnode for (upper, lower) below parent; takes both refs. */
static struct vnode *
ovl_get(struct mount *mp, struct vnode *parent, const char *name,
    struct vnode *upper, struct vnode *lower)
{
	struct ovl *o = ovl_find(lower, upper);

	if (o != NULL) {
		if (o->upper == NULL && upper != NULL)
			o->upper = upper;
		else if (upper != NULL)
			vnode_rel(upper);
		if (lower != NULL)
			vnode_rel(lower);
		vnode_ref(o->vn);
		return o->vn;
	}
	/* Never refused: one for each file the layers already hold. */
	o = kmem_alloc(sizeof(*o), KM_ZERO | KM_FORCE | KM_FS);
	o->upper = upper;
	o->lower = lower;
	o->parent = parent;
	if (parent != NULL)
		vnode_ref(parent);
	o->name = kmem_strdup(name, KM_FORCE | KM_FS);
	o->vn = vnode_alloc(mp, ovl_real(o)->type, &ovl_ops, o);
	ovl_hash_insert(o);
	return o->vn;
}

/*
 * Take o out of the table: its name is gone, and a new file made there
 * later must not be taken for it because it has the same lower file.
 */
static void
ovl_unhash(struct ovl *o)
{
	struct ovl **pp = &ovl_hash[ovl_key(ovl_keyvn(o))];

	for (; *pp != NULL; pp = &(*pp)->hnext) {
		if (*pp == o) {
			*pp = o->hnext;
			ovl_count--;
			break;
		}
	}
	o->hnext = NULL;
}

static void
ovl_inactive(struct vnode *vn)
{
	struct ovl *o = OVL(vn);

	ovl_unhash(o);
	if (o->upper != NULL)
		vnode_rel(o->upper);
	if (o->lower != NULL)
		vnode_rel(o->lower);
	if (o->parent != NULL)
		vnode_rel(o->parent);
	kmem_strfree(o->name, KM_FS);
	kmem_free(o, sizeof(*o), KM_FS);
}

static bool
is_whiteout(struct vnode *vn)
{
	struct vattr va;

	return vn->type == VCHR && vn->ops->getattr(vn, &va) == 0 &&
	    va.rdev == 0;
}

/* Whether o's lower directory shows through: it has one, not opaque. */
static bool
ovl_lower_shows(const struct ovl *o)
{
	return o->lower != NULL &&
	    !(o->upper != NULL && tmpfs_is_opaque(o->upper));
}

static int
ovl_lookup(struct vnode *dir, const char *name, struct vnode **vpp)
{
	struct ovl *d = OVL(dir);
	struct vnode *u = NULL, *l = NULL;
	int r;

	if (strcmp(name, "..") == 0) {
		if (d->parent == NULL)
			return -ENOENT;
		vnode_ref(d->parent);
		*vpp = d->parent;
		return 0;
	}
	if (d->upper != NULL &&
	    (r = d->upper->ops->lookup(d->upper, name, &u)) < 0 && r != -ENOENT)
		return r;
	if (u != NULL && is_whiteout(u)) {
		vnode_rel(u);
		return -ENOENT;
	}
	if (ovl_lower_shows(d) && (u == NULL || u->type == VDIR)) {
		r = d->lower->ops->lookup(d->lower, name, &l);
		if (r < 0 && r != -ENOENT) {
			if (u != NULL)
				vnode_rel(u);
			return r;
		}
		/* Below a directory only a directory merges with it. */
		if (l != NULL && u != NULL && l->type != VDIR) {
			vnode_rel(l);
			l = NULL;
		}
	}
	if (u == NULL && l == NULL)
		return -ENOENT;
	*vpp = ovl_get(dir->mount, dir, name, u, l);
	return 0;
}

static int
ovl_getattr(struct vnode *vn, struct vattr *va)
{
	struct ovl *o = OVL(vn);
	struct vattr lva;
	int r;

	/* A directory the guest has not changed is its lower one. */
	if (o->upper != NULL && o->lower != NULL &&
	    tmpfs_lower_attrs(o->upper)) {
		if ((r = o->lower->ops->getattr(o->lower, va)) < 0)
			return r;
		va->dev = vn->mount->dev;
		return 0;
	}
	if ((r = ovl_real(o)->ops->getattr(ovl_real(o), va)) < 0)
		return r;
	/*
	 * The inode number stays the lower one's across copy-up, for every
	 * name of the copy: git checks that a hard link it made is its
	 * source.
	 */
	if (o->upper != NULL && tmpfs_origin(o->upper) != 0)
		va->ino = tmpfs_origin(o->upper);
	else if (o->upper != NULL && o->lower != NULL &&
	    o->lower->ops->getattr(o->lower, &lva) == 0)
		va->ino = lva.ino;
	va->dev = vn->mount->dev;
	return 0;
}

static int
ovl_getperm(struct vnode *vn, struct vattr *va)
{
	return vnode_getperm(ovl_real(OVL(vn)), va);
}

/* --- copy-up --- */

static int
copy_data(struct vnode *from, struct vnode *to, uint64_t size)
{
	char *buf = vk_xmalloc(65536);
	uint64_t off = 0;
	long n = 0;

	while (off < size) {
		n = from->ops->read(from, buf, 65536, off);
		if (n <= 0)
			break;
		n = to->ops->write(to, buf, (size_t)n, off);
		if (n <= 0)
			break;
		off += (uint64_t)n;
	}
	free(buf);
	return n < 0 ? (int)n : 0;
}

/* Make the upper copy of o in its parent's upper directory. */
static int
copy_make(struct ovl *o, struct vnode *pup, const struct vattr *va)
{
	char target[4096];
	struct vnode *up = NULL;
	long n = 0;
	int r;

	if (o->lower->type == VLNK) {
		n = o->lower->ops->readlink(o->lower, target,
		    sizeof(target) - 1);
		if (n < 0)
			return (int)n;
		target[n] = '\0';
	}
	r = pup->ops->create(pup, o->name, va->mode, va->rdev,
	    o->lower->type == VLNK ? target : NULL, va->uid, va->gid, &up);
	if (r < 0)
		return r;
	if (o->lower->type == VREG && (r = copy_data(o->lower, up,
	    va->size)) < 0) {
		vnode_rel(up);
		pup->ops->remove(pup, o->name, false);
		return r;
	}
	tmpfs_set_origin(up, va->ino);
	o->upper = up;
	return 0;
}

/* Copy o up, into its parent's upper directory, which must exist. */
static int
ovl_copy_one(struct ovl *o)
{
	struct vattr va;
	int r;

	if ((r = o->lower->ops->getattr(o->lower, &va)) < 0)
		return r;
	if ((r = copy_make(o, OVL(o->parent)->upper, &va)) < 0)
		return r;
	va.mode &= 07777;
	if ((r = o->upper->ops->setattr(o->upper, &va, VA_ATIME | VA_MTIME |
	    (o->lower->type != VLNK ? VA_MODE : 0))) < 0)
		return r;
	tmpfs_set_lower_attrs(o->upper, true);
	return 0;
}

/*
 * Copy vn up, after every ancestor that has no upper copy yet, from the
 * top down.  The chain is gathered first, not recursed on: below a host
 * directory a guest can write to, it can be as deep as the guest likes.
 */
static int
ovl_copy_up(struct vnode *vn)
{
	struct ovl **chain = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	for (struct ovl *o = OVL(vn); o->upper == NULL; o = OVL(o->parent)) {
		if (o->parent == NULL) {
			free(chain);
			return -EROFS;
		}
		if (n == cap) {
			cap = cap != 0 ? cap * 2 : 16;
			chain = vk_xrealloc(chain, cap * sizeof(*chain));
		}
		chain[n++] = o;
	}
	while (r == 0 && n > 0)
		r = ovl_copy_one(chain[--n]);
	free(chain);
	return r;
}

/*
 * The guest changes directory vn, which must have its upper copy: from
 * now on the overlay shows the upper directory's attributes, which start
 * as the lower one's (the root's upper directory was made empty).
 */
static int
ovl_touch(struct vnode *vn)
{
	struct ovl *o = OVL(vn);
	struct vattr va;
	int r;

	if (o->lower == NULL || !tmpfs_lower_attrs(o->upper))
		return 0;
	if ((r = o->lower->ops->getattr(o->lower, &va)) < 0)
		return r;
	va.mode &= 07777;
	if ((r = o->upper->ops->setattr(o->upper, &va, VA_MODE | VA_UID |
	    VA_GID | VA_ATIME | VA_MTIME)) < 0)
		return r;
	tmpfs_set_lower_attrs(o->upper, false);
	return 0;
}

/* Copy vn up, and the guest is about to change it. */
static int
ovl_copy_touch(struct vnode *vn)
{
	int r = ovl_copy_up(vn);

	return r < 0 ? r : ovl_touch(vn);
}

/* --- data --- */

static int
ovl_setattr(struct vnode *vn, const struct vattr *va, unsigned mask)
{
	int r;

	if ((r = ovl_copy_touch(vn)) < 0)
		return r;
	return OVL(vn)->upper->ops->setattr(OVL(vn)->upper, va, mask);
}

static long
ovl_read(struct vnode *vn, void *buf, size_t len, uint64_t off)
{
	struct vnode *real = ovl_real(OVL(vn));

	return real->ops->read(real, buf, len, off);
}

static long
ovl_read_ram(struct vnode *vn, uint64_t ramoff, size_t len, uint64_t off)
{
	return vnode_read_ram(ovl_real(OVL(vn)), ramoff, len, off);
}

static int64_t
ovl_seek_hole(struct vnode *vn, uint64_t off, bool data)
{
	return vnode_seek_hole(ovl_real(OVL(vn)), off, data);
}

static long
ovl_write(struct vnode *vn, const void *buf, size_t len, uint64_t off)
{
	int r;

	if ((r = ovl_copy_up(vn)) < 0)
		return r;
	return OVL(vn)->upper->ops->write(OVL(vn)->upper, buf, len, off);
}

static int
ovl_fallocate(struct vnode *vn, int mode, uint64_t off, uint64_t len)
{
	struct vnode *up;
	int r;

	if ((r = ovl_copy_up(vn)) < 0)
		return r;
	up = OVL(vn)->upper;
	return up->ops->fallocate != NULL ?
	    up->ops->fallocate(up, mode, off, len) : -EOPNOTSUPP;
}

/* The upper layer's figures, under overlayfs's own magic, as Linux's. */
static int
ovl_statfs(struct vnode *vn, struct vfs_statfs *sf)
{
	struct vnode *up = OVL(vn->mount->root)->upper;
	int r;

	if (up->ops->statfs != NULL && (r = up->ops->statfs(up, sf)) < 0)
		return r;
	sf->magic = vn->mount->magic;
	return 0;
}

static long
ovl_readlink(struct vnode *vn, char *buf, size_t size)
{
	struct vnode *real = ovl_real(OVL(vn));

	return real->ops->readlink(real, buf, size);
}

static int
ovl_open(struct vnode *vn, struct file *fp)
{
	struct vnode *real = ovl_real(OVL(vn));

	return real->ops->open != NULL ? real->ops->open(real, fp) : 0;
}

/* --- directories --- */

struct dent {
	char *name;
	uint64_t ino;
	enum vtype type;
	bool whiteout;
};

struct dlist {
	struct dent *e;
	size_t n, cap;
	struct vnode *dir;      /* the layer being read */
};

static bool
dlist_has(const struct dlist *d, const char *name, size_t len)
{
	for (size_t i = 0; i < d->n; i++)
		if (strlen(d->e[i].name) == len &&
		    memcmp(d->e[i].name, name, len) == 0)
			return true;
	return false;
}

static int
dlist_add(void *arg, const char *name, size_t len, uint64_t ino,
    enum vtype type, uint64_t next)
{
	struct dlist *d = arg;
	struct vnode *vn;

	if (dlist_has(d, name, len))
		return 0;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->e = vk_xrealloc(d->e, d->cap * sizeof(*d->e));
	}
	d->e[d->n] = (struct dent){ .name = strndup(name, len), .ino = ino,
	    .type = type };
	/* A character device in the upper layer may be a whiteout. */
	if (type == VCHR && d->dir != NULL &&
	    d->dir->ops->lookup(d->dir, d->e[d->n].name, &vn) == 0) {
		d->e[d->n].whiteout = is_whiteout(vn);
		vnode_rel(vn);
	}
	d->n++;
	return 0;
}

static void
dlist_free(struct dlist *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->e[i].name);
	free(d->e);
}

/* The merged entries of a directory: upper first, then lower. */
static int
ovl_merge(struct ovl *o, struct dlist *d)
{
	int r = 0;

	if (o->upper != NULL) {
		d->dir = o->upper;
		r = o->upper->ops->readdir(o->upper, 0, dlist_add, d);
	}
	if (r == 0 && ovl_lower_shows(o)) {
		d->dir = NULL;
		r = o->lower->ops->readdir(o->lower, 0, dlist_add, d);
	}
	return r;
}

/*
 * readdir streams the upper layer, then the lower one with the names the
 * upper layer has (or whites out) left out.  A cookie is the layer's own
 * cookie, with the top bit set in the lower phase, so a walk resumes at
 * the right place whatever was added or removed meanwhile.
 */
#define OVL_LOWER_PHASE (1ULL << 63)

struct ovl_rd {
	struct ovl *o;
	vfs_dirent_fn fn;
	void *arg;
	bool lower, stopped;
};

static int
ovl_rd_upper(void *arg, const char *name, size_t len, uint64_t ino,
    enum vtype type, uint64_t next)
{
	struct ovl_rd *rd = arg;
	struct vnode *vn;
	bool wh = false;

	if (type == VCHR && rd->o->upper->ops->lookup(rd->o->upper, name,
	    &vn) == 0) {
		wh = is_whiteout(vn);
		vnode_rel(vn);
	}
	if (wh)
		return 0;
	if (rd->fn(rd->arg, name, len, ino, type, next) != 0) {
		rd->stopped = true;
		return 1;
	}
	return 0;
}

static int
ovl_rd_lower(void *arg, const char *name, size_t len, uint64_t ino,
    enum vtype type, uint64_t next)
{
	struct ovl_rd *rd = arg;
	struct vnode *vn;

	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	if (rd->o->upper != NULL && rd->o->upper->ops->lookup(rd->o->upper,
	    name, &vn) == 0) {
		vnode_rel(vn);
		return 0;
	}
	if (rd->fn(rd->arg, name, len, ino, type, next | OVL_LOWER_PHASE)) {
		rd->stopped = true;
		return 1;
	}
	return 0;
}

static int
ovl_readdir(struct vnode *dir, uint64_t cookie, vfs_dirent_fn fn, void *arg)
{
	struct ovl *o = OVL(dir);
	struct ovl_rd rd = { .o = o, .fn = fn, .arg = arg };
	bool merge = ovl_lower_shows(o);
	int r = 0;

	if (o->upper == NULL)
		return o->lower->ops->readdir(o->lower, cookie, fn, arg);
	if (!(cookie & OVL_LOWER_PHASE)) {
		r = o->upper->ops->readdir(o->upper, cookie, ovl_rd_upper, &rd);
		if (r < 0 || rd.stopped || !merge)
			return r;
		cookie = OVL_LOWER_PHASE;
	}
	if (!merge)
		return 0;
	return o->lower->ops->readdir(o->lower, cookie & ~OVL_LOWER_PHASE,
	    ovl_rd_lower, &rd);
}

/* True when the merged directory holds nothing but "." and "..". */
static int
ovl_empty(struct ovl *o)
{
	struct dlist d = { 0 };
	int r = ovl_merge(o, &d);
	bool empty = true;

	for (size_t i = 0; r == 0 && i < d.n; i++)
		if (!d.e[i].whiteout && strcmp(d.e[i].name, ".") != 0 &&
		    strcmp(d.e[i].name, "..") != 0)
			empty = false;
	dlist_free(&d);
	return r < 0 ? r : empty;
}

/* Remove the whiteout of name in upper, if there is one. */
static int
drop_whiteout(struct vnode *upper, const char *name, bool *wasp)
{
	struct vnode *vn;

	*wasp = false;
	if (upper->ops->lookup(upper, name, &vn) < 0)
		return 0;
	*wasp = is_whiteout(vn);
	vnode_rel(vn);
	return *wasp ? upper->ops->remove(upper, name, false) : -EEXIST;
}

static int
ovl_create(struct vnode *dir, const char *name, uint32_t mode, uint64_t rdev,
    const char *target, uint32_t uid, uint32_t gid, struct vnode **vpp)
{
	struct vnode *up = NULL, *probe;
	bool was;
	int r;

	if (ovl_lookup(dir, name, &probe) == 0) {
		vnode_rel(probe);
		return -EEXIST;
	}
	if ((r = ovl_copy_touch(dir)) < 0 ||
	    (r = drop_whiteout(OVL(dir)->upper, name, &was)) < 0)
		return r;
	r = OVL(dir)->upper->ops->create(OVL(dir)->upper, name, mode, rdev,
	    target, uid, gid, &up);
	if (r < 0)
		return r;
	/* A new directory where a lower one was deleted must hide it. */
	if (was && S_ISDIR(mode) && (r = tmpfs_set_opaque(up, true)) < 0) {
		vnode_rel(up);
		return r;
	}
	*vpp = ovl_get(dir->mount, dir, name, up, NULL);
	return 0;
}

/*
 * Whether a lower file called name would show through in dir once the
 * upper one is gone: then a whiteout must take its place.
 */
static bool
ovl_lower_has(struct vnode *dir, const char *name)
{
	struct vnode *l;

	if (!ovl_lower_shows(OVL(dir)) ||
	    OVL(dir)->lower->ops->lookup(OVL(dir)->lower, name, &l) < 0)
		return false;
	vnode_rel(l);
	return true;
}

static int
whiteout(struct vnode *upper, const char *name)
{
	struct vnode *wh;
	int r = upper->ops->create(upper, name, S_IFCHR, 0, NULL, 0, 0, &wh);

	if (r == 0)
		vnode_rel(wh);
	return r;
}

/* Empty an upper directory of its whiteouts, so that it can go. */
static int
clear_whiteouts(struct ovl *o)
{
	struct dlist d = { .dir = o->upper };
	int r;

	if (o->upper == NULL)
		return 0;
	r = o->upper->ops->readdir(o->upper, 0, dlist_add, &d);
	for (size_t i = 0; r == 0 && i < d.n; i++)
		if (d.e[i].whiteout)
			r = o->upper->ops->remove(o->upper, d.e[i].name, false);
	dlist_free(&d);
	return r;
}

static int
ovl_remove(struct vnode *dir, const char *name, bool rmdir)
{
	struct vnode *vn;
	struct ovl *o;
	int r;

	if ((r = ovl_lookup(dir, name, &vn)) < 0)
		return r;
	o = OVL(vn);
	if (rmdir && vn->type != VDIR)
		r = -ENOTDIR;
	else if (!rmdir && vn->type == VDIR)
		r = -EISDIR;
	else if (rmdir && (r = ovl_empty(o)) >= 0)
		r = r ? 0 : -ENOTEMPTY;
	if (r == 0)
		r = ovl_copy_touch(dir);
	if (r == 0 && rmdir)
		r = clear_whiteouts(o);
	if (r == 0 && o->upper != NULL)
		r = OVL(dir)->upper->ops->remove(OVL(dir)->upper, name, rmdir);
	if (r == 0 && ovl_lower_has(dir, name))
		r = whiteout(OVL(dir)->upper, name);
	if (r == 0)
		ovl_unhash(o);
	vnode_rel(vn);
	return r;
}

/* o is now called name in dir: copy-up and ".." must find it there. */
static void
ovl_moved(struct ovl *o, struct vnode *dir, const char *name)
{
	struct vnode *old = o->parent;

	vnode_ref(dir);
	o->parent = dir;
	kmem_strfree(o->name, KM_FS);
	o->name = kmem_strdup(name, KM_FORCE | KM_FS);
	if (old != NULL)
		vnode_rel(old);
}

/* RENAME_EXCHANGE: both exist, so both are copied up and swapped. */
static int
ovl_exchange(struct vnode *fromdir, const char *from, struct vnode *src,
    struct vnode *todir, const char *to, struct vnode *dst)
{
	int r;

	if ((r = ovl_copy_up(src)) < 0 || (r = ovl_copy_up(dst)) < 0 ||
	    (r = ovl_touch(fromdir)) < 0 || (r = ovl_touch(todir)) < 0 ||
	    (r = OVL(fromdir)->upper->ops->rename(OVL(fromdir)->upper, from,
	    OVL(todir)->upper, to, VFS_RENAME_EXCHANGE)) < 0)
		return r;
	ovl_moved(OVL(src), todir, to);
	ovl_moved(OVL(dst), fromdir, from);
	return 0;
}

static int
ovl_rename(struct vnode *fromdir, const char *from, struct vnode *todir,
    const char *to, unsigned flags)
{
	struct vnode *src, *dst = NULL;
	bool had_lower, was;
	int r;

	if ((r = ovl_lookup(fromdir, from, &src)) < 0)
		return r;
	had_lower = OVL(src)->lower != NULL;
	if (ovl_lookup(todir, to, &dst) < 0)
		dst = NULL;
	if ((src->type == VDIR && had_lower) || ((flags &
	    VFS_RENAME_EXCHANGE) && dst != NULL && dst->type == VDIR &&
	    OVL(dst)->lower != NULL))
		r = -EXDEV;   /* as overlayfs without redirect_dir */
	else if (flags & VFS_RENAME_EXCHANGE)
		r = ovl_exchange(fromdir, from, src, todir, to, dst);
	else if (dst != NULL && dst->type == VDIR && (r = ovl_empty(OVL(dst)))
	    >= 0)
		r = r ? clear_whiteouts(OVL(dst)) : -ENOTEMPTY;
	if (r == 0 && (flags & VFS_RENAME_EXCHANGE))
		goto out;
	if (r == 0 && (r = ovl_copy_up(src)) == 0 &&
	    (r = ovl_copy_touch(todir)) == 0 && (r = ovl_touch(fromdir)) == 0 &&
	    (r = drop_whiteout(OVL(todir)->upper, to, &was)) == -EEXIST)
		r = 0;
	if (r == 0)
		r = OVL(fromdir)->upper->ops->rename(OVL(fromdir)->upper, from,
		    OVL(todir)->upper, to, flags);
	if (r == 0 && ovl_lower_has(fromdir, from))
		r = whiteout(OVL(fromdir)->upper, from);
	if (r == 0 && dst != src) {
		if (dst != NULL)
			ovl_unhash(OVL(dst));
		ovl_moved(OVL(src), todir, to);
	}
out:
	if (dst != NULL)
		vnode_rel(dst);
	vnode_rel(src);
	return r;
}

static int
ovl_link(struct vnode *dir, const char *name, struct vnode *vn)
{
	struct vnode *probe;
	bool was;
	int r;

	if (ovl_lookup(dir, name, &probe) == 0) {
		vnode_rel(probe);
		return -EEXIST;
	}
	if ((r = ovl_copy_up(vn)) < 0 || (r = ovl_copy_touch(dir)) < 0 ||
	    (r = drop_whiteout(OVL(dir)->upper, name, &was)) < 0)
		return r;
	return OVL(dir)->upper->ops->link(OVL(dir)->upper, name,
	    OVL(vn)->upper);
}

/* The upper layer changes only through the VFS; the lower on the host. */
static uint64_t
ovl_names_version(struct vnode *dir)
{
	struct ovl *o = OVL(dir);

	if (!ovl_lower_shows(o) || o->lower->ops->names_version == NULL)
		return 1;
	return o->lower->ops->names_version(o->lower);
}

static const struct vnode_ops ovl_ops = {
	.lookup = ovl_lookup,
	.getattr = ovl_getattr,
	.getperm = ovl_getperm,
	.setattr = ovl_setattr,
	.read = ovl_read,
	.read_ram = ovl_read_ram,
	.seek_hole = ovl_seek_hole,
	.write = ovl_write,
	.fallocate = ovl_fallocate,
	.readdir = ovl_readdir,
	.readlink = ovl_readlink,
	.create = ovl_create,
	.link = ovl_link,
	.remove = ovl_remove,
	.rename = ovl_rename,
	.open = ovl_open,
	.inactive = ovl_inactive,
	.statfs = ovl_statfs,
	.names_version = ovl_names_version,
};

int
overlay_mount(struct vnode *upper, struct vnode *lower, struct mount **mpp)
{
	struct mount *mp = mount_alloc("overlay", "overlay", false, KM_FORCE);

	mp->root = ovl_get(mp, NULL, "", upper, lower);
	if (lower != NULL)
		tmpfs_set_lower_attrs(upper, true);
	mp->ncache = true;
	*mpp = mp;
	return 0;
}

struct vnode *
overlay_upper(struct vnode *vn, bool copy_up)
{
	if (vn->ops != &ovl_ops)
		return vn;
	if (copy_up && ovl_copy_up(vn) < 0)
		return NULL;
	return OVL(vn)->upper != NULL ? OVL(vn)->upper : OVL(vn)->lower;
}
