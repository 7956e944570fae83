/*
 * Signal delivery.
 *
 * A signal is made pending on the process with its siginfo; before a
 * thread is resumed, its unblocked pending signals are taken in order:
 * ignored, a default action (terminate, terminate with core, ignore,
 * stop), or a handler, for which
 * the x86-64 frame is written onto the guest's stack (or its alternate
 * stack) with the registers and the FPU state of the moment.  A thread
 * parked in a syscall is woken: the call fails with EINTR, or with
 * SA_RESTART is made to run again when the handler returns.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "arch/x86/sigframe.h"
#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vm/copyio.h"

#define SS_AUTODISARM_ (1U << 31)

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

/*
 * Ignored: by SIG_IGN, by default, or a terminal's stop signal with its
 * default action in an orphaned group, which Linux discards (nobody is
 * left to continue the group).
 */
static bool
sig_ignored(const struct proc *p, int sig)
{
	uint64_t h = p->sighand->act[sig - 1].handler;

	if (h == (uint64_t)(uintptr_t)SIG_IGN)
		return true;
	if (h != (uint64_t)(uintptr_t)SIG_DFL)
		return false;
	return sig_default(sig) == DFL_IGN || (sig_default(sig) == DFL_STOP &&
	    sig != SIGSTOP && pgrp_orphaned(p->pgid));
}

/*
 * End a parked syscall because of a signal: EINTR, or, when the handler
 * asks for SA_RESTART and the call can simply run again (or the call is
 * one Linux always restarts), back up to the syscall instruction so that
 * it does after the handler.  A read or write that had moved some bytes
 * returns their count, and a call whose cancel hook set a result in
 * their place (an error, or a 0 that done_set marks) returns that.
 */
static void
sig_interrupt(struct thread *td, int sig)
{
	const struct sigact *sa = &td->proc->sighand->act[sig - 1];

	sched_unpark(td);
	if (td->wait.cancel != NULL)
		td->wait.cancel(td);
	td->state = TD_ONCPU;
	if (td->wait.done != 0 || td->wait.done_set) {
		syscall_finish(td, td->wait.done);
		return;
	}
	if (td->wait.restart == WAIT_RESTART_ALWAYS ||
	    ((sa->flags & SA_RESTART) && (td->wait.cont == syscall_redispatch ||
	    td->wait.restart == WAIT_RESTART_SA))) {
		syscall_restart(td);
		sched_setrun(td);
		return;
	}
	syscall_finish(td, -EINTR);
}

#define SIGRTMIN_ 32

/*
 * Whether the real-time signals queued to processes of p's real user
 * have reached p's RLIMIT_SIGPENDING (Linux counts per user, against the
 * receiver's limit).
 */
static bool
sigpend_full(const struct proc *p)
{
	uint64_t n = 0;

	for (const struct proc *q = proc_first(); q != NULL; q = q->next)
		if (q->cred.uid == p->cred.uid)
			n += (uint64_t)q->nqueued;
	return n >= p->rlim[RLIMIT_SIGPENDING].cur;
}

/*
 * Queue signo on sp.  A real-time signal past the limit, or with the
 * sandbox's memory full, is refused with -EAGAIN when a process queued it
 * (a negative si_code: sigqueue(3)), as Linux; others are dropped there.  XXX: Linux queues those (kill(2)
 * overrides the limit), and counts standard signals too.
 */
static int
sigpend_add(struct proc *p, struct sigpend *sp, int signo,
    const uint8_t info[128])
{
	struct sigq *q, **tail;
	int code;

	if (sp->set & SIGBIT(signo) && signo < SIGRTMIN_)
		return 0;    /* a standard signal is pending once */
	if (signo < SIGRTMIN_) {
		q = kmem_alloc(sizeof(*q), KM_ZERO | KM_FORCE);
	} else {
		memcpy(&code, info + 8, sizeof(code));
		if (sigpend_full(p) ||
		    (q = kmem_alloc(sizeof(*q), KM_ZERO)) == NULL)
			return code < 0 ? -EAGAIN : 0;
		p->nqueued++;
	}
	q->signo = signo;
	memcpy(q->info, info, 128);
	/* Appended in O(1): RLIMIT_SIGPENDING may let a queue grow long. */
	tail = sp->head != NULL ? sp->tailp : &sp->head;
	*tail = q;
	sp->tailp = &q->next;
	sp->set |= SIGBIT(signo);
	return 0;
}

