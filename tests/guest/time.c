/*
 * Verifies the clocks and sleeps: every clock id answers with a normalized
 * timespec, CLOCK_MONOTONIC never goes back, the realtime views
 * (clock_gettime, gettimeofday, time) agree, resolutions are sane, relative
 * and absolute sleeps last at least as long as asked and not absurdly
 * longer, and invalid clocks or timespecs give EINVAL.  adjtimex and
 * clock_adjtime read the wall clock's state; a user without privilege is
 * refused any change (so that nothing here steers the host's clock).
 *
 * All calls are raw syscalls: the libc would answer clock_gettime,
 * gettimeofday and time from the vDSO, and what is under test is the kernel.
 */
#include <stdint.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>

#include "guest.h"

#define NSEC	1000000000LL

#ifndef CLOCK_BOOTTIME
#define CLOCK_BOOTTIME	7
#endif
#ifndef TIMER_ABSTIME
#define TIMER_ABSTIME	1
#endif

static int64_t
ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NSEC + ts->tv_nsec;
}

static int64_t
now_ns(clockid_t clk)
{
	struct timespec ts;

	if (syscall(SYS_clock_gettime, clk, &ts) != 0)
		return -1;
	return ts_ns(&ts);
}

static bool
ts_valid(const struct timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < NSEC;
}

static void
test_clock_ids(void)
{
	static const struct {
		clockid_t	 id;
		const char	*name;
	} clocks[] = {
		{ CLOCK_REALTIME, "CLOCK_REALTIME" },
		{ CLOCK_MONOTONIC, "CLOCK_MONOTONIC" },
		{ CLOCK_PROCESS_CPUTIME_ID, "CLOCK_PROCESS_CPUTIME_ID" },
		{ CLOCK_THREAD_CPUTIME_ID, "CLOCK_THREAD_CPUTIME_ID" },
		{ CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW" },
		{ CLOCK_REALTIME_COARSE, "CLOCK_REALTIME_COARSE" },
		{ CLOCK_MONOTONIC_COARSE, "CLOCK_MONOTONIC_COARSE" },
		{ CLOCK_BOOTTIME, "CLOCK_BOOTTIME" },
	};
	struct timespec ts, res;

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		ts.tv_sec = -1;
		ts.tv_nsec = -1;
		if (CHECK(syscall(SYS_clock_gettime, clocks[i].id, &ts) == 0,
		    "clock_gettime %s", clocks[i].name))
			CHECK(ts_valid(&ts), "%s gives %lld.%ld",
			    clocks[i].name, (long long)ts.tv_sec, ts.tv_nsec);
		res.tv_sec = -1;
		res.tv_nsec = -1;
		if (CHECK(syscall(SYS_clock_getres, clocks[i].id, &res) == 0,
		    "clock_getres %s", clocks[i].name))
			/* 1 ns to 100 ms (coarse clocks tick at HZ). */
			CHECK(res.tv_sec == 0 && res.tv_nsec >= 1 &&
			    res.tv_nsec <= 100000000,
			    "%s resolution %lld.%09ld", clocks[i].name,
			    (long long)res.tv_sec, res.tv_nsec);
	}
	/* A NULL result pointer is allowed for clock_getres. */
	CHECK_EQ(syscall(SYS_clock_getres, CLOCK_MONOTONIC, NULL), 0);

	CHECK_ERR(syscall(SYS_clock_gettime, 100, &ts), EINVAL);
	CHECK_ERR(syscall(SYS_clock_gettime, 12, &ts), EINVAL);
	CHECK_ERR(syscall(SYS_clock_getres, 100, &res), EINVAL);
}

static void
test_monotonic(void)
{
	int64_t prev, t, first;
	int backwards = 0;

	first = prev = now_ns(CLOCK_MONOTONIC);
	CHECK(first > 0, "CLOCK_MONOTONIC %lld", (long long)first);
	for (int i = 0; i < 2000; i++) {
		t = now_ns(CLOCK_MONOTONIC);
		if (t < prev)
			backwards++;
		prev = t;
	}
	CHECK(backwards == 0, "CLOCK_MONOTONIC went back %d times", backwards);
	/* 2000 calls take well under 10 s, even when every one is trapped. */
	CHECK(prev - first < 10 * NSEC, "2000 calls took %lld ns",
	    (long long)(prev - first));
	/* BOOTTIME also counts suspend, so it is never behind MONOTONIC. */
	t = now_ns(CLOCK_MONOTONIC);
	CHECK(now_ns(CLOCK_BOOTTIME) >= t, "BOOTTIME >= MONOTONIC");
}

