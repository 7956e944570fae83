/*
 * inotify: inotify_init, inotify_init1, inotify_add_watch,
 * inotify_rm_watch, and the events the VFS's hooks (vfs_notify.h) raise.
 *
 * A watch holds a reference to its vnode and is found by the file's
 * st_dev and st_ino (a layered file system may have several vnodes for
 * one file).  An instance
 * queues events as inotify(7) describes them: an event like the last one
 * queued is merged into it, and past max_queued_events one IN_Q_OVERFLOW
 * stands for all that are lost.  A file's event goes to the watches of
 * the directory it was last found in (with its name) before its own.
 * IN_DELETE_SELF (and IN_IGNORED) comes when a file has no name left
 * and no open file either: at the last unlink, or at the last close
 * after it, as Linux lets an inode go.  XXX: Linux also waits for the
 * file's mappings; a directory's comes at its rmdir.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/queue.h>
#include <sys/stat.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kmem.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/procfs/pseudofs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_notify.h"
#include "vkern/vm/copyio.h"

#define IN_HASH   256
#define IN_NAMES  4096          /* remembered names of watched dirs' files */
/* The bits inotify_add_watch knows. */
#define IN_ALL_BITS (IN_ALL_EVENTS | IN_ONLYDIR | IN_DONT_FOLLOW | \
	IN_EXCL_UNLINK | IN_MASK_CREATE | IN_MASK_ADD | IN_ONESHOT | \
	IN_ISDIR | IN_UNMOUNT | IN_Q_OVERFLOW | IN_IGNORED)
/* Events a directory's watch hears of its files. */
#define IN_CHILD_EVENTS (IN_ALL_EVENTS & ~(uint32_t)(IN_DELETE_SELF | \
	IN_MOVE_SELF))

/* A file, as stat(2) names it. */
struct in_key {
	uint64_t dev, ino;
};

struct in_event {
	TAILQ_ENTRY(in_event) link;
	int32_t wd;
	uint32_t mask, cookie, len;   /* len: the name's, padded */
	char name[];
};

struct in_inst;

struct in_watch {
	LIST_ENTRY(in_watch) hlink;   /* by key */
	LIST_ENTRY(in_watch) ilink;   /* the instance's */
	struct in_inst *in;
	struct vnode *vn;             /* referenced */
	struct in_key key;
	int32_t wd;
	uint32_t mask;
};

struct in_inst {
	LIST_ENTRY(in_inst) link;
	LIST_HEAD(, in_watch) watches;
	TAILQ_HEAD(in_event_head, in_event) events;
	unsigned nevents, nwatches;
	size_t bytes;                 /* what a read of everything takes */
	int32_t next_wd;
	uint32_t uid;                 /* who made it: the limits are per user */
};

/* Where a file of a watched directory was last seen. */
struct in_name {
	LIST_ENTRY(in_name) hlink;
	TAILQ_ENTRY(in_name) lru;
	struct in_key vn, dir;
	char name[];
};

unsigned vnotify_nwatches;

static LIST_HEAD(, in_watch) in_whash[IN_HASH];
static LIST_HEAD(, in_name) in_nhash[IN_HASH];
static TAILQ_HEAD(in_name_head, in_name) in_nlru = TAILQ_HEAD_INITIALIZER(in_nlru);
static LIST_HEAD(, in_inst) in_insts = LIST_HEAD_INITIALIZER(in_insts);
static unsigned in_nnames;
static uint32_t in_cookie;

static const struct file_ops in_fileops;

static struct in_key
in_key(struct vnode *vn)
{
	struct vattr va;

	if (vn->ops->getattr(vn, &va) < 0)
		return (struct in_key){ UINT64_MAX, vn->id };
	return (struct in_key){ va.dev, va.ino };
}

static bool
in_key_eq(struct in_key a, struct in_key b)
{
	return a.dev == b.dev && a.ino == b.ino;
}

static unsigned
in_slot(struct in_key k)
{
	return (unsigned)(((k.ino ^ k.dev << 32) * 0x9e3779b97f4a7c15ULL) >>
	    56) % IN_HASH;
}

static bool
in_watched(struct in_key k)
{
	struct in_watch *w;

	LIST_FOREACH(w, &in_whash[in_slot(k)], hlink)
		if (in_key_eq(w->key, k))
			return true;
	return false;
}

/* --- The names of watched directories' files --- */

static struct in_name *
in_name_find(struct in_key vn)
{
	struct in_name *n;

	LIST_FOREACH(n, &in_nhash[in_slot(vn)], hlink)
		if (in_key_eq(n->vn, vn))
			return n;
	return NULL;
}

