/*
 * POSIX per-process timers: timer_create, timer_settime, timer_gettime,
 * timer_getoverrun, timer_delete.
 *
 * A timer counts on the monotonic clock whatever its own clock (an
 * absolute time on CLOCK_REALTIME is turned into a monotonic deadline
 * when it is set).  The event loop fires the expired ones through
 * timers_expire: the signal goes to the process, or with SIGEV_THREAD_ID
 * to one of its threads, or nowhere with SIGEV_NONE.  Timers are not
 * inherited by fork and are deleted by execve and exit.
 * XXX: the CPU-time clocks are refused (EINVAL), and the overrun counts
 * the expirations the event loop was late for, not those that fell while
 * the signal was still queued.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"

#define NS 1000000000LL
#define PTIMER_MAX 1024   /* per process, as a bound on kernel memory */

#ifndef SIGEV_THREAD_ID
#define SIGEV_THREAD_ID 4
#endif

struct ptimer {
	int id;
	int clock;
	int notify;             /* SIGEV_SIGNAL, SIGEV_NONE, SIGEV_THREAD_ID */
	int signo;
	int tid;                /* SIGEV_THREAD_ID's thread */
	uint64_t value;         /* sigev_value, handed back in si_value */
	int64_t deadline;       /* monotonic ns, or -1: disarmed */
	int64_t interval;
	int overrun;
	struct ptimer *next;
};

/* struct sigevent as the x86-64 ABI lays it out. */
struct ksigevent {
	uint64_t value;
	int32_t signo, notify;
	int32_t tid;
	int32_t pad[11];
};

struct kitimerspec {
	int64_t int_sec, int_nsec, val_sec, val_nsec;
};

static struct ptimer *
ptimer_find(struct proc *p, int id)
{
	for (struct ptimer *t = p->ptimers; t != NULL; t = t->next)
		if (t->id == id)
			return t;
	return NULL;
}

void
ptimer_drop_all(struct proc *p)
{
	struct ptimer *t;

	while ((t = p->ptimers) != NULL) {
		p->ptimers = t->next;
		free(t);
	}
}

int64_t
ptimer_next(void)
{
	int64_t d = -1;

	for (struct proc *p = proc_first(); p != NULL; p = p->next)
		for (struct ptimer *t = p->ptimers; t != NULL; t = t->next)
			if (!p->exiting && t->deadline >= 0 &&
			    (d < 0 || t->deadline < d))
				d = t->deadline;
	return d;
}

static void
ptimer_fire(struct proc *p, struct ptimer *t)
{
	uint8_t info[128];
	struct thread *td = p->main;
	int code = SI_TIMER;

	if (t->notify == SIGEV_NONE)
		return;
	if (t->notify == SIGEV_THREAD_ID) {
		td = proc_thread(p, t->tid);
		if (td == NULL)
			return;    /* its thread has gone */
	}
	memset(info, 0, sizeof(info));
	memcpy(info, &t->signo, 4);
	memcpy(info + 8, &code, 4);
	memcpy(info + 16, &t->id, 4);
	memcpy(info + 20, &t->overrun, 4);
	memcpy(info + 24, &t->value, 8);
	sig_post(td, t->signo, info, t->notify == SIGEV_THREAD_ID ?
	    SIGPOST_THREAD : 0);
}

void
ptimer_expire(int64_t now)
{
	for (struct proc *p = proc_first(); p != NULL; p = p->next) {
		if (p->exiting)
			continue;
		for (struct ptimer *t = p->ptimers; t != NULL; t = t->next) {
			if (t->deadline < 0 || t->deadline > now)
				continue;
			t->overrun = 0;
			if (t->interval > 0) {
				int64_t late = (now - t->deadline) / t->interval;

				t->overrun = late > INT32_MAX ? INT32_MAX :
				    (int)late;
				t->deadline += (late + 1) * t->interval;
			} else {
				t->deadline = -1;
			}
			ptimer_fire(p, t);
		}
	}
}

static bool
ptimer_clock_ok(int clock)
{
	return clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC ||
	    clock == CLOCK_BOOTTIME;
}

