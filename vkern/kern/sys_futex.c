/*
 * futex: WAIT, WAKE, WAIT_BITSET, WAKE_BITSET, REQUEUE, CMP_REQUEUE.
 *
 * A waiter is a parked thread with its futex word's address and bitset;
 * waking walks the parked waiters of the same process and address.  The
 * word is compared with the expected value before parking, under the
 * kernel's one loop, so no wake can fall between the check and the park.
 * XXX: futexes shared between processes through shared memory, the PI
 * variants, WAKE_OP and futex_waitv come with threads (#5).
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

struct futex_waiter {
	struct thread *td;
	struct proc *p;
	uint64_t uaddr;
	uint32_t bitset;
	bool woken;
	struct futex_waiter *next;
};

static struct futex_waiter *waiters;

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
futex_wait(struct thread *td, uint64_t uaddr, uint32_t val, uaddr_t utime,
    uint32_t bitset, bool abs, int clock)
{
	struct futex_waiter *w;
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
	*w = (struct futex_waiter){ td, td->proc, uaddr, bitset, false,
	    waiters };
	waiters = w;
	td->wait = (struct wait){ .cont = futex_wait_done,
	    .cancel = futex_wait_cancel, .deadline = deadline,
	    .console_fd = -1 };
	td->wait.arg[0] = (uint64_t)(uintptr_t)w;
	return -EPARKED;
}

/* Wake up to n waiters on uaddr; requeue up to n2 more to uaddr2. */
static long
futex_wake(struct proc *p, uint64_t uaddr, int n, uint32_t bitset,
    uint64_t uaddr2, int n2)
{
	long woken = 0;

	if (bitset == 0)
		return -EINVAL;
	for (struct futex_waiter *w = waiters; w != NULL; w = w->next) {
		if (w->p != p || w->uaddr != uaddr || w->woken ||
		    !(w->bitset & bitset))
			continue;
		if (woken < n) {
			w->woken = true;
			w->td->wait.deadline = 0;   /* wake at the next turn */
			woken++;
		} else if (n2 > 0) {
			w->uaddr = uaddr2;
			n2--;
			woken++;
		}
	}
	return woken;
}

long
futex_wake_addr(struct proc *p, uint64_t uaddr, int n)
{
	return futex_wake(p, uaddr, n, FUTEX_BITSET_MATCH_ANY, 0, 0);
}

long
sys_futex(struct thread *td, const struct sys_futex_args *a)
{
	int op = a->op & FUTEX_CMD_MASK;
	int clock = (a->op & FUTEX_CLOCK_REALTIME) ? CLOCK_REALTIME :
	    CLOCK_MONOTONIC;
	uint32_t cur;
	int r;

	if ((a->uaddr.va & 3) != 0)
		return -EINVAL;
	switch (op) {
	case FUTEX_WAIT:
		return futex_wait(td, a->uaddr.va, a->val, a->utime,
		    FUTEX_BITSET_MATCH_ANY, false, clock);
	case FUTEX_WAIT_BITSET:
		return futex_wait(td, a->uaddr.va, a->val, a->utime, a->val3,
		    true, clock);
	case FUTEX_WAKE:
		return futex_wake(td->proc, a->uaddr.va, (int)a->val,
		    FUTEX_BITSET_MATCH_ANY, 0, 0);
	case FUTEX_WAKE_BITSET:
		return futex_wake(td->proc, a->uaddr.va, (int)a->val, a->val3,
		    0, 0);
	case FUTEX_CMP_REQUEUE:
		if ((r = copyin(td, a->uaddr, &cur, sizeof(cur))) < 0)
			return r;
		if (cur != a->val3)
			return -EAGAIN;
		/* FALLTHROUGH */
	case FUTEX_REQUEUE:
		return futex_wake(td->proc, a->uaddr.va, (int)a->val,
		    FUTEX_BITSET_MATCH_ANY, a->uaddr2.va, (int)a->utime.va);
	}
	return -ENOSYS;
}
