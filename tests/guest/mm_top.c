/*
 * Verifies that memory calls on ranges at or above the top of the user
 * address space fail the way Linux fails them for addresses above
 * TASK_SIZE (munmap EINVAL, mmap MAP_FIXED and mprotect, madvise, msync
 * ENOMEM, mremap EFAULT for the old range and EINVAL for the new one),
 * touch nothing below the top, and leave the process able to mmap and
 * fork.  The top is found the way a program can see it: the lowest
 * address where MAP_FIXED_NOREPLACE of one page gives ENOMEM.  Natively
 * that is TASK_SIZE; a sandbox may keep pages of its own above a lower
 * top, and a range reaching them must not harm them.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "guest.h"

#define P	GUEST_PAGE
#define TASK_SIZE	0x7ffffffff000UL
#define SPAN	(16 * P)

static const int rw = PROT_READ | PROT_WRITE;

/* Raw, because musl's wrapper filters lengths and glibc's is variadic. */
static long
raw_mremap(uintptr_t old, size_t old_len, size_t new_len, int flags,
    uintptr_t new)
{
	return syscall(SYS_mremap, old, old_len, new_len, flags, new);
}

/* Whether one page at va lies above the top: MAP_FIXED_NOREPLACE says. */
static bool
above_top(uintptr_t va)
{
	void *p = guest_mmap((void *)va, P, PROT_NONE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p != MAP_FAILED) {
		guest_munmap(p, P);
		return false;
	}
	return errno == ENOMEM;
}

