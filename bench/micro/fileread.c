/*
 * fileread - sequential read of a large file in 64 KiB chunks.
 *
 * Usage: fileread PATH [ITERS|auto]
 *
 * One operation is one pass: lseek to 0, then read(2) 64 KiB at a time
 * until end of file.  bench/run.sh makes PATH a 64 MiB file on the host,
 * so after the first pass it comes from the host's page cache: natively
 * a pass is 1024 syscalls and a 64 MiB copy, under vkernel it is 1024
 * trapped reads of a host file through the overlay.  The path comes
 * first because it is required; the count is second.
 *
 * Every pass counts its bytes and exits 2 if they are not the size
 * fstat gave, so a short read cannot pass as fast.  Prints ns per pass,
 * ns per chunk and the throughput in MB/s (10^6 bytes per second).
 */
#include "bench.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK	(64 * 1024)

struct ctx {
	const char	*path;
	int		fd;
	long long	size;
};

static char buf[CHUNK] __attribute__((aligned(4096)));

static long long
run(long n, void *arg)
{
	struct ctx *c = arg;
	long long t0, got;
	ssize_t r;
	long i;

	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		if (lseek(c->fd, 0, SEEK_SET) != 0)
			bench_die("lseek");
		got = 0;
		for (;;) {
			r = read(c->fd, buf, CHUNK);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				bench_die("read");
			if (r == 0)
				break;
			got += r;
		}
		if (got != c->size) {
			bench_fprint(2, "fileread: %s: a pass read %lld bytes, "
			    "the file has %lld\n", c->path, got, c->size);
			exit(2);
		}
	}
	return bench_now_ns() - t0;
}

int
main(int argc, char **argv)
{
	struct ctx c;
	struct stat st;
	char extra[160];
	long long el, chunks;
	long n;

	if (argc < 2) {
		bench_fprint(2, "usage: fileread PATH [ITERS|auto]\n");
		return 2;
	}
	c.path = argv[1];
	if ((c.fd = open(c.path, O_RDONLY | O_CLOEXEC)) < 0)
		bench_die(c.path);
	if (fstat(c.fd, &st) == -1)
		bench_die("fstat");
	if (!S_ISREG(st.st_mode) || st.st_size <= 0) {
		bench_fprint(2, "fileread: %s: not a non-empty regular file\n",
		    c.path);
		return 2;
	}
	c.size = st.st_size;
	chunks = (c.size + CHUNK - 1) / CHUNK;

	n = bench_iters(argc > 2 ? argv[2] : NULL, run, &c);
	el = run(n, &c);
	snprintf(extra, sizeof(extra), "%lld bytes/pass, %.1f ns/chunk, %.1f MB/s "
	    "(op = lseek + read to EOF in 64 KiB chunks)", c.size,
	    (double)el / (double)n / (double)chunks,
	    (double)c.size * (double)n * 1e3 / (double)(el > 0 ? el : 1));
	bench_report("fileread", n, el, extra);
	close(c.fd);
	return 0;
}
