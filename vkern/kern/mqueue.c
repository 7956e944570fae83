/*
 * POSIX message queues: mq_open, mq_unlink, mq_timedsend,
 * mq_timedreceive, mq_notify, mq_getsetattr (mq_overview(7)).
 *
 * A queue has a name in one flat table of the sandbox (Linux's mqueue
 * file system root) and lives while named or open.  Its messages are
 * kept highest priority first and, within a priority, in the order
 * sent.  A descriptor is a file whose ops are mq_fileops: poll says
 * POLLIN while messages wait and POLLOUT while one more fits, read gives
 * the QSIZE line Linux's mqueue files show.  A sender that does not fit,
 * or a receiver that finds nothing, parks on the queue until it changes
 * or its absolute CLOCK_REALTIME timeout passes; a signal ends the wait
 * with EINTR (these calls are never restarted, signal(7)).
 *
 * The mqueue file system (vfs/mqueuefs) shows the same queues as files,
 * through the functions below mq_status: its lookups hold a queue as an
 * open descriptor does, and a file it opens becomes the queue's
 * descriptor (mq_file_attach).
 *
 * Queues belong to the sandbox and are charged as files are (KM_FS);
 * their size also counts against the creator's RLIMIT_MSGQUEUE by real
 * uid, with mq_overview(7)'s formula.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mqueue.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/mqueue.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kmem.h"
#include "vkern/net/netlink.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/socket.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

/* Linux's MQ_PRIO_MAX. */
#define MQ_PRIO_MAX 32768
/* What mq_overview(7)'s formula charges per message and per priority. */
#define MQ_MSG_OVERHEAD 48
#define MQ_PRIO_OVERHEAD 48
#define MQ_NAME_MAX 255

struct mq_limits mq_lim = { .msg_max = 10, .msgsize_max = 8192,
	.queues_max = 256, .msg_default = 10, .msgsize_default = 8192 };

struct mq_msg {
	TAILQ_ENTRY(mq_msg) link;
	unsigned prio;
	size_t len;
	char text[];
};

/* Who is told when a message comes to the empty queue. */
struct mq_notify {
	int pid;                /* 0: no one */
	int how;                /* SIGEV_NONE, SIGEV_SIGNAL, SIGEV_THREAD */
	int signo;
	uint64_t value;
	uint32_t uid;           /* the registering process's real uid */
	struct file *sock;      /* SIGEV_THREAD's netlink socket */
	char cookie[NOTIFY_COOKIE_LEN];
};

struct mqueue {
	TAILQ_ENTRY(mqueue) link;
	int refs;               /* its name and its open files */
	bool named;
	char name[MQ_NAME_MAX + 1];
	uint64_t ino;           /* its file's, in the mqueue file system */
	int64_t atime, mtime, ctime;
	uint32_t uid, gid, mode;
	uint32_t owner;         /* the real uid charged for it */
	uint64_t charge;
	long maxmsg, msgsize, curmsgs;
	uint64_t qsize;         /* bytes of the messages queued */
	int receivers;          /* threads parked in mq_timedreceive */
	struct mq_notify nf;
	TAILQ_HEAD(, mq_msg) msgs;
};

/* What one real uid's queues cost (Linux's user_struct mq_bytes). */
struct mq_user {
	LIST_ENTRY(mq_user) link;
	uint32_t uid;
	uint64_t bytes;
};

static TAILQ_HEAD(, mqueue) mq_names = TAILQ_HEAD_INITIALIZER(mq_names);
static LIST_HEAD(, mq_user) mq_users = LIST_HEAD_INITIALIZER(mq_users);
static unsigned mq_count;
static uint64_t mq_next_ino = 2;       /* 1 is the file system's root */

static const struct file_ops mq_fileops;

static struct mqueue *
mq_of(struct file *fp)
{
	return fp != NULL && fp->ops == &mq_fileops ? fp->data : NULL;
}

