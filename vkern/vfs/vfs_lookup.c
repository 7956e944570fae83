/*
 * Path lookup: see namei.h.
 *
 * The walk keeps the rest of the path in a buffer; a symlink's target is
 * spliced in front of it and the walk goes on from the link's directory
 * (or from the root, for an absolute target), so that links resolve
 * inside the guest's root whatever they say.  Host symlinks are never
 * followed by the host: hostfs returns them as links and they come here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kern/proc.h"
#include "vkern/vfs/fdlink.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/procfs/procfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_notify.h"

struct walk {
	struct proc *p;
	struct mntns *ns;        /* p's */
	struct nameidata *nd;
	struct vnode *cur;       /* referenced */
	struct vnode *root;      /* "/" and where ".." stops (referenced) */
	char root_path[VK_CANON_MAX];  /* root's canonical path */
	struct mount *mnt;       /* LOOKUP_NO_XDEV: the one to stay on */
	int depth;               /* LOOKUP_BENEATH: levels below dirfd */
	char rest[2 * VK_PATH_MAX];
	size_t pos;
	int links;
	unsigned flags;
	bool jumped;             /* the last step was walk_jump's */
};

/* src into dst of size bytes, cut short to fit: snprintf's "%s", cheaper. */
static void
copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * Where the count of levels below a deep path starts, or NULL.  Only the
 * count's digits may follow the "//" (a file's name for /proc, such as a
 * memfd's, is no canonical path and may hold anything).
 */
static char *
canon_deep(char *path)
{
	char *s = strrchr(path, '/');

	if (s == NULL || s == path || s[-1] != '/' || s[1] == '\0' ||
	    s[1 + strspn(s + 1, "0123456789")] != '\0')
		return NULL;
	return s + 1;
}

bool
vfs_path_deep(const char *path)
{
	return canon_deep((char *)path) != NULL;
}

static void
canon_push(char *path, const char *name)
{
	char *deep = canon_deep(path);
	size_t n = strlen(path);

	if (deep != NULL) {
		sprintf(deep, "%lu", strtoul(deep, NULL, 10) + 1);
		return;
	}
	if (n + 1 + strlen(name) >= VK_PATH_MAX) {
		strcpy(path + n, "//1");
		return;
	}
	if (n > 1)
		path[n++] = '/';
	strcpy(path + n, name);
}

static void
canon_pop(char *path)
{
	char *deep = canon_deep(path);
	char *s = strrchr(path, '/');
	unsigned long below;

	if (deep != NULL) {
		below = strtoul(deep, NULL, 10) - 1;
		if (below > 0)
			sprintf(deep, "%lu", below);
		else
			deep[-2] = '\0';
		return;
	}
	if (s == NULL || s == path)
		strcpy(path, "/");
	else
		*s = '\0';
}

static void
walk_set(struct walk *w, struct vnode *vn)
{
	struct vnode *old = w->cur;

	w->cur = vn;
	if (old != NULL)
		vnode_rel(old);
}

/* Go to the walk's root: an absolute path or symlink. */
static int
walk_to_root(struct walk *w)
{
	if (w->flags & LOOKUP_BENEATH)
		return -EXDEV;
	vnode_ref(w->root);
	walk_set(w, w->root);
	copy_str(w->nd->path, sizeof(w->nd->path), w->root_path);
	w->depth = 0;
	return 0;
}

/* The directory a relative path starts from: dirfd's, or the cwd. */
static int
walk_base(struct walk *w, int dirfd, const char *path, struct vnode **vpp,
    const char **pathp)
{
	struct proc *p = w->p;
	struct file *fp;

	if (dirfd == AT_FDCWD) {
		*vpp = p->fs->cwd;
		*pathp = p->fs->cwd_path;
		return 0;
	}
	if ((fp = fd_get(p->fdt, dirfd)) == NULL)
		return -EBADF;
	if (fp->vn == NULL || (path[0] != '\0' && fp->vn->type != VDIR))
		return -ENOTDIR;
	*vpp = fp->vn;
	*pathp = fp->path;
	return 0;
}

