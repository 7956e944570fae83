/*
 * A guest that attacks the systrap platform's stub from inside: it jumps
 * into the stub's system call instructions with registers of its own and
 * scribbles over its thread area and the stub's read-only pages.  No host
 * call of its choosing may run; what the guest sees instead depends on
 * the mode (argv[1]), and the test checks it:
 *   inject     the control thread's injection site: the call does not
 *              run (-ENOSYS), the guest gets SIGSEGV at the stub address;
 *              exits 0
 *   hsys       the handler's call site with getppid: the stub is killed,
 *              the guest dies of SIGKILL; "ESCAPED" means the call ran
 *   sigreturn  an rt_sigreturn there that moves the signal stack into
 *              guest memory, then a syscall: killed (SIGKILL), not hung
 *   area       overwrites its thread area (the message fields and old
 *              frames, the message left unposted) and makes calls on;
 *              a write to the constants page faults; exits 0
 *   frame      corrupts the frame of a thread vkernel holds, from another
 *              thread, then signals it: delivered, exits 0
 *   exit       the exit site of a thread vkernel ends, with calls other
 *              than exit: none runs (SIGSEGV at the stub each); an exit
 *              there by a second thread ends the process (SIGKILL), as
 *              a thread the host took away, rather than leaving a
 *              thread vkernel waits for forever
 *   exitmain   the same exit by the process's only thread: SIGKILL, not
 *              a process that never ends
 *   wild       posts a message of its own whose frame pointers point
 *              anywhere and rings vkernel's doorbell: vkernel ends the
 *              guest (SIGKILL) and does not crash
 * Only meaningful under --platform=systrap.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define STUB_BASE        0x7ffb00000000UL
#define STUB_SYSCALL1    (STUB_BASE + 0x100)
#define STUB_HSYS        (STUB_BASE + 0x380)
#define STUB_EXIT_SYS    (STUB_BASE + 0x3e0)
#define STUB_CONST_PAGE  (STUB_BASE + 0x2000)
#define STUB_AREAS       (STUB_BASE + 0x10000)
#define STUB_AREA_SIZE   0x8000

static volatile uint64_t segv_rax, segv_addr;
static volatile int segv_seen;

static void
on_segv(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	segv_seen++;
	segv_addr = (uint64_t)si->si_addr;
	segv_rax = (uint64_t)uc->uc_mcontext.gregs[REG_RAX];
	/* Back to the caller of the jump: its return address is on top. */
	uc->uc_mcontext.gregs[REG_RIP] =
	    (greg_t)*(uint64_t *)uc->uc_mcontext.gregs[REG_RSP];
	uc->uc_mcontext.gregs[REG_RSP] += 8;
}

/* poke(p): one store to p, faulting at its first instruction. */
void poke(volatile uint64_t *p);
__asm__(".text\n.globl poke\npoke:\n\tmovq $0, (%rdi)\n\tret\n");

/* Call addr with rax = nr and rdi.. = a0.., as the stub's code would. */
static long
jump3(uint64_t addr, long nr, long a0, long a1, long a2)
{
	long r;

	__asm__ volatile("call *%[addr]"
	    : "=a"(r)
	    : [addr] "r"(addr), "0"(nr), "D"(a0), "S"(a1), "d"(a2)
	    : "rcx", "r11", "memory");
	return r;
}

static long
jump(uint64_t addr, long nr, long a0)
{
	return jump3(addr, nr, a0, 0, 0);
}

static int
mode_inject(void)
{
	jump(STUB_SYSCALL1, SYS_getpid, 0);
	if (segv_seen != 1 || segv_addr < STUB_BASE ||
	    segv_addr >= STUB_BASE + 0x1000) {
		printf("FAIL: no SIGSEGV at the stub (%d, %#lx)\n", segv_seen,
		    (unsigned long)segv_addr);
		return 1;
	}
	if (segv_rax != (uint64_t)-38 && segv_rax != SYS_getpid) {
		printf("ESCAPED: the injected getpid ran: rax %#lx\n",
		    (unsigned long)segv_rax);
		return 1;
	}
	return 0;
}

static int
mode_hsys(void)
{
	long r = jump(STUB_HSYS, SYS_getppid, 0);

	printf("ESCAPED: host getppid ran: %ld\n", r);
	return 1;
}

