/*
 * Verifies that register values a program asks for are checked as Linux
 * checks them: clone and clone3 with CLONE_SETTLS and a TLS base at or
 * above TASK_SIZE_MAX (non-canonical or in the kernel's half) fail with
 * EPERM and make no child, for a process, a CLONE_VM child and a thread;
 * a stack pointer is not checked, but the child's first push faults
 * (SIGSEGV, or SIGBUS for a non-canonical one); a handler that returns to
 * a non-canonical RIP, or with reserved MXCSR or XSTATE_BV bits in its FPU
 * state, kills its process with SIGSEGV, or runs a SIGSEGV handler when
 * there is one.  Wait statuses are compared whole.  All of it once as the user
 * it starts as and once more as uid 65534 (when it may switch).
 */
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <ucontext.h>

#include "guest.h"

/* musl has no <linux/sched.h>: clone3's arguments, as in the UAPI. */
#define NR_clone3	435
enum { CA_FLAGS, CA_PIDFD, CA_CHILD_TID, CA_PARENT_TID, CA_EXIT_SIGNAL,
	CA_STACK, CA_STACK_SIZE, CA_TLS, CA_NWORDS };

#define TASK_SIZE_MAX	0x7ffffffff000UL
#define THREAD_FLAGS	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
    CLONE_THREAD | CLONE_SYSVSEM)

/*
 * clone(flags, sp, 0, 0, tls); a child runs no C code (its TLS and stack
 * may be anything), pushes a word if it was given a stack, and leaves:
 * exit(7), or exit_group(7) for a process.
 */
static long
raw_clone(unsigned long flags, unsigned long sp, unsigned long tls)
{
	register unsigned long r10 __asm__("r10") = 0;
	register unsigned long r8 __asm__("r8") = tls;
	long nr = (flags & CLONE_THREAD) ? SYS_exit : SYS_exit_group;
	long r;

	__asm__ volatile(
	    "syscall\n\t"
	    "test %%rax, %%rax\n\t"
	    "jnz 1f\n\t"
	    "test %%rsi, %%rsi\n\t"
	    "jz 2f\n\t"
	    "push %%rax\n\t"
	    "2: mov %[nr], %%rax\n\t"
	    "mov $7, %%edi\n\t"
	    "syscall\n\t"
	    "1:"
	    : "=a"(r)
	    : "0"((long)SYS_clone), "D"(flags), "S"(sp), "d"(0UL),
	      "r"(r10), "r"(r8), [nr] "r"(nr)
	    : "rcx", "r11", "memory");
	return r;
}

static void
no_child(void)
{
	CHECK_ERR(syscall(SYS_wait4, -1, NULL, WNOHANG | __WALL, NULL),
	    ECHILD);
}

static void
test_clone_tls(void)
{
	static const unsigned long bad[] = {
		TASK_SIZE_MAX, 1UL << 47, 0xffff800000000000UL, ~0UL,
	};
	static const unsigned long flags[] = {
		SIGCHLD, CLONE_VM | SIGCHLD, THREAD_FLAGS,
	};
	uint64_t ca[CA_NWORDS];
	int st = 0;
	long pid;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (unsigned j = 0; j < sizeof(flags) / sizeof(flags[0]); j++) {
			long r = raw_clone(flags[j] | CLONE_SETTLS, 0, bad[i]);

			CHECK(r == -EPERM, "clone %#lx tls %#lx: %ld",
			    flags[j], bad[i], r);
			no_child();
		}
		memset(ca, 0, sizeof(ca));
		ca[CA_FLAGS] = CLONE_SETTLS;
		ca[CA_EXIT_SIGNAL] = SIGCHLD;
		ca[CA_TLS] = bad[i];
		CHECK_ERR(syscall(NR_clone3, ca, sizeof(ca)), EPERM);
		no_child();
	}
	/* The last page below the limit is a base like any other. */
	pid = raw_clone(SIGCHLD | CLONE_SETTLS, 0, TASK_SIZE_MAX - GUEST_PAGE);
	CHECK(pid > 0, "clone with the highest tls: %ld", pid);
	if (pid > 0) {
		CHECK_EQ(waitpid((pid_t)pid, &st, 0), pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %#x", st);
	}
}

/*
 * A stack pointer is not checked: the child's first push faults.  Where
 * it lands decides the signal: SIGSEGV for user addresses, SIGBUS for the
 * stack fault of a non-canonical one.
 */
static void
test_clone_stack(void)
{
	static const struct {
		unsigned long sp;
		int status;
	} cases[] = {
		{ 1UL << 47, SIGSEGV }, { 8, SIGSEGV },
		{ 0xffff800000000000UL, SIGBUS },
	};
	int st;

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long pid = raw_clone(SIGCHLD, cases[i].sp, 0);

		CHECK(pid > 0, "clone with sp %#lx: %ld", cases[i].sp, pid);
		if (pid <= 0)
			continue;
		st = -1;
		CHECK_EQ(waitpid((pid_t)pid, &st, 0), pid);
		CHECK(st == cases[i].status, "sp %#lx: status %#x",
		    cases[i].sp, st);
	}
}

enum forge { FORGE_RIP, FORGE_MXCSR, FORGE_XSTATE_BV };

static volatile enum forge forge;

static void
on_usr1(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint8_t *fp = (uint8_t *)uc->uc_mcontext.fpregs;
	uint32_t mxcsr = 0xffff1f80;
	uint64_t bv;

	(void)sig;
	(void)si;
	switch (forge) {
	case FORGE_RIP:
		uc->uc_mcontext.gregs[REG_RIP] = 1UL << 47;
		break;
	case FORGE_MXCSR:
		memcpy(fp + 24, &mxcsr, sizeof(mxcsr));
		break;
	case FORGE_XSTATE_BV:
		memcpy(&bv, fp + 512, sizeof(bv));
		bv |= 1ULL << 62;
		memcpy(fp + 512, &bv, sizeof(bv));
		break;
	}
}

static void
on_segv(int sig)
{
	(void)sig;
	_exit(42);
}

/* A child returns from a handler through a forged frame: its status. */
static int
forged_return(enum forge f, bool segv_handler)
{
	struct sigaction sa;
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_usr1;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGUSR1, &sa, NULL);
		if (segv_handler)
			signal(SIGSEGV, on_segv);
		forge = f;
		raise(SIGUSR1);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static void
test_forged_frames(void)
{
	for (enum forge f = FORGE_RIP; f <= FORGE_XSTATE_BV; f++) {
		int st = forged_return(f, false);

		CHECK(st == SIGSEGV, "forged frame %d: status %#x", f, st);
		st = forged_return(f, true);
		CHECK(st == 42 << 8,
		    "forged frame %d with a SIGSEGV handler: status %#x", f, st);
	}
}

static void
all_tests(void)
{
	test_clone_tls();
	test_clone_stack();
	test_forged_frames();
}

int
main(void)
{
	return guest_main_twice(all_tests);
}
