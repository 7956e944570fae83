/*
 * System V semaphores: semget, semop, semtimedop, semctl.
 *
 * A set is an array of values, each with the pid of its last operation.
 * semop applies its operations all or none: they are applied in order,
 * and undone in reverse at the first that cannot proceed.  A call that
 * must wait parks its thread with a copy of its operations on the set's
 * queue.  Whoever changes the set's values then runs the queue as
 * Linux's update_queue(): each waiter's operations are tried in arrival
 * order, and one whose operations complete (or fail) leaves the queue
 * with its result and its thread is woken to return it; a completion
 * that changed values starts the walk again.  A waiter that still cannot
 * proceed is not woken at all, and a call that need not wait copies its
 * operations no further than the stack.  Which operation blocked a
 * waiter is what GETNCNT and GETZCNT count, as Linux's count_semcnt().
 * A removed set fails its waiters with EIDRM.
 *
 * SEM_UNDO keeps, per process and set, the adjustment to apply at exit
 * (a sem_undo on both the process's and the set's list); SETVAL and
 * SETALL clear the adjustments they overwrite, and IPC_RMID drops the
 * set's.  The threads of a process share its adjustments, as with
 * CLONE_SYSVSEM; a child starts with none.
 *
 * semop and semtimedop are never restarted after a signal handler
 * (signal(7)): a signal ends the wait with EINTR, unless the operations
 * had completed already, whose result the call returns.
 */
#include <errno.h>
#include <linux/ipc.h>
#include <linux/sem.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kern/sysv_ipc.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"

struct sem_wait;

struct sem_undo {
	struct sem_undo *pnext, **pprev;   /* the process's (p->semundo) */
	LIST_ENTRY(sem_undo) setlink;
	struct proc *p;
	struct sem_set *set;
	int16_t adj[];
};

struct sem_val {
	uint16_t val;
	int pid;
};

struct sem_set {
	struct ipc_obj o;
	int nsems;
	int64_t otime;
	TAILQ_HEAD(, sem_wait) waiters;
	LIST_HEAD(, sem_undo) undos;
	struct sem_val sem[];
};

/*
 * Operations a semop copies onto its stack (Linux's SEMOPM_FAST); more
 * are copied into the kernel's memory.
 */
#define SEM_FAST_OPS 64

/* A parked semop. */
struct sem_wait {
	TAILQ_ENTRY(sem_wait) link;
	struct thread *td;
	struct sem_set *set;        /* its queue's, while on it */
	struct sem_undo *undo;      /* its process's adjustments, or NULL */
	int64_t deadline;           /* CLOCK_MONOTONIC ns, or -1 */
	int blocked;                /* the operation it waits on */
	bool alters;                /* it changes values, not only waits */
	bool done;                  /* off the queue, with result */
	long result;
	unsigned nsops;
	struct sembuf sops[];
};

static struct ipc_ids sem_ids = { .last_idx = -1 };
static uint64_t sem_used;       /* semaphores in all sets */

static size_t
sem_set_size(int nsems)
{
	return sizeof(struct sem_set) + (size_t)nsems * sizeof(struct sem_val);
}

static size_t
sem_undo_size(int nsems)
{
	return sizeof(struct sem_undo) + (size_t)nsems * sizeof(int16_t);
}

static size_t
sem_wait_size(unsigned nsops)
{
	return sizeof(struct sem_wait) + nsops * sizeof(struct sembuf);
}

static struct sem_set *
sem_lookup(int id)
{
	struct ipc_obj *o = ipc_lookup(&sem_ids, id);

	return o != NULL ? VK_CONTAINER_OF(o, struct sem_set, o) : NULL;
}

/* Take w off its queue with result r; its thread returns r next turn. */
static void
sem_wait_done(struct sem_wait *w, long r)
{
	TAILQ_REMOVE(&w->set->waiters, w, link);
	w->done = true;
	w->result = r;
	w->td->wait.deadline = 0;
}

