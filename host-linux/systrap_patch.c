/*
 * Syscall-site patching for the systrap platform: a guest syscall at a
 * patched site reaches vkernel with no host signal at all.
 *
 * When a guest syscall traps at a site whose 7 bytes are "mov $NR, %eax;
 * syscall" and NR is one whose answer seldom needs more than rax, the
 * site is rewritten to "jmp *ABS32" (ff 24 25 disp32) through a slot of
 * the table stub.h's STUB_PATCH_BASE holds: one read-only region below
 * 2 GiB, the same in every stub (the kernel keeps it out of the guest's
 * reach as it does the vdso: plat_space_info.own_start).  A slot leads
 * to its entry, "mov $slot, %eax; jmp *STUB_PATCH_PTR", and on to the
 * stub's trampoline (stub.S), which saves the guest's registers in the
 * thread's area, posts the slot (fstate) and spins for the answer, then
 * sleeps on that word (at once when vkernel holds a call that blocks).
 * The slot names the site: vkernel keeps each space's sites (address and
 * NR) itself, so the return address and the number come from vkernel,
 * never from the guest.  The trampoline finds its area through GS, which
 * is the area while the guest has no GS base of its own: the area's
 * self word, read through GS, must be an area's address.  With any
 * other GS it takes the slot's trapping way, a syscall instruction of
 * the trampoline's with the slot in rax, which vkernel knows by rip and
 * serves as the site's own; a GS whose read faults gets the same from
 * the fault.  No rdgsbase, so hosts without FSGSBASE patch too.  The
 * self word is the guest's to write, as the whole area is: a guest that
 * points it (or its GS base) at another thread's area posts there, which
 * the guest can do by writing that area anyway.  Its one host call is
 * the doorbell through stub_hsys, whose filter rules pin it as for the
 * handler: a guest that jumps into the table, the entries or the
 * trampoline with registers of its own reaches no other host call.
 *
 * An answer that changes only rax goes back through the area.  Anything
 * more (another register, the FPU state, a signal to deliver) needs the
 * signal frame: vkernel asks the trampoline to trap (FAST_TRAP), a
 * syscall vkernel knows by its rip and never serves, and answers that
 * frame with every register.  So a call runs once whichever way it ends.
 *
 * Races and odd guests:
 * - The patch is written int3 first, then the byte where the syscall
 *   instruction began (bits 16-23 of every table address: 0x06, an
 *   invalid opcode), then the rest, then the jump's first byte.  A thread
 *   that was between the two old instructions faults at that byte, and
 *   vkernel serves the call rax names, as that syscall instruction would
 *   have (a restart the kernel asks for comes back there too); one that
 *   meets the int3 starts again at the site.  The steps are stores from
 *   vkernel's CPU while other threads of the space may run the site on
 *   the guest's: after the int3 and the invalid byte, and again before
 *   the jump's first byte, every CPU that runs the stub serializes
 *   (cores_sync), as between a kernel's text poke steps, so that none
 *   runs bytes it fetched before the step; a host that refuses that gets
 *   no patch.  A page copied on the first write reaches the stub, whole,
 *   only at the next flush.
 * - The patched bytes live in a private copy of the page, made as a
 *   debugger's write makes one (kern_text_replace): a file's cached
 *   pages, read() of it and other processes keep the original bytes.
 *   What the guest reads of its own text in memory is the patch.
 * - Writable text (a JIT's) is never patched; text the guest makes
 *   writable and writes is the guest's again, and a site whose patch is
 *   gone is forgotten when its slot is wanted.
 * - fork keeps the parent's sites (the child's pages are the parent's);
 *   exec leaves sites that no longer hold their patch, reused as above.
 * - A guest mapping call that names an address in the region (mmap
 *   MAP_FIXED, munmap, mremap, shmat) gets it, as Linux would give it:
 *   every thread of the space is stopped, one found in a slot's entry
 *   put back at its site, the sites get their original bytes back, the
 *   region goes and the space patches nothing more; an exec maps it
 *   again for the new image.  Only the entries run in the region.
 * - A signal that finds a thread in the trampoline: before the message
 *   is posted it is answered at once (the message follows); while the
 *   message waits, the call is taken with that frame; after the answer,
 *   the trampoline's remaining work is done in vkernel (the registers
 *   it would restore) and the thread stops at the site's next
 *   instruction.  A thread found waiting there with no message of its
 *   own (a guest that jumped in) gets SIGSEGV.
 * - A thread that single-steps through a site gets the traps its own
 *   bytes would give (step_entry): none in the patching's code.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <linux/membarrier.h>

#include "host-linux/host.h"
#include "host-linux/stubctl.h"
#include "host-linux/systrap.h"
#include "vkern/vk.h"

_Static_assert(STUB_PATCH_SIZE == RAM_AREA_SIZE, "the region is an area slot");
_Static_assert(STUB_PATCH_PTR + 8 <= STUB_PATCH_BASE + STUB_PATCH_SIZE, "");
_Static_assert(STUB_PATCH_CODE + 16 * STUB_PATCH_SLOTS <= STUB_PATCH_PTR, "");
_Static_assert(((STUB_PATCH_BASE + 8 * STUB_PATCH_SLOTS - 1) >> 16 & 0xff) ==
    0x06 && (STUB_PATCH_BASE >> 16 & 0xff) == 0x06, "");

#define SYS_SECCOMP 1   /* si_code, from the kernel's UAPI headers */
#define SITE_LEN    7
#define EFLAGS_TF   0x100   /* the trap flag: a trap after each instruction */

