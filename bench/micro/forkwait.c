/*
 * forkwait - the cost of a process: fork, the child's _exit, wait.
 *
 * Usage: forkwait [ITERS|auto]
 */
#include "bench.h"

#include <sys/wait.h>

static long long
run(long n, void *ctx)
{
	long long t0 = bench_now_ns();

	for (long i = 0; i < n; i++) {
		pid_t p = fork();
		int st;

		if (p < 0)
			bench_die("fork");
		if (p == 0)
			_exit(0);
		if (waitpid(p, &st, 0) != p)
			bench_die("waitpid");
	}
	return bench_now_ns() - t0;
}

int
main(int argc, char **argv)
{
	long n;

	n = bench_iters(argc > 1 ? argv[1] : NULL, run, NULL);
	bench_report("forkwait", n, run(n, NULL), NULL);
	return 0;
}
