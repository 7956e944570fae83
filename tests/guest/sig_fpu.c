/*
 * Verifies the FPU state across a signal: the frame holds the interrupted
 * xmm (and, with AVX, ymm) registers, MXCSR, the x87 control word and stack;
 * the handler starts with the default MXCSR and control word and may compute
 * in floating point and clobber it all; sigreturn restores every bit, or the
 * values the handler wrote into the frame.
 */
#include <cpuid.h>
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

#include "guest.h"

#define MXCSR_DFL	0x1f80	/* all exceptions masked, round to nearest */
#define MXCSR_PROG	0x7f80	/* the program's: round toward zero */
#define MXCSR_MOD	0x5f80	/* the handler's change: round up */
#define FCW_DFL		0x037f
#define FCW_PROG	0x027f	/* double precision */
#define XMAGIC1		0x46505853U
#define XMAGIC2		0x46505845U
#define XFEATURE_YMM	0x4

/* The FXSAVE image at the start of the frame's FPU state. */
struct fxsave {
	uint16_t	cwd, swd, ftw, fop;
	uint64_t	rip, rdp;
	uint32_t	mxcsr, mxcsr_mask;
	uint8_t		st[8][16];
	uint8_t		xmm[16][16];
	uint8_t		pad[48];
	/* Linux's fpx_sw_bytes, where the XSAVE frame is described. */
	uint32_t	magic1, extended_size;
	uint64_t	xfeatures;
	uint32_t	xstate_size;
	uint8_t		pad2[28];
};
_Static_assert(sizeof(struct fxsave) == 512, "fxsave layout");

/* Each register as 32 bytes: the xmm half, then the ymm upper half. */
static uint8_t rin[16][32], rout[16][32], seen_lo[16][16], seen_hi[16][16];
static uint8_t pi_in[16], pi_out[16], seen_st0[10];
static uint32_t mxcsr_out;
static uint16_t fcw_out;
static volatile uint32_t seen_mxcsr, seen_fmxcsr, seen_magic2;
static volatile uint16_t seen_fcw, seen_fcwd;
static volatile uint64_t seen_xfeatures;
static volatile double h_sum;
static volatile long h_conv;
static volatile int hits, nterms = 200;
static volatile bool modify, have_fp;
static bool avx, osxsave;
static unsigned ymm_off;	/* Offset of the ymm upper halves in XSAVE. */

static double
harmonic(void)
{
	double s = 0;

	for (int i = 1; i <= nterms; i++)
		s += 1.0 / i;
	return s;
}

static void
on_usr1(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	struct fxsave *fx = (struct fxsave *)uc->uc_mcontext.fpregs;
	uint32_t m;
	uint16_t cw;

	(void)sig;
	(void)si;
	hits++;
	__asm__ volatile("stmxcsr %0; fnstcw %1" : "=m"(m), "=m"(cw));
	seen_mxcsr = m;
	seen_fcw = cw;
	h_sum = harmonic();
	h_conv = (long)(h_sum * 1e6);
	have_fp = fx != NULL;
	if (!have_fp)
		return;
	seen_fmxcsr = fx->mxcsr;
	seen_fcwd = fx->cwd;
	memcpy(seen_st0, fx->st[0], 10);
	memcpy(seen_lo, fx->xmm, sizeof(seen_lo));
	/* A sane XSAVE size, so as not to read off the stack. */
	if (fx->magic1 == XMAGIC1 && fx->xstate_size >= 576 &&
	    fx->xstate_size <= 65536) {
		seen_xfeatures = fx->xfeatures;
		memcpy((void *)&seen_magic2, (char *)fx + fx->xstate_size, 4);
		if (avx && (fx->xfeatures & XFEATURE_YMM))
			memcpy(seen_hi, (char *)fx + ymm_off, sizeof(seen_hi));
	}
	/* Clobber everything sigreturn must restore. */
	m = 0x3f80;
	cw = 0x007f;
	__asm__ volatile("ldmxcsr %0; fldcw %1; pcmpeqd %%xmm0, %%xmm0;"
	    "pcmpeqd %%xmm3, %%xmm3; pcmpeqd %%xmm7, %%xmm7;"
	    "pcmpeqd %%xmm8, %%xmm8; pcmpeqd %%xmm15, %%xmm15" : : "m"(m),
	    "m"(cw) : "xmm0", "xmm3", "xmm7", "xmm8", "xmm15");
	if (avx)
		__asm__ volatile("vpcmpeqd %%ymm1, %%ymm1, %%ymm1;"
		    "vpcmpeqd %%ymm5, %%ymm5, %%ymm5;"
		    "vpcmpeqd %%ymm14, %%ymm14, %%ymm14; vzeroupper" : : :
		    "xmm1", "xmm5", "xmm14");
	if (!modify)
		return;
	memset(fx->xmm[3], 0xa5, 16);
	fx->mxcsr = MXCSR_MOD;
	if (avx && (fx->xfeatures & XFEATURE_YMM))
		memset((char *)fx + ymm_off + 5 * 16, 0x3c, 16);
}

