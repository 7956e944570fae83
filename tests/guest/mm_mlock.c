/*
 * Memory locks as Linux: mlock, mlock2 (MLOCK_ONFAULT), munlock,
 * mlockall and munlockall show in /proc/self/status's VmLck; mincore
 * reports locked pages resident (EINVAL, ENOMEM, EFAULT as Linux); an unprivileged caller is held to
 * RLIMIT_MEMLOCK (ENOMEM past it, EPERM with a limit of 0), root is
 * not; bad flags are EINVAL and an unmapped range ENOMEM.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "guest.h"

#define P	GUEST_PAGE

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT	0x01
#endif
#ifndef MCL_ONFAULT
#define MCL_ONFAULT	4
#endif

/* VmLck of /proc/self/status in kB, or -1. */
static long
vmlck_kb(void)
{
	return guest_status_num("VmLck:");
}

static void
test_locks(void)
{
	unsigned char *p = guest_anon(8 * P, PROT_READ | PROT_WRITE);
	unsigned char vec[8];
	struct rlimit rl = { 16 * P, 16 * P }, zero = { 0, 0 }, old;
	long base;

	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	CHECK_OK(getrlimit(RLIMIT_MEMLOCK, &old));
	if (getuid() != 0)
		CHECK_OK(setrlimit(RLIMIT_MEMLOCK, &rl));
	base = vmlck_kb();
	CHECK(base >= 0, "VmLck readable: %ld", base);
	CHECK_OK(mlock(p, 2 * P));
	CHECK_EQ(vmlck_kb(), base + 8);
	CHECK_OK(syscall(SYS_mlock2, p + 2 * P, P, MLOCK_ONFAULT));
	CHECK_EQ(vmlck_kb(), base + 12);
	CHECK_ERR(syscall(SYS_mlock2, p, P, 2), EINVAL);
	CHECK_OK(mincore(p, 8 * P, vec));
	CHECK((vec[0] & 1) && (vec[1] & 1), "locked pages resident");
	CHECK_ERR(mincore(p + 1, P, vec), EINVAL);
	CHECK_ERR(mincore((void *)(16 * P), P, vec), ENOMEM);
	CHECK_ERR(mincore(p, P, (void *)16), EFAULT);
	CHECK_ERR(mincore(p, 1UL << 60, vec), ENOMEM);
	CHECK_OK(munlock(p, 3 * P));
	CHECK_EQ(vmlck_kb(), base);
	CHECK_ERR(mlock((void *)(16 * P), P), ENOMEM);
	CHECK_ERR(mlockall(0), EINVAL);
	CHECK_ERR(mlockall(MCL_ONFAULT), EINVAL);
	if (getuid() != 0) {
		/* More than the limit: ENOMEM; a limit of 0: EPERM. */
		unsigned char *q = guest_anon(32 * P, PROT_READ);

		CHECK_ERR(mlock(q, 17 * P), ENOMEM);
		CHECK_ERR(mlockall(MCL_CURRENT), ENOMEM);
		CHECK_OK(setrlimit(RLIMIT_MEMLOCK, &zero));
		CHECK_ERR(mlock(p, P), EPERM);
		guest_munmap(q, 32 * P);
	} else {
		CHECK_OK(mlockall(MCL_CURRENT | MCL_ONFAULT));
		CHECK(vmlck_kb() >= base + 32, "mlockall counts the map: %ld",
		    vmlck_kb());
		CHECK_OK(munlockall());
		CHECK_EQ(vmlck_kb(), 0);
	}
	guest_munmap(p, 8 * P);
}

static void
tests(void)
{
	test_locks();
}

int
main(void)
{
	return guest_main_twice(tests);
}
