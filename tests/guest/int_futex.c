/*
 * Futex operations, counts, bitsets and val3 encodings at the edges of
 * their types, as raw syscalls with 64-bit register values: val, val2
 * (in the timeout register) and val3 are 32-bit, a negative wake or
 * requeue count is EINVAL for a requeue, a zero bitset EINVAL, an
 * unknown operation ENOSYS, and FUTEX_WAKE_OP's shift takes only 0..31.
 */
#include <limits.h>

#include "int_common.h"
#include "thr_common.h"

#define HI (1L << 32)

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif

/* FUTEX_WAKE_OP's val3: op, cmp, oparg and cmparg (12 bits each). */
#define WAKE_OP(op, cmp, oparg, cmparg)					\
	((long)((unsigned)(op) << 28 | (unsigned)(cmp) << 24 |		\
	((unsigned)(oparg) & 0xfff) << 12 | ((unsigned)(cmparg) & 0xfff)))
#define OP_SET		0
#define OP_ADD		1
#define OP_ARG_SHIFT	8
#define CMP_EQ		0

static uint32_t word, word2;

static long
futex(uint32_t *uaddr, long op, long val, long val2, uint32_t *uaddr2,
    long val3)
{
	return syscall(SYS_futex, uaddr, op, val, val2, uaddr2, val3);
}

static void
check_ops(void)
{
	uint32_t *odd = (uint32_t *)((char *)&word + 1);

	CHECK_ERR(futex(&word, INT_MAX, 0, 0, NULL, 0), ENOSYS);
	CHECK_ERR(futex(&word, -1L, 0, 0, NULL, 0), ENOSYS);
	CHECK_ERR(futex(&word, INT_MIN, 0, 0, NULL, 0), ENOSYS);
	CHECK_ERR(futex(&word, 14, 0, 0, NULL, 0), ENOSYS);
	CHECK_ERR(futex(&word, FUTEX_WAKE | FUTEX_CLOCK_REALTIME, 1, 0, NULL,
	    0), ENOSYS);
	CHECK_EQ(futex(&word, HI | FUTEX_WAKE, 1, 0, NULL, 0), 0);
	CHECK_ERR(futex(odd, FUTEX_WAKE, 1, 0, NULL, 0), EINVAL);
}

static void
check_counts(void)
{
	static const long counts[] = {
		INT_MAX, INT_MIN, -1, UINT_MAX, 1L << 31, HI, HI | 1, 0,
	};

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		CHECK_EQ(futex(&word, FUTEX_WAKE, counts[i], 0, NULL, 0), 0);
		CHECK_EQ(futex(&word, FUTEX_WAKE_PRIVATE, counts[i], 0, NULL,
		    0), 0);
	}
	/* Requeue: a count below 0 (as int) is EINVAL. */
	CHECK_ERR(futex(&word, FUTEX_REQUEUE, -1L, 1, &word2, 0), EINVAL);
	CHECK_ERR(futex(&word, FUTEX_REQUEUE, 1, -1L, &word2, 0), EINVAL);
	CHECK_ERR(futex(&word, FUTEX_REQUEUE, INT_MIN, 1, &word2, 0), EINVAL);
	CHECK_ERR(futex(&word, FUTEX_REQUEUE, 1, INT_MIN, &word2, 0), EINVAL);
	CHECK_ERR(futex(&word, FUTEX_REQUEUE, 1, UINT_MAX, &word2, 0), EINVAL);
	CHECK_EQ(futex(&word, FUTEX_REQUEUE, INT_MAX, INT_MAX, &word2, 0), 0);
	CHECK_EQ(futex(&word, FUTEX_REQUEUE, HI | 1, HI | 1, &word2, 0), 0);
	CHECK_EQ(futex(&word, FUTEX_REQUEUE, 1, HI, &word2, 0), 0);
	word = 5;
	CHECK_ERR(futex(&word, FUTEX_CMP_REQUEUE, 1, 1, &word2, 6), EAGAIN);
	CHECK_EQ(futex(&word, FUTEX_CMP_REQUEUE, 1, 1, &word2, HI | 5), 0);
	CHECK_ERR(futex(&word, FUTEX_CMP_REQUEUE, 1, -1L, &word2, 5), EINVAL);
	/* A wait whose value differs: the value is 32 bits. */
	CHECK_ERR(futex(&word, FUTEX_WAIT, 6, 0, NULL, 0), EAGAIN);
	CHECK_ERR(futex(&word, FUTEX_WAIT, HI | 6, 0, NULL, 0), EAGAIN);
	CHECK_ERR(futex(&word, FUTEX_WAIT_BITSET, 5, 0, NULL, 0), EINVAL);
	CHECK_ERR(futex(&word, FUTEX_WAIT_BITSET, 5, 0, NULL, HI), EINVAL);
	CHECK_ERR(futex(&word, FUTEX_WAKE_BITSET, 1, 0, NULL, 0), EINVAL);
	CHECK_ERR(futex(&word, FUTEX_WAKE_BITSET, 1, 0, NULL, HI), EINVAL);
	CHECK_EQ(futex(&word, FUTEX_WAKE_BITSET, INT_MAX, 0, NULL, HI | 1), 0);
	CHECK_EQ(futex(&word, FUTEX_WAKE_BITSET, -1L, 0, NULL, UINT_MAX), 0);
}