static void
test_realtime_agrees(void)
{
	struct timeval tv;
	struct timezone tz;
	int64_t rt, coarse, fine;
	long t0, t1;

	t0 = syscall(SYS_time, NULL);
	rt = now_ns(CLOCK_REALTIME);
	CHECK_OK(syscall(SYS_gettimeofday, &tv, NULL));
	t1 = syscall(SYS_time, &t1);

	/* After 2020-01-01: a clock at 0 means nobody set it up. */
	CHECK(t0 > 1577836800, "time() = %ld", t0);
	CHECK(t1 >= t0, "time() went back: %ld then %ld", t0, t1);
	CHECK(rt / NSEC >= t0 - 1 && rt / NSEC <= t1 + 1,
	    "CLOCK_REALTIME %lld s vs time() %ld..%ld", (long long)(rt / NSEC),
	    t0, t1);
	CHECK(tv.tv_usec >= 0 && tv.tv_usec < 1000000, "tv_usec %ld",
	    (long)tv.tv_usec);
	CHECK(tv.tv_sec >= t0 - 1 && tv.tv_sec <= t1 + 1,
	    "gettimeofday %ld vs time() %ld..%ld", (long)tv.tv_sec, t0, t1);

	/* Both pointers NULL is allowed; the timezone alone too. */
	CHECK_EQ(syscall(SYS_gettimeofday, NULL, NULL), 0);
	CHECK_EQ(syscall(SYS_gettimeofday, NULL, &tz), 0);

	/* The coarse clock lags the fine one by at most a few ticks. */
	coarse = now_ns(CLOCK_REALTIME_COARSE);
	fine = now_ns(CLOCK_REALTIME);

	CHECK(coarse <= fine + NSEC / 100 && fine - coarse < NSEC,
	    "REALTIME_COARSE %lld vs REALTIME %lld", (long long)coarse,
	    (long long)fine);
}

/* Burning CPU advances the process CPU clock, and not beyond wall time. */
static void
test_cpu_clock(void)
{
	int64_t c0, c1, m0, m1;
	volatile uint64_t x = 1;

	c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	m0 = now_ns(CLOCK_MONOTONIC);
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1;
		c1 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	} while (c1 - c0 < 20000000 && now_ns(CLOCK_MONOTONIC) - m0 < 5 * NSEC);
	m1 = now_ns(CLOCK_MONOTONIC);
	CHECK(c1 - c0 >= 20000000, "CPU clock advanced %lld ns in %lld ns",
	    (long long)(c1 - c0), (long long)(m1 - m0));
	/* Single-threaded: CPU time cannot outrun wall time (plus a tick). */
	CHECK(c1 - c0 <= m1 - m0 + 10000000, "CPU %lld ns > wall %lld ns",
	    (long long)(c1 - c0), (long long)(m1 - m0));
}

static void
test_nanosleep(void)
{
	struct timespec req, rem;
	int64_t t0, t1;

	req.tv_sec = 0;
	req.tv_nsec = 20000000;
	rem.tv_sec = 77;
	t0 = now_ns(CLOCK_MONOTONIC);
	CHECK_EQ(syscall(SYS_nanosleep, &req, &rem), 0);
	t1 = now_ns(CLOCK_MONOTONIC);
	CHECK(t1 - t0 >= 20000000, "nanosleep 20 ms slept %lld ns",
	    (long long)(t1 - t0));
	CHECK(t1 - t0 < 2 * NSEC, "nanosleep 20 ms slept %lld ns",
	    (long long)(t1 - t0));
	/* The remainder is written only when a signal ends the sleep early. */
	CHECK_EQ(rem.tv_sec, 77);

	req.tv_nsec = 0;
	CHECK_EQ(syscall(SYS_nanosleep, &req, NULL), 0);

	req.tv_sec = 0;
	req.tv_nsec = NSEC;
	CHECK_ERR(syscall(SYS_nanosleep, &req, NULL), EINVAL);
	req.tv_nsec = -1;
	CHECK_ERR(syscall(SYS_nanosleep, &req, NULL), EINVAL);
	req.tv_sec = -1;
	req.tv_nsec = 0;
	CHECK_ERR(syscall(SYS_nanosleep, &req, NULL), EINVAL);
}

