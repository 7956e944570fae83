/*
 * Verifies anonymous mmap(2) and munmap(2): fresh memory is zeroed,
 * page-aligned and writable, MAP_FIXED replaces and MAP_FIXED_NOREPLACE
 * refuses, hints are honoured, bad arguments give the errno Linux gives, and
 * a large mapping can be touched at every page.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "guest.h"

#define P	GUEST_PAGE

static const int anon = MAP_PRIVATE | MAP_ANONYMOUS;
static const int rw = PROT_READ | PROT_WRITE;

/* Tells whether all len bytes at p are zero. */
static bool
all_zero(const void *p, size_t len)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++)
		if (c[i] != 0)
			return false;
	return true;
}

static void
test_basic(void)
{
	unsigned char *p;

	p = guest_anon(16 * P, rw);
	if (!CHECK(p != MAP_FAILED, "mmap 16 pages"))
		return;
	CHECK(((uintptr_t)p & (P - 1)) == 0, "mmap result %p page-aligned", p);
	CHECK((uintptr_t)p >= P, "mmap result %p not in the NULL page", p);
	CHECK(all_zero(p, 16 * P), "fresh anonymous memory is zeroed");
	memset(p, 0x5a, 16 * P);
	CHECK(all_byte(p, 16 * P, 0x5a), "anonymous memory holds writes");
	CHECK_OK(guest_munmap(p, 16 * P));
	CHECK_EQ(guest_probe_write(p), EFAULT);
	CHECK_EQ(guest_probe_write(p + 15 * P), EFAULT);
}

/* A length that is not a page multiple maps the whole last page. */
static void
test_odd_length(void)
{
	unsigned char *p;

	p = guest_anon(100, rw);
	if (!CHECK(p != MAP_FAILED, "mmap 100 bytes"))
		return;
	p[P - 1] = 7;
	CHECK_EQ(p[P - 1], 7);
	CHECK_EQ(guest_probe_write(p + P - 16), 0);
	/* munmap rounds its length up the same way. */
	CHECK_OK(guest_munmap(p, 100));
	CHECK_EQ(guest_probe_write(p + P - 16), EFAULT);
}

static void
test_prot(void)
{
	unsigned char *p;

	p = guest_anon(P, PROT_READ);
	if (CHECK(p != MAP_FAILED, "mmap PROT_READ")) {
		CHECK(all_zero(p, P), "PROT_READ page reads zeros");
		CHECK_EQ(guest_probe_read(p), 0);
		CHECK_EQ(guest_probe_write(p), EFAULT);
		CHECK_OK(guest_munmap(p, P));
	}
	p = guest_anon(P, PROT_NONE);
	if (CHECK(p != MAP_FAILED, "mmap PROT_NONE")) {
		CHECK_EQ(guest_probe_read(p), EFAULT);
		CHECK_EQ(guest_probe_write(p), EFAULT);
		CHECK_OK(guest_munmap(p, P));
	}
}

/* MAP_FIXED over the middle of a mapping replaces just that page. */
static void
test_fixed_replaces(void)
{
	unsigned char *p, *q;

	p = guest_anon(3 * P, rw);
	if (!CHECK(p != MAP_FAILED, "mmap 3 pages"))
		return;
	memset(p, 0xaa, 3 * P);
	q = guest_mmap(p + P, P, rw, anon | MAP_FIXED, -1, 0);
	CHECK(q == p + P, "MAP_FIXED returns the address asked: %p, %p", q,
	    p + P);
	CHECK(all_byte(p, P, 0xaa), "page before the MAP_FIXED one kept");
	CHECK(all_zero(p + P, P), "MAP_FIXED page is fresh and zeroed");
	CHECK(all_byte(p + 2 * P, P, 0xaa), "page after MAP_FIXED one kept");

	/* Replacing with PROT_NONE really drops the old page. */
	q = guest_mmap(p + 2 * P, P, PROT_NONE, anon | MAP_FIXED, -1, 0);
	CHECK(q == p + 2 * P, "MAP_FIXED PROT_NONE at %p: %p", p + 2 * P, q);
	CHECK_EQ(guest_probe_read(p + 2 * P), EFAULT);
	CHECK_OK(guest_munmap(p, 3 * P));
}

