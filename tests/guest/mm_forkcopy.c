/*
 * Verifies that a fork's child and parent each keep their own memory
 * around the addresses both write at once, the stack and the TLS of the
 * forking thread (which the child gets a copy of at the fork rather than
 * at its first write): each sees the bytes of the fork until it writes
 * them itself, never the other's writes, across the 64 KiB windows on
 * either side of the stack pointer, in a process of one thread and of
 * two (the other writing its own stack all the while).
 */
#include <pthread.h>

#include "guest.h"

#define BUF	(160 * 1024)

static __thread unsigned char tls[3 * 4096];

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
check_fork(volatile unsigned char *buf, const char *what)
{
	int up[2], down[2];
	char c;
	pid_t pid;
	int st;

	fill(buf, BUF, 1);
	fill(tls, sizeof(tls), 1);
	CHECK_OK(pipe(up));
	CHECK_OK(pipe(down));
	pid = fork();
	if (pid == 0) {
		bool ok = holds(buf, BUF, 1) && holds(tls, sizeof(tls), 1);

		fill(buf, BUF, 2);
		fill(tls, sizeof(tls), 2);
		if (write(up[1], "x", 1) != 1 || read(down[0], &c, 1) != 1)
			_exit(3);
		ok = ok && holds(buf, BUF, 2) && holds(tls, sizeof(tls), 2);
		_exit(ok ? 0 : 1);
	}
	CHECK(pid > 0, "%s: fork", what);
	if (pid < 0)
		return;
	CHECK(read(up[0], &c, 1) == 1, "%s: child's word", what);
	CHECK(holds(buf, BUF, 1), "%s: the child's stack writes show in the "
	    "parent", what);
	CHECK(holds(tls, sizeof(tls), 1), "%s: the child's TLS writes show "
	    "in the parent", what);
	fill(buf, BUF, 3);
	fill(tls, sizeof(tls), 3);
	CHECK(write(down[1], "x", 1) == 1, "%s: word to the child", what);
	CHECK(waitpid(pid, &st, 0) == pid, "%s: waitpid", what);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: the child saw "
	    "other bytes than the fork's or its own (status %#x)", what, st);
	CHECK(holds(buf, BUF, 3), "%s: the parent's own writes", what);
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
	pthread_t t;

	check_fork(buf, "one thread");
	check_fork(buf, "one thread, again");
	CHECK_EQ(pthread_create(&t, NULL, scribble, NULL), 0);
	check_fork(buf, "two threads");
	stop = 1;
	CHECK_EQ(pthread_join(t, NULL), 0);
	return guest_done();
}
