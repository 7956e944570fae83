/*
 * Clock ids, timer ids, itimer-like values and timer flags at the edges
 * of their types, as raw syscalls with 64-bit register values.  A clock
 * id is an int: negative ids encode a CPU clock of a pid or tid
 * (~pid << 3 | type), type 3 and unknown pids are EINVAL; a timer id is
 * an int whose register's high bits are ignored.
 */
#include <sys/syscall.h>
#include <sys/timerfd.h>

#include <limits.h>

#include "int_common.h"

#define HI (1L << 32)
/* glibc before 2.35 names the SIGEV_THREAD_ID target only in a union. */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif
/* The largest pid a clock id can name: above pid_max, so no process. */
#define NOPID ((1L << 28) - 1)

/* Linux's CPU clock ids: ~pid << 3 | thread bit (4) | type. */
static long
cpu_clock(long pid, int type)
{
	return (long)(int)((unsigned)~pid << 3 | (unsigned)type);
}

static void
check_clocks(void)
{
	static const long bad[] = {
		INT_MAX, 16, 12, -1, INT_MIN, UINT_MAX, 1L << 31, HI | 16,
	};
	long pid = syscall(SYS_getpid), tid = syscall(SYS_gettid);
	struct timespec ts = { 0, 0 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_ERR(syscall(SYS_clock_gettime, bad[i], &ts), EINVAL);
		CHECK_ERR(syscall(SYS_clock_getres, bad[i], &ts), EINVAL);
		CHECK_ERR(syscall(SYS_clock_settime, bad[i], &ts), EINVAL);
		CHECK_ERR(syscall(SYS_clock_nanosleep, bad[i], 0, &ts, NULL),
		    EINVAL);
	}
	CHECK_EQ(syscall(SYS_clock_gettime, HI | CLOCK_MONOTONIC, &ts), 0);
	CHECK_EQ(syscall(SYS_clock_getres, HI | CLOCK_REALTIME, &ts), 0);
	/* The process and thread CPU clocks, by pid and by 0 (the caller). */
	CHECK_EQ(syscall(SYS_clock_gettime, cpu_clock(0, 2), &ts), 0);
	CHECK_EQ(syscall(SYS_clock_gettime, cpu_clock(pid, 2), &ts), 0);
	CHECK_EQ(syscall(SYS_clock_gettime, cpu_clock(pid, 0), &ts), 0);
	CHECK_EQ(syscall(SYS_clock_gettime, cpu_clock(tid, 6), &ts), 0);
	CHECK_EQ(syscall(SYS_clock_gettime, HI | cpu_clock(0, 6), &ts), 0);
	CHECK_ERR(syscall(SYS_clock_gettime, cpu_clock(pid, 3), &ts), EINVAL);
	CHECK_ERR(syscall(SYS_clock_gettime, cpu_clock(NOPID, 2), &ts),
	    EINVAL);
	CHECK_ERR(syscall(SYS_clock_gettime, cpu_clock(NOPID, 6), &ts),
	    EINVAL);
	CHECK_ERR(syscall(SYS_clock_getres, cpu_clock(NOPID, 2), &ts),
	    EINVAL);
	CHECK_ERR(syscall(SYS_clock_settime, CLOCK_MONOTONIC, &ts), EINVAL);
	/* A CPU clock cannot be set: EPERM once its id is found valid. */
	CHECK_ERR(syscall(SYS_clock_settime, cpu_clock(0, 2), &ts), EPERM);
	CHECK_ERR(syscall(SYS_clock_settime, cpu_clock(NOPID, 2), &ts),
	    EINVAL);
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_THREAD_CPUTIME_ID, 0,
	    &ts, NULL), EOPNOTSUPP);
	CHECK_ERR(syscall(SYS_clock_nanosleep, cpu_clock(0, 6), 0, &ts, NULL),
	    EINVAL);
	/* Flags other than TIMER_ABSTIME are ignored. */
	CHECK_EQ(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, HI | 2, &ts,
	    NULL), 0);
	CHECK_EQ(syscall(SYS_clock_nanosleep, HI | CLOCK_MONOTONIC, 0, &ts,
	    NULL), 0);
	ts.tv_nsec = 1000000000;
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL),
	    EINVAL);
	CHECK_ERR(syscall(SYS_nanosleep, &ts, NULL), EINVAL);
	ts.tv_nsec = -1;
	CHECK_ERR(syscall(SYS_nanosleep, &ts, NULL), EINVAL);
	ts = (struct timespec){ -1, 0 };
	CHECK_ERR(syscall(SYS_nanosleep, &ts, NULL), EINVAL);
	ts = (struct timespec){ LONG_MIN, 0 };
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME,
	    &ts, NULL), EINVAL);
}

