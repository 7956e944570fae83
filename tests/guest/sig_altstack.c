/*
 * Verifies sigaltstack: its checks (EINVAL, ENOMEM, EPERM while on it),
 * SA_ONSTACK handlers and the signals nested in them running on the
 * alternate stack with SS_ONSTACK reported and uc_stack filled in, other
 * handlers and a disabled stack leaving it alone, SS_AUTODISARM, a stack
 * overflow caught on it and left with siglongjmp, and a child of fork and
 * of vfork that execs: the new image has no alternate stack (execve(2)),
 * and an SA_ONSTACK handler of its own runs on its own stack.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

#include "guest.h"

#ifndef SS_AUTODISARM
#define SS_AUTODISARM	(1U << 31)
#endif
/* The kernel's limit: glibc's MINSIGSTKSZ may be sysconf()'s larger one. */
#define KMINSIGSTKSZ	2048
#define ALT_SIZE	(256 * 1024)
#define RUN_SIZE	(64 * 1024)

struct seen {
	uintptr_t	local, rsp;
	stack_t		now, uc_stack;
	long		change;
	int		change_errno;
};

static char *alt;
static struct seen s1, s2;
static volatile int hits;
static volatile bool try_change;
static sigjmp_buf env;
static volatile uintptr_t segv_addr, segv_local;
static volatile int segv_code;

static long
kaltstack(const stack_t *ss, stack_t *old)
{
	return syscall(SYS_sigaltstack, ss, old);
}

static bool
on_alt(uintptr_t p)
{
	return p >= (uintptr_t)alt && p < (uintptr_t)alt + ALT_SIZE;
}

static void
record(struct seen *s, ucontext_t *uc, uintptr_t local)
{
	stack_t ss = { .ss_sp = alt, .ss_size = ALT_SIZE };

	s->local = local;
	s->rsp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	s->uc_stack = uc->uc_stack;
	kaltstack(NULL, &s->now);
	if (try_change) {
		errno = 0;
		s->change = kaltstack(&ss, NULL);
		s->change_errno = errno;
	}
}

static void
on_usr2(int sig, siginfo_t *si, void *uc)
{
	volatile int local;

	(void)sig;
	(void)si;
	record(&s2, uc, (uintptr_t)&local);
}

static void
on_usr1(int sig, siginfo_t *si, void *uc)
{
	volatile int local;

	(void)sig;
	(void)si;
	hits++;
	record(&s1, uc, (uintptr_t)&local);
	raise(SIGUSR2);
}

static void
on_segv(int sig, siginfo_t *si, void *uc)
{
	volatile int local;

	(void)sig;
	(void)uc;
	segv_addr = (uintptr_t)si->si_addr;
	segv_code = si->si_code;
	segv_local = (uintptr_t)&local;
	siglongjmp(env, 1);
}

static void
set_action(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(sig, &sa, NULL));
}

static void
deliver(void)
{
	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	hits = 0;
	raise(SIGUSR1);
	CHECK_EQ(hits, 1);
}

static void
test_errors(void)
{
	stack_t ss, old;

	memset(&old, 0x55, sizeof(old));
	CHECK_OK(kaltstack(NULL, &old));
	CHECK(old.ss_flags == SS_DISABLE && old.ss_sp == NULL &&
	    old.ss_size == 0, "no alternate stack at first");
	ss = (stack_t){ .ss_sp = alt, .ss_size = ALT_SIZE };
	ss.ss_flags = SS_ONSTACK | SS_DISABLE;
	CHECK_ERR(kaltstack(&ss, NULL), EINVAL);
	ss.ss_flags = 0x10;
	CHECK_ERR(kaltstack(&ss, NULL), EINVAL);
	ss.ss_flags = 0;
	ss.ss_size = KMINSIGSTKSZ - 1;
	CHECK_ERR(kaltstack(&ss, NULL), ENOMEM);
	ss.ss_size = 0;
	CHECK_ERR(kaltstack(&ss, NULL), ENOMEM);
	CHECK_OK(kaltstack(NULL, &old));
	CHECK_EQ(old.ss_flags, SS_DISABLE);
	/* Disabling ignores the size; the exact minimum is fine. */
	ss.ss_flags = SS_DISABLE;
	CHECK_OK(kaltstack(&ss, NULL));
	ss.ss_flags = 0;
	ss.ss_size = KMINSIGSTKSZ;
	CHECK_OK(kaltstack(&ss, NULL));
	ss.ss_flags = SS_DISABLE;
	CHECK_OK(kaltstack(&ss, &old));
	CHECK(old.ss_sp == alt && old.ss_size == KMINSIGSTKSZ &&
	    old.ss_flags == 0, "old stack returned by the disabling call");
}

