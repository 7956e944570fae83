/*
 * futex and futex_waitv.
 *
 * A sleeping futex call is a futex_sleep: its thread, parked, and one
 * waiter per word it waits on (one, or futex_waitv's many), each on the
 * one queue of waiters in arrival order.  Waking walks the queue for the
 * waiters with the word's key.  A word in private memory, or named with
 * FUTEX_PRIVATE_FLAG, is known by its address space (which CLONE_VM
 * shares between processes) and address; one in a MAP_SHARED mapping by
 * where it lies in the RAM file, which every process mapping it sees
 * alike.  The word is compared with the expected value before parking,
 * under the kernel's one loop, so no wake can fall between the check and
 * the park.  A woken sleep is marked done and left on the queue until its
 * thread runs, so every walk skips done sleeps.
 *
 * Priority-inheritance futexes (LOCK_PI and the rest) hold the owner's
 * tid, FUTEX_WAITERS and FUTEX_OWNER_DIED, and guest threads change the
 * word with atomic instructions at any moment, so the kernel changes it
 * only by compare-and-swap.  A PI waiter remembers the owner it queued
 * behind; unlocking, or the owner's death (futex_exit), hands the lock
 * straight to the first waiter.  Linux also lends the waiters' priority
 * to the owner; that means nothing here, where the host schedules every
 * guest thread, so there is no boosting.
 */
#include <sys/queue.h>

#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"
#include "vkern/vm/vm_map.h"

/*
 * A compare-and-swap loses only to a guest thread that changed the word
 * in between; after this many losses the call gives up with EAGAIN
 * rather than let a guest hold the kernel.
 */
#define FUTEX_CAS_TRIES 64

/* p's map and addr, or for a shared word NULL and its host address. */
struct futex_key {
	const struct vm_map *m;
	uint64_t addr;
};

enum futex_kind {
	FW_WAIT,	/* WAIT, WAIT_BITSET, a word of futex_waitv */
	FW_PI,		/* waits to be handed a PI lock */
	FW_RQPI,	/* WAIT_REQUEUE_PI, not yet moved to its PI word */
};

struct futex_sleep;

struct futex_waiter {
	TAILQ_ENTRY(futex_waiter) link;
	struct futex_sleep *sl;
	struct futex_key key;
	uint32_t bitset;
	enum futex_kind kind;
	struct futex_key pi_key;  /* FW_RQPI: the PI word it may move to */
	uint64_t pi_uaddr;	/* FW_PI, FW_RQPI: that word, in its space */
	int pi_owner;		/* FW_PI: the tid holding the lock */
	bool requeued;		/* FW_PI: moved there by CMP_REQUEUE_PI */
};

struct futex_sleep {
	struct thread *td;
	bool done;		/* woken, with result */
	long result;
	int nw;
	struct futex_waiter w[];
};

static TAILQ_HEAD(, futex_waiter) waiters = TAILQ_HEAD_INITIALIZER(waiters);

/*
 * The key of the word at uaddr.  As Linux: a private word needs only an
 * address up to TASK_SIZE; a shared one must be mapped, readable and,
 * when private memory, hold a page of its own, so a read-only anonymous
 * private mapping (Linux's shared zero page) gives -EFAULT too (here even
 * after writes made before an mprotect, which Linux would accept).
 */
static int
futex_key(struct proc *p, uint64_t uaddr, bool private,
    struct futex_key *k)
{
	struct vm_entry *e;
	void *hp;
	uint64_t n;

	if ((uaddr & 3) != 0)
		return -EINVAL;
	if (uaddr > ARCH_TASK_SIZE)    /* x86's access_ok: the start only */
		return -EFAULT;
	*k = (struct futex_key){ p->vm, uaddr };
	if (private)
		return 0;
	/* Any access at all lets x86 read. */
	if ((e = vm_map_lookup(p->vm, uaddr)) == NULL || e->prot == 0)
		return -EFAULT;
	if (!(e->flags & VME_SHARED))
		return e->vn == NULL && !(e->prot & PLAT_PROT_WRITE) ?
		    -EFAULT : 0;
	if (vm_map_hostptr(p->vm, uaddr, sizeof(uint32_t), 0, &hp, &n) < 0)
		return -EFAULT;
	*k = (struct futex_key){ NULL, (uint64_t)(uintptr_t)hp };
	return 0;
}

