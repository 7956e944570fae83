/*
 * The ptrace platform: each guest address space is a stub process traced
 * with PTRACE_SEIZE, and each guest syscall is a PTRACE_SYSEMU stop.
 *
 * The costs on this kind of host set the design: a stop costs a few
 * microseconds when tracer and tracee share a CPU and ~100 us across CPUs,
 * so the kernel and every stub are pinned to one CPU.  A guest thread is
 * a host thread of its stub, made by a clone the stub runs for it.
 * Registers are read
 * once per stop and written back only when they changed.  Changes to a
 * stub's mappings are queued and run as one batch inside the stub (one
 * stop for any number of mmap/munmap/mprotect calls); guest memory itself
 * is never copied through ptrace.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <elf.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host-linux/host.h"
#include "host-linux/plat_ops.h"
#include "host-linux/stub/stub.h"
#include "host-linux/stubctl.h"
#include "vkern/platform.h"
#include "vkern/vk.h"

static long ptrace_thread_fpu_get(struct plat_thread *pt, void *buf,
    size_t size);
static int ptrace_thread_fpu_set(struct plat_thread *pt, const void *buf,
    size_t size);

/*
 * Host threads kept per space when their guest threads end, for the next
 * guest threads: a reused one costs a register load where a new one
 * costs an injected clone and an exit, each several stops.
 */
#define SPARE_MAX 4

static int
ptrace_space_create(void *cookie, struct arch_context *ctx,
    struct plat_space **spp, struct plat_thread **ptp,
    struct plat_space_info *info)
{
	struct plat_thread *pt;
	int e;

	if ((e = stub_space_new(spp, info)) < 0)
		return e;
	pt = (*spp)->main;
	pt->cookie = cookie;
	pt->ctx = ctx;
	ctx->regs = (*spp)->tmpl;
	ctx->dirty = ARCH_DIRTY_ALL;
	*ptp = pt;
	return 0;
}

/*
 * Take a running thread to a stop and hold it.  Whatever stopped it (a
 * syscall, a fault) is dropped: only a thread about to go away is held
 * this way.  Returns -ESRCH when it is gone.
 */
static int
thread_hold(struct plat_thread *pt)
{
	siginfo_t si;
	int st, e;

	if (pt->held)
		return 0;
	ptrace(PTRACE_INTERRUPT, pt->tid, 0, 0);
	if ((e = stub_wait(pt->tid, &st)) < 0)
		return e;
	if ((st >> 16) == PTRACE_EVENT_STOP)
		(void)thread_take_fault(pt, &si);
	pt->held = true;
	pt->interrupted = false;
	pt->regs_valid = false;
	return 0;
}

static int
ptrace_space_fork(struct plat_thread *from, void *cookie,
    struct arch_context *ctx, struct plat_space **spp,
    struct plat_thread **ptp)
{
	struct plat_thread *pt;
	int e;

	if ((e = stub_space_fork(from, spp, NULL, NULL)) < 0)
		return e;
	pt = (*spp)->main;
	pt->cookie = cookie;
	pt->ctx = ctx;
	*ptp = pt;
	return 0;
}

/*
 * Give a spare thread of from's space to a new guest thread: held at a
 * stop, with from's FPU state as a new thread inherits it, and its CPU
 * time counted from now.  NULL when there is none.
 */
static struct plat_thread *
spare_take(struct plat_thread *from, void *cookie, struct arch_context *ctx)
{
	/* The largest XSAVE image (AMX's is ~11 KiB); one event loop. */
	static uint8_t fpu[32768];
	struct plat_space *sp = from->sp;
	struct plat_thread *pt;
	long n;

	for (pt = sp->threads; pt != NULL && !pt->spare; pt = pt->snext)
		;
	if (pt == NULL || (n = ptrace_thread_fpu_get(from, fpu,
	    sizeof(fpu))) < 0 || ptrace_thread_fpu_set(pt, fpu, (size_t)n) < 0)
		return NULL;
	pt->spare = false;
	sp->nspare--;
	pt->cookie = cookie;
	pt->ctx = ctx;
	pt->regs_valid = false;
	pt->interrupted = false;
	stub_thread_cputime_reset(pt);
	return pt;
}

static int
ptrace_thread_create(struct plat_thread *from, void *cookie,
    struct arch_context *ctx, struct plat_thread **ptp)
{
	struct plat_space *sp = from->sp;
	struct plat_thread *pt;
	int st, e;
	long r;

