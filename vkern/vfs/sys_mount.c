/*
 * mount(2) and umount2(2) on vkernel's own mount tables (vfs_mount.c),
 * the caller's namespace's: nothing here reaches the host's mounts.
 *
 * New file systems: tmpfs (size=, nr_inodes=, mode=, uid=, gid=), proc,
 * sysfs, devpts, mqueue.  Bind mounts put a directory's vnode as the root
 * of a new mount elsewhere.  MS_MOVE takes a mount with what is mounted on
 * it to another mount point.  Propagation types (MS_SHARED, MS_PRIVATE,
 * MS_SLAVE, MS_UNBINDABLE) follow Linux's rules (no bind of an
 * unbindable mount, no move out of a shared one), and what is mounted or
 * unmounted below a shared mount reaches its peers and slaves in the
 * other namespaces (vfs_propagate.c); in one namespace a mount shows
 * wherever its directory does anyway.
 *
 * A mount read-only alone (MS_REMOUNT | MS_BIND | MS_RDONLY) keeps
 * MS_RDONLY in its flags; its file system stays as it was, writable
 * through its other mounts.  The VFS asks vfs_path_writable() of the
 * path a change goes through.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/vfs/devpts/devpts.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/mqueuefs/mqueuefs.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/procfs/procfs.h"
#include "vkern/vfs/procfs/pseudofs.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"
#include "vkern/vm/vm_ram.h"

#include "vkern/kern/syscall_gen.h"

/* MS_NOUSER, which the UAPI header spells 1 << 31, an int overflow. */
#define MOUNT_NOUSER (1UL << 31)

/* Linux copies a page of options and a page of each name. */
#define MOUNT_STR_MAX VK_PAGE_SIZE

/* The flags of a new mount that the mount keeps. */
#define MOUNT_KEPT (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
#define MOUNT_PROPAGATION (MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE)
/* umount2(2)'s flags, which no UAPI header has. */
#define MNT_FORCE       0x1
#define MNT_DETACH      0x2
#define MNT_EXPIRE      0x4
#define UMOUNT_NOFOLLOW 0x8

struct tmpfs_args {
	uint64_t pages, nodes;
	uint32_t mode, uid, gid;
};

/* A number with an optional k, m, g or t suffix (tmpfs(5)'s sizes). */
static int
mount_scaled(const char *s, int base, uint64_t *out, char **endp)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno != 0)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (shift != 0 && v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	*endp = end;
	return 0;
}

/* A number as a whole option value: base 8 for mode=, else 10. */
static int
mount_number(const char *s, int base, bool scaled, uint64_t max,
    uint64_t *out)
{
	char *end;
	int r;

	if ((r = mount_scaled(s, base, out, &end)) < 0)
		return r;
	if (*end != '\0' || (!scaled && end[-1] > '9') || *out > max)
		return -EINVAL;
	return 0;
}

/* size= in bytes or N% of the RAM file, as pages. */
static int
tmpfs_size(const char *s, uint64_t *pages)
{
	uint64_t v, ram = vm_ram_limit();
	char *end;
	int r;

	if ((r = mount_scaled(s, 10, &v, &end)) < 0)
		return r;
	if (*end == '%' && end[1] == '\0' && end[-1] <= '9') {
		if (v > 100 * (UINT64_MAX / ram))
			return -EINVAL;
		v = ram / 100 * v;
	} else if (*end != '\0') {
		return -EINVAL;
	}
	*pages = v / VK_PAGE_SIZE + (v % VK_PAGE_SIZE != 0);
	return 0;
}

