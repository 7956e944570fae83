/*
 * Verifies that a fork's child and parent each keep their own memory
 * around the addresses both write at once, the stack and the TLS of the
 * forking thread (which the child gets a copy of at the fork rather than
 * at its first write): each sees the bytes of the fork until it writes
 * them itself, never the other's writes, across the 64 KiB windows on
 * either side of the stack pointer, in a process of one thread and of
 * two (the other writing its own stack all the while).  The same for
 * small writable memory, which the child may get a copy of at the fork
 * too: the program's bss and private mappings of 4 KiB to 68 KiB, more
 * of them than such copies go to.
 */
#include <pthread.h>
#include <sys/mman.h>

#include "guest.h"

#define BUF	(160 * 1024)
#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static __thread unsigned char tls[3 * 4096];
static unsigned char bss[40000];
static const size_t small_len[] = { 4096, 32768, 65536, 69632, 61440, 61440,
	61440, 61440, 61440, 8192 };
static struct {
	volatile unsigned char *p;
	size_t n;
} reg[3 + NELEM(small_len)];

static void
fill(volatile unsigned char *p, size_t n, unsigned char seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i / 4096 + i);
}

static bool
holds(const volatile unsigned char *p, size_t n, unsigned char seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(seed + i / 4096 + i))
			return false;
	return true;
}

/*
 * Fork with buf (on the stack) and tls holding seed 1: the child checks
 * them, writes seed 2, lets the parent check its own still hold seed 1
 * and write seed 3, then checks its own hold seed 2.
 */
static void
fill_all(unsigned char seed)
{
	for (size_t i = 0; i < NELEM(reg); i++)
		fill(reg[i].p, reg[i].n, seed);
}

/* The first region (0: the stack) that does not hold seed, or -1. */
static int
first_not_holding(unsigned char seed)
{
	for (size_t i = 0; i < NELEM(reg); i++)
		if (!holds(reg[i].p, reg[i].n, seed))
			return (int)i;
	return -1;
}

static void
check_fork(volatile unsigned char *buf, const char *what)
{
	int up[2], down[2], bad;
	char c;
	pid_t pid;
	int st;

	reg[0].p = buf;
	reg[0].n = BUF;
	reg[1].p = tls;
	reg[1].n = sizeof(tls);
	fill_all(1);
	CHECK_OK(pipe(up));
	CHECK_OK(pipe(down));
	pid = fork();
	if (pid == 0) {
		bool ok = first_not_holding(1) < 0;

		fill_all(2);
		if (write(up[1], "x", 1) != 1 || read(down[0], &c, 1) != 1)
			_exit(3);
		ok = ok && first_not_holding(2) < 0;
		_exit(ok ? 0 : 1);
	}
	CHECK(pid > 0, "%s: fork", what);
	if (pid < 0)
		return;
	CHECK(read(up[0], &c, 1) == 1, "%s: child's word", what);
	bad = first_not_holding(1);
	CHECK(bad < 0, "%s: the child's writes show in the parent's region "
	    "%d (0 the stack, 1 the TLS, 2 the bss)", what, bad);
	fill_all(3);
	CHECK(write(down[1], "x", 1) == 1, "%s: word to the child", what);
	CHECK(waitpid(pid, &st, 0) == pid, "%s: waitpid", what);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: the child saw "
	    "other bytes than the fork's or its own (status %#x)", what, st);
	CHECK(first_not_holding(3) < 0, "%s: the parent's own writes", what);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}

static volatile int stop;

/* A sibling that writes its own stack until told to stop. */
static void *
scribble(void *arg)
{
	volatile unsigned char mine[8192];

	(void)arg;
	while (!stop)
		fill(mine, sizeof(mine), 7);
	return NULL;
}

int
main(void)
{
	volatile unsigned char buf[BUF];
	unsigned char *at;
	size_t all = 0;
	pthread_t t;

	/* Each small mapping apart from the next, by a page of nothing. */
	for (size_t i = 0; i < NELEM(small_len); i++)
		all += small_len[i] + 4096;
	at = mmap(NULL, all, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(at != MAP_FAILED, "mmap %zu", all);
	if (at == MAP_FAILED)
		return guest_done();
	reg[2].p = bss;
	reg[2].n = sizeof(bss);
	for (size_t i = 0; i < NELEM(small_len); i++) {
		CHECK_OK(mprotect(at, small_len[i], PROT_READ | PROT_WRITE));
		reg[3 + i].p = at;
		reg[3 + i].n = small_len[i];
		at += small_len[i] + 4096;
	}
	check_fork(buf, "one thread");
	check_fork(buf, "one thread, again");
	CHECK_EQ(pthread_create(&t, NULL, scribble, NULL), 0);
	check_fork(buf, "two threads");
	stop = 1;
	CHECK_EQ(pthread_join(t, NULL), 0);
	return guest_done();
}