static struct mqueue *
mq_lookup(const char *name)
{
	struct mqueue *q;

	TAILQ_FOREACH(q, &mq_names, link)
		if (strcmp(q->name, name) == 0)
			return q;
	return NULL;
}

static struct mq_user *
mq_user_get(uint32_t uid, bool create)
{
	struct mq_user *u;

	LIST_FOREACH(u, &mq_users, link)
		if (u->uid == uid)
			return u;
	if (!create || (u = kmem_alloc(sizeof(*u), KM_ZERO | KM_FS)) == NULL)
		return NULL;
	u->uid = uid;
	LIST_INSERT_HEAD(&mq_users, u, link);
	return u;
}

static void
mq_uncharge(struct mqueue *q)
{
	struct mq_user *u = mq_user_get(q->owner, false);

	if (u == NULL)
		return;
	u->bytes -= q->charge;
	if (u->bytes == 0) {
		LIST_REMOVE(u, link);
		kmem_free(u, sizeof(*u), KM_FS);
	}
}

/* The wake every change of q needs: its waiters and poll. */
static void
mq_wake(struct mqueue *q)
{
	sched_wake_chan(q);
	poll_wake();
}

/*
 * End q's registration: with sender, the process whose message came to
 * the empty queue, by telling the registered process as it asked (the
 * signal's si_pid and si_uid are the sender's, as Linux's
 * __do_notify()); without, as removed, which only SIGEV_THREAD's socket
 * hears of (Linux's remove_notification()).
 */
static void
mq_notify_end(struct mqueue *q, const struct proc *sender)
{
	struct mq_notify *n = &q->nf;
	struct proc *p;
	uint8_t info[128];
	int code = SI_MESGQ;

	if (n->pid == 0)
		return;
	if (n->how == SIGEV_THREAD) {
		n->cookie[NOTIFY_COOKIE_LEN - 1] = sender != NULL ?
		    NOTIFY_WOKENUP : NOTIFY_REMOVED;
		(void)nl_post(n->sock, n->cookie, sizeof(n->cookie));
		file_rel(n->sock);
	} else if (sender != NULL && n->how == SIGEV_SIGNAL && n->signo != 0 &&
	    (p = proc_find(n->pid)) != NULL && !p->exiting) {
		memset(info, 0, sizeof(info));
		memcpy(info, &n->signo, 4);
		memcpy(info + 8, &code, 4);
		memcpy(info + 16, &sender->pid, 4);
		memcpy(info + 20, &sender->cred.uid, 4);
		memcpy(info + 24, &n->value, 8);
		sig_post(p->main, n->signo, info, 0);
	}
	memset(n, 0, sizeof(*n));
}

/*
 * Forget a registration whose process is gone: one that exits with its
 * descriptors shared (CLONE_FILES) closes none of them, and its pid may
 * become another's.
 */
static void
mq_notify_check(struct mqueue *q)
{
	struct proc *p;

	if (q->nf.pid != 0 && ((p = proc_find(q->nf.pid)) == NULL ||
	    p->exiting))
		mq_notify_end(q, NULL);
}

static void
mq_rel(struct mqueue *q)
{
	struct mq_msg *m;

	if (--q->refs > 0)
		return;
	mq_notify_end(q, NULL);
	while ((m = TAILQ_FIRST(&q->msgs)) != NULL) {
		TAILQ_REMOVE(&q->msgs, m, link);
		kmem_free(m, sizeof(*m) + m->len, KM_FS);
	}
	mq_uncharge(q);
	mq_count--;
	kmem_free(q, sizeof(*q), KM_FS);
}

/* Whether p may open q for want (MAY_READ 4 | MAY_WRITE 2). */
static bool
mq_may(struct proc *p, const struct mqueue *q, unsigned want)
{
	unsigned bits = q->mode;

	if (p->cred.fsuid == 0)
		return true;
	if (p->cred.fsuid == q->uid)
		bits >>= 6;
	else if (p->cred.fsgid == q->gid || proc_in_groups(p, q->gid))
		bits >>= 3;
	return (want & ~bits & 7) == 0;
}