/* tmpfs(5)'s options; the size is half the RAM file unless given. */
static int
tmpfs_parse(char *data, struct tmpfs_args *ta)
{
	char *opt;
	uint64_t v;
	int r = 0;

	*ta = (struct tmpfs_args){ .mode = 01777,
	    .pages = vm_ram_limit() / 2 / VK_PAGE_SIZE };
	while (r == 0 && (opt = strsep(&data, ",")) != NULL) {
		char *val = strchr(opt, '=');

		if (val != NULL)
			*val++ = '\0';
		if (*opt == '\0')
			continue;
		if (val == NULL)
			r = -EINVAL;
		else if (strcmp(opt, "size") == 0)
			r = tmpfs_size(val, &ta->pages);
		else if (strcmp(opt, "nr_inodes") == 0)
			r = mount_number(val, 10, true, UINT32_MAX, &ta->nodes);
		else if (strcmp(opt, "mode") == 0 &&
		    (r = mount_number(val, 8, false, 07777, &v)) == 0)
			ta->mode = (uint32_t)v;
		else if (strcmp(opt, "uid") == 0 &&
		    (r = mount_number(val, 10, false, UINT32_MAX - 1, &v)) == 0)
			ta->uid = (uint32_t)v;
		else if (strcmp(opt, "gid") == 0 &&
		    (r = mount_number(val, 10, false, UINT32_MAX - 1, &v)) == 0)
			ta->gid = (uint32_t)v;
		else if (strcmp(opt, "size") != 0 && strcmp(opt, "nr_inodes") &&
		    strcmp(opt, "mode") && strcmp(opt, "uid") &&
		    strcmp(opt, "gid"))
			r = -EINVAL;
	}
	return r;
}

static int
mount_tmpfs(char *data, bool rdonly, struct mount **mpp)
{
	struct tmpfs_args ta;
	int r;

	if ((r = tmpfs_parse(data, &ta)) < 0)
		return r;
	if ((r = tmpfs_mount(rdonly, ta.mode, ta.uid, ta.gid, mpp)) < 0)
		return r;
	/* An empty tmpfs fits any bound of one node and one page. */
	return tmpfs_set_limits(*mpp, ta.pages, ta.nodes);
}

/* Options of the pseudo file systems are taken and ignored. */
static int
mount_proc(char *data, bool rdonly, struct mount **mpp)
{
	return procfs_mount(mpp);
}

static int
mount_sysfs(char *data, bool rdonly, struct mount **mpp)
{
	return sysfs_mount(mpp);
}

static int
mount_devpts(char *data, bool rdonly, struct mount **mpp)
{
	return devpts_mount(mpp);
}

static int
mount_mqueue(char *data, bool rdonly, struct mount **mpp)
{
	return mqueuefs_mount(mpp);
}

static const struct {
	const char *name;
	int (*mount)(char *data, bool rdonly, struct mount **mpp);
} mount_fstypes[] = {
	{ "tmpfs", mount_tmpfs },
	{ "proc", mount_proc },
	{ "sysfs", mount_sysfs },
	{ "devpts", mount_devpts },
	{ "mqueue", mount_mqueue },
};

/* What mount(2) copies in before it looks at anything. */
struct mount_strs {
	char type[MOUNT_STR_MAX];
	char source[MOUNT_STR_MAX];
	char data[MOUNT_STR_MAX];
	char target[VK_PATH_MAX];
	bool has_source;
};

/* Copy in a name of at most a page: EINVAL past it, as strndup_user. */
static long
mount_copystr(struct thread *td, uaddr_t u, char *buf)
{
	long r = copyinstr(td, u, buf, MOUNT_STR_MAX);

	return r == -ENAMETOOLONG ? -EINVAL : r;
}

static long
mount_copyin(struct thread *td, const struct sys_mount_args *a,
    struct mount_strs *ms)
{
	long r;

	if (a->fstype.va != 0 && (r = mount_copystr(td, a->fstype,
	    ms->type)) < 0)
		return r;
	ms->has_source = a->source.va != 0;
	if (ms->has_source && (r = mount_copystr(td, a->source,
	    ms->source)) < 0)
		return r;
	/* Linux takes what there is of a page of options. */
	if (a->data.va != 0 && (r = copyinstr(td, a->data, ms->data,
	    MOUNT_STR_MAX)) < 0 && r != -ENAMETOOLONG)
		return r;
	ms->data[MOUNT_STR_MAX - 1] = '\0';
	r = copyinstr(td, a->target, ms->target, VK_PATH_MAX);
	return r < 0 ? r : 0;
}