struct patch_site {
	uint64_t va;   /* 0: a free slot */
	uint32_t nr;
};

/*
 * A patch costs a private copy of the page and a change of the stub's
 * mappings, tens of microseconds, and saves a few at each later call: a
 * site is patched once it has trapped PATCH_AFTER times, so that a
 * program's start-up, whose calls mostly run once or a few times, makes
 * no copies.  The counts are kept for the TRAPS_N sites seen last, by
 * address; a site pushed out by another starts again.
 */
#define PATCH_AFTER 16
#define TRAPS_N     256

struct patch_traps {
	uint64_t va;
	uint32_t n;
};

struct patch_sites {
	unsigned cap;
	bool given;           /* the region is the guest's: no patching */
	int sync;             /* cores_can_sync: 1 yes, -1 no, 0 not asked */
	struct patch_site *s;
	struct patch_traps traps[TRAPS_N];
};

static bool patch_on;
static uint64_t region_off;

void
patch_init(bool spinning)
{
	char *page;
	int slot;

	/*
	 * Without a CPU of its own vkernel does not spin: a patched call
	 * would trap anyway.
	 */
	if (!spinning || getenv("VKERNEL_NO_PATCH") != NULL ||
	    (slot = ram_area_alloc()) < 0)
		return;
	page = ram_area((unsigned)slot, &region_off);
	for (uint32_t i = 0; i < STUB_PATCH_SLOTS; i++) {
		uint64_t entry = STUB_PATCH_CODE + 16 * i;
		uint8_t *c = (uint8_t *)page + (entry - STUB_PATCH_BASE);
		int32_t rel = (int32_t)(STUB_PATCH_PTR - (entry + 11));

		memcpy(page + 8 * i, &entry, 8);
		c[0] = 0xb8;				/* mov $i, %eax */
		memcpy(c + 1, &i, 4);
		c[5] = 0xff;				/* jmp *PTR(%rip) */
		c[6] = 0x25;
		memcpy(c + 7, &rel, 4);
		memset(c + 11, 0xcc, 5);
	}
	*(uint64_t *)(page + (STUB_PATCH_PTR - STUB_PATCH_BASE)) = STUB_TRAMP;
	patch_on = true;
}

bool
patch_enabled(void)
{
	return patch_on;
}

void
patch_space_map(struct plat_space *sp, struct plat_space_info *info)
{
	const uint64_t code = STUB_PATCH_CODE - STUB_PATCH_BASE;

	if (!patch_on || stub_syscall(sp->main, SYS_mmap, STUB_PATCH_BASE,
	    code, PROT_READ, MAP_SHARED | MAP_FIXED, STUB_RAM_FD,
	    region_off) != (long)STUB_PATCH_BASE ||
	    stub_syscall(sp->main, SYS_mmap, STUB_PATCH_CODE,
	    STUB_PATCH_SIZE - code, PROT_READ | PROT_EXEC,
	    MAP_SHARED | MAP_FIXED, STUB_RAM_FD, region_off + code) !=
	    (long)STUB_PATCH_CODE)
		return;
	sp->patch = vk_xcalloc(1, sizeof(*sp->patch));
	info->own_start = STUB_PATCH_BASE;
	info->own_end = STUB_PATCH_BASE + STUB_PATCH_SIZE;
}

void
patch_space_fork(struct plat_space *from, struct plat_space *sp)
{
	const struct patch_sites *ps = from->patch;

	if (ps == NULL)
		return;
	sp->patch = vk_xcalloc(1, sizeof(*sp->patch));
	sp->patch->given = ps->given;
	memcpy(sp->patch->traps, ps->traps, sizeof(ps->traps));
	if (ps->cap == 0)
		return;
	sp->patch->cap = ps->cap;
	sp->patch->s = vk_xcalloc(ps->cap, sizeof(*ps->s));
	memcpy(sp->patch->s, ps->s, ps->cap * sizeof(*ps->s));
}

