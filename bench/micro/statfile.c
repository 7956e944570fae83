/*
 * statfile - stat an existing file by path.
 *
 * Usage: statfile [ITERS|auto] [PATH]    (default PATH: /etc/passwd)
 *
 * One operation: a raw newfstatat(AT_FDCWD, PATH, &st, 0).  Raw, because
 * libc's stat() may take another route (statx, or fstat for empty
 * paths), and the benchmark should time exactly one path lookup and one
 * attribute copy.  Under vkernel that is one trapped call, a walk through
 * the overlay and the host file's attributes.  The first result is
 * checked to be a regular file, and every call to succeed.
 */
#include "bench.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

static long long
run(long n, void *ctx)
{
	const char *path = ctx;
	struct stat st;
	long long t0;
	long i;

	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) == -1)
			bench_die(path);
	return bench_now_ns() - t0;
}

int
main(int argc, char **argv)
{
	char *path = argc > 2 ? argv[2] : "/etc/passwd";
	char extra[128];
	struct stat st;
	long n;

	if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) == -1)
		bench_die(path);
	if (!S_ISREG(st.st_mode)) {
		bench_fprint(2, "statfile: %s: not a regular file (mode %#o)\n",
		    path, (unsigned)st.st_mode);
		return 2;
	}
	n = bench_iters(argc > 1 ? argv[1] : NULL, run, path);
	snprintf(extra, sizeof(extra), "op = newfstatat of %.60s (%lld bytes)",
	    path, (long long)st.st_size);
	bench_report("statfile", n, run(n, path), extra);
	return 0;
}
