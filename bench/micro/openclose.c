/*
 * openclose - open and close an existing file.
 *
 * Usage: openclose [ITERS|auto] [PATH]    (default PATH: /etc/passwd)
 *
 * One operation: a raw openat(AT_FDCWD, PATH, O_RDONLY | O_CLOEXEC) and
 * a raw close of the fd.  Raw, because musl's open() follows an
 * O_CLOEXEC open with fcntl(F_SETFD) for old kernels, which would make
 * the pair three calls.  Natively that is a path walk through the dentry
 * cache, a struct file and two syscall entries.  Under vkernel both calls trap, so the pair
 * costs at least twice the getpid round trip; the rest is vkernel's path
 * walk through the overlay to the host file (a host open the first time,
 * whatever vkernel caches after).  The fd is checked, so a vkernel that
 * fails the open is not timed as fast.
 */
#include "bench.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

static long long
run(long n, void *ctx)
{
	const char *path = ctx;
	long long t0;
	long i;
	int fd;

	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			bench_die(path);
		if (syscall(SYS_close, fd) == -1)
			bench_die("close");
	}
	return bench_now_ns() - t0;
}

int
main(int argc, char **argv)
{
	char *path = argc > 2 ? argv[2] : "/etc/passwd";
	char extra[128];
	long n;

	n = bench_iters(argc > 1 ? argv[1] : NULL, run, path);
	snprintf(extra, sizeof(extra), "op = openat(O_RDONLY|O_CLOEXEC)+close of %.60s",
	    path);
	bench_report("openclose", n, run(n, path), extra);
	return 0;
}
