/*
 * CPU-time accounting: the CPU clocks, getrusage's figures, and what
 * counts CPU time down (ITIMER_VIRTUAL, ITIMER_PROF, RLIMIT_CPU,
 * RLIMIT_RTTIME).
 *
 * A guest thread's CPU time is its stub thread's host time plus what the
 * kernel spent serving its syscalls and faults, counted as system time,
 * since that is the work Linux would do in the kernel for it.  That
 * service is timed with the vdso clock around each handler (~60 ns a
 * call), so it is wall time: a host preemption of the kernel in the
 * middle of a handler counts too.  A process's time is its stub's (every
 * host thread, gone ones too) plus the kernel's service to its threads.
 *
 * Nothing on the host tells the kernel that a CPU timer ran out.
 * Instead the event loop looks at the clock again when, at the soonest,
 * the timer could have run out, since CPU time grows no faster than wall
 * time on each host CPU (cpu_check_at).  Each look brings that time
 * nearer, so a guest in a loop without syscalls is stopped within about
 * CPU_CHECK_MIN of its timer, at the cost of a few host clock reads.
 */
#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"
#include "vkern/vm/vm_ram.h"

#define NS 1000000000LL

/* The least wait before the loop looks at a CPU clock again. */
#define CPU_CHECK_MIN 1000000LL

void
cpu_count(struct thread *td, const struct kcount *k)
{
	struct kcount *to[2] = { &td->kc, &td->proc->kc };

	for (int i = 0; i < 2; i++) {
		to[i]->ktime += k->ktime;
		to[i]->minflt += k->minflt;
		to[i]->nvcsw += k->nvcsw;
	}
}

int64_t
cpu_proc_ns(const struct proc *p, int64_t *userp)
{
	/* A zombie, or vkernel's init, which runs no guest code. */
	if (p->vm == NULL || p->vm->space == NULL) {
		if (userp != NULL)
			*userp = p->exit_ru.user;
		return p->exit_ru.user + p->exit_ru.sys;
	}
	return plat_space_cputime(p->vm->space, userp) + p->kc.ktime;
}

int64_t
cpu_thread_ns(const struct thread *td, int64_t *userp)
{
	if (td->pt == NULL) {    /* vkernel's init's */
		if (userp != NULL)
			*userp = 0;
		return td->kc.ktime;
	}
	return plat_thread_cputime(td->pt, userp) + td->kc.ktime;
}

int64_t
cpu_check_at(int64_t now, int64_t cpu_left)
{
	return now + VK_MAX(cpu_left / VK_MAX(plat_ncpus(), 1), CPU_CHECK_MIN);
}

/* --- getrusage --- */

static void
ru_add(struct kru *to, const struct kru *ru)
{
	to->user += ru->user;
	to->sys += ru->sys;
	to->maxrss = VK_MAX(to->maxrss, ru->maxrss);
	to->minflt += ru->minflt;
	to->nvcsw += ru->nvcsw;
}

/* Every page backed by the RAM file counts as resident, as procfs says. */
static uint64_t
vm_resident(const struct vm_map *m)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < m->n; i++)
		if (m->ent[i].ramoff != VM_NORAM)
			n += m->ent[i].end - m->ent[i].start;
	return n;
}

/*
 * The largest resident size is sampled when it is asked for and at
 * exit, not tracked page by page: a peak between samples is missed.
 */
static uint64_t
maxrss(struct proc *p)
{
	if (p->vm != NULL)
		p->maxrss = VK_MAX(p->maxrss, vm_resident(p->vm));
	return p->maxrss;
}

static void
ru_self(struct proc *p, struct kru *ru)
{
	int64_t user, ns;

	if (p->vm == NULL || p->vm->space == NULL) {
		*ru = p->exit_ru;
		return;
	}
	ns = cpu_proc_ns(p, &user);
	*ru = (struct kru){ .user = user, .sys = ns - user,
	    .maxrss = maxrss(p), .minflt = p->kc.minflt,
	    .nvcsw = p->kc.nvcsw };
}

void
cpu_rusage(struct thread *td, struct proc *p, int who, struct kru *ru)
{
	int64_t user, ns;

	switch (who) {
	case RUSAGE_THREAD:
		ns = cpu_thread_ns(td, &user);
		*ru = (struct kru){ .user = user, .sys = ns - user,
		    .maxrss = maxrss(p), .minflt = td->kc.minflt,
		    .nvcsw = td->kc.nvcsw };
		break;
	case RUSAGE_CHILDREN:
		*ru = p->cru;
		break;
	case VK_RUSAGE_BOTH:
		ru_self(p, ru);
		ru_add(ru, &p->cru);
		break;
	default:
		ru_self(p, ru);
	}
}

