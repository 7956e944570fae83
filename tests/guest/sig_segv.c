/*
 * Verifies the signals the CPU raises, each caught and left with siglongjmp:
 * SIGSEGV for unmapped, read-only, PROT_NONE, non-executable and
 * non-canonical addresses, SIGBUS past the end of a file, SIGFPE for integer
 * division faults, SIGILL for ud2 and SIGTRAP for int3, with Linux's
 * si_code, si_addr, RIP and trap number, the mask given back each time.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

#include "guest.h"

#define BIT(sig)	((uint64_t)1 << ((sig) - 1))
#define TRAP_DE		0
#define TRAP_BP		3
#define TRAP_UD		6
#define TRAP_GP		13
#define TRAP_PF		14

static volatile struct {
	int		signo, code;
	uintptr_t	addr, rip, trapno, cr2;
	uint64_t	mask;
} got;
static sigjmp_buf env;
static volatile uintptr_t insn_at;	/* Set by the asm before it faults. */

static uint64_t
cur_mask(void)
{
	uint64_t m = ~0ULL;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, 8);
	return m;
}

static void
on_fault(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	got.signo = sig;
	got.code = si->si_code;
	got.addr = (uintptr_t)si->si_addr;
	got.rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	got.trapno = (uintptr_t)uc->uc_mcontext.gregs[REG_TRAPNO];
	got.cr2 = (uintptr_t)uc->uc_mcontext.gregs[REG_CR2];
	got.mask = cur_mask();
	siglongjmp(env, 1);
}

static void __attribute__((noinline))
do_write(uintptr_t p)
{
	*(volatile int *)p = 1;
}

static void __attribute__((noinline))
do_read(uintptr_t p)
{
	(void)*(volatile int *)p;
}

static void __attribute__((noinline))
do_call(uintptr_t p)
{
	((void (*)(void))p)();
}

static void __attribute__((noinline))
do_div(uintptr_t num)
{
	__asm__ volatile("leaq 1f(%%rip), %%rcx\n\t"
	    "movq %%rcx, %[at]\n\t"
	    "movq $-1, %%rcx\n\t"
	    "testq %%rax, %%rax\n\t"
	    "js 0f\n\t"
	    "xorl %%ecx, %%ecx\n"
	    "0:\n\t"
	    "cqto\n"
	    "1:\n\t"
	    "idivq %%rcx"
	    : [at] "=m"(insn_at), "+a"(num) : : "rcx", "rdx", "cc");
}

static void __attribute__((noinline))
do_ud2(uintptr_t unused)
{
	(void)unused;
	__asm__ volatile("leaq 1f(%%rip), %%rax\n\t"
	    "movq %%rax, %[at]\n"
	    "1:\n\t"
	    "ud2" : [at] "=m"(insn_at) : : "rax");
}

static void __attribute__((noinline))
do_int3(uintptr_t unused)
{
	(void)unused;
	__asm__ volatile("leaq 1f(%%rip), %%rax\n\t"
	    "movq %%rax, %[at]\n"
	    "1:\n\t"
	    "int3" : [at] "=m"(insn_at) : : "rax");
}

/*
 * Runs fn(arg) and checks that signal sig with si_code code interrupted it,
 * was blocked in the handler and is unblocked again after siglongjmp.
 */
#define TRAP(fn, arg, sig, code) trap(fn, arg, sig, code, __LINE__)

static bool
trap(void (*fn)(uintptr_t), uintptr_t arg, int sig, int code, int line)
{
	memset((void *)&got, 0, sizeof(got));
	insn_at = 0;
	if (sigsetjmp(env, 1) == 0) {
		fn(arg);
		CHECK(false, "line %d: no signal", line);
		return false;
	}
	CHECK(got.signo == sig && got.code == code,
	    "line %d: signal %d code %d, want %d code %d", line, got.signo,
	    got.code, sig, code);
	CHECK(got.mask == BIT(sig), "line %d: mask in the handler %#llx",
	    line, (unsigned long long)got.mask);
	CHECK(cur_mask() == 0, "line %d: siglongjmp restored the mask",
	    line);
	return got.signo == sig;
}

/* A page fault: si_addr, CR2 and trap number name the address. */
static void
check_pf(uintptr_t addr, int line)
{
	CHECK(got.addr == addr && got.cr2 == addr && got.trapno == TRAP_PF,
	    "line %d: si_addr %#lx cr2 %#lx trapno %lu, want %#lx", line,
	    (unsigned long)got.addr, (unsigned long)got.cr2,
	    (unsigned long)got.trapno, (unsigned long)addr);
}