static int
walk_start(struct walk *w, int dirfd, const char *path)
{
	struct vnode *base = NULL;
	const char *bpath = "/";
	int r;

	/* An absolute path needs no dirfd, unless dirfd is the root. */
	if ((path[0] != '/' || (w->flags & LOOKUP_IN_ROOT)) &&
	    (r = walk_base(w, dirfd, path, &base, &bpath)) < 0)
		return r;
	w->root = (w->flags & LOOKUP_IN_ROOT) ? base : w->p->fs->root;
	vnode_ref(w->root);
	copy_str(w->root_path, sizeof(w->root_path),
	    (w->flags & LOOKUP_IN_ROOT) ? bpath : "/");
	if (path[0] == '/')
		r = walk_to_root(w);
	else {
		vnode_ref(base);
		walk_set(w, base);
		copy_str(w->nd->path, sizeof(w->nd->path), bpath);
		r = 0;
	}
	if (r == 0)
		w->mnt = w->cur->mount;
	return r;
}

/* The next component into name; false at the end of the path. */
static bool
walk_next(struct walk *w, char *name, size_t *lenp, bool *lastp)
{
	size_t s, e;

	while (w->rest[w->pos] == '/')
		w->pos++;
	if (w->rest[w->pos] == '\0')
		return false;
	s = w->pos;
	for (e = s; w->rest[e] != '\0' && w->rest[e] != '/'; e++)
		;
	*lenp = e - s;
	if (*lenp <= VK_NAME_MAX) {
		memcpy(name, w->rest + s, *lenp);
		name[*lenp] = '\0';
	}
	w->pos = e;
	while (w->rest[e] == '/')
		e++;
	*lastp = w->rest[e] == '\0';
	return true;
}

/* Step to the parent of the current directory, crossing mounts down. */
static int
walk_dotdot(struct walk *w)
{
	struct vnode *next;
	struct mount *m;
	int r;

	if (w->flags & LOOKUP_BENEATH) {
		if (w->depth == 0)
			return -EXDEV;
		w->depth--;
	}
	/*
	 * From the root of a mount of the walk's namespace, down to where
	 * it is mounted (the mount at the path the walk came by: a
	 * directory may be the root of several binds), and on down while
	 * that is the root of the mount it is on.
	 */
	m = vfs_mount_rooted(w->ns, w->cur, w->nd->path);
	for (;;) {
		if (w->cur == w->root)
			return 0;
		if (m == NULL)
			break;
		if (m->covered == NULL)
			return 0;	/* the root of everything */
		vnode_ref(m->covered);
		walk_set(w, m->covered);
		m = m->parent != NULL && m->parent->root == w->cur ?
		    m->parent : NULL;
	}
	/* A file system's root no longer mounted has nothing above it. */
	if (w->cur->mount != NULL && w->cur == w->cur->mount->root)
		return 0;
	if ((r = w->cur->ops->lookup(w->cur, "..", &next)) < 0)
		return r;
	walk_set(w, next);
	canon_pop(w->nd->path);
	return 0;
}

/*
 * Go on from open file fp, which a /proc/PID/fd link named: from its
 * vnode, with its name for the path (Linux's nd_jump_link()).
 */
static int
walk_jump(struct walk *w, struct file *fp)
{
	struct vnode *vn;
	int r;

	if ((r = fdlink_vnode(fp, &vn)) < 0)
		return r;
	walk_set(w, vn);
	copy_str(w->nd->path, sizeof(w->nd->path),
	    fp->path != NULL && fp->path[0] != '\0' ? fp->path :
	    "anon_inode:[file]");
	w->jumped = true;
	return 0;
}

/*
 * Go on from vn, the namespace file a /proc/PID/ns link named, which
 * takes over a reference, with the link's text for the path.
 */
static int
walk_jump_ns(struct walk *w, struct vnode *link, struct vnode *vn)
{
	long n = link->ops->readlink(link, w->nd->path,
	    sizeof(w->nd->path) - 1);

	w->nd->path[VK_MAX(n, 0)] = '\0';
	walk_set(w, vn);
	w->jumped = true;
	return 0;
}

/*
 * Splice the target of symlink vn in front of the rest of the path, or
 * for a magic link to an open file or a namespace, jump to it.
 */