static void
sem_undo_free(struct sem_undo *u)
{
	int nsems = u->set->nsems;

	*u->pprev = u->pnext;
	if (u->pnext != NULL)
		u->pnext->pprev = u->pprev;
	LIST_REMOVE(u, setlink);
	kmem_free(u, sem_undo_size(nsems), 0);
}

static void
sem_destroy(struct sem_set *s)
{
	struct sem_wait *w;

	while ((w = TAILQ_FIRST(&s->waiters)) != NULL)
		sem_wait_done(w, -EIDRM);
	while (!LIST_EMPTY(&s->undos))
		sem_undo_free(LIST_FIRST(&s->undos));
	ipc_remove(&sem_ids, &s->o);
	sem_used -= (uint64_t)s->nsems;
	kmem_free(s, sem_set_size(s->nsems), KM_FS);
}

/* semget's new set, checked as Linux's newary(). */
static long
sem_create(struct thread *td, int32_t key, int flg, uint64_t nsems)
{
	struct sem_set *s;
	int r;

	if (nsems == 0)
		return -EINVAL;
	if (sem_used + nsems > ipc_lim.sem[IPC_SEMMNS])
		return -ENOSPC;
	if ((s = kmem_alloc(sem_set_size((int)nsems), KM_ZERO | KM_FS)) ==
	    NULL)
		return -ENOMEM;
	r = ipc_add(&sem_ids, &s->o, td->proc, key, flg,
	    ipc_lim.sem[IPC_SEMMNI]);
	if (r < 0) {
		kmem_free(s, sem_set_size((int)nsems), KM_FS);
		return r;
	}
	s->nsems = (int)nsems;
	TAILQ_INIT(&s->waiters);
	LIST_INIT(&s->undos);
	sem_used += nsems;
	return s->o.id;
}

static int
sem_more(struct ipc_obj *o, uint64_t nsems)
{
	return nsems > (uint64_t)VK_CONTAINER_OF(o, struct sem_set, o)->nsems ?
	    -EINVAL : 0;
}

static const struct ipc_ops sem_ops = { .create = sem_create,
	.more = sem_more };

long
sys_semget(struct thread *td, const struct sys_semget_args *a)
{
	if (a->nsems < 0 || (uint64_t)a->nsems > ipc_lim.sem[IPC_SEMMSL])
		return -EINVAL;
	return ipc_get(&sem_ids, &sem_ops, td, a->key, a->flg,
	    (uint64_t)a->nsems);
}

/* p's adjustments for s, or NULL. */
static struct sem_undo *
sem_undo_find(struct proc *p, const struct sem_set *s)
{
	for (struct sem_undo *u = p->semundo; u != NULL; u = u->pnext)
		if (u->set == s)
			return u;
	return NULL;
}

/* p's adjustments for s, made if need be: NULL when out of memory. */
static struct sem_undo *
sem_undo_get(struct proc *p, struct sem_set *s)
{
	struct sem_undo *u = sem_undo_find(p, s);

	if (u != NULL)
		return u;
	if ((u = kmem_alloc(sem_undo_size(s->nsems), KM_ZERO)) == NULL)
		return NULL;
	u->p = p;
	u->set = s;
	u->pnext = p->semundo;
	if (u->pnext != NULL)
		u->pnext->pprev = &u->pnext;
	u->pprev = &p->semundo;
	p->semundo = u;
	LIST_INSERT_HEAD(&s->undos, u, setlink);
	return u;
}

/*
 * Apply sops to s all at once, as Linux's perform_atomic_semop(): 0 when
 * done, 1 when one must wait (its index in *blockedp), -EAGAIN when it
 * would wait but says IPC_NOWAIT, -ERANGE past SEMVMX or SEMAEM.  Nothing
 * changes unless it returns 0.
 */
static int
sem_apply(struct sem_set *s, const struct sembuf *sops, unsigned n,
    struct sem_undo *u, int pid, int *blockedp)
{
	unsigned i;
	int r = 0;

