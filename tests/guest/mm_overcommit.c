/*
 * Overcommit as Linux's default heuristic (vm.overcommit_memory 0):
 * reservations far larger than memory are made, and take memory only
 * where they are touched.
 *
 *  - 64 TiB of PROT_NONE with MAP_NORESERVE (AddressSanitizer's shadow
 *    gap, a garbage collector's heap) is made, and part of it made
 *    read-write with mprotect and used;
 *  - 1 TiB read-write with MAP_NORESERVE is made and touched once a
 *    GiB: each touched page holds what was written, the rest read zero,
 *    and a forked child sees the same and writes its own copies;
 *  - in mode 0, a read-write private mapping larger than all memory
 *    without MAP_NORESERVE is ENOMEM (__vm_enough_memory()'s heuristic);
 *  - a 64 GiB memfd mapped shared whole (as a vkernel maps its RAM file)
 *    takes memory only for the pages written, which read(2) sees, and
 *    leaves memory for the rest when it goes.
 *
 * The memory touched must fit any --mem: the test touches about 1100
 * pages.  Run as root and again as uid 65534.
 *
 * With "modes" (inside vkernel only: natively it would change the host's
 * setting), guest root switches vm.overcommit_memory: 1 makes any
 * mapping, 2 charges every one in full when made and ignores
 * MAP_NORESERVE, 3 is EINVAL; uid 65534 may not write it (EACCES).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "guest.h"

#define GiB	(1UL << 30)
#define TiB	(1UL << 40)

static const int rw = PROT_READ | PROT_WRITE;

/* /proc/sys/vm/overcommit_memory, or -1. */
static int
overcommit_mode(void)
{
	char buf[16] = "";
	int fd = open("/proc/sys/vm/overcommit_memory", O_RDONLY);
	ssize_t n;

	if (!CHECK(fd >= 0, "open overcommit_memory"))
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (!CHECK(n == 2 && buf[1] == '\n' && buf[0] >= '0' &&
	    buf[0] <= '2', "overcommit_memory reads '%s'", buf))
		return -1;
	return buf[0] - '0';
}

