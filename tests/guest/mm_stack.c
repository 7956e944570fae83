/*
 * Verifies that the main thread's stack grows on demand: 4 MiB of nested
 * frames (half the usual 8 MiB RLIMIT_STACK), each writing every one of its
 * pages, hold their data until they return, and the kernel can write into
 * the deepest frame too.
 */
#include <stdint.h>
#include <sys/resource.h>

#include "guest.h"

#define FRAME	(64 * 1024)
#define DEPTH	64

/*
 * One frame of FRAME bytes, touched page by page from the top down as a
 * growing stack is; returns the sum of what the deeper frames kept.
 */
static uint64_t __attribute__((noinline))
descend(int depth, int *kernel_ok)
{
	volatile unsigned char frame[FRAME];
	uint64_t sum;

	for (long i = FRAME - 1; i >= 0; i -= GUEST_PAGE)
		frame[i] = (unsigned char)(depth + i / GUEST_PAGE);
	frame[0] = (unsigned char)depth;
	if (depth + 1 < DEPTH) {
		sum = descend(depth + 1, kernel_ok);
	} else {
		sum = 0;
		/* The kernel writes a timespec into the deepest page. */
		*kernel_ok = guest_probe_write((void *)&frame[64]) == 0;
	}
	/* Every page of this frame must still hold what was written. */
	for (long i = FRAME - 1; i >= 0; i -= GUEST_PAGE)
		sum += frame[i] == (unsigned char)(depth + i / GUEST_PAGE);
	sum += frame[0] == (unsigned char)depth;
	return sum;
}

int
main(void)
{
	struct rlimit rl;
	int kernel_ok = 0;
	uint64_t got, want;

	if (syscall(SYS_getrlimit, RLIMIT_STACK, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 6 * 1024 * 1024) {
		return guest_skip("mm_stack: RLIMIT_STACK %lu is below 6 MiB",
		    (unsigned long)rl.rlim_cur);
	}
	got = descend(0, &kernel_ok);
	want = (uint64_t)DEPTH * (FRAME / GUEST_PAGE + 1);
	CHECK(got == want, "%llu of %llu stack pages kept their data",
	    (unsigned long long)got, (unsigned long long)want);
	CHECK(kernel_ok, "the kernel can write into the grown stack");
	return guest_done();
}
