/*
 * pseudofs: table-driven synthetic file systems (see pseudofs.h).
 *
 * A vnode's data is its node: (kind, pid, arg), normalised so that the
 * numbers a row's scope does not use are 0.  Every op first resolves the
 * node against the process table (pfs_resolve); a node whose process,
 * thread or fd is gone answers -ENOENT (-ESRCH for read, as Linux does
 * for a task that has exited), so an open /proc/PID file outliving its
 * process is harmless.  Content is generated whole on each read and the
 * requested slice copied out: no per-open state exists to cache it in.
 *
 * Inode numbers pack the key: pid in bits 32 and up, arg in bits 8-31,
 * kind + 1 in bits 0-7.  Directory cookies: 0 is ".", 1 is "..", 2 + i
 * is table row i, and 2 + nspecs + n is numbered entry n; an entry's
 * cookie is that of the position after it.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/procfs/pseudofs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"

/* The kind must fit the inode number's low byte. */
#define PFS_MAXSPECS 255

/*
 * The nodes that have a vnode, by their key: a guest may hold as many as
 * --mem has room for, each found again at every lookup.
 */
#define PFS_BUCKETS 512

struct pfs_fs {
	const struct pfs_spec *specs;
	size_t nspecs;
	bool syncs;     /* fsync(2) succeeds, as on sysfs; else EINVAL */
	struct mount *mp;
	struct pfs_node *live[PFS_BUCKETS];
	unsigned nlive;
};

struct pfs_node {
	struct pfs_fs *fs;
	struct vnode *vn;
	int kind, pid, arg;
	struct pfs_node *next;
	/*
	 * The text a read from offset 0 made, kept (charged to the
	 * sandbox with the node, which may outlive the process that read
	 * it) while its reader is part way through it, so that
	 * reading a long file in pieces does not make it again for each
	 * piece.  Only that process reads it: what a file shows may
	 * depend on who reads it (procfs_may_read(), namespaces).
	 */
	char *snap;
	size_t snap_len;
	int snap_pid;
	uint64_t snap_start;          /* with the pid: no other process */
};

static const struct vnode_ops pfs_vnops;

/* --- text buffers --- */

/* Room for more bytes and a NUL after them. */
static void
sbuf_reserve(struct sbuf *sb, size_t more)
{
	size_t cap = sb->cap != 0 ? sb->cap : 256;

	if (sb->len + more < sb->cap)
		return;
	while (cap <= sb->len + more)
		cap *= 2;
	sb->buf = vk_xrealloc(sb->buf, cap);
	sb->cap = cap;
}

