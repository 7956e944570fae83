/*
 * Process identity and ending: exit, exit_group, getpid, getppid, gettid,
 * set_tid_address, set_robust_list.
 *
 * With one thread per process, exit and exit_group both end the process.
 * The addresses given to set_tid_address and set_robust_list are kept for
 * the thread's exit (the futex wake and robust-list walk come with
 * threads, #5).
 */
#include <errno.h>
#include <linux/futex.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"

void
kern_exit_group(struct thread *td, int status)
{
	proc_exit(td->proc, (status & 0xff) << 8);
}

long
sys_exit(struct thread *td, const struct sys_exit_args *a)
{
	syscall_trace_noreturn(td, "exit", a->status);
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