/*
 * The name mq_open and mq_unlink take, copied in without glibc's
 * leading slash: ENOENT when empty, EACCES with a slash or for "." and
 * "..", ENAMETOOLONG past NAME_MAX, as Linux's lookup of it.
 */
static long
mq_copyname(struct thread *td, uaddr_t uname, char name[MQ_NAME_MAX + 1])
{
	char buf[MQ_NAME_MAX + 1];
	long r = copyinstr(td, uname, buf, sizeof(buf));

	if (r == -ENAMETOOLONG)
		return -ENAMETOOLONG;
	if (r < 0)
		return r;
	if (buf[0] == '\0')
		return -ENOENT;
	if (strchr(buf, '/') != NULL || strcmp(buf, ".") == 0 ||
	    strcmp(buf, "..") == 0)
		return -EACCES;
	memcpy(name, buf, strlen(buf) + 1);
	return 0;
}

/*
 * Check a new queue's attributes as Linux's mq_attr_ok() and charge
 * them to p's real uid: EINVAL beyond the limits (root's are the hard
 * ones), EOVERFLOW when the size wraps, EMFILE past RLIMIT_MSGQUEUE.
 */
static long
mq_charge(struct proc *p, struct mqueue *q)
{
	bool root = p->cred.euid == 0;
	uint64_t maxmsg = (uint64_t)q->maxmsg, msgsize = (uint64_t)q->msgsize;
	uint64_t bytes, lim = p->rlim[RLIMIT_MSGQUEUE].cur;
	struct mq_user *u;

	if (q->maxmsg <= 0 || q->msgsize <= 0)
		return -EINVAL;
	if (maxmsg > (root ? MQ_HARD_MSGMAX : mq_lim.msg_max) ||
	    msgsize > (root ? MQ_HARD_MSGSIZEMAX : mq_lim.msgsize_max))
		return -EINVAL;
	bytes = maxmsg * (MQ_MSG_OVERHEAD + msgsize) +
	    VK_MIN(maxmsg, MQ_PRIO_MAX) * MQ_PRIO_OVERHEAD;
	if ((u = mq_user_get(p->cred.uid, true)) == NULL)
		return -ENOMEM;
	if (u->bytes + bytes > lim) {
		if (u->bytes == 0) {
			LIST_REMOVE(u, link);
			kmem_free(u, sizeof(*u), KM_FS);
		}
		return -EMFILE;
	}
	u->bytes += bytes;
	q->owner = p->cred.uid;
	q->charge = bytes;
	return 0;
}

/* Its file's times, at a message sent or taken, as Linux's. */
static void
mq_touch(struct mqueue *q)
{
	q->atime = q->mtime = q->ctime = plat_clock_ns(CLOCK_REALTIME);
}

/* A new queue named name, or -errno; attr NULL: the defaults. */
static long
mq_create(struct proc *p, const char *name, unsigned mode,
    const struct mq_attr *attr, struct mqueue **qp)
{
	struct mqueue *q;
	long r;

	if (mq_count >= mq_lim.queues_max && p->cred.euid != 0)
		return -ENOSPC;
	if ((q = kmem_alloc(sizeof(*q), KM_ZERO | KM_FS)) == NULL)
		return -ENOMEM;
	/* The defaults, as Linux's, never pass the maximums. */
	q->maxmsg = attr != NULL ? attr->mq_maxmsg :
	    (long)VK_MIN(mq_lim.msg_default, mq_lim.msg_max);
	q->msgsize = attr != NULL ? attr->mq_msgsize :
	    (long)VK_MIN(mq_lim.msgsize_default, mq_lim.msgsize_max);
	if ((r = mq_charge(p, q)) < 0) {
		kmem_free(q, sizeof(*q), KM_FS);
		return r;
	}
	snprintf(q->name, sizeof(q->name), "%s", name);
	q->uid = p->cred.fsuid;
	q->gid = p->cred.fsgid;
	q->mode = mode & ~p->fs->umask & 0777;
	q->named = true;
	q->refs = 1;
	q->ino = mq_next_ino++;
	mq_touch(q);
	TAILQ_INIT(&q->msgs);
	TAILQ_INSERT_TAIL(&mq_names, q, link);
	mq_count++;
	*qp = q;
	return 0;
}

