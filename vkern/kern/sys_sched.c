/*
 * Scheduling: sched_yield, sched_getaffinity, priorities, I/O priorities.
 *
 * The guest sees as many CPUs as the host gives the kernel.  Threads the
 * kernel holds are run by its loop before it serves this one again; a
 * yield also hands the host CPU to the process's threads that compute.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"

long
sys_sched_yield(struct thread *td, const struct sys_sched_yield_args *a)
{
	plat_thread_yield(td->pt);
	return 0;
}

/* The scheduler's calls name a thread: 0 for the caller, or any tid. */
static struct thread *
sched_thread(struct thread *td, int tid)
{
	return tid == 0 ? td : tid > 0 ? thread_find(tid) : NULL;
}

long
sys_sched_getaffinity(struct thread *td,
    const struct sys_sched_getaffinity_args *a)
{
	uint64_t mask[16];
	unsigned ncpu = (unsigned)VK_MIN(plat_ncpus(), 64 * 16);
	size_t size = (ncpu + 63) / 64 * sizeof(uint64_t);
	int r;

	if (sched_thread(td, a->pid) == NULL)
		return -ESRCH;
	/* As Linux: the buffer must hold every possible CPU's bit. */
	if (a->len * 8 < ncpu || (a->len & (sizeof(uint64_t) - 1)) != 0)
		return -EINVAL;
	memset(mask, 0, sizeof(mask));
	for (unsigned i = 0; i < ncpu; i++)
		mask[i / 64] |= 1ULL << (i % 64);
	size = VK_MIN(size, a->len);
	if ((r = copyout(td, mask, a->mask, size)) < 0)
		return r;
	return (long)size;
}

/*
 * The rest of the scheduler's interface.  The guest's threads run on the
 * host as the kernel places them, so affinity, policy and niceness are
 * kept and reported back, as a kernel would, without moving anything.
 */
long
sys_sched_setaffinity(struct thread *td,
    const struct sys_sched_setaffinity_args *a)
{
	uint64_t mask[16], mine = 0;
	unsigned ncpu = (unsigned)VK_MIN(plat_ncpus(), 64);
	int r;

	if (sched_thread(td, a->pid) == NULL)
		return -ESRCH;
	memset(mask, 0, sizeof(mask));
	if ((r = copyin(td, a->mask, mask, VK_MIN(a->len, sizeof(mask)))) < 0)
		return r;
	for (unsigned i = 0; i < ncpu; i++)
		mine |= 1ULL << i;
	/* As Linux: a mask with none of the CPUs there is is EINVAL. */
	return (mask[0] & mine) == 0 ? -EINVAL : 0;
}

long
sys_getcpu(struct thread *td, const struct sys_getcpu_args *a)
{
	unsigned zero = 0;
	int r;

	if (a->cpu.va != 0 && (r = copyout(td, &zero, a->cpu, 4)) < 0)
		return r;
	if (a->node.va != 0 && (r = copyout(td, &zero, a->node, 4)) < 0)
		return r;
	return 0;
}

static struct proc *
prio_target(struct thread *td, int which, int who)
{
	if (which != PRIO_PROCESS && which != PRIO_PGRP && which != PRIO_USER)
		return NULL;
	if (who == 0)
		return td->proc;
	for (struct proc *p = proc_first(); p != NULL; p = p->next)
		if (!p->exiting && ((which == PRIO_PROCESS && p->pid == who) ||
		    (which == PRIO_PGRP && p->pgid == who) ||
		    (which == PRIO_USER && p->cred.uid == (unsigned)who)))
			return p;
	return NULL;
}

long
sys_getpriority(struct thread *td, const struct sys_getpriority_args *a)
{
	struct proc *p;

	if (a->which < PRIO_PROCESS || a->which > PRIO_USER)
		return -EINVAL;
	if ((p = prio_target(td, a->which, a->who)) == NULL)
		return -ESRCH;
	return 20 - p->nice;   /* the syscall's 40..1 encoding */
}

long
sys_setpriority(struct thread *td, const struct sys_setpriority_args *a)
{
	struct proc *p;
	int nice = VK_MAX(-20, VK_MIN(19, a->prio));

	if (a->which < PRIO_PROCESS || a->which > PRIO_USER)
		return -EINVAL;
	if ((p = prio_target(td, a->which, a->who)) == NULL)
		return -ESRCH;
	/* Raising priority takes CAP_SYS_NICE: root's. */
	if (nice < p->nice && td->proc->cred.euid != 0)
		return -EACCES;
	p->nice = nice;
	return 0;
}

long
sys_sched_getscheduler(struct thread *td,
    const struct sys_sched_getscheduler_args *a)
{
	struct thread *t;

	if (a->pid < 0)
		return -EINVAL;
	if ((t = sched_thread(td, a->pid)) == NULL)
		return -ESRCH;
	return t->sched_policy;
}

