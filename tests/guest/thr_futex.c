/*
 * The futex calls beyond wait and wake: WAKE_OP's every op and
 * comparison (the new word and who is woken), the priority-inheritance
 * locks as raw calls (the word's contents, the hand-over on unlock, the
 * errors), WAIT_REQUEUE_PI with CMP_REQUEUE_PI (glibc's condition
 * variables no longer use them, so they are driven raw), PTHREAD_PRIO_INHERIT
 * mutexes under contention and with a condition variable, a robust PI
 * mutex whose owner dies, and futex_waitv.
 *
 * A helper thread only records what it saw; main checks it, because the
 * check helpers count with plain globals.
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "thr_common.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv		449
#endif
#define FUTEX_32		2
#define FUTEX_WAITV_MAX		128

/* Linux's struct futex_waitv (musl has no <linux/futex.h>). */
struct waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

#define PRIV(op)		((op) | FUTEX_PRIVATE_FLAG)

/* WAKE_OP's encoding, as <linux/futex.h> has it. */
#define FUTEX_OP(op, oparg, cmp, cmparg)				\
	((((unsigned)(op) & 0xf) << 28) | (((unsigned)(cmp) & 0xf) << 24) | \
	    (((unsigned)(oparg) & 0xfff) << 12) | ((unsigned)(cmparg) & 0xfff))

static long
fx(void *u, int op, long val, const void *t, void *u2, long val3)
{
	return syscall(SYS_futex, u, op, val, t, u2, val3);
}