/* The access an open mode asks for, as MAY_READ 4 | MAY_WRITE 2. */
static unsigned
mq_want(unsigned oflag)
{
	switch (oflag & O_ACCMODE) {
	case O_RDONLY:
		return 4;
	case O_WRONLY:
		return 2;
	default:
		return 6;
	}
}

static long
kern_mq_open(struct thread *td, const char *name, unsigned oflag,
    unsigned mode, const struct mq_attr *attr)
{
	struct mqueue *q = mq_lookup(name);
	struct file *fp;
	char path[MQ_NAME_MAX + 2];
	long r;

	if (q != NULL && (oflag & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		return -EEXIST;
	/* As Linux's prepare_open(): the access mode is checked on open only. */
	if (q != NULL && (oflag & O_ACCMODE) == O_ACCMODE)
		return -EINVAL;
	if (q == NULL && !(oflag & O_CREAT))
		return -ENOENT;
	if (q == NULL) {
		if ((r = mq_create(td->proc, name, mode, attr, &q)) < 0)
			return r;
	} else if (!mq_may(td->proc, q, mq_want(oflag))) {
		return -EACCES;
	}
	snprintf(path, sizeof(path), "/%s", name);
	fp = file_alloc(&mq_fileops, NULL, (oflag & (O_ACCMODE | O_NONBLOCK)),
	    path);
	fp->data = q;
	fp->chan = q;
	fp->seekable = true;    /* its QSIZE line is read as a file */
	q->refs++;
	return fd_alloc(td->proc->fdt, fp, 0, proc_nofile(td->proc),
	    (oflag & O_CLOEXEC) != 0);
}

long
sys_mq_open(struct thread *td, const struct sys_mq_open_args *a)
{
	char name[MQ_NAME_MAX + 1];
	struct mq_attr attr;
	long r;

	/* As Linux, the attributes are read first, and whatever oflag says. */
	if (a->attr.va != 0 && copyin(td, a->attr, &attr, sizeof(attr)) < 0)
		return -EFAULT;
	if ((r = mq_copyname(td, a->name, name)) < 0)
		return r;
	return kern_mq_open(td, name, a->oflag, a->mode,
	    a->attr.va != 0 ? &attr : NULL);
}

/*
 * The queue's name goes; open descriptors keep it.  The mqueue root is
 * sticky (mode 01777): only the queue's owner or root may remove it.
 */
long
kern_mq_unlink(struct proc *p, const char *name)
{
	struct mqueue *q = mq_lookup(name);

	if (q == NULL)
		return -ENOENT;
	if (p->cred.fsuid != 0 && p->cred.fsuid != q->uid)
		return -EPERM;
	mq_unname(q);
	return 0;
}

long
sys_mq_unlink(struct thread *td, const struct sys_mq_unlink_args *a)
{
	char name[MQ_NAME_MAX + 1];
	long r;

	if ((r = mq_copyname(td, a->name, name)) < 0)
		return r;
	return kern_mq_unlink(td->proc, name);
}

/*
 * An absolute CLOCK_REALTIME timeout as a CLOCK_MONOTONIC deadline (-1:
 * none).  Linux checks tv_nsec (EINVAL) whether or not the call waits.
 */
static long
mq_deadline(struct thread *td, uaddr_t uts, int64_t *dl)
{
	*dl = -1;
	if (uts.va == 0)
		return 0;
	return ts_clock_deadline(td, uts, true, CLOCK_REALTIME, dl);
}

/* The queue of fd, checked for the access the call needs (EBADF). */
static struct mqueue *
mq_fd(struct thread *td, int fd, bool write, struct file **fpp)
{
	struct file *fp = fd_get(td->proc->fdt, fd);
	struct mqueue *q = mq_of(fp);

	if (q == NULL || !(write ? file_writable(fp) : file_readable(fp)))
		return NULL;
	*fpp = fp;
	return q;
}

/*
 * The state a parked call keeps in td->wait.arg: the fd, its file (a
 * reference while parked), the buffer, its length, the priority or its
 * pointer, and the deadline.
 */
enum { MQA_FD, MQA_FILE, MQA_BUF, MQA_LEN, MQA_PRIO, MQA_DL };

/*
 * The queue is full (a send) or empty (a receive): EAGAIN for a
 * non-blocking descriptor, ETIMEDOUT once the deadline passed, else park
 * td on fp's queue until it changes, holding fp (taken at the first
 * wait, let go by cont or cancel).
 */
static long
mq_wait(struct thread *td, struct file *fp, bool parked,
    long (*cont)(struct thread *), void (*cancel)(struct thread *))
{
	int64_t dl = (int64_t)td->wait.arg[MQA_DL];
	uint64_t arg[6];

	if (fp->flags & O_NONBLOCK)
		return -EAGAIN;
	if (dl >= 0 && plat_clock_ns(CLOCK_MONOTONIC) >= dl)
		return -ETIMEDOUT;
	if (!parked)
		file_ref(fp);
	memcpy(arg, td->wait.arg, sizeof(arg));
	td->wait = (struct wait){ .cont = cont, .cancel = cancel,
	    .deadline = dl, .console_fd = -1, .chan = fp->data };
	memcpy(td->wait.arg, arg, sizeof(arg));
	return -EPARKED;
}

static void
mq_wait_cancel(struct thread *td)
{
	struct file *fp = (struct file *)td->wait.arg[MQA_FILE];

	file_rel(fp);
}

static void
mq_recv_cancel(struct thread *td)
{
	struct file *fp = (struct file *)td->wait.arg[MQA_FILE];

	((struct mqueue *)fp->data)->receivers--;
	file_rel(fp);
}

/* Insert m after the messages of its priority and above. */
static void
mq_insert(struct mqueue *q, struct mq_msg *m,
    const struct proc *sender)
{
	struct mq_msg *at;

	TAILQ_FOREACH(at, &q->msgs, link)
		if (at->prio < m->prio)
			break;
	if (at != NULL)
		TAILQ_INSERT_BEFORE(at, m, link);
	else
		TAILQ_INSERT_TAIL(&q->msgs, m, link);
	q->curmsgs++;
	q->qsize += m->len;
	mq_touch(q);
	/* mq_notify(3): only a message to an empty queue no one waits on. */
	mq_notify_check(q);
	if (q->curmsgs == 1 && q->receivers == 0)
		mq_notify_end(q, sender);
	mq_wake(q);
}

static long mq_send_cont(struct thread *td);

/* Queue the message at arg's buffer, or wait for room. */
static long
mq_send_run(struct thread *td, struct file *fp, bool parked)
{
	struct mqueue *q = fp->data;
	const uint64_t *a = td->wait.arg;
	struct mq_msg *m;

	if (q->curmsgs >= q->maxmsg)
		return mq_wait(td, fp, parked, mq_send_cont, mq_wait_cancel);
	if ((m = kmem_alloc(sizeof(*m) + a[MQA_LEN], KM_FS)) == NULL)
		return -ENOMEM;
	m->prio = (unsigned)a[MQA_PRIO];
	m->len = a[MQA_LEN];
	if (copyin(td, UADDR(a[MQA_BUF]), m->text, m->len) < 0) {
		kmem_free(m, sizeof(*m) + m->len, KM_FS);
		return -EFAULT;
	}
	mq_insert(q, m, td->proc);
	return 0;
}

static long
mq_send_cont(struct thread *td)
{
	struct file *fp = (struct file *)td->wait.arg[MQA_FILE];
	long r = mq_send_run(td, fp, true);

	if (r != -EPARKED)
		file_rel(fp);
	return r;
}

long
sys_mq_timedsend(struct thread *td, const struct sys_mq_timedsend_args *a)
{
	struct mqueue *q;
	struct file *fp;
	int64_t dl;
	long r;

	if ((r = mq_deadline(td, a->timeout, &dl)) < 0)
		return r;
	if (a->prio >= MQ_PRIO_MAX)
		return -EINVAL;
	if ((q = mq_fd(td, a->fd, true, &fp)) == NULL)
		return -EBADF;
	if (a->len > (uint64_t)q->msgsize)
		return -EMSGSIZE;
	td->wait.arg[MQA_FILE] = (uint64_t)(uintptr_t)fp;
	td->wait.arg[MQA_BUF] = a->buf.va;
	td->wait.arg[MQA_LEN] = a->len;
	td->wait.arg[MQA_PRIO] = a->prio;
	td->wait.arg[MQA_DL] = (uint64_t)dl;
	return mq_send_run(td, fp, false);
}

static long mq_recv_cont(struct thread *td);

/* Take the first message into arg's buffer, or wait for one. */
static long
mq_recv_run(struct thread *td, struct file *fp, bool parked)
{
	struct mqueue *q = fp->data;
	const uint64_t *a = td->wait.arg;
	struct mq_msg *m = TAILQ_FIRST(&q->msgs);
	long r;

	if (m == NULL) {
		r = mq_wait(td, fp, parked, mq_recv_cont, mq_recv_cancel);
		if (r == -EPARKED)
			q->receivers++;
		return r;
	}
	/* As Linux: a message taken is gone even if the copy faults. */
	TAILQ_REMOVE(&q->msgs, m, link);
	q->curmsgs--;
	q->qsize -= m->len;
	mq_touch(q);
	mq_wake(q);
	r = copyout(td, m->text, UADDR(a[MQA_BUF]), m->len) < 0 ? -EFAULT :
	    (long)m->len;
	if (r >= 0 && a[MQA_PRIO] != 0 && copyout(td, &m->prio,
	    UADDR(a[MQA_PRIO]), sizeof(m->prio)) < 0)
		r = -EFAULT;
	kmem_free(m, sizeof(*m) + m->len, KM_FS);
	return r;
}

static long
mq_recv_cont(struct thread *td)
{
	struct file *fp = (struct file *)td->wait.arg[MQA_FILE];
	long r;

	((struct mqueue *)fp->data)->receivers--;
	if ((r = mq_recv_run(td, fp, true)) != -EPARKED)
		file_rel(fp);
	return r;
}

long
sys_mq_timedreceive(struct thread *td,
    const struct sys_mq_timedreceive_args *a)
{
	struct mqueue *q;
	struct file *fp;
	int64_t dl;
	long r;

	if ((r = mq_deadline(td, a->timeout, &dl)) < 0)
		return r;
	if ((q = mq_fd(td, a->fd, false, &fp)) == NULL)
		return -EBADF;
	if (a->len < (uint64_t)q->msgsize)
		return -EMSGSIZE;
	td->wait.arg[MQA_FILE] = (uint64_t)(uintptr_t)fp;
	td->wait.arg[MQA_BUF] = a->buf.va;
	td->wait.arg[MQA_PRIO] = a->prio.va;
	td->wait.arg[MQA_DL] = (uint64_t)dl;
	return mq_recv_run(td, fp, false);
}

/* SIGEV_THREAD: the netlink socket at fd and the cookie glibc passes. */
static long
mq_notify_thread(struct thread *td, struct mq_notify *n, int fd,
    uaddr_t ucookie)
{
	struct file *sfp = fd_get(td->proc->fdt, fd);
	long r;

	if (copyin(td, ucookie, n->cookie, sizeof(n->cookie)) < 0)
		return -EFAULT;
	if (sfp == NULL)
		return -EBADF;
	if ((r = nl_check(sfp)) < 0)
		return r;
	file_ref(sfp);
	n->sock = sfp;
	return 0;
}

static long
kern_mq_notify(struct thread *td, struct mqueue *q, struct mq_notify *n)
{
	struct proc *p = td->proc;

	mq_notify_check(q);
	if (n == NULL) {
		/* Removal by anyone else is no error and does nothing. */
		if (q->nf.pid == p->pid)
			mq_notify_end(q, NULL);
		return 0;
	}
	if (q->nf.pid != 0) {
		if (n->sock != NULL)
			file_rel(n->sock);
		return -EBUSY;
	}
	n->pid = p->pid;
	n->uid = p->cred.uid;
	q->nf = *n;
	return 0;
}

long
sys_mq_notify(struct thread *td, const struct sys_mq_notify_args *a)
{
	struct mq_notify n = { 0 };
	struct mqueue *q;
	struct sigevent ev;
	long r;

	if (a->sevp.va != 0) {
		if (copyin(td, a->sevp, &ev, sizeof(ev)) < 0)
			return -EFAULT;
		n.how = ev.sigev_notify;
		n.signo = ev.sigev_signo;
		memcpy(&n.value, &ev.sigev_value, sizeof(n.value));
		if (n.how != SIGEV_NONE && n.how != SIGEV_SIGNAL &&
		    n.how != SIGEV_THREAD)
			return -EINVAL;
		/* Linux's valid_signal(): 0 too, which then sends nothing. */
		if (n.how == SIGEV_SIGNAL && (unsigned)n.signo > 64)
			return -EINVAL;
		if (n.how == SIGEV_THREAD && (r = mq_notify_thread(td, &n,
		    n.signo, UADDR(n.value))) < 0)
			return r;
	}
	if ((q = mq_of(fd_get(td->proc->fdt, a->fd))) == NULL) {
		if (n.sock != NULL)
			file_rel(n.sock);
		return -EBADF;
	}
	return kern_mq_notify(td, q, a->sevp.va != 0 ? &n : NULL);
}

long
sys_mq_getsetattr(struct thread *td, const struct sys_mq_getsetattr_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);
	struct mqueue *q = mq_of(fp);
	struct mq_attr in, out;

	if (a->newattr.va != 0) {
		if (copyin(td, a->newattr, &in, sizeof(in)) < 0)
			return -EFAULT;
		if (in.mq_flags & ~(long)O_NONBLOCK)
			return -EINVAL;
	}
	if (q == NULL)
		return -EBADF;
	out = (struct mq_attr){ .mq_flags = fp->flags & O_NONBLOCK,
	    .mq_maxmsg = q->maxmsg, .mq_msgsize = q->msgsize,
	    .mq_curmsgs = q->curmsgs };
	if (a->newattr.va != 0)
		fp->flags = (fp->flags & ~(unsigned)O_NONBLOCK) |
		    (unsigned)(in.mq_flags & O_NONBLOCK);
	if (a->oldattr.va != 0 && copyout(td, &out, a->oldattr,
	    sizeof(out)) < 0)
		return -EFAULT;
	return 0;
}

long
mq_status(struct mqueue *q, void *buf, size_t len, uint64_t off)
{
	const struct mq_notify *n = &q->nf;
	char line[128];
	size_t n_line;

	mq_notify_check(q);
	n_line = (size_t)snprintf(line, sizeof(line),
	    "QSIZE:%-10llu NOTIFY:%-5d SIGNO:%-5d NOTIFY_PID:%-6d\n",
	    (unsigned long long)q->qsize, n->pid != 0 ? n->how : 0,
	    n->pid != 0 && n->how == SIGEV_SIGNAL ? n->signo : 0, n->pid);
	if (off >= n_line)
		return 0;
	len = VK_MIN(len, n_line - off);
	memcpy(buf, line + off, len);
	return (long)len;
}

struct mqueue *
mq_get(const char *name)
{
	struct mqueue *q = mq_lookup(name);

	if (q != NULL)
		q->refs++;
	return q;
}

void
mq_put(struct mqueue *q)
{
	mq_rel(q);
}

struct mqueue *
mq_nth(uint64_t n)
{
	struct mqueue *q;

	TAILQ_FOREACH(q, &mq_names, link)
		if (n-- == 0)
			return q;
	return NULL;
}

const char *
mq_name(const struct mqueue *q)
{
	return q->name;
}

uint64_t
mq_ino(const struct mqueue *q)
{
	return q->ino;
}

void
mq_getattr(const struct mqueue *q, struct vattr *va)
{
	/* Linux's size is its FILENT_SIZE, whatever is queued. */
	*va = (struct vattr){ .ino = q->ino, .mode = S_IFREG | q->mode,
	    .uid = q->uid, .gid = q->gid, .nlink = q->named ? 1 : 0,
	    .size = 80, .blksize = 4096, .atime_ns = q->atime,
	    .mtime_ns = q->mtime, .ctime_ns = q->ctime };
}

void
mq_setattr(struct mqueue *q, const struct vattr *va, unsigned mask)
{
	if (mask & VA_MODE)
		q->mode = va->mode & 0777;
	if (mask & VA_UID)
		q->uid = va->uid;
	if (mask & VA_GID)
		q->gid = va->gid;
	if (mask & VA_ATIME)
		q->atime = va->atime_ns;
	if (mask & VA_MTIME)
		q->mtime = va->mtime_ns;
	q->ctime = plat_clock_ns(CLOCK_REALTIME);
}

long
kern_mq_create(struct proc *p, const char *name, unsigned mode,
    struct mqueue **qp)
{
	long r;

	if (mq_lookup(name) != NULL)
		return -EEXIST;
	if ((r = mq_create(p, name, mode, NULL, qp)) == 0)
		(*qp)->refs++;
	return r;
}

void
mq_unname(struct mqueue *q)
{
	if (!q->named)
		return;
	TAILQ_REMOVE(&mq_names, q, link);
	q->named = false;
	mq_rel(q);
}

void
mq_gone(void)
{
	struct mqueue *q;

	while ((q = TAILQ_FIRST(&mq_names)) != NULL)
		mq_unname(q);
}

void
mq_file_attach(struct file *fp, struct mqueue *q)
{
	fp->ops = &mq_fileops;
	fp->data = q;
	fp->chan = q;
	q->refs++;
}

static long
mq_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	long n = mq_status(fp->data, buf, len, *offp);

	*offp += (uint64_t)n;
	return n;
}

