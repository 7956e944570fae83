/*
 * Verifies that a forged rt_sigreturn frame gets what Linux gives it
 * (arch/x86 restore_sigcontext): the selectors are forced to user
 * privilege, so a code selector other than the 64-bit user one (the
 * kernel's, a null one, a data one) kills with SIGSEGV, as the return to
 * it faults, while the user code selector with a cleared privilege level
 * is the user one again; a bad stack selector kills with SIGSEGV when the
 * frame says UC_STRICT_RESTORE_SS and becomes the user data selector
 * when not; IOPL, NT, VM, VIF and VIP in the frame's flags are ignored;
 * an FPU state pointer to memory that cannot be read, or to an XSAVE image
 * that is not 64-byte aligned, kills with SIGSEGV, one to an aligned copy
 * does as the original, and a null one resets the FPU state; a return to a kernel address
 * faults.  With a SIGSEGV handler, the handler runs in 64-bit mode.
 * Once as the user it starts as, once more as uid 65534.
 */
#include <sys/resource.h>
#include <sys/wait.h>
#include <ucontext.h>

#include "../guest/guest.h"

#define UC_STRICT_RESTORE_SS	0x4
#define USER_CS		0x33
#define USER_DS		0x2b
#define FL_AC		0x40000ULL
#define FL_BAD		0x1b7000ULL	/* VIP VIF VM NT IOPL */

enum forge {
	F_CS_KERNEL, F_CS_NULL, F_CS_DATA, F_CS_RPL0,
	F_SS_KERNEL, F_SS_NULL, F_SS_KERNEL_LAX, F_SS_RPL0,
	F_FLAGS, F_FP_KERNEL, F_FP_LOW, F_FP_NULL, F_FP_MOVED, F_FP_ALIGN16,
	F_RIP_KERNEL, F_N,
};

static const struct {
	const char *name;
	bool segv;	/* the forged return kills with SIGSEGV */
} cases[F_N] = {
	[F_CS_KERNEL] = { "cs kernel", true },
	[F_CS_NULL] = { "cs null", true },
	[F_CS_DATA] = { "cs data", true },
	[F_CS_RPL0] = { "cs rpl 0", false },
	[F_SS_KERNEL] = { "ss kernel strict", true },
	[F_SS_NULL] = { "ss null strict", true },
	[F_SS_KERNEL_LAX] = { "ss kernel lax", false },
	[F_SS_RPL0] = { "ss rpl 0", false },
	[F_FLAGS] = { "eflags iopl nt vm", false },
	[F_FP_KERNEL] = { "fpstate kernel", true },
	[F_FP_LOW] = { "fpstate unmapped", true },
	[F_FP_NULL] = { "fpstate null", false },
	[F_FP_MOVED] = { "fpstate moved", false },
	[F_FP_ALIGN16] = { "fpstate 16-byte aligned", true },
	[F_RIP_KERNEL] = { "rip kernel", true },
};

static volatile enum forge forge;
static uint8_t fp_copy[32768] __attribute__((aligned(64)));

/*
 * The frame's FPU state copied to another place (a copy of an XSAVE image
 * must be 64-byte aligned for XRSTOR), as far as the frame says it goes.
 */
static void *
fp_move(void *fp, size_t off)
{
	uint32_t size;

	memcpy(&size, (uint8_t *)fp + 468, sizeof(size));
	if (size < 512 || size > sizeof(fp_copy) - off)
		size = 512;
	memcpy(fp_copy + off, fp, size);
	return fp_copy + off;
}

