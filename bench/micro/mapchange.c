/*
 * mapchange - the cost of a change to the host mappings.
 *
 * Usage: mapchange [ITERS|auto]
 *
 * One operation: mprotect of one touched page to read-only and back, two
 * calls.  Natively each is a page table change and a local TLB flush;
 * under vkernel each also changes the stub's mapping, a batch run by a
 * stub thread (the guest thread under ptrace, the control thread under
 * systrap), as every mmap, munmap, mprotect and copy-on-write fault of a
 * guest does.
 */
#include "bench.h"

#include <sys/mman.h>

static long long
run(long n, void *ctx)
{
	char *p = ctx;
	long long t0;
	long i;

	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		if (mprotect(p, 4096, PROT_READ) != 0 ||
		    mprotect(p, 4096, PROT_READ | PROT_WRITE) != 0)
			bench_die("mprotect");
		p[0]++;
	}
	return bench_now_ns() - t0;
}

int
main(int argc, char **argv)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long n;

	if (p == MAP_FAILED)
		bench_die("mmap");
	p[0] = 1;
	n = bench_iters(argc > 1 ? argv[1] : NULL, run, p);
	bench_report("mapchange", n, run(n, p), "op = mprotect to read-only "
	    "and back, 2 calls");
	return 0;
}
