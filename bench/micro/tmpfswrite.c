/*
 * tmpfswrite - sequential write of 64 MiB to a tmpfs file in 64 KiB chunks.
 *
 * Usage: tmpfswrite DIR [ITERS|auto]
 *
 * Creates a new file in DIR (O_EXCL, so an existing file is never
 * clobbered) and unlinks it at exit.  One operation is one pass:
 * ftruncate to 0, which gives the pages back, lseek to 0, then 1024
 * write(2)s of 64 KiB, which allocate and fill the pages again.
 * bench/run.sh passes /dev/shm, which is a tmpfs on the host and in the
 * vkernel guest alike; natively the host's shmem takes the writes, under
 * vkernel the guest's in-memory tmpfs does.
 *
 * Every write must be whole, the size must be 64 MiB after the last pass,
 * and the last chunk is read back and compared, so a vkernel that drops
 * writes cannot pass as fast.  Prints ns per pass, ns per chunk and MB/s
 * (10^6 bytes per second).
 */
#include "benchfile.h"

#include <sys/stat.h>

static char back[CHUNK] __attribute__((aligned(4096)));

static long long
run(long n, void *arg)
{
	int fd = *(int *)arg;
	long long t0, off;
	ssize_t r;
	long i;

	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		if (ftruncate(fd, 0) == -1)
			die_unlink("ftruncate");
		if (lseek(fd, 0, SEEK_SET) != 0)
			die_unlink("lseek");
		for (off = 0; off < FILE_SIZE; off += r) {
			r = write(fd, buf, CHUNK);
			if (r < 0 && errno == EINTR) {
				r = 0;
				continue;
			}
			if (r != CHUNK) {
				if (r >= 0)
					errno = EIO;
				die_unlink("write (short or failed)");
			}
		}
	}
	return bench_now_ns() - t0;
}

int
main(int argc, char **argv)
{
	struct stat st;
	char extra[160];
	long long el;
	size_t k;
	long n;
	int fd;

	if (argc < 2) {
		bench_fprint(2, "usage: tmpfswrite DIR [ITERS|auto]\n");
		return 2;
	}
	fd = benchfile_create(argv[1], "tmpfswrite");
	/* Not zeros, so no layer can take the writes for holes. */
	for (k = 0; k < sizeof(buf); k++)
		buf[k] = (char)(k * 7 + 1);

	n = bench_iters(argc > 2 ? argv[2] : NULL, run, &fd);
	el = run(n, &fd);

	if (fstat(fd, &st) == -1)
		die_unlink("fstat");
	if (st.st_size != FILE_SIZE) {
		bench_fprint(2, "tmpfswrite: %s has %lld bytes after a pass, "
		    "not %lld\n", path, (long long)st.st_size, FILE_SIZE);
		unlink(path);
		return 2;
	}
	if (pread(fd, back, CHUNK, FILE_SIZE - CHUNK) != CHUNK)
		die_unlink("pread (short or failed)");
	if (memcmp(back, buf, CHUNK) != 0) {
		bench_fprint(2, "tmpfswrite: %s: the last chunk reads back "
		    "different data\n", path);
		unlink(path);
		return 2;
	}
	if (unlink(path) == -1)
		bench_die("unlink");
	close(fd);
	snprintf(extra, sizeof(extra), "%lld bytes/pass, %.1f ns/chunk, %.1f MB/s "
	    "(op = ftruncate 0 + write 64 MiB in 64 KiB chunks)", FILE_SIZE,
	    (double)el / (double)n / (double)CHUNKS,
	    (double)FILE_SIZE * (double)n * 1e3 / (double)(el > 0 ? el : 1));
	bench_report("tmpfswrite", n, el, extra);
	return 0;
}
