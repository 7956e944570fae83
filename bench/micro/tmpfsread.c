/*
 * tmpfsread - reading back a file just written, in 64 KiB chunks.
 *
 * Usage: tmpfsread DIR [PASSES]
 *
 * Makes a new file in DIR (O_EXCL; unlinked at exit), writes 64 MiB to it
 * in 64 KiB write(2)s, then reads it back: a first pass right after the
 * write (what `dd if=FILE of=/dev/null bs=64k` of a file a build just
 * made does), PASSES more passes (default 8), one pass in 4 KiB reads,
 * and 100,000 pread(2)s of 64 bytes at offsets that walk the file.
 * bench/tmpfsread.sh passes a host tmpfs natively, and under vkernel a
 * --tmpfs mount or a directory of the overlay's upper layer.
 *
 * Every chunk carries its own index and every pass is checked against
 * it, so a kernel that reads the wrong bytes or short cannot pass as
 * fast.  Prints one line: "tmpfsread: write W MB/s, first R1 MB/s,
 * again R2 MB/s, 4k R3 MB/s, pread64 N ns" (MB = 10^6 bytes).
 */
#include "benchfile.h"

#include <stdint.h>

#define SMALL		64
#define NSMALL		100000

/* Chunk i: every 8-byte word holds i and its place in the chunk. */
static void
chunk_fill(char *p, uint64_t i)
{
	for (size_t w = 0; w < CHUNK / 8; w++)
		((uint64_t *)(void *)p)[w] = i << 32 | w;
}

/* len bytes read at off: the first and last words of each page. */
static void
chunk_check(const char *p, uint64_t off, size_t len)
{
	uint64_t i = off / CHUNK;

	for (size_t o = 0; o < len; o += 4096) {
		uint64_t a = *(const uint64_t *)(const void *)(p + o);
		uint64_t b = *(const uint64_t *)(const void *)(p + o + 4088);
		uint64_t w = (off % CHUNK + o) / 8;

		if (a != (i << 32 | w) || b != (i << 32 | (w + 511))) {
			bench_fprint(2, "tmpfsread: chunk %llu: wrong data at "
			    "%zu\n", (unsigned long long)i, o);
			unlink(path);
			exit(2);
		}
	}
}

/* One pass in reads of len bytes; returns the elapsed ns. */
static long long
read_pass(int fd, size_t len)
{
	long long t0 = bench_now_ns();
	uint64_t got = 0;

	if (lseek(fd, 0, SEEK_SET) != 0)
		die_unlink("lseek");
	while (got < FILE_SIZE) {
		ssize_t r = read(fd, buf, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r != (ssize_t)len)
			die_unlink("short read");
		chunk_check(buf, got, (size_t)r);
		got += (uint64_t)r;
	}
	return bench_now_ns() - t0;
}

static double
mbs(long long bytes, long long ns)
{
	return (double)bytes * 1e3 / (double)(ns > 0 ? ns : 1);
}

int
main(int argc, char **argv)
{
	long passes = argc > 2 ? bench_parse_count(argv[2]) : 8;
	long long tw, t1, t2 = 0, t4, ts;
	int fd;

	if (argc < 2 || passes <= 0) {
		bench_fprint(2, "usage: tmpfsread DIR [PASSES]\n");
		return 2;
	}
	fd = benchfile_create(argv[1], "vk-tmpfsread");
	/* Only the writes are timed, not making their data. */
	tw = 0;
	for (uint64_t i = 0; i < CHUNKS; i++) {
		long long t0;

		chunk_fill(buf, i);
		t0 = bench_now_ns();
		if (write(fd, buf, CHUNK) != CHUNK)
			die_unlink("write");
		tw += bench_now_ns() - t0;
	}
	t1 = read_pass(fd, CHUNK);
	for (long i = 0; i < passes; i++)
		t2 += read_pass(fd, CHUNK);
	t4 = read_pass(fd, 4096);
	ts = bench_now_ns();
	for (long i = 0; i < NSMALL; i++) {
		off_t off = (off_t)((uint64_t)i * 4160 % (FILE_SIZE - 4096));

		if (pread(fd, buf, SMALL, off) != SMALL)
			die_unlink("pread");
	}
	ts = bench_now_ns() - ts;
	bench_print("tmpfsread: write %.0f MB/s, first %.0f MB/s, again %.0f "
	    "MB/s, 4k %.0f MB/s, pread64 %.0f ns\n", mbs(FILE_SIZE, tw),
	    mbs(FILE_SIZE, t1), mbs(FILE_SIZE * passes, t2),
	    mbs(FILE_SIZE, t4), (double)ts / NSMALL);
	unlink(path);
	return 0;
}
