/*
 * The interval timers: alarm, setitimer, getitimer.
 *
 * ITIMER_REAL counts down on the monotonic clock; when it runs out the
 * process gets SIGALRM and the timer reloads from its interval.  The
 * event loop sleeps no later than the earliest timer (timers_next) and
 * fires the expired ones (timers_expire).  ITIMER_VIRTUAL (user time,
 * SIGVTALRM) and ITIMER_PROF (user and system time, SIGPROF) count the
 * process's CPU time; cputime.c fires them, with RLIMIT_CPU, when the
 * loop looks at the process's clock (p->cpu_check).
 */
#include <errno.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"

#define NS 1000000000LL

struct kitimerval {
	int64_t int_sec, int_usec, val_sec, val_usec;
};

int64_t
timers_next(void)
{
	int64_t d = timerfd_next(), pd = ptimer_next();

	if (pd >= 0 && (d < 0 || pd < d))
		d = pd;
	for (struct proc *p = proc_first(); p != NULL; p = p->next)
		if (!p->exiting)
			d = time_earliest(d, time_earliest(p->itimer_deadline,
			    p->cpu_check));
	return d;
}

void
timers_expire(int64_t now)
{
	uint8_t info[128];

	timerfd_expire(now);
	ptimer_expire(now);
	for (struct proc *p = proc_first(); p != NULL; p = p->next) {
		if (!p->exiting && p->cpu_check >= 0 && p->cpu_check <= now)
			cpu_timers_check(p, now);
		if (p->exiting || p->itimer_deadline < 0 ||
		    p->itimer_deadline > now)
			continue;
		p->itimer_deadline = p->itimer_interval > 0 ?
		    now + p->itimer_interval : -1;
		sig_info_user(info, SIGALRM, SI_KERNEL, 0, 0);
		sig_post(p->main, SIGALRM, info, 0);
	}
}

/*
 * Where a timer keeps its expiry and interval, and its clock's time now:
 * ITIMER_REAL on the monotonic clock, the others on a CPU clock.
 */
struct itimer_ref {
	int64_t *value, *interval;
	int64_t now;
};

static struct itimer_ref
itimer_ref(struct proc *p, int which)
{
	struct cpu_itimer *it;
	int64_t user, cpu;

	if (which == ITIMER_REAL)
		return (struct itimer_ref){ &p->itimer_deadline,
		    &p->itimer_interval, plat_clock_ns(CLOCK_MONOTONIC) };
	it = &p->itimer_cpu[which - ITIMER_VIRTUAL];
	cpu = cpu_proc_ns(p, which == ITIMER_VIRTUAL ? &user : NULL);
	return (struct itimer_ref){ &it->value, &it->interval,
	    which == ITIMER_VIRTUAL ? user : cpu };
}

static void
itimer_get(const struct itimer_ref *t, struct kitimerval *v)
{
	int64_t left = *t->value < 0 ? 0 : VK_MAX(*t->value - t->now, 1000);

	v->int_sec = *t->interval / NS;
	v->int_usec = (*t->interval % NS) / 1000;
	v->val_sec = left / NS;
	v->val_usec = (left % NS) / 1000;
}

static int
itimer_set(const struct itimer_ref *t, const struct kitimerval *v)
{
	if (v->int_usec < 0 || v->int_usec >= 1000000 || v->val_usec < 0 ||
	    v->val_usec >= 1000000 || v->int_sec < 0 || v->val_sec < 0)
		return -EINVAL;
	*t->interval = vk_ns(v->int_sec, v->int_usec, 1000);
	if (v->val_sec == 0 && v->val_usec == 0)
		*t->value = -1;
	else
		*t->value = t->now + vk_ns(v->val_sec, v->val_usec, 1000);
	return 0;
}

static bool
itimer_which_ok(int which)
{
	return which == ITIMER_REAL || which == ITIMER_VIRTUAL ||
	    which == ITIMER_PROF;
}

long
sys_getitimer(struct thread *td, const struct sys_getitimer_args *a)
{
	struct itimer_ref t;
	struct kitimerval v;

	if (!itimer_which_ok(a->which))
		return -EINVAL;
	t = itimer_ref(td->proc, a->which);
	itimer_get(&t, &v);
	return copyout(td, &v, a->value, sizeof(v));
}

long
sys_setitimer(struct thread *td, const struct sys_setitimer_args *a)
{
	struct kitimerval nw = { 0 }, old;
	struct itimer_ref t;
	int r;

	if (!itimer_which_ok(a->which))
		return -EINVAL;
	if (a->value.va != 0 && (r = copyin(td, a->value, &nw,
	    sizeof(nw))) < 0)
		return r;
	t = itimer_ref(td->proc, a->which);
	itimer_get(&t, &old);
	if ((r = itimer_set(&t, &nw)) < 0)
		return r;
	if (a->which != ITIMER_REAL)
		cpu_timers_arm(td->proc);
	if (a->ovalue.va != 0)
		return copyout(td, &old, a->ovalue, sizeof(old));
	return 0;
}

long
sys_alarm(struct thread *td, const struct sys_alarm_args *a)
{
	struct kitimerval old, nw = { 0, 0, a->seconds, 0 };
	struct itimer_ref t = itimer_ref(td->proc, ITIMER_REAL);

	itimer_get(&t, &old);
	itimer_set(&t, &nw);
	/* The seconds that were left, rounded as alarm(2) does. */
	return (long)(old.val_sec + (old.val_usec >= 500000 ||
	    (old.val_sec == 0 && old.val_usec > 0)));
}