void
sig_post_pgrp(int pgid, int signo, const uint8_t info[128])
{
	for (struct proc *p = proc_first(); p != NULL; p = p->next)
		if (!p->exiting && p->pgid == pgid)
			sig_post(p->main, signo, info, 0);
}

/* Take the first queued signo off sp; false when there is none. */
static bool
sigpend_take(struct proc *p, struct sigpend *sp, int signo,
    uint8_t info[128])
{
	struct sigq **qp, *q;
	bool more = false;

	for (qp = &sp->head; *qp != NULL && (*qp)->signo != signo;
	    qp = &(*qp)->next)
		;
	if ((q = *qp) == NULL)
		return false;
	if ((*qp = q->next) == NULL)
		sp->tailp = qp;
	memcpy(info, q->info, 128);
	if (signo >= SIGRTMIN_)
		p->nqueued--;
	kmem_free(q, sizeof(*q), 0);
	for (q = sp->head; q != NULL && !more; q = q->next)
		more = q->signo == signo;
	if (!more)
		sp->set &= ~SIGBIT(signo);
	return true;
}

void
sig_discard(struct proc *p, int signo)
{
	uint8_t info[128];

	if (!sig_ignored(p, signo))
		return;
	while (sigpend_take(p, &p->pending, signo, info))
		;
	for (struct thread *td = p->threads; td != NULL; td = td->tnext)
		while (sigpend_take(p, &td->pending, signo, info))
			;
}

static uint8_t *
sigpend_timer(struct sigpend *sp, int signo, int timerid)
{
	for (struct sigq *q = sp->head; q != NULL; q = q->next) {
		int code, id;

		memcpy(&code, q->info + 8, sizeof(code));
		memcpy(&id, q->info + 16, sizeof(id));
		if (q->signo == signo && code == SI_TIMER && id == timerid)
			return q->info;
	}
	return NULL;
}

uint8_t *
sig_timer_queued(struct proc *p, int signo, int timerid)
{
	uint8_t *info = sigpend_timer(&p->pending, signo, timerid);

	for (struct thread *td = p->threads; td != NULL && info == NULL;
	    td = td->tnext)
		info = sigpend_timer(&td->pending, signo, timerid);
	return info;
}

void
sig_flush(struct sigpend *sp)
{
	while (sp->head != NULL) {
		struct sigq *q = sp->head;

		sp->head = q->next;
		kmem_free(q, sizeof(*q), 0);
	}
	sp->set = 0;
}

void
sig_reset_handlers(struct sighand *sh)
{
	for (int s = 0; s < VK_NSIG; s++) {
		bool ign = sh->act[s].handler == (uint64_t)(uintptr_t)SIG_IGN;

		sh->act[s] = (struct sigact){ .handler = ign ?
		    (uint64_t)(uintptr_t)SIG_IGN : 0 };
	}
}

uint64_t
sig_pending_set(const struct thread *td)
{
	return td->pending.set | td->proc->pending.set;
}

bool
sig_dequeue(struct thread *td, uint64_t set, int *signop, uint8_t info[128])
{
	struct proc *p = td->proc;
	struct sigpend *sp = (td->pending.set & set) ? &td->pending :
	    &p->pending;
	uint64_t ready = sp->set & set;

	if (ready == 0)
		return false;
	*signop = __builtin_ctzll(ready) + 1;
	return sigpend_take(p, sp, *signop, info);
}

/* A thread in rt_sigtimedwait for one of the signals in its set. */
static long sigwait_cont(struct thread *td);