static bool
futex_key_eq(const struct futex_key *a, const struct futex_key *b)
{
	return a->m == b->m && a->addr == b->addr;
}

/* A waiter that a wake may still reach on key k. */
static bool
futex_waiting(const struct futex_waiter *w, const struct futex_key *k)
{
	return !w->sl->done && futex_key_eq(&w->key, k);
}

static struct futex_sleep *
futex_sleep_alloc(struct thread *td, int nw)
{
	struct futex_sleep *sl = vk_xcalloc(1, sizeof(*sl) +
	    (size_t)nw * sizeof(sl->w[0]));

	sl->td = td;
	sl->nw = nw;
	for (int i = 0; i < nw; i++)
		sl->w[i] = (struct futex_waiter){ .sl = sl,
		    .bitset = FUTEX_BITSET_MATCH_ANY };
	return sl;
}

/* A sleep on the one word k, of kind, whose PI word is pi_uaddr. */
static struct futex_sleep *
futex_sleep_one(struct thread *td, const struct futex_key *k,
    enum futex_kind kind, uint64_t pi_uaddr)
{
	struct futex_sleep *sl = futex_sleep_alloc(td, 1);

	sl->w[0].key = *k;
	sl->w[0].kind = kind;
	sl->w[0].pi_uaddr = pi_uaddr;
	return sl;
}

static void
futex_sleep_free(struct futex_sleep *sl)
{
	for (int i = 0; i < sl->nw; i++)
		TAILQ_REMOVE(&waiters, &sl->w[i], link);
	free(sl);
}

/* End the sleep with result r; its thread runs at the next turn. */
static void
futex_sleep_wake(struct futex_sleep *sl, long r)
{
	sl->done = true;
	sl->result = r;
	sl->td->wait.deadline = 0;
}

/*
 * A signal ended the sleep, or its thread is going away.  A requeue-PI
 * wait already moved onto its PI word fails with EAGAIN instead of being
 * restarted, as Linux's futex_wait_requeue_pi() does: run again, it
 * would wait on the condition word it has left.
 */
static void
futex_sleep_cancel(struct thread *td)
{
	struct futex_sleep *sl = (struct futex_sleep *)td->wait.arg[0];

	if (sl->w[0].requeued)
		td->wait.done = -EAGAIN;
	futex_sleep_free(sl);
}

/* The continuation of a sleep: its result, or ETIMEDOUT. */
static long
futex_sleep_done(struct thread *td)
{
	struct futex_sleep *sl = (struct futex_sleep *)td->wait.arg[0];
	long r = sl->done ? sl->result : -ETIMEDOUT;

	futex_sleep_free(sl);
	return r;
}

/* Queue sl's waiters, filled in by the caller, and park its thread. */
static long
futex_sleep_park(struct futex_sleep *sl, int64_t deadline, int restart)
{
	struct thread *td = sl->td;

	for (int i = 0; i < sl->nw; i++)
		TAILQ_INSERT_TAIL(&waiters, &sl->w[i], link);
	td->wait = (struct wait){ .cont = futex_sleep_done,
	    .cancel = futex_sleep_cancel, .deadline = deadline,
	    .console_fd = -1, .restart = restart };
	td->wait.arg[0] = (uint64_t)(uintptr_t)sl;
	return -EPARKED;
}

/* The key of td's word at uaddr, which must hold val: 0, or -errno. */
static int
futex_wait_setup(struct thread *td, uint64_t uaddr, bool private,
    uint32_t val, struct futex_key *k)
{
	uint32_t cur;
	int r;

	if ((r = futex_key(td->proc, uaddr, private, k)) < 0 ||
	    (r = fetch_u32(td, UADDR(uaddr), &cur)) < 0)
		return r;
	return cur == val ? 0 : -EAGAIN;
}

/*
 * WAIT and WAIT_BITSET.  Linux restarts an untimed wait after an
 * SA_RESTART handler; a timed one fails with EINTR after any handler.
 */
