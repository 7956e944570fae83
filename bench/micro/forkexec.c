/*
 * forkexec - fork, execve a program, wait for it.
 *
 * Usage: forkexec [ITERS|auto] PROG
 *
 * One operation: fork(); the child execve()s PROG with no arguments and
 * an empty environment (a static program that exits 0, such as
 * true_static); the parent waits for it with waitpid.  Natively that is
 * a copy of the parent's page tables, an exec and an exit; under vkernel
 * also a new stub for the exec and the end of the old one.  Every child
 * must exit 0, so a vkernel that fails the exec is not timed as fast.
 */
#include "bench.h"

#include <sys/wait.h>

static long long
run(long n, void *ctx)
{
	char *prog = ctx;
	char *argv[] = { prog, NULL };
	char *envp[] = { NULL };
	long long t0;
	long i;
	pid_t pid;
	int st;

	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			bench_die("fork");
		if (pid == 0) {
			execve(prog, argv, envp);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) != pid)
			bench_die("waitpid");
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			bench_fprint(2, "bench: %s: status %#x\n", prog, st);
			exit(2);
		}
	}
	return bench_now_ns() - t0;
}

int
main(int argc, char **argv)
{
	char extra[128];
	long n;

	if (argc < 3) {
		bench_fprint(2, "usage: forkexec ITERS|auto PROG\n");
		return 2;
	}
	n = bench_iters(argv[1], run, argv[2]);
	snprintf(extra, sizeof(extra), "op = fork+execve(%.60s)+wait", argv[2]);
	bench_report("forkexec", n, run(n, argv[2]), extra);
	return 0;
}
