/*
 * Tens of thousands of signals, each interrupting floating-point work
 * and running a handler that computes in floating point and SSE
 * registers itself: every interrupted value comes back intact, in one
 * thread and in several that signal themselves at once.  The test's
 * timeout is the check that delivery stays cheap (about 1 s inside).
 */
#include <pthread.h>
#include <signal.h>

#include "guest.h"

#define ROUNDS   10000
#define NTHREADS 3

static __thread volatile long handled;

/* Clobbers the SSE registers and the x87 stack with its own values. */
static void
on_usr1(int sig)
{
	volatile double junk[16];
	double x = sig * 0.3;

	for (int i = 0; i < 16; i++) {
		x = x * 1.7 + 0.1;
		junk[i] = x;
	}
	__asm__ volatile("xorps %%xmm0, %%xmm0\n\txorps %%xmm7, %%xmm7\n\t"
	    "xorps %%xmm15, %%xmm15\n\tfldpi\n\tfstp %%st(0)" ::: "xmm0",
	    "xmm7", "xmm15");
	(void)junk[15];
	handled++;
}

/* FP work signalled in the middle: its sums must be exact. */
static long
loop(void)
{
	double a = 0.5, b = 0.25;
	long bad = 0;

	for (long i = 0; i < ROUNDS; i++) {
		a += 1.0;
		__asm__ volatile("" : "+x"(a), "+x"(b));
		syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR1);
		b += 2.0;
		if (a != 1.5 + (double)i || b != 2.25 + 2.0 * (double)i)
			bad++;
	}
	if (handled != ROUNDS)
		bad++;
	return bad;
}

static void *
thread_loop(void *arg)
{
	*(long *)arg = loop();
	return NULL;
}

int
main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t th[NTHREADS];
	long bad[NTHREADS];

	CHECK_OK(sigaction(SIGUSR1, &sa, NULL));
	CHECK_EQ(loop(), 0);
	for (int i = 0; i < NTHREADS; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, thread_loop, &bad[i]), 0);
	for (int i = 0; i < NTHREADS; i++) {
		CHECK_EQ(pthread_join(th[i], NULL), 0);
		CHECK_EQ(bad[i], 0);
	}
	return guest_done();
}