static int
walk_symlink(struct walk *w, struct vnode *vn)
{
	char target[VK_PATH_MAX];
	size_t restlen = strlen(w->rest + w->pos);
	struct vnode *nsvn = NULL;
	struct file *fp = NULL;
	long n;
	int r;

	if (w->flags & LOOKUP_NO_SYMLINKS)
		return -ELOOP;
	/* Scoped walks do not take a magic link's jump, as Linux. */
	if (vnode_is_magic(vn)) {
		if (w->flags & LOOKUP_NO_MAGIC)
			return -ELOOP;
		if (w->flags & (LOOKUP_BENEATH | LOOKUP_IN_ROOT))
			return -EXDEV;
		if ((r = procfs_link_follow(vn, w->p, &fp, &nsvn)) < 0)
			return r;
	}
	if (++w->links > VK_MAXSYMLINKS) {
		if (nsvn != NULL)
			vnode_rel(nsvn);
		return -ELOOP;
	}
	if (fp != NULL)
		return walk_jump(w, fp);
	if (nsvn != NULL)
		return walk_jump_ns(w, vn, nsvn);
	n = vn->ops->readlink(vn, target, sizeof(target) - 1);
	if (n < 0)
		return (int)n;
	if (n == 0)
		return -ENOENT;
	target[n] = '\0';
	if ((size_t)n + 1 + restlen >= sizeof(w->rest))
		return -ENAMETOOLONG;
	memmove(w->rest + n + 1, w->rest + w->pos, restlen + 1);
	memcpy(w->rest, target, (size_t)n);
	w->rest[n] = '/';
	w->pos = 0;
	return target[0] == '/' ? walk_to_root(w) : 0;
}

/*
 * From *vpp, found in the current directory, up through what is mounted
 * on it there: mounts on the directory in the mount that shows the
 * current one, then each on the last one's root.
 */
static void
cross_mounts(const struct walk *w, struct vnode **vpp)
{
	const struct mount *at;
	struct mount *m;

	if ((*vpp)->covered_by == NULL)
		return;
	at = vfs_mount_showing(w->ns, w->cur, w->nd->path);
	while ((m = vfs_mount_on(w->ns, at, *vpp)) != NULL) {
		struct vnode *root = m->root;

		vnode_ref(root);
		vnode_rel(*vpp);
		*vpp = root;
		at = m;
	}
}

/* Look up one name in the current directory; handles the last step. */
static int
walk_component(struct walk *w, const char *name, bool last, bool *donep)
{
	struct nameidata *nd = w->nd;
	struct vnode *next = NULL;
	int r;

	if (w->cur->type != VDIR)
		return -ENOTDIR;
	if ((r = vfs_access(w->p, w->cur, 1, false)) < 0)
		return r;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		if (name[1] == '.' && (r = walk_dotdot(w)) < 0)
			return r;
		if (last && (w->flags & LOOKUP_PARENT)) {
			/* mkdir("a/.."), rmdir("."): the caller decides. */
			vnode_ref(w->cur);
			nd->dvp = w->cur;
			nd->vp = w->cur;
			w->cur = NULL;
			strcpy(nd->last, name);
			*donep = true;
		}
		return 0;
	}
	r = ncache_lookup(w->cur, name, &next);
	if (r < 0 && !(r == -ENOENT && last && (w->flags & LOOKUP_PARENT)))
		return r;
	if (next != NULL)
		cross_mounts(w, &next);
	if (next != NULL && next->type == VLNK && (!last ||
	    (w->flags & LOOKUP_FOLLOW) || nd->trailing_slash)) {
		/* Linux checks only the links that end a path. */
		if ((r = last ? vfs_check_follow(w->p, w->cur, next) : 0) == 0)
			r = walk_symlink(w, next);
		vnode_rel(next);
		return r;
	}
	if (next != NULL)
		vnotify_seen(w->cur, name, next);
	if (last && (w->flags & LOOKUP_PARENT)) {
		nd->dvp = w->cur;
		w->cur = NULL;
		nd->vp = next;
		copy_str(nd->last, sizeof(nd->last), name);
		canon_push(nd->path, name);
		*donep = true;
		return 0;
	}
	walk_set(w, next);
	canon_push(nd->path, name);
	w->depth++;
	return 0;
}

