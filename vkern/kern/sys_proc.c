/*
 * Process identity and ending: exit, exit_group, getpid, getppid, gettid,
 * set_tid_address, set_robust_list, get_robust_list.
 *
 * exit ends the calling thread, and the process with its last thread;
 * exit_group ends them all.  A thread that ends alone clears the word
 * set_tid_address named and wakes its futex, and releases the robust
 * futexes it holds (proc_thread_exit).
 */
#include <errno.h>
#include <linux/futex.h>
#include <linux/wait.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"

void
kern_exit_group(struct thread *td, int status)
{
	proc_exit(td->proc, (status & 0xff) << 8);
}

long
sys_exit(struct thread *td, const struct sys_exit_args *a)
{
	syscall_trace_noreturn(td, "exit", a->status);
	if (td->proc->nthreads > 1)
		proc_thread_exit(td);
	else
		kern_exit_group(td, a->status);
	return 0;
}

long
sys_exit_group(struct thread *td, const struct sys_exit_group_args *a)
{
	syscall_trace_noreturn(td, "exit_group", a->status);
	kern_exit_group(td, a->status);
	return 0;
}

long
sys_getpid(struct thread *td, const struct sys_getpid_args *a)
{
	return td->proc->pid;
}

long
sys_getppid(struct thread *td, const struct sys_getppid_args *a)
{
	return td->proc->ppid;
}

long
sys_gettid(struct thread *td, const struct sys_gettid_args *a)
{
	return td->tid;
}

long
sys_set_tid_address(struct thread *td, const struct sys_set_tid_address_args *a)
{
	td->clear_child_tid = a->tidptr.va;
	return td->tid;
}

long
sys_set_robust_list(struct thread *td, const struct sys_set_robust_list_args *a)
{
	if (a->len != sizeof(struct robust_list_head))
		return -EINVAL;
	td->robust_list = a->head.va;
	td->robust_len = a->len;
	return 0;
}

long
sys_get_robust_list(struct thread *td, const struct sys_get_robust_list_args *a)
{
	struct thread *t = a->pid == 0 ? td : thread_find(a->pid);
	uint64_t len;

	if (t == NULL)
		return -ESRCH;
	if (!proc_may_trace(td->proc, t->proc, false))
		return -EPERM;
	len = sizeof(struct robust_list_head);
	if (copyout(td, &t->robust_list, a->head, sizeof(uint64_t)) < 0 ||
	    copyout(td, &len, a->len, sizeof(len)) < 0)
		return -EFAULT;
	return 0;
}

/* --- process groups and sessions --- */

long
sys_getpgrp(struct thread *td, const struct sys_getpgrp_args *a)
{
	return td->proc->pgid;
}

static struct proc *
proc_arg(struct thread *td, int pid)
{
	return pid == 0 ? td->proc : proc_find(pid);
}

long
sys_getpgid(struct thread *td, const struct sys_getpgid_args *a)
{
	struct proc *p;

	if (a->pid < 0 || (p = proc_arg(td, a->pid)) == NULL || p->exiting)
		return -ESRCH;
	return p->pgid;
}

long
sys_getsid(struct thread *td, const struct sys_getsid_args *a)
{
	struct proc *p;

	if (a->pid < 0 || (p = proc_arg(td, a->pid)) == NULL || p->exiting)
		return -ESRCH;
	return p->sid;
}

/*
 * setpgid(2): a process may move itself (or, later, a child that has
 * not exec'd) into a group of its own session; a session leader cannot.
 */
long
sys_setpgid(struct thread *td, const struct sys_setpgid_args *a)
{
	struct proc *p = td->proc, *t;
	int pgid = a->pgid == 0 ? (a->pid == 0 ? p->pid : a->pid) : a->pgid;

	if (a->pid < 0 || a->pgid < 0)
		return -EINVAL;
	if ((t = proc_arg(td, a->pid)) == NULL || t->exiting)
		return -ESRCH;
	if (t != p && t->ppid != p->pid)
		return -ESRCH;
	if (t->sid == t->pid)
		return -EPERM;
	if (pgid != t->pid) {
		bool found = false;

		for (struct proc *q = proc_first(); q != NULL; q = q->next)
			if (q->pgid == pgid && q->sid == t->sid)
				found = true;
		if (!found)
			return -EPERM;
	}
	t->pgid = pgid;
	return 0;
}

long
sys_setsid(struct thread *td, const struct sys_setsid_args *a)
{
	struct proc *p = td->proc;

	/* A process group leader may not start a session. */
	for (struct proc *q = proc_first(); q != NULL; q = q->next)
		if (q->pgid == p->pid)
			return -EPERM;
	p->sid = p->pgid = p->pid;
	p->ctty = NULL;    /* a new session has no terminal */
	return p->sid;
}

/* --- resource usage --- */

/*
 * The fields the kernel keeps (cputime.c): user and system time, the
 * largest resident size, page faults the kernel served as ru_minflt and
 * syscalls that waited as ru_nvcsw.  The rest read zero: no major faults
 * (file pages come from the kernel's cache), block I/O or IPC counts, and
 * no involuntary switches (the host's are not the guest's).
 */
long
sys_getrusage(struct thread *td, const struct sys_getrusage_args *a)
{
	struct kru ru;

	if (a->who != RUSAGE_SELF && a->who != RUSAGE_CHILDREN &&
	    a->who != RUSAGE_THREAD)
		return -EINVAL;
	cpu_rusage(td, td->proc, a->who, &ru);
	return cpu_rusage_out(td, &ru, a->ru);
}

/* times(2) counts in clock ticks of USER_HZ, 100 a second on x86-64. */
#define USER_HZ_NS 10000000

long
sys_times(struct thread *td, const struct sys_times_args *a)
{
	struct kru self, ch;
	int64_t t[4];
	int r;

	cpu_rusage(td, td->proc, RUSAGE_SELF, &self);
	cpu_rusage(td, td->proc, RUSAGE_CHILDREN, &ch);
	t[0] = self.user / USER_HZ_NS;
	t[1] = self.sys / USER_HZ_NS;
	t[2] = ch.user / USER_HZ_NS;
	t[3] = ch.sys / USER_HZ_NS;
	if (a->buf.va != 0 && (r = copyout(td, t, a->buf, sizeof(t))) < 0)
		return r;
	return (long)(plat_clock_ns(CLOCK_BOOTTIME) / USER_HZ_NS);
}