static void
in_name_drop(struct in_name *n)
{
	LIST_REMOVE(n, hlink);
	TAILQ_REMOVE(&in_nlru, n, lru);
	in_nnames--;
	kmem_free(n, sizeof(*n) + strlen(n->name) + 1, 0);
}

static void
in_name_set(struct in_key dir, const char *name, struct in_key vn)
{
	struct in_name *n = in_name_find(vn);
	size_t len = strlen(name);

	if (n != NULL) {
		if (in_key_eq(n->dir, dir) && strcmp(n->name, name) == 0) {
			TAILQ_REMOVE(&in_nlru, n, lru);
			TAILQ_INSERT_HEAD(&in_nlru, n, lru);
			return;
		}
		in_name_drop(n);
	}
	if (!in_watched(dir))
		return;
	if (in_nnames >= IN_NAMES)
		in_name_drop(TAILQ_LAST(&in_nlru, in_name_head));
	if ((n = kmem_alloc(sizeof(*n) + len + 1, 0)) == NULL)
		return;
	n->vn = vn;
	n->dir = dir;
	memcpy(n->name, name, len + 1);
	LIST_INSERT_HEAD(&in_nhash[in_slot(vn)], n, hlink);
	TAILQ_INSERT_HEAD(&in_nlru, n, lru);
	in_nnames++;
}

/* --- Queueing --- */

static void
in_wake(struct in_inst *in)
{
	sched_wake_chan(in);
	poll_wake();
}

static void
in_queue(struct in_inst *in, int32_t wd, uint32_t mask, uint32_t cookie,
    const char *name)
{
	size_t nlen = name != NULL ? strlen(name) : 0;
	uint32_t len = nlen > 0 ? (uint32_t)((nlen + 16) & ~(size_t)15) : 0;
	struct in_event *last = TAILQ_LAST(&in->events, in_event_head);
	struct in_event *e;

	if (last != NULL && last->wd == wd && last->mask == mask &&
	    last->cookie == cookie && last->len == len &&
	    strcmp(last->name, nlen > 0 ? name : "") == 0)
		return;
	if (in->nevents >= INOTIFY_MAX_QUEUED_EVENTS) {
		if (last != NULL && last->mask == IN_Q_OVERFLOW)
			return;
		wd = -1;
		mask = IN_Q_OVERFLOW;
		cookie = len = 0;
		nlen = 0;
	}
	if ((e = kmem_alloc(sizeof(*e) + len + 1, KM_ZERO)) == NULL)
		return;
	e->wd = wd;
	e->mask = mask;
	e->cookie = cookie;
	e->len = len;
	if (nlen > 0)
		memcpy(e->name, name, nlen);
	TAILQ_INSERT_TAIL(&in->events, e, link);
	in->nevents++;
	in->bytes += sizeof(struct inotify_event) + len;
	in_wake(in);
}

static void
in_event_free(struct in_inst *in, struct in_event *e)
{
	TAILQ_REMOVE(&in->events, e, link);
	in->nevents--;
	in->bytes -= sizeof(struct inotify_event) + e->len;
	kmem_free(e, sizeof(*e) + e->len + 1, 0);
}

/* Take a watch away; ignored: tell its instance (IN_IGNORED). */
static void
in_watch_drop(struct in_watch *w, bool ignored)
{
	if (ignored)
		in_queue(w->in, w->wd, IN_IGNORED, 0, NULL);
	LIST_REMOVE(w, hlink);
	LIST_REMOVE(w, ilink);
	w->in->nwatches--;
	vnotify_nwatches--;
	/* Names in a directory nobody watches any more are of no use. */
	if (!in_watched(w->key)) {
		struct in_name *n, *nn;

		for (n = TAILQ_FIRST(&in_nlru); n != NULL; n = nn) {
			nn = TAILQ_NEXT(n, lru);
			if (in_key_eq(n->dir, w->key))
				in_name_drop(n);
		}
	}
	vnode_rel(w->vn);
	kmem_free(w, sizeof(*w), 0);
}

/*
 * Give the event to the watches of file k: with name, those that hear of
 * their directory's files.
 */
