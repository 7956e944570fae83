/*
 * sysemu_floor - the least a PTRACE_SYSEMU emulator can spend per syscall.
 *
 * Usage: sysemu_floor [--cross] [--no-pin] [--cpu=N] [--mode=bare|regs|both]
 *                     [ITERS|auto]
 *
 * A tracer forks a tracee that does raw getpid syscalls forever.  The
 * tracer resumes it with PTRACE_SYSEMU and waits for the next syscall
 * stop, and does nothing else ("bare"), or also reads the registers with
 * PTRACE_GETREGS and stores a result with PTRACE_POKEUSER(rax) ("regs"),
 * which is the least a real emulator must do per call.  vkernel's getpid
 * under the ptrace platform cannot beat these numbers; bench/run.sh
 * reports how close it gets.
 *
 * By default tracer and tracee are pinned to the SAME cpu: a ptrace stop
 * and resume is then two context switches (~10 us on the development
 * VM), while across cores every stop needs a cross-cpu wake-up of a
 * halted vCPU (~100 us).  --cross puts them on two different cpus to
 * show that; --no-pin leaves placement to the scheduler.
 *
 * This program is a host tool: it is never run inside vkernel.
 */
#include "bench.h"

#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>

#ifndef PTRACE_SYSEMU
/* From the x86 <asm/ptrace-abi.h>; musl's <sys/ptrace.h> lacks it. */
#define PTRACE_SYSEMU	31
#endif

#define MODE_BARE	1
#define MODE_REGS	2

struct floor {
	pid_t	pid;		/* the tracee */
	int	regs;		/* also GETREGS + POKEUSER(rax) per stop */
};

/*
 * Raw syscalls for the tracee, so that every syscall it makes after the
 * SIGSTOP is exactly one getpid (libc's raise() would add sigprocmask
 * calls, which SYSEMU would then swallow).
 */
static inline long
raw_syscall0(long nr)
{
	long ret;

	__asm__ volatile ("syscall" : "=a"(ret) : "a"(nr)
	    : "rcx", "r11", "memory");
	return ret;
}

static inline long
raw_syscall2(long nr, long a, long b)
{
	long ret;

	__asm__ volatile ("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b)
	    : "rcx", "r11", "memory");
	return ret;
}

static int
pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Choose the cpus.  The tracer gets `want` or else the highest allowed
 * cpu (cpu 0 tends to take more device interrupts); in --cross mode the
 * tracee gets the lowest other allowed cpu.  Returns -1 with a message
 * if that is impossible.
 */
static int
pick_cpus(int want, int cross, int *tracer_cpu, int *tracee_cpu)
{
	cpu_set_t set;
	int cpu, a = -1, b = -1;

	if (sched_getaffinity(0, sizeof(set), &set) == -1)
		bench_die("sched_getaffinity");
	if (want >= 0) {
		if (want >= CPU_SETSIZE || !CPU_ISSET(want, &set)) {
			bench_fprint(2, "sysemu_floor: cpu %d is not allowed\n",
			    want);
			return -1;
		}
		a = want;
	} else {
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &set))
				a = cpu;
	}
	if (!cross) {
		b = a;
	} else {
		for (cpu = 0; cpu < CPU_SETSIZE && b < 0; cpu++)
			if (cpu != a && CPU_ISSET(cpu, &set))
				b = cpu;
		if (b < 0) {
			bench_fprint(2, "sysemu_floor: --cross needs two "
			    "allowed cpus\n");
			return -1;
		}
	}
	*tracer_cpu = a;
	*tracee_cpu = b;
	return 0;
}

static void __attribute__((noreturn))
tracee(int cpu)
{
	/* Never outlive a tracer that died of a signal. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		_exit(127);
	if (cpu >= 0 && pin_self(cpu) == -1)
		_exit(127);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == -1)
		_exit(127);
	/* Stop so the tracer can set options before the first getpid. */
	raw_syscall2(SYS_kill, raw_syscall0(SYS_getpid), SIGSTOP);
	for (;;)
		raw_syscall0(SYS_getpid);
}