void
patch_space_free(struct plat_space *sp)
{
	if (sp->patch != NULL)
		free(sp->patch->s);
	free(sp->patch);
	sp->patch = NULL;
}

/* --- sites --- */

/* A site's original bytes. */
static void
site_bytes(uint32_t nr, uint8_t b[SITE_LEN])
{
	b[0] = 0xb8;
	memcpy(b + 1, &nr, 4);
	b[5] = 0x0f;
	b[6] = 0x05;
}

/* The jump a site patched for slot takes. */
static void
jmp_bytes(unsigned slot, uint8_t b[SITE_LEN])
{
	uint32_t t = (uint32_t)(STUB_PATCH_BASE + 8 * slot);

	b[0] = 0xff;
	b[1] = 0x24;
	b[2] = 0x25;
	memcpy(b + 3, &t, 4);
}

static int
slot_of(const struct patch_sites *ps, uint64_t va)
{
	for (unsigned i = 0; i < ps->cap; i++)
		if (ps->s[i].va == va)
			return (int)i;
	return -1;
}

/* Whether slot's site still holds its patch. */
static bool
site_intact(struct plat_thread *pt, unsigned slot)
{
	uint8_t jmp[SITE_LEN];

	jmp_bytes(slot, jmp);
	return kern_text_replace(pt->cookie, pt->sp->patch->s[slot].va, jmp,
	    NULL, SITE_LEN) == 0;
}

/*
 * A free slot: a new one while there are, then one whose site lost its
 * patch (written over, or exec'd away); -1 when every one holds.
 */
static int
slot_new(struct plat_thread *pt)
{
	struct patch_sites *ps = pt->sp->patch;
	int found = -1;

	if ((found = slot_of(ps, 0)) >= 0)
		return found;
	if (ps->cap < STUB_PATCH_SLOTS) {
		unsigned cap = VK_MIN(VK_MAX(2 * ps->cap, 16U),
		    (unsigned)STUB_PATCH_SLOTS);

		ps->s = vk_xrealloc(ps->s, cap * sizeof(*ps->s));
		memset(ps->s + ps->cap, 0, (cap - ps->cap) * sizeof(*ps->s));
		found = (int)ps->cap;
		ps->cap = cap;
		return found;
	}
	for (unsigned i = 0; i < ps->cap; i++) {
		if (!site_intact(pt, i)) {
			ps->s[i].va = 0;
			found = (int)i;
		}
	}
	return found;
}

/*
 * Calls whose answer always needs the frame (a new image, a thread or
 * process, the signal frame, the thread's end, TLS bases the handler
 * sets): they stay trapped.
 */
static bool
nr_patchable(uint64_t nr)
{
	switch (nr) {
	case SYS_rt_sigreturn:
	case SYS_clone:
	case SYS_clone3:
	case SYS_fork:
	case SYS_vfork:
	case SYS_execve:
	case SYS_execveat:
	case SYS_exit:
	case SYS_exit_group:
	case SYS_arch_prctl:
		return false;
	default:
		return nr < 1024;
	}
}

/* Whether the site at va has trapped often enough to be patched now. */
static bool
site_hot(struct patch_sites *ps, uint64_t va)
{
	struct patch_traps *t = &ps->traps[(va ^ va >> 12) % TRAPS_N];

	if (t->va != va) {
		t->va = va;
		t->n = 0;
	}
	return ++t->n >= PATCH_AFTER;
}

/*
 * Whether the stub of sp may serialize its CPUs (membarrier's SYNC_CORE,
 * run by the control thread), registered for it the first time: a patch
 * written while other threads of the space run needs that, and is not
 * made without it.
 */
static bool
cores_can_sync(struct plat_space *sp)
{
	struct patch_sites *ps = sp->patch;

	if (ps->sync == 0)
		ps->sync = stub_syscall(sp->main, SYS_membarrier,
		    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0,
		    0, 0, 0) == 0 ? 1 : -1;
	return ps->sync > 0;
}

/*
 * Every CPU that runs a thread of sp's stub serializes its instruction
 * stream before this returns, as a kernel's text poke makes them between
 * its steps: none goes on with bytes of the site it fetched before.
 */
static bool
cores_sync(struct plat_space *sp)
{
	return stub_syscall(sp->main, SYS_membarrier,
	    MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0, 0, 0, 0) == 0;
}