/* Tell the parent a child stopped or continued (unless SA_NOCLDSTOP). */
static void
sig_notify_stop(struct proc *p, int code, int status)
{
	struct proc *pp = proc_find(p->ppid);
	uint8_t info[128];

	if (pp == NULL || pp->exiting)
		return;
	sched_wake_chan(pp);
	if (pp->sighand->act[SIGCHLD - 1].flags & SA_NOCLDSTOP)
		return;
	sig_info_user(info, SIGCHLD, code, p->pid, p->cred.uid);
	memcpy(info + 24, &status, 4);
	sig_post(pp->main, SIGCHLD, info, 0);
}

/*
 * A stop signal's default action: the process stops where it is.  Its
 * running threads are stopped; the others stop before they next run
 * (sig_deliver).
 */
static void
proc_stop(struct proc *p, int sig)
{
	uint8_t info[128];

	if (p->stopped)
		return;
	p->stopped = true;
	p->stopsig = sig;
	p->stop_report = true;
	p->cont_report = false;
	while (sigpend_take(p, &p->pending, SIGCONT, info))
		;
	for (struct thread *td = p->threads; td != NULL; td = td->tnext)
		if (td->state == TD_ONCPU && td != curthread)
			plat_thread_interrupt(td->pt);
	sig_notify_stop(p, CLD_STOPPED, sig);
}

/* SIGCONT: a stopped process goes on, whatever SIGCONT's action. */
static void
proc_continue(struct proc *p)
{
	uint8_t info[128];
	struct thread *td;

	for (int s = 1; s <= VK_NSIG; s++) {
		if (sig_default(s) != DFL_STOP)
			continue;
		while (sigpend_take(p, &p->pending, s, info))
			;
		for (td = p->threads; td != NULL; td = td->tnext)
			while (sigpend_take(p, &td->pending, s, info))
				;
	}
	if (!p->stopped)
		return;
	p->stopped = false;
	p->stop_report = false;
	p->cont_report = true;
	for (td = p->threads; td != NULL; td = td->tnext) {
		if (td->state == TD_STOPPED) {
			td->state = TD_ONCPU;
			sched_setrun(td);
		}
	}
	sig_notify_stop(p, CLD_CONTINUED, SIGCONT);
}

static bool
sig_stops(const struct proc *p, int sig)
{
	return p->sighand->act[sig - 1].handler == (uint64_t)(uintptr_t)SIG_DFL &&
	    sig_default(sig) == DFL_STOP;
}

/* td waits for signals in bit in rt_sigtimedwait. */
static bool
sig_awaited(const struct thread *td, uint64_t bit)
{
	return td->state == TD_PARKED && td->wait.cont == sigwait_cont &&
	    (td->wait.arg[0] & bit);
}

/*
 * The thread to take a signal sent to td's process: td when it does not
 * block it, else the first thread that does not, or that waits for it.
 * When every thread blocks it, it stays pending for whichever unblocks.
 */
static struct thread *
sig_target(struct thread *td, uint64_t bit)
{
	if (!(td->sigmask & bit) || sig_awaited(td, bit))
		return td;
	for (struct thread *t = td->proc->threads; t != NULL; t = t->tnext)
		if (!(t->sigmask & bit) || sig_awaited(t, bit))
			return t;
	return td;
}