static void
nap(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

/* An absolute time ms from now on clock. */
static struct timespec
abs_ms(clockid_t clock, long ms)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	ts.tv_nsec += ms * 1000000L;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

/*
 * How many waiters wait on word: a REQUEUE of nothing woken and
 * everything moved onto the word itself counts them and changes nothing.
 */
static long
nwaiting(atomic_uint *word)
{
	return fx(word, FUTEX_REQUEUE | FUTEX_PRIVATE_FLAG, 0,
	    (void *)(long)INT_MAX, word, 0);
}

/* Until n threads wait on word, or a few seconds pass. */
static bool
until_waiting(atomic_uint *word, long n)
{
	for (int i = 0; i < 5000; i++) {
		if (nwaiting(word) == n)
			return true;
		nap();
	}
	return false;
}

/* A thread in FUTEX_WAIT on its word while that holds 0. */
struct sleeper {
	pthread_t t;
	atomic_uint *word;
	atomic_int tid;
	long r;
};

static void *
sleeper_main(void *arg)
{
	struct sleeper *s = arg;
	struct timespec ts = { 10, 0 };

	atomic_store(&s->tid, gettid_raw());
	s->r = fx(s->word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, &ts, NULL, 0);
	return NULL;
}

static atomic_uint w1, w2;

/*
 * WAKE_OP with two sleepers on each word: the op's new value of w2, and
 * 1 woken on w1 plus 2 on w2 only when the comparison holds.
 */
static void
check_wake_op_case(uint32_t old, uint32_t enc, uint32_t want, bool hit)
{
	struct sleeper s[4];

	atomic_store(&w1, 0);
	atomic_store(&w2, 0);
	for (int i = 0; i < 4; i++) {
		s[i] = (struct sleeper){ .word = i < 2 ? &w1 : &w2 };
		pthread_create(&s[i].t, NULL, sleeper_main, &s[i]);
	}
	CHECK(until_waiting(&w1, 2) && until_waiting(&w2, 2),
	    "sleepers did not wait");
	atomic_store(&w2, old);
	CHECK_EQ(fx(&w1, FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG, 1, (void *)2L,
	    &w2, enc), hit ? 3 : 1);
	CHECK_EQ(atomic_load(&w2), want);
	CHECK_EQ(nwaiting(&w1), 1);
	CHECK_EQ(nwaiting(&w2), hit ? 0 : 2);
	fx(&w1, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, NULL, NULL, 0);
	fx(&w2, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, NULL, NULL, 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(s[i].t, NULL);
		CHECK_EQ(s[i].r, 0);
	}
}

static void
check_wake_op(void)
{
	static const struct {
		uint32_t old, enc, want;
	} ops[] = {
		{ 5, FUTEX_OP(0, 9, 0, 0), 9 },		/* SET */
		{ 5, FUTEX_OP(1, 3, 0, 0), 8 },		/* ADD */
		{ 5, FUTEX_OP(1, -1, 0, 0), 4 },	/* ADD, negative */
		{ 5, FUTEX_OP(2, 0x12, 0, 0), 0x17 },	/* OR */
		{ 7, FUTEX_OP(3, 2, 0, 0), 5 },		/* ANDN */
		{ 6, FUTEX_OP(4, 3, 0, 0), 5 },		/* XOR */
		{ 0, FUTEX_OP(8, 4, 0, 0), 16 },	/* SET 1 << 4 */
		{ 1, FUTEX_OP(10, 31, 0, 0), 0x80000001 }, /* OR 1 << 31 */
		{ 0, FUTEX_OP(8, 40, 0, 0), 0x100 },	/* shift mod 32 */
	};
	/* Comparisons of the old value 5, each way. */
	static const struct {
		int cmp, arg;
		bool hit;
	} cmps[] = {
		{ 0, 5, true }, { 0, 4, false }, { 1, 4, true }, { 1, 5, false },
		{ 2, 6, true }, { 2, 5, false }, { 3, 5, true }, { 3, 4, false },
		{ 4, 4, true }, { 4, 5, false }, { 5, 5, true }, { 5, 6, false },
		{ 4, -1, true },	/* signed: 5 > -1 */
	};
	atomic_uint a = 0, b;

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		atomic_store(&b, ops[i].old);
		CHECK_EQ(fx(&a, FUTEX_WAKE_OP, 1, (void *)1L, &b, ops[i].enc),
		    0);
		CHECK(atomic_load(&b) == ops[i].want, "op %zu: %#x, want %#x",
		    i, atomic_load(&b), ops[i].want);
	}
	check_wake_op_case(5, FUTEX_OP(1, 1, 0, 5), 6, true);
	for (size_t i = 0; i < sizeof(cmps) / sizeof(cmps[0]); i++)
		check_wake_op_case(5, FUTEX_OP(0, 0, cmps[i].cmp, cmps[i].arg),
		    0, cmps[i].hit);

	/* An unknown op changes nothing; an unknown comparison comes late. */
	atomic_store(&b, 7);
	CHECK_ERR(fx(&a, FUTEX_WAKE_OP, 1, 0, &b, FUTEX_OP(5, 1, 0, 0)),
	    ENOSYS);
	CHECK_EQ(atomic_load(&b), 7);
	CHECK_ERR(fx(&a, FUTEX_WAKE_OP, 1, 0, &b, FUTEX_OP(1, 1, 6, 0)),
	    ENOSYS);
	CHECK_EQ(atomic_load(&b), 8);
	CHECK_ERR(fx(&a, FUTEX_WAKE_OP, 1, 0, (void *)8, 0), EFAULT);
	CHECK_ERR(fx(&a, FUTEX_WAKE_OP, 1, 0, (char *)&b + 1, 0), EINVAL);
	CHECK_ERR(fx((char *)&a + 2, FUTEX_WAKE_OP, 1, 0, &b, 0), EINVAL);
}

/* A thread taking a PI word with LOCK_PI, then giving it back. */
struct locker {
	pthread_t t;
	atomic_uint *word;
	atomic_int tid;
	long r, r2;
	uint32_t seen;	/* the word once it had the lock */
};

