/*
 * prctl: the process attributes programs commonly ask for.
 *
 * Names, the dumpable flag, no_new_privs and the parent-death signal are
 * kept per process (the signal is sent when the parent process exits);
 * the capability sets are read from the guest's credentials.  Timer
 * slack, keepcaps, the THP and machine-check policies are kept and
 * reported: the host's behaviour does not change with them.  Other
 * options give EINVAL, as a kernel without them would.
 */
#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/vm/copyio.h"

static long
prctl_name(struct thread *td, int option, uaddr_t u)
{
	char name[16];
	long n;

	if (option == PR_GET_NAME)
		return copyout(td, td->comm, u, sizeof(td->comm));
	n = copyinstr(td, u, name, sizeof(name));
	if (n == -ENAMETOOLONG) {
		/* Linux keeps the first 15 bytes of a longer name. */
		if ((n = copyin(td, u, name, sizeof(name) - 1)) < 0)
			return n;
		name[sizeof(name) - 1] = '\0';
	} else if (n < 0) {
		return n;
	}
	thread_set_comm(td, name, strlen(name));
	return 0;
}

#define TIMERSLACK_DEFAULT 50000   /* ns */

/* PR_CAP_AMBIENT: the guest holds no ambient capability, and may add none. */
static long
prctl_ambient(const struct sys_prctl_args *a)
{
	if (a->arg4 != 0 || a->arg5 != 0)
		return -EINVAL;
	switch (a->arg2) {
	case PR_CAP_AMBIENT_CLEAR_ALL:
		return a->arg3 != 0 ? -EINVAL : 0;
	case PR_CAP_AMBIENT_IS_SET:
	case PR_CAP_AMBIENT_RAISE:
	case PR_CAP_AMBIENT_LOWER:
		if (a->arg3 > CAP_LAST_CAP)
			return -EINVAL;
		return a->arg2 == PR_CAP_AMBIENT_RAISE ? -EPERM : 0;
	}
	return -EINVAL;
}

static long
prctl_mce_kill(struct proc *p, const struct sys_prctl_args *a)
{
	if (a->arg4 != 0 || a->arg5 != 0)
		return -EINVAL;
	switch (a->arg2) {
	case PR_MCE_KILL_CLEAR:
		if (a->arg3 != 0)
			return -EINVAL;
		p->mce_kill = 0;
		return 0;
	case PR_MCE_KILL_SET:
		if (a->arg3 != PR_MCE_KILL_EARLY && a->arg3 != PR_MCE_KILL_LATE &&
		    a->arg3 != PR_MCE_KILL_DEFAULT)
			return -EINVAL;
		p->mce_kill = a->arg3 == PR_MCE_KILL_DEFAULT ? 0 :
		    (int)a->arg3 + 1;
		return 0;
	}
	return -EINVAL;
}

long
sys_prctl(struct thread *td, const struct sys_prctl_args *a)
{
	struct proc *p = td->proc;

	switch (a->option) {
	case PR_GET_KEEPCAPS:
		return p->keepcaps;
	case PR_SET_KEEPCAPS:
		if (a->arg2 > 1)
			return -EINVAL;
		p->keepcaps = a->arg2 == 1;
		return 0;
	case PR_GET_SECCOMP:
		return 0;   /* no guest filters: SECCOMP_MODE_DISABLED */
	case PR_GET_SECUREBITS:
		return 0;
	case PR_GET_TIMERSLACK:
		return td->timerslack_ns != 0 ? (long)td->timerslack_ns :
		    TIMERSLACK_DEFAULT;
	case PR_SET_TIMERSLACK:
		td->timerslack_ns = a->arg2;
		return 0;
	case PR_MCE_KILL:
		return prctl_mce_kill(p, a);
	case PR_MCE_KILL_GET:
		if (a->arg2 || a->arg3 || a->arg4 || a->arg5)
			return -EINVAL;
		return p->mce_kill == 0 ? PR_MCE_KILL_DEFAULT : p->mce_kill - 1;
	case PR_GET_TID_ADDRESS:
		return copyout(td, &td->clear_child_tid, UADDR(a->arg2),
		    sizeof(td->clear_child_tid));
	case PR_SET_THP_DISABLE:
		if (a->arg3 || a->arg4 || a->arg5)
			return -EINVAL;
		p->thp_disable = a->arg2 != 0;
		return 0;
	case PR_GET_THP_DISABLE:
		if (a->arg2 || a->arg3 || a->arg4 || a->arg5)
			return -EINVAL;
		return p->thp_disable;
	case PR_CAP_AMBIENT:
		return prctl_ambient(a);
	case PR_SET_NAME:
	case PR_GET_NAME:
		return prctl_name(td, a->option, UADDR(a->arg2));
	case PR_GET_DUMPABLE:
		return !p->undumpable;
	case PR_SET_DUMPABLE:
		if (a->arg2 > 1)
			return -EINVAL;
		p->undumpable = a->arg2 == 0;
		return 0;
	case PR_GET_NO_NEW_PRIVS:
		return p->no_new_privs;
	case PR_SET_NO_NEW_PRIVS:
		if (a->arg2 != 1 || a->arg3 || a->arg4 || a->arg5)
			return -EINVAL;
		p->no_new_privs = true;
		return 0;
	case PR_SET_PDEATHSIG:
		if (a->arg2 > VK_NSIG)
			return -EINVAL;
		p->pdeathsig = (int)a->arg2;
		return 0;
	case PR_GET_PDEATHSIG:
		return copyout(td, &p->pdeathsig, UADDR(a->arg2),
		    sizeof(p->pdeathsig));
	case PR_SET_CHILD_SUBREAPER:
		p->subreaper = a->arg2 != 0;
		return 0;
	case PR_GET_CHILD_SUBREAPER: {
		int v = p->subreaper;

		return copyout(td, &v, UADDR(a->arg2), sizeof(v));
	}
	case PR_CAPBSET_READ:
		if (a->arg2 > CAP_LAST_CAP)
			return -EINVAL;
		return 1;
	}
	return -EINVAL;
}