/* A new mount of a file system of ms->type on the directory nd found. */
static long
mount_new(struct mntns *ns, unsigned long flags, struct mount_strs *ms,
    struct nameidata *nd)
{
	struct mount *mp = NULL;
	long r;

	if ((r = vfs_mount_check(ns, nd->vp, nd->path)) < 0 ||
	    (r = vfs_mount_room(ns)) < 0)
		return r;
	r = -ENODEV;
	for (size_t i = 0; i < VK_NELEM(mount_fstypes); i++)
		if (strcmp(ms->type, mount_fstypes[i].name) == 0)
			r = mount_fstypes[i].mount(ms->data,
			    (flags & MS_RDONLY) != 0, &mp);
	if (r < 0)
		return r;
	mp->flags = flags & MOUNT_KEPT;
	if (ms->has_source)
		mount_set_source(mp, ms->source);
	if ((r = vfs_mount(ns, mp, nd->vp, nd->path)) == 0 &&
	    (r = vfs_mount_propagate(mp)) < 0)
		vfs_umount(mp);
	return r;
}

/*
 * What a bind or a copy of a mount takes: a directory (ENOTDIR), not on
 * an unbindable mount (EINVAL); *fromp is the mount it is on.
 */
static long
mount_source(const struct mntns *ns, const struct nameidata *snd,
    struct mount **fromp)
{
	struct mount *from = vfs_mount_holding(ns, snd->vp, snd->path);

	*fromp = from;
	if (snd->vp->type != VDIR)
		return -ENOTDIR;
	return from != NULL && from->unbindable ? -EINVAL : 0;
}

/*
 * MS_BIND: the source directory becomes the root of a mount on nd's,
 * with the flags of the mount it is on (Linux's clone_mnt()); with
 * MS_REC, copies of the mounts below the source go on it too.
 */
static long
mount_bind(struct thread *td, unsigned long flags, struct mount_strs *ms,
    struct nameidata *nd)
{
	struct mntns *ns = vfs_ns(td->proc);
	struct nameidata snd;
	struct mount *mp, *from;
	long r;

	if (!ms->has_source)
		return -EFAULT;
	if ((r = vfs_lookup(td->proc, AT_FDCWD, ms->source, LOOKUP_FOLLOW,
	    &snd)) < 0)
		return r;
	if ((r = mount_source(ns, &snd, &from)) == 0)
		r = vfs_mount_check(ns, nd->vp, nd->path);
	if (r == 0 && (mp = mount_dup(snd.vp->mount, snd.vp)) == NULL)
		r = -ENOMEM;
	if (r == 0) {
		if (from != NULL) {
			mp->flags = from->flags;
			mp->group = from->group;
			mp->master = from->master;
		}
		if ((r = vfs_mount(ns, mp, nd->vp, nd->path)) < 0)
			mount_free(mp);
		else if (((flags & MS_REC) &&
		    (r = vfs_mount_copy_below(mp, from, snd.path)) < 0) ||
		    (r = vfs_mount_propagate(mp)) < 0)
			vfs_umount_since(mp);
	}
	nd_release(&snd);
	return r;
}

/*
 * The mount at nd's path if nd names its root, or the root of what is
 * mounted below the root since it was made (lookups went on to that).
 */
static struct mount *
mount_of(const struct mntns *ns, const struct nameidata *nd)
{
	struct mount *mp = vfs_mount_at(ns, nd->path), *m, *at;

	if (mp == NULL && strcmp(nd->path, "/") == 0)
		mp = vfs_mount_of_path(ns, "/");
	if (mp == NULL)
		return NULL;
	for (at = mp; (m = vfs_mount_on(ns, at, at->root)) != NULL; at = m)
		;
	return at->root == nd->vp ? mp : NULL;
}

/*
 * A mount on a root would never be seen (lookups start at the root and
 * do not cross down from it) nor could it be taken away: EBUSY, as a
 * mount that is there already.
 */
