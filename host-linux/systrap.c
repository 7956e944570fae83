/*
 * The systrap platform: ptrace only on each stub's leader, the control
 * thread (starting the stub, injected clones and mapping batches); the
 * guest runs in stub threads ptrace does not follow, under a seccomp
 * filter.  A guest syscall traps to the stub's SIGSYS handler, which
 * posts its signal frame in the thread's area (RAM-file pages vkernel
 * maps too), rings vkernel's doorbell eventfd and sleeps on its message
 * word; vkernel reads and edits the registers in the frame, sets the word
 * and wakes it, and rt_sigreturn resumes the guest.  Faults come the same
 * way.  A stopped guest thread costs no ptrace stop: a trap is a signal
 * and, when vkernel has a CPU of its own and spins, no context switch.
 * New threads and forked processes are injected clones and forks of the
 * control thread; a thread that ends is parked in its handler for the
 * next, SPARE_MAX of them, and one beyond those exits, its area freed.
 *
 * The guest can write its areas (they are in its address space) at any
 * time, from any of its threads: a message and a frame are untrusted
 * input, read once, bounds-checked against the area, and a frame that
 * fails the checks ends the guest process.  The filter (stub.S has the
 * rest) lets the handler's own calls run only from stub_hsys, each
 * pinned as far as the filter can: whatever registers a guest jumps
 * there with, it reaches no other host call.
 *
 * A syscall site "mov $NR, %eax; syscall" that trapped is patched into a
 * jump to the stub's trampoline, which posts the call without a signal
 * (systrap_patch.c).
 *
 * This file: the filter and the constants page every stub gets, vkernel's
 * own CPU, and the spaces and the life of their threads (areas, starting,
 * parking, ending, forking); the hand-off itself, frames, messages and
 * events, is systrap_msg.c's.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <asm/prctl.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sched.h>

#include "host-linux/host.h"
#include "host-linux/plat_ops.h"
#include "host-linux/stub/stub.h"
#include "host-linux/stubctl.h"
#include "host-linux/systrap.h"
#include "vkern/kern/kern.h"
#include "vkern/platform.h"
#include "vkern/vk.h"

_Static_assert(STUB_AREA_SIZE == RAM_AREA_SIZE, "a thread area is a slot");
_Static_assert(sizeof(cpu_set_t) == STUB_CPUS_SIZE, "the CPUs' mask");
/* A process has areas for as many threads as the kernel has tasks. */
_Static_assert(STUB_AREA_MAX >= KERN_MAX_TASKS && STUB_AREA_MAX % 64 == 0,
    "areas");

/*
 * Threads kept per space when their guest threads end, for the next new
 * ones: a new thread costs an injected clone and its start-up, a parked
 * one a register load; one beyond these ends, area and all.
 */
#define SPARE_MAX        64

/* From the kernel's UAPI signal headers, which clash with libc's. */
#define SA_RESTORER  0x04000000

static uint64_t const_off;
static cpu_set_t own_cpu;   /* vkernel's, when it has one: msg_spinning() */

#define LD(off)      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define RET(v)       BPF_STMT(BPF_RET | BPF_K, (v))
#define IS(k, t, f)  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define GE(k, t, f)  BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (k), (t), (f))
#define ARG_LO(i)    (offsetof(struct seccomp_data, args) + 8 * (i))
#define ARG_HI(i)    (ARG_LO(i) + 4)

/*
 * A guest thread's filter: a call of another architecture (int $0x80, a
 * 32-bit code segment) traps, never runs, and the kernel's gate check
 * makes it the SIGSEGV Linux without IA32 emulation gives; outside the
 * stub every call traps; the injection site, which only the traced
 * control thread uses, is SECCOMP_RET_TRACE (for an untraced thread:
 * -ENOSYS, never run); at
 * stub_hsys the handler's calls run, pinned (a futex only in the areas,
 * so a handler whose signal stack a guest moved dies there); at
 * stub_exit_sys a thread's exit, which a guest that jumps there makes
 * of its own thread; the rest of the stub traps.
 */
