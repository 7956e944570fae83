/*
 * sigsys_floor - what a getpid answered through a seccomp SIGSYS costs,
 * with and without a ptrace tracer attached to the trapping thread.
 *
 * Usage: sigsys_floor MODE [ITERS|auto]
 *   native   raw getpid
 *   trap     getpid returns SECCOMP_RET_TRAP; the SIGSYS handler answers
 *            it in the thread itself (the floor of any trap hand-off)
 *   traced   the same, while a parent holds the thread with PTRACE_SEIZE
 *            and passes each SIGSYS on with PTRACE_CONT: what a stub that
 *            stays traced pays for a trapped syscall
 *   sibling  the same in an untraced thread of a process whose other
 *            thread the parent holds with PTRACE_SEIZE: a stub that keeps
 *            one traced thread for its control calls and runs the guest
 *            in threads it does not trace
 *   sysemu   a parent answers each getpid at a PTRACE_SYSEMU stop
 * Both sides run on one CPU, as vkernel's ptrace platform runs them.
 * Prints ns per call; "stops" counts the tracer's stops per call.
 */
#include "bench.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <ucontext.h>

static int bench_main_child(char **argv);

static long
raw_getpid(void)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_getpid)
	    : "rcx", "r11", "memory");
	return r;
}

static long long
run(long n, void *ctx)
{
	long long t0 = bench_now_ns();

	(void)ctx;
	for (long i = 0; i < n; i++)
		raw_getpid();
	return bench_now_ns() - t0;
}

static void
on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_RAX] = 4242;
}

/* getpid traps, everything else runs. */
static void
trap_getpid(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	struct sigaction sa = { .sa_sigaction = on_sigsys,
	    .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) < 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		perror("seccomp");
		exit(1);
	}
}

static void
pin(void)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(sched_getcpu(), &s);
	(void)sched_setaffinity(0, sizeof(s), &s);
}

static void *
sibling_main(void *argv)
{
	return (void *)(intptr_t)bench_main_child(argv);
}

/*
 * Run the loop in a traced child (mode "traced" or "sysemu") or in an
 * untraced thread of it ("sibling"); the parent serves the stops.
 */
static int
traced(const char *mode, const char *iters)
{
	bool emu = strcmp(mode, "sysemu") == 0;
	long stops = 0;
	int st, go[2];
	pid_t c;
	char b = 0;

	/*
	 * Not a SIGSTOP: a group stop would hold the untraced thread too,
	 * as only the traced one is resumed from it.
	 */
	if (pipe(go) < 0)
		bench_die("pipe");
	if ((c = fork()) == 0) {
		char *argv[] = { "sigsys_floor", (char *)mode, (char *)iters,
		    NULL };
		pthread_t t;
		void *r;

		if (read(go[0], &b, 1) != 1)
			return 1;
		if (strcmp(mode, "sibling") != 0)
			return bench_main_child(argv);
		if (pthread_create(&t, NULL, sibling_main, argv) != 0 ||
		    pthread_join(t, &r) != 0)
			return 1;
		return (int)(intptr_t)r;
	}
	if (ptrace(PTRACE_SEIZE, c, 0, PTRACE_O_TRACESYSGOOD |
	    PTRACE_O_EXITKILL) < 0) {
		perror("seize");
		return 1;
	}
	ptrace(PTRACE_INTERRUPT, c, 0, 0);
	if (write(go[1], &b, 1) != 1)
		bench_die("write");
	for (;;) {
		int sig = 0;

		if (waitpid(c, &st, __WALL) < 0 || !WIFSTOPPED(st))
			break;
		if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			struct user_regs_struct r;

			ptrace(PTRACE_GETREGS, c, 0, &r);
			if (r.orig_rax == SYS_getpid) {
				r.rax = 4242;
				ptrace(PTRACE_POKEUSER, c,
				    offsetof(struct user_regs_struct, rax),
				    r.rax);
			} else {
				/*
				 * Anything else: back up to the syscall
				 * and let the host run it, entry to exit.
				 */
				r.rip -= 2;
				r.rax = r.orig_rax;
				ptrace(PTRACE_SETREGS, c, 0, &r);
				for (int k = 0; k < 2; k++) {
					ptrace(PTRACE_SYSCALL, c, 0, 0);
					if (waitpid(c, &st, __WALL) < 0 ||
					    !WIFSTOPPED(st))
						goto out;
				}
			}
		} else if ((st >> 16) == 0) {
			sig = WSTOPSIG(st);
		}
		stops++;
		ptrace(emu ? PTRACE_SYSEMU : PTRACE_CONT, c, 0, sig);
	}
out:
	bench_fprint(2, "%s: %ld tracer stops in all\n", mode, stops);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static int
bench_main_child(char **argv)
{
	long n;

	if (strcmp(argv[1], "native") != 0 && strcmp(argv[1], "sysemu") != 0)
		trap_getpid();
	n = bench_iters(argv[2], run, NULL);
	bench_report(argv[1], n, run(n, NULL), NULL);
	return 0;
}

int
main(int argc, char **argv)
{
	char *args[] = { argv[0], argc > 1 ? argv[1] : "native",
	    argc > 2 ? argv[2] : "auto", NULL };

	pin();
	if (strcmp(args[1], "traced") == 0 || strcmp(args[1], "sysemu") == 0 ||
	    strcmp(args[1], "sibling") == 0)
		return traced(args[1], args[2]);
	return bench_main_child(args);
}