static bool
mount_on_root(struct thread *td, const struct nameidata *nd)
{
	return nd->vp == vfs_root() || nd->vp == td->proc->fs->root;
}

/*
 * Whether a file is open for writing on fs (bind: through mp alone, by
 * a process of its namespace), which keeps it from going read-only
 * (EBUSY).
 */
static bool
mount_writers(struct mount *mp, struct mount *fs, bool bind)
{
	for (struct proc *p = proc_first(); p != NULL; p = p->next) {
		if (bind && vfs_ns(p) != mp->ns)
			continue;
		for (int fd = 0; p->fdt != NULL && fd < p->fdt->n; fd++) {
			struct file *fp = fd_get(p->fdt, fd);

			if (fp != NULL && fp->vn != NULL &&
			    fp->vn->mount == fs &&
			    (fp->flags & O_ACCMODE) != O_RDONLY && (!bind ||
			    vfs_mount_of_path(mp->ns, fp->path) == mp))
				return true;
		}
	}
	return false;
}

/*
 * MS_REMOUNT: with MS_BIND, the mount's own flags, read-only for it
 * alone (Linux's do_reconfigure_mnt()); without, the file system's
 * read-only and the mount's flags both (do_remount()).  A file system
 * vkernel's options made read-only stays so: EPERM, as a locked mount.
 */
static long
mount_remount(struct mntns *ns, unsigned long flags, struct nameidata *nd)
{
	struct mount *mp = mount_of(ns, nd), *fs;
	bool rdonly = (flags & MS_RDONLY) != 0, bind = (flags & MS_BIND) != 0;

	if (mp == NULL)
		return -EINVAL;
	fs = mp->root->mount;
	if (!rdonly && fs->ro_locked)
		return -EPERM;
	/* What goes read-only: the mount alone, or the file system. */
	if (rdonly && (bind ? !(mp->flags & MS_RDONLY) : !fs->rdonly) &&
	    mount_writers(mp, fs, bind))
		return -EBUSY;
	if (!bind)
		fs->rdonly = rdonly;
	mp->flags = flags & MOUNT_KEPT;
	return 0;
}

/*
 * What the paths of cwds and open files of ns's processes say below the
 * moved mount's old place now starts with its new one (as Linux's
 * d_path() would find).
 */
static void
mount_rebase_paths(const struct mntns *ns, const char *old, const char *path)
{
	size_t n = strlen(old);
	char *s;

	for (struct proc *p = proc_first(); p != NULL; p = p->next) {
		if (vfs_ns(p) != ns)
			continue;
		if (p->fs != NULL && p->fs->cwd_path != NULL &&
		    vfs_path_below(p->fs->cwd_path, old)) {
			s = vfs_path_rebase(p->fs->cwd_path, n, path);
			free(p->fs->cwd_path);
			p->fs->cwd_path = s;
		}
		for (int fd = 0; p->fdt != NULL && fd < p->fdt->n; fd++) {
			struct file *fp = fd_get(p->fdt, fd);

			if (fp == NULL || fp->vn == NULL ||
			    !vfs_path_below(fp->path, old))
				continue;
			/* A file's path is charged with it (file_alloc). */
			s = vfs_path_rebase(fp->path, n, path);
			kmem_strfree(fp->path, 0);
			fp->path = kmem_strdup(s, KM_FORCE);
			free(s);
		}
	}
}

/*
 * A move of the mount whose root snd names onto nd's directory, as
 * Linux's do_move_mount(): EINVAL for what is no mount or the root, what
 * is on a shared mount, a tree with an unbindable mount going onto a
 * shared one, or onto what is no directory; ELOOP onto itself or below
 * itself.
 */