static void
test_onstack(void)
{
	stack_t ss = { .ss_sp = alt, .ss_size = ALT_SIZE }, old;

	CHECK_OK(kaltstack(&ss, NULL));
	memset(&old, 0, sizeof(old));
	CHECK_OK(kaltstack(NULL, &old));
	CHECK(old.ss_sp == alt && old.ss_size == ALT_SIZE &&
	    old.ss_flags == 0, "installed stack read back");

	set_action(SIGUSR1, on_usr1, SA_ONSTACK);
	set_action(SIGUSR2, on_usr2, SA_ONSTACK);
	try_change = true;
	deliver();
	try_change = false;
	CHECK(on_alt(s1.local), "handler local %#lx on the alternate stack",
	    (unsigned long)s1.local);
	CHECK(!on_alt(s1.rsp), "interrupted RSP on the normal stack");
	CHECK_EQ(s1.now.ss_flags, SS_ONSTACK);
	CHECK(s1.now.ss_sp == alt && s1.now.ss_size == ALT_SIZE,
	    "sigaltstack inside the handler");
	/* The stack in use cannot be changed. */
	CHECK(s1.change == -1 && s1.change_errno == EPERM,
	    "changing the stack in use: %ld errno %d", s1.change,
	    s1.change_errno);
	CHECK(s1.uc_stack.ss_sp == alt && s1.uc_stack.ss_size == ALT_SIZE &&
	    s1.uc_stack.ss_flags == 0, "uc_stack of the first handler");
	/* A signal nested in the handler goes on below it. */
	CHECK(on_alt(s2.local) && s2.local < s1.local,
	    "nested handler on the alternate stack, below the first");
	CHECK(on_alt(s2.rsp), "nested handler interrupted the alternate one");
	/* uc_stack holds the settings, not whether the stack was in use. */
	CHECK(s2.uc_stack.ss_sp == alt && s2.uc_stack.ss_flags == 0,
	    "uc_stack of the nested handler: %#x", s2.uc_stack.ss_flags);
	CHECK_EQ(s2.now.ss_flags, SS_ONSTACK);
	CHECK_OK(kaltstack(NULL, &old));
	CHECK_EQ(old.ss_flags, 0);

	/* Without SA_ONSTACK the handler stays on the normal stack. */
	set_action(SIGUSR1, on_usr1, 0);
	set_action(SIGUSR2, on_usr2, 0);
	try_change = true;
	deliver();
	try_change = false;
	CHECK(!on_alt(s1.local) && !on_alt(s2.local), "SA_ONSTACK unset");
	CHECK_EQ(s1.now.ss_flags, 0);
	CHECK(s1.change == 0, "not on it, so it may be changed");
}

static void
test_autodisarm(void)
{
	stack_t ss = { .ss_sp = alt, .ss_size = ALT_SIZE }, old;

	ss.ss_flags = SS_AUTODISARM;
	CHECK_OK(kaltstack(&ss, NULL));
	set_action(SIGUSR1, on_usr1, SA_ONSTACK);
	set_action(SIGUSR2, on_usr2, SA_ONSTACK);
	deliver();
	CHECK(on_alt(s1.local), "SS_AUTODISARM handler on the stack");
	CHECK_EQ(s1.now.ss_flags, SS_DISABLE);
	CHECK(s1.uc_stack.ss_sp == alt &&
	    s1.uc_stack.ss_flags == (int)SS_AUTODISARM, "uc_stack %#x",
	    (unsigned)s1.uc_stack.ss_flags);
	/* Disarmed, the nested signal takes the current stack. */
	CHECK(on_alt(s2.local) && s2.local < s1.local, "nested below");
	CHECK_OK(kaltstack(NULL, &old));
	CHECK(old.ss_sp == alt && old.ss_flags == (int)SS_AUTODISARM,
	    "sigreturn re-armed it: %#x", (unsigned)old.ss_flags);
}

static void
test_disable(void)
{
	stack_t ss = { .ss_flags = SS_DISABLE }, old;

	CHECK_OK(kaltstack(&ss, NULL));
	memset(&old, 0x55, sizeof(old));
	CHECK_OK(kaltstack(NULL, &old));
	CHECK(old.ss_flags == SS_DISABLE && old.ss_sp == NULL &&
	    old.ss_size == 0, "disabled: %d %p %zu", old.ss_flags,
	    old.ss_sp, old.ss_size);
	deliver();
	CHECK(!on_alt(s1.local), "SA_ONSTACK, but no stack to go to");
	CHECK_EQ(s1.uc_stack.ss_flags, SS_DISABLE);
}

static int __attribute__((noinline))
recurse(int n)
{
	volatile char buf[512];

	buf[0] = (char)n;
	buf[sizeof(buf) - 1] = (char)n;
	return n > 100000 ? n : recurse(n + 1) + buf[0];
}