int
sig_post(struct thread *td, int signo, const uint8_t info[128], unsigned how)
{
	struct proc *p = td->proc;
	uint64_t bit = SIGBIT(signo);
	int r;

	/* vkernel's init runs no code that could take it (proc.c). */
	if (p->kproc)
		return 0;
	if ((how & SIGPOST_FORCE) && ((td->sigmask & bit) ||
	    p->sighand->act[signo - 1].handler == (uint64_t)(uintptr_t)SIG_IGN)) {
		td->sigmask &= ~bit;
		p->sighand->act[signo - 1].handler = (uint64_t)(uintptr_t)SIG_DFL;
	}
	if (!(how & SIGPOST_THREAD))
		td = sig_target(td, bit);
	/* SIGCONT continues a stopped process whatever its action. */
	if (signo == SIGCONT)
		proc_continue(p);
	/* An ignored signal is dropped at once unless blocked (signal(7)). */
	if (sig_ignored(p, signo) && signo != SIGKILL &&
	    !(td->sigmask & bit) && !sig_awaited(td, bit))
		return 0;
	/* A stop takes effect at once, even for a thread in a syscall. */
	if (sig_stops(p, signo) && !(td->sigmask & bit) &&
	    td->state == TD_PARKED) {
		proc_stop(p, signo);
		return 0;
	}
	if ((r = sigpend_add(p, (how & SIGPOST_THREAD) ? &td->pending :
	    &p->pending, signo, info)) < 0)
		return r;
	poll_wake();    /* signalfd readers and pollers */
	if (sig_awaited(td, bit)) {
		td->wait.deadline = 0;
		return 0;
	}
	if (signo == SIGKILL && td->state == TD_STOPPED) {
		td->state = TD_ONCPU;
		sched_setrun(td);
		return 0;
	}
	if (!(td->sigmask & bit) || signo == SIGKILL) {
		/*
		 * A wait already satisfied (woken, not yet run) completes
		 * first and the handler runs on its return, as on Linux.
		 */
		if (td->state == TD_PARKED && td->wait.deadline == 0 &&
		    signo != SIGKILL)
			return 0;
		if (td->state == TD_PARKED)
			sig_interrupt(td, signo);
		else if (td->state == TD_ONCPU && td != curthread)
			plat_thread_interrupt(td->pt);
	}
	return 0;
}