static long
mount_move_to(struct thread *td, struct nameidata *snd, struct nameidata *nd)
{
	struct mntns *ns = vfs_ns(td->proc);
	struct mount *mp, *to = vfs_mount_of_path(ns, nd->path);
	char *old;
	long r;

	/* In Linux's order: "/" is below itself before it is the root. */
	mp = mount_of(ns, snd);
	if (mp == NULL || nd->vp->type != VDIR)
		r = -EINVAL;
	else if (mp->parent != NULL && mp->parent->group != 0)
		r = -EINVAL;
	else if (to != NULL && to->group != 0 &&
	    vfs_mount_tree_unbindable(mp))
		r = -EINVAL;
	else if (vfs_path_below(nd->path, mp->path))
		r = -ELOOP;
	else if (mp->covered == NULL || mount_on_root(td, snd))
		r = -EINVAL;
	else
		r = vfs_mount_check(ns, nd->vp, nd->path);
	if (r < 0)
		return r;
	old = vk_xmalloc(strlen(mp->path) + 1);
	strcpy(old, mp->path);
	vfs_mount_move(mp, nd->vp, nd->path);
	mount_rebase_paths(ns, old, nd->path);
	free(old);
	return 0;
}

/* MS_MOVE of the mount at the source path onto nd's directory. */
static long
mount_move(struct thread *td, struct mount_strs *ms, struct nameidata *nd)
{
	struct nameidata snd;
	long r;

	if (!ms->has_source || ms->source[0] == '\0')
		return -EINVAL;
	if ((r = vfs_lookup(td->proc, AT_FDCWD, ms->source, LOOKUP_FOLLOW,
	    &snd)) < 0)
		return r;
	r = mount_move_to(td, &snd, nd);
	nd_release(&snd);
	return r;
}

/* A propagation type: one of them (with MS_REC), on a mount's root. */
static long
mount_propagation(struct mntns *ns, unsigned long flags,
    struct nameidata *nd)
{
	unsigned long type = flags & MOUNT_PROPAGATION;
	struct mount *mp = mount_of(ns, nd);

	if ((type & (type - 1)) != 0 ||
	    (flags & ~(unsigned long)(MOUNT_PROPAGATION | MS_REC |
	    MS_SILENT)) != 0 || mp == NULL)
		return -EINVAL;
	vfs_mount_set_propagation(mp, type, (flags & MS_REC) != 0);
	return 0;
}

/* In Linux's order: the strings, the target, then the flags. */
long
sys_mount(struct thread *td, const struct sys_mount_args *a)
{
	unsigned long flags = a->flags;
	struct mount_strs *ms = calloc(1, sizeof(*ms));
	struct mntns *ns = vfs_ns(td->proc);
	struct nameidata nd;
	long r;

	if (ms == NULL)
		return -ENOMEM;
	if ((r = mount_copyin(td, a, ms)) < 0 ||
	    (r = vfs_lookup(td->proc, AT_FDCWD, ms->target, LOOKUP_FOLLOW,
	    &nd)) < 0) {
		free(ms);
		return r;
	}
	if ((flags & MS_MGC_MSK) == MS_MGC_VAL)
		flags &= ~(unsigned long)MS_MGC_MSK;
	if (flags & MOUNT_NOUSER)
		r = -EINVAL;
	else if (td->proc->cred.euid != 0)
		r = -EPERM;    /* CAP_SYS_ADMIN */
	else if (flags & MS_REMOUNT)
		r = mount_remount(ns, flags, &nd);
	else if (!(flags & MS_BIND) && (flags & MOUNT_PROPAGATION))
		r = mount_propagation(ns, flags, &nd);
	else if (mount_on_root(td, &nd))
		r = -EBUSY;
	else if (flags & MS_BIND)
		r = mount_bind(td, flags, ms, &nd);
	else if (flags & MS_MOVE)
		r = mount_move(td, ms, &nd);
	else if (a->fstype.va == 0)
		r = -EFAULT;
	else
		r = mount_new(ns, flags, ms, &nd);
	nd_release(&nd);
	free(ms);
	return r;
}

/* Whether m is a mount somewhere below mp's mount point. */
static bool
mount_under(const struct mount *m, const struct mount *mp)
{
	return m != mp && m->covered != NULL &&
	    strcmp(m->path, mp->path) != 0 && vfs_path_below(m->path, mp->path);
}

