/*
 * SO_LINGER on a TCP close over the loopback, as socket(7) and Linux:
 * with a time, a blocking close of a socket whose data the peer has not
 * taken in (more than its receive buffer holds) waits until the peer
 * reads it or the time is up, and the peer then reads it all; with data
 * the peer has room for, close returns at once; with l_linger 0, close
 * resets the connection (the peer's read says ECONNRESET); a signal ends
 * the wait, and close still returns 0, the socket closed.  Run as root
 * and as uid 65534.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "guest.h"
#include "inet_common.h"

static char big[1 << 20];

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A connected pair over lis; c lingers for secs. */
static bool
pair(int lis, int *c, int *s, int secs)
{
	struct linger lg = { 1, secs };

	*c = socket(AF_INET, SOCK_STREAM, 0);
	if (!CHECK(*c >= 0 && connect_port(*c, AF_INET, local_port(lis)) == 0,
	    "connect"))
		return false;
	*s = accept(lis, NULL, NULL);
	CHECK_OK(setsockopt(*c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	return CHECK(*s >= 0, "accept");
}

/* Fill c's way to the peer until a write would wait: the bytes sent. */
static long
fill(int c)
{
	long total = 0, r;

	fcntl(c, F_SETFL, O_NONBLOCK);
	while ((r = write(c, big, sizeof(big))) > 0)
		total += r;
	CHECK_EQ(errno, EAGAIN);
	fcntl(c, F_SETFL, 0);
	return total;
}

static long
drain(int s)
{
	long total = 0, r;

	while ((r = read(s, big, sizeof(big))) > 0)
		total += r;
	CHECK_EQ(r, 0);
	return total;
}

static void
on_alarm(int sig)
{
	(void)sig;
}

/* A handler without SA_RESTART interrupts the linger: close gives 0. */
static void
linger_signal(int lis)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, 200000 } };
	int c, s;
	long sent;
	double t;

	if (!pair(lis, &c, &s, 10))
		return;
	sent = fill(c);
	CHECK_OK(sigaction(SIGALRM, &sa, NULL));
	CHECK_OK(setitimer(ITIMER_REAL, &it, NULL));
	t = now();
	CHECK_OK(close(c));
	t = now() - t;
	CHECK(t > 0.1 && t < 5, "close took %.2f s", t);
	/* Closed all the same: the descriptor is gone, the data delivered. */
	CHECK_ERR(fcntl(c, F_GETFD), EBADF);
	CHECK_EQ(drain(s), sent);
	close(s);
	signal(SIGALRM, SIG_DFL);
}

static void
tests(void)
{
	int lis = tcp_listener(AF_INET), c, s, st, go[2];
	struct linger lg = { 1, 0 };
	char b[4];
	long sent;
	double t;
	pid_t pid;

	if (!CHECK(lis >= 0, "listener"))
		return;
	/* Room at the peer: nothing to wait for. */
	if (pair(lis, &c, &s, 5)) {
		CHECK_EQ(write(c, "hello", 5), 5);
		t = now();
		CHECK_OK(close(c));
		CHECK(now() - t < 0.5, "close took %.2f s", now() - t);
		CHECK_EQ(drain(s), 5);
		close(s);
	}
	/* Nobody reads: the whole time, then the peer still gets it all. */
	if (pair(lis, &c, &s, 1)) {
		sent = fill(c);
		t = now();
		CHECK_OK(close(c));
		t = now() - t;
		CHECK(t > 0.9 && t < 4, "close took %.2f s", t);
		CHECK_EQ(drain(s), sent);
		close(s);
	}
	/* The peer reads after a while: close ends then. */
	if (pair(lis, &c, &s, 10) && CHECK_OK(pipe(go)) == 0) {
		sent = fill(c);
		pid = fork();
		if (pid == 0) {
			/* The parent's close must be the last one of c. */
			close(c);
			close(go[0]);
			close(go[1]);
			usleep(300000);
			_exit(drain(s) == sent ? 0 : 1);
		}
		close(s);
		close(go[1]);
		CHECK_EQ(read(go[0], b, 1), 0);
		close(go[0]);
		t = now();
		CHECK_OK(close(c));
		t = now() - t;
		CHECK(t > 0.1 && t < 5, "close took %.2f s", t);
		CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		    WEXITSTATUS(st) == 0, "the peer read it all: %#x", st);
	}
	linger_signal(lis);
	/* No time: a reset. */
	if (pair(lis, &c, &s, 0)) {
		CHECK_OK(setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
		CHECK_EQ(write(c, "x", 1), 1);
		CHECK_OK(close(c));
		/* What had arrived is read first. */
		CHECK_EQ(read(s, b, sizeof(b)), 1);
		CHECK_ERR(read(s, b, sizeof(b)), ECONNRESET);
		close(s);
	}
	close(lis);
}

int
main(void)
{
	return guest_main_twice(tests);
}