static void
test_fixed_noreplace(void)
{
	unsigned char *r, *q;

	/* r..r+2P stays mapped, r+2P..r+4P becomes a hole we own. */
	r = guest_anon(4 * P, rw);
	if (!CHECK(r != MAP_FAILED, "mmap 4 pages"))
		return;
	memset(r, 0x33, 2 * P);
	CHECK_OK(guest_munmap(r + 2 * P, 2 * P));

	CHECK_ERR(guest_mmap(r, P, rw, anon | MAP_FIXED_NOREPLACE, -1, 0),
	    EEXIST);
	/* Overlapping only the last mapped page is still a collision. */
	CHECK_ERR(guest_mmap(r + P, 2 * P, rw, anon | MAP_FIXED_NOREPLACE, -1,
	    0), EEXIST);
	CHECK(all_byte(r, 2 * P, 0x33), "refused NOREPLACE left the data");

	q = guest_mmap(r + 3 * P, P, rw, anon | MAP_FIXED_NOREPLACE, -1, 0);
	CHECK(q == r + 3 * P, "NOREPLACE into a hole: %p, want %p", q,
	    r + 3 * P);
	q = guest_mmap(r + 2 * P, P, rw, anon | MAP_FIXED_NOREPLACE, -1, 0);
	CHECK(q == r + 2 * P, "NOREPLACE into a hole: %p, want %p", q,
	    r + 2 * P);
	CHECK(all_zero(r + 2 * P, 2 * P), "NOREPLACE pages are zeroed");
	CHECK_OK(guest_munmap(r, 4 * P));
}

/* A free, page-aligned hint is taken as is; an unaligned one is rounded. */
static void
test_hint(void)
{
	unsigned char *p, *q;

	p = guest_anon(2 * P, rw);
	if (!CHECK(p != MAP_FAILED, "mmap 2 pages"))
		return;
	p[0] = 1;
	CHECK_OK(guest_munmap(p, 2 * P));
	CHECK_EQ(guest_probe_write(p), EFAULT);

	q = guest_mmap(p, 2 * P, rw, anon, -1, 0);
	CHECK(q == p, "free hint %p is used: got %p", p, q);
	if (q != MAP_FAILED) {
		CHECK(all_zero(q, 2 * P), "remapped hole is zeroed");
		CHECK_OK(guest_munmap(q, 2 * P));
	}

	q = guest_mmap(p + 123, P, rw, anon, -1, 0);
	CHECK(q != MAP_FAILED, "unaligned hint without MAP_FIXED is fine");
	if (q != MAP_FAILED) {
		CHECK(((uintptr_t)q & (P - 1)) == 0, "result %p page-aligned",
		    q);
		CHECK_OK(guest_munmap(q, P));
	}

	/* A hint on top of an existing mapping goes elsewhere, no harm done. */
	p = guest_anon(P, rw);
	if (CHECK(p != MAP_FAILED, "mmap 1 page")) {
		p[0] = 9;
		q = guest_mmap(p, P, rw, anon, -1, 0);
		CHECK(q != MAP_FAILED && q != p, "busy hint %p: got %p", p, q);
		CHECK_EQ(p[0], 9);
		if (q != MAP_FAILED)
			CHECK_OK(guest_munmap(q, P));
		CHECK_OK(guest_munmap(p, P));
	}
}

static void
test_mmap_errors(void)
{
	unsigned char *p;

	CHECK_ERR(guest_mmap(NULL, 0, rw, anon, -1, 0), EINVAL);
	/* One of MAP_PRIVATE or MAP_SHARED is required. */
	CHECK_ERR(guest_mmap(NULL, P, rw, MAP_ANONYMOUS, -1, 0), EINVAL);

	p = guest_anon(2 * P, rw);
	if (CHECK(p != MAP_FAILED, "mmap 2 pages")) {
		CHECK_ERR(guest_mmap(p + 1, P, rw, anon | MAP_FIXED, -1, 0),
		    EINVAL);
		CHECK_ERR(guest_mmap(p + 1, P, rw, anon | MAP_FIXED_NOREPLACE,
		    -1, 0), EINVAL);
		CHECK_OK(guest_munmap(p, 2 * P));
	}
	/* The x86-64 mmap entry checks the offset even for anonymous memory. */
	CHECK_ERR(guest_mmap(NULL, P, rw, anon, -1, 1), EINVAL);

	/* A length that rounds up to zero, and one past the user half. */
	CHECK_ERR(guest_mmap(NULL, (size_t)-1, rw, anon, -1, 0), ENOMEM);
	CHECK_ERR(guest_mmap(NULL, (size_t)1 << 62, rw, anon, -1, 0), ENOMEM);
	/* MAP_FIXED in the kernel half of the address space. */
	CHECK_ERR(guest_mmap((void *)0xffff800000000000UL, P, rw,
	    anon | MAP_FIXED, -1, 0), ENOMEM);
}