/*
 * Whether anything holds a place in mp: a mount below it, an open file
 * or a cwd of a process of its namespace.  Files are known by the paths
 * they were opened by, which is what a mount point is too.
 */
static bool
mount_busy(struct mount *mp)
{
	for (struct mount *m = vfs_mounts(mp->ns); m != NULL; m = m->next)
		if (mount_under(m, mp))
			return true;
	for (struct proc *p = proc_first(); p != NULL; p = p->next) {
		if (vfs_ns(p) != mp->ns)
			continue;
		if (p->fs != NULL && vfs_path_below(p->fs->cwd_path, mp->path))
			return true;
		for (int fd = 0; p->fdt != NULL && fd < p->fdt->n; fd++) {
			struct file *fp = fd_get(p->fdt, fd);

			if (fp != NULL && fp->vn != NULL &&
			    fp->vn->mount == mp->root->mount &&
			    vfs_path_below(fp->path, mp->path))
				return true;
		}
	}
	return false;
}

/* Unmount mp, and its copies in the namespaces it propagates to. */
static void
mount_take(struct mount *mp)
{
	vfs_umount_propagate(mp);
	vfs_umount(mp);
}

/*
 * MNT_DETACH: the mounts below mp go first, the last made first, in one
 * walk back through the table, begun again from its end only when an
 * unmount took more than its mount (copies on peers).
 */
static void
mount_detach(struct mount *mp)
{
	struct mntns *ns = mp->ns;
	struct mount *m = vfs_mounts_last(ns), *prev;
	int left;

	for (; m != NULL; m = prev) {
		prev = m->prev;
		if (!mount_under(m, mp))
			continue;
		left = vfs_mount_count(ns);
		mount_take(m);
		if (vfs_mount_count(ns) != left - 1)
			prev = vfs_mounts_last(ns);
	}
	mount_take(mp);
}

void
vfs_umount_gone(void)
{
	for (struct mntns *ns = mntns_next(NULL); ns != NULL;
	    ns = mntns_next(ns)) {
		for (;;) {
			struct mount *gone = NULL, *last = NULL;

			/* The last made on it or below it goes first. */
			for (struct mount *m = vfs_mounts(ns); m != NULL;
			    m = m->next) {
				if (gone == NULL && m->covered != NULL &&
				    pfs_vnode_gone(m->covered))
					gone = m;
				if (gone != NULL && m->covered != NULL &&
				    vfs_path_below(m->path, gone->path))
					last = m;
			}
			if (gone == NULL)
				break;
			vfs_umount(last);
		}
	}
}

/* In Linux's order: the flags, the target, the privilege, the mount. */
long
sys_umount2(struct thread *td, const struct sys_umount2_args *a)
{
	unsigned flags = a->flags;
	char *path;
	struct nameidata nd;
	struct mount *mp;
	long r;

	if (flags & ~(unsigned)(MNT_FORCE | MNT_DETACH | MNT_EXPIRE |
	    UMOUNT_NOFOLLOW))
		return -EINVAL;
	if ((path = malloc(VK_PATH_MAX)) == NULL)
		return -ENOMEM;
	if ((r = copyinstr(td, a->target, path, VK_PATH_MAX)) >= 0)
		r = vfs_lookup(td->proc, AT_FDCWD, path,
		    (flags & UMOUNT_NOFOLLOW) ? 0 : LOOKUP_FOLLOW, &nd);
	free(path);
	if (r < 0)
		return r;
	if (td->proc->cred.euid != 0)
		r = -EPERM;    /* CAP_SYS_ADMIN */
	else if ((mp = mount_of(vfs_ns(td->proc), &nd)) == NULL ||
	    mp->covered == NULL)
		r = -EINVAL;    /* the root has nowhere to go back to */
	else if ((flags & MNT_EXPIRE) && (flags & (MNT_FORCE | MNT_DETACH)))
		r = -EINVAL;
	else if (flags & MNT_EXPIRE)
		r = -EAGAIN;   /* the first call only marks it, as Linux */
	else if (!(flags & MNT_DETACH) && mount_busy(mp))
		r = -EBUSY;
	nd_release(&nd);
	if (r == 0 && (flags & MNT_DETACH))
		mount_detach(mp);
	else if (r == 0)
		mount_take(mp);
	return r;
}

