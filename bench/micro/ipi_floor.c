/*
 * ipi_floor - what the host charges for reaching another CPU, the two
 * costs the systrap platform cannot spin its way out of:
 *
 *   flush-alone    an mprotect pair of a touched page, no other thread
 *   flush-spin     the same while a sibling thread of the process spins
 *                  on another CPU (as a guest thread waiting in its
 *                  handler or trampoline does while vkernel changes its
 *                  mappings): each change must flush that CPU's TLB
 *   flush-asleep   the same while the sibling sleeps in futex_wait
 *   wake           a futex round trip between two threads on two CPUs,
 *                  each side asleep when woken: two cross-CPU wake-ups
 *
 * Usage: ipi_floor flush-alone|flush-spin|flush-asleep|wake [ITERS|auto]
 * Prints ns per operation.  Needs two CPUs: it fails on one.
 */
#include "bench.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* linux/futex.h's, which musl's headers lack. */
#define FUTEX_WAIT_PRIVATE	128
#define FUTEX_WAKE_PRIVATE	129

static int cpus[2];
static volatile int quit;
static int ping, pong;       /* the futex words of "wake" */
static char *page;

static void
futex_wait(int *w, int v)
{
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) == v)
		syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void
futex_set(int *w, int v)
{
	__atomic_store_n(w, v, __ATOMIC_RELEASE);
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *
spinner(void *arg)
{
	(void)arg;
	bench_pin(cpus[1]);
	while (!quit)
		__builtin_ia32_pause();
	return NULL;
}

static void *
sleeper(void *arg)
{
	(void)arg;
	bench_pin(cpus[1]);
	futex_wait(&pong, 0);
	return NULL;
}

/* The other side of "wake": answer each ping with a pong. */
static void *
ponger(void *arg)
{
	long n = (long)(intptr_t)arg;

	bench_pin(cpus[1]);
	for (int i = 0; i < n; i++) {
		futex_wait(&ping, i);
		futex_set(&pong, i + 1);
	}
	return NULL;
}

static long long
run_flush(long n, void *ctx)
{
	long long t0 = bench_now_ns();

	(void)ctx;
	for (long i = 0; i < n; i++) {
		if (mprotect(page, 4096, PROT_READ) != 0 ||
		    mprotect(page, 4096, PROT_READ | PROT_WRITE) != 0)
			bench_die("mprotect");
		page[0]++;
	}
	return bench_now_ns() - t0;
}

static long long
run_wake(long n, void *ctx)
{
	pthread_t t;
	long long t0;

	(void)ctx;
	ping = pong = 0;
	if (pthread_create(&t, NULL, ponger, (void *)(intptr_t)n) != 0)
		bench_die("pthread_create");
	usleep(10000);
	t0 = bench_now_ns();
	for (int i = 0; i < n; i++) {
		futex_set(&ping, i + 1);
		futex_wait(&pong, i);
	}
	t0 = bench_now_ns() - t0;
	pthread_join(t, NULL);
	return t0;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	void *(*sibling)(void *) = NULL;
	pthread_t t;
	long n;

	if (bench_two_cpus(cpus) < 0) {
		bench_fprint(2, "ipi_floor: needs two CPUs\n");
		return 1;
	}
	bench_pin(cpus[0]);
	if (strcmp(mode, "wake") == 0) {
		n = bench_iters(argc > 2 ? argv[2] : "auto", run_wake, NULL);
		bench_report("wake", n, run_wake(n, NULL),
		    "op = futex round trip across CPUs");
		return 0;
	}
	if (strcmp(mode, "flush-spin") == 0)
		sibling = spinner;
	else if (strcmp(mode, "flush-asleep") == 0)
		sibling = sleeper;
	else if (strcmp(mode, "flush-alone") != 0) {
		bench_fprint(2, "usage: ipi_floor flush-alone|flush-spin|"
		    "flush-asleep|wake [ITERS|auto]\n");
		return 2;
	}
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		bench_die("mmap");
	page[0] = 1;
	if (sibling != NULL && pthread_create(&t, NULL, sibling, NULL) != 0)
		bench_die("pthread_create");
	usleep(10000);
	n = bench_iters(argc > 2 ? argv[2] : "auto", run_flush, NULL);
	bench_report(mode, n, run_flush(n, NULL),
	    "op = mprotect to read-only and back, 2 calls");
	quit = 1;
	futex_set(&pong, 1);
	if (sibling != NULL)
		pthread_join(t, NULL);
	return 0;
}