static long
futex_wait(struct thread *td, uint64_t uaddr, bool private, uint32_t val,
    int64_t deadline, uint32_t bitset)
{
	struct futex_sleep *sl;
	struct futex_key k;
	int r;

	if (bitset == 0)
		return -EINVAL;
	if ((r = futex_wait_setup(td, uaddr, private, val, &k)) < 0)
		return r;
	sl = futex_sleep_one(td, &k, FW_WAIT, 0);
	sl->w[0].bitset = bitset;
	return futex_sleep_park(sl, deadline, deadline < 0 ?
	    WAIT_RESTART_SA : 0);
}

/*
 * Wake up to n waiters of k whose bitset meets bitset; as on Linux, at
 * least one even when n is 0 or less.  Waiters of PI words are woken
 * only by the PI calls: EINVAL.
 */
static long
futex_wake_key(const struct futex_key *k, int n, uint32_t bitset)
{
	struct futex_waiter *w;
	long woken = 0;

	TAILQ_FOREACH(w, &waiters, link) {
		if (!futex_waiting(w, k))
			continue;
		if (w->kind != FW_WAIT)
			return -EINVAL;
		if (!(w->bitset & bitset))
			continue;
		futex_sleep_wake(w->sl, w - w->sl->w);
		if (++woken >= n)
			break;
	}
	return woken;
}

static long
futex_wake(struct proc *p, uint64_t uaddr, bool private, int n,
    uint32_t bitset)
{
	struct futex_key k;
	int r;

	if (bitset == 0)
		return -EINVAL;
	if ((r = futex_key(p, uaddr, private, &k)) < 0)
		return r;
	return futex_wake_key(&k, n, bitset);
}

long
futex_wake_addr(struct proc *p, uint64_t uaddr, int n)
{
	return futex_wake(p, uaddr, false, n, FUTEX_BITSET_MATCH_ANY);
}

/* Linux's sign_extend32 of a 12-bit field. */
static int32_t
futex_op_arg(uint32_t v)
{
	return (int32_t)(v << 20) >> 20;
}

/*
 * WAKE_OP: change uaddr2 by the encoded op atomically, wake up to n
 * waiters of uaddr, and if the old value of uaddr2 compares as encoded,
 * up to n2 waiters of uaddr2.  As on Linux an unknown op changes nothing
 * and an unknown comparison is found after the change, both ENOSYS, and
 * a shift beyond 31 is taken modulo 32.
 */
static long
futex_wake_op(struct thread *td, uint64_t uaddr, bool private, int n,
    uint64_t uaddr2, int n2, uint32_t enc)
{
	static const enum uword_op uops[] = { UWORD_XCHG, UWORD_ADD,
	    UWORD_OR, UWORD_AND, UWORD_XOR };
	unsigned op = (enc >> 28) & 7, cmp = (enc >> 24) & 15;
	int32_t oparg = futex_op_arg(enc >> 12), cmparg = futex_op_arg(enc);
	struct futex_key k, k2;
	uint32_t old;
	bool hit;
	long w1, w2 = 0;
	int r;

	if ((r = futex_key(td->proc, uaddr, private, &k)) < 0 ||
	    (r = futex_key(td->proc, uaddr2, private, &k2)) < 0)
		return r;
	if (enc & ((uint32_t)FUTEX_OP_OPARG_SHIFT << 28))
		oparg = (int32_t)(1U << (oparg & 31));
	if (op >= sizeof(uops) / sizeof(uops[0]))
		return -ENOSYS;
	if (op == FUTEX_OP_ANDN)
		oparg = ~oparg;
	if ((r = xop_u32(td, UADDR(uaddr2), uops[op], (uint32_t)oparg,
	    &old)) < 0)
		return r;
	switch (cmp) {
	case FUTEX_OP_CMP_EQ: hit = (int32_t)old == cmparg; break;
	case FUTEX_OP_CMP_NE: hit = (int32_t)old != cmparg; break;
	case FUTEX_OP_CMP_LT: hit = (int32_t)old < cmparg; break;
	case FUTEX_OP_CMP_LE: hit = (int32_t)old <= cmparg; break;
	case FUTEX_OP_CMP_GT: hit = (int32_t)old > cmparg; break;
	case FUTEX_OP_CMP_GE: hit = (int32_t)old >= cmparg; break;
	default: return -ENOSYS;
	}
	if ((w1 = futex_wake_key(&k, n, FUTEX_BITSET_MATCH_ANY)) < 0)
		return w1;
	if (hit && (w2 = futex_wake_key(&k2, n2,
	    FUTEX_BITSET_MATCH_ANY)) < 0)
		return w2;
	return w1 + w2;
}

