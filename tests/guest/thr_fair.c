/*
 * Fair service of threads' calls: while one thread makes system calls
 * without pause (sched_yield in a loop, waiting for the others), the
 * others' calls must still be served.  Three workers each make 2000
 * calls, then say so; main yields until all three have.  Served in
 * turn, main yields about once per round of their calls (natively, where
 * they run side by side, a few times at most); a kernel that serves the
 * busiest thread first let main yield 550,000 times.  Main gives up
 * after 30 seconds.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "guest.h"

#define NWORKERS	3
#define NCALLS		2000

static atomic_int finished;

static void *
worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < NCALLS; i++)
		syscall(SYS_getppid);
	atomic_fetch_add(&finished, 1);
	return NULL;
}

int
main(void)
{
	pthread_t t[NWORKERS];
	struct timespec t0, now;
	long spins = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < NWORKERS; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, worker, NULL), 0);
	do {
		syscall(SYS_sched_yield);
		spins++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (atomic_load(&finished) < NWORKERS &&
	    now.tv_sec - t0.tv_sec < 30);
	CHECK(atomic_load(&finished) == NWORKERS,
	    "%d of %d workers done after %ld yields in 30 s",
	    atomic_load(&finished), NWORKERS, spins);
	CHECK(spins <= 10L * NWORKERS * NCALLS,
	    "main yielded %ld times while %d threads made %d calls", spins,
	    NWORKERS, NWORKERS * NCALLS);
	if (atomic_load(&finished) == NWORKERS)
		for (int i = 0; i < NWORKERS; i++)
			CHECK_EQ(pthread_join(t[i], NULL), 0);
	return guest_done();
}
