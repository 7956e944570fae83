/*
 * Threads: pthread_create and pthread_join (the join waits on the futex
 * the kernel clears and wakes at thread exit, CLONE_CHILD_CLEARTID), each
 * thread's own tid and TLS, many threads contending on one mutex, a
 * condition variable handing work between threads, a thread ending with
 * exit(2) while the others go on, raw futex calls' errors, and a new
 * thread's SSE control word: its creator's, never a thread's before it.
 *
 * The threads only record what they saw; main checks it, because the
 * check helpers count with plain globals.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "thr_common.h"

#define NWORKERS	8
#define NINCR		20000
#define NITEMS		2000

static __thread long tls_value = 7;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

struct worker {
	pthread_t handle;
	long index;
	pid_t tid;
	pid_t pid;
	long tls_seen;
	long affinity;         /* sched_getaffinity of its own tid */
};

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t mask[16];

	w->tid = gettid_raw();
	w->pid = (pid_t)syscall(SYS_getpid);
	w->tls_seen = tls_value;
	w->affinity = syscall(SYS_sched_getaffinity, w->tid, sizeof(mask),
	    mask);
	tls_value = 1000 + w->index;
	for (int i = 0; i < NINCR; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
		if (i % 1000 == 0)
			sched_yield();
	}
	if (tls_value != 1000 + w->index)
		return NULL;
	return (void *)(w->index + 1);
}

static void
check_workers(void)
{
	struct worker w[NWORKERS];
	uint64_t mask[16];
	pid_t me = gettid_raw();

	CHECK_EQ(me, getpid());
	counter = 0;
	for (long i = 0; i < NWORKERS; i++) {
		w[i] = (struct worker){ .index = i };
		CHECK_EQ(pthread_create(&w[i].handle, NULL, worker_main, &w[i]), 0);
	}
	for (long i = 0; i < NWORKERS; i++) {
		void *ret = NULL;

		CHECK_EQ(pthread_join(w[i].handle, &ret), 0);
		CHECK_EQ((long)ret, i + 1);
		CHECK_EQ(w[i].pid, getpid());
		CHECK(w[i].tid != me && w[i].tid > 0, "thread %ld tid %d",
		    i, w[i].tid);
		CHECK_EQ(w[i].tls_seen, 7);
		CHECK(w[i].affinity > 0, "thread %ld: sched_getaffinity of "
		    "its tid: %ld", i, w[i].affinity);
		for (long j = 0; j < i; j++)
			CHECK(w[i].tid != w[j].tid, "threads %ld and %ld share "
			    "tid %d", i, j, w[i].tid);
	}
	CHECK_EQ(counter, (long)NWORKERS * NINCR);
	CHECK_EQ(tls_value, 7);
	CHECK_ERR(syscall(SYS_sched_getaffinity, w[0].tid, 128, mask), ESRCH);
}

/* A bounded queue: producers and consumers wait on two conditions. */
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int queue[16];
static int qhead, qlen;
static long consumed_sum;
static int consumed_count;

