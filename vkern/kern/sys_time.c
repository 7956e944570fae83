/*
 * Clocks and sleeping: clock_gettime, clock_getres, gettimeofday, time,
 * nanosleep, clock_nanosleep.
 *
 * The wall and monotonic clocks are the host's (guests mostly read them
 * through the host vdso without trapping at all).  A sleep parks the
 * thread with a deadline on the monotonic clock, so the kernel's loop goes
 * on serving other threads meanwhile.
 */
#include <errno.h>
#include <time.h>

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

static struct ktimespec
ns_to_ts(int64_t ns)
{
	return (struct ktimespec){ ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };
}

/*
 * CPU clocks: the fixed ids and the ids clock_getcpuclockid() makes,
 * ~pid << 3 | type (with bit 2 for a thread).  Only the caller's own
 * process and thread are known here.  XXX: the host counts the stub's
 * time, which leaves out the time the kernel spends in the guest's calls;
 * with one thread per process the thread clock is the process clock.
 */
static bool
cpu_clock(struct thread *td, int clk)
{
	int pid, type;

	if (clk == CLOCK_PROCESS_CPUTIME_ID || clk == CLOCK_THREAD_CPUTIME_ID)
		return true;
	if (clk >= 0)
		return false;
	pid = ~(clk >> 3);
	type = clk & 3;
	if (type == 3)
		return false;
	return pid == 0 || pid == td->proc->pid || pid == td->tid;
}

long
sys_clock_gettime(struct thread *td, const struct sys_clock_gettime_args *a)
{
	struct ktimespec ts;

	if (cpu_clock(td, a->clk))
		ts = ns_to_ts(plat_space_cputime(td->proc->vm->space));
	else if (clock_valid(a->clk))
		ts = ns_to_ts(plat_clock_ns(a->clk));
	else
		return -EINVAL;
	return copyout(td, &ts, a->tp, sizeof(ts));
}

long
sys_clock_getres(struct thread *td, const struct sys_clock_getres_args *a)
{
	struct ktimespec ts = { 0, 1 };

	if (!clock_valid(a->clk) && !cpu_clock(td, a->clk))
		return -EINVAL;
	if (a->res.va == 0)
		return 0;
	if (clock_valid(a->clk))
		ts = ns_to_ts(plat_clock_res_ns(a->clk));
	return copyout(td, &ts, a->res, sizeof(ts));
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

/* A signal ended a relative sleep early: tell the guest what was left. */
static void
sleep_cancel(struct thread *td)
{
	int64_t left = td->wait.arg[1] - plat_clock_ns(CLOCK_MONOTONIC);
	struct ktimespec rem = ns_to_ts(left > 0 ? left : 0);

	if (td->wait.arg[0] != 0)
		(void)copyout(td, &rem, UADDR(td->wait.arg[0]), sizeof(rem));
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
	if (ts.tv_sec > (INT64_MAX - ts.tv_nsec) / NSEC_PER_SEC)
		*nsp = INT64_MAX;
	else
		*nsp = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
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

long
sys_clock_nanosleep(struct thread *td,
    const struct sys_clock_nanosleep_args *a)
{
	int64_t ns, mono = plat_clock_ns(CLOCK_MONOTONIC);
	int r;

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
