/*
 * Verifies the signal frame's general registers: the handler's ucontext holds
 * every register of the interrupted code (RIP exactly after its syscall), the
 * handler starts with DF clear, sigreturn restores all the registers, flags
 * and mask, and changes the handler makes to them, to RIP after a fault and
 * to uc_sigmask take effect when it returns.
 */
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

#include "guest.h"

#define BIT(sig)	((uint64_t)1 << ((sig) - 1))
#define FL_CF		0x0001ULL
#define FL_DF		0x0400ULL
#define FLIP		0x00ff00ff00ff00ffULL

/* The asm below hard-codes these indices as offsets into sr_in and sr_out. */
_Static_assert(REG_R8 == 0 && REG_R10 == 2 && REG_R12 == 4 &&
    REG_R15 == 7 && REG_RDI == 8 && REG_RSI == 9 && REG_RBP == 10 &&
    REG_RBX == 11 && REG_RDX == 12 && REG_RAX == 13 && REG_RSP == 15 &&
    REG_RIP == 16 && REG_EFL == 17, "x86-64 gregs layout");

/* The registers the asm loads, and those kill(2) leaves alone. */
static const int loaded[] = {
	REG_R8, REG_R9, REG_R10, REG_R12, REG_R13, REG_R14, REG_R15,
	REG_RDI, REG_RSI, REG_RBP, REG_RBX, REG_RDX,
};
#define NLOADED	(int)(sizeof(loaded) / sizeof(loaded[0]))

static uint64_t sr_in[NGREG], sr_out[NGREG];
static volatile uint64_t seen[NGREG], seen_rflags, seen_mask;
static volatile int hits;
static volatile bool modify;

static uint64_t
cur_mask(void)
{
	uint64_t m = ~0ULL;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, 8);
	return m;
}

static void
on_usr1(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint64_t fl;

	(void)sig;
	(void)si;
	__asm__ volatile("pushfq; popq %0" : "=r"(fl));
	seen_rflags = fl;
	for (int i = 0; i < (int)NGREG; i++)
		seen[i] = (uint64_t)uc->uc_mcontext.gregs[i];
	memcpy((void *)&seen_mask, &uc->uc_sigmask, 8);
	hits++;
	/* Scribble on the registers sigreturn must bring back. */
	__asm__ volatile("movq $-1, %%rax; movq $-1, %%rcx; movq $-1, %%rdx;"
	    "movq $-1, %%rsi; movq $-1, %%rdi; movq $-1, %%r8;"
	    "movq $-1, %%r9; movq $-1, %%r10; movq $-1, %%r11" ::: "rax",
	    "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11");
	if (!modify)
		return;
	for (int i = 0; i < NLOADED; i++)
		uc->uc_mcontext.gregs[loaded[i]] ^= (greg_t)FLIP;
	uc->uc_mcontext.gregs[REG_RAX] = 1234;
	uc->uc_mcontext.gregs[REG_EFL] |= FL_CF;
	uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)FL_DF;
	sigaddset(&uc->uc_sigmask, SIGUSR2);
}

/*
 * Loads sr_in into the registers, sets DF, makes kill(pid, SIGUSR1) and
 * stores the registers, RSP, the address after the syscall and RFLAGS in
 * sr_out.  RBP is saved on the stack, below the red zone.
 */
static void __attribute__((noinline))
kill_with_regs(void)
{
	__asm__ volatile(
	    "subq $128, %%rsp\n\t"
	    "pushq %%rbp\n\t"
	    "movq 0*8+%[in], %%r8\n\t"
	    "movq 1*8+%[in], %%r9\n\t"
	    "movq 2*8+%[in], %%r10\n\t"
	    "movq 4*8+%[in], %%r12\n\t"
	    "movq 5*8+%[in], %%r13\n\t"
	    "movq 6*8+%[in], %%r14\n\t"
	    "movq 7*8+%[in], %%r15\n\t"
	    "movq 8*8+%[in], %%rdi\n\t"
	    "movq 9*8+%[in], %%rsi\n\t"
	    "movq 10*8+%[in], %%rbp\n\t"
	    "movq 11*8+%[in], %%rbx\n\t"
	    "movq 12*8+%[in], %%rdx\n\t"
	    "movl %[nr], %%eax\n\t"
	    "std\n\t"
	    "syscall\n"
	    "1:\n\t"
	    "pushfq\n\t"
	    "popq 17*8+%[out]\n\t"
	    "cld\n\t"
	    "movq %%r8, 0*8+%[out]\n\t"
	    "movq %%r9, 1*8+%[out]\n\t"
	    "movq %%r10, 2*8+%[out]\n\t"
	    "movq %%r12, 4*8+%[out]\n\t"
	    "movq %%r13, 5*8+%[out]\n\t"
	    "movq %%r14, 6*8+%[out]\n\t"
	    "movq %%r15, 7*8+%[out]\n\t"
	    "movq %%rdi, 8*8+%[out]\n\t"
	    "movq %%rsi, 9*8+%[out]\n\t"
	    "movq %%rbp, 10*8+%[out]\n\t"
	    "movq %%rbx, 11*8+%[out]\n\t"
	    "movq %%rdx, 12*8+%[out]\n\t"
	    "movq %%rax, 13*8+%[out]\n\t"
	    "movq %%rsp, 15*8+%[out]\n\t"
	    "leaq 1b(%%rip), %%rax\n\t"
	    "movq %%rax, 16*8+%[out]\n\t"
	    "popq %%rbp\n\t"
	    "addq $128, %%rsp"
	    : [out] "=m"(sr_out)
	    : [in] "m"(sr_in), [nr] "i"(SYS_kill)
	    : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
	      "r11", "r12", "r13", "r14", "r15", "cc", "memory");
}