static void *
producer_main(void *arg)
{
	int base = (int)(intptr_t)arg;

	for (int i = 1; i <= NITEMS; i++) {
		pthread_mutex_lock(&lock);
		while (qlen == 16)
			pthread_cond_wait(&not_full, &lock);
		queue[(qhead + qlen++) % 16] = base + i;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void *
consumer_main(void *arg)
{
	(void)arg;
	for (;;) {
		int v;

		pthread_mutex_lock(&lock);
		while (qlen == 0 && consumed_count < 2 * NITEMS)
			pthread_cond_wait(&not_empty, &lock);
		if (consumed_count == 2 * NITEMS) {
			pthread_cond_broadcast(&not_empty);
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		v = queue[qhead];
		qhead = (qhead + 1) % 16;
		qlen--;
		consumed_sum += v;
		consumed_count++;
		pthread_cond_signal(&not_full);
		if (consumed_count == 2 * NITEMS)
			pthread_cond_broadcast(&not_empty);
		pthread_mutex_unlock(&lock);
	}
}

static void
check_condvar(void)
{
	pthread_t t[5];
	long want = 0;

	for (int i = 1; i <= NITEMS; i++)
		want += i + (100000 + i);
	CHECK_EQ(pthread_create(&t[0], NULL, producer_main, (void *)0), 0);
	CHECK_EQ(pthread_create(&t[1], NULL, producer_main,
	    (void *)100000), 0);
	for (int i = 2; i < 5; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, consumer_main, NULL), 0);
	for (int i = 0; i < 5; i++)
		CHECK_EQ(pthread_join(t[i], NULL), 0);
	CHECK_EQ(consumed_count, 2 * NITEMS);
	CHECK_EQ(consumed_sum, want);
}

/*
 * A thread that ends with the raw exit(2) leaves the process running;
 * its clear_child_tid word is zeroed and woken.
 */
static atomic_int raw_tid_word = -1;

static void *
raw_exit_main(void *arg)
{
	(void)arg;
	atomic_store(&raw_tid_word, gettid_raw());
	syscall(SYS_set_tid_address, &raw_tid_word);
	syscall(SYS_exit, 0);
	return NULL;
}

static void
check_raw_exit(void)
{
	pthread_t t;
	int v, rounds = 0;

	CHECK_EQ(pthread_create(&t, NULL, raw_exit_main, NULL), 0);
	pthread_detach(t);
	while ((v = atomic_load(&raw_tid_word)) != 0 && rounds++ < 10)
		futex_wait(&raw_tid_word, (uint32_t)v, 5000);
	CHECK_EQ(atomic_load(&raw_tid_word), 0);
	CHECK_EQ(counter, (long)NWORKERS * NINCR);
}

static void
check_futex_errors(void)
{
	uint32_t word = 1;
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	struct timespec bad = { 0, 1000000000 };

	CHECK_ERR(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL,
	    0), EAGAIN);
	CHECK_ERR(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, &ts, NULL,
	    0), ETIMEDOUT);
	CHECK_ERR(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, &bad, NULL,
	    0), EINVAL);
	CHECK_ERR(syscall(SYS_futex, (char *)&word + 1, FUTEX_WAIT_PRIVATE, 1,
	    &ts, NULL, 0), EINVAL);
	CHECK_ERR(syscall(SYS_futex, (void *)8, FUTEX_WAIT_PRIVATE, 1, &ts,
	    NULL, 0), EFAULT);
	CHECK_EQ(syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL,
	    0), 0);
	CHECK_ERR(syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE, 1, &ts,
	    NULL, 0), EINVAL);
}

#define MXCSR_RC	0x6000u		/* rounding control */
#define MXCSR_RZ	0x6000u		/* toward zero */
#define MXCSR_RU	0x4000u		/* upward */

static unsigned
mxcsr_get(void)
{
	unsigned m;

	__asm__ volatile("stmxcsr %0" : "=m"(m));
	return m;
}

static void
mxcsr_set_rc(unsigned rc)
{
	unsigned m = (mxcsr_get() & ~MXCSR_RC) | rc;

	__asm__ volatile("ldmxcsr %0" : : "m"(m));
}

/* Sets the rounding its argument says, records what it found first. */
static void *
mxcsr_main(void *arg)
{
	unsigned *rc = arg, found = mxcsr_get() & MXCSR_RC;

	mxcsr_set_rc(*rc);
	*rc = found;
	return NULL;
}

static unsigned
mxcsr_in_thread(unsigned set)
{
	pthread_t t;

	if (pthread_create(&t, NULL, mxcsr_main, &set) != 0 ||
	    pthread_join(t, NULL) != 0)
		return ~0u;
	return set;
}

static void
check_fpu_inherited(void)
{
	unsigned mine = mxcsr_get() & MXCSR_RC;

	/* A thread that changed its rounding and ended leaves no trace. */
	CHECK_EQ(mxcsr_in_thread(MXCSR_RZ), mine);
	CHECK_EQ(mxcsr_in_thread(MXCSR_RZ), mine);
	/* A new thread starts with its creator's. */
	mxcsr_set_rc(MXCSR_RU);
	CHECK_EQ(mxcsr_in_thread(MXCSR_RZ), MXCSR_RU);
	mxcsr_set_rc(mine);
}

int
main(void)
{
	check_fpu_inherited();
	check_workers();
	check_condvar();
	check_raw_exit();
	check_futex_errors();
	return guest_done();
}
