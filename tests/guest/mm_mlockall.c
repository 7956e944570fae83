/*
 * Verifies mlockall(MCL_FUTURE) as Linux: the mappings made after it
 * (mmap, a shared memfd, brk, shmat) count in VmLck and are resident at
 * once, or with MCL_ONFAULT only once touched; munlockall, and a later
 * mlockall(MCL_CURRENT) alone, end it; a forked child does not inherit
 * it.  An unprivileged caller's new mappings are held to RLIMIT_MEMLOCK:
 * EAGAIN from mmap past it (also with a limit of 0, where mlockall is
 * EPERM) and from mremap growing a locked mapping past it, an unchanged
 * break from brk.  As guest root and as a user.
 */
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/shm.h>

#include "guest.h"

#define P	GUEST_PAGE
#define BIG	(4UL << 20)     /* past what vkernel fills when mapped */
#define LCK()	guest_status_num("VmLck:")     /* in kB */

#ifndef MCL_ONFAULT
#define MCL_ONFAULT	4
#endif

/* How many of the len bytes at p mincore calls resident. */
static size_t
resident(void *p, size_t len)
{
	static unsigned char vec[BIG / P];
	size_t n = 0;

	if (mincore(p, len, vec) != 0)
		return (size_t)-1;
	for (size_t i = 0; i < len / P; i++)
		n += vec[i] & 1;
	return n * P;
}

/* A shared mapping of a new memfd of len bytes, none of it touched. */
static char *
memfd_map(size_t len)
{
	int fd = (int)syscall(SYS_memfd_create, "mla", 0);
	char *p;

	if (fd < 0 || ftruncate(fd, (off_t)len) != 0)
		return MAP_FAILED;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p;
}

static void
test_future(void)
{
	long base = LCK();
	char *p, *q;

	CHECK_OK(mlockall(MCL_FUTURE));
	CHECK_EQ(LCK(), base);
	p = guest_anon(BIG, PROT_READ | PROT_WRITE);
	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	CHECK_EQ(LCK(), base + (long)(BIG >> 10));
	CHECK_EQ(resident(p, BIG), BIG);
	q = memfd_map(16 * P);
	if (CHECK(q != MAP_FAILED, "memfd mmap")) {
		CHECK_EQ(resident(q, 16 * P), 16 * P);
		CHECK_EQ(LCK(), base + (long)((BIG + 16 * P) >> 10));
		CHECK_EQ(q[5 * P], 0);
		guest_munmap(q, 16 * P);
	}
	/* PROT_NONE counts, but has nothing to fill. */
	q = guest_anon(4 * P, PROT_NONE);
	CHECK_EQ(LCK(), base + (long)((BIG + 4 * P) >> 10));
	CHECK_EQ(resident(q, 4 * P), 0);
	guest_munmap(q, 4 * P);
	guest_munmap(p, BIG);
	CHECK_EQ(LCK(), base);
	/*
	 * MCL_CURRENT alone locks what is there and ends MCL_FUTURE (as
	 * root: vkernel maps the whole stack limit, past a user's
	 * RLIMIT_MEMLOCK, where Linux maps what the stack has used).
	 */
	if (getuid() == 0) {
		CHECK_OK(mlockall(MCL_CURRENT));
		base = LCK();
		q = guest_anon(4 * P, PROT_READ);
		CHECK_EQ(LCK(), base);
		guest_munmap(q, 4 * P);
	}
	CHECK_OK(munlockall());
	CHECK_EQ(LCK(), 0);
}

static void
test_onfault(void)
{
	char *p;

	CHECK_OK(mlockall(MCL_FUTURE | MCL_ONFAULT));
	p = guest_anon(BIG, PROT_READ | PROT_WRITE);
	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	CHECK_EQ(LCK(), (long)(BIG >> 10));
	CHECK_EQ(resident(p, BIG), 0);
	p[3 * P] = 1;
	CHECK(resident(p, BIG) >= P, "touched: %zu", resident(p, BIG));
	guest_munmap(p, BIG);
	/* munlockall ends MCL_FUTURE. */
	CHECK_OK(munlockall());
	p = guest_anon(4 * P, PROT_READ);
	CHECK_EQ(LCK(), 0);
	guest_munmap(p, 4 * P);
}

