/*
 * getpid - the cost of one trivial system call.
 *
 * Usage: getpid [ITERS|auto]
 *
 * getpid does no work in the kernel, so natively this is the syscall
 * entry/exit cost, and under vkernel it is the full interception round
 * trip (stop, decode, emulate, resume).  syscall(2) rather than getpid(3)
 * because a libc is free to cache the pid.
 */
#include "bench.h"

#include <sys/syscall.h>

static long long
run(long n, void *ctx)
{
	long long t0;
	long i;

	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getpid);
	return bench_now_ns() - t0;
}

int
main(int argc, char **argv)
{
	long n;

	n = bench_iters(argc > 1 ? argv[1] : NULL, run, NULL);
	bench_report("getpid", n, run(n, NULL), NULL);
	return 0;
}