static const struct sock_filter filter[] = {
	/* 0 */ LD(offsetof(struct seccomp_data, arch)),
	/* 1 */ IS(AUDIT_ARCH_X86_64, 1, 0),
	/* 2 */ RET(SECCOMP_RET_TRAP),
	/* 3 */ LD(offsetof(struct seccomp_data, instruction_pointer) + 4),
	/* 4 */ IS(STUB_BASE >> 32, 1, 0),
	/* 5 */ RET(SECCOMP_RET_TRAP),
	/* 6 */ LD(offsetof(struct seccomp_data, instruction_pointer)),
	/* 7 */ IS((uint32_t)(STUB_SYSCALL1 + 2), 0, 1),
	/* 8 */ RET(SECCOMP_RET_TRACE),
	/* 9 */ IS((uint32_t)(STUB_HSYS + 2), 5, 0),
	/* 10 */ IS((uint32_t)(STUB_EXIT_SYS + 2), 0, 3),
	/* 11 */ LD(offsetof(struct seccomp_data, nr)),
	/* 12 */ IS(SYS_exit, 0, 1),
	/* 13 */ RET(SECCOMP_RET_ALLOW),
	/* 14 */ RET(SECCOMP_RET_TRAP),
	/* 15 */ LD(offsetof(struct seccomp_data, nr)),
	/* 16 */ IS(SYS_rt_sigreturn, 0, 1),
	/* 17 */ RET(SECCOMP_RET_ALLOW),
	/* 18 */ IS(SYS_futex, 0, 8),
	/* 19 */ LD(ARG_LO(1)),
	/* 20 */ IS(FUTEX_WAIT, 0, 19),
	/* 21 */ LD(ARG_HI(0)),
	/* 22 */ IS(STUB_BASE >> 32, 0, 17),
	/* 23 */ LD(ARG_LO(0)),
	/* 24 */ GE((uint32_t)STUB_AREAS, 0, 15),
	/* 25 */ GE((uint32_t)STUB_END, 14, 0),
	/* 26 */ RET(SECCOMP_RET_ALLOW),
	/* 27 */ IS(SYS_arch_prctl, 0, 4),
	/* 28 */ LD(ARG_LO(0)),
	/* 29 */ IS(ARCH_SET_FS, 1, 0),
	/* 30 */ IS(ARCH_SET_GS, 0, 9),
	/* 31 */ RET(SECCOMP_RET_ALLOW),
	/* 32 */ IS(SYS_write, 0, 7),
	/* 33 */ LD(ARG_LO(0)),
	/* 34 */ IS(STUB_BELL_FD, 0, 5),
	/* 35 */ LD(ARG_LO(2)),
	/* 36 */ IS(8, 0, 3),
	/* 37 */ LD(ARG_HI(2)),
	/* 38 */ IS(0, 0, 1),
	/* 39 */ RET(SECCOMP_RET_ALLOW),
	/* 40 */ RET(SECCOMP_RET_KILL_PROCESS),
};

/* The constants page every systrap stub maps read-only (stub.h). */
static void
const_page_fill(void *page)
{
	uint64_t *sa = (uint64_t *)((char *)page +
	    (STUB_CONST_SIGACT - STUB_CONST_PAGE));
	uint64_t *one = (uint64_t *)((char *)page +
	    (STUB_CONST_ONE - STUB_CONST_PAGE));
	struct sock_fprog *fp = (struct sock_fprog *)((char *)page +
	    (STUB_CONST_FPROG - STUB_CONST_PAGE));

	/* Every signal blocked in the handler: one in it kills the stub. */
	sa[0] = STUB_HANDLER;
	sa[1] = SA_SIGINFO | SA_ONSTACK | SA_RESTORER;
	sa[2] = STUB_HSYS;
	sa[3] = ~0ULL;
	*one = 1;
	msg_const_fill(page);
	memcpy((char *)page + (STUB_CONST_CPUS - STUB_CONST_PAGE),
	    hostinfo_guest_cpus(), sizeof(cpu_set_t));
	fp->len = VK_NELEM(filter);
	fp->filter = (struct sock_filter *)STUB_CONST_FILTER;
	memcpy((char *)page + (STUB_CONST_FILTER - STUB_CONST_PAGE), filter,
	    sizeof(filter));
}