static void
on_usr1(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	/* cs, gs, fs and ss share the CSGSFS word: cs low, ss high. */
	uint64_t csgsfs = (uint64_t)g[REG_CSGSFS];

	(void)sig;
	(void)si;
	switch (forge) {
	case F_CS_KERNEL: csgsfs = (csgsfs & ~0xffffULL) | 0x10; break;
	case F_CS_NULL: csgsfs &= ~0xffffULL; break;
	case F_CS_DATA: csgsfs = (csgsfs & ~0xffffULL) | USER_DS; break;
	case F_CS_RPL0: csgsfs = (csgsfs & ~0xffffULL) | (USER_CS & ~3); break;
	case F_SS_KERNEL:
	case F_SS_KERNEL_LAX:
		csgsfs = (csgsfs & ~(0xffffULL << 48)) | (0x18ULL << 48);
		break;
	case F_SS_NULL: csgsfs &= ~(0xffffULL << 48); break;
	case F_SS_RPL0:
		csgsfs = (csgsfs & ~(0xffffULL << 48)) |
		    ((uint64_t)(USER_DS & ~3) << 48);
		break;
	case F_FLAGS: g[REG_EFL] |= (greg_t)(FL_BAD | FL_AC); break;
	case F_FP_KERNEL:
		uc->uc_mcontext.fpregs = (void *)0xffff888000000000UL;
		break;
	case F_FP_LOW: uc->uc_mcontext.fpregs = (void *)0x10000UL; break;
	case F_FP_NULL: uc->uc_mcontext.fpregs = NULL; break;
	case F_FP_MOVED:
		uc->uc_mcontext.fpregs = fp_move(uc->uc_mcontext.fpregs, 0);
		break;
	case F_FP_ALIGN16:
		uc->uc_mcontext.fpregs = fp_move(uc->uc_mcontext.fpregs, 16);
		break;
	case F_RIP_KERNEL: g[REG_RIP] = (greg_t)0xffffffff81000000UL; break;
	case F_N: break;
	}
	if (forge == F_SS_KERNEL_LAX)
		uc->uc_flags &= ~UC_STRICT_RESTORE_SS;
	g[REG_CSGSFS] = (greg_t)csgsfs;
}

static volatile int segv_cs;

static void
on_segv(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint16_t cs;

	(void)sig;
	(void)si;
	(void)uc;
	/* The handler itself runs with the user code selector. */
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	_exit(cs == USER_CS ? 42 : 43);
}

/* What a child finds after a forged return that Linux survives. */
static int
after_return(enum forge f, uint64_t fl)
{
	uint64_t x0 = 0;
	uint16_t cs, ss;

	__asm__ volatile("mov %%cs, %0; mov %%ss, %1" : "=r"(cs), "=r"(ss));
	__asm__ volatile("movq %%xmm0, %0" : "=r"(x0));
	if (cs != USER_CS || ss != USER_DS)
		return 10;
	if (f == F_FLAGS && ((fl & FL_BAD) != 0 || (fl & FL_AC) == 0))
		return 11;
	/* A null FPU pointer leaves the FPU in its initial state. */
	if (f == F_FP_NULL && x0 != 0)
		return 12;
	return 0;
}

/* A child returns from SIGUSR1's handler through a forged frame. */
static int
forged_return(enum forge f, bool segv_handler)
{
	struct sigaction sa;
	uint64_t fl;
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_usr1;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGUSR1, &sa, NULL);
		if (segv_handler) {
			sa.sa_sigaction = on_segv;
			sigaction(SIGSEGV, &sa, NULL);
		}
		forge = f;
		__asm__ volatile("movq %0, %%xmm0" : : "r"(0x1234567887654321ULL)
		    : "xmm0");
		syscall(SYS_kill, syscall(SYS_getpid), SIGUSR1);
		/* The flags at once, then AC off before any unaligned access
		 * could raise an alignment check. */
		__asm__ volatile("pushfq; movq (%%rsp), %0;"
		    "andq $~0x40000, (%%rsp); popfq" : "=r"(fl) : : "cc",
		    "memory");
		_exit(after_return(f, fl));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static void
all_tests(void)
{
	for (enum forge f = 0; f < F_N; f++) {
		int want = cases[f].segv ? SIGSEGV : 0;
		int st = forged_return(f, false);

		CHECK(st == want, "%s: status %#x, want %#x", cases[f].name,
		    st, want);
		if (!cases[f].segv)
			continue;
		st = forged_return(f, true);
		CHECK(st == 42 << 8, "%s with a SIGSEGV handler: status %#x",
		    cases[f].name, st);
	}
}

int
main(void)
{
	return guest_main_twice(all_tests);
}