/* The fd of an anonymous mapping is ignored, and programs do pass 0. */
static void
test_anon_ignores_fd(void)
{
	unsigned char *p;

	p = guest_mmap(NULL, P, rw, anon, 0, 0);
	if (CHECK(p != MAP_FAILED, "MAP_ANONYMOUS with fd 0")) {
		CHECK(all_zero(p, P), "zeroed");
		CHECK_OK(guest_munmap(p, P));
	}
	p = guest_mmap(NULL, P, rw, anon, 12345, 0);
	if (CHECK(p != MAP_FAILED, "MAP_ANONYMOUS with a closed fd"))
		CHECK_OK(guest_munmap(p, P));
}

static void
test_flags(void)
{
	static const struct {
		int		 flags;
		const char	*name;
	} cases[] = {
		{ MAP_POPULATE, "MAP_POPULATE" },
		{ MAP_NORESERVE, "MAP_NORESERVE" },
		{ MAP_STACK, "MAP_STACK" },
	};
	size_t big = (size_t)1 << 30;
	unsigned char *p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = guest_mmap(NULL, 8 * P, rw, anon | cases[i].flags, -1, 0);
		if (!CHECK(p != MAP_FAILED, "mmap %s", cases[i].name))
			continue;
		CHECK(all_zero(p, 8 * P), "%s memory zeroed", cases[i].name);
		memset(p, 0x11, 8 * P);
		CHECK(all_byte(p, 8 * P, 0x11), "%s memory writable",
		    cases[i].name);
		CHECK_OK(guest_munmap(p, 8 * P));
	}

	/* A big lazy reservation where only a few pages are ever touched. */
	p = guest_mmap(NULL, big, rw, anon | MAP_NORESERVE, -1, 0);
	if (CHECK(p != MAP_FAILED, "1 GiB MAP_NORESERVE")) {
		for (size_t off = 0; off < big; off += big / 16)
			p[off] = (unsigned char)(off >> 26);
		for (size_t off = 0; off < big; off += big / 16)
			CHECK_EQ(p[off], (unsigned char)(off >> 26));
		CHECK_OK(guest_munmap(p, big));
	}
}

static void
test_guest_munmap(void)
{
	unsigned char *p;

	p = guest_anon(3 * P, rw);
	if (!CHECK(p != MAP_FAILED, "mmap 3 pages"))
		return;
	memset(p, 0x44, 3 * P);
	CHECK_ERR(guest_munmap(p + 1, P), EINVAL);
	CHECK_ERR(guest_munmap(p, 0), EINVAL);
	/* A refused munmap leaves everything mapped. */
	CHECK(all_byte(p, 3 * P, 0x44), "data kept after refused munmap");

	/* Unmapping the middle page splits the mapping in two. */
	CHECK_OK(guest_munmap(p + P, P));
	CHECK_EQ(guest_probe_write(p), 0);
	CHECK_EQ(guest_probe_write(p + P), EFAULT);
	CHECK_EQ(guest_probe_write(p + 2 * P), 0);
	CHECK(all_byte(p + 2 * P + 16, P - 16, 0x44), "tail page kept data");

	/* Unmapping a range that is partly or wholly a hole is no error. */
	CHECK_OK(guest_munmap(p, 3 * P));
	CHECK_OK(guest_munmap(p, 3 * P));
	CHECK_EQ(guest_probe_write(p), EFAULT);
	CHECK_EQ(guest_probe_write(p + 2 * P), EFAULT);
}

/* Many small mappings, each its own data, must not be confused. */
static void
test_many(void)
{
	enum { N = 512 };
	static unsigned char *maps[N];
	int bad = 0;

	for (int i = 0; i < N; i++) {
		maps[i] = guest_anon(P, rw);
		if (maps[i] == MAP_FAILED) {
			CHECK(false, "mmap number %d", i);
			return;
		}
		maps[i][0] = (unsigned char)i;
		maps[i][P - 1] = (unsigned char)~i;
	}
	for (int i = 0; i < N; i++)
		if (maps[i][0] != (unsigned char)i ||
		    maps[i][P - 1] != (unsigned char)~i)
			bad++;
	CHECK(bad == 0, "%d of %d small mappings lost their data", bad, N);
	/* Unmap every other one first, so the map gets holes. */
	for (int i = 0; i < N; i += 2)
		CHECK_OK(guest_munmap(maps[i], P));
	bad = 0;
	for (int i = 1; i < N; i += 2)
		if (maps[i][0] != (unsigned char)i)
			bad++;
	CHECK(bad == 0, "%d mappings damaged by unmapping neighbours", bad);
	for (int i = 1; i < N; i += 2)
		CHECK_OK(guest_munmap(maps[i], P));
}