/*
 * vkernel on a host CPU the guest does not run on, when the host lets it
 * use one; there it spins.  The guest's threads keep to the guest's CPUs
 * while it spins, and may use vkernel's too while it does not
 * (systrap_msg.c).  The stubs' control threads join vkernel: a ptrace
 * stop across CPUs costs ten times one on the same CPU, and they run
 * only while vkernel waits.
 */
static int
cpu_place(struct vk_error **err)
{
	const cpu_set_t *host = hostinfo_host_cpus();
	const cpu_set_t *guest = hostinfo_guest_cpus();

	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, host) || CPU_ISSET(c, guest))
			continue;
		CPU_ZERO(&own_cpu);
		CPU_SET(c, &own_cpu);
		if (sched_setaffinity(0, sizeof(own_cpu), &own_cpu) < 0)
			return vk_error_make(err, errno, "move to CPU %d", c);
		msg_spin_start(&own_cpu);
		return 0;
	}
	return 0;
}

static int
systrap_init(struct vk_error **err)
{
	void *page;
	int bell, slot, r;

	if ((r = stubctl_init(err)) < 0 || (r = cpu_place(err)) < 0)
		return r;
	patch_init(msg_spinning());
	bell = msg_bell_open();
	if (bell < 0)
		return vk_error_make(err, errno, "create the doorbell");
	if ((slot = ram_ctl_alloc()) < 0)
		return vk_error_make(err, EAGAIN, "the stubs' constants page");
	page = ram_ctl_page((unsigned)slot, &const_off);
	const_page_fill(page);
	stubctl_set_bell(bell);
	/*
	 * A stub's start-up is a run of ptrace stops, each ten times dearer
	 * across CPUs: it starts on vkernel's, where its control thread
	 * stays; its guest threads move to the guest's as they start.
	 */
	if (msg_spinning())
		stubctl_set_cpus(&own_cpu);
	return 0;
}

/* --- areas --- */

/* The lowest area of sp no thread has, or -1. */
static int
area_free_index(const struct plat_space *sp)
{
	for (unsigned w = 0; w < VK_NELEM(sp->areas); w++)
		if (~sp->areas[w] != 0)
			return (int)(w * 64 + (unsigned)__builtin_ctzll(
			    ~sp->areas[w]));
	return -1;
}

static void
area_mark(struct plat_space *sp, int aslot, bool used)
{
	uint64_t bit = 1ULL << (aslot % 64);

	if (used)
		sp->areas[aslot / 64] |= bit;
	else
		sp->areas[aslot / 64] &= ~bit;
}

/* A free area of sp, taken for pt: its RAM file offset in *offp. */
static int
area_take(struct plat_space *sp, struct plat_thread *pt, uint64_t *offp)
{
	int slot;

	if ((pt->aslot = area_free_index(sp)) < 0 ||
	    (slot = ram_area_alloc()) < 0)
		return -EAGAIN;
	pt->area = ram_area((unsigned)slot, offp);
	pt->area->self = area_va(pt);
	pt->ramslot = slot;
	area_mark(sp, pt->aslot, true);
	return 0;
}

static void
area_drop(struct plat_space *sp, struct plat_thread *pt)
{
	area_mark(sp, pt->aslot, false);
	ram_area_free((unsigned)pt->ramslot);
}