	for (i = 0; i < n; i++) {
		const struct sembuf *op = &sops[i];
		int v = s->sem[op->sem_num].val + op->sem_op;

		if ((op->sem_op == 0 && s->sem[op->sem_num].val != 0) ||
		    v < 0) {
			*blockedp = (int)i;
			r = (op->sem_flg & IPC_NOWAIT) ? -EAGAIN : 1;
			break;
		}
		if (v > SEMVMX) {
			r = -ERANGE;
			break;
		}
		if (op->sem_flg & SEM_UNDO) {
			int adj = u->adj[op->sem_num] - op->sem_op;

			if (adj < -SEMAEM - 1 || adj > SEMAEM) {
				r = -ERANGE;
				break;
			}
			u->adj[op->sem_num] = (int16_t)adj;
		}
		s->sem[op->sem_num].val = (uint16_t)v;
	}
	if (r == 0) {
		for (i = 0; i < n; i++)
			s->sem[sops[i].sem_num].pid = pid;
		s->otime = ipc_now();
		return 0;
	}
	while (i-- > 0) {
		s->sem[sops[i].sem_num].val -= sops[i].sem_op;
		if (sops[i].sem_flg & SEM_UNDO)
			u->adj[sops[i].sem_num] += sops[i].sem_op;
	}
	return r;
}

/* Whether any of sops changes a value (else they only wait for zero). */
static bool
sem_alters(const struct sembuf *sops, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (sops[i].sem_op != 0)
			return true;
	return false;
}

/*
 * A signal ends the wait, or its thread is going away.  Operations that
 * completed already stand, and the call returns their result.
 */
static void
sem_wait_cancel(struct thread *td)
{
	struct sem_wait *w = (struct sem_wait *)td->wait.arg[0];

	if (w->done) {
		td->wait.done = w->result;
		td->wait.done_set = true;
	} else {
		TAILQ_REMOVE(&w->set->waiters, w, link);
	}
	kmem_free(w, sem_wait_size(w->nsops), 0);
}

/*
 * s's values changed: complete every waiter whose operations can run now
 * (or fail, as an IPC_NOWAIT one that would wait), in arrival order, and
 * walk again from the start after one that changed values.
 */
static void
sem_update(struct sem_set *s)
{
	struct sem_wait *w, *next;

	for (w = TAILQ_FIRST(&s->waiters); w != NULL; w = next) {
		long r = sem_apply(s, w->sops, w->nsops, w->undo,
		    w->td->proc->pid, &w->blocked);

		next = TAILQ_NEXT(w, link);
		if (r == 1)
			continue;
		sem_wait_done(w, r);
		if (r == 0 && w->alters)
			next = TAILQ_FIRST(&s->waiters);
	}
}

/*
 * A parked semop's thread runs: its result, EAGAIN once its timeout
 * passed, or on waiting when woken for nothing.
 */
static long
sem_wait_cont(struct thread *td)
{
	struct sem_wait *w = (struct sem_wait *)td->wait.arg[0];
	long r = -EAGAIN;

	if (w->done)
		r = w->result;
	else if (w->deadline < 0 ||
	    plat_clock_ns(CLOCK_MONOTONIC) < w->deadline) {
		td->wait.deadline = w->deadline;
		return -EPARKED;
	} else
		TAILQ_REMOVE(&w->set->waiters, w, link);
	kmem_free(w, sem_wait_size(w->nsops), 0);
	return r;
}

/*
 * semop's checks on sops in the order of Linux's do_semtimedop(), for s
 * of nsems: EFBIG for a semaphore past its end, EACCES without the
 * access the operations need.
 */
static int
sem_check(struct thread *td, struct sem_set *s, const struct sembuf *sops,
    unsigned n, bool alters)
{
	unsigned max = 0;

	for (unsigned i = 0; i < n; i++)
		max = VK_MAX(max, sops[i].sem_num);
	if (max >= (unsigned)s->nsems)
		return -EFBIG;
	if (!ipc_may(td->proc, &s->o, alters ? IPC_MAY_WRITE : IPC_MAY_READ))
		return -EACCES;
	return 0;
}