void
patch_site(struct plat_thread *pt, uint64_t rip, uint64_t nr)
{
	static const uint8_t int3 = 0xcc;
	struct patch_sites *ps = pt->sp->patch;
	uint64_t va = rip - SITE_LEN;
	uint8_t old[SITE_LEN], jmp[SITE_LEN];
	uint32_t n32 = (uint32_t)nr;
	void *td = pt->cookie;
	int slot;

	if (ps == NULL || ps->given || !nr_patchable(nr) || rip < SITE_LEN ||
	    (va & VK_PAGE_MASK) > VK_PAGE_SIZE - SITE_LEN ||
	    !site_hot(ps, va))
		return;
	site_bytes(n32, old);
	if (kern_text_replace(td, va, old, NULL, SITE_LEN) < 0 ||
	    ((slot = slot_of(ps, va)) < 0 && (slot = slot_new(pt)) < 0))
		return;
	jmp_bytes((unsigned)slot, jmp);
	/* The first write gives the page its private copy. */
	if (!cores_can_sync(pt->sp) ||
	    kern_text_replace(td, va, old, &int3, 1) < 0)
		return;
	if (kern_text_replace(td, va + 5, old + 5, jmp + 5, 1) < 0 ||
	    !cores_sync(pt->sp) ||
	    kern_text_replace(td, va + 6, old + 6, jmp + 6, 1) < 0 ||
	    kern_text_replace(td, va + 1, old + 1, jmp + 1, 4) < 0 ||
	    !cores_sync(pt->sp) ||
	    kern_text_replace(td, va, &int3, jmp, 1) < 0) {
		/*
		 * Each byte that is still ours goes back, the int3 last; a
		 * byte the guest wrote meanwhile stays its own.
		 */
		for (unsigned i = 1; i < SITE_LEN; i++)
			(void)kern_text_replace(td, va + i, jmp + i, old + i,
			    1);
		(void)kern_text_replace(td, va, &int3, old, 1);
		return;
	}
	ps->s[slot].va = va;
	ps->s[slot].nr = n32;
}

/* --- messages --- */

enum zone {
	ZONE_NONE,       /* not the patching's code */
	ZONE_ENTRY,      /* nothing posted yet */
	ZONE_SLOT_TRAP,  /* after a slot's trapping syscall */
	ZONE_WAIT,       /* posted, waiting for the answer */
	ZONE_DONE,       /* answered, on the way back */
};

/* The slot whose entry holds rip, or -1 (the region is the guest's). */
static int
entry_slot(const struct patch_sites *ps, uint64_t rip)
{
	if (ps->given || rip < STUB_PATCH_CODE ||
	    rip >= STUB_PATCH_CODE + 16 * STUB_PATCH_SLOTS)
		return -1;
	return (int)((rip - STUB_PATCH_CODE) / 16);
}

/* Where u, a frame of pt's, stopped; *slotp the slot of ZONE_SLOT_TRAP. */
static enum zone
zone_of(const struct plat_thread *pt, const struct frame_uc *u,
    unsigned *slotp)
{
	uint64_t rip = u->rip;

	if (entry_slot(pt->sp->patch, rip) >= 0)
		return ZONE_ENTRY;
	if (rip == STUB_TRAMP_TRAP + 2) {
		*slotp = (uint32_t)u->rax;
		return ZONE_SLOT_TRAP;
	}
	if (rip >= STUB_TRAMP && rip < STUB_TRAMP_POSTED)
		return ZONE_ENTRY;
	if (rip >= STUB_TRAMP_POSTED && rip < STUB_TRAMP_DONE)
		return ZONE_WAIT;
	if (rip >= STUB_TRAMP_DONE && rip < STUB_TRAMP_END)
		return ZONE_DONE;
	if (rip >= STUB_TRAMP_END && rip < STUB_TRAMP_LIMIT)
		return ZONE_ENTRY;
	/* The doorbell, called on the area's trampoline stack. */
	if (rip >= STUB_HSYS && rip <= STUB_HSYS + 2 &&
	    u->rsp == area_va(pt) + STUB_FAST_STACK - 8)
		return ZONE_WAIT;
	return ZONE_NONE;
}

/*
 * The registers the trampoline saved on the message's cache line, into
 * pt's context: the first five arguments.  The rest are 0 there until
 * fast_load_rest, which a call that needs them asks for (platform.h).
 */
