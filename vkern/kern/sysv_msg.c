/*
 * System V message queues: msgget, msgsnd, msgrcv, msgctl.
 *
 * A queue is a list of messages in the order sent, each a type and a
 * copy of its text, bounded by the queue's msg_qbytes in bytes and in
 * messages (Linux's msg_fits_inqueue()).  A sender that does not fit, or
 * a receiver that finds nothing, parks on the queue; every change to the
 * queue wakes its waiters, which try again when they run.  A sender's
 * message is copied in once, before it waits.  A waiter finds its queue
 * by id again, so that one removed meanwhile fails it with EIDRM.
 *
 * msgsnd and msgrcv are never restarted after a signal handler
 * (signal(7)): a signal ends the wait with EINTR.
 */
#include <errno.h>
#include <linux/ipc.h>
#include <linux/msg.h>
#include <string.h>
#include <sys/queue.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kern/sysv_ipc.h"
#include "vkern/kmem.h"
#include "vkern/vm/copyio.h"

struct msg_msg {
	TAILQ_ENTRY(msg_msg) link;
	int64_t type;
	uint64_t len;
	char text[];
};

struct msg_queue {
	struct ipc_obj o;
	int64_t stime, rtime;
	uint64_t cbytes, qnum, qbytes;
	int lspid, lrpid;
	TAILQ_HEAD(, msg_msg) msgs;
};

static struct ipc_ids msg_ids = { .last_idx = -1 };
static uint64_t msg_hdrs, msg_bytes;   /* in every queue, for MSG_INFO */

static struct msg_queue *
msg_lookup(int id)
{
	struct ipc_obj *o = ipc_lookup(&msg_ids, id);

	return o != NULL ? VK_CONTAINER_OF(o, struct msg_queue, o) : NULL;
}

static void
msg_free(struct msg_msg *m)
{
	kmem_free(m, sizeof(*m) + m->len, KM_FS);
}

static long
msg_create(struct thread *td, int32_t key, int flg, uint64_t arg)
{
	struct msg_queue *q = kmem_alloc(sizeof(*q), KM_ZERO | KM_FS);
	int r;

	if (q == NULL)
		return -ENOMEM;
	if ((r = ipc_add(&msg_ids, &q->o, td->proc, key, flg,
	    ipc_lim.msgmni)) < 0) {
		kmem_free(q, sizeof(*q), KM_FS);
		return r;
	}
	q->qbytes = ipc_lim.msgmnb;
	TAILQ_INIT(&q->msgs);
	return q->o.id;
}

static const struct ipc_ops msg_ops = { .create = msg_create };

long
sys_msgget(struct thread *td, const struct sys_msgget_args *a)
{
	return ipc_get(&msg_ids, &msg_ops, td, a->key, a->flg, 0);
}

static void
msg_destroy(struct msg_queue *q)
{
	struct msg_msg *m;

	while ((m = TAILQ_FIRST(&q->msgs)) != NULL) {
		TAILQ_REMOVE(&q->msgs, m, link);
		msg_hdrs--;
		msg_bytes -= m->len;
		msg_free(m);
	}
	/* Its waiters find it gone: EIDRM. */
	sched_wake_chan(q);
	ipc_remove(&msg_ids, &q->o);
	kmem_free(q, sizeof(*q), KM_FS);
}

/*
 * Park td on q until it changes: cont runs the call again with the n
 * values of arg, in td->wait.arg.
 */
static long
msg_park(struct thread *td, struct msg_queue *q, long (*cont)(struct thread *),
    void (*cancel)(struct thread *), const uint64_t *arg, int n)
{
	td->wait = (struct wait){ .cont = cont, .cancel = cancel,
	    .deadline = -1, .console_fd = -1, .chan = q };
	memcpy(td->wait.arg, arg, (size_t)n * sizeof(*arg));
	return -EPARKED;
}

/*
 * Queue m on queue id.  retry: the call waited before, so that a queue
 * gone is EIDRM.  Returns 0 (m queued), 1 when m does not fit and the
 * caller may wait (m still its), or -errno (m freed).
 */
static long
msgsnd_try(struct thread *td, int id, struct msg_msg *m, int flg,
    bool retry)
{
	struct msg_queue *q = msg_lookup(id);
	long r = 0;

	if (q == NULL)
		r = retry ? -EIDRM : -EINVAL;
	else if (!ipc_may(td->proc, &q->o, IPC_MAY_WRITE))
		r = -EACCES;
	else if (q->cbytes + m->len > q->qbytes || q->qnum + 1 > q->qbytes)
		r = (flg & IPC_NOWAIT) ? -EAGAIN : 1;
	if (r != 0) {
		if (r < 0)
			msg_free(m);
		return r;
	}
	TAILQ_INSERT_TAIL(&q->msgs, m, link);
	q->cbytes += m->len;
	q->qnum++;
	q->lspid = td->proc->pid;
	q->stime = ipc_now();
	msg_hdrs++;
	msg_bytes += m->len;
	sched_wake_chan(q);
	return 0;
}

