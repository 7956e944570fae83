/*
 * The x86-64 signal frame, as Linux's arch/x86/kernel/signal_64.c builds
 * it: struct rt_sigframe (the return address, the ucontext, the siginfo)
 * below the XSAVE image of the FPU state, 16-byte aligned less 8, as if a
 * call had pushed the return address.
 */
#ifndef VK_ARCH_X86_SIGFRAME_H
#define VK_ARCH_X86_SIGFRAME_H

#include <stddef.h>
#include <stdint.h>

#include "arch/x86/arch.h"

struct arch_sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate;
	uint64_t reserved1[8];
};
_Static_assert(sizeof(struct arch_sigcontext) == 256, "struct sigcontext");

struct arch_stack {
	uint64_t ss_sp;
	int32_t ss_flags;
	int32_t pad;
	uint64_t ss_size;
};
_Static_assert(sizeof(struct arch_stack) == 24, "stack_t");

struct arch_ucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	struct arch_stack uc_stack;
	struct arch_sigcontext uc_mcontext;
	uint64_t uc_sigmask;
};
_Static_assert(sizeof(struct arch_ucontext) == 304, "struct ucontext");

struct arch_rt_sigframe {
	uint64_t pretcode;
	struct arch_ucontext uc;
	uint8_t info[128];
};
_Static_assert(sizeof(struct arch_rt_sigframe) == 440, "struct rt_sigframe");

#define ARCH_REDZONE 128

/* What a handler is started with; the caller fills it in. */
struct arch_sigsetup {
	uint64_t handler, restorer;
	int signo;
	const uint8_t *info;          /* 128 bytes of siginfo */
	uint64_t mask;                /* the mask to restore on return */
	struct arch_stack altstack;   /* the thread's sigaltstack */
	int on_altstack;              /* the frame goes on it */
	const uint8_t *fpu;           /* the XSAVE image, or NULL */
	size_t fpu_size;
	uint64_t fpu_features;
	uint64_t trapno, err, cr2;    /* the CPU exception, for faults */
};

/*
 * Reset an XSAVE image to the state a handler starts with: x87 and SSE
 * in their initial state (FCW 0x37f, MXCSR 0x1f80), no other component.
 */
void arch_fpu_init_image(uint8_t *img, size_t size);

/*
 * Lay out the frame for ctx's registers under sp; fill frame (and put the
 * FPU image at *fpu_va).  Returns the frame's guest address; the caller
 * copies out the frame and the FPU image, then arch_sigframe_enter().
 */
uint64_t arch_sigframe_build(const struct arch_context *ctx,
    const struct arch_sigsetup *ss, uint64_t sp,
    struct arch_rt_sigframe *frame, uint64_t *fpu_va);

/*
 * Mark an XSAVE image of size bytes (img has 4 more) as a signal frame's:
 * the FXSAVE area's software bytes and the trailing magic word.
 */
void arch_fpu_frame_mark(uint8_t *img, size_t size, uint64_t features);

/*
 * Whether the FPU image read from guest address va for rt_sigreturn sits
 * where the CPU can restore it from: as Linux restores with XRSTOR (64-byte
 * alignment) when the image is marked as an XSAVE one and with FXRSTOR
 * (16) when not, and faults otherwise, which costs the guest a SIGSEGV.
 */
bool arch_fpu_frame_aligned(uint64_t va, const uint8_t *img);

/* Point ctx at the handler, with its three arguments. */
void arch_sigframe_enter(struct arch_context *ctx,
    const struct arch_sigsetup *ss, uint64_t frame_va);

/*
 * rt_sigreturn: take the registers back from a frame the guest may have
 * changed; only what user mode may change is taken.  Returns false when
 * the frame's segment selectors are ones the return to user mode faults
 * on (the caller then raises SIGSEGV, as Linux's iret fault does).
 */
bool arch_sigreturn_regs(struct arch_context *ctx,
    const struct arch_rt_sigframe *frame);

#endif