/* LOOKUP_NO_XDEV: where the last step went is on the same mount. */
static int
walk_xdev(const struct walk *w)
{
	const struct vnode *at = w->cur != NULL ? w->cur : w->nd->vp;

	if (!(w->flags & LOOKUP_NO_XDEV) || at == NULL)
		return 0;
	return at->mount != w->mnt ? -EXDEV : 0;
}

static int
walk(struct walk *w)
{
	char name[VK_NAME_MAX + 1];
	bool last, done = false;
	size_t len;
	int r;

	while (!done && walk_next(w, name, &len, &last)) {
		if (len > VK_NAME_MAX)
			return -ENAMETOOLONG;
		w->jumped = false;
		if ((r = walk_component(w, name, last, &done)) < 0 ||
		    (r = walk_xdev(w)) < 0)
			return r;
	}
	if (done)
		return 0;
	if (w->nd->trailing_slash && w->cur->type != VDIR)
		return -ENOTDIR;
	w->nd->magic = w->jumped;
	if (w->flags & LOOKUP_PARENT) {
		/* The path named a directory itself ("/", "a/.."). */
		w->nd->dvp = w->cur;
		vnode_ref(w->cur);
		strcpy(w->nd->last, ".");
	}
	w->nd->vp = w->cur;
	w->cur = NULL;
	return 0;
}

int
vfs_lookup(struct proc *p, int dirfd, const char *path, unsigned flags,
    struct nameidata *nd)
{
	struct walk w;
	size_t len = strlen(path);
	int r;

	/*
	 * Field by field: zeroing the path buffers of w and nd (16 KiB) cost
	 * more than the rest of a short lookup.
	 */
	w.p = p;
	w.ns = vfs_ns(p);
	w.nd = nd;
	w.cur = w.root = NULL;
	w.root_path[0] = '\0';
	w.mnt = NULL;
	w.depth = 0;
	w.pos = 0;
	w.links = 0;
	w.flags = flags;
	w.jumped = false;
	nd->vp = nd->dvp = NULL;
	nd->last[0] = '\0';
	nd->trailing_slash = false;
	nd->magic = false;
	nd->path[0] = '\0';
	if (p->fs->root == NULL)
		return -ENOENT;
	if (len >= VK_PATH_MAX)
		return -ENAMETOOLONG;
	if (len == 0 && !(flags & LOOKUP_EMPTY))
		return -ENOENT;
	memcpy(w.rest, path, len + 1);
	nd->trailing_slash = len > 0 && path[len - 1] == '/';
	r = walk_start(&w, dirfd, path);
	if (r == 0)
		r = walk(&w);
	if (w.cur != NULL)
		vnode_rel(w.cur);
	if (w.root != NULL)
		vnode_rel(w.root);
	if (r < 0)
		nd_release(nd);
	return r;
}

void
nd_release(struct nameidata *nd)
{
	if (nd->vp != NULL)
		vnode_rel(nd->vp);
	if (nd->dvp != NULL)
		vnode_rel(nd->dvp);
	nd->vp = nd->dvp = NULL;
}

int
vfs_access(struct proc *p, struct vnode *vn, int want, bool real_ids)
{
	uint32_t uid = real_ids ? p->cred.uid : p->cred.fsuid;
	uint32_t gid = real_ids ? p->cred.gid : p->cred.fsgid;
	struct vattr va;
	uint32_t bits;
	int r;

	if ((r = vnode_getperm(vn, &va)) < 0)
		return r;
	if (uid == 0) {
		/* Root may do anything but run what nobody may run. */
		if ((want & 1) && vn->type != VDIR && !(va.mode & 0111))
			return -EACCES;
		return 0;
	}
	if (va.uid == uid)
		bits = (va.mode >> 6) & 7;
	else if (va.gid == gid || proc_in_groups(p, va.gid))
		bits = (va.mode >> 3) & 7;
	else
		bits = va.mode & 7;
	return (want & ~(int)bits) != 0 ? -EACCES : 0;
}