void
sbuf_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	sbuf_reserve(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void
sbuf_append(struct sbuf *sb, const void *p, size_t n)
{
	sbuf_reserve(sb, n);
	if (n > 0)
		memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

/* As Linux's mangle() for /proc/mounts: the separators become \ooo. */
void
sbuf_escape(struct sbuf *sb, const char *s)
{
	for (; *s != '\0'; s++) {
		if (strchr(" \t\n\\", *s) != NULL)
			sbuf_printf(sb, "\\%03o", (unsigned char)*s);
		else
			sbuf_append(sb, s, 1);
	}
}

void
sbuf_free(struct sbuf *sb)
{
	free(sb->buf);
	*sb = (struct sbuf){ 0 };
}

/* --- time --- */

int64_t
pfs_boot_ns(void)
{
	return kern_boot_ns();
}

int64_t
pfs_realtime_of(int64_t mono_ns)
{
	return plat_clock_ns(CLOCK_REALTIME) -
	    (plat_clock_ns(CLOCK_MONOTONIC) - mono_ns);
}

/* --- nodes --- */

/* Zero the numbers that the row's scope does not use. */
static void
pfs_key_norm(const struct pfs_fs *fs, int kind, int *pid, int *arg)
{
	enum pfs_scope s = fs->specs[kind].scope;

	if (s == PFS_GLOBAL || s == PFS_CPU)
		*pid = 0;
	if (s == PFS_GLOBAL || s == PFS_PROC)
		*arg = 0;
}

static uint64_t
pfs_ino(const struct pfs_fs *fs, int kind, int pid, int arg)
{
	pfs_key_norm(fs, kind, &pid, &arg);
	return (uint64_t)(unsigned)pid << 32 |
	    (uint64_t)((unsigned)arg & 0xffffff) << 8 | (uint64_t)(kind + 1);
}

static struct pfs_node **
pfs_bucket(struct pfs_fs *fs, int kind, int pid, int arg)
{
	uint64_t h = ((uint64_t)(unsigned)pid << 32 | (unsigned)arg) *
	    0x9e3779b97f4a7c15ULL + (unsigned)kind;

	return &fs->live[(h >> 32) % PFS_BUCKETS];
}

/*
 * The node's vnode, referenced: the live one, or a new one, whose node is
 * charged to the sandbox (a guest holding many files of /proc must run
 * out of --mem, not vkernel out of the host's memory); NULL when it does
 * not fit.
 */
static struct vnode *
pfs_vnode(struct pfs_fs *fs, int kind, int pid, int arg)
{
	struct pfs_node *pn, **bucket;

	pfs_key_norm(fs, kind, &pid, &arg);
	bucket = pfs_bucket(fs, kind, pid, arg);
	for (pn = *bucket; pn != NULL; pn = pn->next) {
		if (pn->kind == kind && pn->pid == pid && pn->arg == arg) {
			vnode_ref(pn->vn);
			return pn->vn;
		}
	}
	if ((pn = kmem_alloc(sizeof(*pn), KM_ZERO | KM_FS)) == NULL)
		return NULL;
	pn->fs = fs;
	pn->kind = kind;
	pn->pid = pid;
	pn->arg = arg;
	pn->vn = vnode_alloc(fs->mp, vtype_from_mode(fs->specs[kind].mode),
	    &pfs_vnops, pn);
	pn->next = *bucket;
	*bucket = pn;
	fs->nlive++;
	return pn->vn;
}

/*
 * Whether the node exists now: its process is in the table and not
 * exiting, and so are its thread or fd; its CPU is one the guest sees;
 * and the row's own test says yes.  Fills c for the generators.
 * Returns 0 or -ENOENT.
 */
static int
pfs_resolve(const struct pfs_fs *fs, int kind, int pid, int arg,
    struct pfs_ctx *c)
{
	const struct pfs_spec *sp = &fs->specs[kind];
	struct proc *p;

	*c = (struct pfs_ctx){ .pid = pid, .arg = arg };
	if (sp->scope == PFS_CPU && (arg < 0 || arg >= plat_ncpus()))
		return -ENOENT;
	if (sp->scope != PFS_GLOBAL && sp->scope != PFS_CPU) {
		if ((p = proc_find(pid)) == NULL || p->exiting)
			return -ENOENT;
		if (sp->scope == PFS_THREAD && proc_thread(p, arg) == NULL)
			return -ENOENT;
		if (sp->scope == PFS_FD && fd_get(p->fdt, arg) == NULL)
			return -ENOENT;
		c->p = p;
	}
	if (sp->exists != NULL && !sp->exists(c))
		return -ENOENT;
	return 0;
}

static int
pfs_node_resolve(const struct pfs_node *pn, struct pfs_ctx *c)
{
	return pfs_resolve(pn->fs, pn->kind, pn->pid, pn->arg, c);
}

/*
 * The smallest number at or above from that a numbered row of scope s
 * has in the directory of c: a live pid, the tid, an open fd.  Returns
 * false when there is none.  The process table is searched whole rather
 * than trusting its order, so that a resumed readdir skips nothing.
 */
static bool
pfs_number_next(enum pfs_scope s, const struct pfs_ctx *c, long from,
    int *np)
{
	bool found = false;

	if (s == PFS_PROC) {
		for (struct proc *p = proc_first(); p != NULL; p = p->next) {
			if (p->pid >= from && !p->exiting &&
			    (!found || p->pid < *np)) {
				*np = p->pid;
				found = true;
			}
		}
	} else if (s == PFS_THREAD) {
		VK_ASSERT(c->p != NULL);
		for (struct thread *td = c->p->threads; td != NULL;
		    td = td->tnext) {
			if (td->tid >= from && (!found || td->tid < *np)) {
				*np = td->tid;
				found = true;
			}
		}
	} else if (s == PFS_FD) {
		VK_ASSERT(c->p != NULL);
		int fd = from > INT_MAX ? -1 :
		    fd_next(c->p->fdt, (int)VK_MAX(from, 0));

		found = fd >= 0;
		*np = fd;
	} else if (s == PFS_CPU && VK_MAX(from, 0) < plat_ncpus()) {
		*np = (int)VK_MAX(from, 0);
		found = true;
	}
	return found;
}

/* The key of numbered entry n of directory dn. */
static void
pfs_numbered_key(const struct pfs_node *dn, int n, int *pidp, int *argp)
{
	const struct pfs_spec *specs = dn->fs->specs;

	if (specs[specs[dn->kind].numbered].scope == PFS_PROC) {
		*pidp = n;
		*argp = 0;
	} else {
		*pidp = dn->pid;
		*argp = n;
	}
}

/* Whether row i is a named entry of directory row dir. */
static bool
pfs_is_child(const struct pfs_fs *fs, size_t i, int dir)
{
	return i > 0 && fs->specs[i].parent == dir &&
	    fs->specs[i].name != NULL;
}

/* The row named name in directory row dir, or -1. */
static int
pfs_child(const struct pfs_fs *fs, int dir, const char *name)
{
	for (size_t i = 1; i < fs->nspecs; i++)
		if (pfs_is_child(fs, i, dir) &&
		    strcmp(fs->specs[i].name, name) == 0)
			return (int)i;
	return -1;
}

/*
 * A decimal number as Linux takes a pid or fd name (name_to_int): digits
 * only, no sign, no leading zero, no overflow.
 */
static bool
pfs_parse_num(const char *name, int *np)
{
	long v = 0;

	if (name[0] == '\0' || (name[0] == '0' && name[1] != '\0'))
		return false;
	for (const char *s = name; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return false;
	}
	*np = (int)v;
	return true;
}

/* Content or target of the node into sb. */
static int
pfs_generate(const struct pfs_node *pn, const struct pfs_ctx *c,
    struct sbuf *sb)
{
	const struct pfs_spec *sp = &pn->fs->specs[pn->kind];

	if (sp->gen != NULL)
		return sp->gen(c, sb);
	if (sp->text != NULL)
		sbuf_append(sb, sp->text, strlen(sp->text));
	return 0;
}

/* --- vnode ops --- */

static int
pfs_lookup(struct vnode *dvn, const char *name, struct vnode **vpp)
{
	struct pfs_node *dn = dvn->data;
	struct pfs_fs *fs = dn->fs;
	int numbered = fs->specs[dn->kind].numbered;
	const char *prefix;
	struct pfs_ctx c;
	int r, kind, n, pid, arg;

	if (dvn->type != VDIR)
		return -ENOTDIR;
	if ((r = pfs_node_resolve(dn, &c)) < 0)
		return r;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		kind = name[1] == '.' ? fs->specs[dn->kind].parent : dn->kind;
		*vpp = pfs_vnode(fs, kind, dn->pid, dn->arg);
		return *vpp != NULL ? 0 : -ENOMEM;
	}
	if ((kind = pfs_child(fs, dn->kind, name)) >= 0) {
		if (fs->specs[kind].exists != NULL &&
		    !fs->specs[kind].exists(&c))
			return -ENOENT;
		*vpp = pfs_vnode(fs, kind, dn->pid, dn->arg);
		return *vpp != NULL ? 0 : -ENOMEM;
	}
	if (numbered == 0)
		return -ENOENT;
	prefix = fs->specs[numbered].prefix != NULL ?
	    fs->specs[numbered].prefix : "";
	if (strncmp(name, prefix, strlen(prefix)) != 0 ||
	    !pfs_parse_num(name + strlen(prefix), &n))
		return -ENOENT;
	pfs_numbered_key(dn, n, &pid, &arg);
	if ((r = pfs_resolve(fs, numbered, pid, arg, &c)) < 0)
		return r;
	*vpp = pfs_vnode(fs, numbered, pid, arg);
	return *vpp != NULL ? 0 : -ENOMEM;
}

/* Linux's fd links show how the file is open (fs/proc/fd.c). */
static uint32_t
pfs_mode(const struct pfs_node *pn, const struct pfs_ctx *c)
{
	const struct pfs_spec *sp = &pn->fs->specs[pn->kind];
	struct file *fp;
	uint32_t m = 0;

	if (sp->scope != PFS_FD || !S_ISLNK(sp->mode))
		return sp->mode;
	fp = fd_get(c->p->fdt, c->arg);
	if (file_readable(fp))
		m |= S_IRUSR | S_IXUSR;
	if (file_writable(fp))
		m |= S_IWUSR | S_IXUSR;
	return S_IFLNK | m;
}

/* A directory's links: ".", its entry, and each subdirectory's "..". */
static uint64_t
pfs_nlink(const struct pfs_node *dn, const struct pfs_ctx *c)
{
	const struct pfs_fs *fs = dn->fs;
	int numbered = fs->specs[dn->kind].numbered;
	uint64_t n = 2;
	int id;

	for (size_t i = 1; i < fs->nspecs; i++)
		if (pfs_is_child(fs, i, dn->kind) &&
		    S_ISDIR(fs->specs[i].mode))
			n++;
	if (numbered == 0 || !S_ISDIR(fs->specs[numbered].mode))
		return n;
	for (long from = 0; pfs_number_next(fs->specs[numbered].scope, c,
	    from, &id); from = (long)id + 1)
		n++;
	return n;
}

/*
 * Owned by the process's effective ids, as Linux's task_dump_owner()
 * does for a dumpable task; timestamped with its start (or the boot).
 */
static int
pfs_getattr(struct vnode *vn, struct vattr *va)
{
	struct pfs_node *pn = vn->data;
	struct pfs_ctx c;
	int64_t t;
	int r;

	if ((r = pfs_node_resolve(pn, &c)) < 0)
		return r;
	t = pfs_realtime_of(c.p != NULL ? (int64_t)c.p->start_ns :
	    pfs_boot_ns());
	*va = (struct vattr){
		.dev = vn->mount->dev,
		.blksize = 1024,
		/* No birth time, as Linux's procfs and sysfs keep none. */
		.atime_ns = t, .mtime_ns = t, .ctime_ns = t,
	};
	va->ino = pfs_ino(pn->fs, pn->kind, pn->pid, pn->arg);
	va->mode = pfs_mode(pn, &c);
	va->nlink = vn->type == VDIR ? pfs_nlink(pn, &c) : 1;
	if (c.p != NULL) {
		va->uid = c.p->cred.euid;
		va->gid = c.p->cred.egid;
	}
	return 0;
}

/*
 * Nothing here can change; chmod of a /proc file is EPERM in Linux.  A
 * size change is taken and ignored, as Linux's procfs does, so that
 * open(O_TRUNC) of a writable file ("echo x > /proc/self/comm") works.
 */
static int
pfs_setattr(struct vnode *vn, const struct vattr *va, unsigned mask)
{
	return mask == VA_SIZE && vn->type == VREG ? 0 : -EPERM;
}

static void
pfs_snap_drop(struct pfs_node *pn)
{
	if (pn->snap != NULL)
		kmem_free(pn->snap, pn->snap_len, KM_FS);
	pn->snap = NULL;
	pn->snap_len = 0;
}

/*
 * Keep text for the reads that follow one that took less than all of
 * it, for the process reading.
 */
static void
pfs_snap_keep(struct pfs_node *pn, const struct sbuf *sb)
{
	pfs_snap_drop(pn);
	if (curthread == NULL ||
	    (pn->snap = kmem_alloc(sb->len, KM_FS)) == NULL)
		return;
	memcpy(pn->snap, sb->buf, sb->len);
	pn->snap_len = sb->len;
	pn->snap_pid = curthread->proc->pid;
	pn->snap_start = curthread->proc->start_ns;
}

/* Whether pn keeps text that the reading process made. */
static bool
pfs_snap_ours(const struct pfs_node *pn)
{
	return pn->snap != NULL && curthread != NULL &&
	    curthread->proc->pid == pn->snap_pid &&
	    curthread->proc->start_ns == pn->snap_start;
}

/* len bytes at off of text of n bytes into buf: how many. */
static long
pfs_copy(void *buf, size_t len, uint64_t off, const char *text, size_t n)
{
	long r = off < n ? (long)VK_MIN(len, n - off) : 0;

	if (r > 0)
		memcpy(buf, text + off, (size_t)r);
	return r;
}

/*
 * Sizes are 0, as in Linux: readers read until a read returns 0.  A read
 * from offset 0 makes the text anew; one further on by the same process
 * reads what the last such read made while it is kept, up to its end, as
 * Linux's seq_file goes on from where the last read stopped.
 */
static long
pfs_read(struct vnode *vn, void *buf, size_t len, uint64_t off)
{
	struct pfs_node *pn = vn->data;
	struct sbuf sb = { 0 };
	struct pfs_ctx c;
	long r;

	if (vn->type == VDIR)
		return -EISDIR;
	if (vn->type != VREG)
		return -EINVAL;
	if (pfs_node_resolve(pn, &c) < 0)
		return -ESRCH;
	if (off > 0 && pfs_snap_ours(pn)) {
		r = pfs_copy(buf, len, off, pn->snap, pn->snap_len);
		if (off + (uint64_t)r >= pn->snap_len)
			pfs_snap_drop(pn);
		return r;
	}
	if ((r = pfs_generate(pn, &c, &sb)) == 0) {
		r = pfs_copy(buf, len, off, sb.buf, sb.len);
		if (off == 0 && (size_t)r < sb.len)
			pfs_snap_keep(pn, &sb);
	}
	sbuf_free(&sb);
	return r;
}

/*
 * Only a file with a write method takes writes.  Linux answers a global
 * proc file without one with EIO (proc_reg_write) and a per-process one
 * with EINVAL (vfs_write without f_op->write); root can open either for
 * writing, so the error comes here.
 */
static long
pfs_write(struct vnode *vn, const void *buf, size_t len, uint64_t off)
{
	struct pfs_node *pn = vn->data;
	const struct pfs_spec *spec = &pn->fs->specs[pn->kind];
	struct pfs_ctx c;

	if (vn->type == VDIR)
		return -EISDIR;
	if (spec->write == NULL)
		return spec->scope == PFS_GLOBAL ? -EIO : -EINVAL;
	if (pfs_node_resolve(pn, &c) < 0)
		return -ESRCH;
	return spec->write(&c, buf, len);
}

static long
pfs_readlink(struct vnode *vn, char *buf, size_t size)
{
	struct pfs_node *pn = vn->data;
	struct sbuf sb = { 0 };
	struct pfs_ctx c;
	long r;

	if (vn->type != VLNK)
		return -EINVAL;
	if ((r = pfs_node_resolve(pn, &c)) < 0)
		return r;
	if ((r = pfs_generate(pn, &c, &sb)) == 0) {
		r = (long)VK_MIN(size, sb.len);
		if (r > 0)
			memcpy(buf, sb.buf, (size_t)r);
	}
	sbuf_free(&sb);
	return r;
}

/*
 * The named rows of dn (whose context is c) from cookie on.  Returns
 * fn's stop, or 0.
 */
static int
pfs_readdir_rows(struct pfs_node *dn, const struct pfs_ctx *c,
    uint64_t cookie, vfs_dirent_fn fn, void *arg)
{
	struct pfs_fs *fs = dn->fs;

	for (uint64_t i = VK_MAX(cookie, 2) - 2; i < fs->nspecs; i++) {
		const struct pfs_spec *sp = &fs->specs[i];
		int r;

		if (!pfs_is_child(fs, i, dn->kind) ||
		    (sp->exists != NULL && !sp->exists(c)))
			continue;
		r = fn(arg, sp->name, strlen(sp->name),
		    pfs_ino(fs, (int)i, dn->pid, dn->arg),
		    vtype_from_mode(sp->mode), i + 3);
		if (r != 0)
			return r;
	}
	return 0;
}

/* The numbered entries of dn from cookie on, in increasing order. */
static void
pfs_readdir_numbers(struct pfs_node *dn, const struct pfs_ctx *c,
    uint64_t cookie, vfs_dirent_fn fn, void *arg)
{
	struct pfs_fs *fs = dn->fs;
	int kind = fs->specs[dn->kind].numbered;
	uint64_t base = 2 + fs->nspecs;
	enum vtype type = vtype_from_mode(fs->specs[kind].mode);
	const char *prefix = fs->specs[kind].prefix != NULL ?
	    fs->specs[kind].prefix : "";
	char name[32];
	int id, pid, a, n;

	if (kind == 0 || (cookie > base && cookie - base > INT_MAX))
		return;
	for (long from = cookie > base ? (long)(cookie - base) : 0;
	    pfs_number_next(fs->specs[kind].scope, c, from, &id);
	    from = (long)id + 1) {
		pfs_numbered_key(dn, id, &pid, &a);
		n = snprintf(name, sizeof(name), "%.15s%d", prefix, id);
		if (fn(arg, name, (size_t)n, pfs_ino(fs, kind, pid, a), type,
		    base + (uint64_t)id + 1) != 0)
			return;
	}
}

static int
pfs_readdir(struct vnode *dvn, uint64_t cookie, vfs_dirent_fn fn,
    void *arg)
{
	struct pfs_node *dn = dvn->data;
	struct pfs_fs *fs = dn->fs;
	uint64_t up = pfs_ino(fs, fs->specs[dn->kind].parent, dn->pid,
	    dn->arg);
	struct pfs_ctx c;
	int r;

	if (dvn->type != VDIR)
		return -ENOTDIR;
	if ((r = pfs_node_resolve(dn, &c)) < 0)
		return r;
	if (cookie == 0 && fn(arg, ".", 1, pfs_ino(fs, dn->kind, dn->pid,
	    dn->arg), VDIR, 1) != 0)
		return 0;
	if (cookie <= 1 && fn(arg, "..", 2, up, VDIR, 2) != 0)
		return 0;
	if (pfs_readdir_rows(dn, &c, cookie, fn, arg) != 0)
		return 0;
	pfs_readdir_numbers(dn, &c, cookie, fn, arg);
	return 0;
}

/* The tree is the kernel's to shape: mknod, mkdir and symlink are EPERM. */
static int
pfs_create(struct vnode *dvn, const char *name, uint32_t mode,
    uint64_t rdev, const char *target, uint32_t uid, uint32_t gid,
    struct vnode **vpp)
{
	return dvn->type == VDIR ? -EPERM : -ENOTDIR;
}

static int
pfs_link(struct vnode *dvn, const char *name, struct vnode *vn)
{
	return -EPERM;
}

/* ENOENT for a name that is not there, as unlink(2) says first. */
static int
pfs_remove(struct vnode *dvn, const char *name, bool rmdir)
{
	struct vnode *vn;
	int r;

	if ((r = pfs_lookup(dvn, name, &vn)) < 0)
		return r;
	vnode_rel(vn);
	return -EPERM;
}

static int
pfs_rename(struct vnode *fromdir, const char *from, struct vnode *todir,
    const char *to, unsigned flags)
{
	return -EPERM;
}

static void
pfs_inactive(struct vnode *vn)
{
	struct pfs_node *pn = vn->data;
	struct pfs_node **pp;

	for (pp = pfs_bucket(pn->fs, pn->kind, pn->pid, pn->arg); *pp != NULL;
	    pp = &(*pp)->next) {
		if (*pp == pn) {
			*pp = pn->next;
			break;
		}
	}
	pn->fs->nlive--;
	pfs_snap_drop(pn);
	kmem_free(pn, sizeof(*pn), KM_FS);
}

/* The links of one process (fd/N, exe, cwd, root) are magic ones. */
static bool
pfs_is_magic(const struct vnode *vn)
{
	const struct pfs_node *pn = vn->data;

	return pn->fs->specs[pn->kind].scope != PFS_GLOBAL;
}

/* Nothing to write: the files are made anew at each read. */
static int
pfs_fsync(struct vnode *vn, enum vfs_sync how)
{
	const struct pfs_node *n = vn->data;

	return n->fs->syncs ? 0 : -EINVAL;
}

static const struct vnode_ops pfs_vnops = {
	.lookup = pfs_lookup,
	.getattr = pfs_getattr,
	.setattr = pfs_setattr,
	.read = pfs_read,
	.write = pfs_write,
	.readdir = pfs_readdir,
	.readlink = pfs_readlink,
	.is_magic = pfs_is_magic,
	.create = pfs_create,
	.link = pfs_link,
	.remove = pfs_remove,
	.rename = pfs_rename,
	.inactive = pfs_inactive,
	.fsync = pfs_fsync,
};

/* --- mounts --- */

int
pfs_mount(const char *fstype, const struct pfs_spec *specs, size_t n,
    bool syncs, struct mount **mpp)
{
	struct pfs_fs *fs = kmem_alloc(sizeof(*fs), KM_ZERO | KM_FS);

	VK_ASSERT(n > 0 && n <= PFS_MAXSPECS && S_ISDIR(specs[0].mode) &&
	    specs[0].scope == PFS_GLOBAL);
	if (fs == NULL ||
	    (fs->mp = mount_alloc(fstype, fstype, false, 0)) == NULL) {
		kmem_free(fs, sizeof(*fs), KM_FS);
		return -ENOMEM;
	}
	fs->specs = specs;
	fs->nspecs = n;
	fs->syncs = syncs;
	if ((fs->mp->root = pfs_vnode(fs, 0, 0, 0)) == NULL) {
		mount_destroy(fs->mp);
		kmem_free(fs, sizeof(*fs), KM_FS);
		return -ENOMEM;
	}
	fs->mp->fs_free = pfs_unmount;
	*mpp = fs->mp;
	return 0;
}

void
pfs_unmount(struct mount *mp)
{
	struct pfs_fs *fs;

	VK_ASSERT(mp->root != NULL && mp->root->ops == &pfs_vnops);
	fs = ((struct pfs_node *)mp->root->data)->fs;
	vnode_rel(mp->root);
	mp->root = NULL;
	/* A vnode still held would point into fs. */
	VK_ASSERT(fs->nlive == 0);
	kmem_free(fs, sizeof(*fs), KM_FS);
	mount_destroy(mp);
}

bool
pfs_vnode_gone(const struct vnode *vn)
{
	struct pfs_ctx c;

	return vn->ops == &pfs_vnops && pfs_node_resolve(vn->data, &c) < 0;
}

struct file *
pfs_fd_file(const struct vnode *vn)
{
	const struct pfs_node *pn;
	struct pfs_ctx c;

	if (vn == NULL || vn->ops != &pfs_vnops)
		return NULL;
	pn = vn->data;
	if (pn->fs->specs[pn->kind].scope != PFS_FD || vn->type != VLNK ||
	    pfs_node_resolve(pn, &c) < 0)
		return NULL;
	return fd_get(c.p->fdt, c.arg);
}

bool
pfs_vnode_key(const struct vnode *vn, const struct pfs_spec *specs,
    int *kindp, int *pidp)
{
	const struct pfs_node *pn;

	if (vn == NULL || vn->ops != &pfs_vnops)
		return false;
	pn = vn->data;
	if (pn->fs->specs != specs)
		return false;
	*kindp = pn->kind;
	*pidp = pn->pid;
	return true;
}