void
cpu_proc_exit(struct proc *p)
{
	ru_self(p, &p->exit_ru);
}

void
cpu_reap(struct proc *parent, struct proc *child)
{
	struct kru ru;

	cpu_rusage(NULL, child, VK_RUSAGE_BOTH, &ru);
	ru_add(&parent->cru, &ru);
}

/* struct rusage as x86-64 lays it out: two timevals and 14 longs. */
struct krusage {
	int64_t utime_sec, utime_usec, stime_sec, stime_usec;
	int64_t maxrss, ixrss, idrss, isrss, minflt, majflt, nswap;
	int64_t inblock, oublock, msgsnd, msgrcv, nsignals, nvcsw, nivcsw;
};
_Static_assert(sizeof(struct krusage) == 144, "struct rusage layout");

int
cpu_rusage_out(struct thread *td, const struct kru *ru, uaddr_t u)
{
	struct krusage k = {
		.utime_sec = ru->user / NS,
		.utime_usec = ru->user % NS / 1000,
		.stime_sec = ru->sys / NS,
		.stime_usec = ru->sys % NS / 1000,
		.maxrss = (int64_t)(ru->maxrss / 1024),
		.minflt = (int64_t)ru->minflt,
		.nvcsw = (int64_t)ru->nvcsw,
	};

	return copyout(td, &k, u, sizeof(k));
}

/* --- the CPU clocks --- */

bool
cpuclock_is(int clk)
{
	return clk < 0 || clk == CLOCK_PROCESS_CPUTIME_ID ||
	    clk == CLOCK_THREAD_CPUTIME_ID;
}

int
cpuclock_get(struct thread *td, int clk, bool gettime, struct cpuclock *cc)
{
	int id = ~(clk >> 3), which = clk & 3;
	struct thread *t;
	struct proc *p;

	if (clk == CLOCK_PROCESS_CPUTIME_ID || clk == CLOCK_THREAD_CPUTIME_ID) {
		*cc = (struct cpuclock){ td->proc->pid,
		    clk == CLOCK_THREAD_CPUTIME_ID ? td->tid : 0,
		    CPUCLOCK_SCHED };
		return 0;
	}
	if (clk >= 0 || which == 3)
		return -EINVAL;
	if (clk & CPUCLOCK_PERTHREAD) {
		if ((t = id == 0 ? td : proc_thread(td->proc, id)) == NULL)
			return -EINVAL;
		*cc = (struct cpuclock){ td->proc->pid, t->tid, which };
		return 0;
	}
	if (id == 0 || (gettime && id == td->tid))
		p = td->proc;
	else if ((p = proc_find(id)) == NULL)
		return -EINVAL;
	*cc = (struct cpuclock){ p->pid, 0, which };
	return 0;
}

int
cpuclock_read(const struct cpuclock *cc, int64_t *nsp)
{
	struct proc *p = proc_find(cc->pid);
	bool virt = cc->which == CPUCLOCK_VIRT;
	struct thread *t;
	int64_t user, ns;

	if (p == NULL)
		return -ESRCH;
	if (cc->tid == 0)
		ns = cpu_proc_ns(p, virt ? &user : NULL);
	else if (!p->exiting && (t = proc_thread(p, cc->tid)) != NULL)
		ns = cpu_thread_ns(t, virt ? &user : NULL);
	else
		return -ESRCH;
	*nsp = virt ? user : ns;
	return 0;
}

int64_t
cpuclock_res(const struct cpuclock *cc)
{
	/* The sampled clocks tick with the host's scheduler, as the coarse. */
	return cc->which == CPUCLOCK_SCHED ? 1 :
	    plat_clock_res_ns(CLOCK_MONOTONIC_COARSE);
}

/* --- CPU timers of a process --- */

void
cpu_timers_init(struct proc *p)
{
	for (int i = 0; i < 2; i++)
		p->itimer_cpu[i] = (struct cpu_itimer){ -1, 0 };
	p->cpu_check = -1;
	/* A forked child keeps its parent's RLIMIT_CPU and RLIMIT_RTTIME. */
	if (p->rlim[RLIMIT_CPU].cur != RLIM64_INFINITY ||
	    p->rlim[RLIMIT_CPU].max != RLIM64_INFINITY ||
	    p->rlim[RLIMIT_RTTIME].max != RLIM64_INFINITY ||
	    p->rlim[RLIMIT_RTTIME].cur != RLIM64_INFINITY)
		cpu_timers_arm(p);
}

void
cpu_timers_arm(struct proc *p)
{
	p->cpu_check = plat_clock_ns(CLOCK_MONOTONIC);
}