/* 256 MiB written and read back at every page. */
static void
test_large(void)
{
	size_t len = (size_t)256 << 20;
	size_t bad = 0;
	unsigned char *p;

	p = guest_anon(len, rw);
	if (!CHECK(p != MAP_FAILED, "mmap 256 MiB"))
		return;
	for (size_t off = 0; off < len; off += P) {
		if (p[off] != 0 || p[off + P - 1] != 0)
			bad++;
		/* A value per page, so pages mixed up would show. */
		*(uint64_t *)(p + off) = off ^ 0x9e3779b97f4a7c15UL;
	}
	CHECK(bad == 0, "%zu pages of 256 MiB not zeroed", bad);
	bad = 0;
	for (size_t off = 0; off < len; off += P)
		if (*(uint64_t *)(p + off) != (off ^ 0x9e3779b97f4a7c15UL))
			bad++;
	CHECK(bad == 0, "%zu pages of 256 MiB lost their data", bad);
	CHECK_OK(guest_munmap(p, len));
}

/*
 * A shared mapping of a file open read-only shows the file and can never
 * be made writable; msync checks its arguments.
 */
static void
test_shared_readonly(void)
{
	char want[64], path[] = "/tmp/vk-mmap-ro.XXXXXX";
	const char *files[] = { "/etc/passwd", path };
	void *m;
	int fd;

	fd = (int)CHECK_OK(mkstemp(path));
	CHECK_EQ(write(fd, "in tmpfs, shared read-only", 26), 26);
	close(fd);
	for (int i = 0; i < 2; i++) {
		size_t n = i == 1 ? 26 : sizeof(want);

		fd = (int)CHECK_OK(open(files[i], O_RDONLY));
		CHECK_EQ(read(fd, want, n), (long)n);
		m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		CHECK(m != MAP_FAILED, "MAP_SHARED of %s (errno %d)", files[i],
		    errno);
		if (m == MAP_FAILED) {
			close(fd);
			continue;
		}
		CHECK(memcmp(m, want, n) == 0,
		    "the mapping shows %s", files[i]);
		CHECK_ERR(mprotect(m, 4096, PROT_READ | PROT_WRITE), EACCES);
		CHECK_OK(msync(m, 4096, MS_SYNC));
		CHECK_OK(msync(m, 100, MS_ASYNC | MS_INVALIDATE));
		CHECK_ERR(msync((char *)m + 1, 100, MS_SYNC), EINVAL);
		CHECK_ERR(msync(m, 4096, MS_SYNC | MS_ASYNC), EINVAL);
		CHECK_ERR(msync(m, 4096, 0x100), EINVAL);
		CHECK_EQ(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0), MAP_FAILED);
		CHECK_EQ(errno, EACCES);
		munmap(m, 4096);
		CHECK_ERR(msync(m, 4096, MS_SYNC), ENOMEM);
		close(fd);
	}
	unlink(path);
}

/*
 * Private read-only mappings of one host file, in two processes: a write
 * after mprotect changes only the writer's page, never the file's pages
 * that other mappings (and later ones) see.
 */
