/*
 * The real-time interval timer: alarm, setitimer, getitimer.
 *
 * ITIMER_REAL counts down on the monotonic clock; when it runs out the
 * process gets SIGALRM and the timer reloads from its interval.  The
 * event loop sleeps no later than the earliest timer (timers_next) and
 * fires the expired ones (timers_expire).
 * XXX: ITIMER_VIRTUAL and ITIMER_PROF need CPU-time accounting (#5).
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
		if (!p->exiting && p->itimer_deadline >= 0 &&
		    (d < 0 || p->itimer_deadline < d))
			d = p->itimer_deadline;
	return d;
}

void
timers_expire(int64_t now)
{
	uint8_t info[128];

	timerfd_expire(now);
	ptimer_expire(now);
	for (struct proc *p = proc_first(); p != NULL; p = p->next) {
		if (p->exiting || p->itimer_deadline < 0 ||
		    p->itimer_deadline > now)
			continue;
		p->itimer_deadline = p->itimer_interval > 0 ?
		    now + p->itimer_interval : -1;
		sig_info_user(info, SIGALRM, SI_KERNEL, 0, 0);
		sig_post(p->main, SIGALRM, info, 0);
	}
}

static void
itimer_get(struct proc *p, struct kitimerval *v)
{
	int64_t left = p->itimer_deadline < 0 ? 0 :
	    VK_MAX(p->itimer_deadline - plat_clock_ns(CLOCK_MONOTONIC), 1000);

	v->int_sec = p->itimer_interval / NS;
	v->int_usec = (p->itimer_interval % NS) / 1000;
	v->val_sec = left / NS;
	v->val_usec = (left % NS) / 1000;
}

static int
itimer_set(struct proc *p, const struct kitimerval *v)
{
	if (v->int_usec < 0 || v->int_usec >= 1000000 || v->val_usec < 0 ||
	    v->val_usec >= 1000000 || v->int_sec < 0 || v->val_sec < 0)
		return -EINVAL;
	p->itimer_interval = v->int_sec * NS + v->int_usec * 1000;
	if (v->val_sec == 0 && v->val_usec == 0)
		p->itimer_deadline = -1;
	else
		p->itimer_deadline = plat_clock_ns(CLOCK_MONOTONIC) +
		    v->val_sec * NS + v->val_usec * 1000;
	return 0;
}

long
sys_getitimer(struct thread *td, const struct sys_getitimer_args *a)
{
	struct kitimerval v;

	if (a->which != ITIMER_REAL)
		return -EINVAL;
	itimer_get(td->proc, &v);
	return copyout(td, &v, a->value, sizeof(v));
}

long
sys_setitimer(struct thread *td, const struct sys_setitimer_args *a)
{
	struct kitimerval nw = { 0 }, old;
	int r;

	if (a->which != ITIMER_REAL)
		return -EINVAL;
	if (a->value.va != 0 && (r = copyin(td, a->value, &nw,
	    sizeof(nw))) < 0)
		return r;
	itimer_get(td->proc, &old);
	if ((r = itimer_set(td->proc, &nw)) < 0)
		return r;
	if (a->ovalue.va != 0)
		return copyout(td, &old, a->ovalue, sizeof(old));
	return 0;
}

long
sys_alarm(struct thread *td, const struct sys_alarm_args *a)
{
	struct kitimerval old, nw = { 0, 0, a->seconds, 0 };

	itimer_get(td->proc, &old);
	itimer_set(td->proc, &nw);
	/* The seconds that were left, rounded as alarm(2) does. */
	return (long)(old.val_sec + (old.val_usec >= 500000 ||
	    (old.val_sec == 0 && old.val_usec > 0)));
}