/* An expired CPU itimer fires; returns the CPU ns until it next does, or -1. */
static int64_t
itimer_cpu_check(struct proc *p, int which, int signo, int64_t cpu)
{
	struct cpu_itimer *it = &p->itimer_cpu[which - ITIMER_VIRTUAL];
	uint8_t info[128];

	if (it->value < 0)
		return -1;
	if (cpu < it->value)
		return it->value - cpu;
	/* Expirations the loop was late for are dropped, not queued. */
	if (it->interval > 0)
		it->value += ((cpu - it->value) / it->interval + 1) *
		    it->interval;
	else
		it->value = -1;
	sig_info_user(info, signo, SI_KERNEL, 0, 0);
	sig_post(p->main, signo, info, 0);
	return it->value < 0 ? -1 : it->value - cpu;
}

static int64_t
rlim_ns(uint64_t sec)
{
	return sec >= (uint64_t)(INT64_MAX / NS) ? -1 : (int64_t)sec * NS;
}

/*
 * RLIMIT_CPU counts user and system time, in seconds.  As Linux does
 * (check_process_timers), SIGXCPU at the soft limit moves the soft limit
 * a second on, so it comes again each second until the hard limit kills.
 * Returns the CPU ns until it next acts, or -1.
 */
static int64_t
rlimit_cpu_check(struct proc *p, int64_t cpu)
{
	struct rlim64 *rl = &p->rlim[RLIMIT_CPU];
	int64_t soft = rlim_ns(rl->cur), hard = rlim_ns(rl->max);
	uint8_t info[128];

	if (hard >= 0 && cpu >= hard) {
		proc_kill_sig(p, SIGKILL);
		return -1;
	}
	if (soft >= 0 && cpu >= soft) {
		sig_info_user(info, SIGXCPU, SI_KERNEL, 0, 0);
		sig_post(p->main, SIGXCPU, info, 0);
		rl->cur++;
		soft += NS;
	}
	return time_earliest(soft < 0 ? -1 : soft - cpu,
	    hard < 0 ? -1 : hard - cpu);
}

static bool
sched_is_rt(const struct thread *td)
{
	return td->sched_policy == SCHED_FIFO || td->sched_policy == SCHED_RR;
}

void
cpu_rt_block(struct thread *td)
{
	if (sched_is_rt(td))
		td->rt_base = cpu_thread_ns(td, NULL);
}

static int64_t
rlim_us_ns(uint64_t us)
{
	return us >= (uint64_t)(INT64_MAX / 1000) ? -1 : (int64_t)us * 1000;
}

/*
 * RLIMIT_RTTIME counts, in microseconds, the CPU time a thread of a
 * real-time policy (SCHED_FIFO, SCHED_RR) spends without blocking in a
 * system call.  As Linux (check_thread_timers): SIGXCPU to the process at
 * the soft limit, which then moves a second on, and SIGKILL at the hard
 * limit.  Returns the CPU ns until it next acts, or -1.
 */
static int64_t
rlimit_rttime_check(struct proc *p)
{
	struct rlim64 *rl = &p->rlim[RLIMIT_RTTIME];
	int64_t left = -1;
	uint8_t info[128];

	for (struct thread *t = p->threads; t != NULL; t = t->tnext) {
		int64_t soft = rlim_us_ns(rl->cur), hard = rlim_us_ns(rl->max);
		int64_t rt;

		if (!sched_is_rt(t) || (soft < 0 && hard < 0))
			continue;
		rt = cpu_thread_ns(t, NULL) - t->rt_base;
		if (hard >= 0 && rt >= hard) {
			proc_kill_sig(p, SIGKILL);
			return -1;
		}
		if (soft >= 0 && rt >= soft) {
			sig_info_user(info, SIGXCPU, SI_KERNEL, 0, 0);
			sig_post(p->main, SIGXCPU, info, 0);
			if (hard < 0 || soft < hard) {
				rl->cur += 1000000;
				soft += NS;
			}
		}
		left = time_earliest(left, time_earliest(
		    soft < 0 ? -1 : VK_MAX(soft - rt, 0),
		    hard < 0 ? -1 : hard - rt));
	}
	return left;
}

void
cpu_timers_check(struct proc *p, int64_t now)
{
	int64_t user = 0, cpu, left;
	bool virt = p->itimer_cpu[0].value >= 0;   /* ITIMER_VIRTUAL's */

	cpu = cpu_proc_ns(p, virt ? &user : NULL);
	left = itimer_cpu_check(p, ITIMER_VIRTUAL, SIGVTALRM, user);
	left = time_earliest(left, itimer_cpu_check(p, ITIMER_PROF, SIGPROF,
	    cpu));
	left = time_earliest(left, rlimit_cpu_check(p, cpu));
	if (!p->exiting)
		left = time_earliest(left, rlimit_rttime_check(p));
	p->cpu_check = left < 0 || p->exiting ? -1 : cpu_check_at(now, left);
}
