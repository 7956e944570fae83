/*
 * adjtimex and clock_adjtime: the guest reads the state of the wall
 * clock's discipline, but the clock is the host's, which a sandbox never
 * steers, so every change is refused as in a user namespace (EPERM).  The
 * state read is that of a clock no NTP daemon disciplines: unsynchronised
 * (TIME_ERROR, STA_UNSYNC), as Linux reports it on such a host.
 *
 * The C library's struct timex is the one <linux/timex.h> declares for
 * x86-64 (which cannot be included beside <sys/types.h>), as
 * adjtimex(2) documents it; so are the ADJ_, STA_ and TIME_ constants.
 */
#include <errno.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"

/* Linux's own split of the user's ADJ_OFFSET_SS_READ (kernel-internal). */
#define ADJ_ADJTIME_          0x8000
#define ADJ_OFFSET_ONESHOT_   0x0001
#define ADJ_OFFSET_READONLY_  0x2000

#define ADJ_MAXERROR_US   16000000    /* NTP_PHASE_LIMIT, unsynchronised */
#define ADJ_TOLERANCE     (500L << 16)  /* MAXFREQ: 500 ppm, scaled */
#define ADJ_TICK_US       10000       /* 1 s / USER_HZ */

_Static_assert(sizeof(struct timex) == 208, "Linux's x86-64 struct timex");

static long
kern_adjtimex(struct thread *td, uaddr_t utx)
{
	struct timex tx;
	int64_t now;
	unsigned modes;
	int r;

	if ((r = copyin(td, utx, &tx, sizeof(tx))) < 0)
		return r;
	modes = tx.modes;
	if (modes & ADJ_ADJTIME_) {
		if (!(modes & ADJ_OFFSET_ONESHOT_))
			return -EINVAL;
		if (!(modes & ADJ_OFFSET_READONLY_))
			return -EPERM;
	} else if (modes != 0) {
		return -EPERM;
	}
	now = plat_clock_ns(CLOCK_REALTIME);
	memset(&tx, 0, sizeof(tx));
	tx.modes = modes;
	tx.maxerror = tx.esterror = ADJ_MAXERROR_US;
	tx.status = STA_UNSYNC;
	tx.constant = 2;
	tx.precision = 1;
	tx.tolerance = ADJ_TOLERANCE;
	tx.time.tv_sec = now / 1000000000;
	tx.time.tv_usec = now % 1000000000 / 1000;
	tx.tick = ADJ_TICK_US;
	if ((r = copyout(td, &tx, utx, sizeof(tx))) < 0)
		return r;
	return TIME_ERROR;
}

long
sys_adjtimex(struct thread *td, const struct sys_adjtimex_args *a)
{
	return kern_adjtimex(td, a->buf);
}

/* Only the wall clock has a discipline; the others cannot be adjusted. */
long
sys_clock_adjtime(struct thread *td, const struct sys_clock_adjtime_args *a)
{
	switch (a->clk) {
	case CLOCK_REALTIME:
		return kern_adjtimex(td, a->tx);
	case CLOCK_MONOTONIC: case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME_COARSE: case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME: case CLOCK_TAI:
		return -EOPNOTSUPP;
	}
	return -EINVAL;
}