static void *
locker_main(void *arg)
{
	struct locker *l = arg;

	atomic_store(&l->tid, gettid_raw());
	l->r = fx(l->word, PRIV(FUTEX_LOCK_PI), 0, NULL, NULL, 0);
	l->seen = atomic_load(l->word);
	l->r2 = fx(l->word, PRIV(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0);
	return NULL;
}

static bool
until_bits(atomic_uint *word, uint32_t bits)
{
	for (int i = 0; i < 5000; i++) {
		if ((atomic_load(word) & bits) == bits)
			return true;
		nap();
	}
	return false;
}

/* A tid no thread has: beyond the largest pid Linux allows. */
#define NO_TID 0x3ffffff0u

static void
check_pi_raw(void)
{
	uint32_t me = (uint32_t)gettid_raw();
	atomic_uint word = 0;
	struct timespec past = { 0, 0 }, rt, bad = { 0, -1 };
	struct locker l = { .word = &word };
	atomic_uint hold_word = 0;
	struct sleeper hold = { .word = &hold_word };
	uint32_t owner;

	CHECK_EQ(fx(&word, PRIV(FUTEX_LOCK_PI), 0, NULL, NULL, 0), 0);
	CHECK_EQ(atomic_load(&word), me);
	CHECK_ERR(fx(&word, PRIV(FUTEX_LOCK_PI), 0, NULL, NULL, 0), EDEADLK);
	CHECK_ERR(fx(&word, PRIV(FUTEX_TRYLOCK_PI), 0, NULL, NULL, 0),
	    EDEADLK);
	CHECK_EQ(fx(&word, PRIV(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0), 0);
	CHECK_EQ(atomic_load(&word), 0);
	CHECK_ERR(fx(&word, PRIV(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0), EPERM);
	CHECK_EQ(fx(&word, PRIV(FUTEX_TRYLOCK_PI), 0, NULL, NULL, 0), 0);
	CHECK_EQ(atomic_load(&word), me);

	/* Held: a waiter sets WAITERS and is handed the lock on unlock. */
	pthread_create(&l.t, NULL, locker_main, &l);
	CHECK(until_bits(&word, FUTEX_WAITERS), "no waiter came");
	CHECK_EQ(atomic_load(&word), me | FUTEX_WAITERS);
	CHECK_EQ(fx(&word, PRIV(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0), 0);
	CHECK_ERR(fx(&word, PRIV(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0), EPERM);
	pthread_join(l.t, NULL);
	CHECK_EQ(l.r, 0);
	/* Linux keeps WAITERS in a word handed over, even to the last. */
	CHECK_EQ(l.seen, (uint32_t)atomic_load(&l.tid) | FUTEX_WAITERS);
	CHECK_EQ(l.r2, 0);
	CHECK_EQ(atomic_load(&word), 0);

	/* The owner's word as a free one keeps OWNER_DIED. */
	atomic_store(&word, FUTEX_OWNER_DIED);
	CHECK_EQ(fx(&word, PRIV(FUTEX_LOCK_PI), 0, NULL, NULL, 0), 0);
	CHECK_EQ(atomic_load(&word), me | FUTEX_OWNER_DIED);
	CHECK_EQ(fx(&word, PRIV(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0), 0);
	CHECK_EQ(atomic_load(&word), 0);

	/* Held by a tid that is no thread: ESRCH, WAITERS left set. */
	atomic_store(&word, NO_TID);
	CHECK_ERR(fx(&word, PRIV(FUTEX_TRYLOCK_PI), 0, NULL, NULL, 0), ESRCH);
	CHECK_EQ(atomic_load(&word), NO_TID | FUTEX_WAITERS);
	CHECK_ERR(fx(&word, PRIV(FUTEX_LOCK_PI), 0, NULL, NULL, 0), ESRCH);
	CHECK_ERR(fx(&word, PRIV(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0), EPERM);

	/* Held by a live thread, asleep: TRYLOCK and timeouts. */
	pthread_create(&hold.t, NULL, sleeper_main, &hold);
	CHECK(until_waiting(&hold_word, 1), "holder did not wait");
	owner = (uint32_t)atomic_load(&hold.tid);
	atomic_store(&word, owner);
	CHECK_ERR(fx(&word, PRIV(FUTEX_TRYLOCK_PI), 0, NULL, NULL, 0),
	    EAGAIN);
	CHECK_EQ(atomic_load(&word), owner | FUTEX_WAITERS);
	rt = abs_ms(CLOCK_REALTIME, 20);
	CHECK_ERR(fx(&word, PRIV(FUTEX_LOCK_PI), 0, &rt, NULL, 0),
	    ETIMEDOUT);
	CHECK_ERR(fx(&word, PRIV(FUTEX_LOCK_PI), 0, &past, NULL, 0),
	    ETIMEDOUT);
	rt = abs_ms(CLOCK_MONOTONIC, 20);
	CHECK_ERR(fx(&word, PRIV(FUTEX_LOCK_PI2), 0, &rt, NULL, 0),
	    ETIMEDOUT);
	rt = abs_ms(CLOCK_REALTIME, 20);
	CHECK_ERR(fx(&word, PRIV(FUTEX_LOCK_PI2) | FUTEX_CLOCK_REALTIME, 0,
	    &rt, NULL, 0), ETIMEDOUT);
	fx(&hold_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_join(hold.t, NULL);

	/* Bad input. */
	CHECK_ERR(fx(&word, FUTEX_LOCK_PI | FUTEX_CLOCK_REALTIME, 0, NULL,
	    NULL, 0), ENOSYS);
	CHECK_ERR(fx(&word, FUTEX_LOCK_PI, 0, &bad, NULL, 0), EINVAL);
	CHECK_ERR(fx(&word, FUTEX_LOCK_PI, 0, (void *)8, NULL, 0), EFAULT);
	CHECK_ERR(fx((char *)&word + 1, FUTEX_LOCK_PI, 0, NULL, NULL, 0),
	    EINVAL);
	CHECK_ERR(fx((void *)8, FUTEX_LOCK_PI, 0, NULL, NULL, 0), EFAULT);
	CHECK_ERR(fx((void *)8, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0), EFAULT);
	CHECK_ERR(fx(&word, FUTEX_WAIT | FUTEX_CLOCK_REALTIME, 0, NULL, NULL,
	    0), ENOSYS);
}

/* A thread in WAIT_REQUEUE_PI on cond with the PI word pi. */
struct rq {
	pthread_t t;
	atomic_uint *cond, *pi;
	atomic_int tid;
	long r, r2;
	uint32_t seen;
};

static void *
rq_main(void *arg)
{
	struct rq *q = arg;

	atomic_store(&q->tid, gettid_raw());
	q->r = fx(q->cond, PRIV(FUTEX_WAIT_REQUEUE_PI), 0, NULL, q->pi, 0);
	q->seen = atomic_load(q->pi);
	q->r2 = fx(q->pi, PRIV(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0);
	return NULL;
}

/* CMP_REQUEUE_PI(cond, 1, nreq, pi, 0) until it finds the waiter. */
static long
requeue_pi(atomic_uint *cond, atomic_uint *pi, long nreq)
{
	long r = 0;

	for (int i = 0; i < 5000 && r == 0; i++) {
		r = fx(cond, PRIV(FUTEX_CMP_REQUEUE_PI), 1, (void *)nreq, pi,
		    0);
		if (r == 0)
			nap();
	}
	return r;
}

static void
on_usr1(int sig)
{
	(void)sig;
}

/* rq_main's wait with a deadline 2 s ahead, and its errno. */
static void *
rq_timed_main(void *arg)
{
	struct rq *q = arg;
	struct timespec dl;

	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += 2;
	atomic_store(&q->tid, gettid_raw());
	q->r = fx(q->cond, PRIV(FUTEX_WAIT_REQUEUE_PI), 0, &dl, q->pi, 0);
	q->r2 = errno;
	return NULL;
}

/*
 * A handler that interrupts the wait after CMP_REQUEUE_PI moved it onto
 * the held lock ends it with EAGAIN (EWOULDBLOCK), even with SA_RESTART:
 * a restart would wait on the condition word again, which Linux's
 * futex_wait_requeue_pi() declines to do.
 */
static void
check_requeue_pi_signal(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	atomic_uint cond = 0, pi = 0;
	struct rq q = { .cond = &cond, .pi = &pi };

	CHECK_OK(sigaction(SIGUSR1, &sa, NULL));
	CHECK_EQ(fx(&pi, PRIV(FUTEX_LOCK_PI), 0, NULL, NULL, 0), 0);
	pthread_create(&q.t, NULL, rq_timed_main, &q);
	CHECK_EQ(requeue_pi(&cond, &pi, 1), 1);
	CHECK_OK(syscall(SYS_tgkill, getpid(), atomic_load(&q.tid), SIGUSR1));
	pthread_join(q.t, NULL);
	CHECK_EQ(q.r, -1);
	CHECK_EQ(q.r2, EAGAIN);
	CHECK_EQ(fx(&pi, PRIV(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0), 0);
	CHECK_EQ(atomic_load(&pi), 0);
	signal(SIGUSR1, SIG_DFL);
}

static void
check_requeue_pi(void)
{
	uint32_t me = (uint32_t)gettid_raw();
	atomic_uint cond = 0, pi = 0;
	struct rq q = { .cond = &cond, .pi = &pi };
	struct timespec past = { 0, 0 };

	/* The lock is free: the waiter takes it at once. */
	pthread_create(&q.t, NULL, rq_main, &q);
	CHECK_EQ(requeue_pi(&cond, &pi, 0), 1);
	pthread_join(q.t, NULL);
	CHECK_EQ(q.r, 0);
	CHECK_EQ(q.seen, (uint32_t)atomic_load(&q.tid));
	CHECK_EQ(q.r2, 0);
	CHECK_EQ(atomic_load(&pi), 0);

	/* Held: the waiter is moved and gets the lock on unlock. */
	CHECK_EQ(fx(&pi, PRIV(FUTEX_LOCK_PI), 0, NULL, NULL, 0), 0);
	q = (struct rq){ .cond = &cond, .pi = &pi };
	pthread_create(&q.t, NULL, rq_main, &q);
	/* A plain wake may not take a requeue-PI waiter: EINVAL. */
	for (int i = 0; i < 5000 && fx(&cond, FUTEX_WAKE_PRIVATE, 1, NULL,
	    NULL, 0) == 0; i++)
		nap();
	CHECK_ERR(fx(&cond, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), EINVAL);
	CHECK_ERR(fx(&cond, PRIV(FUTEX_CMP_REQUEUE), 0, (void *)1L, &pi, 0),
	    EINVAL);
	CHECK_EQ(requeue_pi(&cond, &pi, 1), 1);
	CHECK_EQ(atomic_load(&pi), me | FUTEX_WAITERS);
	CHECK_ERR(fx(&pi, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), EINVAL);
	CHECK_EQ(fx(&pi, PRIV(FUTEX_UNLOCK_PI), 0, NULL, NULL, 0), 0);
	pthread_join(q.t, NULL);
	CHECK_EQ(q.r, 0);
	CHECK_EQ(q.seen, (uint32_t)atomic_load(&q.tid) | FUTEX_WAITERS);
	CHECK_EQ(q.r2, 0);
	CHECK_EQ(atomic_load(&pi), 0);

	/* Bad input. */
	CHECK_ERR(fx(&cond, PRIV(FUTEX_CMP_REQUEUE_PI), 2, 0, &pi, 0),
	    EINVAL);
	CHECK_ERR(fx(&cond, PRIV(FUTEX_CMP_REQUEUE_PI), 1, 0, &cond, 0),
	    EINVAL);
	CHECK_ERR(fx(&cond, PRIV(FUTEX_CMP_REQUEUE_PI), 1, (void *)-1L, &pi,
	    0), EINVAL);
	CHECK_ERR(fx(&cond, PRIV(FUTEX_CMP_REQUEUE_PI), 1, 0, &pi, 1),
	    EAGAIN);
	CHECK_ERR(fx(&cond, PRIV(FUTEX_WAIT_REQUEUE_PI), 0, NULL, &cond, 0),
	    EINVAL);
	CHECK_ERR(fx(&cond, PRIV(FUTEX_WAIT_REQUEUE_PI), 1, NULL, &pi, 0),
	    EAGAIN);
	CHECK_ERR(fx(&cond, PRIV(FUTEX_WAIT_REQUEUE_PI), 0, &past, &pi, 0),
	    ETIMEDOUT);
}

#define NPI	4
#define NPI_INCR 3000

static pthread_mutex_t pim;
static pthread_cond_t picv = PTHREAD_COND_INITIALIZER;
static long picount;
static int piqueue, piproduced, piconsumed;

static void *
pi_incr_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < NPI_INCR; i++) {
		pthread_mutex_lock(&pim);
		picount++;
		/* Yielding with the lock held makes the others wait for it. */
		if (i % 50 == 0)
			sched_yield();
		pthread_mutex_unlock(&pim);
	}
	return NULL;
}

static void *
pi_consumer_main(void *arg)
{
	long *got = arg;

	pthread_mutex_lock(&pim);
	for (;;) {
		while (piqueue == 0 && piproduced < 1000)
			pthread_cond_wait(&picv, &pim);
		if (piqueue == 0)
			break;
		piqueue--;
		piconsumed++;
		(*got)++;
	}
	pthread_mutex_unlock(&pim);
	return NULL;
}

static void
check_pi_mutex(void)
{
	pthread_mutexattr_t ma;
	pthread_t t[NPI];
	long got[2] = { 0, 0 };

	pthread_mutexattr_init(&ma);
	CHECK_EQ(pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT), 0);
	CHECK_EQ(pthread_mutex_init(&pim, &ma), 0);
	for (int i = 0; i < NPI; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, pi_incr_main, NULL), 0);
	for (int i = 0; i < NPI; i++)
		CHECK_EQ(pthread_join(t[i], NULL), 0);
	CHECK_EQ(picount, NPI * NPI_INCR);

	for (int i = 0; i < 2; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, pi_consumer_main,
		    &got[i]), 0);
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&pim);
		piqueue++;
		piproduced++;
		pthread_cond_signal(&picv);
		pthread_mutex_unlock(&pim);
	}
	pthread_mutex_lock(&pim);
	pthread_cond_broadcast(&picv);
	pthread_mutex_unlock(&pim);
	for (int i = 0; i < 2; i++)
		CHECK_EQ(pthread_join(t[i], NULL), 0);
	CHECK_EQ(piconsumed, 1000);
	CHECK_EQ(got[0] + got[1], 1000);
	CHECK_EQ(pthread_mutex_trylock(&pim), 0);
	CHECK_EQ(pthread_mutex_trylock(&pim), EBUSY);
	CHECK_EQ(pthread_mutex_unlock(&pim), 0);
}

/*
 * A robust PI mutex whose owner ends holding it: a thread waiting for it
 * is handed it with EOWNERDEAD, and so, with no waiter, is the next
 * locker.
 */
static pthread_mutex_t rpim;
static atomic_uint rpi_go;
static int rpi_waiter_r = -1;

/* The lock word: glibc's __lock is the first int, musl's _m_lock the second. */
static atomic_uint *
rpi_word(void)
{
#ifdef __GLIBC__
	return (atomic_uint *)&rpim;
#else
	return (atomic_uint *)&rpim + 1;
#endif
}

static void *
rpi_owner_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&rpim);
	atomic_store(&rpi_go, 1);
	futex_wake(&rpi_go, 1);
	while (atomic_load(&rpi_go) == 1)
		futex_wait(&rpi_go, 1, 1000);
	return NULL;
}

static void *
rpi_waiter_main(void *arg)
{
	(void)arg;
	rpi_waiter_r = pthread_mutex_lock(&rpim);
	if (rpi_waiter_r == EOWNERDEAD)
		pthread_mutex_consistent(&rpim);
	pthread_mutex_unlock(&rpim);
	return NULL;
}

static void *
rpi_die_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&rpim);
	return NULL;
}

