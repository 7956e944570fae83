/*
 * busy2 - two threads of pure computation, with a system call now and
 * then: how much of the host's CPUs a compute-bound guest gets.
 *
 * Usage: busy2 [ITERS [EVERY]]
 *
 * Each thread runs ITERS rounds of integer work (default 200,000,000)
 * and makes one getpid every EVERY rounds (default 1,000,000; 0: never),
 * as a build's compiler does its few calls between long computations.
 * Prints the wall time and the CPU time the process says it used (its
 * user and system time from getrusage), so that CPU time charged for
 * vkernel's hand-off shows beside the work itself.
 */
#include "bench.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>

static long iters = 200000000L, every = 1000000L;

static void *
work(void *arg)
{
	unsigned long x = (unsigned long)(size_t)arg + 1;

	for (long i = 0; i < iters; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		if (every > 0 && i % every == 0)
			syscall(SYS_getpid);
	}
	return (void *)(size_t)(x & 1);
}

static long long
tv_ns(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
}

int
main(int argc, char **argv)
{
	pthread_t t[2];
	struct rusage ru;
	long long t0, wall;

	if (argc > 1)
		iters = atol(argv[1]);
	if (argc > 2)
		every = atol(argv[2]);
	t0 = bench_now_ns();
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, work, (void *)(size_t)i) != 0)
			bench_die("pthread_create");
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	wall = bench_now_ns() - t0;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		bench_die("getrusage");
	bench_print("busy2: wall %.1f ms, user %.1f ms, sys %.1f ms\n",
	    wall / 1e6, tv_ns(ru.ru_utime) / 1e6, tv_ns(ru.ru_stime) / 1e6);
	return 0;
}
