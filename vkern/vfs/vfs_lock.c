/*
 * Advisory file locks: fcntl(2)'s record locks, its open-file-description
 * (OFD) locks, and flock(2)'s whole-file locks.
 *
 * A lock belongs to a key (the file: its vnode, or for files without one
 * the object both ends share) and to an owner.  A POSIX record lock's
 * owner is the fd table that set it, so that closing any fd of the file
 * through that table drops all of them, and a forked child starts with
 * none; an OFD lock's and a flock's owner is the open file, so dup() and
 * fork() share them and they go with its last close.  Record locks
 * (POSIX and OFD, one space) and flocks (another) never meet.
 *
 * A request that must wait parks on its bucket's channel; every change
 * to the bucket's locks wakes it to try again.  Waiters are remembered so
 * that a POSIX request closing a cycle of owners waiting for each other
 * fails with EDEADLK instead of waiting for ever.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/file.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall.h"
#include "vkern/kmem.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_lock.h"
#include "vkern/vm/copyio.h"

#define LF_OFFMAX INT64_MAX     /* the end of a lock that runs to EOF */
#define LF_NHASH 64
/* How many owners a deadlock search follows, as Linux bounds it. */
#define LF_DEADLK_DEPTH 10

enum lf_kind { LF_POSIX, LF_OFD, LF_FLOCK };

struct lf_lock {
	struct lf_lock *next;
	const void *key;
	const void *owner;      /* POSIX: the fd table; else the file */
	enum lf_kind kind;
	short type;             /* F_RDLCK or F_WRLCK; F_UNLCK in a request */
	int pid;                /* who set it, for F_GETLK */
	int64_t start, end;     /* the bytes it covers, end included */
};

struct lf_wait {
	struct thread *td;
	struct lf_lock req;
	struct lf_wait *next;
};

static struct lf_lock *lf_hash[LF_NHASH];
static struct lf_wait *lf_waiters;
static unsigned lf_count;       /* locks held: closing skips the work at 0 */

static const void *
lf_key(const struct file *fp)
{
	if (fp->vn != NULL)
		return fp->vn;
	return fp->data != NULL ? fp->data : (const void *)fp;
}

static struct lf_lock **
lf_bucket(const void *key)
{
	uintptr_t h = (uintptr_t)key * 0x9e3779b97f4a7c15ULL;

	return &lf_hash[(h >> 32) % LF_NHASH];
}

static bool
lf_same_owner(const struct lf_lock *a, const struct lf_lock *b)
{
	return a->owner == b->owner && (a->kind == LF_POSIX) ==
	    (b->kind == LF_POSIX);
}

static bool
lf_same_space(const struct lf_lock *a, const struct lf_lock *b)
{
	return a->key == b->key && (a->kind == LF_FLOCK) ==
	    (b->kind == LF_FLOCK);
}

static bool
lf_overlap(const struct lf_lock *a, const struct lf_lock *b)
{
	return a->start <= b->end && b->start <= a->end;
}

/*
 * The lock held by another owner that keeps req from being set, the one
 * that starts first when there are several (what F_GETLK reports).
 */
static struct lf_lock *
lf_conflict(const struct lf_lock *req)
{
	struct lf_lock *c = NULL;

	for (struct lf_lock *l = *lf_bucket(req->key); l != NULL; l = l->next)
		if (lf_same_space(l, req) && !lf_same_owner(l, req) &&
		    lf_overlap(l, req) &&
		    (l->type == F_WRLCK || req->type == F_WRLCK) &&
		    (c == NULL || l->start < c->start))
			c = l;
	return c;
}

static void
lf_wake(const void *key)
{
	sched_wake_chan(lf_bucket(key));
}

static void
lf_unlink(struct lf_lock **pp)
{
	struct lf_lock *l = *pp;

	*pp = l->next;
	kmem_free(l, sizeof(*l), 0);
	lf_count--;
}

static void
lf_link(struct lf_lock *l)
{
	struct lf_lock **bp = lf_bucket(l->key);

	l->next = *bp;
	*bp = l;
	lf_count++;
}

/*
 * Take [start, end] away from the owner's locks, splitting the one that
 * straddles it into two; *spare is the record that takes the second
 * half (and is set to NULL once used).  Returns whether anything changed.
 */
static bool
lf_cut(const struct lf_lock *req, struct lf_lock **spare)
{
	struct lf_lock **pp = lf_bucket(req->key), *l;
	bool changed = false;

	while ((l = *pp) != NULL) {
		if (!lf_same_space(l, req) || !lf_same_owner(l, req) ||
		    !lf_overlap(l, req)) {
			pp = &l->next;
			continue;
		}
		changed = true;
		if (l->start < req->start && l->end > req->end) {
			struct lf_lock *tail = *spare;

			*spare = NULL;
			*tail = *l;
			tail->start = req->end + 1;
			l->end = req->start - 1;
			lf_link(tail);
			return true;
		}
		if (l->start < req->start) {
			l->end = req->start - 1;
		} else if (l->end > req->end) {
			l->start = req->end + 1;
		} else {
			lf_unlink(pp);
			continue;
		}
		pp = &l->next;
	}
	return changed;
}

