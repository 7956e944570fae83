/*
 * pidfds: pidfd_open, pidfd_send_signal (which takes an open /proc/PID
 * too), and waitid's P_PIDFD.
 *
 * A pidfd names a process by its pid, looked up again on each use, so it
 * never holds a freed process; it polls readable once the process has
 * exited, as Linux's do.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/procfs/procfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

#define PIDFD_NONBLOCK_ O_NONBLOCK

static short
pidfd_poll(struct file *fp)
{
	struct proc *p = proc_find((int)(intptr_t)fp->data);

	return p == NULL || p->exiting ? POLLIN : 0;
}

static const struct file_ops pidfd_fileops = {
	.read = anon_read_einval,
	.write = anon_write_einval,
	.stat = anon_stat,
	.poll = pidfd_poll,
};

int
pidfd_pid(struct thread *td, int fd)
{
	struct file *fp = fd_get(td->proc->fdt, fd);

	if (fp == NULL)
		return -EBADF;
	/* As Linux's pidfd_to_pid(): any other file is a bad pidfd. */
	if (fp->ops != &pidfd_fileops)
		return -EBADF;
	return (int)(intptr_t)fp->data;
}

long
sys_pidfd_open(struct thread *td, const struct sys_pidfd_open_args *a)
{
	struct proc *p;
	struct file *fp;

	if (a->flags & ~(unsigned)PIDFD_NONBLOCK_)
		return -EINVAL;
	if (a->pid <= 0)
		return -EINVAL;
	/* A zombie has a pidfd too: it is readable at once. */
	if ((p = proc_find(a->pid)) == NULL)
		return -ESRCH;
	fp = file_alloc(&pidfd_fileops, NULL, O_RDWR | (a->flags &
	    PIDFD_NONBLOCK_), "anon_inode:[pidfd]");
	fp->data = (void *)(intptr_t)a->pid;
	return fd_alloc(td->proc->fdt, fp, 0, proc_nofile(td->proc), true);
}

/* A pidfd's pid, or that of an open /proc/PID directory, as Linux's. */
static int
signal_target(struct thread *td, int fd)
{
	struct file *fp = fd_get(td->proc->fdt, fd);
	int pid;

	if (fp != NULL && fp->ops != &pidfd_fileops &&
	    (pid = procfs_pid_dir(fp->vn)) > 0)
		return pid;
	return pidfd_pid(td, fd);
}

long
sys_pidfd_send_signal(struct thread *td,
    const struct sys_pidfd_send_signal_args *a)
{
	struct proc *to;
	uint8_t info[128];
	int pid, r;

	if (a->flags != 0)
		return -EINVAL;
	if ((pid = signal_target(td, a->pidfd)) < 0)
		return pid;
	if (a->info.va != 0) {
		int code, signo;

		if ((r = copyin(td, a->info, info, sizeof(info))) < 0)
			return r;
		memcpy(&signo, info, 4);
		memcpy(&code, info + 8, 4);
		if (signo != a->sig)
			return -EINVAL;
		/* Only to itself may a process claim a kernel or tkill. */
		if ((code >= 0 || code == SI_TKILL) && pid != td->proc->pid)
			return -EPERM;
	} else {
		sig_info_user(info, a->sig, SI_USER, td->proc->pid,
		    td->proc->cred.uid);
	}
	if ((to = proc_find(pid)) == NULL)
		return -ESRCH;
	/* A zombie may be signalled until it is reaped, to no effect. */
	if ((r = sig_may_send(td->proc, to, a->sig)) < 0 ||
	    sig_send_dropped(td->proc, to, a->sig) || to->exiting)
		return r;
	return sig_post(to->main, a->sig, info, 0);
}