/*
 * Loads rin into the vector registers (ymm with AVX, else xmm), the
 * program's MXCSR and control word, pi onto the x87 stack, makes kill(pid,
 * SIGUSR1) and stores them all back, then puts the defaults back for C.
 */
static void __attribute__((noinline))
kill_with_fpu(long pid)
{
	uint32_t mx = MXCSR_PROG, mxd = MXCSR_DFL;
	uint16_t cw = FCW_PROG, cwd = FCW_DFL;
	long ret;

	__asm__ volatile(
	    "test %[avx], %[avx]\n\t"
	    "jz 4f\n\t"
	    ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
	    "vmovdqu \\i*32+%[in], %%ymm\\i\n\t"
	    ".endr\n\t"
	    "jmp 1f\n"
	    "4:\n\t"
	    ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
	    "movdqu \\i*32+%[in], %%xmm\\i\n\t"
	    ".endr\n\t"
	    "1:\n\t"
	    "fldt %[pi]\n\t"
	    "fldcw %[cw]\n\t"
	    "ldmxcsr %[mx]\n\t"
	    "syscall\n\t"
	    "stmxcsr %[mxo]\n\t"
	    "fnstcw %[cwo]\n\t"
	    "ldmxcsr %[mxd]\n\t"
	    "fldcw %[cwd]\n\t"
	    "fstpt %[pio]\n\t"
	    "test %[avx], %[avx]\n\t"
	    "jnz 2f\n\t"
	    ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
	    "movdqu %%xmm\\i, \\i*32+%[out]\n\t"
	    ".endr\n\t"
	    "jmp 3f\n"
	    "2:\n\t"
	    ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
	    "vmovdqu %%ymm\\i, \\i*32+%[out]\n\t"
	    ".endr\n\t"
	    "vzeroupper\n"
	    "3:"
	    : [out] "=m"(rout), [pio] "=m"(pi_out), [mxo] "=m"(mxcsr_out),
	      [cwo] "=m"(fcw_out), "=a"(ret)
	    : [in] "m"(rin), [pi] "m"(pi_in), [mx] "m"(mx), [mxd] "m"(mxd),
	      [cw] "m"(cw), [cwd] "m"(cwd), [avx] "r"((long)avx),
	      "a"((long)SYS_kill), "D"(pid), "S"((long)SIGUSR1)
	    : "rcx", "r11", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
	      "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
	      "xmm13", "xmm14", "xmm15", "cc", "memory");
	CHECK_EQ(ret, 0);
}

static void
run(bool mod)
{
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 32; j++)
			rin[i][j] = (uint8_t)(i * 32 + j + 1);
	memset(rout, 0, sizeof(rout));
	memset(seen_lo, 0, sizeof(seen_lo));
	memset(seen_hi, 0, sizeof(seen_hi));
	modify = mod;
	hits = 0;
	h_sum = 0;
	kill_with_fpu(syscall(SYS_getpid));
	CHECK_EQ(hits, 1);
}

