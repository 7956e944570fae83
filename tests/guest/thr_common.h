/*
 * Helpers shared by the thread guest programs, on top of guest.h: the
 * futex operations (musl's headers have no linux/futex.h; the values are
 * Linux's UAPI ones), a raw gettid and a futex wait with a timeout.
 */
#ifndef THR_COMMON_H
#define THR_COMMON_H

#include <stdint.h>

#include "guest.h"

#define FUTEX_WAIT		0
#define FUTEX_WAKE		1
#define FUTEX_REQUEUE		3
#define FUTEX_CMP_REQUEUE	4
#define FUTEX_WAKE_OP		5
#define FUTEX_LOCK_PI		6
#define FUTEX_UNLOCK_PI		7
#define FUTEX_TRYLOCK_PI	8
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAKE_BITSET	10
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_CMP_REQUEUE_PI	12
#define FUTEX_LOCK_PI2		13
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_WAIT_PRIVATE	(FUTEX_WAIT | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_PRIVATE	(FUTEX_WAKE | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAIT_BITSET_PRIVATE (FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAITERS		0x80000000u
#define FUTEX_OWNER_DIED	0x40000000u
#define FUTEX_TID_MASK		0x3fffffffu

static inline pid_t
gettid_raw(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static inline long
futex_wait(void *word, uint32_t val, long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	return syscall(SYS_futex, word, FUTEX_WAIT, val, &ts, NULL, 0);
}

static inline long
futex_wake(void *word, int n)
{
	return syscall(SYS_futex, word, FUTEX_WAKE, n, NULL, NULL, 0);
}

#endif