static void
in_deliver(struct in_key k, uint32_t mask, uint32_t cookie, const char *name,
    bool isdir, bool unlinked)
{
	struct in_watch *w, *next;
	uint32_t want = name != NULL ? mask & IN_CHILD_EVENTS : mask;

	for (w = LIST_FIRST(&in_whash[in_slot(k)]); w != NULL; w = next) {
		next = LIST_NEXT(w, hlink);
		if (!in_key_eq(w->key, k) || !(w->mask & want))
			continue;
		if (unlinked && (w->mask & IN_EXCL_UNLINK))
			continue;
		in_queue(w->in, w->wd, (w->mask & want) |
		    (isdir ? IN_ISDIR : 0), cookie, name);
		if (w->mask & IN_ONESHOT)
			in_watch_drop(w, true);
	}
}

/* Whether vn has no name left (and its events are of an unlinked file). */
static bool
in_unlinked(struct vnode *vn)
{
	struct vattr va;

	return vn->ops->getattr(vn, &va) == 0 && va.nlink == 0;
}

static void
in_event_on(struct vnode *vn, uint32_t mask, uint32_t cookie)
{
	struct in_key k = in_key(vn);
	struct in_name *n = in_name_find(k);
	bool isdir = vn->type == VDIR;

	if (n != NULL && (mask & IN_CHILD_EVENTS))
		in_deliver(n->dir, mask, cookie, n->name, isdir,
		    in_unlinked(vn));
	in_deliver(k, mask, cookie, NULL, isdir, false);
}

void
vnotify_event_(struct vnode *vn, uint32_t mask)
{
	in_event_on(vn, mask, 0);
}

void
vnotify_seen_(struct vnode *dir, const char *name, struct vnode *vn)
{
	struct in_key d = in_key(dir);

	if (vn != NULL && in_watched(d))
		in_name_set(d, name, in_key(vn));
}

void
vnotify_create_(struct vnode *dir, const char *name, struct vnode *vn)
{
	struct in_key d = in_key(dir);

	in_deliver(d, IN_CREATE, 0, name, vn->type == VDIR, false);
	in_name_set(d, name, in_key(vn));
}

void
vnotify_link_(struct vnode *dir, const char *name, struct vnode *vn)
{
	in_deliver(in_key(vn), IN_ATTRIB, 0, NULL, false, false);
	vnotify_create_(dir, name, vn);
}

/* vn is gone for good: IN_DELETE_SELF, and its watches end. */
static void
in_delete_self(struct vnode *vn)
{
	struct in_key id = in_key(vn);
	struct in_watch *w, *next;

	in_deliver(id, IN_DELETE_SELF, 0, NULL, false, false);
	for (w = LIST_FIRST(&in_whash[in_slot(id)]); w != NULL; w = next) {
		next = LIST_NEXT(w, hlink);
		if (in_key_eq(w->key, id))
			in_watch_drop(w, true);
	}
}

void
vnotify_remove_(struct vnode *dir, const char *name, struct vnode *vn,
    bool gone)
{
	struct in_key id = in_key(vn), d = { 0, 0 };
	struct in_name *n = in_name_find(id);
	bool isdir = vn->type == VDIR;

	/* Its link count changed (only its own watches hear of that). */
	if (vn->type != VDIR)
		in_deliver(id, IN_ATTRIB, 0, NULL, false, false);
	if (dir != NULL)
		d = in_key(dir);
	if (n != NULL && (dir == NULL || (in_key_eq(n->dir, d) &&
	    strcmp(n->name, name) == 0)))
		in_name_drop(n);
	/*
	 * As Linux: the file's own events come before its directory's; an
	 * open file's wait for its last close.
	 */
	if (gone && (isdir || vn->opens == 0))
		in_delete_self(vn);
	if (dir != NULL)
		in_deliver(d, IN_DELETE, 0, name, isdir, false);
}

void
vnotify_rename_(struct vnode *fromdir, const char *from, struct vnode *todir,
    const char *to, struct vnode *vn)
{
	struct in_key to_k = in_key(todir), k = in_key(vn);
	bool isdir = vn->type == VDIR;
	uint32_t cookie;

	if (++in_cookie == 0)
		in_cookie = 1;
	cookie = in_cookie;
	in_deliver(in_key(fromdir), IN_MOVED_FROM, cookie, from, isdir,
	    false);
	in_deliver(to_k, IN_MOVED_TO, cookie, to, isdir, false);
	in_deliver(k, IN_MOVE_SELF, 0, NULL, false, false);
	in_name_set(to_k, to, k);
}

void
vnotify_close_(struct file *fp)
{
	struct vnode *vn = fp->vn;

	if (vn == NULL)
		return;
	if (!(fp->flags & O_PATH))
		in_event_on(vn, file_writable(fp) ? IN_CLOSE_WRITE :
		    IN_CLOSE_NOWRITE, 0);
	/* The last open file of a file without a name. */
	if (vn->opens == 0 && vn->type != VDIR && in_watched(in_key(vn)) &&
	    in_unlinked(vn))
		in_delete_self(vn);
}

