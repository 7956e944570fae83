/*
 * Signal state: rt_sigaction, rt_sigprocmask.
 *
 * The actions and the mask are kept as Linux keeps them, with its checks.
 * Delivery (frames, handlers, rt_sigreturn) comes with #4; until then a
 * signal the kernel raises against a guest takes its default action.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/vm/copyio.h"

#define SIGBIT(s) (1ULL << ((s) - 1))
#define UNBLOCKABLE (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))

/* The sa_flags bits x86-64 Linux keeps; it clears the rest (5.11+). */
#define SA_EXPOSE_TAGBITS_ 0x00000800
#define SA_RESTORER_ 0x04000000
#define SA_KNOWN (SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | SA_ONSTACK | \
    SA_RESTART | SA_NODEFER | SA_RESETHAND | SA_EXPOSE_TAGBITS_ | \
    SA_RESTORER_)

long
sys_rt_sigaction(struct thread *td, const struct sys_rt_sigaction_args *a)
{
	struct proc *p = td->proc;
	struct sigact nw, old;
	int r;

	if (a->sigsetsize != sizeof(uint64_t))
		return -EINVAL;
	if (a->sig < 1 || a->sig > VK_NSIG)
		return -EINVAL;
	if (a->act.va != 0) {
		if (a->sig == SIGKILL || a->sig == SIGSTOP)
			return -EINVAL;
		if ((r = copyin(td, a->act, &nw, sizeof(nw))) < 0)
			return r;
	}
	old = p->sigact[a->sig - 1];
	if (a->act.va != 0) {
		nw.mask &= ~UNBLOCKABLE;
		nw.flags &= SA_KNOWN;
		p->sigact[a->sig - 1] = nw;
	}
	if (a->oact.va != 0)
		return copyout(td, &old, a->oact, sizeof(old));
	return 0;
}

long
sys_rt_sigprocmask(struct thread *td, const struct sys_rt_sigprocmask_args *a)
{
	uint64_t old = td->sigmask, set;
	int r;

	if (a->sigsetsize != sizeof(uint64_t))
		return -EINVAL;
	if (a->set.va != 0) {
		if ((r = copyin(td, a->set, &set, sizeof(set))) < 0)
			return r;
		set &= ~UNBLOCKABLE;
		switch (a->how) {
		case SIG_BLOCK:
			td->sigmask |= set;
			break;
		case SIG_UNBLOCK:
			td->sigmask &= ~set;
			break;
		case SIG_SETMASK:
			td->sigmask = set;
			break;
		default:
			return -EINVAL;
		}
	}
	if (a->oset.va != 0)
		return copyout(td, &old, a->oset, sizeof(old));
	return 0;
}
