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
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>

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

/* The XSAVE image's software bytes (struct _fpx_sw_bytes) at 464. */
#define FP_SW_OFF       464
#define FP_XSTATE_MAGIC1 0x46505853U
#define FP_XSAVE_HDR    512
#define FP_XSAVE_MIN    (FP_XSAVE_HDR + 64)

static int bell = -1;
static uint64_t const_off;
static volatile uint32_t *vk_asleep;   /* the constants page's word */
static int64_t spin_ns;     /* vkernel's spin now, when spin_max > 0 */
static int64_t spin_max;    /* VK_SPIN_MAX_NS with a CPU of its own, or 0 */
static unsigned spin_idle;  /* waits without a spin since it stopped */
static int64_t handler_spin_ns;  /* the handlers' spin, measured, or 0 */
static cpu_set_t own_cpu;   /* vkernel's, when it has one: spin_max > 0 */
static struct plat_thread *guests;   /* every guest thread, by gnext */
static struct plat_thread *scan_from;
static struct plat_thread *last_ev;   /* the thread of the last event */

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
	vk_asleep = (volatile uint32_t *)((char *)page +
	    (STUB_CONST_ASLEEP - STUB_CONST_PAGE));
	*vk_asleep = 1;
	*(uint32_t *)((char *)page + (STUB_CONST_SPIN - STUB_CONST_PAGE)) =
	    handler_spin_pauses();
	memcpy((char *)page + (STUB_CONST_CPUS - STUB_CONST_PAGE),
	    hostinfo_guest_cpus(), sizeof(cpu_set_t));
	fp->len = VK_NELEM(filter);
	fp->filter = (struct sock_filter *)STUB_CONST_FILTER;
	memcpy((char *)page + (STUB_CONST_FILTER - STUB_CONST_PAGE), filter,
	    sizeof(filter));
}

/*
 * vkernel on a host CPU the guest does not run on, when the host lets it
 * use one (the guest threads keep to the guest's); there it spins.  The
 * stubs' control threads join it: a ptrace stop across CPUs costs ten
 * times one on the same CPU, and they run only while vkernel waits.
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
		spin_ns = spin_max = VK_SPIN_MAX_NS;
		return 0;
	}
	return 0;
}

static int
systrap_init(struct vk_error **err)
{
	void *page;
	int slot, r;

	if ((r = stubctl_init(err)) < 0 || (r = cpu_place(err)) < 0)
		return r;
	patch_init(spin_max > 0);
	bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
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
	if (spin_max > 0)
		stubctl_set_cpus(&own_cpu);
	return 0;
}

static long systrap_thread_fpu_get(struct plat_thread *pt, void *buf,
    size_t size);
static int systrap_thread_fpu_set(struct plat_thread *pt, const void *buf,
    size_t size);

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
static uint8_t *
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

void
regs_from_frame(const struct frame_uc *u, struct arch_regs *r)
{
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
}

/*
 * The frame's fields the host reads at rt_sigreturn beside the guest's
 * registers, put back as the handler needs them whatever the guest wrote
 * there (another of its threads can while this one is held): its signal
 * stack, an empty mask, the 64-bit segments and the XSAVE image the
 * frame had.
 */
static void
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