static long msgsnd_cont(struct thread *td);

static void
msgsnd_cancel(struct thread *td)
{
	msg_free((struct msg_msg *)td->wait.arg[1]);
}

/* Send m, or wait until it fits. */
static long
msgsnd_run(struct thread *td, int id, struct msg_msg *m, int flg,
    bool retry)
{
	uint64_t arg[3] = { (uint64_t)id, (uint64_t)(uintptr_t)m,
	    (uint64_t)flg };
	long r = msgsnd_try(td, id, m, flg, retry);

	if (r != 1)
		return r;
	return msg_park(td, msg_lookup(id), msgsnd_cont, msgsnd_cancel, arg,
	    3);
}

static long
msgsnd_cont(struct thread *td)
{
	return msgsnd_run(td, (int)td->wait.arg[0],
	    (struct msg_msg *)td->wait.arg[1], (int)td->wait.arg[2], true);
}

long
sys_msgsnd(struct thread *td, const struct sys_msgsnd_args *a)
{
	struct msg_msg *m;
	int64_t type;

	/* The type is read first, as Linux's ksys_msgsnd() does. */
	if (copyin(td, a->msgp, &type, sizeof(type)) < 0)
		return -EFAULT;
	if (a->size > ipc_lim.msgmax || (int64_t)a->size < 0 || a->id < 0)
		return -EINVAL;
	if (type < 1)
		return -EINVAL;
	if ((m = kmem_alloc(sizeof(*m) + a->size, KM_FS)) == NULL)
		return -ENOMEM;
	m->type = type;
	m->len = a->size;
	if (copyin(td, UADDR(a->msgp.va + sizeof(type)), m->text,
	    a->size) < 0) {
		msg_free(m);
		return -EFAULT;
	}
	return msgsnd_run(td, a->id, m, a->flg, false);
}

/* How msgrcv picks a message (Linux's convert_mode()). */
enum msg_search { MS_ANY, MS_EQUAL, MS_NOTEQUAL, MS_LESSEQUAL, MS_NUMBER };

static enum msg_search
msg_mode(int64_t *type, int flg)
{
	if (flg & MSG_COPY)
		return MS_NUMBER;
	if (*type == 0)
		return MS_ANY;
	if (*type < 0) {
		*type = *type == INT64_MIN ? INT64_MAX : -*type;
		return MS_LESSEQUAL;
	}
	return (flg & MSG_EXCEPT) ? MS_NOTEQUAL : MS_EQUAL;
}

/*
 * The message msgrcv takes: the first of type (ANY, EQUAL, NOTEQUAL), of
 * the lowest type up to it (LESSEQUAL), or the type-th (NUMBER), or NULL.
 */
static struct msg_msg *
msg_find(struct msg_queue *q, int64_t type, enum msg_search mode)
{
	struct msg_msg *m, *found = NULL;
	int64_t count = 0;

	TAILQ_FOREACH(m, &q->msgs, link) {
		switch (mode) {
		case MS_ANY:
			return m;
		case MS_EQUAL:
			if (m->type == type)
				return m;
			break;
		case MS_NOTEQUAL:
			if (m->type != type)
				return m;
			break;
		case MS_LESSEQUAL:
			if (m->type <= type && (found == NULL ||
			    m->type < found->type))
				found = m;
			break;
		case MS_NUMBER:
			if (count++ == type)
				return m;
			break;
		}
	}
	return found;
}

/* The message, its type and then at most size bytes of text. */
static long
msg_copyout(struct thread *td, uaddr_t msgp, const struct msg_msg *m,
    uint64_t size)
{
	uint64_t n = VK_MIN(size, m->len);

	if (copyout(td, &m->type, msgp, sizeof(m->type)) < 0 ||
	    copyout(td, m->text, UADDR(msgp.va + sizeof(m->type)), n) < 0)
		return -EFAULT;
	return (long)n;
}

static long msgrcv_cont(struct thread *td);

/*
 * Take (or with MSG_COPY, copy) the message msgrcv's arguments pick, or
 * wait for one.  retry as msgsnd_run's.
 */
static long
msgrcv_run(struct thread *td, int id, uaddr_t msgp, uint64_t size,
    int64_t type, int flg, bool retry)
{
	uint64_t arg[5] = { (uint64_t)id, msgp.va, size, (uint64_t)type,
	    (uint64_t)flg };
	enum msg_search mode = msg_mode(&type, flg);
	struct msg_queue *q = msg_lookup(id);
	struct msg_msg *m;
	long r;

	if (q == NULL)
		return retry ? -EIDRM : -EINVAL;
	if (!ipc_may(td->proc, &q->o, IPC_MAY_READ))
		return -EACCES;
	if ((m = msg_find(q, type, mode)) == NULL) {
		if (flg & IPC_NOWAIT)
			return -ENOMSG;
		return msg_park(td, q, msgrcv_cont, NULL, arg, 5);
	}
	if (size < m->len && !(flg & MSG_NOERROR))
		return -E2BIG;
	/* Linux's copy_msg(): the copy is made no larger than msgmax. */
	if ((flg & MSG_COPY) && m->len > VK_MIN(size, ipc_lim.msgmax))
		return -EINVAL;
	if (flg & MSG_COPY)
		return msg_copyout(td, msgp, m, size);
	TAILQ_REMOVE(&q->msgs, m, link);
	q->qnum--;
	q->cbytes -= m->len;
	q->rtime = ipc_now();
	q->lrpid = td->proc->pid;
	msg_hdrs--;
	msg_bytes -= m->len;
	sched_wake_chan(q);
	/* As Linux: a message taken is gone even if the copy faults. */
	r = msg_copyout(td, msgp, m, size);
	msg_free(m);
	return r;
}