/* brk and shmat under MCL_FUTURE; a fork's child is not under it. */
static void
test_brk_shm_fork(void)
{
	char *top = (char *)syscall(SYS_brk, 0), *s;
	pid_t pid;
	int id, st;

	CHECK_OK(mlockall(MCL_FUTURE));
	if (CHECK_EQ(syscall(SYS_brk, top + 8 * P), (long)(top + 8 * P))) {
		CHECK_EQ(LCK(), (long)((8 * P) >> 10));
		CHECK_EQ(resident(top, 8 * P), 8 * P);
		CHECK_EQ(syscall(SYS_brk, top), (long)top);
	}
	CHECK_EQ(LCK(), 0);
	id = shmget(IPC_PRIVATE, 16 * P, IPC_CREAT | 0600);
	if (CHECK(id >= 0, "shmget")) {
		s = shmat(id, NULL, 0);
		if (CHECK(s != (void *)-1, "shmat")) {
			CHECK_EQ(LCK(), (long)((16 * P) >> 10));
			CHECK_EQ(resident(s, 16 * P), 16 * P);
			CHECK_OK(shmdt(s));
		}
		CHECK_OK(shmctl(id, IPC_RMID, NULL));
	}
	if ((pid = fork()) == 0) {
		char *c = guest_anon(4 * P, PROT_READ);

		_exit(c != MAP_FAILED && LCK() == 0 ? 0 : 1);
	}
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "child: %#x", st);
	CHECK_OK(munlockall());
}

/* An unprivileged caller: new locked mappings within RLIMIT_MEMLOCK. */
static void
test_limit(void)
{
	struct rlimit old, rl, zero;
	char *top = (char *)syscall(SYS_brk, 0), *p;

	/* Soft limits only: a user may then set the old one again. */
	CHECK_OK(getrlimit(RLIMIT_MEMLOCK, &old));
	rl = (struct rlimit){ 16 * P, old.rlim_max };
	zero = (struct rlimit){ 0, old.rlim_max };
	CHECK_OK(setrlimit(RLIMIT_MEMLOCK, &rl));
	CHECK_OK(mlockall(MCL_FUTURE));
	p = guest_anon(8 * P, PROT_READ);
	CHECK(p != MAP_FAILED, "within the limit");
	CHECK(mmap(NULL, 9 * P, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
	    0) == MAP_FAILED && errno == EAGAIN, "past the limit: EAGAIN");
	CHECK_EQ(syscall(SYS_brk, top + 9 * P), (long)top);
	CHECK(mremap(p, 8 * P, 17 * P, MREMAP_MAYMOVE) == MAP_FAILED &&
	    errno == EAGAIN, "a locked mapping grown past it: EAGAIN");
	CHECK_EQ(LCK(), (long)((8 * P) >> 10));
	guest_munmap(p, 8 * P);
	/* A limit of 0: mmap is EAGAIN, not EPERM; mlockall is EPERM. */
	CHECK_OK(setrlimit(RLIMIT_MEMLOCK, &zero));
	CHECK(mmap(NULL, P, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
	    0) == MAP_FAILED && errno == EAGAIN, "limit 0: EAGAIN");
	CHECK_ERR(mlockall(MCL_FUTURE), EPERM);
	CHECK_OK(munlockall());
	p = guest_anon(P, PROT_READ);
	CHECK(p != MAP_FAILED, "unlocked again");
	guest_munmap(p, P);
	CHECK_OK(setrlimit(RLIMIT_MEMLOCK, &old));
}

static void
tests(void)
{
	struct rlimit rl = { 2 * BIG, 2 * BIG };

	/* Room for the checks of a user (root is not limited). */
	if (getuid() == 0)
		CHECK_OK(setrlimit(RLIMIT_MEMLOCK, &rl));
	CHECK_EQ(LCK(), 0);
	test_future();
	test_onfault();
	test_brk_shm_fork();
	if (getuid() != 0)
		test_limit();
}

int
main(void)
{
	return guest_main_twice(tests);
}