static bool
sem_undoes(const struct sembuf *sops, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (sops[i].sem_flg & SEM_UNDO)
			return true;
	return false;
}

/*
 * Park td on s's queue until sops can run, deadline (-1: none) passes or
 * a signal comes; blocked is the operation that cannot run now.
 */
static long
sem_park(struct thread *td, struct sem_set *s, const struct sembuf *sops,
    unsigned n, struct sem_undo *u, int64_t deadline, int blocked)
{
	struct sem_wait *w = kmem_alloc(sem_wait_size(n), 0);

	if (w == NULL)
		return -ENOMEM;
	*w = (struct sem_wait){ .td = td, .set = s, .undo = u,
	    .deadline = deadline, .blocked = blocked,
	    .alters = sem_alters(sops, n), .nsops = n };
	memcpy(w->sops, sops, n * sizeof(*sops));
	TAILQ_INSERT_TAIL(&s->waiters, w, link);
	td->wait = (struct wait){ .cont = sem_wait_cont,
	    .cancel = sem_wait_cancel, .deadline = deadline, .console_fd = -1 };
	td->wait.arg[0] = (uint64_t)(uintptr_t)w;
	return -EPARKED;
}

/*
 * Run sops on s now, or park td until they can run or deadline (-1:
 * none) passes.
 */
static long
sem_run(struct thread *td, struct sem_set *s, const struct sembuf *sops,
    unsigned n, int64_t deadline)
{
	struct sem_undo *u = NULL;
	bool alters = sem_alters(sops, n);
	int blocked;
	long r;

	if ((r = sem_check(td, s, sops, n, alters)) < 0)
		return r;
	if (sem_undoes(sops, n) && (u = sem_undo_get(td->proc, s)) == NULL)
		return -ENOMEM;
	r = sem_apply(s, sops, n, u, td->proc->pid, &blocked);
	if (r == 0 && alters)
		sem_update(s);
	if (r != 1)
		return r;
	if (deadline >= 0 && plat_clock_ns(CLOCK_MONOTONIC) >= deadline)
		return -EAGAIN;
	return sem_park(td, s, sops, n, u, deadline, blocked);
}

/* A relative timeout as a CLOCK_MONOTONIC deadline (-1: none). */
static int
sem_deadline(struct thread *td, uaddr_t uts, int64_t *dl)
{
	struct { int64_t sec, nsec; } ts;

	*dl = -1;
	if (uts.va == 0)
		return 0;
	if (copyin(td, uts, &ts, sizeof(ts)) < 0)
		return -EFAULT;
	if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
		return -EINVAL;
	if (ts.sec < VK_NS_MAX / 1000000000 - 1)
		*dl = plat_clock_ns(CLOCK_MONOTONIC) + ts.sec * 1000000000 +
		    ts.nsec;
	return 0;
}

static long
kern_semtimedop(struct thread *td, int id, uaddr_t usops, unsigned nsops,
    uaddr_t uts)
{
	struct sembuf fast[SEM_FAST_OPS], *sops = fast;
	struct sem_set *s;
	int64_t dl;
	long r;

	if (nsops < 1 || id < 0)
		return -EINVAL;
	if (nsops > ipc_lim.sem[IPC_SEMOPM])
		return -E2BIG;
	if (nsops > SEM_FAST_OPS &&
	    (sops = kmem_alloc(nsops * sizeof(*sops), 0)) == NULL)
		return -ENOMEM;
	if (copyin(td, usops, sops, nsops * sizeof(*sops)) < 0)
		r = -EFAULT;
	else if ((r = sem_deadline(td, uts, &dl)) == 0)
		r = (s = sem_lookup(id)) == NULL ? -EINVAL :
		    sem_run(td, s, sops, nsops, dl);
	if (sops != fast)
		kmem_free(sops, nsops * sizeof(*sops), 0);
	return r;
}