static void
test_private_file_pages(void)
{
	char want[4096], *m, *m2;
	int fd, st;
	pid_t pid;

	fd = (int)CHECK_OK(open("/proc/self/exe", O_RDONLY));
	CHECK_EQ(read(fd, want, sizeof(want)), (long)sizeof(want));
	m = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
	if (!CHECK(m != MAP_FAILED, "map the program privately")) {
		close(fd);
		return;
	}
	CHECK(memcmp(m, want, sizeof(want)) == 0, "the mapping is the file");
	if ((pid = fork()) == 0) {
		char *c = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);

		if (c == MAP_FAILED || mprotect(c, 4096, PROT_READ |
		    PROT_WRITE) < 0)
			_exit(2);
		c[0] = 'X';
		m[1] = 'Y';   /* no write access: this child dies of SIGSEGV */
		_exit(3);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	    "a write to a read-only file page faults (status %#x)", st);
	CHECK_OK(mprotect(m, 4096, PROT_READ | PROT_WRITE));
	m[0] = 'Z';
	m2 = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(m2 != MAP_FAILED && m2[0] == want[0] && memcmp(m2, want,
	    sizeof(want)) == 0, "a new mapping still shows the file");
	CHECK_EQ(m[0], 'Z');
	CHECK(memcmp(m + 1, want + 1, sizeof(want) - 1) == 0,
	    "the rest of the written page is the file's");
	if (m2 != MAP_FAILED)
		munmap(m2, 4096);
	munmap(m, 8192);
	close(fd);
}

/*
 * A private mapping longer than its file, as ld.so maps a library whole
 * before its segments: the file's bytes, then zero to the end of the
 * last page.  (A page wholly past the end faults natively: not touched.)
 * A segment mapped over it with MAP_FIXED shows the file at its offset.
 */
static void
test_private_past_end(void)
{
	struct stat st;
	size_t len, pages;
	char *want, *m, *seg;
	int fd;

	fd = (int)CHECK_OK(open("/proc/self/exe", O_RDONLY));
	if (!CHECK(fstat(fd, &st) == 0 && st.st_size > (off_t)(2 * P),
	    "the program's size"))
		return;
	len = (size_t)st.st_size;
	pages = (len + P - 1) / P * P;
	want = calloc(1, pages);
	CHECK_EQ(pread(fd, want, len, 0), (long)len);
	m = mmap(NULL, pages + 3 * P, PROT_READ, MAP_PRIVATE, fd, 0);
	if (CHECK(m != MAP_FAILED, "map past the end of the file")) {
		CHECK(memcmp(m, want, pages) == 0,
		    "the file, then zero to the end of its last page");
		seg = mmap(m + P, P, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_FIXED, fd, P);
		CHECK(seg == m + P && memcmp(seg, want + P, P) == 0,
		    "a segment mapped over it");
		CHECK(memcmp(m + 2 * P, want + 2 * P, pages - 2 * P) == 0,
		    "the rest is left alone");
		munmap(m, pages + 3 * P);
	}
	free(want);
	close(fd);
}

/* The /proc/self/maps line of the mapping holding p; false if none. */
static bool
maps_line_of(const void *p, char *line, size_t len)
{
	static char buf[1 << 16];
	int fd = open("/proc/self/maps", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (char *l = buf, *nl, *end; *l != '\0'; l = nl + 1) {
		uintptr_t lo = strtoull(l, &end, 16);

		if ((nl = strchr(l, '\n')) == NULL)
			return false;
		if (lo <= (uintptr_t)p && *end == '-' &&
		    (uintptr_t)p < strtoull(end + 1, NULL, 16)) {
			*nl = '\0';
			snprintf(line, len, "%s", l);
			return true;
		}
	}
	return false;
}

/*
 * /proc/self/maps marks a shared mapping s, a private one p, and names
 * shared anonymous memory as the /dev/zero behind it.
 */
static void
test_maps_shared(void)
{
	char *s = guest_mmap(NULL, GUEST_PAGE, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *p = guest_anon(GUEST_PAGE, PROT_READ);
	char line[512];

	if (!CHECK(s != MAP_FAILED && p != MAP_FAILED, "mmap"))
		return;
	if (CHECK(maps_line_of(s, line, sizeof(line)), "maps line of %p", s))
		CHECK(strstr(line, " rw-s ") != NULL &&
		    strstr(line, "/dev/zero (deleted)") != NULL,
		    "shared anonymous: %s", line);
	if (CHECK(maps_line_of(p, line, sizeof(line)), "maps line of %p", p))
		CHECK(strstr(line, " r--p ") != NULL, "private: %s", line);
	munmap(s, GUEST_PAGE);
	munmap(p, GUEST_PAGE);
}

int
main(void)
{
	test_maps_shared();
	test_shared_readonly();
	test_private_file_pages();
	test_private_past_end();
	test_basic();
	test_odd_length();
	test_prot();
	test_fixed_replaces();
	test_fixed_noreplace();
	test_hint();
	test_mmap_errors();
	test_anon_ignores_fd();
	test_flags();
	test_guest_munmap();
	test_many();
	test_large();
	return guest_done();
}
