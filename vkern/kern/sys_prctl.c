/*
 * prctl: the process attributes programs commonly ask for.
 *
 * Names, the dumpable flag, no_new_privs and the parent-death signal are
 * kept per process (the signal is sent when the parent process exits); the capability bounding set is read from the guest's
 * credentials.  Other options give EINVAL, as an older kernel would.
 */
#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/vm/copyio.h"

static long
prctl_name(struct thread *td, int option, uaddr_t u)
{
	struct proc *p = td->proc;
	char name[16];
	long n;

	if (option == PR_GET_NAME)
		return copyout(td, p->comm, u, sizeof(p->comm));
	n = copyinstr(td, u, name, sizeof(name));
	if (n == -ENAMETOOLONG) {
		/* Linux keeps the first 15 bytes of a longer name. */
		if ((n = copyin(td, u, name, sizeof(name) - 1)) < 0)
			return n;
		name[sizeof(name) - 1] = '\0';
	} else if (n < 0) {
		return n;
	}
	memcpy(p->comm, name, sizeof(p->comm));
	return 0;
}

long
sys_prctl(struct thread *td, const struct sys_prctl_args *a)
{
	struct proc *p = td->proc;

	switch (a->option) {
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