static void
fast_load(struct plat_thread *pt)
{
	const uint64_t *f = pt->area->fregs;
	struct arch_regs *r = &pt->ctx->regs;

	r->rdi = f[STUB_FR_RDI];
	r->rsi = f[STUB_FR_RSI];
	r->rdx = f[STUB_FR_RDX];
	r->r10 = f[STUB_FR_R10];
	r->r8 = f[STUB_FR_R8];
	r->r9 = r->rbx = r->rbp = r->r12 = r->r13 = r->r14 = r->r15 = 0;
	r->rsp = r->eflags = r->r11 = 0;
	r->cs = ARCH_USER_CS;
	r->ss = ARCH_USER_DS;
	r->fs_base = pt->fs_base;
	r->gs_base = pt->gs_base;
	pt->ctx->dirty = 0;
	pt->regs_part = true;
}

/*
 * The rest of the registers the trampoline saved, from the lines of the
 * area vkernel leaves alone otherwise; the thread still waits there.
 */
void
fast_load_rest(struct plat_thread *pt)
{
	const uint64_t *f = pt->area->fregs;
	struct arch_regs *r = &pt->ctx->regs;

	if (!pt->regs_part)
		return;
	r->r9 = f[STUB_FR_R9];
	r->rbx = f[STUB_FR_RBX];
	r->rbp = f[STUB_FR_RBP];
	r->r12 = f[STUB_FR_R12];
	r->r13 = f[STUB_FR_R13];
	r->r14 = f[STUB_FR_R14];
	r->r15 = f[STUB_FR_R15];
	r->rsp = f[STUB_FR_RSP];
	r->eflags = r->r11 = f[STUB_FR_FLAGS];
	pt->regs_part = false;
}

/*
 * pt's context as a stop at the syscall of the site of the slot its
 * trampoline posted; false for a slot without a site (the guest jumped
 * into the table itself).
 */
static bool
fast_call(struct plat_thread *pt)
{
	const struct patch_sites *ps = pt->sp->patch;
	struct arch_regs *r = &pt->ctx->regs;
	uint32_t slot = ((volatile struct systrap_area *)pt->area)->fslot;

	if (ps == NULL || slot >= ps->cap || ps->s[slot].va == 0)
		return false;
	fast_load(pt);
	r->rip = r->rcx = pt->fast_rip = ps->s[slot].va + SITE_LEN;
	r->orig_rax = ps->s[slot].nr;
	r->rax = (uint64_t)-ENOSYS;
	return true;
}

/* Event ev is a signal of this kind at pt's rip. */
static int
rip_event(struct plat_thread *pt, struct plat_event *ev,
    enum plat_event_kind kind, int signo, int code)
{
	ev->kind = kind;
	ev->signo = signo;
	ev->code = code;
	ev->addr = pt->ctx->regs.rip;
	return 1;
}

static int
fault(struct plat_thread *pt, struct plat_event *ev)
{
	return rip_event(pt, ev, PLAT_EV_FAULT, SIGSEGV, SEGV_MAPERR);
}

/* Answer pt's frame as it is: it goes on where the signal found it. */
static int
resume(struct plat_thread *pt)
{
	pt->ctx->dirty = 0;
	(void)systrap_thread_run(pt);
	return 0;
}

/* Whether the trampoline's state fs says its message waits. */
static bool
fast_posted(uint32_t fs)
{
	return fs == FAST_POSTED || fs == FAST_ASLEEP;
}

/* Set the trampoline's state, and wake it if it slept on the word. */
static void
fast_state_set(struct systrap_area *a, uint32_t fs)
{
	if (__atomic_exchange_n(&a->fstate, fs, __ATOMIC_SEQ_CST) ==
	    FAST_ASLEEP)
		(void)syscall(SYS_futex, &a->fstate, FUTEX_WAKE, 1, NULL,
		    NULL, 0);
}

bool
fast_take(struct plat_thread *pt, struct plat_event *ev)
{
	struct systrap_area *a = pt->area;
	struct frame_uc *u;

	if (pt->held || pt->sp->patch == NULL ||
	    !fast_posted(__atomic_load_n(&a->fstate, __ATOMIC_ACQUIRE)))
		return false;
	pt->held = true;
	pt->fast = true;
	ev->cookie = pt->cookie;
	if (fast_call(pt)) {
		pt->regs_valid = true;
		ev->kind = PLAT_EV_SYSCALL;
		return true;
	}
	/* A SIGSEGV for a slot of nothing, from the frame. */
	if (fast_to_frame(pt) < 0 || (u = frame_uc(pt)) == NULL) {
		ev->kind = PLAT_EV_GONE;
		return true;
	}
	frame_regs_load(pt, u);
	(void)fault(pt, ev);
	return true;
}

/*
 * The site at va, if its bytes are still the patch, or the original ones
 * put back when the region was given up: a fault the patch caused may
 * come after that.
 */