static void
sig_trace(struct thread *td, int sig, const char *what)
{
	char b[160];
	int n;

	if (!kern_cfg()->strace)
		return;
	n = snprintf(b, sizeof(b), "[pid %d] --- SIG%s %s ---\n",
	    td->tid, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", what);
	plat_trace_write(b, (size_t)n);
}

/* Write the frame for sig's handler; false when it cannot be written. */
static bool
sig_frame(struct thread *td, int sig, const struct sigact *sa,
    const uint8_t info[128])
{
	struct arch_sigsetup ss = {
		.handler = sa->handler, .restorer = sa->restorer,
		.signo = sig, .info = info,
		.mask = td->has_saved_mask ? td->saved_mask : td->sigmask,
		/* uc_stack: the settings, never SS_ONSTACK (as Linux). */
		.altstack = { td->altstack_sp, td->altstack_size == 0 ?
		    SS_DISABLE : td->altstack_flags, 0, td->altstack_size },
	};
	static uint8_t fpu[VK_FPU_MAX + 4];
	struct arch_rt_sigframe frame;
	uint64_t rsp, va, fva;
	long n;

	if (!(sa->flags & VK_SA_RESTORER))
		return false;
	plat_thread_regs_load(td->pt);
	rsp = td->ctx.regs.rsp;
	n = plat_thread_fpu_get(td->pt, fpu, VK_FPU_MAX);
	if (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
	    sig == SIGTRAP) {
		ss.trapno = td->fault_trapno;
		ss.err = td->fault_err;
		ss.cr2 = td->fault_cr2;
	}
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
	va = arch_sigframe_build(&td->ctx, &ss, rsp, &frame, &fva);
	if (copyout(td, &frame, UADDR(va), sizeof(frame)) < 0 ||
	    (ss.fpu != NULL && copyout(td, fpu, UADDR(fva), ss.fpu_size + 4) <
	    0))
		return false;
	arch_sigframe_enter(&td->ctx, &ss, va);
	/* The handler starts with a clean FPU, as Linux's does. */
	if (ss.fpu != NULL) {
		arch_fpu_init_image(fpu, ss.fpu_size);
		(void)plat_thread_fpu_set(td->pt, fpu, ss.fpu_size);
	}
	/* SS_AUTODISARM: the stack is off until the handler returns. */
	if (ss.on_altstack && (td->altstack_flags & SS_AUTODISARM_))
		sig_altstack_off(td);
	return true;
}

/* Take sig's action; false when the process ends. */
static bool
sig_act(struct thread *td, int sig, const uint8_t info[128])
{
	struct proc *p = td->proc;
	struct sigact *sa = &p->sighand->act[sig - 1];

	if (sig_ignored(p, sig))
		return true;
	if (sa->handler == (uint64_t)(uintptr_t)SIG_DFL) {
		switch (sig_default(sig)) {
		case DFL_IGN:
			return true;
		case DFL_STOP:
			proc_stop(p, sig);
			td->state = TD_STOPPED;
			return false;
		case DFL_CORE:   /* no core is written: see proc_kill_sig */
		case DFL_TERM:
			sig_trace(td, sig, "killed");
			proc_kill_sig(p, sig);
			return false;
		}
	}
	sig_trace(td, sig, "delivered");
	/* A call to restart after the signal fails EINTR, as Linux's. */
	if (td->restarting && !(sa->flags & SA_RESTART))
		syscall_unrestart(td, -EINTR);
	td->restarting = false;
	if (!sig_frame(td, sig, sa, info)) {
		/* As Linux's force_sigsegv: a frame that cannot be built. */
		proc_kill_sig(p, SIGSEGV);
		return false;
	}
	td->has_saved_mask = false;
	td->sigmask |= sa->mask | ((sa->flags & SA_NODEFER) ? 0 : SIGBIT(sig));
	td->sigmask &= ~SIG_UNBLOCKABLE;
	/* Only the handler goes back to SIG_DFL (the flags and mask stay). */
	if (sa->flags & SA_RESETHAND)
		sa->handler = (uint64_t)(uintptr_t)SIG_DFL;
	return true;
}

void
sig_recheck(struct thread *td)
{
	struct proc *p = td->proc;
	uint64_t ready = sig_pending_set(td) & ~(td->sigmask &
	    ~SIG_UNBLOCKABLE);
	uint8_t info[128];
	int sig;

	if (ready == 0 || td->state != TD_PARKED)
		return;
	sig = __builtin_ctzll(ready) + 1;
	if (sig_stops(p, sig)) {
		if (sigpend_take(p, &td->pending, sig, info) ||
		    sigpend_take(p, &p->pending, sig, info))
			proc_stop(p, sig);
		return;
	}
	sig_interrupt(td, sig);
}

/*
 * Before td runs: deliver, or find it must not run (stopped, dead).
 * Returns false when the thread is not to run now.
 */
bool
sig_deliver(struct thread *td)
{
	uint8_t info[128];
	int sig;

	/* Each handler's mask applies to the signals after it. */
	while (sig_dequeue(td, ~(td->sigmask & ~SIG_UNBLOCKABLE), &sig, info))
		if (!sig_act(td, sig, info))
			return false;
	if (td->has_saved_mask) {
		td->sigmask = td->saved_mask;
		td->has_saved_mask = false;
	}
	/* Stopped while its syscall was parked: wait for SIGCONT now. */
	if (td->proc->stopped) {
		td->state = TD_STOPPED;
		return false;
	}
	td->restarting = false;
	return true;
}

/* --- rt_sigtimedwait --- */

static long
sigwait_cont(struct thread *td)
{
	uint8_t info[128];
	int sig;

	if (sig_dequeue(td, td->wait.arg[0], &sig, info)) {
		if (td->wait.arg[1] != 0 &&
		    copyout(td, info, UADDR(td->wait.arg[1]), 128) < 0)
			return -EFAULT;
		return sig;
	}
	if (td->wait.arg[2] != 0 &&
	    plat_clock_ns(CLOCK_MONOTONIC) >= (int64_t)td->wait.arg[2])
		return -EAGAIN;
	if (td->wait.arg[2] != 0)
		td->wait.deadline = (int64_t)td->wait.arg[2];
	return -EPARKED;
}

void
sig_altstack_off(struct thread *td)
{
	td->altstack_sp = td->altstack_size = 0;
	td->altstack_flags = SS_DISABLE;
}

long
kern_sigtimedwait(struct thread *td, uint64_t set, uaddr_t uinfo,
    int64_t deadline)
{
	td->wait = (struct wait){ .cont = sigwait_cont, .deadline = deadline,
	    .console_fd = -1 };
	td->wait.arg[0] = set & ~SIG_UNBLOCKABLE;
	td->wait.arg[1] = uinfo.va;
	td->wait.arg[2] = deadline < 0 ? 0 : (uint64_t)deadline;
	return sigwait_cont(td);
}
