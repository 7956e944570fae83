/*
 * splice and tee move pipe data; a large blocking pipe write is whole,
 * unless a signal ends it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

static void
test_splice_tee(void)
{
	char path[] = "/tmp/vk-splice.XXXXXX", x[16];
	int a[2], b[2], fd;
	off64_t off = 1;

	CHECK_OK(pipe(a));
	CHECK_OK(pipe(b));
	CHECK_EQ(write(a[1], "hello", 5), 5);
	CHECK_EQ(tee(a[0], b[1], 100, 0), 5);
	memset(x, 0, sizeof(x));
	CHECK_EQ(read(b[0], x, sizeof(x)), 5);
	CHECK(memcmp(x, "hello", 5) == 0, "tee copied: %.5s", x);
	fd = (int)CHECK_OK(mkstemp(path));
	CHECK_EQ(splice(a[0], NULL, fd, NULL, 100, 0), 5);
	CHECK_EQ(splice(fd, &off, b[1], NULL, 3, 0), 3);
	CHECK_EQ(off, 4);
	memset(x, 0, sizeof(x));
	CHECK_EQ(read(b[0], x, sizeof(x)), 3);
	CHECK(memcmp(x, "ell", 3) == 0, "spliced from the file: %.3s", x);
	CHECK_ERR(splice(fd, NULL, fd, NULL, 1, 0), EINVAL);
	CHECK_ERR(splice(a[0], &off, fd, NULL, 1, 0), ESPIPE);
	CHECK_ERR(tee(a[0], fd, 1, 0), EINVAL);
	/* One pipe's two ends: EINVAL, not the data moved round for good. */
	CHECK_EQ(write(a[1], "loop", 4), 4);
	CHECK_ERR(splice(a[0], NULL, a[1], NULL, 1 << 30, 0), EINVAL);
	CHECK_ERR(tee(a[0], a[1], 1 << 30, 0), EINVAL);
	CHECK_EQ(read(a[0], x, sizeof(x)), 4);
	CHECK_EQ(splice(a[0], NULL, b[1], NULL, 1, SPLICE_F_NONBLOCK), -1);
	CHECK_EQ(errno, EAGAIN);
	unlink(path);
	close(fd);
}

static void
test_big_write(void)
{
	size_t n = 1 << 20, got = 0;
	char *buf = malloc(n);
	int p[2], st;
	pid_t c;

	memset(buf, 'x', n);
	CHECK_OK(pipe(p));
	if ((c = fork()) == 0) {
		char r[7000];
		ssize_t k;

		close(p[1]);
		while ((k = read(p[0], r, sizeof(r))) > 0)
			got += (size_t)k;
		_exit(got == n ? 0 : 1);
	}
	close(p[0]);
	CHECK_EQ(write(p[1], buf, n), (long)n);
	close(p[1]);
	CHECK_EQ(waitpid(c, &st, 0), c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "reader got it all");
	free(buf);
}

/* O_DIRECT: packets of at most PIPE_BUF, one per read, 16 at most. */
static void
test_packets(void)
{
	char buf[8192], big[5000];
	int p[2], n = 0, fl;

	memset(big, 'b', sizeof(big));
	CHECK_OK(pipe2(p, O_DIRECT | O_NONBLOCK));
	CHECK_EQ(write(p[1], "abc", 3), 3);
	CHECK_EQ(write(p[1], "defgh", 5), 5);
	CHECK_EQ(write(p[1], big, sizeof(big)), sizeof(big));
	CHECK_EQ(read(p[0], buf, 100), 3);
	CHECK_EQ(read(p[0], buf, 2), 2);
	CHECK(memcmp(buf, "de", 2) == 0, "the packet's start: %.2s", buf);
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 4096);
	CHECK_EQ(read(p[0], buf, sizeof(buf)), sizeof(big) - 4096);
	CHECK_ERR(read(p[0], buf, 1), EAGAIN);
	while (write(p[1], "x", 1) == 1 && n < 100)
		n++;
	CHECK_EQ(n, 16);
	CHECK_EQ(errno, EAGAIN);
	while (read(p[0], buf, sizeof(buf)) == 1)
		n--;
	CHECK_EQ(n, 0);
	/* Without O_DIRECT, bytes are bytes again. */
	fl = fcntl(p[1], F_GETFL);
	CHECK_OK(fcntl(p[1], F_SETFL, fl & ~O_DIRECT));
	CHECK_EQ(write(p[1], "xy", 2), 2);
	CHECK_EQ(write(p[1], "zw", 2), 2);
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 4);
	close(p[0]);
	close(p[1]);
}

static void
on_alarm(int sig)
{
	(void)sig;
}

/* A signal ends a blocking write that has written part: its count. */
static void
test_interrupted_write(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, 50000 } };
	size_t n = 200000;
	char *buf = calloc(1, n);
	int p[2];

	sigaction(SIGALRM, &sa, NULL);
	CHECK_OK(pipe(p));
	CHECK_OK(setitimer(ITIMER_REAL, &it, NULL));
	CHECK_EQ(write(p[1], buf, n), 65536);
	/* With nothing written yet, it is EINTR. */
	CHECK_OK(setitimer(ITIMER_REAL, &it, NULL));
	CHECK_ERR(write(p[1], buf, 1), EINTR);
	close(p[0]);
	close(p[1]);
	free(buf);
}

int
main(void)
{
	test_splice_tee();
	test_big_write();
	test_interrupted_write();
	test_packets();
	return guest_done();
}