static void
check_prot_none_reserve(void)
{
	size_t len = 64 * TiB;
	char *p = guest_mmap(NULL, len, PROT_NONE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (!CHECK(p != MAP_FAILED, "mmap 64 TiB PROT_NONE NORESERVE"))
		return;
	CHECK_EQ(guest_probe_read(p + len / 2), EFAULT);
	/* Part of it made usable, as a heap grows into its reservation. */
	CHECK_OK(guest_mprotect(p + 32 * TiB, 64 * GUEST_PAGE, rw));
	p[32 * TiB] = 1;
	p[32 * TiB + 63 * GUEST_PAGE] = 2;
	CHECK(p[32 * TiB] == 1 && p[32 * TiB + 63 * GUEST_PAGE] == 2 &&
	    p[32 * TiB + GUEST_PAGE] == 0, "mprotected part of a reservation");
	/* And a large part, charged only as touched. */
	CHECK_OK(guest_mprotect(p + TiB, 4 * GiB, rw));
	p[TiB + 3 * GiB] = 3;
	CHECK_EQ(p[TiB + 3 * GiB], 3);
	CHECK_EQ(guest_probe_read(p + TiB + 4 * GiB), EFAULT);
	CHECK_OK(guest_munmap(p, len));
}

/* Every touched page holds its mark, an untouched one zero. */
static bool
sparse_ok(const volatile char *p, size_t len, char base)
{
	for (size_t off = 0; off < len; off += GiB) {
		if (p[off] != (char)(base + off / GiB) ||
		    p[off + GUEST_PAGE] != 0 || p[off + GiB / 2] != 0)
			return false;
	}
	return true;
}

static void
check_sparse_rw(void)
{
	size_t len = TiB;
	char *p = guest_mmap(NULL, len, rw, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_NORESERVE, -1, 0);
	pid_t pid;
	int st;

	if (!CHECK(p != MAP_FAILED, "mmap 1 TiB read-write NORESERVE"))
		return;
	for (size_t off = 0; off < len; off += GiB)
		p[off] = (char)(off / GiB);
	CHECK(sparse_ok(p, len, 0), "1 TiB touched once a GiB");
	/* The kernel writes into an untouched page as the program would. */
	CHECK_EQ(guest_probe_write(p + 5 * GiB + 8 * GUEST_PAGE), 0);
	pid = fork();
	if (pid == 0) {
		bool ok = sparse_ok(p, len, 0);

		for (size_t off = 0; off < len; off += GiB)
			p[off] = (char)(off / GiB + 1);
		_exit(ok && sparse_ok(p, len, 1) ? 0 : 1);
	}
	CHECK(pid > 0, "fork");
	if (pid > 0) {
		CHECK_EQ(waitpid(pid, &st, 0), pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "child over the sparse mapping: status %#x", st);
	}
	CHECK(sparse_ok(p, len, 0), "parent's pages after the child wrote");
	CHECK_OK(guest_munmap(p, len));
}

/*
 * Pages written in order and then some megabytes ahead (past what the
 * run written in order grows by at once, within its length), in two
 * reservations touched in turn: each page keeps what was written to it,
 * whichever way vkernel gave the pages memory.
 */
static void
check_fill_order(void)
{
	size_t len = 64 << 20, npg = len / GUEST_PAGE, bad = 0;
	char *a = guest_mmap(NULL, len, rw, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_NORESERVE, -1, 0);
	char *b = guest_mmap(NULL, len, rw, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_NORESERVE, -1, 0);

	if (!CHECK(a != MAP_FAILED && b != MAP_FAILED, "two reservations"))
		return;
	for (size_t i = 0; i < (4 << 20) / GUEST_PAGE; i++)
		a[i * GUEST_PAGE] = (char)i;
	for (size_t i = (10 << 20) / GUEST_PAGE; i < npg; i += 97)
		a[i * GUEST_PAGE] = (char)i;
	for (size_t i = 0; i < npg; i++)
		b[i * GUEST_PAGE] = (char)(i + 1);
	for (size_t i = 0; i < npg; i++) {
		char want = i < (4 << 20) / GUEST_PAGE ||
		    (i >= (10 << 20) / GUEST_PAGE &&
		    (i - (10 << 20) / GUEST_PAGE) % 97 == 0) ? (char)i : 0;

		bad += a[i * GUEST_PAGE] != want;
		bad += b[i * GUEST_PAGE] != (char)(i + 1);
	}
	CHECK(bad == 0, "%zu pages lost what was written", bad);
	CHECK_OK(guest_munmap(a, len));
	CHECK_OK(guest_munmap(b, len));
}

static void
check_sparse_memfd(void)
{
	size_t len = 64 * GiB;
	int fd = (int)syscall(SYS_memfd_create, "sparse", 0);
	struct stat st;
	char *p, c = 0;

	if (!CHECK(fd >= 0, "memfd_create"))
		return;
	CHECK_OK(ftruncate(fd, (off_t)len));
	p = guest_mmap(NULL, len, rw, MAP_SHARED, fd, 0);
	if (CHECK(p != MAP_FAILED, "mmap a 64 GiB memfd shared")) {
		p[0] = 1;
		p[32 * GiB] = 2;
		p[len - 1] = 3;
		CHECK(p[GiB] == 0 && p[32 * GiB] == 2, "sparse memfd pages");
		CHECK_EQ(pread(fd, &c, 1, (off_t)(32 * GiB)), 1);
		CHECK_EQ(c, 2);
		CHECK_OK(fstat(fd, &st));
		CHECK(st.st_blocks * 512 <= (1 << 20), "%lld blocks held",
		    (long long)st.st_blocks);
		CHECK_OK(guest_munmap(p, len));
	}
	close(fd);
	p = guest_anon(GiB / 4, rw);
	if (CHECK(p != MAP_FAILED, "256 MiB after the memfd went")) {
		memset(p, 1, GiB / 4);
		CHECK_OK(guest_munmap(p, GiB / 4));
	}
}

static void
check_heuristic(void)
{
	char *p;

	if (overcommit_mode() != 0)
		return;
	/* More than any memory there is, and no MAP_NORESERVE. */
	p = guest_mmap(NULL, 64 * TiB, rw, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p == MAP_FAILED && errno == ENOMEM,
	    "64 TiB read-write without NORESERVE: %p", (void *)p);
	if (p != MAP_FAILED)
		guest_munmap(p, 64 * TiB);
	/* Read-only commits nothing. */
	p = guest_mmap(NULL, 64 * TiB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (CHECK(p != MAP_FAILED, "64 TiB read-only"))
		CHECK_OK(guest_munmap(p, 64 * TiB));
}

/* Write text to overcommit_memory: 0 or the errno. */
static int
set_mode(const char *text)
{
	return guest_write_file("/proc/sys/vm/overcommit_memory", text);
}

static int
modes(void)
{
	size_t big = 64 * TiB;
	char *p;
	pid_t pid;
	int st;

	if (geteuid() != 0)
		return guest_skip("only root may set overcommit_memory");
	CHECK_EQ(set_mode("1"), 0);
	CHECK_EQ(overcommit_mode(), 1);
	p = guest_mmap(NULL, big, rw, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (CHECK(p != MAP_FAILED, "mode 1: 64 TiB read-write"))
		CHECK_OK(guest_munmap(p, big));
	CHECK_EQ(set_mode("2\n"), 0);
	p = guest_mmap(NULL, TiB, rw, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_NORESERVE, -1, 0);
	CHECK(p == MAP_FAILED && errno == ENOMEM,
	    "mode 2: 1 TiB with MAP_NORESERVE: %p", (void *)p);
	p = guest_mmap(NULL, big, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_NORESERVE, -1, 0);
	if (CHECK(p != MAP_FAILED, "mode 2: 64 TiB PROT_NONE"))
		CHECK_OK(guest_munmap(p, big));
	CHECK_EQ(set_mode("3"), EINVAL);
	CHECK_EQ(set_mode("-1"), EINVAL);
	CHECK_EQ(overcommit_mode(), 2);
	CHECK_EQ(set_mode("0"), 0);
	pid = fork();
	if (pid == 0) {
		if (syscall(SYS_setresuid, 65534, 65534, 65534) < 0)
			_exit(77);
		_exit(set_mode("1") == EACCES && overcommit_mode() == 0 ? 0 : 1);
	}
	if (CHECK(pid > 0, "fork") && CHECK_EQ(waitpid(pid, &st, 0), pid))
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "uid 65534's write: status %#x", st);
	check_sparse_rw();
	return guest_done();
}

static void
tests(void)
{
	check_prot_none_reserve();
	check_sparse_rw();
	check_fill_order();
	check_sparse_memfd();
	check_heuristic();
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "modes") == 0)
		return modes();
	return guest_main_twice(tests);
}