static void
test_segv(void)
{
	char *p = guest_anon(3 * GUEST_PAGE, PROT_READ | PROT_WRITE);
	uintptr_t a;

	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	CHECK_OK(guest_munmap(p, GUEST_PAGE));
	CHECK_OK(guest_mprotect(p + GUEST_PAGE, GUEST_PAGE, PROT_READ));
	CHECK_OK(guest_mprotect(p + 2 * GUEST_PAGE, GUEST_PAGE, PROT_NONE));
	/* Several times over: each recovery leaves things as they were. */
	for (int i = 0; i < 3; i++) {
		a = (uintptr_t)p + 100 + (uintptr_t)i * 8;
		if (TRAP(do_write, a, SIGSEGV, SEGV_MAPERR))
			check_pf(a, __LINE__);
	}
	a = (uintptr_t)p + GUEST_PAGE + 8;
	if (TRAP(do_write, a, SIGSEGV, SEGV_ACCERR))
		check_pf(a, __LINE__);
	CHECK_EQ(*(volatile int *)a, 0);
	a = (uintptr_t)p + 2 * GUEST_PAGE + 16;
	if (TRAP(do_read, a, SIGSEGV, SEGV_ACCERR))
		check_pf(a, __LINE__);
	if (TRAP(do_read, (uintptr_t)p, SIGSEGV, SEGV_MAPERR))
		check_pf((uintptr_t)p, __LINE__);

	/* Executing: a page without PROT_EXEC, and no page at all. */
	CHECK_OK(guest_mprotect(p + GUEST_PAGE, GUEST_PAGE,
	    PROT_READ | PROT_WRITE));
	p[GUEST_PAGE] = (char)0xc3;	/* ret */
	a = (uintptr_t)p + GUEST_PAGE;
	if (TRAP(do_call, a, SIGSEGV, SEGV_ACCERR)) {
		check_pf(a, __LINE__);
		CHECK(got.rip == a, "RIP %#lx at the target",
		    (unsigned long)got.rip);
	}
	if (TRAP(do_call, (uintptr_t)p + 32, SIGSEGV, SEGV_MAPERR))
		check_pf((uintptr_t)p + 32, __LINE__);

	/* A non-canonical address is a general protection fault. */
	if (TRAP(do_write, 0x8000000000001000ULL, SIGSEGV, SI_KERNEL)) {
		CHECK_EQ(got.addr, 0);
		CHECK_EQ(got.trapno, TRAP_GP);
	}
	guest_munmap(p + GUEST_PAGE, 2 * GUEST_PAGE);
}

static void
test_bus(void)
{
	int fd = (int)syscall(SYS_memfd_create, "sig_segv", 0);
	char *p;

	if (!CHECK(fd >= 0, "memfd_create"))
		return;
	CHECK_OK(ftruncate(fd, GUEST_PAGE));
	p = guest_mmap(NULL, 2 * GUEST_PAGE, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0);
	if (CHECK(p != MAP_FAILED, "mmap the memfd")) {
		p[0] = 1;
		/* Inside the mapping, past the end of the file. */
		if (TRAP(do_read, (uintptr_t)p + GUEST_PAGE + 4, SIGBUS,
		    BUS_ADRERR))
			CHECK(got.addr == (uintptr_t)p + GUEST_PAGE + 4,
			    "SIGBUS si_addr %#lx", (unsigned long)got.addr);
		CHECK_EQ(p[0], 1);
		guest_munmap(p, 2 * GUEST_PAGE);
	}
	close(fd);
}

/* The faulting instruction is the one reported: it did not complete. */
static void
check_at(const char *what, uintptr_t addr, uintptr_t trapno)
{
	CHECK(insn_at != 0 && got.addr == addr && got.rip == insn_at &&
	    got.trapno == trapno,
	    "%s: si_addr %#lx RIP %#lx trapno %lu, want %#lx %#lx %lu", what,
	    (unsigned long)got.addr, (unsigned long)got.rip,
	    (unsigned long)got.trapno, (unsigned long)addr,
	    (unsigned long)insn_at, (unsigned long)trapno);
}

static void
test_cpu(void)
{
	if (TRAP(do_div, 7, SIGFPE, FPE_INTDIV))
		check_at("divide by 0", insn_at, TRAP_DE);
	/* INT64_MIN / -1 overflows, and x86 raises the same fault. */
	if (TRAP(do_div, (uintptr_t)INT64_MIN, SIGFPE, FPE_INTDIV))
		check_at("INT64_MIN / -1", insn_at, TRAP_DE);
	if (TRAP(do_ud2, 0, SIGILL, ILL_ILLOPN))
		check_at("ud2", insn_at, TRAP_UD);
	/* int3 is a trap: RIP is past it, and the kernel sent the signal. */
	if (TRAP(do_int3, 0, SIGTRAP, SI_KERNEL)) {
		CHECK(insn_at != 0 && got.rip == insn_at + 1,
		    "int3: RIP %#lx, want %#lx", (unsigned long)got.rip,
		    (unsigned long)insn_at + 1);
		CHECK_EQ(got.addr, 0);
		CHECK_EQ(got.trapno, TRAP_BP);
	}
}

int
main(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP };
	struct sigaction sa;

	CHECK_OK(syscall(SYS_rt_sigprocmask, SIG_SETMASK, &(uint64_t){ 0 },
	    NULL, 8));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		CHECK_OK(sigaction(sigs[i], &sa, NULL));
	test_segv();
	test_bus();
	test_cpu();
	return guest_done();
}
