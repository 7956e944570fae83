/*
 * pagetouch - demand-zero page faults on fresh anonymous memory.
 *
 * Usage: pagetouch [ITERS|auto] [shmem]
 *
 * One operation: mmap 64 MiB of private anonymous memory, write one byte
 * to every 4 KiB page, munmap it.  Natively that is 16384 minor faults
 * plus the zeroing of each page.  Under vkernel it shows how well guest
 * memory is provided in runs: a vkernel that takes a trap per page is
 * far slower than native, one that maps large runs of the RAM file is
 * close to it.
 *
 * MADV_NOHUGEPAGE, because with transparent huge pages the kernel would
 * fault 2 MiB at a time natively and the comparison would be about THP
 * policy, not fault handling.
 *
 * "shmem" maps pages of a memfd (MAP_SHARED) instead: the kind of page a
 * RAM-file design gives its guests.  Run natively, it is the floor for
 * vkernel's page touch: the host's fault on a shared file page.
 */
#include "bench.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define REGION_SIZE	(64UL << 20)
#define PAGE_SIZE_4K	4096UL
#define REGION_PAGES	(REGION_SIZE / PAGE_SIZE_4K)

static int shm_fd = -1;

static long long
run(long n, void *ctx)
{
	volatile char *p;
	long long t0;
	size_t off;
	long i;

	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		if (shm_fd >= 0)
			p = mmap(NULL, REGION_SIZE, PROT_READ | PROT_WRITE,
			    MAP_SHARED, shm_fd, 0);
		else
			p = mmap(NULL, REGION_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			bench_die("mmap");
		/*
		 * Failure is harmless: a kernel without THP fails with
		 * EINVAL and then there are no huge pages to avoid anyway.
		 */
		(void)madvise((void *)p, REGION_SIZE, MADV_NOHUGEPAGE);
		for (off = 0; off < REGION_SIZE; off += PAGE_SIZE_4K)
			p[off] = 1;
		if (munmap((void *)p, REGION_SIZE) == -1)
			bench_die("munmap");
		/* As vkernel gives freed guest pages back to the host. */
		if (shm_fd >= 0 && fallocate(shm_fd, 3, 0, REGION_SIZE) == -1)
			bench_die("fallocate");
	}
	return bench_now_ns() - t0;
}

int
main(int argc, char **argv)
{
	char extra[96];
	long long el;
	long n;

	if (argc > 2 && strcmp(argv[2], "shmem") == 0) {
		shm_fd = memfd_create("pagetouch", 0);
		if (shm_fd < 0 || ftruncate(shm_fd, REGION_SIZE) < 0)
			bench_die("memfd");
	}
	n = bench_iters(argc > 1 ? argv[1] : NULL, run, NULL);
	el = run(n, NULL);
	snprintf(extra, sizeof(extra), "%.1f ns/page (op = mmap+touch+munmap of 64 MiB)",
	    (double)el / (double)n / (double)REGION_PAGES);
	bench_report("pagetouch", n, el, extra);
	return 0;
}