/* Map a free area of sp for pt; 0 or -EAGAIN. */
static int
area_map(struct plat_space *sp, struct plat_thread *pt)
{
	uint64_t off;
	long r;

	if (area_take(sp, pt, &off) < 0)
		return -EAGAIN;
	r = stub_syscall(sp->main, SYS_mmap, area_va(pt), STUB_AREA_SIZE,
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, STUB_RAM_FD, off);
	if (r != (long)area_va(pt)) {
		area_drop(sp, pt);
		return -EAGAIN;
	}
	return 0;
}

/* --- threads --- */

/*
 * Run r, which clones a guest thread, in sp's control thread moved to the
 * guest's CPUs for it: the thread is born there, where it runs, and its
 * move away from vkernel's CPU costs none of the migration a running
 * thread's costs (the host's stopper thread and its interrupt), which is
 * more than this one stop of the control thread across CPUs.
 */
static int
clone_call(struct plat_space *sp, struct arch_regs *r)
{
	int e;

	if (!msg_spinning())
		return stub_call(sp->main, r);
	(void)sched_setaffinity(sp->main->tid, sizeof(cpu_set_t),
	    hostinfo_guest_cpus());
	e = stub_call(sp->main, r);
	(void)sched_setaffinity(sp->main->tid, sizeof(cpu_set_t), &own_cpu);
	return e;
}

/* A new thread's first trap, with a frame that passes the checks. */
static int
thread_ready(struct plat_thread *pt)
{
	size_t n;

	if (msg_wait(pt, msg_take, 5000) < 0 || frame_uc(pt) == NULL ||
	    frame_fpu(pt, &n) == NULL)
		return -EAGAIN;
	return 0;
}

/*
 * The clone flags of a guest thread, which ptrace does not follow.  The
 * host clears the area's tid word when the thread ends: vkernel sees a
 * thread that ended without being sent to its end (a guest that jumped
 * to the stub's exit) and an area the host is done with.
 */
#define GUEST_CLONE (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
	CLONE_THREAD | CLONE_SYSVSEM | CLONE_UNTRACED | CLONE_CHILD_CLEARTID)

static struct plat_thread *
thread_alloc(struct plat_space *sp)
{
	struct plat_thread *pt = vk_xcalloc(1, sizeof(*pt));

	pt->sp = sp;
	pt->ramslot = -1;
	return pt;
}

/*
 * pt, cloned in sp as host thread tid, given its guest thread and held
 * at its first trap.  Returns 0, or -EAGAIN when it never got there (the
 * caller kills the stub).
 */
static int
thread_start(struct plat_space *sp, struct plat_thread *pt, pid_t tid,
    void *cookie, struct arch_context *ctx, struct plat_thread **ptp)
{
	pt->tid = tid;
	/* Before vkernel scans the area: the host clears it at the end. */
	__atomic_store_n(&pt->area->tid, (uint32_t)tid, __ATOMIC_RELAXED);
	pt->cookie = cookie;
	pt->ctx = ctx;
	thread_link(sp, pt, false);
	pt->held = false;
	msg_guest_link(pt);
	if (thread_ready(pt) < 0)
		return -EAGAIN;
	msg_guest_place(pt);
	*ptp = pt;
	return 0;
}

/*
 * A new guest thread in sp, made by the control thread, held at its
 * first trap.  Returns 0 or -EAGAIN.
 */
static int
thread_new(struct plat_space *sp, void *cookie, struct arch_context *ctx,
    struct plat_thread **ptp)
{
	struct plat_thread *pt = thread_alloc(sp);
	struct arch_regs r = sp->tmpl;
	int e;

	if ((e = area_map(sp, pt)) < 0) {
		free(pt);
		return e;
	}
	r.rip = STUB_CLONE;
	r.rax = SYS_clone;
	r.rdi = GUEST_CLONE;
	r.rsi = area_va(pt) + STUB_ALT_OFF;
	r.r10 = area_va(pt) + STUB_MSG_TID;
	r.rdx = r.r8 = 0;
	r.r12 = area_va(pt);
	if ((e = clone_call(sp, &r)) < 0 || (long)r.rax <= 0) {
		area_drop(sp, pt);
		free(pt);
		return -EAGAIN;
	}
	return thread_start(sp, pt, (pid_t)r.rax, cookie, ctx, ptp);
}

