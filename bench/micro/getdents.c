/*
 * getdents - list a large directory with getdents64.
 *
 * Usage: getdents DIR [ITERS|auto] [ENTRIES]    (default ENTRIES: 10002)
 *
 * One operation is one full listing: a raw openat(DIR, O_RDONLY |
 * O_DIRECTORY | O_CLOEXEC) (musl's open() would add an fcntl), raw
 * getdents64 into a 32 KiB buffer until it returns 0, close.
 * bench/run.sh makes DIR a host directory of 10,000 empty files, so with
 * "." and ".." a listing has 10,002 entries; under vkernel the guest
 * reads it through the overlay's read-only host layer.  Raw getdents64,
 * because readdir(3) would hide the buffer size.
 *
 * Every listing counts its entries and exits 2 unless there are ENTRIES
 * of them with both "." and "..", so a truncated listing cannot pass as
 * fast.  Prints ns per listing and per entry.
 */
#include "bench.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BUF_SIZE	(32 * 1024)

struct ctx {
	const char	*dir;
	long		want;
	long		calls;	/* getdents64 calls in the last listing */
};

/* struct linux_dirent64; musl and glibc disagree on its libc name. */
struct dirent64_raw {
	uint64_t	d_ino;
	int64_t		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

static char buf[BUF_SIZE] __attribute__((aligned(8)));

static long long
run(long n, void *arg)
{
	struct ctx *c = arg;
	struct dirent64_raw *d;
	long long t0;
	long i, pos, r, entries, dots, calls;
	int fd;

	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		fd = (int)syscall(SYS_openat, AT_FDCWD, c->dir,
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			bench_die(c->dir);
		entries = dots = calls = 0;
		for (;;) {
			r = syscall(SYS_getdents64, fd, buf, BUF_SIZE);
			if (r < 0)
				bench_die("getdents64");
			calls++;
			if (r == 0)
				break;
			for (pos = 0; pos < r; pos += d->d_reclen) {
				d = (struct dirent64_raw *)(buf + pos);
				if (d->d_reclen == 0) {
					bench_fprint(2, "getdents: %s: a record "
					    "of length 0\n", c->dir);
					exit(2);
				}
				entries++;
				if (d->d_name[0] == '.' && (d->d_name[1] == '\0' ||
				    (d->d_name[1] == '.' && d->d_name[2] == '\0')))
					dots++;
			}
		}
		if (close(fd) == -1)
			bench_die("close");
		if (entries != c->want || dots != 2) {
			bench_fprint(2, "getdents: %s: a listing saw %ld entries "
			    "(%ld of them . or ..), expected %ld with both\n",
			    c->dir, entries, dots, c->want);
			exit(2);
		}
		c->calls = calls;
	}
	return bench_now_ns() - t0;
}

int
main(int argc, char **argv)
{
	struct ctx c;
	char extra[160];
	long long el;
	long n;

	if (argc < 2) {
		bench_fprint(2, "usage: getdents DIR [ITERS|auto] [ENTRIES]\n");
		return 2;
	}
	c.dir = argv[1];
	c.want = argc > 3 ? bench_parse_count(argv[3]) : 10002;
	if (c.want <= 0) {
		bench_fprint(2, "getdents: ENTRIES must be a positive number\n");
		return 2;
	}
	c.calls = 0;
	n = bench_iters(argc > 2 ? argv[2] : NULL, run, &c);
	el = run(n, &c);
	snprintf(extra, sizeof(extra), "%ld entries/listing, %ld getdents64 calls/listing, "
	    "%.1f ns/entry (op = open + getdents64 (32 KiB) to 0 + close)",
	    c.want, c.calls, (double)el / (double)n / (double)c.want);
	bench_report("getdents", n, el, extra);
	return 0;
}