/*
 * An rt_sigreturn through the handler's call site, from a frame of the
 * guest's that moves the thread's signal stack into guest memory: the
 * next trap's handler then runs there, and must die rather than sleep on
 * a futex of the guest's choosing (or post a message vkernel would take).
 * The frame resumes right after the jump, on the stack it left.
 */
static int
mode_sigreturn(void)
{
	static char newstack[65536] __attribute__((aligned(4096)));
	static char frame[4096] __attribute__((aligned(64)));
	ucontext_t *uc = (ucontext_t *)(frame + 8);
	long r;

	/* Mapped on the host before the kernel writes a frame there. */
	memset(newstack, 1, sizeof(newstack));
	uc->uc_stack.ss_sp = newstack;
	uc->uc_stack.ss_size = sizeof(newstack);
	uc->uc_mcontext.gregs[REG_CSGSFS] = 0x33 | (0x2bL << 48);
	uc->uc_mcontext.gregs[REG_EFL] = 0x202;
	__asm__ volatile(
	    "lea 1f(%%rip), %%rax\n\t"
	    "mov %%rax, %c[rip](%[uc])\n\t"
	    "mov %%rsp, %c[rsp](%[uc])\n\t"
	    "mov %%rbp, %c[rbp](%[uc])\n\t"
	    "mov %%rbx, %c[rbx](%[uc])\n\t"
	    "mov %%r12, %c[r12](%[uc])\n\t"
	    "mov %%r13, %c[r13](%[uc])\n\t"
	    "mov %%r14, %c[r14](%[uc])\n\t"
	    "mov %%r15, %c[r15](%[uc])\n\t"
	    "mov %[uc], %%rsp\n\t"
	    "mov $15, %%eax\n\t"
	    "jmp *%[hsys]\n"
	    "1:\n\t"
	    : "=&a"(r)
	    : [uc] "r"(uc), [hsys] "r"(STUB_HSYS),
	      [rip] "i"(offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP])),
	      [rsp] "i"(offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP])),
	      [rbp] "i"(offsetof(ucontext_t, uc_mcontext.gregs[REG_RBP])),
	      [rbx] "i"(offsetof(ucontext_t, uc_mcontext.gregs[REG_RBX])),
	      [r12] "i"(offsetof(ucontext_t, uc_mcontext.gregs[REG_R12])),
	      [r13] "i"(offsetof(ucontext_t, uc_mcontext.gregs[REG_R13])),
	      [r14] "i"(offsetof(ucontext_t, uc_mcontext.gregs[REG_R14])),
	      [r15] "i"(offsetof(ucontext_t, uc_mcontext.gregs[REG_R15]))
	    : "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory");
	r = syscall(SYS_getpid);
	printf("ESCAPED: a call after the moved signal stack returned %ld\n",
	    r);
	return 1;
}

static int
mode_area(void)
{
	volatile uint8_t *area = (volatile uint8_t *)STUB_AREAS;
	long pid = getpid();

	for (int round = 0; round < 50; round++) {
		for (unsigned i = 0; i < STUB_AREA_SIZE; i += 8)
			*(volatile uint64_t *)(area + i) = round & 1 ?
			    0x7ffb00018000UL + i : ~(uint64_t)i * 0x9e37;
		/* Not posted: that is mode wild's. */
		*(volatile uint32_t *)area = 0;
		if (getpid() != pid) {
			printf("FAIL: getpid changed\n");
			return 1;
		}
	}
	poke((volatile uint64_t *)STUB_CONST_PAGE);
	if (segv_seen != 1) {
		printf("FAIL: the constants page took a write\n");
		return 1;
	}
	return 0;
}

/*
 * Post a message vkernel did not get from the handler, with a ucontext
 * at an address of the guest's choosing, ring the doorbell through the
 * handler's own call site and compute until vkernel had time to look.
 */
static int
mode_wild(void)
{
	volatile uint32_t *msg = (volatile uint32_t *)STUB_AREAS;
	static const uint64_t one = 1;

	((volatile uint64_t *)msg)[1] = 0x4141414141414141UL;   /* siginfo */
	((volatile uint64_t *)msg)[2] = 0x4242424242424242UL;   /* ucontext */
	msg[1] = SIGSYS;
	msg[0] = 1;
	jump3(STUB_HSYS, SYS_write, 5, (long)&one, 8);
	for (volatile unsigned long i = 0; i < 2000000000UL; i++)
		if (msg[0] != 1)
			break;
	printf("ESCAPED: the forged message was not refused\n");
	return 1;
}