static void
check_robust_pi(void)
{
	pthread_mutexattr_t ma;
	pthread_t o, w;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	CHECK_EQ(pthread_mutex_init(&rpim, &ma), 0);

	CHECK_EQ(pthread_create(&o, NULL, rpi_owner_main, NULL), 0);
	while (atomic_load(&rpi_go) == 0)
		futex_wait(&rpi_go, 0, 1000);
	CHECK_EQ(pthread_create(&w, NULL, rpi_waiter_main, NULL), 0);
	CHECK(until_bits(rpi_word(), FUTEX_WAITERS), "no waiter came");
	atomic_store(&rpi_go, 2);
	futex_wake(&rpi_go, 1);
	CHECK_EQ(pthread_join(o, NULL), 0);
	CHECK_EQ(pthread_join(w, NULL), 0);
	CHECK_EQ(rpi_waiter_r, EOWNERDEAD);
	CHECK_EQ(pthread_mutex_lock(&rpim), 0);
	CHECK_EQ(pthread_mutex_unlock(&rpim), 0);

	CHECK_EQ(pthread_create(&o, NULL, rpi_die_main, NULL), 0);
	CHECK_EQ(pthread_join(o, NULL), 0);
	CHECK_EQ(pthread_mutex_lock(&rpim), EOWNERDEAD);
	CHECK_EQ(pthread_mutex_consistent(&rpim), 0);
	CHECK_EQ(pthread_mutex_unlock(&rpim), 0);
	CHECK_EQ(pthread_mutex_lock(&rpim), 0);
	CHECK_EQ(pthread_mutex_unlock(&rpim), 0);
}