static void
run(bool mod)
{
	memset(sr_out, 0, sizeof(sr_out));
	memset((void *)seen, 0, sizeof(seen));
	for (int i = 0; i < NLOADED; i++)
		sr_in[loaded[i]] = 0x0123456789abcdefULL * (uint64_t)(i + 3);
	sr_in[REG_RDI] = (uint64_t)syscall(SYS_getpid);
	sr_in[REG_RSI] = SIGUSR1;
	modify = mod;
	hits = 0;
	kill_with_regs();
	CHECK_EQ(hits, 1);
}

static void
test_frame_and_restore(void)
{
	run(false);
	/* The frame holds what the interrupted code had. */
	for (int i = 0; i < NLOADED; i++)
		CHECK(seen[loaded[i]] == sr_in[loaded[i]],
		    "gregs[%d] in the frame: %#llx, want %#llx", loaded[i],
		    (unsigned long long)seen[loaded[i]],
		    (unsigned long long)sr_in[loaded[i]]);
	CHECK_EQ(seen[REG_RAX], 0);
	CHECK(seen[REG_RIP] == sr_out[REG_RIP], "RIP %#llx, want %#llx",
	    (unsigned long long)seen[REG_RIP],
	    (unsigned long long)sr_out[REG_RIP]);
	CHECK(seen[REG_RSP] == sr_out[REG_RSP], "RSP %#llx, want %#llx",
	    (unsigned long long)seen[REG_RSP],
	    (unsigned long long)sr_out[REG_RSP]);
	CHECK(seen[REG_EFL] & FL_DF, "saved RFLAGS %#llx has DF",
	    (unsigned long long)seen[REG_EFL]);
	CHECK(!(seen_rflags & FL_DF), "handler runs with DF clear");
	CHECK_EQ(seen_mask, 0);

	/* And sigreturn puts it all back. */
	for (int i = 0; i < NLOADED; i++)
		CHECK(sr_out[loaded[i]] == sr_in[loaded[i]],
		    "gregs[%d] after return: %#llx, want %#llx", loaded[i],
		    (unsigned long long)sr_out[loaded[i]],
		    (unsigned long long)sr_in[loaded[i]]);
	CHECK_EQ(sr_out[REG_RAX], 0);
	CHECK(sr_out[REG_EFL] & FL_DF, "DF restored");
	CHECK_EQ(cur_mask(), 0);
}

static void
test_modify(void)
{
	run(true);
	for (int i = 0; i < NLOADED; i++)
		CHECK(sr_out[loaded[i]] == (sr_in[loaded[i]] ^ FLIP),
		    "changed gregs[%d]: %#llx, want %#llx", loaded[i],
		    (unsigned long long)sr_out[loaded[i]],
		    (unsigned long long)(sr_in[loaded[i]] ^ FLIP));
	CHECK_EQ(sr_out[REG_RAX], 1234);
	CHECK(sr_out[REG_EFL] & FL_CF, "changed CF");
	CHECK(!(sr_out[REG_EFL] & FL_DF), "changed DF");
	CHECK_EQ(cur_mask(), BIT(SIGUSR2));
	CHECK_OK(syscall(SYS_rt_sigprocmask, SIG_SETMASK, &(uint64_t){ 0 },
	    NULL, 8));
}

static volatile uintptr_t fault_at, fault_rip, fault_addr;

static void
on_segv(int sig, siginfo_t *si, void *ucv)
{
	static const char msg[] = "FAIL: sig_sigreturn: SIGSEGV not at the "
	    "expected instruction\n";
	ucontext_t *uc = ucv;

	(void)sig;
	fault_rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	fault_addr = (uintptr_t)si->si_addr;
	if (fault_rip != fault_at) {
		guest_write_all(2, msg, sizeof(msg) - 1);
		_exit(1);
	}
	/* Skip the 2-byte load and make it look as if it read 0x5a5a. */
	uc->uc_mcontext.gregs[REG_RIP] += 2;
	uc->uc_mcontext.gregs[REG_RCX] = 0x5a5a;
}

static void
test_skip_fault(void)
{
	void *bad = guest_anon(GUEST_PAGE, PROT_NONE);
	uintptr_t next;
	uint32_t val;

	if (!CHECK(bad != MAP_FAILED, "mmap"))
		return;
	__asm__ volatile(
	    "leaq 1f(%%rip), %%rdx\n\t"
	    "movq %%rdx, %[at]\n\t"
	    "xorl %%ecx, %%ecx\n"
	    "1:\n\t"
	    "movl (%[p]), %%ecx\n"	/* 8b 08: two bytes with %rax */
	    "2:\n\t"
	    "leaq 2b(%%rip), %[next]\n\t"
	    "movl %%ecx, %[val]"
	    : [at] "=m"(fault_at), [next] "=r"(next), [val] "=m"(val)
	    : [p] "a"(bad)
	    : "rcx", "rdx", "memory");
	CHECK_EQ(next - fault_at, 2);
	CHECK_EQ(fault_rip, fault_at);
	CHECK(fault_addr == (uintptr_t)bad, "si_addr %#lx, want %p",
	    (unsigned long)fault_addr, bad);
	CHECK_EQ(val, 0x5a5a);
	guest_munmap(bad, GUEST_PAGE);
}

int
main(void)
{
	struct sigaction sa;

	CHECK_OK(syscall(SYS_rt_sigprocmask, SIG_SETMASK, &(uint64_t){ 0 },
	    NULL, 8));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(SIGUSR1, &sa, NULL));
	sa.sa_sigaction = on_segv;
	CHECK_OK(sigaction(SIGSEGV, &sa, NULL));
	test_frame_and_restore();
	test_modify();
	test_skip_fault();
	return guest_done();
}