static void
systrap_space_destroy(struct plat_space *sp)
{
	struct plat_thread *pt;
	unsigned n = 0;
	int *slots;

	for (pt = sp->threads; pt != NULL; pt = pt->snext)
		n++;
	slots = vk_xcalloc(n, sizeof(*slots));
	n = 0;
	for (pt = sp->threads; pt != NULL; pt = pt->snext) {
		if (pt == sp->main)
			continue;
		msg_guest_unlink(pt);
		if (pt->ramslot >= 0)
			slots[n++] = pt->ramslot;
	}
	patch_space_free(sp);
	/* Killed first: a dead stub writes no area any more. */
	stub_space_free(sp);
	while (n > 0)
		ram_area_free((unsigned)slots[--n]);
	free(slots);
}

static int
systrap_space_create(void *cookie, struct arch_context *ctx,
    struct plat_space **spp, struct plat_thread **ptp,
    struct plat_space_info *info)
{
	struct plat_space *sp;
	long r;
	int e;

	if ((e = stub_space_new(&sp, info)) < 0)
		return e;
	/* The leader stays the control thread: it never runs the guest. */
	sp->main->retired = true;
	r = stub_syscall(sp->main, SYS_mmap, STUB_CONST_PAGE, VK_PAGE_SIZE,
	    PROT_READ, MAP_SHARED | MAP_FIXED, STUB_RAM_FD, const_off);
	if (r == (long)STUB_CONST_PAGE)
		patch_space_map(sp, info);
	if (r != (long)STUB_CONST_PAGE ||
	    (e = thread_new(sp, cookie, ctx, ptp)) < 0) {
		systrap_space_destroy(sp);
		return -EAGAIN;
	}
	ctx->regs = sp->tmpl;
	ctx->dirty = ARCH_DIRTY_ALL;
	*spp = sp;
	return 0;
}

/*
 * Send held pt's host thread to its end: its frame returns to STUB_EXIT
 * with every signal blocked (a pending interrupt would take the handler
 * back into the area), which exits; the host clears the area's tid word
 * once the thread is done with it, and ended_reap frees the area then.
 * False when pt's frame is bad.
 */
static bool
thread_end(struct plat_thread *pt)
{
	struct frame_uc *u = frame_uc(pt);

	if (u == NULL || pt->fast || !pt->held)
		return false;
	u->rip = STUB_EXIT;
	u->rsp = 0;
	u->eflags = 0x202;   /* no trap flag of the guest's on the way */
	frame_host_fields(pt, u);
	u->sigmask = ~0ULL;
	pt->area->set = 0;
	msg_answer(pt);
	pt->ending = true;
	return true;
}

/*
 * The threads of sp sent to their end that have left their areas: each
 * area goes from the stub (a stub call: batches never touch the stub's
 * own range) and then from the RAM file, which must not give another
 * process a page this stub still maps.  One that never gets there
 * (another guest thread wrote its frame) keeps its area until the stub
 * goes.
 */
static void
ended_reap(struct plat_space *sp)
{
	struct plat_thread *pt, *next;

	for (pt = sp->threads; pt != NULL; pt = next) {
		next = pt->snext;
		if (!pt->ending || __atomic_load_n(&pt->area->tid,
		    __ATOMIC_ACQUIRE) != 0)
			continue;
		if (stub_syscall(sp->main, SYS_munmap, area_va(pt),
		    STUB_AREA_SIZE, 0, 0, 0, 0) != 0)
			continue;
		area_drop(sp, pt);
		thread_unlink(pt);
		thread_free(pt);
	}
}

