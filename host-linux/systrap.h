/*
 * What the systrap platform (systrap.c), its hand-off (systrap_msg.c)
 * and its syscall-site patching (systrap_patch.c) share: a thread area's
 * messages, the host's signal frame, and the calls each makes of the
 * others.
 */
#ifndef VK_HOST_SYSTRAP_H
#define VK_HOST_SYSTRAP_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host-linux/error.h"
#include "host-linux/stub/stub.h"
#include "vkern/platform.h"

/* The message at the start of a thread area (stub.h's STUB_MSG_*). */
struct systrap_area {
	uint32_t state;
	uint32_t signo;
	uint64_t info;
	uint64_t uc;
	uint64_t fs_base;
	uint64_t gs_base;
	uint32_t set;
	uint32_t tid;
	uint64_t self;
	uint32_t pad[2];
	/* The trampoline's message (stub.h's STUB_FAST_*). */
	uint32_t fstate;
	uint32_t fslot;
	uint64_t frax;
	uint64_t frip;
	uint64_t fregs[STUB_FR_N];
};
_Static_assert(offsetof(struct systrap_area, signo) == STUB_MSG_SIGNO, "");
_Static_assert(offsetof(struct systrap_area, info) == STUB_MSG_INFO, "");
_Static_assert(offsetof(struct systrap_area, uc) == STUB_MSG_UC, "");
_Static_assert(offsetof(struct systrap_area, fs_base) == STUB_MSG_FS, "");
_Static_assert(offsetof(struct systrap_area, gs_base) == STUB_MSG_GS, "");
_Static_assert(offsetof(struct systrap_area, set) == STUB_MSG_SET, "");
_Static_assert(offsetof(struct systrap_area, tid) == STUB_MSG_TID, "");
_Static_assert(offsetof(struct systrap_area, self) == STUB_MSG_SELF, "");
_Static_assert(offsetof(struct systrap_area, fstate) == STUB_FAST_STATE, "");
_Static_assert(offsetof(struct systrap_area, fslot) == STUB_FAST_SLOT, "");
_Static_assert(offsetof(struct systrap_area, frax) == STUB_FAST_RAX, "");
_Static_assert(offsetof(struct systrap_area, frip) == STUB_FAST_RIP, "");
_Static_assert(offsetof(struct systrap_area, fregs) == STUB_FAST_REGS, "");
_Static_assert(STUB_FAST_STATE / 64 == (STUB_FAST_REGS + 8 * STUB_FR_R9 - 1) /
    64, "the message and five arguments share a cache line");
_Static_assert(sizeof(struct systrap_area) <= STUB_FAST_STACK - 256, "");

#define MSG_RUNNING  0
#define MSG_POSTED   1
#define MSG_ANSWERED 2
#define MSG_ASLEEP   3   /* posted, and the handler sleeps on the word */

#define FAST_POSTED   1   /* the trampoline's states (fstate) */
#define FAST_ANSWERED 2
#define FAST_TRAP     3   /* vkernel wants the thread in its handler */
#define FAST_ASLEEP   4   /* posted, and the trampoline sleeps on the word */

/* The host's x86-64 signal frame: its struct ucontext and sigcontext. */
struct frame_uc {
	uint64_t uc_flags, uc_link;
	uint64_t ss_sp;
	int32_t ss_flags, ss_pad;
	uint64_t ss_size;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2, fpstate;
	uint64_t reserved[8];
	uint64_t sigmask;
};
_Static_assert(offsetof(struct frame_uc, r8) == 40, "uc_mcontext");
_Static_assert(offsetof(struct frame_uc, fpstate) == 40 + 184, "fpregs");
_Static_assert(sizeof(struct frame_uc) == 304, "struct ucontext");

/* systrap_msg.c */
uint64_t area_va(const struct plat_thread *pt);
struct frame_uc *frame_uc(const struct plat_thread *pt);
/* The frame's XSAVE image and its size, checked; NULL for a bad one. */
uint8_t *frame_fpu(const struct plat_thread *pt, size_t *sizep);
/* The frame's fields for the host, put back whatever the guest wrote. */
void frame_host_fields(const struct plat_thread *pt, struct frame_uc *u);
bool msg_take(struct plat_thread *pt);
bool msg_read(struct plat_thread *pt);
/*
 * Whether pt, not held, has a message posted; *up its frame, checked, or
 * NULL for a bad one.  Nothing is taken.
 */