static long
msgrcv_cont(struct thread *td)
{
	const uint64_t *a = td->wait.arg;

	return msgrcv_run(td, (int)a[0], UADDR(a[1]), a[2], (int64_t)a[3],
	    (int)a[4], true);
}

long
sys_msgrcv(struct thread *td, const struct sys_msgrcv_args *a)
{
	if (a->id < 0 || (int64_t)a->size < 0)
		return -EINVAL;
	if ((a->flg & MSG_COPY) && ((a->flg & MSG_EXCEPT) ||
	    !(a->flg & IPC_NOWAIT)))
		return -EINVAL;
	return msgrcv_run(td, a->id, a->msgp, a->size, a->type, a->flg,
	    false);
}

static void
msg_fill(const struct ipc_obj *o, void *out)
{
	const struct msg_queue *q = VK_CONTAINER_OF(o, struct msg_queue, o);
	struct msqid64_ds *ds = out;

	*ds = (struct msqid64_ds){ .msg_stime = q->stime,
	    .msg_rtime = q->rtime, .msg_ctime = q->o.ctime,
	    .msg_cbytes = q->cbytes, .msg_qnum = q->qnum,
	    .msg_qbytes = q->qbytes, .msg_lspid = q->lspid,
	    .msg_lrpid = q->lrpid };
	ipc_perm_get(o, &ds->msg_perm);
}

static void
msg_gone(struct ipc_obj *o)
{
	msg_destroy(VK_CONTAINER_OF(o, struct msg_queue, o));
}

const struct ipc_family msg_family = { .ids = &msg_ids,
	.dslen = sizeof(struct msqid64_ds), .fill = msg_fill,
	.stat_any = MSG_STAT_ANY, .destroy = msg_gone };

static long
msgctl_info(struct thread *td, int cmd, uaddr_t buf)
{
	struct msginfo mi = { .msgmni = (int)ipc_lim.msgmni,
	    .msgmax = (int)ipc_lim.msgmax, .msgmnb = (int)ipc_lim.msgmnb,
	    .msgssz = MSGSSZ, .msgseg = MSGSEG, .msgpool = MSGPOOL,
	    .msgmap = MSGMAP, .msgtql = MSGTQL };

	if (cmd == MSG_INFO) {
		mi.msgpool = (int)msg_ids.in_use;
		mi.msgmap = (int)VK_MIN(msg_hdrs, INT32_MAX);
		mi.msgtql = (int)VK_MIN(msg_bytes, INT32_MAX);
	}
	if (copyout(td, &mi, buf, sizeof(mi)) < 0)
		return -EFAULT;
	return VK_MAX(ipc_max_idx(&msg_ids), 0);
}

/* IPC_SET: raising msg_qbytes past msgmnb is root's (CAP_SYS_RESOURCE). */
static long
msgctl_set(struct thread *td, struct msg_queue *q,
    const struct msqid64_ds *in)
{
	int r;

	if (in->msg_qbytes > ipc_lim.msgmnb && td->proc->cred.euid != 0)
		return -EPERM;
	if ((r = ipc_perm_set(&q->o, &in->msg_perm)) < 0)
		return r;
	q->qbytes = in->msg_qbytes;
	sched_wake_chan(q);
	return 0;
}

long
sys_msgctl(struct thread *td, const struct sys_msgctl_args *a)
{
	struct msqid64_ds in;
	struct msg_queue *q;
	struct ipc_obj *o;
	int r;

	if (a->id < 0 || a->cmd < 0)
		return -EINVAL;
	switch (a->cmd) {
	case IPC_INFO:
	case MSG_INFO:
		return msgctl_info(td, a->cmd, a->buf);
	case IPC_STAT:
	case MSG_STAT:
	case MSG_STAT_ANY:
		return ipc_stat(td, &msg_family, a->id, a->cmd, a->buf);
	case IPC_SET:
		if (copyin(td, a->buf, &in, sizeof(in)) < 0)
			return -EFAULT;
		break;
	case IPC_RMID:
		break;
	default:
		return -EINVAL;
	}
	if ((o = ipc_owned(&msg_ids, td->proc, a->id, &r)) == NULL)
		return r;
	q = VK_CONTAINER_OF(o, struct msg_queue, o);
	if (a->cmd == IPC_SET)
		return msgctl_set(td, q, &in);
	msg_destroy(q);
	return 0;
}