/*
 * A thread that ends waits in its handler for the space's next new
 * thread, up to SPARE_MAX of them; beyond that it ends, area and all.
 */
static void
systrap_thread_destroy(struct plat_thread *pt)
{
	if (!pt->held && !msg_take(pt))
		systrap_thread_interrupt(pt);
	/* A parked thread waits in its handler. */
	if (pt->fast)
		(void)fast_to_frame(pt);
	msg_guest_unlink(pt);
	ended_reap(pt->sp);
	if (pt->sp->nspare >= SPARE_MAX && thread_end(pt))
		return;
	msg_hold(pt);
	pt->cookie = NULL;
	pt->ctx = NULL;
	pt->regs_part = false;
	pt->spare = true;
	pt->sp->nspare++;
}

/* from's FPU state into held pt's frame, as a thread or fork inherits it. */
static int
fpu_copy(struct plat_thread *from, struct plat_thread *pt)
{
	/* The largest XSAVE image (AMX's is ~11 KiB); one event loop. */
	static uint8_t fpu[32768];
	long n = systrap_thread_fpu_get(from, fpu, sizeof(fpu));

	return n < 0 ? (int)n : systrap_thread_fpu_set(pt, fpu, (size_t)n);
}

/* Whether sp's only area in use is its first. */
static bool
area_first_only(const struct plat_space *sp)
{
	if (sp->areas[0] != 1)
		return false;
	for (unsigned w = 1; w < VK_NELEM(sp->areas); w++)
		if (sp->areas[w] != 0)
			return false;
	return true;
}

/* What a forked stub's first stop does, and the thread it makes. */
struct fork_setup {
	bool drop_areas;          /* the parent's areas go first */
	struct plat_thread *pt;
	pid_t tid;
};

/*
 * A forked stub's first stop (stub_child): its batch page, the parent's
 * areas gone, its guest thread's area and the thread, in one stop of the
 * control thread where each was one.
 */
static int
fork_setup(struct plat_space *sp, uint64_t ctloff, void *arg)
{
	struct fork_setup *fs = arg;
	struct plat_thread *pt = thread_alloc(sp);
	struct arch_regs r = sp->tmpl;
	uint64_t off;

	if (area_take(sp, pt, &off) < 0) {
		free(pt);
		return -EAGAIN;
	}
	r.rip = STUB_CHILD;
	r.r12 = ctloff;
	r.rbp = fs->drop_areas;
	r.r13 = off;
	r.r14 = area_va(pt);
	r.rbx = GUEST_CLONE;
	if (clone_call(sp, &r) < 0 || r.r15 != 3 || (long)r.rax <= 0) {
		area_drop(sp, pt);
		free(pt);
		return -EAGAIN;
	}
	fs->pt = pt;
	fs->tid = (pid_t)r.rax;
	return 0;
}

/*
 * The child's stub is a fork of the parent's control thread, made while
 * from waits in its handler.  It has the parent's areas mapped, shared
 * through the RAM file: they go before its own guest thread is made, so
 * the child cannot touch the parent's messages.  A parent with one
 * thread has only the first, which the child's own area, mapped over
 * it, replaces.
 */
static int
systrap_space_fork(struct plat_thread *from, void *cookie,
    struct arch_context *ctx, struct plat_space **spp,
    struct plat_thread **ptp)
{
	struct fork_setup fs = { .drop_areas = !area_first_only(from->sp) };
	struct plat_space *sp;
	int e;

	msg_hold(from);
	if ((e = stub_space_fork(from->sp->main, &sp, fork_setup, &fs)) < 0)
		return e;
	sp->main->retired = true;
	patch_space_fork(from->sp, sp);
	if (thread_start(sp, fs.pt, fs.tid, cookie, ctx, ptp) < 0 ||
	    fpu_copy(from, *ptp) < 0) {
		systrap_space_destroy(sp);
		return -EAGAIN;
	}
	*spp = sp;
	return 0;
}

