/*
 * Clocks and sleeping: clock_gettime, clock_getres, clock_settime,
 * gettimeofday, time, nanosleep, clock_nanosleep.
 *
 * The wall and monotonic clocks are the host's (guests mostly read them
 * through the host vdso without trapping at all).  A sleep parks the
 * thread with a deadline on the monotonic clock, so the kernel's loop goes
 * on serving other threads meanwhile.
 */
#include <errno.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"

#define NSEC_PER_SEC 1000000000LL

struct ktimespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};

/* The clocks the host answers for us: ids Linux gives a fixed meaning. */
static bool
clock_valid(int clk)
{
	switch (clk) {
	case CLOCK_REALTIME: case CLOCK_MONOTONIC: case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME_COARSE: case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME: case CLOCK_TAI:
		return true;
	}
	return false;
}

int64_t
kern_boot_ns(void)
{
	static int64_t boot;

	if (boot == 0)
		boot = plat_clock_ns(CLOCK_MONOTONIC);
	return boot;
}

static struct ktimespec
ns_to_ts(int64_t ns)
{
	return (struct ktimespec){ ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };
}

int
ts_clock_deadline(struct thread *td, uaddr_t uts, bool abs, int clock,
    int64_t *dl)
{
	struct { int64_t sec, nsec; } ts;
	int r;

	if ((r = copyin(td, uts, &ts, sizeof(ts))) < 0)
		return r;
	if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
		return -EINVAL;
	if (ts.sec > INT64_MAX / 4000000000LL) {
		*dl = -1;
		return 0;
	}
	*dl = ts.sec * 1000000000LL + ts.nsec;
	if (abs)
		*dl += plat_clock_ns(CLOCK_MONOTONIC) - plat_clock_ns(clock);
	else
		*dl += plat_clock_ns(CLOCK_MONOTONIC);
	if (*dl < 0)
		*dl = 0;
	return 0;
}

/* The CPU clocks are cputime.c's. */
long
sys_clock_gettime(struct thread *td, const struct sys_clock_gettime_args *a)
{
	struct cpuclock cc;
	struct ktimespec ts;
	int64_t ns;

	if (cpuclock_is(a->clk)) {
		if (cpuclock_get(td, a->clk, true, &cc) < 0 ||
		    cpuclock_read(&cc, &ns) < 0)
			return -EINVAL;
		ts = ns_to_ts(ns);
	} else if (clock_valid(a->clk)) {
		ts = ns_to_ts(plat_clock_ns(a->clk));
	} else {
		return -EINVAL;
	}
	return copyout(td, &ts, a->tp, sizeof(ts));
}

long
sys_clock_getres(struct thread *td, const struct sys_clock_getres_args *a)
{
	struct cpuclock cc;
	struct ktimespec ts;

	if (cpuclock_is(a->clk)) {
		if (cpuclock_get(td, a->clk, false, &cc) < 0)
			return -EINVAL;
		ts = ns_to_ts(cpuclock_res(&cc));
	} else if (clock_valid(a->clk)) {
		ts = ns_to_ts(plat_clock_res_ns(a->clk));
	} else {
		return -EINVAL;
	}
	if (a->res.va == 0)
		return 0;
	return copyout(td, &ts, a->res, sizeof(ts));
}

/*
 * Only CLOCK_REALTIME and the CPU clocks have a setter in Linux.  The
 * guest's wall clock is the host's, which it may not change: EPERM, as
 * in a container without CAP_SYS_TIME, once the time was read and found
 * valid.  A CPU clock is never set: EPERM once its id names a clock.
 */
