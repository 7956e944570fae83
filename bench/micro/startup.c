/*
 * startup - wall time to start a program and wait for it to exit.
 *
 * Usage: startup RUNS PROG [ARGS...]
 *
 * bench/run.sh uses this when hyperfine is not installed.  Each run is
 * posix_spawn + waitpid of PROG with stdin and stdout on /dev/null
 * (stderr is kept, so a failing vkernel can say why).  One untimed
 * warm-up run first, so page-cache misses on the binaries do not count.
 * Prints the median, because a shared machine gives a long tail.  Exits
 * 1 if any run of PROG fails, so a broken vkernel is not timed as fast.
 *
 * This program is a host tool: it is never run inside vkernel.
 */
#include "bench.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

static int
cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* One run; returns its wall time in ns, or -1 if PROG failed. */
static long long
spawn_once(posix_spawn_file_actions_t *fa, char **argv)
{
	long long t0, el;
	pid_t pid;
	int err, st;

	t0 = bench_now_ns();
	err = posix_spawnp(&pid, argv[0], fa, NULL, argv, environ);
	if (err != 0) {
		bench_fprint(2, "startup: spawn %s: %s\n", argv[0],
		    strerror(err));
		return -1;
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			bench_die("waitpid");
	el = bench_now_ns() - t0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return el;
	if (WIFEXITED(st))
		bench_fprint(2, "startup: %s exited with %d\n", argv[0],
		    WEXITSTATUS(st));
	else
		bench_fprint(2, "startup: %s killed by signal %d\n", argv[0],
		    WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return -1;
}

int
main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	long long *t;
	long runs, i;

	if (argc < 3 || (runs = bench_parse_count(argv[1])) == 0) {
		bench_fprint(2, "usage: startup RUNS PROG [ARGS...]\n");
		return 2;
	}
	if ((t = calloc((size_t)runs, sizeof(*t))) == NULL)
		bench_die("calloc");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);

	if (spawn_once(&fa, argv + 2) < 0)
		return 1;
	for (i = 0; i < runs; i++)
		if ((t[i] = spawn_once(&fa, argv + 2)) < 0)
			return 1;
	qsort(t, (size_t)runs, sizeof(*t), cmp_ll);
	bench_print("startup: %ld runs, median %lld ns, min %lld ns, max %lld ns\n",
	    runs, runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2,
	    t[0], t[runs - 1]);
	return 0;
}
