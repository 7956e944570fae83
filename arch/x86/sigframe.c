/*
 * Building and unwinding x86-64 signal frames (see sigframe.h).
 */
#include <string.h>

#include "arch/x86/sigframe.h"

/* ucontext flags Linux sets on x86-64 frames. */
#define UC_FP_XSTATE            0x1
#define UC_SIGCONTEXT_SS        0x2
#define UC_STRICT_RESTORE_SS    0x4
#define FP_XSTATE_MAGIC1        0x46505853U
#define FP_XSTATE_MAGIC2        0x46505845U

/* The flags user mode may change: AC OF DF TF SF ZF AF PF CF RF. */
#define EFLAGS_USER 0x50dd5ULL

static void
regs_to_sc(const struct arch_regs *r, struct arch_sigcontext *sc)
{
	sc->r8 = r->r8; sc->r9 = r->r9; sc->r10 = r->r10; sc->r11 = r->r11;
	sc->r12 = r->r12; sc->r13 = r->r13; sc->r14 = r->r14;
	sc->r15 = r->r15; sc->rdi = r->rdi; sc->rsi = r->rsi;
	sc->rbp = r->rbp; sc->rbx = r->rbx; sc->rdx = r->rdx;
	sc->rax = r->rax; sc->rcx = r->rcx; sc->rsp = r->rsp;
	sc->rip = r->rip; sc->eflags = r->eflags;
	sc->cs = (uint16_t)r->cs;
	sc->ss = (uint16_t)r->ss;
}

uint64_t
arch_sigframe_build(const struct arch_context *ctx,
    const struct arch_sigsetup *ss, uint64_t sp,
    struct arch_rt_sigframe *frame, uint64_t *fpu_va)
{
	struct arch_ucontext *uc = &frame->uc;
	uint64_t fva = 0;

	if (ss->on_altstack)
		sp = ss->altstack.ss_sp + ss->altstack.ss_size;
	else
		sp -= ARCH_REDZONE;
	if (ss->fpu != NULL) {
		/* The image, then the magic word that ends it. */
		fva = (sp - ss->fpu_size - 4) & ~63ULL;
		sp = fva;
	}
	sp = ((sp - sizeof(*frame)) & ~15ULL) - 8;
	memset(frame, 0, sizeof(*frame));
	frame->pretcode = ss->restorer;
	uc->uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS |
	    (ss->fpu != NULL ? UC_FP_XSTATE : 0);
	uc->uc_stack = ss->altstack;
	regs_to_sc(&ctx->regs, &uc->uc_mcontext);
	uc->uc_mcontext.fpstate = fva;
	uc->uc_mcontext.trapno = ss->trapno;
	uc->uc_mcontext.err = ss->err;
	uc->uc_mcontext.cr2 = ss->cr2;
	uc->uc_mcontext.oldmask = ss->mask;
	uc->uc_sigmask = ss->mask;
	memcpy(frame->info, ss->info, sizeof(frame->info));
	*fpu_va = fva;
	return sp;
}

/*
 * The software-reserved bytes of the FXSAVE area that tell a handler the
 * image is an XSAVE one (struct _fpx_sw_bytes), and the end marker.
 */
void
arch_fpu_frame_mark(uint8_t *img, size_t size, uint64_t features)
{
	uint32_t m1 = FP_XSTATE_MAGIC1, ext = (uint32_t)size + 4;
	uint32_t xsz = (uint32_t)size, m2 = FP_XSTATE_MAGIC2;

	memset(img + 464, 0, 48);
	memcpy(img + 464, &m1, 4);
	memcpy(img + 468, &ext, 4);
	memcpy(img + 472, &features, 8);
	memcpy(img + 480, &xsz, 4);
	memcpy(img + size, &m2, 4);
}

bool
arch_fpu_frame_aligned(uint64_t va, const uint8_t *img)
{
	uint32_t m1;

	memcpy(&m1, img + 464, 4);
	return (va & (m1 == FP_XSTATE_MAGIC1 ? 63 : 15)) == 0;
}

void
arch_sigframe_enter(struct arch_context *ctx, const struct arch_sigsetup *ss,
    uint64_t frame_va)
{
	struct arch_regs *r = &ctx->regs;

	r->rdi = (uint64_t)ss->signo;
	r->rsi = frame_va + offsetof(struct arch_rt_sigframe, info);
	r->rdx = frame_va + offsetof(struct arch_rt_sigframe, uc);
	r->rax = 0;
	r->rsp = frame_va;
	r->rip = ss->handler;
	/* As Linux: no direction flag, no trap flag into a handler, which
	 * runs as 64-bit code whatever the thread ran before. */
	r->eflags &= ~(0x400ULL | 0x100ULL);
	r->cs = ARCH_USER_CS;
	r->ss = ARCH_USER_DS;
	ctx->dirty |= ARCH_DIRTY_ALL;
}

/*
 * The selectors a 64-bit frame may return to, with their privilege level
 * forced to 3 as Linux's restore_sigcontext does, are the 64-bit user
 * code segment and the user data segment for the stack.  Anything else is
 * a GDT entry that is not user code or data, or a null selector.
 */
bool
arch_sigreturn_regs(struct arch_context *ctx,
    const struct arch_rt_sigframe *frame)
{
	const struct arch_sigcontext *sc = &frame->uc.uc_mcontext;
	struct arch_regs *r = &ctx->regs;
	bool ss_ok = (sc->ss | 3) == ARCH_USER_DS;

	r->r8 = sc->r8; r->r9 = sc->r9; r->r10 = sc->r10; r->r11 = sc->r11;
	r->r12 = sc->r12; r->r13 = sc->r13; r->r14 = sc->r14;
	r->r15 = sc->r15; r->rdi = sc->rdi; r->rsi = sc->rsi;
	r->rbp = sc->rbp; r->rbx = sc->rbx; r->rdx = sc->rdx;
	r->rax = sc->rax; r->rcx = sc->rcx; r->rsp = sc->rsp;
	r->rip = sc->rip;
	r->eflags = (r->eflags & ~EFLAGS_USER) | (sc->eflags & EFLAGS_USER);
	ctx->dirty |= ARCH_DIRTY_ALL;
	/*
	 * The registers keep the user segments.  On Linux the iret to any
	 * other code segment (the 32-bit one included: vkernel serves only
	 * 64-bit code) faults, and so does one to a bad stack segment when
	 * the frame asks for a strict restore; without UC_STRICT_RESTORE_SS
	 * a bad stack segment is replaced by the user's (force_valid_ss).
	 */
	if ((sc->cs | 3) != ARCH_USER_CS)
		return false;
	return ss_ok || (frame->uc.uc_flags & UC_STRICT_RESTORE_SS) == 0;
}

void
arch_fpu_init_image(uint8_t *img, size_t size)
{
	uint16_t fcw = 0x37f;
	uint32_t mxcsr = 0x1f80, mask;

	memcpy(&mask, img + 28, 4);   /* MXCSR_MASK: the CPU's, kept */
	memset(img, 0, size);
	memcpy(img, &fcw, 2);
	memcpy(img + 24, &mxcsr, 4);
	memcpy(img + 28, &mask, 4);
	/* XSTATE_BV: x87 and SSE as given, everything else in init state. */
	img[512] = 0x3;
}