	if ((pt = spare_take(from, cookie, ctx)) != NULL) {
		*ptp = pt;
		return 0;
	}
	/* No stack: the new thread stops before it runs an instruction. */
	sp->spawned = 0;
	r = stub_syscall(from, SYS_clone, CLONE_VM | CLONE_FS | CLONE_FILES |
	    CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM, 0, 0, 0, 0, 0);
	if (r < 0 || sp->spawned <= 0)
		return r < 0 ? (r == -ENOMEM ? -EAGAIN : (int)r) : -EAGAIN;
	pt = vk_xcalloc(1, sizeof(*pt));
	pt->tid = sp->spawned;
	pt->cookie = cookie;
	pt->ctx = ctx;
	if ((e = stub_wait(pt->tid, &st)) < 0) {
		free(pt);
		return -EAGAIN;
	}
	thread_link(sp, pt, true);
	*ptp = pt;
	return 0;
}

static void
ptrace_thread_destroy(struct plat_thread *pt)
{
	bool held = thread_hold(pt) == 0;

	if (pt == pt->sp->main) {
		/*
		 * The leader's exit would leave a zombie the host cannot
		 * reap while the group lives: keep it stopped instead, and
		 * let it run the stub's calls.  The space owns it, gone or
		 * not, and frees it with itself.
		 */
		pt->retired = true;
		pt->cookie = NULL;
		pt->ctx = NULL;
		return;
	}
	if (held && pt->sp->nspare < SPARE_MAX) {
		pt->spare = true;
		pt->sp->nspare++;
		pt->cookie = NULL;
		pt->ctx = NULL;
		return;
	}
	if (held)
		thread_exit_now(pt, &pt->sp->tmpl, SYS_exit);
	thread_unlink(pt);
	thread_free(pt);
}

static void
ptrace_space_destroy(struct plat_space *sp)
{
	stub_space_free(sp);
}

/* --- running and events --- */

static int
ptrace_thread_run(struct plat_thread *pt)
{
	struct arch_context *c = pt->ctx;
	int e;

	if ((e = stub_space_flush(pt->sp)) < 0)
		return e;
	if (c->dirty == ARCH_DIRTY_RAX && pt->regs_valid) {
		/* The common case, a syscall's result: one word. */
		if (ptrace(PTRACE_POKEUSER, pt->tid,
		    offsetof(struct user_regs_struct, rax), c->regs.rax) < 0)
			return -errno;
		c->dirty = 0;
	} else if (c->dirty || !pt->regs_valid) {
		struct arch_regs r = c->regs;

		/* Never let the host restart or run a syscall of its own. */
		r.orig_rax = (uint64_t)-1;
		if ((e = setregs(pt->tid, &r)) < 0)
			return e;
		c->dirty = 0;
		pt->regs_valid = true;
	}
	if (ptrace(PTRACE_SYSEMU, pt->tid, 0, 0) < 0)
		return -errno;
	pt->held = false;
	return 0;
}

static void
ptrace_thread_yield(struct plat_thread *pt)
{
	/*
	 * The host scheduler favours threads that stop often (at every
	 * syscall) over ones that compute: only the yielder's own host
	 * sched_yield lets a computing sibling have the CPU.
	 */
	for (struct plat_thread *t = pt->sp->threads; t != NULL; t = t->snext) {
		if (!t->held) {
			(void)stub_syscall(pt, SYS_sched_yield, 0, 0, 0, 0,
			    0, 0);
			return;
		}
	}
}

static void
ptrace_thread_interrupt(struct plat_thread *pt)
{
	if (ptrace(PTRACE_INTERRUPT, pt->tid, 0, 0) == 0)
		pt->interrupted = true;
}

static long
ptrace_thread_fpu_get(struct plat_thread *pt, void *buf, size_t size)
{
	struct iovec iov = { buf, size };

	if (ptrace(PTRACE_GETREGSET, pt->tid, NT_X86_XSTATE, &iov) < 0)
		return -errno;
	return (long)iov.iov_len;
}

static int
ptrace_thread_fpu_set(struct plat_thread *pt, const void *buf, size_t size)
{
	struct iovec iov = { (void *)buf, size };

	/*
	 * A host kernel may take an MXCSR its CPU lacks (one under a
	 * hypervisor did, and the guest went on instead of its SIGSEGV).
	 */
	if (!hostinfo_mxcsr_ok(buf, size))
		return -EINVAL;
	if (ptrace(PTRACE_SETREGSET, pt->tid, NT_X86_XSTATE, &iov) < 0)
		return errno == EFAULT ? -EINVAL : -errno;
	return 0;
}

static void
load_regs(struct plat_thread *pt)
{
	if (getregs(pt->tid, &pt->ctx->regs) == 0) {
		pt->ctx->dirty = 0;
		pt->regs_valid = true;
	}
}

