/*
 * bench.h - timing helpers shared by the vkernel micro benchmarks.
 *
 * Every benchmark defines a function that performs n operations and
 * returns the elapsed CLOCK_MONOTONIC nanoseconds, and hands it to
 * bench_iters().  The iteration count is argv[1] when given, otherwise it
 * is calibrated so that the measured run takes about BENCH_TARGET_MS
 * milliseconds (default 1000).
 *
 * The programs run as guests of the first vkernel, which emulates only a
 * handful of system calls (read/write on fds 0-2, anonymous memory, exit,
 * clock_gettime through the vDSO, nanosleep, ...).  So nothing here may
 * use stdio for output: musl's stdout calls ioctl(TIOCGWINSZ) and writev.
 * bench_print() formats into a buffer and calls write(2) instead.
 */
#ifndef BENCH_H
#define BENCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_UNUSED		__attribute__((unused))
#define BENCH_DEFAULT_MS	1000
/* A bound on the count so a broken clock cannot make us loop forever. */
#define BENCH_MAX_ITERS		(1L << 40)

typedef long long (*bench_fn)(long n, void *ctx);

/*
 * Nanoseconds on CLOCK_MONOTONIC.  libc reaches it through the vDSO, so
 * under vkernel taking a timestamp does not trap and does not disturb the
 * measurement.
 */
static inline long long
bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Write all of buf to fd with plain write(2), retrying short writes. */
static BENCH_UNUSED void
bench_write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

static BENCH_UNUSED __attribute__((format(printf, 2, 3))) void
bench_fprint(int fd, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	if ((size_t)len >= sizeof(buf))
		len = sizeof(buf) - 1;
	bench_write_all(fd, buf, (size_t)len);
}

#define bench_print(...)	bench_fprint(1, __VA_ARGS__)

/* Report a failed host call and exit 2, so runners see a failed run. */
static BENCH_UNUSED __attribute__((noreturn)) void
bench_die(const char *what)
{
	bench_fprint(2, "bench: %s: %s\n", what, strerror(errno));
	exit(2);
}

/*
 * Parse an explicit iteration count.  Returns 0 for "auto", a missing
 * argument or anything that is not a positive number, which means
 * "calibrate".
 */
static BENCH_UNUSED long
bench_parse_count(const char *arg)
{
	char *end;
	long n;

	if (arg == NULL)
		return 0;
	n = strtol(arg, &end, 10);
	if (end == arg || *end != '\0' || n <= 0)
		return 0;
	return n;
}

static BENCH_UNUSED long long
bench_target_ns(void)
{
	const char *s = getenv("BENCH_TARGET_MS");
	long long ms = BENCH_DEFAULT_MS;

	if (s != NULL && atoll(s) > 0)
		ms = atoll(s);
	return ms * 1000000LL;
}

/*
 * Decide the iteration count.  Probe with geometrically growing counts
 * until one probe takes at least 1/16 of the target, then scale that
 * probe's rate up to the full target.  A probe of 1/16 is long enough to
 * be well above timer and scheduling noise, and short enough that the
 * probes together cost much less than the measurement itself.
 */
static BENCH_UNUSED long
bench_iters(const char *arg, bench_fn run, void *ctx)
{
	long long target, el, want;
	long n;

	n = bench_parse_count(arg);
	if (n > 0)
		return n;
	target = bench_target_ns();
	n = 1;
	for (;;) {
		el = run(n, ctx);
		if (el >= target / 16 || n >= BENCH_MAX_ITERS)
			break;
		/* Aim the next probe at the 1/16 mark, growing 2x-64x per step. */
		want = el > 0 ? (long long)((double)n * (target / 16) / el) : n * 64LL;
		if (want < 2LL * n)
			want = 2LL * n;
		if (want > 64LL * n)
			want = 64LL * n;
		n = (long)want;
	}
	want = (long long)((double)n * (double)target / (double)(el > 0 ? el : 1));
	return want < 1 ? 1 : (long)want;
}

/* The one result line format that bench/run.sh parses. */
static BENCH_UNUSED void
bench_report(const char *name, long n, long long el_ns, const char *extra)
{
	bench_print("%s: %ld iters, %.1f ns/op%s%s\n", name, n,
	    (double)el_ns / (double)n, extra != NULL ? ", " : "",
	    extra != NULL ? extra : "");
}

/* Keep the calling thread on cpu. */
static BENCH_UNUSED void
bench_pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof(s), &s) < 0)
		bench_die("sched_setaffinity");
}

/* The first two CPUs the process may run on: 0, or -1 with fewer. */
static BENCH_UNUSED int
bench_two_cpus(int cpus[2])
{
	cpu_set_t s;
	int k = 0;

	if (sched_getaffinity(0, sizeof(s), &s) < 0)
		bench_die("sched_getaffinity");
	for (int c = 0; c < CPU_SETSIZE && k < 2; c++)
		if (CPU_ISSET(c, &s))
			cpus[k++] = c;
	return k == 2 ? 0 : -1;
}

#endif /* BENCH_H */
