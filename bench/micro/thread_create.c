/*
 * thread_create - the cost of making a thread and joining it.
 *
 * Usage: thread_create [ITERS|auto]
 *
 * Each operation is pthread_create of a thread that returns at once and
 * pthread_join of it: a clone, the new thread's first run and exit, and
 * the futex wake that ends the join (CLONE_CHILD_CLEARTID).
 */
#include "bench.h"

#include <pthread.h>

static void *
nothing(void *arg)
{
	return arg;
}

static long long
run(long n, void *ctx)
{
	long long t0 = bench_now_ns();

	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, nothing, NULL) != 0 ||
		    pthread_join(t, NULL) != 0)
			exit(2);
	}
	return bench_now_ns() - t0;
}

int
main(int argc, char **argv)
{
	long n = bench_iters(argc > 1 ? argv[1] : NULL, run, NULL);

	bench_report("thread_create", n, run(n, NULL), NULL);
	return 0;
}
