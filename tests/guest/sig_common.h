/*
 * Helpers shared by the signal-handler guest programs (sig_handler.c,
 * sig_pending.c), on top of guest.h:
 *
 *  - BIT(sig), a signal's bit in a 64-bit mask;
 *  - cur_mask(), pending() and set_mask(), the thread's signal mask and
 *    pending set through the raw system calls;
 *  - on_plain(), a handler that counts each signal in hits[], keeps the
 *    mask it ran with in mask_in[] and appends the signal to order[].
 *
 * As in guest.h everything is static and the functions are inline, so that
 * a program need not use them all.
 */
#ifndef SIG_COMMON_H
#define SIG_COMMON_H

#include <signal.h>
#include <stdint.h>

#include "guest.h"

#define BIT(sig)	((uint64_t)1 << ((sig) - 1))

static volatile int hits[65];
static volatile uint64_t mask_in[65];
static volatile int order[16];
static volatile int norder;

static inline uint64_t
cur_mask(void)
{
	uint64_t m = ~0ULL;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, 8);
	return m;
}

static inline uint64_t
pending(void)
{
	uint64_t m = ~0ULL;

	syscall(SYS_rt_sigpending, &m, 8);
	return m;
}

static inline void
set_mask(int how, uint64_t m)
{
	CHECK_OK(syscall(SYS_rt_sigprocmask, how, &m, NULL, 8));
}

static inline void
push(int v)
{
	if (norder < 16)
		order[norder++] = v;
}

static inline void
on_plain(int sig)
{
	hits[sig]++;
	mask_in[sig] = cur_mask();
	push(sig);
}

#endif