long
sys_sched_getparam(struct thread *td, const struct sys_sched_getparam_args *a)
{
	struct thread *t;

	if (a->pid < 0 || a->param.va == 0)
		return -EINVAL;
	if ((t = sched_thread(td, a->pid)) == NULL)
		return -ESRCH;
	return copyout(td, &t->sched_prio, a->param, sizeof(int));
}

/*
 * A policy and priority as Linux checks them: 1-99 for the real-time
 * policies, which need privilege (RLIMIT_RTPRIO is 0), 0 for the others.
 */
static long
sched_set(struct thread *td, int tid, int policy, uaddr_t uparam)
{
	struct thread *t;
	int prio, r;

	if (tid < 0 || uparam.va == 0)
		return -EINVAL;
	if ((r = copyin(td, uparam, &prio, sizeof(prio))) < 0)
		return r;
	if ((t = sched_thread(td, tid)) == NULL)
		return -ESRCH;
	policy = policy == -1 ? t->sched_policy : policy & ~SCHED_RESET_ON_FORK;
	switch (policy) {
	case SCHED_FIFO: case SCHED_RR:
		if (prio < 1 || prio > 99)
			return -EINVAL;
		if (td->proc->cred.euid != 0)
			return -EPERM;
		break;
	case SCHED_OTHER: case SCHED_BATCH: case SCHED_IDLE:
		if (prio != 0)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	t->sched_policy = policy;
	t->sched_prio = prio;
	/* RLIMIT_RTTIME counts from here. */
	cpu_rt_block(t);
	cpu_timers_arm(t->proc);
	return 0;
}

long
sys_sched_setscheduler(struct thread *td,
    const struct sys_sched_setscheduler_args *a)
{
	if (a->policy < 0)
		return -EINVAL;
	return sched_set(td, a->pid, a->policy, a->param);
}

long
sys_sched_setparam(struct thread *td, const struct sys_sched_setparam_args *a)
{
	return sched_set(td, a->pid, -1, a->param);
}

long
sys_sched_get_priority_max(struct thread *td,
    const struct sys_sched_get_priority_max_args *a)
{
	switch (a->policy) {
	case SCHED_FIFO: case SCHED_RR:
		return 99;
	case SCHED_OTHER: case SCHED_BATCH: case SCHED_IDLE:
		return 0;
	}
	return -EINVAL;
}

long
sys_sched_get_priority_min(struct thread *td,
    const struct sys_sched_get_priority_min_args *a)
{
	switch (a->policy) {
	case SCHED_FIFO: case SCHED_RR:
		return 1;
	case SCHED_OTHER: case SCHED_BATCH: case SCHED_IDLE:
		return 0;
	}
	return -EINVAL;
}

/*
 * The round-robin quantum: Linux's default for SCHED_RR, 0 for FIFO, and
 * 0 for the fair policies, as Linux says while the thread has its CPU
 * to itself (vkernel does not share out the guest's CPUs by slices).
 */
#define RR_INTERVAL_NS (100 * 1000 * 1000)

long
sys_sched_rr_get_interval(struct thread *td,
    const struct sys_sched_rr_get_interval_args *a)
{
	struct thread *t;
	int64_t ts[2] = { 0, 0 };

	if (a->pid < 0)
		return -EINVAL;
	if ((t = sched_thread(td, a->pid)) == NULL)
		return -ESRCH;
	if (t->sched_policy == SCHED_RR)
		ts[1] = RR_INTERVAL_NS;
	return copyout(td, ts, a->interval, sizeof(ts));
}

/*
 * membarrier.  Each guest thread that is not running guest code right now
 * is stopped by ptrace, and that stop was a context switch: a full barrier.
 * With one host CPU no other thread can be running while the kernel serves
 * the caller, so every barrier holds already; with more, a thread of the
 * caller's process may be running on another CPU, and the host's global
 * barrier makes every CPU pass through one.  The private commands need
 * their registration first (EPERM), which fork keeps and exec drops, as
 * on Linux.
 */
#define MB_QUERY		0x000
#define MB_GLOBAL		0x001
#define MB_GLOBAL_EXPEDITED	0x002
#define MB_PRIVATE_EXPEDITED	0x008
#define MB_SYNC_CORE		0x020
#define MB_RSEQ			0x080
#define MB_GET_REGISTRATIONS	0x200
#define MB_CMDS			0x3ff
#define MB_REGISTER_CMDS	0x154	/* each REGISTER_*: a barrier's << 1 */
#define MB_FLAG_CPU		1	/* RSEQ's: only the given CPU */

long
sys_membarrier(struct thread *td, const struct sys_membarrier_args *a)
{
	struct proc *p = td->proc;
	unsigned cmd = (unsigned)a->cmd;

	if (a->flags != 0 && !(cmd == MB_RSEQ && a->flags == MB_FLAG_CPU))
		return -EINVAL;
	if ((cmd & (cmd - 1)) != 0 || (cmd & ~MB_CMDS))
		return -EINVAL;
	if (cmd == MB_QUERY)
		return MB_CMDS;
	if (cmd == MB_GET_REGISTRATIONS)
		return p->membarrier_reg;
	if (cmd & MB_REGISTER_CMDS) {
		p->membarrier_reg |= cmd;
		return 0;
	}
	if ((cmd & (MB_PRIVATE_EXPEDITED | MB_SYNC_CORE | MB_RSEQ)) &&
	    !(p->membarrier_reg & (cmd << 1)))
		return -EPERM;
	if (p->nthreads > 1 || cmd == MB_GLOBAL || cmd == MB_GLOBAL_EXPEDITED)
		return plat_cpu_barrier();
	return 0;
}

long
sys_personality(struct thread *td, const struct sys_personality_args *a)
{
	unsigned long old = td->proc->personality;

	if (a->persona != 0xffffffffUL)
		td->proc->personality = a->persona;
	return (long)old;
}

/*
 * I/O priorities (ioprio_set, ioprio_get): kept per thread and reported;
 * the host's disk scheduling is unchanged.  A value is a class in bits
 * 13-15 and a level in bits 0-2, with hints between, as Linux's
 * <linux/ioprio.h> packs them into 16 bits.
 */
#define IOPRIO_CLASS(v)		(((v) >> 13) & 7)
#define IOPRIO_LEVEL(v)		((v) & 7)
#define IOPRIO_NONE		0
#define IOPRIO_RT		1
#define IOPRIO_BE		2
#define IOPRIO_IDLE		3
#define IOPRIO_WHO_PROCESS	1
#define IOPRIO_WHO_PGRP		2
#define IOPRIO_WHO_USER		3

/* Linux's ioprio_check_cap(): RT takes CAP_SYS_ADMIN (root's). */
static int
ioprio_check(struct thread *td, int v)
{
	switch (IOPRIO_CLASS(v)) {
	case IOPRIO_RT:
		if (td->proc->cred.euid != 0)
			return -EPERM;
		return 0;
	case IOPRIO_BE:
	case IOPRIO_IDLE:
		return 0;
	case IOPRIO_NONE:
		return IOPRIO_LEVEL(v) != 0 ? -EINVAL : 0;
	}
	return -EINVAL;
}

/*
 * Whether thread t is one which and who name: a thread id, a process
 * group, a user (0: the caller's own).
 */
static bool
ioprio_names(struct thread *td, struct thread *t, int which, int who)
{
	struct proc *p = t->proc;

	if (p->exiting)
		return false;
	switch (which) {
	case IOPRIO_WHO_PROCESS:
		return who == 0 ? t == td : t->tid == who;
	case IOPRIO_WHO_PGRP:
		return p->pgid == (who == 0 ? td->proc->pgid : who);
	}
	return p->cred.uid == (who == 0 ? td->proc->cred.uid : (unsigned)who);
}

/* The next thread after t (NULL: the first) that which and who name. */
static struct thread *
ioprio_next(struct thread *td, int which, int who, struct thread *t)
{
	struct proc *p = t != NULL ? t->proc : proc_first();

	t = t != NULL ? t->tnext : p != NULL ? p->threads : NULL;
	while (p != NULL) {
		for (; t != NULL; t = t->tnext)
			if (ioprio_names(td, t, which, who))
				return t;
		if ((p = p->next) != NULL)
			t = p->threads;
	}
	return NULL;
}

/* What a thread's I/O will get: with none set, best-effort by its nice. */
static int
ioprio_effective(const struct thread *t)
{
	if (IOPRIO_CLASS(t->ioprio) != IOPRIO_NONE)
		return t->ioprio;
	return (IOPRIO_BE << 13) | (t->proc->nice + 20) / 5;
}

long
sys_ioprio_set(struct thread *td, const struct sys_ioprio_set_args *a)
{
	const struct cred *c = &td->proc->cred;
	int v = (uint16_t)a->ioprio, r;
	long found = -ESRCH;
	struct thread *t = NULL;

	if ((r = ioprio_check(td, v)) < 0)
		return r;
	if (a->which < IOPRIO_WHO_PROCESS || a->which > IOPRIO_WHO_USER)
		return -EINVAL;
	while ((t = ioprio_next(td, a->which, a->who, t)) != NULL) {
		/* As Linux's set_task_ioprio(): one's own, or root. */
		if (t->proc->cred.uid != c->euid &&
		    t->proc->cred.uid != c->uid && c->euid != 0)
			return -EPERM;
		t->ioprio = (uint16_t)v;
		found = 0;
	}
	return found;
}

/* One thread's own value; for a group or a user, the best of theirs. */
long
sys_ioprio_get(struct thread *td, const struct sys_ioprio_get_args *a)
{
	long best = -ESRCH;
	struct thread *t = NULL;

	if (a->which < IOPRIO_WHO_PROCESS || a->which > IOPRIO_WHO_USER)
		return -EINVAL;
	while ((t = ioprio_next(td, a->which, a->who, t)) != NULL) {
		if (a->which == IOPRIO_WHO_PROCESS)
			return t->ioprio;
		if (best < 0 || ioprio_effective(t) < best)
			best = ioprio_effective(t);
	}
	return best;
}