bool msg_peek(const struct plat_thread *pt, struct frame_uc **up);
void msg_answer(struct plat_thread *pt);
/* Held pt, whose call takes a while: its handler sleeps at once. */
void msg_hold(struct plat_thread *pt);
int msg_wait(struct plat_thread *pt, bool (*take)(struct plat_thread *),
    int ms);
/* pt joins, or leaves, the guest threads the event wait scans. */
void msg_guest_link(struct plat_thread *pt);
/*
 * pt on the CPUs the guest's threads use now (vkernel's too while it
 * lends it): once it has trapped, as it sets its own at its start.
 */
void msg_guest_place(struct plat_thread *pt);
void msg_guest_unlink(struct plat_thread *pt);
/*
 * vkernel has a CPU of its own, own: it and the handlers spin from now
 * on, and it lends that CPU to the guest's threads while it does not.
 */
void msg_spin_start(const cpu_set_t *own);
/* Whether vkernel spins (msg_spin_start was called). */
bool msg_spinning(void);
/* vkernel's doorbell eventfd, made once: the fd, or -1 with errno. */
int msg_bell_open(void);
/*
 * The constants page's words for the hand-off (stub.h): vkernel's asleep
 * word, and the handlers' spin, which msg_spin_start must precede.
 */
void msg_const_fill(void *page);
void systrap_thread_interrupt(struct plat_thread *pt);
/*
 * The interrupt signal alone: its message, unless the kernel asked for
 * one too, only resumes the thread.  Whether it was sent.
 */
bool systrap_thread_kick(struct plat_thread *pt);
int systrap_thread_run(struct plat_thread *pt);
/* platform.h's plat_thread_fpu_get, plat_thread_fpu_set, plat_event_wait. */
long systrap_thread_fpu_get(struct plat_thread *pt, void *buf, size_t size);
int systrap_thread_fpu_set(struct plat_thread *pt, const void *buf,
    size_t size);
int systrap_event_wait(struct plat_event *ev, int64_t deadline);
void frame_regs_load(struct plat_thread *pt, const struct frame_uc *u);

/*
 * systrap_patch.c: patching off unless patch_init found what it needs;
 * a space's region and sites.
 */
void patch_init(bool spinning);
bool patch_enabled(void);
void patch_space_map(struct plat_space *sp, struct plat_space_info *info);
void patch_space_fork(struct plat_space *from, struct plat_space *sp);
void patch_space_free(struct plat_space *sp);
/* platform.h's plat_space_own_release and plat_space_own_reclaim. */
int patch_space_release(struct plat_space *sp);
int patch_space_reclaim(struct plat_space *sp);
/* After a trapped syscall nr whose instruction ended at rip. */
void patch_site(struct plat_thread *pt, uint64_t rip, uint64_t nr);
/*
 * The message pt posted from a patched site, if there is one: pt held,
 * *ev filled (false: none).
 */
bool fast_take(struct plat_thread *pt, struct plat_event *ev);
/*
 * A message taken from pt's handler whose frame (loaded in pt->ctx)
 * the patching explains: 1 with *ev filled, 0 when answered, -1 when it
 * is none of its business.
 */
int fast_frame_event(struct plat_thread *pt, struct frame_uc *u,
    const siginfo_t *si, struct plat_event *ev);
/*
 * pt, held at a patched site: answered with its result when that is all
 * that changed (true), else left as it is (false).
 */
bool fast_answer(struct plat_thread *pt);
/* pt, held at a patched site: the registers fast_take left out. */
void fast_load_rest(struct plat_thread *pt);
/* pt, held at a patched site, brought into its handler: 0 or -EFAULT. */
int fast_to_frame(struct plat_thread *pt);
/* pt, held at a patched site, whose call blocks: its trampoline sleeps. */
void fast_hold(struct plat_thread *pt);

#endif
