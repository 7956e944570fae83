/*
 * fdmany - fill a descriptor table with 100,000 fds, one call each.
 *
 * Usage: fdmany [ITERS|auto] [COUNT]    (default COUNT: 100000)
 *
 * One operation makes COUNT new descriptors in one process, each from
 * the lowest free number up: every other one a raw openat(/dev/null,
 * O_RDONLY), the rest raw dup()s of the first; then one close_range()
 * closes them all.  A table that scans for the lowest free fd makes this
 * quadratic; a bitmap keeps it linear.
 *
 * RLIMIT_NOFILE is raised to COUNT + 64 first.  Where the hard limit is
 * lower and cannot be raised (no CAP_SYS_RESOURCE), COUNT shrinks to what
 * fits, and the line says so: compare the per-call times of equal COUNTs.
 * Every call must return the next number, or the run exits 2.  Prints ns
 * per operation, and per call.
 */
#include "bench.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

struct ctx {
	int base;
	long count;
};

static long long
run(long n, void *arg)
{
	struct ctx *c = arg;
	long long t0 = bench_now_ns();
	long fd;

	for (long i = 0; i < n; i++) {
		for (long k = 1; k <= c->count; k++) {
			fd = k % 2 ? syscall(SYS_openat, AT_FDCWD, "/dev/null",
			    O_RDONLY) : syscall(SYS_dup, c->base);
			if (fd != c->base + k) {
				bench_fprint(2, "fdmany: call %ld gave %ld, "
				    "not %ld\n", k, fd, c->base + k);
				exit(2);
			}
		}
		if (syscall(SYS_close_range, (unsigned)c->base + 1, ~0U,
		    0) != 0)
			bench_die("close_range");
	}
	return bench_now_ns() - t0;
}

/* Room for count fds above base: returns how many fit. */
static long
fdmany_room(int base, long count)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		bench_die("getrlimit");
	if (rl.rlim_max < (rlim_t)(base + count + 64)) {
		struct rlimit want = { base + count + 64, base + count + 64 };

		if (setrlimit(RLIMIT_NOFILE, &want) == 0)
			return count;
	}
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		bench_die("setrlimit");
	if ((long)rl.rlim_cur - base - 64 < count)
		count = (long)rl.rlim_cur - base - 64;
	return count;
}

int
main(int argc, char **argv)
{
	struct ctx c;
	char extra[96];
	long n, count = argc > 2 ? atol(argv[2]) : 100000;
	long long el;

	if ((c.base = (int)syscall(SYS_openat, AT_FDCWD, "/dev/null",
	    O_RDONLY)) < 0)
		bench_die("/dev/null");
	/* What a harness left open above base is not ours to count. */
	syscall(SYS_close_range, (unsigned)c.base + 1, ~0U, 0);
	c.count = fdmany_room(c.base, count > 0 ? count : 100000);
	n = bench_iters(argc > 1 ? argv[1] : NULL, run, &c);
	el = run(n, &c);
	snprintf(extra, sizeof(extra), "%ld fds, %.1f ns/call", c.count,
	    (double)el / (double)n / (double)c.count);
	bench_report("fdmany", n, el, extra);
	return 0;
}
