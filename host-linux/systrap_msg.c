/*
 * The systrap platform's hand-off between vkernel and its guest threads
 * (systrap.c has the platform's model, the stubs' set-up and the life of
 * their spaces and threads): the signal frames in the thread areas, the
 * message word each handler posts on and sleeps on, vkernel's spin and
 * its doorbell, running a held thread with the registers the kernel left
 * (and its FPU state), and the event loop's wait: the guest threads
 * scanned round robin for a message, each turned into the kernel's
 * event.  Everything read from an area is the guest's to write, so it is
 * read once and checked against the area.
 */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <sched.h>

#include "host-linux/host.h"
#include "host-linux/stub/stub.h"
#include "host-linux/stubctl.h"
#include "host-linux/systrap.h"
#include "vkern/platform.h"
#include "vkern/vk.h"

/* From the kernel's UAPI signal headers, which clash with libc's. */
#define SYS_SECCOMP  1

/*
 * With a host CPU of its own, vkernel spins for the next message before
 * it sleeps, and a handler spins about HANDLER_SPIN_NS for its answer
 * before it sleeps: a trap then costs a signal and no context switch.
 * Sharing a CPU with the guest, neither spins: the peer it waits for
 * could not run.
 *
 * vkernel's spin adapts to the traffic: it starts at VK_SPIN_MAX_NS,
 * halves each time it ends without a message (a compute-bound or idle
 * guest: below VK_SPIN_MIN_NS it stops) and doubles each time it finds
 * one.  Stopped, every VK_SPIN_PROBE-th wait spins VK_SPIN_MAX_NS once,
 * and a message found then starts it again: the traffic came back.
 * A handler stops spinning as soon as vkernel holds its call (msg_hold),
 * so its spin only covers vkernel's work on it; that time is vkernel's
 * service, which the kernel counts as the guest's system time, and is
 * taken out of the stub thread's own (spin_count) rather than counted
 * twice, the second time as user time.
 */
#define VK_SPIN_MAX_NS   50000
#define VK_SPIN_MIN_NS   2000
#define VK_SPIN_PROBE    16
#define HANDLER_SPIN_NS  50000
/*
 * Asleep, vkernel looks at its threads at least this often: a thread
 * that ends on its own (thread_lost) rings no doorbell.
 */
#define LOST_CHECK_NS    100000000
/*
 * A sleep of vkernel's this long without a message stops its spin, and
 * so lends its CPU (below): the guest computes.  Without it, a guest that
 * makes no call at all would wait for five LOST_CHECK_NS wake-ups.
 */
#define LEND_AFTER_NS    1000000

/* The XSAVE image's software bytes (struct _fpx_sw_bytes) at 464. */
#define FP_SW_OFF       464
#define FP_XSTATE_MAGIC1 0x46505853U
#define FP_XSAVE_HDR    512
#define FP_XSAVE_MIN    (FP_XSAVE_HDR + 64)

static int bell = -1;       /* vkernel's doorbell */
static volatile uint32_t *vk_asleep;   /* the constants page's word */
static int64_t spin_ns;     /* vkernel's spin now, when spin_max > 0 */
static int64_t spin_max;    /* VK_SPIN_MAX_NS with a CPU of its own, or 0 */
static unsigned spin_idle;  /* waits without a spin since it stopped */
static int64_t handler_spin_ns;  /* the handlers' spin, measured, or 0 */
static struct plat_thread *guests;   /* every guest thread, by gnext */
static struct plat_thread *scan_from;
static struct plat_thread *last_ev;   /* the thread of the last event */

/*
 * vkernel's CPU, lent.  While vkernel spins, the guest's threads keep to
 * the guest's CPUs: one on vkernel's would wait behind the spin.  When
 * vkernel sleeps with its spin stopped (the guest computes, or sleeps),
 * nothing of vkernel's runs there but what the guest's calls ask for, so
 * the guest's threads may use that CPU too, and the handlers and
 * trampolines sleep at once instead of spinning for their answers on a
 * CPU vkernel may need: two compilers of a parallel build then run side
 * by side where one CPU would hold both.  When the spin starts again (a
 * probe found traffic), the threads go back to the guest's CPUs.  Each
 * move is a host call for each thread: vkernel lends its CPU again
 * LEND_GAP_NS after it took it back at the soonest, so that a guest
 * whose calls come and go does not make them at each turn.  A new
 * thread starts on the guest's CPUs either way (thread_start), then
 * follows the others.
 */