/* Add l, merged with the owner's locks of its type that touch it. */
static void
lf_add(struct lf_lock *l)
{
	struct lf_lock **pp = lf_bucket(l->key), *o;

	while ((o = *pp) != NULL) {
		if (lf_same_space(o, l) && lf_same_owner(o, l) &&
		    o->type == l->type &&
		    (o->end == LF_OFFMAX || o->end + 1 >= l->start) &&
		    (l->end == LF_OFFMAX || l->end + 1 >= o->start)) {
			l->start = VK_MIN(l->start, o->start);
			l->end = VK_MAX(l->end, o->end);
			lf_unlink(pp);
			continue;
		}
		pp = &o->next;
	}
	lf_link(l);
}

static void
lf_unwait(struct thread *td)
{
	for (struct lf_wait **wp = &lf_waiters; *wp != NULL;
	    wp = &(*wp)->next) {
		struct lf_wait *w = *wp;

		if (w->td == td) {
			*wp = w->next;
			free(w);
			return;
		}
	}
}

static void
lf_wait_cancel(struct thread *td)
{
	lf_unwait(td);
}

/*
 * Whether req, held up by blocker, would wait for ever: blocker's owner
 * waits (through any chain of POSIX owners) for a lock of req's owner.
 * OFD locks are not followed, as on Linux.
 */
static bool
lf_deadlock(const struct lf_lock *req, const struct lf_lock *blocker)
{
	if (req->kind != LF_POSIX)
		return false;
	for (int depth = 0; depth < LF_DEADLK_DEPTH; depth++) {
		struct lf_wait *w;

		if (blocker->kind != LF_POSIX)
			return false;
		if (blocker->owner == req->owner)
			return true;
		for (w = lf_waiters; w != NULL; w = w->next)
			if (w->req.kind == LF_POSIX &&
			    w->req.owner == blocker->owner)
				break;
		if (w == NULL || (blocker = lf_conflict(&w->req)) == NULL)
			return false;
	}
	return false;
}

static long
lf_park(struct thread *td, const struct lf_lock *req)
{
	struct lf_wait *w = malloc(sizeof(*w));

	if (w == NULL)
		return -ENOLCK;
	w->td = td;
	w->req = *req;
	w->next = lf_waiters;
	lf_waiters = w;
	td->wait = (struct wait){ .cont = syscall_redispatch,
	    .cancel = lf_wait_cancel, .deadline = -1, .console_fd = -1,
	    .chan = lf_bucket(req->key) };
	return -EPARKED;
}

/*
 * Set (or with F_UNLCK clear) req's range for its owner.  A conflict
 * gives EAGAIN, or parks the caller when it may wait.
 */
static long
lf_set(struct thread *td, const struct lf_lock *req, bool wait)
{
	struct lf_lock *l = NULL, *spare, *c;
	bool changed;

	lf_unwait(td);
	if (req->type != F_UNLCK && (c = lf_conflict(req)) != NULL) {
		if (!wait)
			return -EAGAIN;
		if (lf_deadlock(req, c))
			return -EDEADLK;
		return lf_park(td, req);
	}
	/* Charged to the sandbox: ENOLCK when it is full, as Linux's. */
	spare = kmem_alloc(sizeof(*spare), 0);
	if (req->type != F_UNLCK && (l = kmem_alloc(sizeof(*l), 0)) == NULL) {
		kmem_free(spare, sizeof(*spare), 0);
		return -ENOLCK;
	}
	if (spare == NULL) {
		kmem_free(l, sizeof(*l), 0);
		return -ENOLCK;
	}
	changed = lf_cut(req, &spare);
	kmem_free(spare, sizeof(*spare), 0);
	if (l != NULL) {
		*l = *req;
		lf_add(l);
	}
	if (changed)
		lf_wake(req->key);
	return 0;
}

/* The open file's part in lock requests through it. */
static struct lf_lock
lf_request(struct thread *td, struct file *fp, enum lf_kind kind)
{
	return (struct lf_lock){ .key = lf_key(fp), .kind = kind,
	    .owner = kind == LF_POSIX ? (const void *)td->proc->fdt :
	    (const void *)fp, .pid = kind == LF_POSIX ? td->proc->pid : -1 };
}