static void
test_clock_nanosleep(void)
{
	struct timespec req;
	int64_t t0, t1, target;

	/* Relative, on CLOCK_MONOTONIC. */
	req.tv_sec = 0;
	req.tv_nsec = 20000000;
	t0 = now_ns(CLOCK_MONOTONIC);
	CHECK_EQ(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &req, NULL),
	    0);
	t1 = now_ns(CLOCK_MONOTONIC);
	CHECK(t1 - t0 >= 20000000 && t1 - t0 < 2 * NSEC,
	    "relative clock_nanosleep 20 ms slept %lld ns",
	    (long long)(t1 - t0));

	/* Absolute: wakes at or after the target, not 20 ms after the call. */
	target = now_ns(CLOCK_MONOTONIC) + 30000000;
	req.tv_sec = target / NSEC;
	req.tv_nsec = target % NSEC;
	CHECK_EQ(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME,
	    &req, NULL), 0);
	t1 = now_ns(CLOCK_MONOTONIC);
	CHECK(t1 >= target, "TIMER_ABSTIME woke %lld ns early",
	    (long long)(target - t1));
	CHECK(t1 - target < 2 * NSEC, "TIMER_ABSTIME woke %lld ns late",
	    (long long)(t1 - target));

	/* An absolute time in the past returns at once. */
	req.tv_sec = 1;
	req.tv_nsec = 0;
	t0 = now_ns(CLOCK_MONOTONIC);
	CHECK_EQ(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME,
	    &req, NULL), 0);
	CHECK(now_ns(CLOCK_MONOTONIC) - t0 < NSEC, "past deadline returns");

	/* Absolute on CLOCK_REALTIME, 10 ms from now. */
	target = now_ns(CLOCK_REALTIME) + 10000000;
	req.tv_sec = target / NSEC;
	req.tv_nsec = target % NSEC;
	CHECK_EQ(syscall(SYS_clock_nanosleep, CLOCK_REALTIME, TIMER_ABSTIME,
	    &req, NULL), 0);
	CHECK(now_ns(CLOCK_REALTIME) >= target, "REALTIME TIMER_ABSTIME");

	req.tv_sec = 0;
	req.tv_nsec = NSEC;
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &req, NULL),
	    EINVAL);
	req.tv_nsec = 1000;
	CHECK_ERR(syscall(SYS_clock_nanosleep, 100, 0, &req, NULL), EINVAL);
	/*
	 * Not CLOCK_THREAD_CPUTIME_ID: Linux answered EINVAL for years and
	 * EOPNOTSUPP now, and either is defensible.
	 */
}

/* Only reads, and changes tried as uid 65534, which Linux refuses. */
static void
test_adjtimex(void)
{
	struct timex tx = { .modes = 0 };
	struct timeval now;
	int status = -1;
	pid_t pid;

	CHECK(syscall(SYS_adjtimex, &tx) >= 0, "adjtimex read");
	CHECK_OK(syscall(SYS_gettimeofday, &now, NULL));
	CHECK(tx.time.tv_sec >= now.tv_sec - 1 && tx.time.tv_sec <= now.tv_sec,
	    "adjtimex time %ld, now %ld", (long)tx.time.tv_sec,
	    (long)now.tv_sec);
	CHECK(tx.tick == 10000 && tx.precision >= 1, "tick %ld", tx.tick);
	tx = (struct timex){ .modes = ADJ_OFFSET_SS_READ };
	CHECK(syscall(SYS_adjtimex, &tx) >= 0, "adjtime(NULL, &old)'s read");
	tx = (struct timex){ .modes = 0 };
	CHECK(syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx) >= 0,
	    "clock_adjtime read");
	CHECK_ERR(syscall(SYS_clock_adjtime, CLOCK_MONOTONIC, &tx), EOPNOTSUPP);
	CHECK_ERR(syscall(SYS_clock_adjtime, 99, &tx), EINVAL);
	CHECK_ERR(syscall(SYS_adjtimex, (void *)8), EFAULT);
	tx = (struct timex){ .modes = 0x8000 };
	CHECK_ERR(syscall(SYS_adjtimex, &tx), EINVAL);
	if (geteuid() != 0)
		return;
	if ((pid = fork()) == 0) {
		if (setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		tx = (struct timex){ .modes = ADJ_FREQUENCY };
		_exit(syscall(SYS_adjtimex, &tx) == -1 && errno == EPERM &&
		    syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx) == -1 &&
		    errno == EPERM ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "uid 65534 may not steer the clock (status %#x)", status);
}

static void
on_alarm(int sig)
{
	(void)sig;
}

/*
 * A signal ends a relative sleep whose rem cannot be written: EFAULT in
 * place of EINTR, for nanosleep and clock_nanosleep alike; an absolute
 * sleep never writes rem, so it is EINTR.
 */
static void
test_sleep_bad_rem(void)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval it = { .it_value = { 0, 30000 } };
	struct timespec req = { 5, 0 }, abs;

	CHECK_OK(sigaction(SIGALRM, &sa, &old));
	CHECK_OK(syscall(SYS_setitimer, ITIMER_REAL, &it, NULL));
	CHECK_ERR(syscall(SYS_nanosleep, &req, (void *)8), EFAULT);
	CHECK_OK(syscall(SYS_setitimer, ITIMER_REAL, &it, NULL));
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &req,
	    (void *)8), EFAULT);
	CHECK_OK(syscall(SYS_setitimer, ITIMER_REAL, &it, NULL));
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_REALTIME, 0, &req,
	    (void *)8), EFAULT);
	CHECK_OK(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &abs));
	abs.tv_sec += 5;
	CHECK_OK(syscall(SYS_setitimer, ITIMER_REAL, &it, NULL));
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC,
	    TIMER_ABSTIME, &abs, (void *)8), EINTR);
	CHECK_OK(sigaction(SIGALRM, &old, NULL));
}

int
main(void)
{
	test_clock_ids();
	test_monotonic();
	test_realtime_agrees();
	test_cpu_clock();
	test_nanosleep();
	test_clock_nanosleep();
	test_sleep_bad_rem();
	test_adjtimex();
	return guest_done();
}