/*
 * One thread corrupts the signal frame of another that vkernel holds
 * (blocked in a read): the XSAVE image's size, where the host's magic
 * number marks it, made larger than the area holds; then a signal for
 * the held thread makes vkernel read that image to build the guest's
 * frame.  vkernel must refuse the size, not copy by it (from memory past
 * the area: other threads' frames): the handler runs without that image
 * and the read ends with EINTR.
 */
static int frame_pipe[2];

#define FRAME_BOGUS_SIZE 0x6000
static volatile uint32_t frame_seen_size;

/* The XSAVE size the guest's own frame says, where it has one. */
static void
on_usr1(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	const uint8_t *fp = (const uint8_t *)uc->uc_mcontext.fpregs;

	(void)sig;
	(void)si;
	if (fp != NULL)
		memcpy((void *)&frame_seen_size, fp + 480, 4);
}

static void *
frame_corrupter(void *arg)
{
	volatile uint32_t *w = (volatile uint32_t *)(STUB_AREAS + 0x1000);
	pthread_t *victim = arg;
	int found = 0;

	usleep(100 * 1000);
	for (unsigned i = 0; i < (STUB_AREA_SIZE - 0x1000) / 4 - 8; i++) {
		if (w[i] == 0x46505853U) {        /* FP_XSTATE_MAGIC1 */
			w[i + 4] = FRAME_BOGUS_SIZE;   /* xstate_size */
			found++;
		}
	}
	if (found == 0)
		printf("FAIL: no XSAVE image in the held thread's frame\n");
	pthread_kill(*victim, SIGUSR1);
	return NULL;
}

static int
mode_frame(void)
{
	struct sigaction sa = { .sa_sigaction = on_usr1,
	    .sa_flags = SA_SIGINFO };
	pthread_t self = pthread_self(), t;
	char c;

	sigaction(SIGUSR1, &sa, NULL);
	if (pipe(frame_pipe) < 0 ||
	    pthread_create(&t, NULL, frame_corrupter, &self) != 0)
		return 2;
	if (read(frame_pipe[0], &c, 1) >= 0 || errno != EINTR) {
		printf("FAIL: read did not end with EINTR\n");
		return 1;
	}
	if (frame_seen_size == FRAME_BOGUS_SIZE) {
		printf("ESCAPED: %#x bytes copied by the forged size, past "
		    "the thread's area\n", FRAME_BOGUS_SIZE);
		return 1;
	}
	return 0;
}

static void *
exit_jumper(void *arg)
{
	(void)arg;
	jump(STUB_EXIT_SYS, SYS_exit, 0);
	printf("FAIL: back from an exit\n");
	exit(1);
}

static int
mode_exit(void)
{
	static const long calls[] = { SYS_exit_group, SYS_kill, SYS_getpid,
		SYS_munmap };
	pthread_t t;

	for (unsigned i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		long r = jump3(STUB_EXIT_SYS, calls[i], getpid(), SIGKILL, 0);

		if (segv_seen != (int)i + 1 || segv_addr < STUB_BASE ||
		    segv_addr >= STUB_BASE + 0x1000) {
			printf("ESCAPED: call %ld ran at the exit site: %ld\n",
			    calls[i], r);
			return 1;
		}
	}
	if (pthread_create(&t, NULL, exit_jumper, NULL) != 0)
		return 2;
	/* vkernel ends the process within this; 3 says it did not. */
	sleep(10);
	printf("FAIL: the process outlived its thread's exit\n");
	return 3;
}

int
main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_segv,
	    .sa_flags = SA_SIGINFO };

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 2)
		return 2;
	sigaction(SIGSEGV, &sa, NULL);
	if (strcmp(argv[1], "inject") == 0)
		return mode_inject();
	if (strcmp(argv[1], "hsys") == 0)
		return mode_hsys();
	if (strcmp(argv[1], "sigreturn") == 0)
		return mode_sigreturn();
	if (strcmp(argv[1], "area") == 0)
		return mode_area();
	if (strcmp(argv[1], "wild") == 0)
		return mode_wild();
	if (strcmp(argv[1], "frame") == 0)
		return mode_frame();
	if (strcmp(argv[1], "exit") == 0)
		return mode_exit();
	if (strcmp(argv[1], "exitmain") == 0) {
		exit_jumper(NULL);
		return 3;
	}
	return 2;
}
