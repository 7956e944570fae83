/*
 * Resource limits: prlimit64, getrlimit, setrlimit.
 *
 * The limits are kept per process with Linux's defaults and rules for
 * changing them; each subsystem enforces its own (RLIMIT_CPU: cputime.c).
 */
#include <errno.h>
#include <sys/resource.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/vm/copyio.h"

#define NR_OPEN_MAX 1048576	/* fs.nr_open's default */

static int
kern_prlimit(struct thread *td, int pid, int res, const struct rlim64 *nw,
    struct rlim64 *old)
{
	struct proc *p = td->proc;

	if (res < 0 || res >= VK_RLIM_NLIMITS)
		return -EINVAL;
	if (pid != 0 && pid != p->pid)
		return -ESRCH;
	if (old != NULL)
		*old = p->rlim[res];
	if (nw == NULL)
		return 0;
	if (nw->cur > nw->max)
		return -EINVAL;
	if (res == RLIMIT_NOFILE && nw->max > NR_OPEN_MAX)
		return -EPERM;
	/* Raising the hard limit takes CAP_SYS_RESOURCE: root's. */
	if (nw->max > p->rlim[res].max && p->cred.euid != 0)
		return -EPERM;
	p->rlim[res] = *nw;
	if (res == RLIMIT_CPU)
		cpu_timers_arm(p);
	return 0;
}

long
sys_prlimit64(struct thread *td, const struct sys_prlimit64_args *a)
{
	struct rlim64 nw, old;
	int r;

	if (a->rnew.va != 0 && (r = copyin(td, a->rnew, &nw, sizeof(nw))) < 0)
		return r;
	if ((r = kern_prlimit(td, a->pid, a->resource,
	    a->rnew.va != 0 ? &nw : NULL, &old)) < 0)
		return r;
	if (a->rold.va != 0)
		return copyout(td, &old, a->rold, sizeof(old));
	return 0;
}

long
sys_getrlimit(struct thread *td, const struct sys_getrlimit_args *a)
{
	struct rlim64 old;
	int r;

	if ((r = kern_prlimit(td, 0, a->resource, NULL, &old)) < 0)
		return r;
	return copyout(td, &old, a->rlim, sizeof(old));
}

long
sys_setrlimit(struct thread *td, const struct sys_setrlimit_args *a)
{
	struct rlim64 nw;
	int r;

	if ((r = copyin(td, a->rlim, &nw, sizeof(nw))) < 0)
		return r;
	return kern_prlimit(td, 0, a->resource, &nw, NULL);
}