#define LEND_GAP_NS      20000000
static bool lent;
static cpu_set_t lent_cpus;       /* the guest's and vkernel's */
static int64_t taken_back;        /* when vkernel last took its CPU back */
static uint32_t handler_pauses;   /* the handlers' spin, when not lent */
static volatile uint32_t *const_spin;   /* the constants page's count */

/* --- the spin and the doorbell --- */

/*
 * How many pauses a handler spins for HANDLER_SPIN_NS, from the fastest
 * of a few timed runs (a run the host preempted is slower), and the
 * time that takes in handler_spin_ns; none without a CPU of its own.
 */
static uint32_t
handler_spin_pauses(void)
{
	const int n = 2000;
	int64_t best = INT64_MAX;
	uint64_t pauses;

	if (spin_max == 0)
		return 0;
	for (int run = 0; run < 3; run++) {
		int64_t t = plat_clock_ns(CLOCK_MONOTONIC);

		for (int i = 0; i < n; i++)
			__builtin_ia32_pause();
		best = VK_MIN(best, plat_clock_ns(CLOCK_MONOTONIC) - t);
	}
	pauses = (uint64_t)HANDLER_SPIN_NS * n / (uint64_t)VK_MAX(best, 1);
	pauses = VK_MIN(VK_MAX(pauses, 1), UINT32_MAX);
	handler_spin_ns = (int64_t)(pauses * (uint64_t)best / n);
	return (uint32_t)pauses;
}

/*
 * pt on the CPUs the guest's threads use now.  A thread starts on the
 * guest's (stub_thread, and thread_start); a parked one keeps what it
 * had when it left.
 */
void
msg_guest_place(struct plat_thread *pt)
{
	if (pt->on_lent == lent)
		return;
	pt->on_lent = lent;
	(void)sched_setaffinity(pt->tid, sizeof(cpu_set_t), lent ?
	    &lent_cpus : hostinfo_guest_cpus());
}

/* Lend vkernel's CPU to the guest's threads, or take it back. */
static void
cpu_lend(bool lend)
{
	if (lend == lent)
		return;
	lent = lend;
	if (!lend)
		taken_back = plat_clock_ns(CLOCK_MONOTONIC);
	__atomic_store_n(const_spin, lend ? 0 : handler_pauses,
	    __ATOMIC_RELAXED);
	for (struct plat_thread *pt = guests; pt != NULL; pt = pt->gnext)
		msg_guest_place(pt);
}

void
msg_spin_start(const cpu_set_t *own)
{
	CPU_OR(&lent_cpus, hostinfo_guest_cpus(), own);
	spin_ns = spin_max = VK_SPIN_MAX_NS;
}

bool
msg_spinning(void)
{
	return spin_max > 0;
}

int
msg_bell_open(void)
{
	bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return bell;
}

void
msg_const_fill(void *page)
{
	vk_asleep = (volatile uint32_t *)((char *)page +
	    (STUB_CONST_ASLEEP - STUB_CONST_PAGE));
	*vk_asleep = 1;
	const_spin = (volatile uint32_t *)((char *)page +
	    (STUB_CONST_SPIN - STUB_CONST_PAGE));
	*const_spin = handler_pauses = handler_spin_pauses();
}

/* --- the frame --- */

/* The stub address of pt's area. */
uint64_t
area_va(const struct plat_thread *pt)
{
	return STUB_AREAS + (uint64_t)pt->aslot * STUB_AREA_SIZE;
}

/*
 * Where [va, va + len) of pt's stub lies in vkernel's view of the area's
 * signal stack, or NULL when it is not all there.
 */
static void *
area_ptr(const struct plat_thread *pt, uint64_t va, size_t len)
{
	uint64_t lo = area_va(pt) + STUB_ALT_OFF, hi = area_va(pt) +
	    STUB_AREA_SIZE;

	if (va < lo || va > hi || len > hi - va)
		return NULL;
	return (char *)pt->area + (va - area_va(pt));
}

