/*
 * Verifies madvise(2) on private anonymous memory: MADV_DONTNEED makes
 * exactly the advised pages read back as zeros while the mapping stays,
 * the hints that change nothing visible keep the data, and bad advice, an
 * unaligned address or an unmapped range give EINVAL or ENOMEM.  A
 * MADV_DONTNEED that runs from below the vdso's [vvar] pages to the top
 * of the address space stops at [vvar] with EINVAL, as Linux's walk
 * does: the memory below is discarded and the stack above keeps its
 * contents (a stack read back as zeros kills the test).
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include "guest.h"

#define P	GUEST_PAGE
#define TOP	0x7ffffffff000UL	/* Linux's TASK_SIZE on x86-64 */

static int
raw_madvise(void *addr, size_t len, int advice)
{
	return (int)syscall(SYS_madvise, addr, len, advice);
}

static void
test_dontneed(void)
{
	unsigned char *p;

	p = guest_anon(8 * P, PROT_READ | PROT_WRITE);
	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	memset(p, 0xe1, 8 * P);
	CHECK_OK(raw_madvise(p + 2 * P, 3 * P, MADV_DONTNEED));
	CHECK(all_byte(p, 2 * P, 0xe1), "pages before the advised ones kept");
	CHECK(all_byte(p + 2 * P, 3 * P, 0), "MADV_DONTNEED pages read zero");
	CHECK(all_byte(p + 5 * P, 3 * P, 0xe1), "pages after kept");
	/* The pages are still mapped and writable. */
	p[3 * P] = 4;
	CHECK_EQ(p[3 * P], 4);
	CHECK_EQ(guest_probe_write(p + 4 * P), 0);

	/* The whole mapping, with a length that is not a page multiple. */
	memset(p, 0xe2, 8 * P);
	CHECK_OK(raw_madvise(p, 8 * P - 100, MADV_DONTNEED));
	CHECK(all_byte(p, 8 * P, 0), "all pages read zero");
	CHECK_OK(guest_munmap(p, 8 * P));
}

static void
test_harmless_hints(void)
{
	static const struct {
		int		 advice;
		const char	*name;
	} hints[] = {
		{ MADV_NORMAL, "MADV_NORMAL" },
		{ MADV_RANDOM, "MADV_RANDOM" },
		{ MADV_SEQUENTIAL, "MADV_SEQUENTIAL" },
		{ MADV_WILLNEED, "MADV_WILLNEED" },
	};
	unsigned char *p;

	p = guest_anon(4 * P, PROT_READ | PROT_WRITE);
	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	memset(p, 0x3c, 4 * P);
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		CHECK(raw_madvise(p, 4 * P, hints[i].advice) == 0, "%s",
		    hints[i].name);
		CHECK(all_byte(p, 4 * P, 0x3c), "data kept after %s",
		    hints[i].name);
	}
	/* Zero length is a no-op success. */
	CHECK_OK(raw_madvise(p, 0, MADV_DONTNEED));
	CHECK(all_byte(p, 4 * P, 0x3c), "data kept after zero-length advice");
	/* MADV_FREE may drop the pages lazily: either the data or zeros. */
	CHECK(raw_madvise(p, 4 * P, MADV_FREE) == 0, "MADV_FREE");
	for (size_t i = 0; i < 4 * P; i += P)
		CHECK(p[i] == 0x3c || p[i] == 0, "after MADV_FREE: %#x", p[i]);
	CHECK_OK(guest_munmap(p, 4 * P));
}

/* The start of the mapping /proc/self/maps names name, or 0. */
static uintptr_t
maps_start(const char *name)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long lo = 0, hi;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, name) != NULL &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
		else
			lo = 0;
	fclose(f);
	return lo;
}

static void
test_dontneed_vvar(void)
{
	volatile uint64_t mark = 0x5eed5eed5eed5eedULL;
	uintptr_t vvar = maps_start("[vvar]");
	unsigned char *p = MAP_FAILED;

	if (!CHECK(vvar != 0, "[vvar] in /proc/self/maps") ||
	    !CHECK((uintptr_t)&mark > vvar, "the stack lies above [vvar]"))
		return;
	/* A page in the free space just below [vvar]. */
	for (uintptr_t a = vvar - P; p == MAP_FAILED && a > vvar - 64 * P;
	    a -= P)
		p = guest_mmap((void *)a, P, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (!CHECK(p != MAP_FAILED, "mmap below [vvar]"))
		return;
	memset(p, 0x5a, P);
	CHECK_ERR(raw_madvise(p, TOP - (uintptr_t)p, MADV_DONTNEED), EINVAL);
	CHECK(all_byte(p, P, 0), "the page below [vvar] was discarded");
	CHECK_EQ(mark, 0x5eed5eed5eed5eedULL);
	CHECK_OK(guest_munmap(p, P));
}

static void
test_errors(void)
{
	unsigned char *p;

	p = guest_anon(2 * P, PROT_READ | PROT_WRITE);
	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	memset(p, 0x71, 2 * P);
	CHECK_ERR(raw_madvise(p, P, 12345), EINVAL);
	CHECK_ERR(raw_madvise(p, P, -1), EINVAL);
	CHECK_ERR(raw_madvise(p + 1, P, MADV_DONTNEED), EINVAL);
	CHECK_ERR(raw_madvise(p + 1, P, MADV_NORMAL), EINVAL);
	/* MADV_REMOVE needs a shared mapping. */
	CHECK_ERR(raw_madvise(p, P, MADV_REMOVE), EINVAL);
	CHECK(all_byte(p, 2 * P, 0x71), "refused advice left the data");
	CHECK_OK(guest_munmap(p, 2 * P));
	CHECK_ERR(raw_madvise(p, 2 * P, MADV_DONTNEED), ENOMEM);
	CHECK_ERR(raw_madvise(p, 2 * P, MADV_WILLNEED), ENOMEM);
}

int
main(void)
{
	test_dontneed();
	test_harmless_hints();
	test_errors();
	test_dontneed_vvar();
	return guest_done();
}