/* The event for a fault or trap of the guest's code (sig_from_cpu). */
static bool
fault_to_event(int sig, const siginfo_t *si, struct plat_event *ev)
{
	ev->kind = sig == SIGSEGV || sig == SIGBUS ? PLAT_EV_FAULT :
	    PLAT_EV_TRAP;
	ev->signo = sig;
	ev->code = si->si_code;
	ev->addr = (uint64_t)(uintptr_t)si->si_addr;
	return true;
}

/*
 * Guest code run in the stub's own pages (a guest may jump there, though
 * no mapping of its own covers them) stops at its first system call, trap
 * or fault as if the pages were not there: a fault at its address.  So
 * the stub's instructions never make a call or a trap of the guest's.
 */
static bool
stub_code_event(const struct plat_thread *pt, struct plat_event *ev)
{
	uint64_t rip = pt->ctx->regs.rip;

	if (!pt->regs_valid || rip < STUB_BASE || rip > STUB_END)
		return false;
	ev->kind = PLAT_EV_FAULT;
	ev->signo = SIGSEGV;
	ev->code = SEGV_MAPERR;
	ev->addr = rip;
	return true;
}

/*
 * Turn a wait status into an event.  Returns false for stops the kernel
 * need not see (a signal sent to the stub from outside, a group stop):
 * the thread is resumed and the wait goes on.
 */
static bool
stop_to_event(struct plat_thread *pt, int st, struct plat_event *ev)
{
	siginfo_t si;
	int sig;

	ev->cookie = pt->cookie;
	if (!WIFSTOPPED(st)) {
		thash_del(pt);
		ev->kind = PLAT_EV_GONE;
		return !pt->retired;
	}
	if (pt->retired)
		return false;    /* held for good: stub calls wait for it */
	pt->held = true;
	sig = WSTOPSIG(st);
	if (sig == (SIGTRAP | 0x80)) {
		load_regs(pt);
		if (!stub_code_event(pt, ev))
			ev->kind = PLAT_EV_SYSCALL;
		return true;
	}
	if ((st >> 16) == PTRACE_EVENT_STOP && pt->interrupted) {
		pt->interrupted = false;
		load_regs(pt);
		/* The fault it overtook, if any, is the event. */
		if ((sig = thread_take_fault(pt, &si)) != 0)
			return fault_to_event(sig, &si, ev);
		ev->kind = PLAT_EV_STOPPED;
		return true;
	}
	if ((st >> 16) != 0 ||
	    ptrace(PTRACE_GETSIGINFO, pt->tid, 0, &si) < 0 ||
	    !sig_from_cpu(sig, &si))
		goto resume;
	if (sig == pt->stale) {
		/* Already reported at the interrupt stop it overtook. */
		pt->stale = 0;
		goto resume;
	}
	load_regs(pt);
	return stub_code_event(pt, ev) || fault_to_event(sig, &si, ev);
resume:
	if (ptrace(PTRACE_SYSEMU, pt->tid, 0, 0) == 0)
		pt->held = false;
	return false;
}

static int
ptrace_event_wait(struct plat_event *ev, int64_t deadline)
{
	memset(ev, 0, sizeof(*ev));
	for (;;) {
		bool slow = deadline >= 0 || event_any_watched();
		struct plat_thread *pt;
		int st, r;
		pid_t pid;

		if ((ev->signo = host_sig_take()) != 0) {
			ev->kind = PLAT_EV_HOSTSIG;
			return 0;
		}
		pid = stub_next_stop(slow, &st);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pid == 0) {
			if ((r = event_wait_slow(ev, deadline, -1, false)) != 0)
				return r < 0 ? r : 0;
			continue;
		}
		if ((pt = thash_find(pid)) == NULL)
			continue;
		if (stop_to_event(pt, st, ev))
			return 0;
	}
}

const struct plat_ops ptrace_ops = {
	.name = "ptrace",
	.init = stubctl_init,
	.space_create = ptrace_space_create,
	.space_fork = ptrace_space_fork,
	.space_destroy = ptrace_space_destroy,
	.space_map = stub_space_map,
	.space_unmap = stub_space_unmap,
	.space_protect = stub_space_protect,
	.space_flush = stub_space_flush,
	.space_cputime = stub_space_cputime,
	.thread_create = ptrace_thread_create,
	.thread_destroy = ptrace_thread_destroy,
	.thread_run = ptrace_thread_run,
	.thread_fpu_get = ptrace_thread_fpu_get,
	.thread_fpu_set = ptrace_thread_fpu_set,
	.thread_yield = ptrace_thread_yield,
	.thread_interrupt = ptrace_thread_interrupt,
	.thread_cputime = stub_thread_cputime,
	.event_wait = ptrace_event_wait,
};