/* The ucontext of the message taken, checked; NULL for a bad one. */
struct frame_uc *
frame_uc(const struct plat_thread *pt)
{
	return area_ptr(pt, pt->uc, sizeof(struct frame_uc));
}

/* The frame's XSAVE image and its size, checked; NULL for a bad one. */
uint8_t *
frame_fpu(const struct plat_thread *pt, size_t *sizep)
{
	uint8_t *fp = area_ptr(pt, pt->fpstate, FP_XSAVE_HDR);
	uint32_t magic, xsize;

	if (fp == NULL)
		return NULL;
	memcpy(&magic, fp + FP_SW_OFF, 4);
	memcpy(&xsize, fp + FP_SW_OFF + 16, 4);
	if (magic != FP_XSTATE_MAGIC1) {
		*sizep = FP_XSAVE_HDR;
		return fp;
	}
	if (xsize < FP_XSAVE_MIN || area_ptr(pt, pt->fpstate, xsize) == NULL)
		return NULL;
	*sizep = xsize;
	return fp;
}

/* pt's context from u, its frame, which it matches from now on. */
void
frame_regs_load(struct plat_thread *pt, const struct frame_uc *u)
{
	struct arch_regs *r = &pt->ctx->regs;

	r->r8 = u->r8;
	r->r9 = u->r9;
	r->r10 = u->r10;
	r->r11 = u->r11;
	r->r12 = u->r12;
	r->r13 = u->r13;
	r->r14 = u->r14;
	r->r15 = u->r15;
	r->rdi = u->rdi;
	r->rsi = u->rsi;
	r->rbp = u->rbp;
	r->rbx = u->rbx;
	r->rdx = u->rdx;
	r->rax = u->rax;
	r->rcx = u->rcx;
	r->rsp = u->rsp;
	r->rip = u->rip;
	r->eflags = u->eflags;
	r->cs = u->cs;
	r->ss = u->ss;
	r->orig_rax = (uint64_t)-1;
	r->fs_base = pt->fs_base;
	r->gs_base = pt->gs_base;
	pt->ctx->dirty = 0;
	pt->regs_valid = true;
}

/*
 * The frame's fields the host reads at rt_sigreturn beside the guest's
 * registers, put back as the handler needs them whatever the guest wrote
 * there (another of its threads can while this one is held): its signal
 * stack, an empty mask, the 64-bit segments and the XSAVE image the
 * frame had.
 */
void
frame_host_fields(const struct plat_thread *pt, struct frame_uc *u)
{
	u->cs = ARCH_USER_CS;
	u->ss = ARCH_USER_DS;
	u->ss_sp = area_va(pt) + STUB_ALT_OFF;
	u->ss_flags = 0;
	u->ss_size = STUB_AREA_SIZE - STUB_ALT_OFF;
	u->sigmask = 0;
	u->fpstate = pt->fpstate;
}

/*
 * Load the guest's registers into the frame: every one, those the stop
 * at a patched site left out of the context too (the frame's are the
 * trampoline's own).
 */
static void
regs_to_frame(struct plat_thread *pt, struct frame_uc *u)
{
	const struct arch_regs *r = &pt->ctx->regs;

	fast_load_rest(pt);
	u->r8 = r->r8;
	u->r9 = r->r9;
	u->r10 = r->r10;
	u->r11 = r->r11;
	u->r12 = r->r12;
	u->r13 = r->r13;
	u->r14 = r->r14;
	u->r15 = r->r15;
	u->rdi = r->rdi;
	u->rsi = r->rsi;
	u->rbp = r->rbp;
	u->rbx = r->rbx;
	u->rdx = r->rdx;
	u->rax = r->rax;
	u->rcx = r->rcx;
	u->rsp = r->rsp;
	u->rip = r->rip;
	u->eflags = r->eflags;
}

/* --- messages --- */

/*
 * The message pt's handler posted, if there is a new one: taken (pt
 * held) with its frame's addresses; the caller checks them.  msg_read
 * takes it from a thread held already, at a patched site.
 */
bool
msg_take(struct plat_thread *pt)
{
	return !pt->held && msg_read(pt);
}

