/*
 * POSIX per-process timers: timer_create, timer_settime, timer_gettime,
 * timer_getoverrun, timer_delete.
 *
 * A timer counts on the monotonic clock whatever its own clock (an
 * absolute time on CLOCK_REALTIME is turned into a monotonic deadline
 * when it is set).  The event loop fires the expired ones through
 * timers_expire: the signal goes to the process, or with SIGEV_THREAD_ID
 * to one of its threads, or nowhere with SIGEV_NONE.  A timer on a CPU
 * clock keeps its expiry on that clock, and its monotonic deadline is
 * when the loop looks at the clock again (cpu_check_at in cputime.c).
 * Timers are not inherited by fork and are deleted by execve and exit.
 * As Linux's, a timer has one signal: while it is still queued, further
 * expirations (and those the event loop was late for) add to its
 * overrun, up to DELAYTIMER_MAX, instead of queueing another.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kmem.h"
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
	bool cpu;               /* on CPU clock cc, not the monotonic clock */
	struct cpuclock cc;
	int64_t cpu_value;      /* cc's ns it fires at, or -1 */
	int64_t interval;
	int late;               /* expirations missed at the last one */
	int overrun;            /* of the signal queued, or last taken */
	int overrun_last;       /* of the one taken before that */
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
		kmem_free(t, sizeof(*t), 0);
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
	uint8_t info[128], *queued;
	struct thread *td = p->main;
	int code = SI_TIMER, n;

	if (t->notify == SIGEV_NONE)
		return;
	if ((queued = sig_timer_queued(p, t->signo, t->id)) != NULL) {
		memcpy(&n, queued + 20, sizeof(n));
		t->overrun = (int)VK_MIN((int64_t)n + 1 + t->late,
		    DELAYTIMER_MAX);
		memcpy(queued + 20, &t->overrun, sizeof(t->overrun));
		return;
	}
	t->overrun_last = t->overrun;
	t->overrun = t->late;
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

/*
 * Whether the expiry *value (on the timer's clock, whose time is now) has
 * come; if so it moves on by the interval, or the timer is disarmed, and
 * the expirations missed are the overrun.
 */
static bool
ptimer_due(struct ptimer *t, int64_t *value, int64_t now)
{
	if (*value < 0 || *value > now)
		return false;
	t->late = 0;
	if (t->interval > 0) {
		int64_t late = (now - *value) / t->interval;

		t->late = (int)VK_MIN(late, DELAYTIMER_MAX);
		*value += (late + 1) * t->interval;
	} else {
		*value = -1;
	}
	return true;
}

/* When to look at a CPU timer's clock next, its time being cpu. */
static void
ptimer_cpu_arm(struct ptimer *t, int64_t cpu, int64_t mono)
{
	if (t->cpu_value < 0)
		t->deadline = -1;
	else if (t->cpu_value <= cpu)
		t->deadline = mono;
	else
		t->deadline = cpu_check_at(mono, t->cpu_value - cpu);
}

/*
 * The time of a timer's own clock (monotonic for the wall clocks, whose
 * deadlines are kept on it), and where its expiry is kept.  A CPU timer
 * whose process or thread is gone is disarmed for good.
 */
static int64_t *
ptimer_now(struct ptimer *t, int64_t *nowp)
{
	if (!t->cpu) {
		*nowp = plat_clock_ns(CLOCK_MONOTONIC);
		return &t->deadline;
	}
	if (cpuclock_read(&t->cc, nowp) < 0) {
		*nowp = 0;
		t->cpu_value = t->deadline = -1;
	}
	return &t->cpu_value;
}

static bool
ptimer_cpu_due(struct ptimer *t, int64_t mono)
{
	int64_t cpu, *value = ptimer_now(t, &cpu);
	bool due = ptimer_due(t, value, cpu);

	ptimer_cpu_arm(t, cpu, mono);
	return due;
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
			if (t->cpu ? ptimer_cpu_due(t, now) :
			    ptimer_due(t, &t->deadline, now))
				ptimer_fire(p, t);
		}
	}
}

/*
 * The clocks a timer may count on, as timer_create(2).  The alarm clocks
 * need a real-time clock that can wake the machine: the sandbox has
 * none, and says so as Linux on such a machine does.
 */
static int
ptimer_clock(struct thread *td, int clock, struct cpuclock *cc)
{
	if (cpuclock_is(clock))
		return cpuclock_get(td, clock, false, cc) < 0 ? -EINVAL : 0;
	switch (clock) {
	case CLOCK_REALTIME: case CLOCK_MONOTONIC: case CLOCK_BOOTTIME:
	case CLOCK_TAI:
		return 0;
	case CLOCK_REALTIME_ALARM: case CLOCK_BOOTTIME_ALARM:
		return -EOPNOTSUPP;
	}
	return -EINVAL;
}

long
sys_timer_create(struct thread *td, const struct sys_timer_create_args *a)
{
	struct proc *p = td->proc;
	struct ksigevent ev = { .signo = SIGALRM, .notify = SIGEV_SIGNAL };
	struct cpuclock cc = { 0 };
	struct ptimer *t;
	int id = 0, n = 0, r;

	if ((r = ptimer_clock(td, a->clockid, &cc)) < 0)
		return r;
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
	/* timer_create(2): EAGAIN when the structure cannot be had. */
	if (n >= PTIMER_MAX || (t = kmem_alloc(sizeof(*t), 0)) == NULL)
		return -EAGAIN;
	*t = (struct ptimer){ .id = id, .clock = a->clockid,
	    .notify = ev.notify == SIGEV_THREAD ? SIGEV_SIGNAL : ev.notify,
	    .signo = ev.signo, .tid = ev.tid,
	    .value = a->sevp.va != 0 ? ev.value : (uint64_t)id,
	    .deadline = -1, .cpu = cpuclock_is(a->clockid), .cc = cc,
	    .cpu_value = -1 };
	if ((r = copyout(td, &id, a->timerid, sizeof(id))) < 0) {
		kmem_free(t, sizeof(*t), 0);
		return r;
	}
	t->next = p->ptimers;
	p->ptimers = t;
	return 0;
}

static void
ptimer_get(struct ptimer *t, struct kitimerspec *v)
{
	int64_t now, *value = ptimer_now(t, &now);
	int64_t left = *value < 0 ? 0 : VK_MAX(*value - now, 1);

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
	int64_t val, now, *value;
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
	t->interval = vk_ns(v.int_sec, v.int_nsec, 1);
	t->overrun = t->overrun_last = 0;
	val = vk_ns(v.val_sec, v.val_nsec, 1);
	value = ptimer_now(t, &now);
	if (val == 0)
		*value = -1;
	else if (!(a->flags & TIMER_ABSTIME))
		*value = now + val;
	else if (t->cpu)
		*value = val;
	else
		*value = VK_MAX(val - plat_clock_ns(t->clock), 0) + now;
	if (t->cpu)
		ptimer_cpu_arm(t, now, plat_clock_ns(CLOCK_MONOTONIC));
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

	/* Linux's: the overrun of the last signal taken. */
	if (t == NULL)
		return -EINVAL;
	return sig_timer_queued(td->proc, t->signo, t->id) != NULL ?
	    t->overrun_last : t->overrun;
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
			kmem_free(t, sizeof(*t), 0);
			return 0;
		}
	}
	return -EINVAL;
}