/* The first PI waiter of k: the one the lock goes to next. */
static struct futex_waiter *
futex_pi_top(const struct futex_key *k)
{
	struct futex_waiter *w;

	TAILQ_FOREACH(w, &waiters, link)
		if (futex_waiting(w, k) && w->kind == FW_PI)
			return w;
	return NULL;
}

/*
 * Take the PI word at uaddr in td's space, key k, for thread tid: a free
 * word (no owner tid) becomes tid, keeping OWNER_DIED, with WAITERS if
 * setw.  A held one gets WAITERS, and *ownerp its owner's tid.  Returns
 * 1 (taken), 0 (held: tid must wait), or -EDEADLK (tid holds it),
 * -ESRCH (no owner thread), -EINVAL (the word disagrees with the owner
 * its waiters queued behind), -EFAULT, -EAGAIN.
 */
static int
futex_pi_take(struct thread *td, uint64_t uaddr, const struct futex_key *k,
    int tid, bool setw, int *ownerp)
{
	struct futex_waiter *top = futex_pi_top(k);
	uint32_t cur, nv, owner = 0;
	int r, n;

	if ((r = fetch_u32(td, UADDR(uaddr), &cur)) < 0)
		return r;
	for (n = 0, r = -EAGAIN; n < FUTEX_CAS_TRIES && r == -EAGAIN; n++) {
		owner = cur & FUTEX_TID_MASK;
		if (owner == (uint32_t)tid)
			return -EDEADLK;
		if (top != NULL && owner != (uint32_t)top->pi_owner)
			return -EINVAL;
		if (owner == 0)
			nv = (cur & FUTEX_OWNER_DIED) | (uint32_t)tid |
			    (setw ? FUTEX_WAITERS : 0);
		else
			nv = cur | FUTEX_WAITERS;
		r = nv == cur ? 0 : cas_u32(td, UADDR(uaddr), &cur, nv);
	}
	if (r < 0)
		return r;
	if (owner == 0)
		return 1;
	if (thread_find((int)owner) == NULL)
		return -ESRCH;
	*ownerp = (int)owner;
	return 0;
}

/*
 * Hand the PI lock to its first waiter w: the word becomes w's tid with
 * WAITERS (Linux keeps the bit set while the lock has a waiter history)
 * and the old word's bits in keep; the other waiters now queue behind w.
 * old_tid, unless 0, is the tid the word must still hold.  Returns 0,
 * -EINVAL (the word changed hands), -EFAULT or -EAGAIN.
 */
static int
futex_pi_give(struct futex_waiter *w, uint32_t old_tid, uint32_t keep)
{
	struct thread *td = w->sl->td;
	uaddr_t ua = UADDR(w->pi_uaddr);
	struct futex_waiter *o;
	uint32_t cur;
	int r, n;

	if ((r = fetch_u32(td, ua, &cur)) < 0)
		return r;
	for (n = 0, r = -EAGAIN; n < FUTEX_CAS_TRIES && r == -EAGAIN; n++) {
		if (old_tid != 0 && (cur & FUTEX_TID_MASK) != old_tid)
			return -EINVAL;
		r = cas_u32(td, ua, &cur, (cur & keep) | FUTEX_WAITERS |
		    (uint32_t)td->tid);
	}
	if (r < 0)
		return r;
	futex_sleep_wake(w->sl, 0);
	TAILQ_FOREACH(o, &waiters, link)
		if (futex_waiting(o, &w->key) && o->kind == FW_PI)
			o->pi_owner = td->tid;
	return 0;
}

/*
 * LOCK_PI, LOCK_PI2 and TRYLOCK_PI (try).  Linux restarts a lock that a
 * signal handler interrupted, whatever the handler's flags: glibc takes
 * any other answer but ESRCH and EDEADLK for the lock.
 */
static long
futex_lock_pi(struct thread *td, uint64_t uaddr, bool private,
    int64_t deadline, bool try)
{
	struct futex_sleep *sl;
	struct futex_key k;
	int owner, r;

	if ((r = futex_key(td->proc, uaddr, private, &k)) < 0)
		return r;
	r = futex_pi_take(td, uaddr, &k, td->tid, false, &owner);
	if (r != 0)
		return r == 1 ? 0 : r;
	if (try)
		return -EAGAIN;
	sl = futex_sleep_one(td, &k, FW_PI, uaddr);
	sl->w[0].pi_owner = owner;
	return futex_sleep_park(sl, deadline, WAIT_RESTART_ALWAYS);
}