bool
msg_read(struct plat_thread *pt)
{
	struct systrap_area *a = pt->area;
	uint32_t st = __atomic_load_n(&a->state, __ATOMIC_ACQUIRE);
	const struct frame_uc *u;

	if (st != MSG_POSTED && st != MSG_ASLEEP)
		return false;
	pt->held = true;
	if (handler_spin_ns > 0 && !lent)
		pt->taken_at = plat_clock_ns(CLOCK_MONOTONIC);
	pt->signo = (int)a->signo;
	pt->info = a->info;
	pt->uc = a->uc;
	u = frame_uc(pt);
	pt->fpstate = u != NULL ? u->fpstate : 0;
	return true;
}

bool
msg_peek(const struct plat_thread *pt, struct frame_uc **up)
{
	struct systrap_area *a = pt->area;
	uint32_t st = __atomic_load_n(&a->state, __ATOMIC_ACQUIRE);

	if (pt->held || (st != MSG_POSTED && st != MSG_ASLEEP))
		return false;
	*up = area_ptr(pt, a->uc, sizeof(struct frame_uc));
	return true;
}

/*
 * The time pt's handler may have spun since its message was taken, at
 * most its spin: counted as vkernel's service, not as the thread's own
 * time (stub_thread_cputime).  Never more than the handler spun, as it
 * spun from the post, before the take; less when the host preempted it.
 */
static void
spin_count(struct plat_thread *pt)
{
	int64_t t;

	if (pt->taken_at == 0)
		return;
	t = VK_MIN(plat_clock_ns(CLOCK_MONOTONIC) - pt->taken_at,
	    handler_spin_ns);
	pt->taken_at = 0;
	pt->spun += t;
	pt->sp->spun += t;
}

/* Wake a held thread to return to its frame. */
void
msg_answer(struct plat_thread *pt)
{
	struct systrap_area *a = pt->area;

	spin_count(pt);
	pt->held = false;
	if (__atomic_exchange_n(&a->state, MSG_ANSWERED, __ATOMIC_SEQ_CST) ==
	    MSG_ASLEEP)
		(void)syscall(SYS_futex, &a->state, FUTEX_WAKE, 1, NULL, NULL,
		    0);
}

/*
 * A held thread the kernel did not answer while it served the event
 * (the call blocks), or whose call takes longer than a handler spins (a
 * fork, a new thread): the handler, or the trampoline of a patched
 * site, sleeps at once instead of spinning out its time on a CPU another
 * guest thread may want.
 */