#define OPEN_TREE_FLAGS (AT_EMPTY_PATH | AT_NO_AUTOMOUNT | AT_RECURSIVE | \
    AT_SYMLINK_NOFOLLOW | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)

/*
 * The file of dfd when it holds a detached tree (OPEN_TREE_CLONE's, not
 * attached yet) and path, relative, is looked up from it; else NULL.
 */
static struct file *
mount_tree_file(struct proc *p, int dfd, const char *path)
{
	struct file *fp = path[0] != '/' ? fd_get(p->fdt, dfd) : NULL;

	return fp != NULL && fp->tree != NULL &&
	    mntns_root(fp->tree) != NULL ? fp : NULL;
}

/*
 * OPEN_TREE_CLONE: an O_PATH file of the directory path names, holding a
 * detached copy of its mount (with AT_RECURSIVE, of the mounts on it
 * too), as Linux's open_detached_copy().  Only directories are mounted
 * here: ENOTDIR for another file.  A copy of an unbindable mount is
 * EINVAL, as a bind of one.
 */
static long
open_tree_clone(struct thread *td, int dfd, const char *path,
    unsigned flags, unsigned lookup)
{
	struct proc *p = td->proc;
	struct mntns *ns = vfs_ns(p), *tree = NULL;
	struct nameidata nd;
	struct mount *from;
	struct file *fp;
	long r;

	if ((r = vfs_lookup(p, dfd, path, lookup, &nd)) < 0)
		return r;
	if ((r = mount_source(ns, &nd, &from)) == 0 &&
	    (tree = mntns_tree(ns, from, nd.vp, nd.path,
	    (flags & AT_RECURSIVE) != 0)) == NULL)
		r = -ENOMEM;
	if (r == 0) {
		vnode_ref(nd.vp);
		fp = file_alloc(&vn_fileops, nd.vp, O_PATH, nd.path);
		fp->tree = tree;
		r = fd_alloc(p->fdt, fp, 0, proc_nofile(p),
		    (flags & OPEN_TREE_CLOEXEC) != 0);
	}
	nd_release(&nd);
	return r;
}

/*
 * open_tree(2), in Linux's order: the flags, the privilege a copy needs
 * (CAP_SYS_ADMIN), the path.  Without OPEN_TREE_CLONE it is an O_PATH
 * open.  AT_NO_AUTOMOUNT changes nothing: nothing mounts itself here.
 */
