/*
 * Thousands of short-lived threads, for a host-side check of what they
 * leave (thr_churn.py): argv[1] rounds, each starting argv[2] threads
 * at once, every other round's detached and the others joined; each
 * thread makes a call and ends; then WIDE threads alive at once, which
 * end together.  Then "churned" on stdout, and a pause in which the host
 * counts the stub's threads.  A third argument
 * "nobody" drops to uid and gid 65534 first when it starts as root.
 */
#include <grp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "thr_common.h"

#define BURST_MAX 64
#define WIDE      128

static atomic_uint live;
static pthread_barrier_t all_up;

static void *
brief(void *arg)
{
	(void)arg;
	(void)gettid_raw();
	atomic_fetch_sub(&live, 1);
	return NULL;
}

static void
round_of(unsigned n, bool detach)
{
	pthread_t th[BURST_MAX];
	struct timespec ts = { 0, 100000 };
	unsigned made = 0;

	for (; made < n; made++) {
		int e;

		atomic_fetch_add(&live, 1);
		if ((e = pthread_create(&th[made], NULL, brief, NULL)) != 0) {
			atomic_fetch_sub(&live, 1);
			CHECK(0, "thread %u: error %d", made, e);
			break;
		}
		if (detach)
			pthread_detach(th[made]);
	}
	if (!detach)
		for (unsigned i = 0; i < made; i++)
			CHECK_EQ(pthread_join(th[i], NULL), 0);
	/* A detached thread may still be ending: its slot is not free yet. */
	while (atomic_load(&live) != 0)
		nanosleep(&ts, NULL);
}

static void *
wide_one(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&all_up);
	return NULL;
}

/* WIDE threads at once, all started before any ends. */
static void
wide_round(void)
{
	pthread_t th[WIDE];
	unsigned made = 0;

	pthread_barrier_init(&all_up, NULL, WIDE + 1);
	for (; made < WIDE; made++)
		if (!CHECK(pthread_create(&th[made], NULL, wide_one, NULL) ==
		    0, "wide thread %u", made))
			break;
	if (made == WIDE)
		pthread_barrier_wait(&all_up);
	for (unsigned i = 0; i < made; i++)
		CHECK_EQ(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&all_up);
}

int
main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 100;
	unsigned burst = argc > 2 ? (unsigned)atoi(argv[2]) : 8;

	/* Uid 65534 when it starts as root, else the user it starts as. */
	if (argc > 3 && strcmp(argv[3], "nobody") == 0 && geteuid() == 0)
		CHECK(setgroups(0, NULL) == 0 &&
		    setresgid(65534, 65534, 65534) == 0 &&
		    setresuid(65534, 65534, 65534) == 0, "drop to 65534");
	if (burst > BURST_MAX)
		burst = BURST_MAX;
	for (unsigned r = 0; r < rounds; r++)
		round_of(burst, r % 2 == 1);
	wide_round();
	printf("churned\n");
	fflush(stdout);
	sleep(2);
	return guest_done();
}