static int
patched_at(struct plat_thread *pt, uint64_t va)
{
	const struct patch_sites *ps = pt->sp->patch;
	int slot = slot_of(ps, va);
	uint8_t old[SITE_LEN];

	if (slot < 0 || va == 0)
		return -1;
	site_bytes(ps->s[slot].nr, old);
	if (site_intact(pt, (unsigned)slot) || (ps->given &&
	    kern_text_replace(pt->cookie, va, old, NULL, SITE_LEN) == 0))
		return slot;
	return -1;
}

/* A stop at site va's syscall, from a frame that did not end there. */
static int
site_call(struct plat_thread *pt, struct frame_uc *u, uint64_t va,
    uint64_t nr, struct plat_event *ev)
{
	struct arch_regs *r = &pt->ctx->regs;

	r->rip = r->rcx = u->rip = u->rcx = va + SITE_LEN;
	r->r11 = u->r11 = u->eflags;
	r->orig_rax = nr;
	r->rax = (uint64_t)-ENOSYS;
	ev->kind = PLAT_EV_SYSCALL;
	return 1;
}

/* The call of the site of slot, as its trapping way makes it. */
static int
slot_call(struct plat_thread *pt, struct frame_uc *u, uint64_t slot,
    struct plat_event *ev)
{
	const struct patch_sites *ps = pt->sp->patch;

	if (slot >= ps->cap || ps->s[slot].va == 0)
		return fault(pt, ev);
	return site_call(pt, u, ps->s[slot].va, ps->s[slot].nr, ev);
}

/*
 * A fault at a patched site itself: the invalid byte where the syscall
 * instruction began (a thread that ran the old mov before the patch, or
 * a restart the kernel asked for) or the int3 written first.
 */
static int
site_fault(struct plat_thread *pt, struct frame_uc *u, const siginfo_t *si,
    struct plat_event *ev)
{
	uint64_t rip = u->rip, va;

	if (si->si_code <= 0 || (pt->signo != SIGILL && pt->signo != SIGTRAP))
		return -1;
	va = rip - (pt->signo == SIGILL ? 5 : 1);
	if (patched_at(pt, va) < 0)
		return -1;
	/* The old syscall instruction's call, whatever rax says. */
	if (pt->signo == SIGILL)
		return site_call(pt, u, va, u->rax, ev);
	/* The int3: rax is dead before the site, run it again. */
	pt->ctx->regs.rip = u->rip = va;
	return resume(pt);
}

/*
 * A thread that single-steps (the trap flag) through a patched site
 * traps once its jump is done, at the start of the slot's entry.  The
 * step over the site's own bytes traps first after the mov, at the
 * syscall instruction with eax the call's number: that is where the
 * frame u goes (r too, if not NULL), and where the guest gets the trap.
 * Resumed, the thread meets the invalid byte there and the call runs as
 * from the old syscall instruction (site_fault); the next trap comes
 * after the instruction that follows, as it does after a syscall on
 * Linux.  A guest that jumps into the entry itself with the flag set
 * gets the same: nothing it could not have done at the site.
 */
static bool
step_put(const struct patch_sites *ps, struct frame_uc *u,
    struct arch_regs *r)
{
	uint64_t rip = u->rip, to;
	int slot = entry_slot(ps, rip);

	if ((u->eflags & EFLAGS_TF) == 0 || slot < 0 ||
	    (unsigned)slot >= ps->cap || ps->s[slot].va == 0 ||
	    rip != STUB_PATCH_CODE + 16 * (unsigned)slot)
		return false;
	to = ps->s[slot].va + SITE_LEN - 2;
	u->rip = to;
	u->rax = ps->s[slot].nr;
	if (r != NULL) {
		r->rip = to;
		r->rax = ps->s[slot].nr;
	}
	return true;
}

/*
 * The site whose entry's start the host names as where pt's step trapped,
 * or 0: once step_put moved the frame (here, or in thread_out while the
 * region was given up), that trap goes to the guest where pt's context
 * says, as a trap of the site's mov.
 */
static uint64_t
step_site(const struct plat_thread *pt, const siginfo_t *si)
{
	const struct patch_sites *ps = pt->sp->patch;
	uint64_t at = (uint64_t)(uintptr_t)si->si_addr;
	uint64_t slot = (at - STUB_PATCH_CODE) / 16;

	if (pt->signo != SIGTRAP || si->si_code != TRAP_TRACE ||
	    at < STUB_PATCH_CODE || slot >= ps->cap ||
	    at != STUB_PATCH_CODE + 16 * slot)
		return 0;
	return ps->s[slot].va;
}