/* struct flock's range, against fp's offset or size, as [start, end]. */
static int
lf_range(struct file *fp, const struct flock *fl, struct lf_lock *req)
{
	int64_t base = 0, start;

	switch (fl->l_whence) {
	case SEEK_SET:
		break;
	case SEEK_CUR:
		base = (int64_t)fp->off;
		break;
	case SEEK_END: {
		struct vattr va;
		int r;

		if (fp->ops->stat == NULL)
			return -EINVAL;
		if ((r = fp->ops->stat(fp, &va)) < 0)
			return r;
		base = (int64_t)va.size;
		break;
	}
	default:
		return -EINVAL;
	}
	if (__builtin_add_overflow(base, fl->l_start, &start))
		return -EOVERFLOW;
	if (start < 0)
		return -EINVAL;
	if (fl->l_len > 0) {
		if (fl->l_len - 1 > LF_OFFMAX - start)
			return -EOVERFLOW;
		req->start = start;
		req->end = start + fl->l_len - 1;
	} else if (fl->l_len < 0) {
		if (start + fl->l_len < 0)
			return -EINVAL;
		req->start = start + fl->l_len;
		req->end = start - 1;
	} else {
		req->start = start;
		req->end = LF_OFFMAX;
	}
	return 0;
}

static long
lf_getlk(struct thread *td, struct lf_lock *req, struct flock *fl,
    uaddr_t uarg)
{
	const struct lf_lock *c = lf_conflict(req);

	if (c == NULL) {
		fl->l_type = F_UNLCK;
	} else {
		fl->l_type = c->type;
		fl->l_whence = SEEK_SET;
		fl->l_start = c->start;
		fl->l_len = c->end == LF_OFFMAX ? 0 : c->end - c->start + 1;
		fl->l_pid = c->pid;
	}
	return copyout(td, fl, uarg, sizeof(*fl));
}

long
lf_fcntl(struct thread *td, struct file *fp, int cmd, uaddr_t uarg)
{
	bool ofd = cmd == F_OFD_GETLK || cmd == F_OFD_SETLK ||
	    cmd == F_OFD_SETLKW;
	bool get = cmd == F_GETLK || cmd == F_OFD_GETLK;
	struct lf_lock req = lf_request(td, fp, ofd ? LF_OFD : LF_POSIX);
	struct flock fl;
	int r;

	if ((r = copyin(td, uarg, &fl, sizeof(fl))) < 0)
		return r;
	if (fl.l_type != F_RDLCK && fl.l_type != F_WRLCK &&
	    (get || fl.l_type != F_UNLCK))
		return -EINVAL;
	if (ofd && fl.l_pid != 0)
		return -EINVAL;
	if ((r = lf_range(fp, &fl, &req)) < 0)
		return r;
	req.type = fl.l_type;
	if (get)
		return lf_getlk(td, &req, &fl, uarg);
	if ((fl.l_type == F_RDLCK && !file_readable(fp)) ||
	    (fl.l_type == F_WRLCK && !file_writable(fp)))
		return -EBADF;
	return lf_set(td, &req, cmd == F_SETLKW || cmd == F_OFD_SETLKW);
}

/*
 * flock(2).  Changing a lock's type is not atomic, as on Linux: the old
 * lock goes first, so a failed or interrupted change leaves none.
 */
long
lf_flock(struct thread *td, struct file *fp, int op)
{
	struct lf_lock req = lf_request(td, fp, LF_FLOCK);
	struct lf_lock **pp;

	req.start = 0;
	req.end = LF_OFFMAX;
	switch (op & ~LOCK_NB) {
	case LOCK_SH:
		req.type = F_RDLCK;
		break;
	case LOCK_EX:
		req.type = F_WRLCK;
		break;
	case LOCK_UN:
		req.type = F_UNLCK;
		break;
	default:
		return -EINVAL;
	}
	for (pp = lf_bucket(req.key); *pp != NULL; pp = &(*pp)->next) {
		if (lf_same_space(*pp, &req) && lf_same_owner(*pp, &req)) {
			if ((*pp)->type == req.type) {
				lf_unwait(td);
				return 0;
			}
			lf_unlink(pp);
			lf_wake(req.key);
			break;
		}
	}
	return lf_set(td, &req, !(op & LOCK_NB));
}

/* Drop every lock of owner on key: POSIX ones, or OFD locks and flocks. */
static void
lf_drop(const void *key, const void *owner, bool posix)
{
	struct lf_lock **pp = lf_bucket(key), *l;
	bool changed = false;

	while ((l = *pp) != NULL) {
		if (l->key == key && l->owner == owner &&
		    (l->kind == LF_POSIX) == posix) {
			lf_unlink(pp);
			changed = true;
		} else {
			pp = &l->next;
		}
	}
	if (changed)
		lf_wake(key);
}

void
lf_fd_close(const struct fdtable *t, struct file *fp)
{
	if (lf_count > 0)
		lf_drop(lf_key(fp), t, true);
}

void
lf_file_close(struct file *fp)
{
	if (lf_count > 0)
		lf_drop(lf_key(fp), fp, false);
}