static short
mq_poll(struct file *fp)
{
	struct mqueue *q = fp->data;

	return (q->curmsgs > 0 ? POLLIN | POLLRDNORM : 0) |
	    (q->curmsgs < q->maxmsg ? POLLOUT | POLLWRNORM : 0);
}

static void
mq_close(struct file *fp)
{
	mq_rel(fp->data);
}

/*
 * As Linux's mqueue_flush_file(): the registered process closing any
 * descriptor of the queue, not only its last, ends its registration, and
 * so does its exit, which closes them all.
 */
static void
mq_flush(struct file *fp, const struct fdtable *t)
{
	struct mqueue *q = fp->data;

	(void)t;
	if (q->nf.pid != 0 && curthread != NULL &&
	    curthread->proc->pid == q->nf.pid)
		mq_notify_end(q, NULL);
	mq_notify_check(q);
}

static int
mq_stat(struct file *fp, struct vattr *va)
{
	uint64_t dev;

	/*
	 * Opened in the mqueue file system: its file's; by mq_open, the
	 * same but for the device, which is the anonymous files'.
	 */
	if (fp->vn != NULL)
		return fp->vn->ops->getattr(fp->vn, va);
	(void)anon_stat(fp, va);
	dev = va->dev;
	mq_getattr(fp->data, va);
	va->dev = dev;
	return 0;
}

static const struct file_ops mq_fileops = {
	.read = mq_read,
	.write = anon_write_einval,
	.stat = mq_stat,
	.poll = mq_poll,
	.close = mq_close,
	.flush = mq_flush,
};
