/*
 * futex_pingpong - a round trip between two threads of one process.
 *
 * Usage: futex_pingpong [ITERS|auto]
 *
 * The main thread sets a shared word to 1 and wakes the other thread,
 * which sets it back to 0 and wakes the main thread: per operation two
 * FUTEX_WAKE and up to two FUTEX_WAIT calls, and two switches.
 */
#include "bench.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>

/* Linux's values; musl's headers have no linux/futex.h. */
#define FUTEX_WAIT_PRIVATE	128
#define FUTEX_WAKE_PRIVATE	129

static atomic_int word;
static long rounds;

static void
fwait(int val)
{
	while (atomic_load(&word) == val)
		syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void
fset(int val)
{
	atomic_store(&word, val);
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *
partner(void *arg)
{
	for (long i = 0; i < rounds; i++) {
		fwait(0);
		fset(0);
	}
	return arg;
}

static long long
run(long n, void *ctx)
{
	pthread_t t;
	long long t0;

	rounds = n;
	atomic_store(&word, 0);
	if (pthread_create(&t, NULL, partner, NULL) != 0)
		exit(2);
	t0 = bench_now_ns();
	for (long i = 0; i < n; i++) {
		fset(1);
		fwait(1);
	}
	t0 = bench_now_ns() - t0;
	pthread_join(t, NULL);
	return t0;
}

int
main(int argc, char **argv)
{
	long n = bench_iters(argc > 1 ? argv[1] : NULL, run, NULL);

	bench_report("futex_pingpong", n, run(n, NULL), NULL);
	return 0;
}