long
sys_timer_create(struct thread *td, const struct sys_timer_create_args *a)
{
	struct proc *p = td->proc;
	struct ksigevent ev = { .signo = SIGALRM, .notify = SIGEV_SIGNAL };
	struct ptimer *t;
	int id = 0, n = 0, r;

	if (!ptimer_clock_ok(a->clockid))
		return -EINVAL;
	if (a->sevp.va != 0 &&
	    (r = copyin(td, a->sevp, &ev, sizeof(ev))) < 0)
		return r;
	switch (ev.notify) {
	case SIGEV_NONE:
		break;
	case SIGEV_THREAD_ID:
		if (proc_thread(p, ev.tid) == NULL)
			return -EINVAL;
		/* FALLTHROUGH */
	case SIGEV_SIGNAL:
	case SIGEV_THREAD:
		if (ev.signo <= 0 || ev.signo > VK_NSIG)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	for (t = p->ptimers; t != NULL; t = t->next, n++)
		id = VK_MAX(id, t->id + 1);
	if (n >= PTIMER_MAX)
		return -EAGAIN;
	t = vk_xcalloc(1, sizeof(*t));
	*t = (struct ptimer){ .id = id, .clock = a->clockid,
	    .notify = ev.notify == SIGEV_THREAD ? SIGEV_SIGNAL : ev.notify,
	    .signo = ev.signo, .tid = ev.tid,
	    .value = a->sevp.va != 0 ? ev.value : (uint64_t)id,
	    .deadline = -1 };
	if ((r = copyout(td, &id, a->timerid, sizeof(id))) < 0) {
		free(t);
		return r;
	}
	t->next = p->ptimers;
	p->ptimers = t;
	return 0;
}

static void
ptimer_get(const struct ptimer *t, struct kitimerspec *v)
{
	int64_t left = t->deadline < 0 ? 0 :
	    VK_MAX(t->deadline - plat_clock_ns(CLOCK_MONOTONIC), 1);

	v->int_sec = t->interval / NS;
	v->int_nsec = t->interval % NS;
	v->val_sec = left / NS;
	v->val_nsec = left % NS;
}

long
sys_timer_settime(struct thread *td, const struct sys_timer_settime_args *a)
{
	struct ptimer *t = ptimer_find(td->proc, a->timerid);
	struct kitimerspec v, old;
	int64_t val;
	int r;

	if (t == NULL)
		return -EINVAL;
	if ((r = copyin(td, a->nw, &v, sizeof(v))) < 0)
		return r;
	if (v.int_sec < 0 || v.int_nsec < 0 || v.int_nsec >= NS ||
	    v.val_sec < 0 || v.val_nsec < 0 || v.val_nsec >= NS ||
	    (a->flags & ~TIMER_ABSTIME))
		return -EINVAL;
	ptimer_get(t, &old);
	if (a->old.va != 0 &&
	    (r = copyout(td, &old, a->old, sizeof(old))) < 0)
		return r;
	t->interval = v.int_sec * NS + v.int_nsec;
	t->overrun = 0;
	val = v.val_sec * NS + v.val_nsec;
	if (val == 0)
		t->deadline = -1;
	else if (a->flags & TIMER_ABSTIME)
		t->deadline = VK_MAX(val - plat_clock_ns(t->clock), 0) +
		    plat_clock_ns(CLOCK_MONOTONIC);
	else
		t->deadline = plat_clock_ns(CLOCK_MONOTONIC) + val;
	return 0;
}

long
sys_timer_gettime(struct thread *td, const struct sys_timer_gettime_args *a)
{
	struct ptimer *t = ptimer_find(td->proc, a->timerid);
	struct kitimerspec v;

	if (t == NULL)
		return -EINVAL;
	ptimer_get(t, &v);
	return copyout(td, &v, a->cur, sizeof(v));
}

long
sys_timer_getoverrun(struct thread *td,
    const struct sys_timer_getoverrun_args *a)
{
	struct ptimer *t = ptimer_find(td->proc, a->timerid);

	return t == NULL ? -EINVAL : t->overrun;
}

long
sys_timer_delete(struct thread *td, const struct sys_timer_delete_args *a)
{
	struct proc *p = td->proc;

	for (struct ptimer **pp = &p->ptimers; *pp != NULL;
	    pp = &(*pp)->next) {
		if ((*pp)->id == a->timerid) {
			struct ptimer *t = *pp;

			*pp = t->next;
			free(t);
			return 0;
		}
	}
	return -EINVAL;
}
