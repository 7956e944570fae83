/*
 * Signal delivery.
 *
 * A signal is made pending on the process with its siginfo; before a
 * thread is resumed, its unblocked pending signals are taken in order:
 * ignored, a default action (terminate, terminate with core, ignore;
 * stop and continue come with job control, #5), or a handler, for which
 * the x86-64 frame is written onto the guest's stack (or its alternate
 * stack) with the registers and the FPU state of the moment.  A thread
 * parked in a syscall is woken: the call fails with EINTR, or with
 * SA_RESTART is made to run again when the handler returns.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86/sigframe.h"
#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"

enum sigdfl { DFL_TERM, DFL_CORE, DFL_IGN, DFL_STOP };

/* The thread whose syscall or fault the kernel is handling, if any. */
struct thread *curthread;

static enum sigdfl
sig_default(int sig)
{
	switch (sig) {
	case SIGQUIT: case SIGILL: case SIGTRAP: case SIGABRT: case SIGBUS:
	case SIGFPE: case SIGSEGV: case SIGXCPU: case SIGXFSZ: case SIGSYS:
		return DFL_CORE;
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
		return DFL_IGN;
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return DFL_STOP;
	}
	return DFL_TERM;
}

void
sig_info_user(uint8_t info[128], int signo, int code, int pid, uint32_t uid)
{
	memset(info, 0, 128);
	memcpy(info, &signo, 4);
	memcpy(info + 8, &code, 4);
	memcpy(info + 16, &pid, 4);
	memcpy(info + 20, &uid, 4);
}

void
sig_info_fault(uint8_t info[128], int signo, int code, uint64_t addr)
{
	memset(info, 0, 128);
	memcpy(info, &signo, 4);
	memcpy(info + 8, &code, 4);
	memcpy(info + 16, &addr, 8);
}

static bool
sig_ignored(const struct proc *p, int sig)
{
	uint64_t h = p->sigact[sig - 1].handler;

	return h == (uint64_t)(uintptr_t)SIG_IGN ||
	    (h == (uint64_t)(uintptr_t)SIG_DFL && sig_default(sig) == DFL_IGN);
}

/*
 * End a parked syscall because of a signal: EINTR, or, when the handler
 * asks for SA_RESTART and the call can simply run again, back up to the
 * syscall instruction so that it does after the handler.
 */
static void
sig_interrupt(struct thread *td, int sig)
{
	const struct sigact *sa = &td->proc->sigact[sig - 1];

	sched_unpark(td);
	if (td->wait.cancel != NULL)
		td->wait.cancel(td);
	td->state = TD_ONCPU;
	if ((sa->flags & SA_RESTART) && td->wait.cont == syscall_redispatch) {
		td->ctx.regs.rip -= 2;
		td->ctx.regs.rax = td->ctx.regs.orig_rax;
		td->ctx.dirty |= ARCH_DIRTY_ALL;
		sched_setrun(td);
		return;
	}
	syscall_finish(td, -EINTR);
}

void
sig_post(struct thread *td, int signo, const uint8_t info[128], bool force)
{
	struct proc *p = td->proc;
	uint64_t bit = SIGBIT(signo);

	if (force && ((td->sigmask & bit) || p->sigact[signo - 1].handler ==
	    (uint64_t)(uintptr_t)SIG_IGN)) {
		td->sigmask &= ~bit;
		p->sigact[signo - 1].handler = (uint64_t)(uintptr_t)SIG_DFL;
	}
	if (sig_ignored(p, signo) && signo != SIGKILL)
		return;
	if (!(p->sigpending & bit))
		memcpy(p->siginfo[signo - 1], info, 128);
	p->sigpending |= bit;
	if (!(td->sigmask & bit) || signo == SIGKILL) {
		if (td->state == TD_PARKED)
			sig_interrupt(td, signo);
		else if (td->state == TD_ONCPU && td != curthread)
			plat_thread_interrupt(td->pt);
	}
}