/*
 * UNLOCK_PI: the caller must hold the lock (EPERM).  The first waiter
 * gets it; with none the word becomes 0, or, when a guest thread changed
 * it meanwhile, stays for the guest to sort out (EAGAIN, as on Linux).
 */
static long
futex_unlock_pi(struct thread *td, uint64_t uaddr, bool private)
{
	struct futex_waiter *top;
	struct futex_key k;
	uint32_t cur;
	int r;

	if ((r = fetch_u32(td, UADDR(uaddr), &cur)) < 0)
		return r;
	if ((cur & FUTEX_TID_MASK) != (uint32_t)td->tid)
		return -EPERM;
	if ((r = futex_key(td->proc, uaddr, private, &k)) < 0)
		return r;
	if ((top = futex_pi_top(&k)) != NULL)
		return futex_pi_give(top, (uint32_t)td->tid, 0);
	return cas_u32(td, UADDR(uaddr), &cur, 0);
}

/*
 * WAIT_REQUEUE_PI: wait on uaddr until CMP_REQUEUE_PI hands over the PI
 * lock at uaddr2 or moves the wait onto it.  A handler restarts it
 * before the move; after it, the wait fails (futex_sleep_cancel).
 */
static long
futex_wait_requeue_pi(struct thread *td, uint64_t uaddr, bool private,
    uint32_t val, int64_t deadline, uint64_t uaddr2)
{
	struct futex_sleep *sl;
	struct futex_key k, k2;
	int r;

	if (uaddr == uaddr2)
		return -EINVAL;
	if ((r = futex_key(td->proc, uaddr2, private, &k2)) < 0 ||
	    (r = futex_wait_setup(td, uaddr, private, val, &k)) < 0)
		return r;
	if (futex_key_eq(&k, &k2))
		return -EINVAL;
	sl = futex_sleep_one(td, &k, FW_RQPI, uaddr2);
	sl->w[0].pi_key = k2;
	return futex_sleep_park(sl, deadline, WAIT_RESTART_ALWAYS);
}

/* REQUEUE, CMP_REQUEUE: wake up to n of k's waiters, move up to nreq. */
static long
futex_move(const struct futex_key *k, const struct futex_key *k2, int n,
    int nreq)
{
	struct futex_waiter *w;
	long count = 0;

	TAILQ_FOREACH(w, &waiters, link) {
		if (count - n >= nreq)
			break;
		if (!futex_waiting(w, k))
			continue;
		if (w->kind != FW_WAIT)
			return -EINVAL;
		if (++count <= n)
			futex_sleep_wake(w->sl, w - w->sl->w);
		else
			w->key = *k2;
	}
	return count;
}

/*
 * CMP_REQUEUE_PI: the first waiter of k takes the PI lock of k2 if it is
 * free; the rest, up to nreq, and the first if it could not, now wait
 * for that lock.  Every waiter must be a WAIT_REQUEUE_PI naming k2.
 */
static long
futex_move_pi(const struct futex_key *k, const struct futex_key *k2,
    int nreq)
{
	struct futex_waiter *w, *top;
	long count = 0;
	int owner = 0, r;

	TAILQ_FOREACH(top, &waiters, link)
		if (futex_waiting(top, k))
			break;
	if (top == NULL)
		return 0;
	if (top->kind != FW_RQPI || !futex_key_eq(&top->pi_key, k2))
		return -EINVAL;
	r = futex_pi_take(top->sl->td, top->pi_uaddr, k2, top->sl->td->tid,
	    nreq > 0, &owner);
	if (r < 0)
		return r;
	if (r == 1) {
		futex_sleep_wake(top->sl, 0);
		owner = top->sl->td->tid;
		count++;
	}
	TAILQ_FOREACH(w, &waiters, link) {
		if (count - 1 >= nreq)
			break;
		if (!futex_waiting(w, k))
			continue;
		if (w->kind != FW_RQPI || !futex_key_eq(&w->pi_key, k2))
			return -EINVAL;
		w->key = *k2;
		w->kind = FW_PI;
		w->pi_owner = owner;
		w->requeued = true;
		count++;
	}
	return count;
}

