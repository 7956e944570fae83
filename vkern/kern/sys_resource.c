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

/*
 * Whether the caller may read or change q's limits (Linux's
 * check_prlimit_permission()): its own, those of a process whose real,
 * effective and saved ids all equal the caller's real ones, or any with
 * CAP_SYS_RESOURCE (root's).
 */
static bool
prlimit_may(const struct proc *p, const struct proc *q)
{
	const struct cred *c = &p->cred, *t = &q->cred;

	if (p == q || c->euid == 0)
		return true;
	return c->uid == t->uid && c->uid == t->euid && c->uid == t->suid &&
	    c->gid == t->gid && c->gid == t->egid && c->gid == t->sgid;
}

static int
kern_prlimit(struct thread *td, int pid, int res, const struct rlim64 *nw,
    struct rlim64 *old)
{
	struct thread *t = pid == 0 ? td : thread_find(pid);
	struct proc *q;

	if (res < 0 || res >= VK_RLIM_NLIMITS)
		return -EINVAL;
	if (nw != NULL && nw->cur > nw->max)
		return -EINVAL;
	if (nw != NULL && res == RLIMIT_NOFILE && nw->max > NR_OPEN_MAX)
		return -EPERM;
	if (t == NULL || t->proc->exiting)
		return -ESRCH;
	q = t->proc;
	if (!prlimit_may(td->proc, q))
		return -EPERM;
	if (old != NULL)
		*old = q->rlim[res];
	if (nw == NULL)
		return 0;
	/* Raising the hard limit takes the caller's CAP_SYS_RESOURCE. */
	if (nw->max > q->rlim[res].max && td->proc->cred.euid != 0)
		return -EPERM;
	q->rlim[res] = *nw;
	if (res == RLIMIT_CPU || res == RLIMIT_RTTIME)
		cpu_timers_arm(q);
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