/*
 * As Linux's fsnotify_unmount_inodes(): each watch on a file of fs hears
 * IN_UNMOUNT (with IN_ISDIR for a directory, as Linux gives it), then
 * IN_IGNORED as it goes.
 */
void
vnotify_unmount_(struct mount *fs)
{
	struct in_watch *w, *next;

	for (unsigned i = 0; i < IN_HASH; i++) {
		for (w = LIST_FIRST(&in_whash[i]); w != NULL; w = next) {
			next = LIST_NEXT(w, hlink);
			if (w->vn->mount != fs)
				continue;
			in_queue(w->in, w->wd, IN_UNMOUNT |
			    (w->vn->type == VDIR ? IN_ISDIR : 0), 0, NULL);
			in_watch_drop(w, true);
		}
	}
}

/* --- The file --- */

static long
in_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	struct in_inst *in = fp->data;
	struct in_event *e;
	char *p = buf;
	size_t done = 0, n;
	struct inotify_event h;

	while ((e = TAILQ_FIRST(&in->events)) != NULL) {
		n = sizeof(h) + e->len;
		if (n > len - done)
			break;
		h = (struct inotify_event){ .wd = e->wd, .mask = e->mask,
		    .cookie = e->cookie, .len = e->len };
		memcpy(p + done, &h, sizeof(h));
		memcpy(p + done + sizeof(h), e->name, e->len);
		done += n;
		in_event_free(in, e);
	}
	if (done > 0)
		return (long)done;
	return e != NULL ? -EINVAL : -EAGAIN;
}

static short
in_poll(struct file *fp)
{
	struct in_inst *in = fp->data;

	return TAILQ_EMPTY(&in->events) ? 0 : POLLIN | POLLRDNORM;
}

static void
in_close(struct file *fp)
{
	struct in_inst *in = fp->data;
	struct in_event *e;

	while (!LIST_EMPTY(&in->watches))
		in_watch_drop(LIST_FIRST(&in->watches), false);
	while ((e = TAILQ_FIRST(&in->events)) != NULL)
		in_event_free(in, e);
	LIST_REMOVE(in, link);
	kmem_free(in, sizeof(*in), 0);
}

static const struct file_ops in_fileops = {
	.read = in_read,
	.write = anon_write_einval,
	.stat = anon_stat,
	.poll = in_poll,
	.close = in_close,
};

bool
inotify_is_file(const struct file *fp)
{
	return fp->ops == &in_fileops;
}

int
inotify_nread(const struct file *fp)
{
	const struct in_inst *in = fp->data;

	return (int)in->bytes;
}

/*
 * /proc/PID/fdinfo's lines, as Linux's for a file system without file
 * handles; sdev is the kernel's device number, not st_dev.
 */
void
inotify_fdinfo(const struct file *fp, struct sbuf *sb)
{
	const struct in_inst *in = fp->data;
	const struct in_watch *w;

	LIST_FOREACH(w, &in->watches, ilink) {
		uint64_t d = w->key.dev;
		unsigned maj = (unsigned)(((d >> 8) & 0xfff) |
		    ((d >> 32) & ~0xfffULL));
		unsigned min = (unsigned)((d & 0xff) | ((d >> 12) & ~0xffULL));

		sbuf_printf(sb, "inotify wd:%x ino:%llx sdev:%x mask:%x "
		    "ignored_mask:0\n", (unsigned)w->wd,
		    (unsigned long long)w->key.ino, maj << 20 | min, w->mask);
	}
}

/* --- The calls --- */

static long
kern_inotify_init(struct thread *td, unsigned flags)
{
	struct in_inst *in;
	struct file *fp;
	unsigned n = 0;

	if (flags & ~(unsigned)(IN_CLOEXEC | IN_NONBLOCK))
		return -EINVAL;
	LIST_FOREACH(in, &in_insts, link)
		if (in->uid == td->proc->cred.uid)
			n++;
	if (n >= INOTIFY_MAX_USER_INSTANCES)
		return -EMFILE;
	if ((in = kmem_alloc(sizeof(*in), KM_ZERO)) == NULL)
		return -ENOMEM;
	LIST_INIT(&in->watches);
	TAILQ_INIT(&in->events);
	in->uid = td->proc->cred.uid;
	LIST_INSERT_HEAD(&in_insts, in, link);
	fp = file_alloc(&in_fileops, NULL, O_RDONLY | (flags & IN_NONBLOCK),
	    "anon_inode:inotify");
	fp->data = in;
	fp->chan = in;
	return fd_alloc(td->proc->fdt, fp, 0, proc_nofile(td->proc),
	    (flags & IN_CLOEXEC) != 0);
}

