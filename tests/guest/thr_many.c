/*
 * Hundreds of threads of one process alive at once: each says it has
 * started, blocks on a futex gate until all of them have, then makes a
 * call of its own and ends; the process sees them all in its Threads:
 * count while they wait, and joins every one.  A second, smaller round
 * after the first gets threads again once those ended.  As a guest root
 * and as uid 65534.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "thr_common.h"

#define NTHREADS	400
#define NAGAIN		80
#define STACK_SIZE	(64 * 1024)

static atomic_uint started;
static _Atomic uint32_t gate;

static void *
waiter(void *arg)
{
	(void)arg;
	atomic_fetch_add(&started, 1);
	while (atomic_load(&gate) == 0)
		(void)futex_wait(&gate, 0, 1000);
	return (void *)(intptr_t)gettid_raw();
}

/* Start n threads, see them all wait at once, let them go and join them. */
static void
round_of(unsigned n)
{
	static pthread_t th[NTHREADS];
	pthread_attr_t attr;
	unsigned made = 0, joined = 0;
	struct timespec ts = { 0, 1000000 };
	long count;

	atomic_store(&started, 0);
	atomic_store(&gate, 0);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	for (; made < n; made++) {
		int e = pthread_create(&th[made], &attr, waiter, NULL);

		if (!CHECK(e == 0, "thread %u of %u: error %d", made, n, e))
			break;
	}
	pthread_attr_destroy(&attr);
	for (int i = 0; i < 60000 && atomic_load(&started) < made; i++)
		nanosleep(&ts, NULL);
	CHECK_EQ(atomic_load(&started), made);
	count = guest_status_num("Threads:");
	CHECK(count == (long)made + 1, "Threads: %ld with %u started", count,
	    made);
	atomic_store(&gate, 1);
	(void)futex_wake(&gate, NTHREADS);
	for (unsigned i = 0; i < made; i++) {
		void *ret = NULL;

		if (pthread_join(th[i], &ret) == 0 && (intptr_t)ret > 0)
			joined++;
	}
	CHECK_EQ(joined, n);
	count = guest_status_num("Threads:");
	CHECK(count == 1, "Threads: %ld after the joins", count);
}

static void
tests(void)
{
	round_of(NTHREADS);
	round_of(NAGAIN);
}

int
main(void)
{
	return guest_main_twice(tests);
}