/* Load the guest's registers into the frame. */
static void
regs_to_frame(struct plat_thread *pt, struct frame_uc *u)
{
	const struct arch_regs *r = &pt->ctx->regs;

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

/* --- threads --- */

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
	if (handler_spin_ns > 0)
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
static void
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

/* The clone flags of a guest thread, which ptrace does not follow. */
#define GUEST_CLONE (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
	CLONE_THREAD | CLONE_SYSVSEM | CLONE_UNTRACED)

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
	/*
	 * Off vkernel's CPU before it runs there: it starts on the control
	 * thread's, where vkernel now spins for its first trap.
	 */
	if (spin_max > 0)
		(void)sched_setaffinity(tid, sizeof(cpu_set_t),
		    hostinfo_guest_cpus());
	pt->cookie = cookie;
	pt->ctx = ctx;
	thread_link(sp, pt, false);
	pt->held = false;
	pt->gnext = guests;
	guests = pt;
	if (thread_ready(pt) < 0)
		return -EAGAIN;
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
	r.rdx = r.r10 = r.r8 = 0;
	r.r12 = area_va(pt);
	if ((e = stub_call(sp->main, &r)) < 0 || (long)r.rax <= 0) {
		area_drop(sp, pt);
		free(pt);
		return -EAGAIN;
	}
	return thread_start(sp, pt, (pid_t)r.rax, cookie, ctx, ptp);
}

static void
guest_unlink(struct plat_thread *pt)
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
		guest_unlink(pt);
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
 * back into the area), which says when the area is done with and exits;
 * ended_reap frees the area then.  False when pt's frame is bad.
 */
static bool
thread_end(struct plat_thread *pt)
{
	struct frame_uc *u = frame_uc(pt);

	if (u == NULL || pt->fast || !pt->held)
		return false;
	u->rip = STUB_EXIT;
	u->rdi = area_va(pt);
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
		if (!pt->ending || __atomic_load_n(&pt->area->state,
		    __ATOMIC_ACQUIRE) != MSG_GONE)
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
	guest_unlink(pt);
	ended_reap(pt->sp);
	if (pt->sp->nspare >= SPARE_MAX && thread_end(pt))
		return;
	msg_hold(pt);
	pt->cookie = NULL;
	pt->ctx = NULL;
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
	if (stub_call(sp->main, &r) < 0 || r.r15 != 3 || (long)r.rax <= 0) {
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
		pt->interrupted = false;
		pt->regs_valid = false;
		pt->gnext = guests;
		guests = pt;
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


/* --- running --- */

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

static void
systrap_thread_yield(struct plat_thread *pt)
{
	/*
	 * pt waits in its handler, off the CPU once its short spin is over:
	 * the other guest threads have the guest's CPUs already.
	 */
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

static long
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
static int
systrap_thread_fpu_set(struct plat_thread *pt, const void *buf, size_t size)
{
	const uint8_t *in = buf;
	uint32_t mxcsr, mask;
	uint64_t hdr[8], sw_feat;
	uint8_t *fp;
	size_t n;

	if (pt->fast && fast_to_frame(pt) < 0)
		return -EFAULT;
	if (!pt->held || (fp = frame_fpu(pt, &n)) == NULL)
		return -EFAULT;
	if (size < FP_XSAVE_HDR)
		return -EINVAL;
	memcpy(&mxcsr, in + 24, 4);
	memcpy(&mask, fp + 28, 4);
	if ((mxcsr & ~(mask != 0 ? mask : 0xffbf)) != 0)
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
	regs_from_frame(u, &pt->ctx->regs);
	pt->ctx->regs.fs_base = pt->fs_base;
	pt->ctx->regs.gs_base = pt->gs_base;
	pt->ctx->dirty = 0;
	pt->regs_valid = true;
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
			if (pt->sp->dead && !pt->spare) {
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
static int
systrap_event_wait(struct plat_event *ev, int64_t deadline)
{
	memset(ev, 0, sizeof(*ev));
	if (last_ev != NULL) {
		msg_hold(last_ev);
		last_ev = NULL;
	}
	for (;;) {
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
		r = event_wait_slow(ev, deadline, bell, false);
		*vk_asleep = 0;
		if (r != 0)
			return r < 0 ? r : 0;
	}
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
	.thread_fpu_get = systrap_thread_fpu_get,
	.thread_fpu_set = systrap_thread_fpu_set,
	.thread_yield = systrap_thread_yield,
	.thread_interrupt = systrap_thread_interrupt,
	.thread_cputime = stub_thread_cputime,
	.event_wait = systrap_event_wait,
};