long
sys_inotify_init1(struct thread *td, const struct sys_inotify_init1_args *a)
{
	return kern_inotify_init(td, a->flags);
}

long
sys_inotify_init(struct thread *td, const struct sys_inotify_init_args *a)
{
	(void)a;
	return kern_inotify_init(td, 0);
}

static struct in_inst *
in_get(struct thread *td, int fd, long *errp)
{
	struct file *fp = fd_get(td->proc->fdt, fd);

	*errp = fp == NULL ? -EBADF : fp->ops != &in_fileops ? -EINVAL : 0;
	return *errp == 0 ? fp->data : NULL;
}

static unsigned
in_user_watches(uint32_t uid)
{
	struct in_inst *in;
	unsigned n = 0;

	LIST_FOREACH(in, &in_insts, link)
		if (in->uid == uid)
			n += in->nwatches;
	return n;
}

/* Watch vn (referenced, taken over) for in as mask asks. */
static long
in_add(struct in_inst *in, struct vnode *vn, uint32_t mask)
{
	uint32_t keep = mask & (IN_ALL_EVENTS | IN_EXCL_UNLINK | IN_ONESHOT);
	struct in_key k = in_key(vn);
	struct in_watch *w;

	LIST_FOREACH(w, &in->watches, ilink) {
		if (!in_key_eq(w->key, k))
			continue;
		vnode_rel(vn);
		if (mask & IN_MASK_CREATE)
			return -EEXIST;
		w->mask = (mask & IN_MASK_ADD) ? w->mask | keep : keep;
		return w->wd;
	}
	if (in_user_watches(in->uid) >= INOTIFY_MAX_USER_WATCHES ||
	    (w = kmem_alloc(sizeof(*w), KM_ZERO)) == NULL) {
		vnode_rel(vn);
		return -ENOSPC;
	}
	w->in = in;
	w->vn = vn;
	w->key = k;
	w->mask = keep;
	/* wds count up and are not reused soon, as Linux's. */
	if (in->next_wd == INT32_MAX)
		in->next_wd = 0;
	w->wd = ++in->next_wd;
	LIST_INSERT_HEAD(&in_whash[in_slot(k)], w, hlink);
	LIST_INSERT_HEAD(&in->watches, w, ilink);
	in->nwatches++;
	vnotify_nwatches++;
	return w->wd;
}

long
sys_inotify_add_watch(struct thread *td,
    const struct sys_inotify_add_watch_args *a)
{
	uint32_t mask = a->mask;
	char path[VK_PATH_MAX];
	struct nameidata nd;
	struct in_inst *in;
	long r;

	if ((mask & IN_MASK_ADD) && (mask & IN_MASK_CREATE))
		return -EINVAL;
	if (!(mask & IN_ALL_BITS))
		return -EINVAL;
	if ((in = in_get(td, a->fd, &r)) == NULL)
		return r;
	if ((r = copyinstr(td, a->path, path, sizeof(path))) < 0)
		return r;
	if ((r = vfs_lookup(td->proc, AT_FDCWD, path,
	    (mask & IN_DONT_FOLLOW) ? 0 : LOOKUP_FOLLOW, &nd)) < 0)
		return r;
	if ((mask & IN_ONLYDIR) && nd.vp->type != VDIR)
		r = -ENOTDIR;
	else if ((r = vfs_access(td->proc, nd.vp, 4, false)) == 0 &&
	    !(mask & IN_ALL_EVENTS))
		r = -EINVAL;
	if (r < 0) {
		nd_release(&nd);
		return r;
	}
	r = in_add(in, nd.vp, mask);
	nd.vp = NULL;
	nd_release(&nd);
	return r;
}

long
sys_inotify_rm_watch(struct thread *td,
    const struct sys_inotify_rm_watch_args *a)
{
	struct in_inst *in;
	struct in_watch *w;
	long r;

	if ((in = in_get(td, a->fd, &r)) == NULL)
		return r;
	LIST_FOREACH(w, &in->watches, ilink) {
		if (w->wd == a->wd) {
			in_watch_drop(w, true);
			return 0;
		}
	}
	return -EINVAL;
}