/* The top: the lowest page-aligned address above_top() says yes to. */
static uintptr_t
find_top(void)
{
	uintptr_t lo = 0x100000000UL, hi = TASK_SIZE;

	/* above_top(hi) holds and above_top(lo) does not. */
	while (hi - lo > P) {
		uintptr_t mid = (lo + (hi - lo) / 2) & ~(P - 1);

		if (above_top(mid))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Every call on ranges wholly above top, or wrapping around. */
static void
check_above(uintptr_t top)
{
	void *va = (void *)top;

	CHECK_ERR(guest_munmap(va, P), EINVAL);
	CHECK_ERR(guest_munmap((void *)(top - P), 2 * P), EINVAL);
	CHECK_ERR(guest_munmap((void *)P, -P), EINVAL);
	CHECK_ERR(guest_munmap((void *)(-P), P), EINVAL);
	CHECK_ERR(guest_mmap(va, P, rw, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED, -1, 0), ENOMEM);
	CHECK_ERR(guest_mmap((void *)(-P), P, rw, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_FIXED, -1, 0), ENOMEM);
	CHECK_ERR(guest_mmap(va, P, rw, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED_NOREPLACE, -1, 0), ENOMEM);
	CHECK_ERR(guest_mprotect(va, P, PROT_READ), ENOMEM);
	CHECK_ERR(guest_mprotect((void *)(-P), P, PROT_READ), ENOMEM);
	CHECK_ERR(syscall(SYS_madvise, va, P, MADV_DONTNEED), ENOMEM);
	CHECK_ERR(syscall(SYS_madvise, va, P, MADV_NORMAL), ENOMEM);
	CHECK_ERR(syscall(SYS_msync, va, P, MS_SYNC), ENOMEM);
	CHECK_ERR(raw_mremap(top, P, P, MREMAP_MAYMOVE, 0), EFAULT);
	CHECK_ERR(raw_mremap(top, P, 2 * P, 0, 0), EFAULT);
}

/*
 * Calls on [top - SPAN, top + SPAN), which holds a mapping of ours below
 * the top: each fails as above, and the mapping keeps its data.
 */
static void
check_across(uintptr_t top)
{
	uintptr_t lo = top - SPAN;
	unsigned char *p;
	long r;

	p = guest_mmap((void *)lo, SPAN, rw, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED) {
		/* Natively the stack may happen to lie just below the top. */
		guest_note("skip: no room below %#lx (errno %d)",
		    (unsigned long)top, errno);
		return;
	}
	memset(p, 0x5a, SPAN);
	CHECK_ERR(guest_munmap(p, 2 * SPAN), EINVAL);
	CHECK_ERR(guest_munmap(p, top - lo + TASK_SIZE), EINVAL);
	CHECK_ERR(guest_mmap(p, 2 * SPAN, rw, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED, -1, 0), ENOMEM);
	CHECK_ERR(guest_mprotect(p, 2 * SPAN, rw), ENOMEM);
	CHECK_ERR(syscall(SYS_madvise, p, 2 * SPAN, MADV_WILLNEED), ENOMEM);
	CHECK_ERR(syscall(SYS_msync, p, 2 * SPAN, MS_ASYNC), ENOMEM);
	/* Shrinking unmaps the tail, with munmap's checks. */
	CHECK_ERR(raw_mremap(lo, 2 * SPAN, P, MREMAP_MAYMOVE, 0), EINVAL);
	CHECK_ERR(raw_mremap(lo, -P, P, 0, 0), EINVAL);
	CHECK_EQ(raw_mremap(lo, 2 * SPAN, 2 * SPAN, 0, 0), (long)lo);
	CHECK_ERR(raw_mremap(lo, 2 * SPAN, 3 * SPAN, MREMAP_MAYMOVE, 0),
	    EFAULT);
	CHECK_ERR(raw_mremap(lo, SPAN, 2 * SPAN, 0, 0), ENOMEM);
	CHECK_ERR(raw_mremap(lo, P, P, MREMAP_MAYMOVE | MREMAP_FIXED,
	    top - P / 2), EINVAL);
	CHECK_ERR(raw_mremap(lo, 2 * P, 2 * P, MREMAP_MAYMOVE | MREMAP_FIXED,
	    top - P), EINVAL);
	CHECK_ERR(raw_mremap(lo, P, P, MREMAP_MAYMOVE | MREMAP_DONTUNMAP,
	    top), EINVAL);
	CHECK_ERR(raw_mremap(lo, P, -2 * P, MREMAP_MAYMOVE, 0), EINVAL);
	for (size_t i = 0; i < SPAN; i++)
		if (p[i] != 0x5a) {
			CHECK(false, "byte %zu below the top changed", i);
			break;
		}
	/* Growing past the top moves the mapping elsewhere. */
	r = raw_mremap(lo, SPAN, 2 * SPAN, MREMAP_MAYMOVE, 0);
	CHECK(r != -1 && (uintptr_t)r + 2 * SPAN <= top,
	    "mremap grown across the top: %#lx", r);
	if (r != -1) {
		CHECK_EQ(((unsigned char *)r)[SPAN - 1], 0x5a);
		CHECK_OK(guest_munmap((void *)r, 2 * SPAN));
	}
}

/* The process still maps memory and forks. */
static void
check_alive(void)
{
	unsigned char *q = guest_anon(4 * P, rw);
	int st = -1;
	long pid;

	CHECK(q != MAP_FAILED, "mmap after the calls above the top");
	if (q != MAP_FAILED) {
		q[3 * P] = 7;
		CHECK_EQ(q[3 * P], 7);
	}
	pid = CHECK_OK(syscall(SYS_fork));
	if (pid == 0) {
		void *c = guest_anon(P, rw);

		syscall(SYS_exit_group, c == MAP_FAILED ? 3 : 0);
	}
	if (pid > 0) {
		CHECK_EQ(syscall(SYS_wait4, pid, &st, 0, NULL), pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "child after the calls above the top: status %#x", st);
	}
}

int
main(void)
{
	uintptr_t top = find_top();

	CHECK(top <= TASK_SIZE, "top %#lx above TASK_SIZE",
	    (unsigned long)top);
	check_above(top);
	check_above(TASK_SIZE);
	check_across(top);
	check_alive();
	return guest_done();
}