long
sys_semop(struct thread *td, const struct sys_semop_args *a)
{
	return kern_semtimedop(td, a->id, a->sops, a->nsops, UADDR(0));
}

long
sys_semtimedop(struct thread *td, const struct sys_semtimedop_args *a)
{
	return kern_semtimedop(td, a->id, a->sops, a->nsops, a->timeout);
}

/* GETNCNT (zero false) or GETZCNT: the waiters blocked on semaphore n. */
static int
sem_count(const struct sem_set *s, int n, bool zero)
{
	const struct sem_wait *w;
	int c = 0;

	TAILQ_FOREACH(w, &s->waiters, link) {
		const struct sembuf *op = &w->sops[w->blocked];

		if (op->sem_num == n && (zero ? op->sem_op == 0 :
		    op->sem_op < 0))
			c++;
	}
	return c;
}

/* SETVAL and SETALL overwrite the adjustments of semaphore n (-1: all). */
static void
sem_undo_clear(struct sem_set *s, int n)
{
	struct sem_undo *u;

	LIST_FOREACH(u, &s->undos, setlink) {
		if (n >= 0)
			u->adj[n] = 0;
		else
			memset(u->adj, 0, (size_t)s->nsems * sizeof(u->adj[0]));
	}
}

static void
sem_fill(const struct ipc_obj *o, void *out)
{
	const struct sem_set *s = VK_CONTAINER_OF(o, struct sem_set, o);
	struct semid64_ds *ds = out;

	*ds = (struct semid64_ds){ .sem_otime = s->otime,
	    .sem_ctime = s->o.ctime, .sem_nsems = (unsigned long)s->nsems };
	ipc_perm_get(o, &ds->sem_perm);
}

static void
sem_gone(struct ipc_obj *o)
{
	sem_destroy(VK_CONTAINER_OF(o, struct sem_set, o));
}

const struct ipc_family sem_family = { .ids = &sem_ids,
	.dslen = sizeof(struct semid64_ds), .fill = sem_fill,
	.stat_any = SEM_STAT_ANY, .destroy = sem_gone };

static long
semctl_info(struct thread *td, int cmd, uaddr_t buf)
{
	const uint64_t *l = ipc_lim.sem;
	struct seminfo si = { .semmni = (int)l[IPC_SEMMNI],
	    .semmns = (int)l[IPC_SEMMNS], .semmsl = (int)l[IPC_SEMMSL],
	    .semopm = (int)l[IPC_SEMOPM], .semvmx = SEMVMX,
	    .semmnu = (int)l[IPC_SEMMNS], .semmap = (int)l[IPC_SEMMNS],
	    .semume = (int)l[IPC_SEMOPM], .semusz = SEMUSZ, .semaem = SEMAEM };

	if (cmd == SEM_INFO) {
		si.semusz = (int)sem_ids.in_use;
		si.semaem = (int)sem_used;
	}
	if (copyout(td, &si, buf, sizeof(si)) < 0)
		return -EFAULT;
	return VK_MAX(ipc_max_idx(&sem_ids), 0);
}

/* SETALL's values v, each checked first: 0, or -ERANGE past SEMVMX. */
static long
sem_setall(struct thread *td, struct sem_set *s, const uint16_t *v)
{
	for (int i = 0; i < s->nsems; i++)
		if (v[i] > SEMVMX)
			return -ERANGE;
	sem_undo_clear(s, -1);
	for (int i = 0; i < s->nsems; i++)
		s->sem[i] = (struct sem_val){ v[i], td->proc->pid };
	s->o.ctime = ipc_now();
	sem_update(s);
	return 0;
}

