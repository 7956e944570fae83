/*
 * Signal state and sending: rt_sigaction, rt_sigprocmask, kill, tkill,
 * tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo.
 *
 * The actions (per process) and the masks (per thread) are kept as Linux
 * keeps them, with its checks.  Delivery is kern_sig.c's.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "arch/x86/sigframe.h"
#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"

#define UNBLOCKABLE SIG_UNBLOCKABLE

/* The sa_flags bits x86-64 Linux keeps; it clears the rest (5.11+). */
#define SA_EXPOSE_TAGBITS_ 0x00000800
#define SA_KNOWN (SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | SA_ONSTACK | \
    SA_RESTART | SA_NODEFER | SA_RESETHAND | SA_EXPOSE_TAGBITS_ | \
    VK_SA_RESTORER)

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
	old = p->sighand->act[a->sig - 1];
	if (a->act.va != 0) {
		nw.mask &= ~UNBLOCKABLE;
		nw.flags &= SA_KNOWN;
		p->sighand->act[a->sig - 1] = nw;
		sig_discard(p, a->sig);
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

/* --- sending --- */

/*
 * Whether from may send sig to to, checked as Linux does once it found
 * the target (so that a missing target is ESRCH whatever the signal): a
 * signal number in 0..64, then kill(2)'s permission: root, a real or
 * effective uid that matches, or SIGCONT within the sender's session.
 * Returns 0, -EINVAL or -EPERM.
 */
int
sig_may_send(const struct proc *from, const struct proc *to, int sig)
{
	if (sig < 0 || sig > VK_NSIG)
		return -EINVAL;
	if (sig == SIGCONT && from->sid == to->sid)
		return 0;
	return sig_uids_may_send(from->cred.uid, from->cred.euid, to) ? 0 :
	    -EPERM;
}

bool
sig_uids_may_send(uint32_t uid, uint32_t euid, const struct proc *to)
{
	return euid == 0 || uid == to->cred.uid || uid == to->cred.suid ||
	    euid == to->cred.uid || euid == to->cred.suid;
}

/*
 * As pid_namespaces(7): "Only signals for which the init process has
 * established a signal handler can be sent to the init process by other
 * members of the PID namespace", root's too, SIGKILL and SIGSTOP never;
 * the sandbox is such a namespace and pid 1 its init.  Its own signals,
 * and the kernel's (a fault, a timer, the terminal, --timeout), still
 * reach it.
 */
bool
sig_send_dropped(const struct proc *from, const struct proc *to, int sig)
{
	if (sig == 0)
		return true;
	return to->pid == 1 && from != to &&
	    to->sighand->act[sig - 1].handler == (uint64_t)(uintptr_t)SIG_DFL;
}

static int
send_proc(struct thread *td, struct proc *to, int sig)
{
	uint8_t info[128];
	int r;

	/*
	 * A zombie is there to be signalled, as on Linux, until it is
	 * waited for (kill(pid, 0) is how a parent sees a child still
	 * unreaped); the signal itself reaches no one.
	 */
	if ((r = sig_may_send(td->proc, to, sig)) < 0 ||
	    sig_send_dropped(td->proc, to, sig) || to->exiting)
		return r;
	sig_info_user(info, sig, SI_USER, td->proc->pid, td->proc->cred.uid);
	sig_post(to->main, sig, info, 0);
	return 0;
}

/*
 * kill: one process, a process group (0 is the caller's), or with -1
 * every process the caller may signal but init.
 */
long
sys_kill(struct thread *td, const struct sys_kill_args *a)
{
	struct proc *p = td->proc, *t;
	int pgid, sent = 0, r = -ESRCH;

	if (a->pid > 0) {
		t = proc_find(a->pid);
		return t == NULL ? -ESRCH : send_proc(td, t, a->sig);
	}
	/* No group has the id -INT_MIN, which an int cannot hold. */
	if (a->pid == INT_MIN)
		return -ESRCH;
	pgid = a->pid == 0 ? p->pgid : -a->pid;
	for (t = proc_first(); t != NULL; t = t->next) {
		/* -1 is everyone but init and the caller, as on Linux. */
		if (a->pid == -1 ? t->pid == 1 || t == p : t->pgid != pgid)
			continue;
		if ((r = send_proc(td, t, a->sig)) == 0)
			sent++;
	}
	return sent > 0 ? 0 : r;
}

/*
 * The thread tid, in process tgid unless tgid is 0, and its process.  A
 * process's first thread is there to be signalled until the process is
 * reaped, as Linux's zombie group leader: then *tp is NULL, for a signal
 * that reaches no one.
 */
static long
thread_arg(int tgid, int tid, struct proc **pp, struct thread **tp)
{
	struct thread *t = thread_find(tid);
	struct proc *p;

	if (t != NULL && !t->proc->exiting) {
		if (tgid != 0 && t->proc->pid != tgid)
			return -ESRCH;
		*pp = t->proc;
		*tp = t;
		return 0;
	}
	if ((p = proc_find(tid)) == NULL || (tgid != 0 && tgid != tid))
		return -ESRCH;
	*pp = p;
	*tp = NULL;
	return 0;
}

/* tkill and tgkill: to one thread, with SI_TKILL. */
static long
send_thread(struct thread *td, int tgid, int tid, int sig)
{
	uint8_t info[128];
	struct thread *t;
	struct proc *p;
	long r;

	if (tid <= 0)
		return -EINVAL;
	if ((r = thread_arg(tgid, tid, &p, &t)) < 0 ||
	    (r = sig_may_send(td->proc, p, sig)) < 0 ||
	    sig_send_dropped(td->proc, p, sig) || t == NULL)
		return r;
	sig_info_user(info, sig, SI_TKILL, td->proc->pid, td->proc->cred.uid);
	sig_post(t, sig, info, SIGPOST_THREAD);
	return 0;
}

long
sys_tgkill(struct thread *td, const struct sys_tgkill_args *a)
{
	if (a->tgid <= 0)
		return -EINVAL;
	return send_thread(td, a->tgid, a->tid, a->sig);
}

long
sys_tkill(struct thread *td, const struct sys_tkill_args *a)
{
	return send_thread(td, 0, a->tid, a->sig);
}

/*
 * The siginfo of rt_[tg]sigqueueinfo, read before any check as Linux
 * does.  Only the kernel may claim to be the kernel or a tkill, except
 * to the caller itself (Linux compares the target id with the caller's
 * thread id).
 */
static long
queue_info(struct thread *td, uaddr_t uinfo, int sig, int to,
    uint8_t info[128])
{
	int code;
	long r;

	if ((r = copyin(td, uinfo, info, 128)) < 0)
		return r;
	memcpy(&code, info + 8, 4);
	if ((code >= 0 || code == SI_TKILL) && to != td->tid)
		return -EPERM;
	memcpy(info, &sig, 4);
	return 0;
}

long
sys_rt_sigqueueinfo(struct thread *td,
    const struct sys_rt_sigqueueinfo_args *a)
{
	uint8_t info[128];
	struct proc *to;
	long r;

	if ((r = queue_info(td, a->info, a->sig, a->pid, info)) < 0)
		return r;
	if ((to = proc_find(a->pid)) == NULL)
		return -ESRCH;
	/* A zombie may be signalled, as with kill, to no effect. */
	if ((r = sig_may_send(td->proc, to, a->sig)) < 0 ||
	    sig_send_dropped(td->proc, to, a->sig) || to->exiting)
		return r;
	return sig_post(to->main, a->sig, info, 0);
}

long
sys_rt_tgsigqueueinfo(struct thread *td,
    const struct sys_rt_tgsigqueueinfo_args *a)
{
	uint8_t info[128];
	struct thread *t;
	struct proc *p;
	long r;

	if (a->tgid <= 0 || a->tid <= 0)
		return -EINVAL;
	if ((r = queue_info(td, a->info, a->sig, a->tid, info)) < 0 ||
	    (r = thread_arg(a->tgid, a->tid, &p, &t)) < 0 ||
	    (r = sig_may_send(td->proc, p, a->sig)) < 0 ||
	    sig_send_dropped(td->proc, p, a->sig) || t == NULL)
		return r;
	return sig_post(t, a->sig, info, SIGPOST_THREAD);
}

long
sys_rt_sigpending(struct thread *td, const struct sys_rt_sigpending_args *a)
{
	uint64_t set = sig_pending_set(td) & td->sigmask;

	if (a->sigsetsize > sizeof(uint64_t))
		return -EINVAL;
	return copyout(td, &set, a->set, a->sigsetsize);
}

/* --- waiting for a signal --- */

static long
sigsuspend_cont(struct thread *td)
{
	return -EPARKED;
}

long
sys_rt_sigsuspend(struct thread *td, const struct sys_rt_sigsuspend_args *a)
{
	uint64_t mask;
	int r;

	if (a->sigsetsize != sizeof(uint64_t))
		return -EINVAL;
	if ((r = copyin(td, a->mask, &mask, sizeof(mask))) < 0)
		return r;
	td->saved_mask = td->sigmask;
	td->has_saved_mask = true;
	td->sigmask = mask & ~UNBLOCKABLE;
	/* A signal already pending and now unblocked ends it at once. */
	if (sig_pending_set(td) & ~td->sigmask)
		return -EINTR;
	td->wait = (struct wait){ .cont = sigsuspend_cont, .deadline = -1,
	    .console_fd = -1 };
	return -EPARKED;
}

/* --- the alternate stack --- */

#define SS_AUTODISARM_ (1U << 31)
#define MINSIGSTKSZ_ 2048

long
sys_sigaltstack(struct thread *td, const struct sys_sigaltstack_args *a)
{
	struct arch_stack nw, old;
	uint64_t sp;
	bool on;
	int r;

	plat_thread_regs_load(td->pt);
	sp = td->ctx.regs.rsp;
	on = td->altstack_size != 0 && sp > td->altstack_sp &&
	    sp <= td->altstack_sp + td->altstack_size;
	old = (struct arch_stack){ td->altstack_sp, on ? SS_ONSTACK :
	    (td->altstack_size == 0 ? SS_DISABLE : td->altstack_flags), 0,
	    td->altstack_size };
	if (a->ss.va != 0) {
		if ((r = copyin(td, a->ss, &nw, sizeof(nw))) < 0)
			return r;
		if (on)
			return -EPERM;
		if (((unsigned)nw.ss_flags & ~SS_AUTODISARM_) != 0 &&
		    nw.ss_flags != SS_DISABLE)
			return -EINVAL;
		if (nw.ss_flags == SS_DISABLE) {
			sig_altstack_off(td);
		} else {
			if (nw.ss_size < MINSIGSTKSZ_)
				return -ENOMEM;
			td->altstack_sp = nw.ss_sp;
			td->altstack_size = nw.ss_size;
			td->altstack_flags = nw.ss_flags;
		}
	}
	if (a->oss.va != 0)
		return copyout(td, &old, a->oss, sizeof(old));
	return 0;
}

/* --- returning from a handler --- */

long
sys_rt_sigreturn(struct thread *td, const struct sys_rt_sigreturn_args *a)
{
	static uint8_t fpu[VK_FPU_MAX];
	struct arch_rt_sigframe frame;
	uint64_t va;
	bool ok;

	plat_thread_regs_load(td->pt);
	va = td->ctx.regs.rsp - 8;
	/* A frame that cannot be read or restored costs the guest a SIGSEGV
	 * (forced, so that it cannot loop); the vkernel is unharmed. */
	if (copyin(td, UADDR(va), &frame, sizeof(frame)) < 0)
		goto bad;
	if (frame.uc.uc_mcontext.fpstate != 0 && td->fpu_size > 0 &&
	    td->fpu_size <= sizeof(fpu) &&
	    (copyin(td, UADDR(frame.uc.uc_mcontext.fpstate), fpu,
	    td->fpu_size) < 0 ||
	    !arch_fpu_frame_aligned(frame.uc.uc_mcontext.fpstate, fpu) ||
	    plat_thread_fpu_set(td->pt, fpu, td->fpu_size) < 0))
		goto bad;
	ok = arch_sigreturn_regs(&td->ctx, &frame);
	td->sigmask = frame.uc.uc_sigmask & ~UNBLOCKABLE;
	if (frame.uc.uc_stack.ss_flags != SS_ONSTACK) {
		td->altstack_sp = frame.uc.uc_stack.ss_sp;
		td->altstack_size = frame.uc.uc_stack.ss_size;
		td->altstack_flags = frame.uc.uc_stack.ss_flags;
	}
	/* Selectors the return cannot load: Linux's iret faults after the
	 * registers and the mask are back.  Otherwise the registers are the
	 * frame's, rax too, whatever it holds. */
	if (ok)
		return -EJUSTRETURN_;
bad:
	{
		uint8_t info[128];

		sig_info_fault(info, SIGSEGV, SI_KERNEL, 0);
		sig_post(td, SIGSEGV, info, SIGPOST_FORCE | SIGPOST_THREAD);
	}
	return -EJUSTRETURN_;
}

long
sys_rt_sigtimedwait(struct thread *td,
    const struct sys_rt_sigtimedwait_args *a)
{
	int64_t deadline;
	uint64_t set;
	int r;

	if (a->sigsetsize != sizeof(uint64_t))
		return -EINVAL;
	if ((r = copyin(td, a->set, &set, sizeof(set))) < 0)
		return r;
	if ((r = ts_deadline(td, a->timeout, &deadline)) < 0)
		return r;
	return kern_sigtimedwait(td, set, a->info, deadline);
}

static long
pause_cont(struct thread *td)
{
	return -EPARKED;
}

long
sys_pause(struct thread *td, const struct sys_pause_args *a)
{
	td->wait = (struct wait){ .cont = pause_cont, .deadline = -1,
	    .console_fd = -1 };
	return -EPARKED;
}