/* The requeue family: the checks they share, in Linux's order. */
static long
futex_requeue(struct thread *td, uint64_t uaddr, bool private, int n,
    int nreq, uint64_t uaddr2, const uint32_t *cmp, bool pi)
{
	struct futex_key k, k2;
	uint32_t cur;
	int r;

	if (n < 0 || nreq < 0 || (pi && (uaddr == uaddr2 || n != 1)))
		return -EINVAL;
	if ((r = futex_key(td->proc, uaddr, private, &k)) < 0 ||
	    (r = futex_key(td->proc, uaddr2, private, &k2)) < 0)
		return r;
	if (pi && futex_key_eq(&k, &k2))
		return -EINVAL;
	if (cmp != NULL) {
		if ((r = fetch_u32(td, UADDR(uaddr), &cur)) < 0)
			return r;
		if (cur != *cmp)
			return -EAGAIN;
	}
	return pi ? futex_move_pi(&k, &k2, nreq) : futex_move(&k, &k2, n,
	    nreq);
}

/*
 * td is dying: each PI lock it holds that has waiters goes to the first
 * of them, OWNER_DIED kept (set by futex_robust_died for a robust lock),
 * as Linux's exit_pi_state_list() does.  A word that cannot be written
 * any more ends its waiter's sleep with the error instead.
 */
void
futex_exit(struct thread *td)
{
	struct futex_waiter *w;
	int r;

	TAILQ_FOREACH(w, &waiters, link) {
		if (w->sl->done || w->kind != FW_PI || w->pi_owner != td->tid)
			continue;
		if ((r = futex_pi_give(w, 0, FUTEX_OWNER_DIED)) < 0)
			futex_sleep_wake(w->sl, r);
	}
}

void
futex_robust_died(struct thread *td, uint64_t uaddr, bool pi, bool pending)
{
	uaddr_t ua = UADDR(uaddr);
	uint32_t cur;
	int r, n;

	if (fetch_u32(td, ua, &cur) < 0)
		return;
	/*
	 * Died between releasing a plain lock and waking its waiter, or
	 * between being woken and taking it: the word is consistent, a
	 * waiter need only be woken (Linux's handle_futex_death()).
	 */
	if (pending && !pi && (cur & FUTEX_TID_MASK) == 0) {
		futex_wake_addr(td->proc, uaddr, 1);
		return;
	}
	for (n = 0, r = -EAGAIN; n < FUTEX_CAS_TRIES && r == -EAGAIN; n++) {
		if ((cur & FUTEX_TID_MASK) != (uint32_t)td->tid)
			return;
		r = cas_u32(td, ua, &cur, (cur & FUTEX_WAITERS) |
		    FUTEX_OWNER_DIED);
	}
	if (r == 0 && !pi && (cur & FUTEX_WAITERS))
		futex_wake_addr(td->proc, uaddr, 1);
}

/* Which commands take a timeout, and which may name CLOCK_REALTIME. */
static bool
futex_timed(int op)
{
	return op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET ||
	    op == FUTEX_LOCK_PI || op == FUTEX_LOCK_PI2 ||
	    op == FUTEX_WAIT_REQUEUE_PI;
}

static bool
futex_realtime_ok(int op)
{
	return op == FUTEX_WAIT_BITSET || op == FUTEX_WAIT_REQUEUE_PI ||
	    op == FUTEX_LOCK_PI2;
}