static int
step_trap(struct plat_thread *pt, struct plat_event *ev)
{
	return rip_event(pt, ev, PLAT_EV_TRAP, SIGTRAP, TRAP_TRACE);
}

int
fast_frame_event(struct plat_thread *pt, struct frame_uc *u,
    const siginfo_t *si, struct plat_event *ev)
{
	const struct patch_sites *ps = pt->sp->patch;
	struct systrap_area *a = pt->area;
	bool cpu = sig_from_cpu(pt->signo, si), trap = pt->signo == SIGSYS &&
	    si->si_code == SYS_SECCOMP;
	enum zone z;
	unsigned slot = 0;
	uint64_t step;
	uint32_t fs;

	if (ps == NULL)
		return -1;
	z = zone_of(pt, u, &slot);
	step = step_site(pt, si);
	switch (z) {
	case ZONE_NONE:
		if (step != 0 && pt->ctx->regs.rip == step + SITE_LEN - 2)
			return step_trap(pt, ev);
		return site_fault(pt, u, si, ev);
	case ZONE_SLOT_TRAP:
		return trap ? slot_call(pt, u, slot, ev) : fault(pt, ev);
	case ZONE_ENTRY:
		if (step != 0 && step_put(ps, u, &pt->ctx->regs))
			return step_trap(pt, ev);
		/*
		 * The read of the area through a GS base of the guest's own
		 * faulted: nothing is saved yet, rax is the slot.
		 */
		if (cpu && u->rip == STUB_TRAMP &&
		    (pt->signo == SIGSEGV || pt->signo == SIGBUS))
			return slot_call(pt, u, u->rax, ev);
		/* A signal sent: the message or trap follows at once. */
		return cpu || trap ? fault(pt, ev) : resume(pt);
	case ZONE_WAIT:
	case ZONE_DONE:
		break;
	}
	if (cpu || (trap && z != ZONE_WAIT))
		return fault(pt, ev);
	fs = __atomic_load_n(&a->fstate, __ATOMIC_ACQUIRE);
	if (z == ZONE_WAIT && fast_posted(fs)) {
		/* The call waits: taken now, with this frame to answer. */
		if (!fast_call(pt))
			return fault(pt, ev);
		a->fstate = 0;
		pt->regs_valid = false;
		if (pt->signo == STUB_SIG_INTERRUPT)
			pt->interrupted = false;
		ev->kind = PLAT_EV_SYSCALL;
		return 1;
	}
	/* No message of its own waits: the guest jumped in. */
	if (z == ZONE_WAIT && fs != FAST_ANSWERED)
		return fault(pt, ev);
	/* Answered: where the trampoline would return, as it would. */
	fast_load(pt);
	pt->ctx->regs.rax = pt->fast_rax;
	pt->ctx->regs.rip = pt->ctx->regs.rcx = pt->fast_rip;
	pt->ctx->dirty = ARCH_DIRTY_ALL;
	pt->regs_valid = false;
	if (pt->signo == STUB_SIG_INTERRUPT && si->si_code == SI_TKILL &&
	    pt->interrupted) {
		pt->interrupted = false;
		ev->kind = PLAT_EV_STOPPED;
		return 1;
	}
	(void)systrap_thread_run(pt);
	return 0;
}

bool
fast_answer(struct plat_thread *pt)
{
	struct arch_context *c = pt->ctx;
	struct systrap_area *a = pt->area;

	if ((c->dirty & ~ARCH_DIRTY_RAX) != 0 || !pt->regs_valid ||
	    c->regs.fs_base != pt->fs_base || c->regs.gs_base != pt->gs_base)
		return false;
	a->frax = pt->fast_rax = c->regs.rax;
	a->frip = pt->fast_rip;
	c->dirty = 0;
	pt->held = false;
	pt->fast = false;
	pt->regs_part = false;
	fast_state_set(a, FAST_ANSWERED);
	return true;
}

/*
 * The handler's message of a thread held at a patched site, once the
 * trampoline trapped (or a signal found it waiting): its frame is the
 * stop's from now on.  A message from elsewhere (another thread wrote
 * the area) is taken too, and fast_to_frame fails.
 */
static bool
frame_attach(struct plat_thread *pt)
{
	struct frame_uc *u;
	unsigned slot;

	if (!msg_read(pt))
		return false;
	u = frame_uc(pt);
	if (u != NULL && zone_of(pt, u, &slot) == ZONE_WAIT) {
		((struct systrap_area *)pt->area)->fstate = 0;
		pt->fast = false;
		pt->regs_valid = false;
	}
	return true;
}

/*
 * The trampoline traps when it sees FAST_TRAP.  One that has not within
 * a moment is nudged by the interrupt signal, which a thread still in
 * the trampoline takes there too: a guest that wrote its area so that
 * its thread left the trampoline without an answer is found out by
 * that, not after seconds.
 */