long
sys_clock_settime(struct thread *td, const struct sys_clock_settime_args *a)
{
	struct cpuclock cc;
	struct ktimespec ts;
	long r;

	if (!cpuclock_is(a->clk) && a->clk != CLOCK_REALTIME)
		return -EINVAL;
	if ((r = copyin(td, a->tp, &ts, sizeof(ts))) < 0)
		return r;
	if (cpuclock_is(a->clk))
		return cpuclock_get(td, a->clk, false, &cc) < 0 ? -EINVAL :
		    -EPERM;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= NSEC_PER_SEC)
		return -EINVAL;
	return -EPERM;
}

long
sys_gettimeofday(struct thread *td, const struct sys_gettimeofday_args *a)
{
	int64_t ns = plat_clock_ns(CLOCK_REALTIME);
	struct {
		int64_t tv_sec, tv_usec;
	} tv = { ns / NSEC_PER_SEC, (ns % NSEC_PER_SEC) / 1000 };
	static const int32_t tz[2];   /* UTC, no DST: what Linux keeps */
	int r;

	if (a->tv.va != 0 && (r = copyout(td, &tv, a->tv, sizeof(tv))) < 0)
		return r;
	if (a->tz.va != 0 && (r = copyout(td, tz, a->tz, sizeof(tz))) < 0)
		return r;
	return 0;
}

long
sys_time(struct thread *td, const struct sys_time_args *a)
{
	int64_t t = plat_clock_ns(CLOCK_REALTIME) / NSEC_PER_SEC;
	int r;

	if (a->tloc.va != 0 && (r = copyout(td, &t, a->tloc, sizeof(t))) < 0)
		return r;
	return (long)t;
}

/* The continuation of a sleep: the deadline has passed. */
static long
sleep_done(struct thread *td)
{
	return 0;
}

/*
 * Tell the guest what was left of a relative sleep a signal ended; a rem
 * it cannot take makes the call fail with EFAULT instead of EINTR, as
 * Linux's.
 */
static void
sleep_rem(struct thread *td, int64_t left)
{
	struct ktimespec rem = ns_to_ts(left > 0 ? left : 0);

	if (td->wait.arg[0] != 0 &&
	    copyout(td, &rem, UADDR(td->wait.arg[0]), sizeof(rem)) < 0)
		td->wait.done = -EFAULT;
}

static void
sleep_cancel(struct thread *td)
{
	sleep_rem(td, (int64_t)td->wait.arg[1] -
	    plat_clock_ns(CLOCK_MONOTONIC));
}

/*
 * Park td until the monotonic clock reaches deadline; rem (or 0) is
 * where an interrupted sleep reports the time left.
 */
static long
sleep_until(struct thread *td, int64_t deadline, uaddr_t rem)
{
	if (deadline <= plat_clock_ns(CLOCK_MONOTONIC))
		return 0;
	td->wait = (struct wait){
		.cont = sleep_done,
		.cancel = sleep_cancel,
		.deadline = deadline,
		.console_fd = -1,
	};
	td->wait.arg[0] = rem.va;
	td->wait.arg[1] = (uint64_t)deadline;
	return -EPARKED;
}

static int
timespec_in(struct thread *td, uaddr_t u, int64_t *nsp)
{
	struct ktimespec ts;
	int r;

	if ((r = copyin(td, u, &ts, sizeof(ts))) < 0)
		return r;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= NSEC_PER_SEC)
		return -EINVAL;
	*nsp = vk_ns(ts.tv_sec, ts.tv_nsec, 1);
	return 0;
}

static int64_t
deadline_add(int64_t now, int64_t rel)
{
	return rel > INT64_MAX - now ? INT64_MAX : now + rel;
}

long
sys_nanosleep(struct thread *td, const struct sys_nanosleep_args *a)
{
	int64_t ns, now = plat_clock_ns(CLOCK_MONOTONIC);
	int r;

	if ((r = timespec_in(td, a->req, &ns)) < 0)
		return r;
	return sleep_until(td, deadline_add(now, ns), a->rem);
}

/*
 * A sleep on a CPU clock: wait.arg[1] is the clock's time to wake at and
 * arg[2] the clock id.  The loop looks at the clock again when it could
 * have got there at the soonest (cpu_check_at); a clock whose process or
 * thread is gone ends the sleep.
 */