static void
test_preserve(void)
{
	double want = harmonic();
	int bad_lo = 0, bad_hi = 0, frame_lo = 0, frame_hi = 0;

	run(false);
	/* The handler starts clean and may compute. */
	CHECK_EQ(seen_mxcsr, MXCSR_DFL);
	CHECK_EQ(seen_fcw, FCW_DFL);
	CHECK(h_sum == want, "handler's sum %.17g, want %.17g", h_sum, want);
	CHECK_EQ(h_conv, (long)(want * 1e6));
	if (CHECK(have_fp, "uc_mcontext.fpregs is set")) {
		CHECK_EQ(seen_fmxcsr, MXCSR_PROG);
		CHECK_EQ(seen_fcwd, FCW_PROG);
		CHECK(memcmp(seen_st0, pi_in, 10) == 0, "st(0) in the frame");
		for (int i = 0; i < 16; i++)
			frame_lo += memcmp(seen_lo[i], rin[i], 16) != 0;
		CHECK(frame_lo == 0, "%d xmm registers wrong in the frame",
		    frame_lo);
		/* Linux always writes an XSAVE frame on CPUs that have it. */
		if (osxsave) {
			CHECK_EQ(seen_xfeatures & 3, 3);
			CHECK_EQ(seen_magic2, XMAGIC2);
		}
	}
	if (avx) {
		CHECK(seen_xfeatures & XFEATURE_YMM, "frame has ymm state");
		for (int i = 0; i < 16; i++)
			frame_hi += memcmp(seen_hi[i], rin[i] + 16, 16) != 0;
		CHECK(frame_hi == 0, "%d ymm upper halves wrong in the frame",
		    frame_hi);
	}

	/* Everything is back after sigreturn. */
	for (int i = 0; i < 16; i++) {
		bad_lo += memcmp(rout[i], rin[i], 16) != 0;
		bad_hi += avx && memcmp(rout[i] + 16, rin[i] + 16, 16) != 0;
	}
	CHECK(bad_lo == 0, "%d xmm registers not restored", bad_lo);
	CHECK(bad_hi == 0, "%d ymm upper halves not restored", bad_hi);
	CHECK_EQ(mxcsr_out, MXCSR_PROG);
	CHECK_EQ(fcw_out, FCW_PROG);
	CHECK(memcmp(pi_out, pi_in, 10) == 0, "x87 st(0) restored");
}

static void
test_modify(void)
{
	uint8_t a5[16], c3[16];

	memset(a5, 0xa5, 16);
	memset(c3, 0x3c, 16);
	run(true);
	CHECK(memcmp(rout[3], a5, 16) == 0, "xmm3 changed in the frame");
	CHECK(memcmp(rout[2], rin[2], 16) == 0, "xmm2 kept");
	CHECK_EQ(mxcsr_out, MXCSR_MOD);
	if (avx) {
		CHECK(memcmp(rout[5] + 16, c3, 16) == 0,
		    "ymm5 upper half changed in the frame");
		CHECK(memcmp(rout[5], rin[5], 16) == 0, "xmm5 kept");
	}
}

int
main(void)
{
	struct sigaction sa;
	unsigned a, b, c, d;

	osxsave = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE);
	if (osxsave && (c & bit_AVX)) {
		__asm__("xgetbv" : "=a"(a), "=d"(d) : "c"(0));
		avx = (a & 6) == 6;
		__cpuid_count(0xd, 2, a, b, c, d);
		ymm_off = b;
	}
	if (!avx)
		guest_note("sig_fpu: no AVX, ymm checks skipped");
	__asm__ volatile("fldpi; fstpt %0" : "=m"(pi_in));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(SIGUSR1, &sa, NULL));
	test_preserve();
	test_modify();
	return guest_done();
}