/*
 * A parked thread of sp (a guest thread that ended) that waits in its
 * handler, for a new guest thread; NULL when there is none.
 */
static struct plat_thread *
parked_take(struct plat_space *sp)
{
	for (struct plat_thread *pt = sp->threads; pt != NULL;
	    pt = pt->snext) {
		if (pt == sp->main || !pt->spare || pt->fast ||
		    (!pt->held && !msg_take(pt)))
			continue;
		if (frame_uc(pt) == NULL)
			continue;
		pt->spare = false;
		pt->sp->nspare--;
		/* The guest may have written them while the thread waited. */
		__atomic_store_n(&pt->area->tid, (uint32_t)pt->tid,
		    __ATOMIC_RELAXED);
		pt->area->self = area_va(pt);
		pt->interrupted = false;
		pt->regs_valid = false;
		msg_guest_link(pt);
		msg_guest_place(pt);
		return pt;
	}
	return NULL;
}

static int
systrap_thread_create(struct plat_thread *from, void *cookie,
    struct arch_context *ctx, struct plat_thread **ptp)
{
	struct plat_thread *pt = parked_take(from->sp);
	int e;

	if (pt != NULL) {
		pt->cookie = cookie;
		pt->ctx = ctx;
		stub_thread_cputime_reset(pt);
	} else {
		msg_hold(from);
		ended_reap(from->sp);
		if ((e = thread_new(from->sp, cookie, ctx, &pt)) < 0)
			return e;
	}
	if (fpu_copy(from, pt) < 0) {
		systrap_thread_destroy(pt);
		return -EAGAIN;
	}
	*ptp = pt;
	return 0;
}


/*
 * Taking pages out of a stub (munmap, and the discard of the RAM behind
 * them that follows) flushes the TLB of every CPU the stub's memory is
 * live on: a handler that spins for its answer on the guest's CPU costs
 * an IPI for each such call of the batch and each discard.  The threads
 * vkernel holds sleep instead: an idle CPU is left out of the flushes
 * that free no page tables, and a sleeping handler costs one wake-up.
 * A lone unmap does not gain: its flush frees page tables, which reaches
 * the guest's CPU asleep or not, and the wake-up comes on top.  So they
 * sleep from a batch's second change on: exec's unmapping of the old
 * image, a munmap across entries.
 */
static void
systrap_space_unmap(struct plat_space *sp, uint64_t va, uint64_t len)
{
	if (sp->nbatch > 0)
		for (struct plat_thread *pt = sp->threads; pt != NULL;
		    pt = pt->snext)
			if (pt != sp->main)
				msg_hold(pt);
	stub_space_unmap(sp, va, len);
}

static void
systrap_thread_yield(struct plat_thread *pt)
{
	/*
	 * pt waits in its handler, off the CPU once its short spin is over:
	 * the other guest threads have the guest's CPUs already.
	 */
}

const struct plat_ops systrap_ops = {
	.name = "systrap",
	.init = systrap_init,
	.space_create = systrap_space_create,
	.space_fork = systrap_space_fork,
	.space_destroy = systrap_space_destroy,
	.space_map = stub_space_map,
	.space_unmap = systrap_space_unmap,
	.space_protect = stub_space_protect,
	.space_flush = stub_space_flush,
	.space_own_release = patch_space_release,
	.space_own_reclaim = patch_space_reclaim,
	.space_cputime = stub_space_cputime,
	.thread_create = systrap_thread_create,
	.thread_destroy = systrap_thread_destroy,
	.thread_run = systrap_thread_run,
	.thread_regs_load = fast_load_rest,
	.thread_fpu_get = systrap_thread_fpu_get,
	.thread_fpu_set = systrap_thread_fpu_set,
	.thread_yield = systrap_thread_yield,
	.thread_interrupt = systrap_thread_interrupt,
	.thread_cputime = stub_thread_cputime,
	.event_wait = systrap_event_wait,
};