static int
cpu_sleep_left(struct thread *td, int64_t *leftp)
{
	struct cpuclock cc;
	int64_t ns;

	if (cpuclock_get(td, (int)td->wait.arg[2], false, &cc) < 0 ||
	    cpuclock_read(&cc, &ns) < 0)
		return -ESRCH;
	*leftp = (int64_t)td->wait.arg[1] - ns;
	return 0;
}

static long
cpu_sleep_cont(struct thread *td)
{
	int64_t left;

	if (cpu_sleep_left(td, &left) < 0 || left <= 0)
		return 0;
	td->wait.deadline = cpu_check_at(plat_clock_ns(CLOCK_MONOTONIC), left);
	return -EPARKED;
}

static void
cpu_sleep_cancel(struct thread *td)
{
	int64_t left;

	if (cpu_sleep_left(td, &left) == 0)
		sleep_rem(td, left);
}

/*
 * As Linux, the calling thread's own CPU clock cannot be slept on: it
 * does not advance while the thread sleeps (EINVAL, clock_nanosleep(2)),
 * and CLOCK_THREAD_CPUTIME_ID has no sleep at all (EOPNOTSUPP, which
 * glibc turns into EINVAL).
 */
static long
cpu_sleep(struct thread *td, const struct sys_clock_nanosleep_args *a)
{
	struct cpuclock cc;
	int64_t ns, now;
	int r;

	if (a->clk == CLOCK_THREAD_CPUTIME_ID)
		return -EOPNOTSUPP;
	if ((r = cpuclock_get(td, a->clk, false, &cc)) < 0)
		return r;
	if (cc.tid == td->tid)
		return -EINVAL;
	if ((r = timespec_in(td, a->req, &ns)) < 0)
		return r;
	if (cpuclock_read(&cc, &now) < 0)
		return -EINVAL;
	td->wait = (struct wait){
		.cont = cpu_sleep_cont,
		.cancel = cpu_sleep_cancel,
		.console_fd = -1,
	};
	/* An absolute sleep has nothing to report in rem. */
	td->wait.arg[0] = (a->flags & TIMER_ABSTIME) ? 0 : a->rem.va;
	td->wait.arg[1] = (uint64_t)((a->flags & TIMER_ABSTIME) ? ns :
	    deadline_add(now, ns));
	td->wait.arg[2] = (uint64_t)(int64_t)a->clk;
	return cpu_sleep_cont(td);
}

long
sys_clock_nanosleep(struct thread *td,
    const struct sys_clock_nanosleep_args *a)
{
	int64_t ns, mono = plat_clock_ns(CLOCK_MONOTONIC);
	int r;

	if (cpuclock_is(a->clk))
		return cpu_sleep(td, a);
	/* The alarm clocks, as timer_create's (sys_ptimer.c). */
	if (a->clk == CLOCK_REALTIME_ALARM || a->clk == CLOCK_BOOTTIME_ALARM)
		return -EOPNOTSUPP;
	if (a->clk != CLOCK_REALTIME && a->clk != CLOCK_MONOTONIC &&
	    a->clk != CLOCK_BOOTTIME && a->clk != CLOCK_TAI)
		return -EINVAL;
	if ((r = timespec_in(td, a->req, &ns)) < 0)
		return r;
	if (!(a->flags & TIMER_ABSTIME))
		return sleep_until(td, deadline_add(mono, ns), a->rem);
	/*
	 * An absolute time on another clock: turn it into a monotonic
	 * deadline now.  XXX: a later jump of the wall clock is not seen.
	 */
	ns -= plat_clock_ns(a->clk);
	/* An absolute sleep has nothing to report in rem. */
	return sleep_until(td, ns <= 0 ? mono : deadline_add(mono, ns),
	    UADDR(0));
}
