/*
 * Verifies mprotect(2) as the kernel sees it: after PROT_READ the kernel may
 * read but not write the page, after PROT_NONE neither, after PROT_READ |
 * PROT_WRITE both again with the data intact, page by page, and bad
 * arguments give EINVAL or ENOMEM.
 *
 * Without signal delivery a guest cannot watch its own store fault, so the
 * kernel does the touching: clock_gettime(2) writes into the page and
 * rt_sigprocmask(2) reads a signal set from it, and each answers EFAULT
 * when the protection forbids.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "guest.h"

#define P	GUEST_PAGE

static const int rw = PROT_READ | PROT_WRITE;

static void
test_round_trip(void)
{
	unsigned char *p;

	p = guest_anon(P, rw);
	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	memset(p, 0x77, P);
	CHECK_EQ(guest_probe_write(p), 0);
	memset(p, 0x77, 16);

	CHECK_OK(guest_mprotect(p, P, PROT_READ));
	CHECK_EQ(guest_probe_write(p), EFAULT);
	CHECK_EQ(guest_probe_read(p), 0);
	CHECK_EQ(p[100], 0x77);

	CHECK_OK(guest_mprotect(p, P, PROT_NONE));
	CHECK_EQ(guest_probe_write(p), EFAULT);
	CHECK_EQ(guest_probe_read(p), EFAULT);

	CHECK_OK(guest_mprotect(p, P, rw));
	CHECK_EQ(guest_probe_read(p), 0);
	CHECK_EQ(guest_probe_write(p), 0);
	CHECK_EQ(p[100], 0x77);
	CHECK_EQ(p[P - 1], 0x77);
	p[200] = 1;
	CHECK_EQ(p[200], 1);
	CHECK_OK(guest_munmap(p, P));
}

/* A length that is not a page multiple protects the whole last page. */
static void
test_round_up(void)
{
	unsigned char *p;

	p = guest_anon(2 * P, rw);
	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	CHECK_OK(guest_mprotect(p, 1, PROT_READ));
	CHECK_EQ(guest_probe_write(p + P - 16), EFAULT);
	CHECK_EQ(guest_probe_write(p + P), 0);
	CHECK_OK(guest_munmap(p, 2 * P));
}

/* Protecting the middle page of three splits the mapping. */
static void
test_split(void)
{
	unsigned char *p;

	p = guest_anon(3 * P, rw);
	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	memset(p, 0, 3 * P);
	CHECK_OK(guest_mprotect(p + P, P, PROT_NONE));
	CHECK_EQ(guest_probe_write(p), 0);
	CHECK_EQ(guest_probe_write(p + P - 16), 0);
	CHECK_EQ(guest_probe_write(p + P), EFAULT);
	CHECK_EQ(guest_probe_read(p + 2 * P - 16), EFAULT);
	CHECK_EQ(guest_probe_write(p + 2 * P), 0);

	/* Accesses straddling into the forbidden page fault as a whole. */
	CHECK_EQ(guest_probe_write(p + P - 8), EFAULT);
	CHECK_EQ(guest_probe_read(p + P - 4), EFAULT);

	/* One mprotect over all three pages joins them again. */
	CHECK_OK(guest_mprotect(p, 3 * P, PROT_READ));
	CHECK_EQ(guest_probe_read(p + P), 0);
	CHECK_EQ(guest_probe_write(p), EFAULT);
	CHECK_EQ(guest_probe_write(p + 2 * P), EFAULT);
	CHECK_OK(guest_mprotect(p, 3 * P, rw));
	CHECK_EQ(guest_probe_write(p + P), 0);
	CHECK_OK(guest_munmap(p, 3 * P));
}

/* Pages written before a PROT_NONE round trip keep their contents. */
static void
test_data_kept(void)
{
	size_t len = 64 * P;
	size_t bad = 0;
	unsigned char *p;

	p = guest_anon(len, rw);
	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	for (size_t i = 0; i < len; i += P)
		*(uint64_t *)(p + i) = i * 31 + 5;
	CHECK_OK(guest_mprotect(p, len, PROT_NONE));
	CHECK_OK(guest_mprotect(p, len, PROT_READ));
	for (size_t i = 0; i < len; i += P)
		if (*(uint64_t *)(p + i) != i * 31 + 5)
			bad++;
	CHECK(bad == 0, "%zu of 64 pages changed over mprotect", bad);
	CHECK_OK(guest_munmap(p, len));
}

static void
test_errors(void)
{
	unsigned char *p;

	p = guest_anon(4 * P, rw);
	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	CHECK_ERR(guest_mprotect(p + 1, P, PROT_READ), EINVAL);
	/* Bits outside PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM. */
	CHECK_ERR(guest_mprotect(p, P, 0x40), EINVAL);
	/* Zero length is a no-op success, even on an unaligned-free address. */
	CHECK_OK(guest_mprotect(p, 0, PROT_READ));
	CHECK_EQ(guest_probe_write(p), 0);

	/* A hole anywhere in the range is ENOMEM. */
	CHECK_OK(guest_munmap(p + 2 * P, P));
	CHECK_ERR(guest_mprotect(p + 2 * P, P, PROT_READ), ENOMEM);
	CHECK_ERR(guest_mprotect(p, 4 * P, PROT_READ), ENOMEM);
	CHECK_ERR(guest_mprotect((void *)0xffff800000000000UL, P, PROT_READ),
	    ENOMEM);
	CHECK_OK(guest_munmap(p, 4 * P));
	CHECK_ERR(guest_mprotect(p, P, PROT_READ), ENOMEM);
}

/*
 * Protection keys: where the CPU has none (as in vkernel), pkey_alloc
 * finds none and no key can be used or freed; pkey_mprotect with key -1
 * is mprotect everywhere.
 */
static void
test_pkeys(void)
{
	char *p = guest_anon(2 * GUEST_PAGE, PROT_READ | PROT_WRITE);
	long k;

	CHECK_ERR(syscall(SYS_pkey_alloc, 1, 0), EINVAL);
	CHECK_ERR(syscall(SYS_pkey_alloc, 0, 4), EINVAL);
	CHECK_ERR(syscall(SYS_pkey_free, -1), EINVAL);
	CHECK_ERR(syscall(SYS_pkey_mprotect, p, GUEST_PAGE, PROT_READ, -2),
	    EINVAL);
	CHECK_ERR(syscall(SYS_pkey_mprotect, p + 1, GUEST_PAGE, PROT_READ,
	    -1), EINVAL);
	CHECK_OK(syscall(SYS_pkey_mprotect, p, GUEST_PAGE, PROT_READ, -1));
	CHECK(guest_probe_read(p) == 0 && guest_probe_write(p) == EFAULT,
	    "pkey_mprotect -1 made the page read-only");
	errno = 0;
	k = syscall(SYS_pkey_alloc, 0, 0);
	if (k >= 0) {
		CHECK_OK(syscall(SYS_pkey_free, k));
	} else {
		CHECK(errno == ENOSPC || errno == EINVAL,
		    "pkey_alloc without keys: errno %d", errno);
		CHECK_ERR(syscall(SYS_pkey_free, 1), EINVAL);
		CHECK_ERR(syscall(SYS_pkey_mprotect, p, GUEST_PAGE, PROT_READ,
		    1), EINVAL);
	}
	munmap(p, 2 * GUEST_PAGE);
}

int
main(void)
{
	test_pkeys();
	test_round_trip();
	test_round_up();
	test_split();
	test_data_kept();
	test_errors();
	return guest_done();
}