static void __attribute__((noreturn))
unexpected(pid_t pid, int st)
{
	if (WIFEXITED(st))
		bench_fprint(2, "sysemu_floor: tracee exited with %d\n",
		    WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		bench_fprint(2, "sysemu_floor: tracee killed by signal %d\n",
		    WTERMSIG(st));
	else
		bench_fprint(2, "sysemu_floor: unexpected stop, status %#x\n",
		    st);
	kill(pid, SIGKILL);
	exit(2);
}

/* n round trips: resume into the next getpid, wait for its stop. */
static long long
run(long n, void *ctx)
{
	struct floor *f = ctx;
	struct user_regs_struct regs;
	long long t0;
	long i, res;
	int st;

	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		if (ptrace(PTRACE_SYSEMU, f->pid, NULL, NULL) == -1)
			bench_die("PTRACE_SYSEMU");
		if (waitpid(f->pid, &st, 0) == -1)
			bench_die("waitpid");
		if (!WIFSTOPPED(st) || WSTOPSIG(st) != (SIGTRAP | 0x80))
			unexpected(f->pid, st);
		if (!f->regs)
			continue;
		/*
		 * What an emulator minimally does: fetch the call, compute
		 * the result, store it.  The stop is at syscall entry and
		 * SYSEMU skips the call, so rax set here is its result.
		 */
		if (ptrace(PTRACE_GETREGS, f->pid, NULL, &regs) == -1)
			bench_die("PTRACE_GETREGS");
		res = regs.orig_rax == SYS_getpid ? f->pid : -ENOSYS;
		if (ptrace(PTRACE_POKEUSER, f->pid,
		    (void *)offsetof(struct user, regs.rax), (void *)res) == -1)
			bench_die("PTRACE_POKEUSER");
	}
	return bench_now_ns() - t0;
}

static void __attribute__((noreturn))
usage(void)
{
	bench_fprint(2, "usage: sysemu_floor [--cross] [--no-pin] [--cpu=N] "
	    "[--mode=bare|regs|both] [ITERS|auto]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct floor f;
	const char *count = NULL;
	char where[64], extra[128];
	int i, st, cross = 0, pin = 1, want = -1, modes = MODE_BARE | MODE_REGS;
	int tracer_cpu = -1, tracee_cpu = -1;
	long n;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--cross") == 0)
			cross = 1;
		else if (strcmp(argv[i], "--no-pin") == 0)
			pin = 0;
		else if (strncmp(argv[i], "--cpu=", 6) == 0)
			want = atoi(argv[i] + 6);
		else if (strcmp(argv[i], "--mode=bare") == 0)
			modes = MODE_BARE;
		else if (strcmp(argv[i], "--mode=regs") == 0)
			modes = MODE_REGS;
		else if (strcmp(argv[i], "--mode=both") == 0)
			modes = MODE_BARE | MODE_REGS;
		else if (argv[i][0] == '-')
			usage();
		else if (count == NULL)
			count = argv[i];
		else
			usage();
	}

	if (pin) {
		if (pick_cpus(want, cross, &tracer_cpu, &tracee_cpu) == -1)
			return 2;
		if (pin_self(tracer_cpu) == -1)
			bench_die("sched_setaffinity");
		snprintf(where, sizeof(where), "%s, tracer cpu %d, tracee cpu %d",
		    cross ? "cross-core" : "same-core", tracer_cpu, tracee_cpu);
	} else {
		snprintf(where, sizeof(where), "unpinned");
	}

	f.pid = fork();
	if (f.pid == -1)
		bench_die("fork");
	if (f.pid == 0)
		tracee(tracee_cpu);
	if (waitpid(f.pid, &st, 0) == -1)
		bench_die("waitpid");
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP)
		unexpected(f.pid, st);
	/*
	 * TRACESYSGOOD tells syscall stops from signal stops; EXITKILL
	 * makes sure the tracee dies with us whatever happens.
	 */
	if (ptrace(PTRACE_SETOPTIONS, f.pid, NULL,
	    (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) == -1)
		bench_die("PTRACE_SETOPTIONS");

	/* The same tracee serves both modes; calibration doubles as warm-up. */
	if (modes & MODE_BARE) {
		f.regs = 0;
		n = bench_iters(count, run, &f);
		snprintf(extra, sizeof(extra), "%s, no register access", where);
		bench_report("sysemu_floor", n, run(n, &f), extra);
	}
	if (modes & MODE_REGS) {
		f.regs = 1;
		n = bench_iters(count, run, &f);
		snprintf(extra, sizeof(extra), "%s, GETREGS+POKEUSER(rax) per stop",
		    where);
		bench_report("sysemu_floor_regs", n, run(n, &f), extra);
	}

	kill(f.pid, SIGKILL);
	waitpid(f.pid, &st, 0);
	return 0;
}
