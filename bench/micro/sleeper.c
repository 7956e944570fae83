/*
 * sleeper - sleep for a while, then exit 0.
 *
 * Usage: sleeper [MS]    (default 500)
 *
 * bench/run.sh samples the vkernel's resident memory while this guest is
 * alive.  The guest touches almost nothing, so what is left is the
 * vkernel's own footprint.  A raw nanosleep, because it is one of the few
 * calls the first vkernel emulates and libc might pick clock_nanosleep.
 */
#include "bench.h"

#include <sys/syscall.h>

int
main(int argc, char **argv)
{
	struct timespec req, rem;
	long ms;

	ms = argc > 1 ? bench_parse_count(argv[1]) : 500;
	req.tv_sec = ms / 1000;
	req.tv_nsec = (ms % 1000) * 1000000L;
	while (syscall(SYS_nanosleep, &req, &rem) == -1) {
		if (errno != EINTR)
			bench_die("nanosleep");
		req = rem;
	}
	return 0;
}
