/*
 * Verifies vm.max_map_count: /proc/sys/vm/max_map_count reads the limit,
 * and a process that cuts one mapping into ever more (mprotect on every
 * other page of 70,000) is refused with ENOMEM once it has that many,
 * as are a hole punched by munmap, a new mmap and a moving mremap, while
 * calls that make no more mappings still work; unmapping brings it back
 * under.  As root and then, when started as root, again as uid 65534.
 */
#include <fcntl.h>
#include <stdlib.h>

#include "guest.h"

#define P	GUEST_PAGE
#define NPAGES	70000

/* /proc/sys/vm/max_map_count, or -1. */
static long
max_map_count(void)
{
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
	long n = -1;

	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/*
 * The lines of /proc/self/maps: one a mapping.  Read in large pieces:
 * vkernel makes the whole text again for each read.
 */
static long
maps_lines(void)
{
	size_t size = 16 << 20;
	char *buf = malloc(size);
	long n = 0, got;
	int fd = open("/proc/self/maps", O_RDONLY);

	if (buf == NULL || fd < 0) {
		free(buf);
		return -1;
	}
	while ((got = read(fd, buf, size)) > 0)
		for (long i = 0; i < got; i++)
			n += buf[i] == '\n';
	close(fd);
	free(buf);
	return got < 0 ? -1 : n;
}

/*
 * New mappings, none joining another, run into the limit (Linux lets
 * the count pass it by one), and go again.
 */
static void
check_mmap_refused(void)
{
	void *q[4];
	int n, prot;

	for (n = 0; n < 4; n++) {
		prot = n % 2 == 0 ? PROT_READ : PROT_WRITE;
		q[n] = guest_mmap(NULL, P, prot, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
		if (q[n] == MAP_FAILED)
			break;
	}
	CHECK(n < 4 && errno == ENOMEM, "mmap past the limit: %d made", n);
	while (n > 0)
		CHECK_OK(guest_munmap(q[--n], P));
}

static void
check_limit(const void *arg)
{
	long max = *(const long *)arg;
	unsigned char *p, *q;
	long i, lines;

	p = guest_anon(NPAGES * (size_t)P, PROT_READ | PROT_WRITE);
	if (!CHECK(p != MAP_FAILED, "mmap %d pages", NPAGES))
		return;
	/* Each mprotect cuts a page out of the mapping after it. */
	errno = 0;
	for (i = 1; i < NPAGES - 1; i += 2)
		if (guest_mprotect(p + i * P, P, PROT_READ) != 0)
			break;
	CHECK(i < NPAGES - 1 && errno == ENOMEM,
	    "mprotect refused at page %ld of %d", i, NPAGES);
	lines = maps_lines();
	/* Linux's, or vkernel's, whose stubs' own mappings take a few. */
	CHECK(lines >= max - 32 && lines <= max + 2,
	    "%ld mappings at the limit of %ld", lines, max);

	/*
	 * Linux's refused mprotect has made its first cut, and is at the
	 * limit; another cut takes any other there.
	 */
	(void)guest_mprotect(p + (NPAGES - 1) * (size_t)P, P, PROT_READ);
	/* What would make more mappings is refused... */
	CHECK_ERR(guest_munmap(p + (i + 4) * P, P), ENOMEM);
	CHECK_ERR(syscall(SYS_mremap, p, P, 2 * P, MREMAP_MAYMOVE), ENOMEM);
	check_mmap_refused();
	/* ...what makes none is not, and the memory is still there. */
	CHECK_OK(guest_mprotect(p + i * P, P, PROT_READ | PROT_WRITE));
	p[(i + 4) * P] = 7;
	CHECK_EQ(p[(i + 4) * P], 7);
	/* A mapping joined to its neighbours makes room for a hole. */
	CHECK_OK(guest_mprotect(p + (i - 2) * P, P, PROT_READ | PROT_WRITE));
	CHECK_OK(guest_munmap(p + (i + 4) * P, P));

	/* Unmapped, the mappings are few again. */
	CHECK_OK(guest_munmap(p, NPAGES * (size_t)P));
	lines = maps_lines();
	CHECK(lines > 0 && lines < 100, "%ld mappings after munmap", lines);
	q = guest_anon(4 * P, PROT_READ | PROT_WRITE);
	if (CHECK(q != MAP_FAILED, "mmap after munmap")) {
		CHECK_OK(guest_mprotect(q + P, P, PROT_READ));
		CHECK_OK(guest_munmap(q, 4 * P));
	}
}

int
main(void)
{
	long max = max_map_count();

	if (!CHECK(max > 0, "read /proc/sys/vm/max_map_count"))
		return guest_done();
	/* A host that allows more than this test makes checks nothing. */
	if (max > NPAGES - 100)
		return guest_skip("mm_mapcount: vm.max_map_count is %ld", max);
	check_limit(&max);
	guest_as_nobody(check_limit, &max);
	return guest_done();
}