static void
check_wake_op(void)
{
	struct {
		long val3;
		uint32_t before, after;
	} cases[] = {
		{ WAKE_OP(OP_SET | OP_ARG_SHIFT, CMP_EQ, 31, 0), 0,
		    0x80000000u },
		{ WAKE_OP(OP_SET | OP_ARG_SHIFT, CMP_EQ, 0, 0), 0, 1 },
		/* A shift out of 0..31 is taken modulo 32. */
		{ WAKE_OP(OP_SET | OP_ARG_SHIFT, CMP_EQ, -1, 0), 0,
		    0x80000000u },
		{ WAKE_OP(OP_SET | OP_ARG_SHIFT, CMP_EQ, 32, 0), 0, 1 },
		{ WAKE_OP(OP_SET | OP_ARG_SHIFT, CMP_EQ, 2047, 0), 0,
		    0x80000000u },
		{ WAKE_OP(OP_ADD, CMP_EQ, 1, 0), 0x7fffffffu, 0x80000000u },
		{ WAKE_OP(OP_ADD, CMP_EQ, -2048, 0), 0x80000000u,
		    0x7ffff800u },
		{ WAKE_OP(OP_ADD, CMP_EQ, 1, 0) | HI, 0xffffffffu, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		word2 = cases[i].before;
		CHECK_EQ(futex(&word, FUTEX_WAKE_OP, 1, 1, &word2,
		    cases[i].val3), 0);
		CHECK_EQ(word2, cases[i].after);
	}
	CHECK_ERR(futex(&word, FUTEX_WAKE_OP, 1, 1, &word2,
	    WAKE_OP(7, CMP_EQ, 0, 0)), ENOSYS);
	CHECK_ERR(futex(&word, FUTEX_WAKE_OP, 1, 1, &word2,
	    WAKE_OP(OP_SET, 7, 0, 0)), ENOSYS);
	CHECK_EQ(futex(&word, FUTEX_WAKE_OP, INT_MAX, INT_MIN, &word2,
	    WAKE_OP(OP_SET, CMP_EQ, 0, 0)), 0);
}

static void
check_timeouts(void)
{
	struct timespec bad = { 0, 1000000000 }, neg = { -1, 0 };
	struct timespec big = { LONG_MAX, 999999999 };

	word = 5;
	CHECK_ERR(futex(&word, FUTEX_WAIT, 5, (long)&bad, NULL, 0), EINVAL);
	CHECK_ERR(futex(&word, FUTEX_WAIT, 5, (long)&neg, NULL, 0), EINVAL);
	CHECK_ERR(futex(&word, FUTEX_WAIT, 6, (long)&big, NULL, 0), EAGAIN);
	/* An absolute time long past times out at once. */
	neg.tv_sec = 0;
	CHECK_ERR(futex(&word, FUTEX_WAIT_BITSET, 5, (long)&neg, NULL,
	    UINT_MAX), ETIMEDOUT);
}

static void
check_waitv_robust(void)
{
	struct {
		uint64_t val, uaddr;
		uint32_t flags, reserved;
	} w = { 5, (uint64_t)(uintptr_t)&word, 2 | 128, 0 };
	struct timespec ts = { 0, 0 };

	word = 6;
	CHECK_ERR(syscall(SYS_futex_waitv, &w, 0, 0, NULL, CLOCK_MONOTONIC),
	    EINVAL);
	CHECK_ERR(syscall(SYS_futex_waitv, &w, 129, 0, NULL, CLOCK_MONOTONIC),
	    EINVAL);
	CHECK_ERR(syscall(SYS_futex_waitv, &w, UINT_MAX, 0, NULL,
	    CLOCK_MONOTONIC), EINVAL);
	CHECK_ERR(syscall(SYS_futex_waitv, &w, 1, INT_MAX, NULL,
	    CLOCK_MONOTONIC), EINVAL);
	CHECK_ERR(syscall(SYS_futex_waitv, &w, 1, 0, &ts, INT_MAX), EINVAL);
	CHECK_ERR(syscall(SYS_futex_waitv, &w, 1, 0, &ts, -1L), EINVAL);
	CHECK_ERR(syscall(SYS_futex_waitv, &w, HI | 1, HI, &ts,
	    HI | CLOCK_MONOTONIC), EAGAIN);
	CHECK_ERR(syscall(SYS_set_robust_list, NULL, 0), EINVAL);
	CHECK_ERR(syscall(SYS_set_robust_list, NULL, HI | 24), EINVAL);
	CHECK_ERR(syscall(SYS_set_robust_list, NULL, -1L), EINVAL);
}

int
main(int argc, char **argv)
{
	int r;

	if ((r = int_drop_if_asked(argc, argv)) != 0)
		return r;
	check_ops();
	check_counts();
	check_wake_op();
	check_timeouts();
	check_waitv_robust();
	return guest_done();
}