static long
waitv(struct waitv *v, unsigned n, unsigned flags, const void *ts,
    int clock)
{
	return syscall(SYS_futex_waitv, v, n, flags, ts, clock);
}

static atomic_uint wv_words[3];
static long wv_r;

static void *
waitv_main(void *arg)
{
	struct waitv v[3];
	struct timespec ts = abs_ms(CLOCK_MONOTONIC, 10000);

	(void)arg;
	for (int i = 0; i < 3; i++)
		v[i] = (struct waitv){ 0, (uintptr_t)&wv_words[i],
		    FUTEX_32 | FUTEX_PRIVATE_FLAG, 0 };
	wv_r = waitv(v, 3, 0, &ts, CLOCK_MONOTONIC);
	return NULL;
}

static void
check_waitv(void)
{
	static struct waitv big[FUTEX_WAITV_MAX + 1];
	atomic_uint a = 0, b = 0;
	struct waitv v[2] = {
		{ 0, (uintptr_t)&a, FUTEX_32, 0 },
		{ 0, (uintptr_t)&b, FUTEX_32 | FUTEX_PRIVATE_FLAG, 0 },
	};
	struct timespec ts = abs_ms(CLOCK_MONOTONIC, 20), neg = { -1, 0 };
	pthread_t t;

	errno = 0;
	if (waitv(NULL, 0, 0, NULL, 0) == -1 && errno == ENOSYS) {
		guest_note("futex_waitv: not in this kernel, not checked");
		return;
	}
	CHECK_EQ(pthread_create(&t, NULL, waitv_main, NULL), 0);
	CHECK(until_waiting(&wv_words[1], 1), "futex_waitv did not wait");
	CHECK_EQ(fx(&wv_words[1], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 1);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(wv_r, 1);
	CHECK_EQ(nwaiting(&wv_words[0]) + nwaiting(&wv_words[2]), 0);

	CHECK_ERR(waitv(v, 2, 0, &ts, CLOCK_MONOTONIC), ETIMEDOUT);
	ts = abs_ms(CLOCK_REALTIME, 20);
	CHECK_ERR(waitv(v, 2, 0, &ts, CLOCK_REALTIME), ETIMEDOUT);
	atomic_store(&b, 1);
	CHECK_ERR(waitv(v, 2, 0, &ts, CLOCK_REALTIME), EAGAIN);
	atomic_store(&b, 0);

	CHECK_ERR(waitv(v, 0, 0, &ts, CLOCK_REALTIME), EINVAL);
	CHECK_ERR(waitv(big, FUTEX_WAITV_MAX + 1, 0, &ts, CLOCK_REALTIME),
	    EINVAL);
	CHECK_ERR(waitv(NULL, 1, 0, &ts, CLOCK_REALTIME), EINVAL);
	CHECK_ERR(waitv(v, 2, 1, &ts, CLOCK_REALTIME), EINVAL);
	CHECK_ERR(waitv(v, 2, 0, &ts, CLOCK_BOOTTIME), EINVAL);
	CHECK_ERR(waitv(v, 2, 0, (void *)8, CLOCK_REALTIME), EFAULT);
	CHECK_ERR(waitv(v, 2, 0, &neg, CLOCK_REALTIME), EINVAL);
	CHECK_ERR(waitv((void *)8, 2, 0, &ts, CLOCK_REALTIME), EFAULT);
	v[1].flags = 0;			/* an 8-bit word */
	CHECK_ERR(waitv(v, 2, 0, &ts, CLOCK_REALTIME), EINVAL);
	v[1].flags = FUTEX_32 | 0x100;
	CHECK_ERR(waitv(v, 2, 0, &ts, CLOCK_REALTIME), EINVAL);
	v[1].flags = FUTEX_32;
	v[1].reserved = 1;
	CHECK_ERR(waitv(v, 2, 0, &ts, CLOCK_REALTIME), EINVAL);
	v[1].reserved = 0;
	v[1].val = 1ULL << 32;
	CHECK_ERR(waitv(v, 2, 0, &ts, CLOCK_REALTIME), EINVAL);
	v[1].val = 0;
	v[1].uaddr = (uintptr_t)&b + 1;
	CHECK_ERR(waitv(v, 2, 0, &ts, CLOCK_REALTIME), EINVAL);
	v[1].uaddr = 8;
	CHECK_ERR(waitv(v, 2, 0, &ts, CLOCK_REALTIME), EFAULT);
}

/*
 * A word's address: a private one needs only an address up to
 * TASK_SIZE; a shared one a mapping that can be read and, when private,
 * that has pages of its own (a read-only private anonymous mapping has
 * only the shared zero page): else EFAULT, for the requeue's second word
 * too.
 */
static void
check_fault(void)
{
	int w = 0;
	char *none = mmap(NULL, GUEST_PAGE, PROT_NONE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ro = mmap(NULL, GUEST_PAGE, PROT_READ,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ros = mmap(NULL, GUEST_PAGE, PROT_READ,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *wo = mmap(NULL, GUEST_PAGE, PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(none != MAP_FAILED && ro != MAP_FAILED && ros != MAP_FAILED &&
	    wo != MAP_FAILED, "mmap");
	CHECK_ERR(fx(&w, FUTEX_CMP_REQUEUE, 1, (void *)1L, (void *)8, 0),
	    EFAULT);
	CHECK_ERR(fx(&w, FUTEX_CMP_REQUEUE, 1, (void *)1L, none, 0), EFAULT);
	CHECK_ERR(fx(&w, FUTEX_CMP_REQUEUE, 1, (void *)1L, ro, 0), EFAULT);
	CHECK_ERR(fx(&w, FUTEX_REQUEUE, 1, (void *)1L, (void *)8, 0), EFAULT);
	CHECK_ERR(fx((void *)8, FUTEX_REQUEUE, 1, (void *)1L, &w, 0), EFAULT);
	/* The fault comes before the comparison. */
	CHECK_ERR(fx(&w, FUTEX_CMP_REQUEUE, 1, (void *)1L, (void *)8, 5),
	    EFAULT);
	CHECK_EQ(fx(&w, FUTEX_CMP_REQUEUE, 1, (void *)1L, ros, 0), 0);
	CHECK_EQ(fx(&w, FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG, 1,
	    (void *)1L, (void *)8, 0), 0);
	CHECK_EQ(fx(&w, FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG, 1,
	    (void *)1L, none, 0), 0);
	CHECK_ERR(fx((void *)8, FUTEX_WAKE, 1, NULL, NULL, 0), EFAULT);
	CHECK_ERR(fx(none, FUTEX_WAKE, 1, NULL, NULL, 0), EFAULT);
	CHECK_ERR(fx(ro, FUTEX_WAKE, 1, NULL, NULL, 0), EFAULT);
	CHECK_ERR(fx(ro, FUTEX_WAIT, 1, NULL, NULL, 0), EFAULT);
	CHECK_EQ(fx(wo, FUTEX_WAKE, 1, NULL, NULL, 0), 0);
	CHECK_EQ(fx(ros, FUTEX_WAKE, 1, NULL, NULL, 0), 0);
	CHECK_EQ(fx((void *)8, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0);
	CHECK_EQ(fx((void *)0x7ffffffff000, FUTEX_WAKE_PRIVATE, 1, NULL,
	    NULL, 0), 0);
	CHECK_ERR(fx((void *)0x7ffffffff004, FUTEX_WAKE_PRIVATE, 1, NULL,
	    NULL, 0), EFAULT);
	CHECK_ERR(fx((void *)0xffff800000000000, FUTEX_WAKE_PRIVATE, 1, NULL,
	    NULL, 0), EFAULT);
	munmap(none, GUEST_PAGE);
	munmap(ro, GUEST_PAGE);
	munmap(ros, GUEST_PAGE);
	munmap(wo, GUEST_PAGE);
}

int
main(void)
{
	check_fault();
	check_wake_op();
	check_pi_raw();
	check_requeue_pi();
	check_requeue_pi_signal();
	check_pi_mutex();
	check_robust_pi();
	check_waitv();
	return guest_done();
}