/* GETALL, or SETALL (set): every value, as the guest's unsigned shorts. */
static long
semctl_all(struct thread *td, struct sem_set *s, uaddr_t buf, bool set)
{
	size_t len = (size_t)s->nsems * sizeof(uint16_t);
	uint16_t *v = kmem_alloc(len, 0);
	long r;

	if (v == NULL)
		return -ENOMEM;
	if (set) {
		r = copyin(td, buf, v, len) < 0 ? -EFAULT : sem_setall(td, s, v);
	} else {
		for (int i = 0; i < s->nsems; i++)
			v[i] = s->sem[i].val;
		r = copyout(td, v, buf, len) < 0 ? -EFAULT : 0;
	}
	kmem_free(v, len, 0);
	return r;
}

/* The commands on values, as Linux's semctl_main() and semctl_setval(). */
static long
semctl_main(struct thread *td, int id, int n, int cmd, uint64_t arg)
{
	struct sem_set *s;

	if (cmd == SETVAL && ((int)arg > SEMVMX || (int)arg < 0))
		return -ERANGE;
	if ((s = sem_lookup(id)) == NULL)
		return -EINVAL;
	/* SETVAL checks the number first, the others their access. */
	if (cmd == SETVAL && (n < 0 || n >= s->nsems))
		return -EINVAL;
	if (!ipc_may(td->proc, &s->o, cmd == SETALL || cmd == SETVAL ?
	    IPC_MAY_WRITE : IPC_MAY_READ))
		return -EACCES;
	if (cmd != GETALL && cmd != SETALL && (n < 0 || n >= s->nsems))
		return -EINVAL;
	switch (cmd) {
	case GETALL:
	case SETALL:
		return semctl_all(td, s, UADDR(arg), cmd == SETALL);
	case GETVAL:
		return s->sem[n].val;
	case GETPID:
		return s->sem[n].pid;
	case GETNCNT:
		return sem_count(s, n, false);
	case GETZCNT:
		return sem_count(s, n, true);
	default:
		sem_undo_clear(s, n);
		s->sem[n] = (struct sem_val){ (uint16_t)arg, td->proc->pid };
		s->o.ctime = ipc_now();
		sem_update(s);
		return 0;
	}
}

long
sys_semctl(struct thread *td, const struct sys_semctl_args *a)
{
	struct semid64_ds in;
	struct ipc_obj *o;
	int r;

	if (a->id < 0)
		return -EINVAL;
	switch (a->cmd) {
	case IPC_INFO:
	case SEM_INFO:
		return semctl_info(td, a->cmd, UADDR(a->arg));
	case IPC_STAT:
	case SEM_STAT:
	case SEM_STAT_ANY:
		return ipc_stat(td, &sem_family, a->id, a->cmd,
		    UADDR(a->arg));
	case GETALL:
	case GETVAL:
	case GETPID:
	case GETNCNT:
	case GETZCNT:
	case SETALL:
	case SETVAL:
		return semctl_main(td, a->id, a->num, a->cmd, a->arg);
	case IPC_SET:
		if (copyin(td, UADDR(a->arg), &in, sizeof(in)) < 0)
			return -EFAULT;
		break;
	case IPC_RMID:
		break;
	default:
		return -EINVAL;
	}
	if ((o = ipc_owned(&sem_ids, td->proc, a->id, &r)) == NULL)
		return r;
	if (a->cmd == IPC_SET)
		return ipc_perm_set(o, &in.sem_perm);
	sem_destroy(VK_CONTAINER_OF(o, struct sem_set, o));
	return 0;
}

void
sem_exit(struct proc *p)
{
	struct sem_undo *u;

	while ((u = p->semundo) != NULL) {
		struct sem_set *s = u->set;

		/* As Linux's exit_sem(): clamped to [0, SEMVMX]. */
		for (int i = 0; i < s->nsems; i++) {
			int v = s->sem[i].val + u->adj[i];

			if (u->adj[i] == 0)
				continue;
			s->sem[i].val = (uint16_t)VK_MIN(VK_MAX(v, 0), SEMVMX);
			s->sem[i].pid = p->pid;
		}
		sem_update(s);
		sem_undo_free(u);
	}
}
