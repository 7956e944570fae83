/*
 * futex: WAIT, WAKE, WAIT_BITSET, WAKE_BITSET, REQUEUE, CMP_REQUEUE.
 *
 * A waiter is a parked thread with its futex word's key and bitset;
 * waking walks the parked waiters with the same key.  A word in private
 * memory, or named with FUTEX_PRIVATE_FLAG, is known by its process and
 * address; one in a MAP_SHARED mapping by where it lies in the RAM file,
 * which every process mapping it sees alike.  The word is compared with
 * the expected value before parking, under the kernel's one loop, so no
 * wake can fall between the check and the park.
 * XXX: the PI variants, WAKE_OP and futex_waitv are not there yet.
 */
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

/* p and addr, or for a shared word NULL and its host address. */
struct futex_key {
	const struct proc *p;
	uint64_t addr;
};

struct futex_waiter {
	struct thread *td;
	struct futex_key key;
	uint32_t bitset;
	bool woken;
	struct futex_waiter *next;
};

static struct futex_waiter *waiters;

static int
futex_key(struct proc *p, uint64_t uaddr, bool private,
    struct futex_key *k)
{
	struct vm_entry *e;
	void *hp;
	uint64_t n;

	*k = (struct futex_key){ p, uaddr };
	if (private || (e = vm_map_lookup(&p->vm, uaddr)) == NULL ||
	    !(e->flags & VME_SHARED))
		return 0;
	if (vm_map_hostptr(&p->vm, uaddr, sizeof(uint32_t), 0, &hp, &n) < 0)
		return -EFAULT;
	*k = (struct futex_key){ NULL, (uint64_t)(uintptr_t)hp };
	return 0;
}

static bool
futex_key_eq(const struct futex_key *a, const struct futex_key *b)
{
	return a->p == b->p && a->addr == b->addr;
}

static void
futex_unqueue(struct futex_waiter *w)
{
	for (struct futex_waiter **pp = &waiters; *pp != NULL;
	    pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			return;
		}
	}
}

/* A signal ended the wait: forget the waiter. */
static void
futex_wait_cancel(struct thread *td)
{
	struct futex_waiter *w = (struct futex_waiter *)td->wait.arg[0];

	futex_unqueue(w);
	free(w);
}

/* The continuation of a wait: woken (0) or timed out (ETIMEDOUT). */
static long
futex_wait_done(struct thread *td)
{
	struct futex_waiter *w = (struct futex_waiter *)td->wait.arg[0];
	bool woken = w->woken;

	futex_unqueue(w);
	free(w);
	return woken ? 0 : -ETIMEDOUT;
}

static long
futex_wait(struct thread *td, uint64_t uaddr, bool private, uint32_t val,
    uaddr_t utime, uint32_t bitset, bool abs, int clock)
{
	struct futex_waiter *w;
	struct futex_key key;
	struct { int64_t sec, nsec; } ts;
	int64_t deadline = -1;
	uint32_t cur;
	int r;

	if (bitset == 0)
		return -EINVAL;
	if ((r = copyin(td, UADDR(uaddr), &cur, sizeof(cur))) < 0)
		return r;
	if (cur != val)
		return -EAGAIN;
	if ((r = futex_key(td->proc, uaddr, private, &key)) < 0)
		return r;
	if (utime.va != 0) {
		if ((r = copyin(td, utime, &ts, sizeof(ts))) < 0)
			return r;
		if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
			return -EINVAL;
		deadline = ts.sec * 1000000000LL + ts.nsec;
		if (abs)
			deadline += plat_clock_ns(CLOCK_MONOTONIC) -
			    plat_clock_ns(clock);
		else
			deadline += plat_clock_ns(CLOCK_MONOTONIC);
	}
	w = vk_xcalloc(1, sizeof(*w));
	*w = (struct futex_waiter){ td, key, bitset, false, waiters };
	waiters = w;
	td->wait = (struct wait){ .cont = futex_wait_done,
	    .cancel = futex_wait_cancel, .deadline = deadline,
	    .console_fd = -1 };
	td->wait.arg[0] = (uint64_t)(uintptr_t)w;
	return -EPARKED;
}

/* Wake up to n waiters on uaddr; requeue up to n2 more to uaddr2. */
static long
futex_wake(struct proc *p, uint64_t uaddr, bool private, int n,
    uint32_t bitset, uint64_t uaddr2, int n2)
{
	struct futex_key k, k2;
	long woken = 0;
	int r;

	if (bitset == 0)
		return -EINVAL;
	if ((r = futex_key(p, uaddr, private, &k)) < 0)
		return r;
	if (n2 > 0 && (r = futex_key(p, uaddr2, private, &k2)) < 0)
		return r;
	for (struct futex_waiter *w = waiters; w != NULL; w = w->next) {
		if (!futex_key_eq(&w->key, &k) || w->woken ||
		    !(w->bitset & bitset))
			continue;
		if (woken < n) {
			w->woken = true;
			w->td->wait.deadline = 0;   /* wake at the next turn */
			woken++;
		} else if (n2 > 0) {
			w->key = k2;
			n2--;
			woken++;
		}
	}
	return woken;
}

long
futex_wake_addr(struct proc *p, uint64_t uaddr, int n)
{
	return futex_wake(p, uaddr, false, n, FUTEX_BITSET_MATCH_ANY, 0, 0);
}

long
sys_futex(struct thread *td, const struct sys_futex_args *a)
{
	int op = a->op & FUTEX_CMD_MASK;
	int clock = (a->op & FUTEX_CLOCK_REALTIME) ? CLOCK_REALTIME :
	    CLOCK_MONOTONIC;
	bool priv = (a->op & FUTEX_PRIVATE_FLAG) != 0;
	uint32_t cur;
	int r;

	if ((a->uaddr.va & 3) != 0)
		return -EINVAL;
	switch (op) {
	case FUTEX_WAIT:
		return futex_wait(td, a->uaddr.va, priv, a->val, a->utime,
		    FUTEX_BITSET_MATCH_ANY, false, clock);
	case FUTEX_WAIT_BITSET:
		return futex_wait(td, a->uaddr.va, priv, a->val, a->utime,
		    a->val3, true, clock);
	case FUTEX_WAKE:
		return futex_wake(td->proc, a->uaddr.va, priv, (int)a->val,
		    FUTEX_BITSET_MATCH_ANY, 0, 0);
	case FUTEX_WAKE_BITSET:
		return futex_wake(td->proc, a->uaddr.va, priv, (int)a->val,
		    a->val3, 0, 0);
	case FUTEX_CMP_REQUEUE:
		if ((r = copyin(td, a->uaddr, &cur, sizeof(cur))) < 0)
			return r;
		if (cur != a->val3)
			return -EAGAIN;
		/* FALLTHROUGH */
	case FUTEX_REQUEUE:
		return futex_wake(td->proc, a->uaddr.va, priv, (int)a->val,
		    FUTEX_BITSET_MATCH_ANY, a->uaddr2.va, (int)a->utime.va);
	}
	return -ENOSYS;
}