long
sys_open_tree(struct thread *td, const struct sys_open_tree_args *a)
{
	unsigned flags = a->flags, lookup = 0;
	char *path;
	long r;

	if ((flags & ~(unsigned)OPEN_TREE_FLAGS) != 0 ||
	    (flags & (AT_RECURSIVE | OPEN_TREE_CLONE)) == AT_RECURSIVE)
		return -EINVAL;
	if ((flags & OPEN_TREE_CLONE) && td->proc->cred.euid != 0)
		return -EPERM;
	if (flags & AT_EMPTY_PATH)
		lookup |= LOOKUP_EMPTY;
	if ((path = malloc(VK_PATH_MAX)) == NULL)
		return -ENOMEM;
	if ((r = copyinstr(td, a->path, path, VK_PATH_MAX)) >= 0 &&
	    (flags & OPEN_TREE_CLONE))
		r = open_tree_clone(td, a->dfd, path, flags, lookup |
		    ((flags & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW));
	else if (r >= 0)
		r = kern_openat(td, a->dfd, path, O_PATH |
		    ((flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0) |
		    (flags & OPEN_TREE_CLOEXEC), 0, lookup);
	free(path);
	return r;
}

/*
 * A detached tree goes onto nd's directory, as Linux's do_move_mount()
 * of an anonymous namespace's root; the file that held it names the
 * attached mount after, which another move_mount(2) of it moves.
 */
static long
move_mount_attach(struct thread *td, struct file *fp, struct nameidata *nd)
{
	struct mntns *ns = vfs_ns(td->proc);
	struct mount *root = mntns_root(fp->tree);
	long r;

	if (nd->vp->type != VDIR)
		return -EINVAL;
	if ((r = vfs_mount_check(ns, nd->vp, nd->path)) < 0)
		return r;
	if ((r = mntns_attach(fp->tree, ns, nd->vp, nd->path)) < 0)
		return r;
	if ((r = vfs_mount_propagate(root)) < 0) {
		mntns_unattach(fp->tree, ns, root);
		return r;
	}
	/* A file's path is charged with it (file_alloc). */
	kmem_strfree(fp->path, 0);
	fp->path = kmem_strdup(nd->path, KM_FORCE);
	return 0;
}

/* A lookup of one side of a move_mount(2), with its flags. */
static long
move_mount_lookup(struct thread *td, int dfd, uaddr_t upath, char *path,
    bool follow, bool empty, struct nameidata *nd)
{
	long r;

	if ((r = copyinstr(td, upath, path, VK_PATH_MAX)) < 0)
		return r;
	return vfs_lookup(td->proc, dfd, path, (follow ? LOOKUP_FOLLOW : 0) |
	    (empty ? LOOKUP_EMPTY : 0), nd);
}

/*
 * Both sides looked up: from is the file of a detached tree on the from
 * side, to one on the to side, or NULL.
 */
static long
move_mount_do(struct thread *td, struct file *from, struct nameidata *fnd,
    struct file *to, struct nameidata *tnd)
{
	if (to != NULL || (from != NULL && (fnd->vp != from->vn ||
	    strcmp(fnd->path, from->path) != 0)))
		return -EINVAL;
	if (mount_on_root(td, tnd))
		return -EBUSY;
	if (from != NULL)
		return move_mount_attach(td, from, tnd);
	return mount_move_to(td, fnd, tnd);
}

/*
 * move_mount(2), in Linux's order: the privilege (CAP_SYS_ADMIN), the
 * flags, the from path, the to path.  The from side is a detached tree
 * (the file of an open_tree(2) copy, by "" with MOVE_MOUNT_F_EMPTY_PATH
 * or "."), which is attached, or a mount's root, which is moved as
 * MS_MOVE moves it.  A place inside a detached tree is EINVAL on either
 * side.  XXX: MOVE_MOUNT_SET_GROUP is EINVAL.
 */
long
sys_move_mount(struct thread *td, const struct sys_move_mount_args *a)
{
	unsigned flags = a->flags;
	struct nameidata fnd, tnd;
	struct file *from, *to;
	char *path;
	long r;

	if (td->proc->cred.euid != 0)
		return -EPERM;
	if ((flags & ~(unsigned)MOVE_MOUNT__MASK) != 0 ||
	    (flags & MOVE_MOUNT_SET_GROUP))
		return -EINVAL;
	if ((path = malloc(VK_PATH_MAX)) == NULL)
		return -ENOMEM;
	if ((r = move_mount_lookup(td, a->from_dfd, a->from_path, path,
	    flags & MOVE_MOUNT_F_SYMLINKS, flags & MOVE_MOUNT_F_EMPTY_PATH,
	    &fnd)) < 0) {
		free(path);
		return r;
	}
	/* Held while the other side is looked up. */
	if ((from = mount_tree_file(td->proc, a->from_dfd, path)) != NULL)
		file_ref(from);
	if ((r = move_mount_lookup(td, a->to_dfd, a->to_path, path,
	    flags & MOVE_MOUNT_T_SYMLINKS, flags & MOVE_MOUNT_T_EMPTY_PATH,
	    &tnd)) == 0) {
		to = mount_tree_file(td->proc, a->to_dfd, path);
		r = move_mount_do(td, from, &fnd, to, &tnd);
		nd_release(&tnd);
	}
	if (from != NULL)
		file_rel(from);
	nd_release(&fnd);
	free(path);
	return r;
}