void
msg_hold(struct plat_thread *pt)
{
	uint32_t posted = MSG_POSTED;

	if (!pt->held)
		return;
	if (pt->fast)
		fast_hold(pt);
	spin_count(pt);
	(void)__atomic_compare_exchange_n(&pt->area->state, &posted,
	    MSG_ASLEEP, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/*
 * Wait until take(pt) takes a message of pt, at most ms milliseconds (a
 * loaded host is slow to start threads: seconds): with a CPU of its own
 * vkernel spins first, as a thread starts sooner than a wake-up of
 * vkernel takes here; then asleep, as a handler must see vkernel to ring
 * the doorbell.  Returns 0 with pt held, or -EAGAIN.
 */
int
msg_wait(struct plat_thread *pt, bool (*take)(struct plat_thread *), int ms)
{
	int64_t end = plat_clock_ns(CLOCK_MONOTONIC) + VK_SPIN_MAX_NS;
	bool taken = false;

	while (spin_max > 0 && !(taken = take(pt)) &&
	    plat_clock_ns(CLOCK_MONOTONIC) < end)
		__builtin_ia32_pause();
	__atomic_store_n(vk_asleep, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < ms && !taken; i++) {
		struct pollfd p = { .fd = bell, .events = POLLIN };
		uint64_t v;

		if ((taken = take(pt)))
			break;
		if (ppoll(&p, 1, &(struct timespec){ 0, 1000000 }, NULL) > 0)
			while (read(bell, &v, sizeof(v)) > 0)
				;
	}
	*vk_asleep = 0;
	return taken ? 0 : -EAGAIN;
}

/* --- running --- */

int
systrap_thread_run(struct plat_thread *pt)
{
	struct arch_context *c = pt->ctx;
	struct systrap_area *a = pt->area;
	struct frame_uc *u;
	int e;

	if ((e = stub_space_flush(pt->sp)) < 0)
		return e;
	if (pt->fast && (fast_answer(pt) || (e = fast_to_frame(pt)) < 0))
		return e;
	if (!pt->held || (u = frame_uc(pt)) == NULL)
		return -EFAULT;
	if (c->dirty == ARCH_DIRTY_RAX && pt->regs_valid) {
		u->rax = c->regs.rax;
	} else {
		regs_to_frame(pt, u);
		pt->regs_valid = true;
	}
	frame_host_fields(pt, u);
	c->dirty = 0;
	a->set = 0;
	if (c->regs.fs_base != pt->fs_base) {
		a->fs_base = pt->fs_base = c->regs.fs_base;
		a->set |= 1;
	}
	if (c->regs.gs_base != pt->gs_base) {
		/* Without a GS base of the guest's, GS is the area. */
		pt->gs_base = c->regs.gs_base;
		a->gs_base = pt->gs_base != 0 ? pt->gs_base : area_va(pt);
		a->set |= 2;
	}
	msg_answer(pt);
	return 0;
}

/*
 * The control thread sends the signal, a thread of the same stub: the
 * lock-down then needs no host call that can signal a stub thread.  A
 * stop of the control thread each, but only for a signal to a thread
 * that runs.
 */
bool
systrap_thread_kick(struct plat_thread *pt)
{
	return stub_syscall(pt->sp->main, SYS_tgkill, (uint64_t)pt->sp->pid,
	    (uint64_t)pt->tid, STUB_SIG_INTERRUPT, 0, 0, 0) == 0;
}

void
systrap_thread_interrupt(struct plat_thread *pt)
{
	if (systrap_thread_kick(pt))
		pt->interrupted = true;
}

long
systrap_thread_fpu_get(struct plat_thread *pt, void *buf, size_t size)
{
	size_t n;
	uint8_t *fp;

	if (pt->fast && fast_to_frame(pt) < 0)
		return -EFAULT;
	if (!pt->held || (fp = frame_fpu(pt, &n)) == NULL)
		return -EFAULT;
	if (n > size)
		return -EINVAL;
	memcpy(buf, fp, n);
	return (long)n;
}

/*
 * Load an XSAVE image into the frame: what rt_sigreturn would refuse
 * (and kill the stub for) is -EINVAL here, and the software bytes the
 * host wrote stay as they are.
 */
int
systrap_thread_fpu_set(struct plat_thread *pt, const void *buf, size_t size)
{
	const uint8_t *in = buf;
	uint64_t hdr[8], sw_feat;
	uint8_t *fp;
	size_t n;

	if (pt->fast && fast_to_frame(pt) < 0)
		return -EFAULT;
	if (!pt->held || (fp = frame_fpu(pt, &n)) == NULL)
		return -EFAULT;
	if (size < FP_XSAVE_HDR || !hostinfo_mxcsr_ok(in, size))
		return -EINVAL;
	n = VK_MIN(n, size);
	if (n >= FP_XSAVE_MIN) {
		memcpy(hdr, in + FP_XSAVE_HDR, sizeof(hdr));
		memcpy(&sw_feat, fp + FP_SW_OFF + 8, 8);
		if ((hdr[0] & ~sw_feat) != 0 || hdr[1] != 0)
			return -EINVAL;
		for (unsigned i = 2; i < 8; i++)
			if (hdr[i] != 0)
				return -EINVAL;
	}
	memcpy(fp, in, FP_SW_OFF);
	if (n > FP_XSAVE_HDR)
		memcpy(fp + FP_XSAVE_HDR, in + FP_XSAVE_HDR, n - FP_XSAVE_HDR);
	return 0;
}

/* --- events --- */

/*
 * The event for a message taken from pt; false for one the kernel need
 * not see (a signal sent from outside, an interrupt that found the
 * thread stopped already), answered at once.
 */
static bool
msg_to_event(struct plat_thread *pt, struct plat_event *ev)
{
	struct frame_uc *u = frame_uc(pt);
	const siginfo_t *si = area_ptr(pt, pt->info, sizeof(siginfo_t));
	size_t fpsize;
	int code, e;

	ev->cookie = pt->cookie;
	if (u == NULL || si == NULL || frame_fpu(pt, &fpsize) == NULL) {
		/* A frame the guest broke: end it as the host would. */
		vk_log_guest("stub %d: thread %d posted a bad signal frame",
		    pt->sp->pid, pt->tid);
		ev->kind = PLAT_EV_GONE;
		return true;
	}
	frame_regs_load(pt, u);
	code = si->si_code;
	if ((e = fast_frame_event(pt, u, si, ev)) >= 0)
		return e > 0;
	if (pt->ctx->regs.rip >= STUB_BASE && pt->ctx->regs.rip <= STUB_END &&
	    (pt->signo == SIGSYS || sig_from_cpu(pt->signo, si))) {
		/* Guest code in the stub's pages: as if they were not there. */
		ev->kind = PLAT_EV_FAULT;
		ev->signo = SIGSEGV;
		ev->code = SEGV_MAPERR;
		ev->addr = pt->ctx->regs.rip;
		return true;
	}
	if (pt->signo == SIGSYS && code == SYS_SECCOMP) {
		/* As a PTRACE_SYSEMU stop leaves it. */
		pt->ctx->regs.orig_rax = pt->ctx->regs.rax;
		pt->ctx->regs.rax = (uint64_t)-ENOSYS;
		patch_site(pt, pt->ctx->regs.rip, pt->ctx->regs.orig_rax);
		ev->kind = PLAT_EV_SYSCALL;
		return true;
	}
	if (pt->signo == STUB_SIG_INTERRUPT && code == SI_TKILL &&
	    pt->interrupted) {
		pt->interrupted = false;
		ev->kind = PLAT_EV_STOPPED;
		return true;
	}
	if (sig_from_cpu(pt->signo, si)) {
		ev->kind = pt->signo == SIGSEGV || pt->signo == SIGBUS ?
		    PLAT_EV_FAULT : PLAT_EV_TRAP;
		ev->signo = pt->signo;
		ev->code = code;
		ev->addr = (uint64_t)(uintptr_t)si->si_addr;
		return true;
	}
	pt->ctx->dirty = 0;
	(void)systrap_thread_run(pt);
	return false;
}

void
msg_guest_link(struct plat_thread *pt)
{
	pt->gnext = guests;
	guests = pt;
}

void
msg_guest_unlink(struct plat_thread *pt)
{
	struct plat_thread **pp;

	for (pp = &guests; *pp != NULL; pp = &(*pp)->gnext) {
		if (*pp == pt) {
			*pp = pt->gnext;
			break;
		}
	}
	if (scan_from == pt)
		scan_from = NULL;
	if (last_ev == pt)
		last_ev = NULL;
}

/*
 * Whether pt's host thread ended though vkernel did not send it to its
 * end: its guest jumped to the stub's exit (or wrote the tid word, which
 * ends its process all the same).  Reported once, as a thread the host
 * took away: the process is killed, where it would otherwise wait for
 * the thread forever.  A dead stub's threads are reported as such.
 */
static bool
thread_lost(const struct plat_thread *pt)
{
	return !pt->lost && !pt->ending && !pt->spare && !pt->sp->dead &&
	    __atomic_load_n(&pt->area->tid, __ATOMIC_RELAXED) == 0;
}

/*
 * The next guest thread with a message, round robin from the last one
 * served so that a thread that traps without pause cannot starve the
 * others; or one of a dead stub, not yet reported.
 */
static bool
scan(struct plat_event *ev)
{
	struct plat_thread *start = scan_from != NULL ? scan_from->gnext :
	    NULL, *pt;

	for (int pass = 0; pass < 2; pass++) {
		for (pt = pass == 0 ? start : guests; pt != NULL &&
		    (pass == 0 || pt != start); pt = pt->gnext) {
			if (pt->sp->dead && !pt->spare && !pt->lost) {
				pt->spare = true;
				ev->kind = PLAT_EV_GONE;
				ev->cookie = pt->cookie;
				return true;
			}
			if (msg_take(pt)) {
				scan_from = pt;
				if (msg_to_event(pt, ev)) {
					last_ev = pt;
					return true;
				}
			} else if (fast_take(pt, ev)) {
				scan_from = pt;
				last_ev = pt;
				return true;
			} else if (thread_lost(pt)) {
				pt->lost = true;
				ev->kind = PLAT_EV_GONE;
				ev->cookie = pt->cookie;
				return true;
			}
		}
	}
	return false;
}

/* A control thread's stop or end: a stub that died takes its threads. */
static void
control_stop(pid_t pid, int st)
{
	struct plat_thread *pt = thash_find(pid);

	if (pt == NULL)
		return;
	if (!WIFSTOPPED(st)) {
		thash_del(pt);
		pt->sp->dead = true;
	}
	/* A stop of a held control thread cannot come: nothing resumed it. */
}

/*
 * Spin for a message, for spin_ns at most or a probe's VK_SPIN_MAX_NS,
 * and adapt spin_ns to what came; true with *ev filled.
 */
static bool
spin(struct plat_event *ev)
{
	int64_t len = spin_ns, end;

	if (len == 0 && spin_max > 0 && ++spin_idle % VK_SPIN_PROBE == 0)
		len = spin_max;
	if (len == 0)
		return false;
	end = plat_clock_ns(CLOCK_MONOTONIC) + len;
	do {
		for (int i = 0; i < 64; i++) {
			if (!scan(ev)) {
				__builtin_ia32_pause();
				continue;
			}
			spin_ns = spin_ns == 0 ? spin_max :
			    VK_MIN(2 * spin_ns, spin_max);
			cpu_lend(false);
			return true;
		}
	} while (plat_clock_ns(CLOCK_MONOTONIC) < end);
	if ((spin_ns /= 2) < VK_SPIN_MIN_NS)
		spin_ns = 0;
	return false;
}

/*
 * Messages first, spun for when vkernel has a CPU of its own; then the
 * stubs' ends, only when SIGCHLD came, and the watched fds; then sleep, the handlers told to
 * ring the doorbell (the store and the scan after it against a
 * handler's post and its read of the word: one of the two sees the
 * other's).
 */
int
systrap_event_wait(struct plat_event *ev, int64_t deadline)
{
	memset(ev, 0, sizeof(*ev));
	if (last_ev != NULL) {
		msg_hold(last_ev);
		last_ev = NULL;
	}
	for (;;) {
		int64_t now, check;
		int st, r;
		pid_t pid;

		if ((ev->signo = host_sig_take()) != 0) {
			ev->kind = PLAT_EV_HOSTSIG;
			return 0;
		}
		if (scan(ev))
			return 0;
		if (event_child_take())
			while ((pid = stub_next_stop(true, &st)) > 0)
				control_stop(pid, st);
		/* The console and sockets too, when guest calls never stop. */
		if (event_any_watched() &&
		    (r = event_wait_slow(ev, deadline, bell, true)) != 0)
			return r < 0 ? r : 0;
		if (spin(ev))
			return 0;
		__atomic_store_n(vk_asleep, 1, __ATOMIC_SEQ_CST);
		if (scan(ev)) {
			*vk_asleep = 0;
			return 0;
		}
		now = plat_clock_ns(CLOCK_MONOTONIC);
		check = now + LOST_CHECK_NS;
		if (spin_ns > 0)
			check = now + LEND_AFTER_NS;
		else if (spin_max > 0 && !lent && now - taken_back < LEND_GAP_NS)
			check = taken_back + LEND_GAP_NS;
		else if (spin_max > 0)
			cpu_lend(true);
		r = event_wait_slow(ev, deadline >= 0 && deadline < check ?
		    deadline : check, bell, false);
		*vk_asleep = 0;
		if (r > 0 && ev->kind == PLAT_EV_TIMEOUT &&
		    (deadline < 0 || deadline >= check)) {
			/* Its own: look again; the guest made no call. */
			ev->kind = PLAT_EV_NONE;
			spin_ns = 0;
			continue;
		}
		if (r != 0)
			return r < 0 ? r : 0;
	}
}