int
fast_to_frame(struct plat_thread *pt)
{
	struct systrap_area *a = pt->area;

	fast_state_set(a, FAST_TRAP);
	if (msg_wait(pt, frame_attach, 20) < 0) {
		systrap_thread_interrupt(pt);
		(void)msg_wait(pt, frame_attach, 5000);
	}
	if (pt->fast) {
		/* The thread ends: say why, as for a frame the guest broke. */
		vk_log_guest("stub %d: thread %d left its patched call "
		    "unanswered", pt->sp->pid, pt->tid);
		return -EFAULT;
	}
	return 0;
}

/*
 * A call vkernel holds (it blocks, or takes long): the trampoline sleeps
 * at once instead of spinning out its time on a CPU another guest
 * thread may want, as msg_hold makes a handler do.
 */
void
fast_hold(struct plat_thread *pt)
{
	uint32_t posted = FAST_POSTED;

	(void)__atomic_compare_exchange_n(&pt->area->fstate, &posted,
	    FAST_ASLEEP, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/* --- the region given up --- */

/*
 * Whether pt is out of guest code for now: held, waiting in the
 * trampoline, or in its handler with a message posted, whose frame is
 * put back at its site when it stopped in a slot's entry (rax, rcx and
 * r11 are dead there: the site's mov and syscall write them).  A frame
 * the guest broke counts too: the thread ends when it is taken.
 */
static bool
thread_out(struct plat_thread *pt)
{
	const struct patch_sites *ps = pt->sp->patch;
	struct systrap_area *a = pt->area;
	struct frame_uc *u;
	int slot;

	if (pt->held ||
	    fast_posted(__atomic_load_n(&a->fstate, __ATOMIC_ACQUIRE)))
		return true;
	if (!msg_peek(pt, &u))
		return false;
	if (u != NULL && !step_put(ps, u, NULL) &&
	    (slot = entry_slot(ps, u->rip)) >= 0 &&
	    (unsigned)slot < ps->cap && ps->s[slot].va != 0)
		u->rip = ps->s[slot].va;
	return true;
}

/*
 * Every thread of the space is stopped first (the interrupt signal to
 * each that runs guest code), so that none is in a slot's entry, nor
 * between a jump it read and the table, when the sites get their bytes
 * back and the region goes; they go on once the event loop answers
 * them.  A thread that does not stop within seconds leaves the region
 * where it is.  The sites stay known: a fault the patch caused may
 * still come, and a thread in the trampoline still posts its slot.
 */
int
patch_space_release(struct plat_space *sp)
{
	struct patch_sites *ps = sp->patch;
	struct plat_thread *pt;
	void *td = NULL;

	if (ps == NULL || sp->dead)
		return -EBUSY;
	if (ps->given)
		return 0;
	/* A thread that ended may still run until its interrupt comes. */
	for (pt = sp->threads; pt != NULL; pt = pt->snext) {
		if (pt == sp->main || pt->ending)
			continue;
		if (!pt->spare && pt->cookie != NULL)
			td = pt->cookie;
		if (!thread_out(pt) && (!systrap_thread_kick(pt) ||
		    msg_wait(pt, thread_out, 2000) < 0))
			return -EAGAIN;
	}
	if (td == NULL)
		return -EAGAIN;
	ps->given = true;
	for (unsigned i = 0; i < ps->cap; i++) {
		uint8_t old[SITE_LEN], jmp[SITE_LEN];

		if (ps->s[i].va == 0)
			continue;
		site_bytes(ps->s[i].nr, old);
		jmp_bytes(i, jmp);
		(void)kern_text_replace(td, ps->s[i].va, jmp, old, SITE_LEN);
	}
	stub_space_unmap(sp, STUB_PATCH_BASE, STUB_PATCH_SIZE);
	return 0;
}

/* exec: the region mapped again, queued before the new image's maps. */
int
patch_space_reclaim(struct plat_space *sp)
{
	const uint64_t code = STUB_PATCH_CODE - STUB_PATCH_BASE;
	struct patch_sites *ps = sp->patch;

	if (ps == NULL)
		return -ENOSYS;
	if (!ps->given)
		return 0;
	stub_space_map(sp, STUB_PATCH_BASE, code, PROT_READ, region_off);
	stub_space_map(sp, STUB_PATCH_CODE, STUB_PATCH_SIZE - code,
	    PROT_READ | PROT_EXEC, region_off + code);
	free(ps->s);
	memset(ps, 0, sizeof(*ps));
	return 0;
}
