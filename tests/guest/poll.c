/*
 * poll, ppoll and select see pipe readiness, end of file and timeouts;
 * pselect's mask lets in a signal that comes while it waits (make's
 * jobserver waits so for SIGCHLD).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

static long long
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

static volatile int chld_seen;

static void
on_chld(int sig)
{
	chld_seen = sig;
}

static void
check_pselect_mask(void)
{
	struct sigaction sa = { .sa_handler = on_chld };
	sigset_t blk, old;
	fd_set rs;
	int fds[2], st;
	pid_t pid;

	CHECK_OK(pipe(fds));
	CHECK_OK(sigaction(SIGCHLD, &sa, NULL));
	sigemptyset(&blk);
	sigaddset(&blk, SIGCHLD);
	CHECK_OK(sigprocmask(SIG_BLOCK, &blk, &old));
	pid = fork();
	if (pid == 0) {
		nanosleep(&(struct timespec){ 0, 50 * 1000000 }, NULL);
		_exit(0);
	}
	FD_ZERO(&rs);
	FD_SET(fds[0], &rs);
	/* Parked when the child ends: its SIGCHLD must end the wait. */
	CHECK_ERR(pselect(fds[0] + 1, &rs, NULL, NULL, NULL, &old), EINTR);
	CHECK_EQ(chld_seen, SIGCHLD);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_OK(sigprocmask(SIG_SETMASK, &old, NULL));
	close(fds[0]);
	close(fds[1]);
}

int
main(void)
{
	struct pollfd p[2];
	struct timespec ts = { 0, 50 * 1000000 };
	struct timeval tv = { 0, 0 };
	long long t0;
	fd_set rs, ws;
	int fds[2];

	CHECK_OK(pipe(fds));
	p[0] = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	p[1] = (struct pollfd){ .fd = fds[1], .events = POLLOUT };
	CHECK_EQ(poll(p, 2, 0), 1);
	CHECK_EQ(p[0].revents, 0);
	CHECK_EQ(p[1].revents, POLLOUT);
	t0 = now_ms();
	CHECK_EQ(poll(p, 1, 100), 0);
	CHECK(now_ms() - t0 >= 90, "poll waited its timeout");
	CHECK_EQ(write(fds[1], "x", 1), 1);
	CHECK_EQ(poll(p, 1, -1), 1);
	CHECK_EQ(p[0].revents, POLLIN);
	CHECK_EQ(ppoll(p, 1, &ts, NULL), 1);
	FD_ZERO(&rs);
	FD_ZERO(&ws);
	FD_SET(fds[0], &rs);
	FD_SET(fds[1], &ws);
	CHECK_EQ(select(fds[1] + 1, &rs, &ws, NULL, &tv), 2);
	CHECK(FD_ISSET(fds[0], &rs) && FD_ISSET(fds[1], &ws), "both set");
	close(fds[1]);
	p[0].revents = 0;
	CHECK_EQ(poll(p, 1, 0), 1);
	CHECK(p[0].revents & POLLIN, "data still there: %#x", p[0].revents);
	CHECK_EQ(read(fds[0], &(char){ 0 }, 1), 1);
	CHECK_EQ(poll(p, 1, 0), 1);
	CHECK_EQ(p[0].revents, POLLHUP);
	/*
	 * A closed fd is POLLNVAL for poll and EBADF for select (one inside
	 * the fd table: Linux trims select's nfds to the table's size).
	 */
	p[0].fd = fds[1];
	CHECK_EQ(poll(p, 1, 0), 1);
	CHECK_EQ(p[0].revents, POLLNVAL);
	FD_ZERO(&rs);
	FD_SET(fds[1], &rs);
	CHECK_ERR(select(fds[1] + 1, &rs, NULL, NULL, &tv), EBADF);
	CHECK_ERR(syscall(SYS_poll, p, 1u << 30, 0), EINVAL);
	check_pselect_mask();
	return guest_done();
}
