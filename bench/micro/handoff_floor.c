/*
 * handoff_floor - the floor of a patched syscall site under systrap: a
 * caller thread posts a call in a shared word and spins for the answer,
 * a server thread on another CPU spins for posts and answers them.  No
 * trap, no syscall: only the one cache line that crosses between the
 * CPUs, each way, as little as any hand-off can move.
 *
 * Usage: handoff_floor [ITERS|auto]
 * Prints ns per round trip.  Needs two CPUs: it fails on one.
 */
#include "bench.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>

enum { POSTED = 1, ANSWERED = 2, QUIT = 3 };

/* The post and its answer share the line, as the trampoline's do. */
static struct {
	_Alignas(64) uint32_t state;
	uint32_t arg;
	uint64_t answer;
	_Alignas(64) char end[];
} area;

static void *
server(void *arg)
{
	bench_pin((int)(intptr_t)arg);
	for (;;) {
		uint32_t st;

		while ((st = __atomic_load_n(&area.state,
		    __ATOMIC_ACQUIRE)) != POSTED && st != QUIT)
			__builtin_ia32_pause();
		if (st == QUIT)
			break;
		area.answer = area.arg + 1;
		__atomic_store_n(&area.state, ANSWERED, __ATOMIC_RELEASE);
	}
	return NULL;
}

static long long
run(long n, void *ctx)
{
	long long t0 = bench_now_ns();

	(void)ctx;
	for (long i = 0; i < n; i++) {
		area.arg = (uint32_t)i;
		__atomic_exchange_n(&area.state, POSTED, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&area.state, __ATOMIC_ACQUIRE) !=
		    ANSWERED)
			__builtin_ia32_pause();
		if (area.answer != (uint64_t)(uint32_t)i + 1)
			bench_die("wrong answer");
	}
	return bench_now_ns() - t0;
}

int
main(int argc, char **argv)
{
	int cpus[2];
	pthread_t t;
	long n;

	if (bench_two_cpus(cpus) < 0) {
		bench_fprint(2, "handoff_floor: needs two CPUs\n");
		return 1;
	}
	if (pthread_create(&t, NULL, server, (void *)(intptr_t)cpus[1]) != 0)
		bench_die("pthread_create");
	bench_pin(cpus[0]);
	n = bench_iters(argc > 1 ? argv[1] : "auto", run, NULL);
	bench_report("handoff", n, run(n, NULL), NULL);
	__atomic_store_n(&area.state, QUIT, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	return 0;
}