static void
overflow(void)
{
	recurse(0);
}

/* Calls fn on the stack whose top is top, keeping RSP in RBX. */
static void
run_on_stack(char *top, void (*fn)(void))
{
	__asm__ volatile(
	    "movq %%rsp, %%rbx\n\t"
	    "movq %[top], %%rsp\n\t"
	    "call *%[fn]\n\t"
	    "movq %%rbx, %%rsp"
	    : : [top] "r"(top), [fn] "r"(fn)
	    : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
	      "r11", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
	      "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
	      "xmm14", "xmm15", "cc", "memory");
}

static void
test_overflow(void)
{
	stack_t ss = { .ss_sp = alt, .ss_size = ALT_SIZE }, old;
	char *run = guest_anon(GUEST_PAGE + RUN_SIZE, PROT_READ | PROT_WRITE);
	uint64_t mask = ~0ULL;

	if (!CHECK(run != MAP_FAILED, "mmap"))
		return;
	CHECK_OK(guest_mprotect(run, GUEST_PAGE, PROT_NONE));
	CHECK_OK(kaltstack(&ss, NULL));
	set_action(SIGSEGV, on_segv, SA_ONSTACK);
	segv_code = 0;
	if (sigsetjmp(env, 1) == 0) {
		run_on_stack(run + GUEST_PAGE + RUN_SIZE, overflow);
		CHECK(false, "the stack overflow did not fault");
	}
	CHECK_EQ(segv_code, SEGV_ACCERR);
	CHECK(segv_addr >= (uintptr_t)run &&
	    segv_addr < (uintptr_t)run + GUEST_PAGE,
	    "fault at %#lx, in the guard page", (unsigned long)segv_addr);
	CHECK(on_alt(segv_local), "SIGSEGV handler on the alternate stack");
	/* siglongjmp left the stack and gave back the mask. */
	CHECK_OK(kaltstack(NULL, &old));
	CHECK_EQ(old.ss_flags, 0);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, 8);
	CHECK_EQ(mask, 0);
	guest_munmap(run, GUEST_PAGE + RUN_SIZE);
}

static volatile uintptr_t exec_local;

static void
on_exec_sig(int sig, siginfo_t *si, void *ucv)
{
	volatile char here;

	(void)sig;
	(void)si;
	(void)ucv;
	exec_local = (uintptr_t)&here;
}

/* The exec'd image: no alternate stack, and a handler on its own stack. */
static int
exec_image(void)
{
	volatile char top;
	stack_t old;

	CHECK_OK(kaltstack(NULL, &old));
	CHECK_EQ(old.ss_flags, SS_DISABLE);
	CHECK_EQ((uintptr_t)old.ss_sp, 0);
	CHECK_EQ(old.ss_size, 0);
	set_action(SIGUSR2, on_exec_sig, SA_ONSTACK);
	CHECK_OK(raise(SIGUSR2));
	CHECK(exec_local != 0 && exec_local < (uintptr_t)&top &&
	    (uintptr_t)&top - exec_local < 64 * 1024,
	    "the handler ran at %#lx, below main's %p",
	    (unsigned long)exec_local, (void *)&top);
	return guest_done();
}

static void
test_exec(void)
{
	static const char self[] = "/proc/self/exe";
	stack_t ss = { .ss_sp = alt, .ss_size = ALT_SIZE };
	char *args[] = { (char *)self, "exec-image", NULL };

	CHECK_OK(kaltstack(&ss, NULL));
	for (int use_vfork = 0; use_vfork < 2; use_vfork++) {
		int st = -1;
		pid_t pid = use_vfork ? vfork() : fork();

		if (pid == 0) {
			execv(self, args);
			_exit(127);
		}
		CHECK(pid > 0, "%s", use_vfork ? "vfork" : "fork");
		if (pid <= 0 || !CHECK_EQ(waitpid(pid, &st, 0), pid))
			continue;
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "the exec'd image after %s: status %#x",
		    use_vfork ? "vfork" : "fork", st);
	}
	ss.ss_flags = SS_DISABLE;
	CHECK_OK(kaltstack(&ss, NULL));
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "exec-image") == 0)
		return exec_image();
	CHECK_OK(syscall(SYS_rt_sigprocmask, SIG_SETMASK, &(uint64_t){ 0 },
	    NULL, 8));
	alt = guest_anon(ALT_SIZE, PROT_READ | PROT_WRITE);
	if (!CHECK(alt != MAP_FAILED, "mmap the alternate stack"))
		return guest_done();
	test_errors();
	test_onstack();
	test_autodisarm();
	test_disable();
	test_overflow();
	test_exec();
	return guest_done();
}