long
sys_futex(struct thread *td, const struct sys_futex_args *a)
{
	int op = a->op & FUTEX_CMD_MASK;
	int clock = (a->op & FUTEX_CLOCK_REALTIME) ? CLOCK_REALTIME :
	    CLOCK_MONOTONIC;
	bool priv = (a->op & FUTEX_PRIVATE_FLAG) != 0;
	uint64_t u = a->uaddr.va, u2 = a->uaddr2.va;
	int n = (int)a->val, n2 = (int)(uint32_t)a->utime.va;
	int64_t dl = -1;
	int r;

	if ((a->op & FUTEX_CLOCK_REALTIME) && !futex_realtime_ok(op))
		return -ENOSYS;
	if (op == FUTEX_LOCK_PI)
		clock = CLOCK_REALTIME;
	if (futex_timed(op) && a->utime.va != 0 && (r = ts_clock_deadline(td,
	    a->utime, op != FUTEX_WAIT, clock, &dl)) < 0)
		return r;
	if ((u & 3) != 0)
		return -EINVAL;
	switch (op) {
	case FUTEX_WAIT:
		return futex_wait(td, u, priv, a->val, dl,
		    FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAIT_BITSET:
		return futex_wait(td, u, priv, a->val, dl, a->val3);
	case FUTEX_WAKE:
		return futex_wake(td->proc, u, priv, n, FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAKE_BITSET:
		return futex_wake(td->proc, u, priv, n, a->val3);
	case FUTEX_REQUEUE:
		return futex_requeue(td, u, priv, n, n2, u2, NULL, false);
	case FUTEX_CMP_REQUEUE:
		return futex_requeue(td, u, priv, n, n2, u2, &a->val3, false);
	case FUTEX_CMP_REQUEUE_PI:
		return futex_requeue(td, u, priv, n, n2, u2, &a->val3, true);
	case FUTEX_WAKE_OP:
		return futex_wake_op(td, u, priv, n, u2, n2, a->val3);
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
		return futex_lock_pi(td, u, priv, dl, false);
	case FUTEX_TRYLOCK_PI:
		return futex_lock_pi(td, u, priv, -1, true);
	case FUTEX_UNLOCK_PI:
		return futex_unlock_pi(td, u, priv);
	case FUTEX_WAIT_REQUEUE_PI:
		return futex_wait_requeue_pi(td, u, priv, a->val, dl, u2);
	}
	return -ENOSYS;
}

/*
 * futex_waitv's vector into sl: each entry a 32-bit word (FUTEX_32) with
 * nothing but FUTEX_PRIVATE_FLAG besides, a value that fits, and no
 * reserved bits; then every word must hold its value.  Returns 0, or
 * -EFAULT, -EINVAL, -EAGAIN in Linux's order (every entry is decoded
 * before any word is read).
 */
static int
futex_waitv_setup(struct futex_sleep *sl, uaddr_t uv)
{
	struct thread *td = sl->td;
	struct futex_waitv v[FUTEX_WAITV_MAX];
	int r;

	for (int i = 0; i < sl->nw; i++) {
		if ((r = copyin(td, UADDR(uv.va + (uint64_t)i * sizeof(v[i])),
		    &v[i], sizeof(v[i]))) < 0)
			return r;
		if ((v[i].flags & ~(uint32_t)FUTEX_PRIVATE_FLAG) != FUTEX_32 ||
		    v[i].__reserved != 0 || v[i].val > UINT32_MAX)
			return -EINVAL;
	}
	for (int i = 0; i < sl->nw; i++)
		if ((r = futex_key(td->proc, v[i].uaddr,
		    (v[i].flags & FUTEX_PRIVATE_FLAG) != 0, &sl->w[i].key)) < 0)
			return r;
	for (int i = 0; i < sl->nw; i++) {
		uint32_t cur;

		if ((r = fetch_u32(td, UADDR(v[i].uaddr), &cur)) < 0)
			return r;
		if (cur != v[i].val)
			return -EAGAIN;
	}
	return 0;
}

/* Wait on many words; the result is the index of the one woken. */
long
sys_futex_waitv(struct thread *td, const struct sys_futex_waitv_args *a)
{
	struct futex_sleep *sl;
	int64_t dl = -1;
	int r;

	if (a->flags != 0 || a->nr == 0 || a->nr > FUTEX_WAITV_MAX ||
	    a->waiters.va == 0)
		return -EINVAL;
	if (a->timeout.va != 0) {
		if (a->clockid != CLOCK_MONOTONIC &&
		    a->clockid != CLOCK_REALTIME)
			return -EINVAL;
		if ((r = ts_clock_deadline(td, a->timeout, true, a->clockid,
		    &dl)) < 0)
			return r;
	}
	sl = futex_sleep_alloc(td, (int)a->nr);
	if ((r = futex_waitv_setup(sl, a->waiters)) < 0) {
		free(sl);
		return r;
	}
	return futex_sleep_park(sl, dl, WAIT_RESTART_SA);
}