static void
sig_trace(struct thread *td, int sig, const char *what)
{
	char b[160];
	int n;

	if (!kern_cfg()->strace)
		return;
	n = snprintf(b, sizeof(b), "[pid %d] --- SIG%s %s ---\n",
	    td->proc->pid, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", what);
	plat_trace_write(b, (size_t)n);
}

/* Write the frame for sig's handler; false when it cannot be written. */
static bool
sig_frame(struct thread *td, int sig, const struct sigact *sa)
{
	struct arch_sigsetup ss = {
		.handler = sa->handler, .restorer = sa->restorer,
		.signo = sig, .info = td->proc->siginfo[sig - 1],
		.mask = td->has_saved_mask ? td->saved_mask : td->sigmask,
		.altstack = { td->altstack_sp, td->altstack_flags, 0,
		    td->altstack_size },
	};
	static uint8_t fpu[VK_FPU_MAX + 4];
	struct arch_rt_sigframe frame;
	uint64_t rsp = td->ctx.regs.rsp, va, fva;
	long n = plat_thread_fpu_get(td->pt, fpu, VK_FPU_MAX);

	if (!(sa->flags & VK_SA_RESTORER))
		return false;
	if (n > 512) {
		uint64_t bv;

		memcpy(&bv, fpu + 512, 8);
		arch_fpu_frame_mark(fpu, (size_t)n, bv | 3);
		ss.fpu = fpu;
		ss.fpu_size = (size_t)n;
		td->fpu_size = (size_t)n;
	}
	ss.on_altstack = (sa->flags & SA_ONSTACK) && td->altstack_size != 0 &&
	    !(td->altstack_flags & SS_DISABLE) &&
	    !(rsp > td->altstack_sp && rsp <= td->altstack_sp +
	    td->altstack_size);
	if (ss.on_altstack)
		ss.altstack.ss_flags = 0;
	va = arch_sigframe_build(&td->ctx, &ss, rsp, &frame, &fva);
	if (copyout(td, &frame, UADDR(va), sizeof(frame)) < 0 ||
	    (ss.fpu != NULL && copyout(td, fpu, UADDR(fva), ss.fpu_size + 4) <
	    0))
		return false;
	arch_sigframe_enter(&td->ctx, &ss, va);
	return true;
}

/* Take sig's action; false when the process ends. */
static bool
sig_act(struct thread *td, int sig)
{
	struct proc *p = td->proc;
	struct sigact *sa = &p->sigact[sig - 1];

	if (sa->handler == (uint64_t)(uintptr_t)SIG_IGN)
		return true;
	if (sa->handler == (uint64_t)(uintptr_t)SIG_DFL) {
		switch (sig_default(sig)) {
		case DFL_IGN:
		case DFL_STOP:  /* XXX: stopping comes with job control (#5) */
			return true;
		case DFL_CORE:
			sig_trace(td, sig, "killed (core dumped)");
			proc_kill_sig(p, sig, true);
			return false;
		case DFL_TERM:
			sig_trace(td, sig, "killed");
			proc_kill_sig(p, sig, false);
			return false;
		}
	}
	sig_trace(td, sig, "delivered");
	if (!sig_frame(td, sig, sa)) {
		/* As Linux's force_sigsegv: a frame that cannot be built. */
		proc_kill_sig(p, SIGSEGV, true);
		return false;
	}
	td->has_saved_mask = false;
	td->sigmask |= sa->mask | ((sa->flags & SA_NODEFER) ? 0 : SIGBIT(sig));
	td->sigmask &= ~SIG_UNBLOCKABLE;
	if (sa->flags & SA_RESETHAND)
		*sa = (struct sigact){ 0 };
	return true;
}

bool
sig_deliver(struct thread *td)
{
	struct proc *p = td->proc;
	uint64_t ready;

	while ((ready = p->sigpending & ~(td->sigmask & ~SIG_UNBLOCKABLE)) !=
	    0) {
		int sig = __builtin_ctzll(ready) + 1;

		p->sigpending &= ~SIGBIT(sig);
		if (!sig_act(td, sig))
			return false;
	}
	if (td->has_saved_mask) {
		td->sigmask = td->saved_mask;
		td->has_saved_mask = false;
	}
	return true;
}
