/*
 * Several threads of one process raise signals at each other and at
 * themselves in a loop (tgkill to a sibling, raise, kill of the whole
 * process, and raise while the signal is blocked) while their handlers
 * run and one of them sets the action again and again: every signal is
 * taken or merged with one still pending, and the loop ends; nothing
 * hangs.  Each thread
 * then waits for the others at a barrier made of a futex-based mutex, so
 * that a lost wake-up shows too.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>

#include "guest.h"

#define NTHREADS 4
#define ROUNDS 3000

static pid_t tids[NTHREADS];
static atomic_int ready, done;
static atomic_long taken;
static pthread_barrier_t bar;
static struct sigaction act;

static void
on_sig(int sig)
{
	(void)sig;
	atomic_fetch_add(&taken, 1);
}

static void *
racer(void *arg)
{
	int me = (int)(intptr_t)arg;
	pid_t pid = getpid();
	long bad = 0;

	tids[me] = (pid_t)syscall(SYS_gettid);
	atomic_fetch_add(&ready, 1);
	while (atomic_load(&ready) < NTHREADS)
		sched_yield();
	for (int i = 0; i < ROUNDS; i++) {
		pid_t to = tids[(me + 1 + i % (NTHREADS - 1)) % NTHREADS];
		int sig = i % 2 == 0 ? SIGUSR1 : SIGUSR2;
		sigset_t set;

		bad += syscall(SYS_tgkill, pid, to, sig) != 0;
		bad += raise(sig) != 0;
		if (i % 16 == 0)
			bad += kill(pid, sig) != 0;
		/* Pending while blocked, taken at the unblocking. */
		if (i % 8 == 0) {
			sigemptyset(&set);
			sigaddset(&set, sig);
			bad += pthread_sigmask(SIG_BLOCK, &set, NULL) != 0;
			bad += raise(sig) != 0;
			bad += pthread_sigmask(SIG_UNBLOCK, &set, NULL) != 0;
		}
		/* The action changes under the others' feet. */
		if (me == 0 && i % 4 == 0)
			bad += sigaction(sig, &act, NULL) != 0;
	}
	pthread_barrier_wait(&bar);
	atomic_fetch_add(&done, 1);
	return (void *)bad;
}

int
main(void)
{
	pthread_t th[NTHREADS];
	struct timespec t0, t1;

	act.sa_handler = on_sig;
	act.sa_flags = SA_RESTART;
	sigemptyset(&act.sa_mask);
	CHECK_OK(sigaction(SIGUSR1, &act, NULL));
	CHECK_OK(sigaction(SIGUSR2, &act, NULL));
	CHECK_EQ(pthread_barrier_init(&bar, NULL, NTHREADS), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < NTHREADS; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, racer,
		    (void *)(intptr_t)i), 0);
	for (int i = 0; i < NTHREADS; i++) {
		void *bad = NULL;

		CHECK_EQ(pthread_join(th[i], &bad), 0);
		CHECK(bad == NULL, "thread %d: %ld sends failed", i,
		    (long)(intptr_t)bad);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK_EQ(atomic_load(&done), NTHREADS);
	/* At least one of each burst of merged signals came. */
	CHECK(atomic_load(&taken) >= NTHREADS, "%ld taken",
	    atomic_load(&taken));
	guest_note("%ld signals taken in %.2f s", atomic_load(&taken),
	    (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return guest_done();
}