static void
check_timers(void)
{
	static const long bad_ids[] = { -1, INT_MAX, INT_MIN, 1L << 31 };
	struct sigevent sev;
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	int id = -1, id2;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_NONE;
	CHECK_ERR(syscall(SYS_timer_create, INT_MAX, &sev, &id2), EINVAL);
	CHECK_ERR(syscall(SYS_timer_create, -1L, &sev, &id2), EINVAL);
	CHECK_ERR(syscall(SYS_timer_create, INT_MIN, &sev, &id2), EINVAL);
	CHECK_ERR(syscall(SYS_timer_create, cpu_clock(NOPID, 2), &sev,
	    &id2), EINVAL);
	if (CHECK_OK(syscall(SYS_timer_create, cpu_clock(0, 2), &sev, &id2))
	    == 0)
		CHECK_EQ(syscall(SYS_timer_delete, id2), 0);
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = 65;
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &id2),
	    EINVAL);
	sev.sigev_signo = INT_MIN;
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &id2),
	    EINVAL);
	sev.sigev_signo = SIGUSR1;
	sev.sigev_notify = INT_MAX;
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &id2),
	    EINVAL);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_notify_thread_id = INT_MIN;
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &id2),
	    EINVAL);
	sev.sigev_notify = SIGEV_NONE;
	if (CHECK_OK(syscall(SYS_timer_create, HI | CLOCK_MONOTONIC, &sev,
	    &id)) != 0)
		return;
	for (size_t i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++) {
		CHECK_ERR(syscall(SYS_timer_gettime, bad_ids[i], &its), EINVAL);
		CHECK_ERR(syscall(SYS_timer_settime, bad_ids[i], 0, &its, NULL),
		    EINVAL);
		CHECK_ERR(syscall(SYS_timer_getoverrun, bad_ids[i]), EINVAL);
		CHECK_ERR(syscall(SYS_timer_delete, bad_ids[i]), EINVAL);
	}
	CHECK_EQ(syscall(SYS_timer_gettime, HI | id, &its), 0);
	CHECK_EQ(syscall(SYS_timer_getoverrun, HI | id), 0);
	CHECK_EQ(syscall(SYS_timer_settime, HI | id, HI, &its, NULL), 0);
	its.it_value.tv_nsec = 1000000000;
	CHECK_ERR(syscall(SYS_timer_settime, id, 0, &its, NULL), EINVAL);
	its.it_value = (struct timespec){ -1, 0 };
	CHECK_ERR(syscall(SYS_timer_settime, id, 0, &its, NULL), EINVAL);
	its.it_value = (struct timespec){ LONG_MAX, 999999999 };
	CHECK_EQ(syscall(SYS_timer_settime, id, 0, &its, NULL), 0);
	its.it_value = (struct timespec){ LONG_MAX, 0 };
	CHECK_EQ(syscall(SYS_timer_settime, id, TIMER_ABSTIME, &its, NULL), 0);
	CHECK_EQ(syscall(SYS_timer_delete, HI | id), 0);
	CHECK_ERR(syscall(SYS_timer_delete, id), EINVAL);
}

static void
check_timerfd(void)
{
	struct itimerspec its = { { 0, 0 }, { LONG_MAX, 0 } };
	long fd;

	CHECK_ERR(syscall(SYS_timerfd_create, INT_MAX, 0), EINVAL);
	CHECK_ERR(syscall(SYS_timerfd_create, -1L, 0), EINVAL);
	CHECK_ERR(syscall(SYS_timerfd_create, cpu_clock(0, 2), 0), EINVAL);
	CHECK_ERR(syscall(SYS_timerfd_create, CLOCK_MONOTONIC, INT_MAX),
	    EINVAL);
	fd = CHECK_OK(syscall(SYS_timerfd_create, HI | CLOCK_MONOTONIC, HI));
	if (fd < 0)
		return;
	CHECK_ERR(syscall(SYS_timerfd_settime, fd, INT_MAX, &its, NULL),
	    EINVAL);
	CHECK_EQ(syscall(SYS_timerfd_settime, fd, HI, &its, NULL), 0);
	CHECK_EQ(syscall(SYS_timerfd_settime, fd, TFD_TIMER_ABSTIME, &its,
	    NULL), 0);
	its.it_interval.tv_sec = LONG_MAX;
	its.it_value = (struct timespec){ 0, 1 };
	CHECK_EQ(syscall(SYS_timerfd_settime, fd, 0, &its, NULL), 0);
	its.it_value.tv_nsec = -1;
	CHECK_ERR(syscall(SYS_timerfd_settime, fd, 0, &its, NULL), EINVAL);
	close((int)fd);
}

int
main(int argc, char **argv)
{
	int r;

	if ((r = int_drop_if_asked(argc, argv)) != 0)
		return r;
	check_clocks();
	check_timers();
	check_timerfd();
	return guest_done();
}
