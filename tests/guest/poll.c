/*
 * poll, ppoll and select see pipe readiness, end of file and timeouts;
 * pselect's mask lets in a signal that comes while it waits (make's
 * jobserver waits so for SIGCHLD); select and ppoll write back the time
 * left.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/select.h>
#include <sys/time.h>
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

static void
on_alrm(int sig)
{
	(void)sig;
}

/* Write one byte to fd after ms milliseconds, from a child. */
static pid_t
write_later(int fd, long ms)
{
	pid_t pid = fork();

	if (pid == 0) {
		nanosleep(&(struct timespec){ 0, ms * 1000000 }, NULL);
		_exit(write(fd, "x", 1) == 1 ? 0 : 1);
	}
	return pid;
}

/*
 * select and ppoll write the time left back into their timeout: when an
 * fd becomes ready, when the time runs out (zero) and when a signal
 * handler interrupts them.  Raw calls: musl's select keeps its own copy.
 */
static void
check_timeleft(void)
{
	struct sigaction sa = { .sa_handler = on_alrm };
	struct itimerval it = { .it_value = { 0, 50 * 1000 } };
	struct pollfd p;
	struct timespec ts;
	struct timeval tv;
	fd_set rs;
	int fds[2], st;
	pid_t pid;

	CHECK_OK(pipe(fds));
	pid = write_later(fds[1], 50);
	FD_ZERO(&rs);
	FD_SET(fds[0], &rs);
	tv = (struct timeval){ 2, 0 };
	CHECK_EQ(syscall(SYS_select, fds[0] + 1, &rs, NULL, NULL, &tv), 1);
	CHECK(tv.tv_sec < 2 && tv.tv_sec * 1000000 + tv.tv_usec > 0,
	    "select left %ld.%06ld of 2 s", (long)tv.tv_sec, (long)tv.tv_usec);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(read(fds[0], &(char){ 0 }, 1), 1);

	FD_ZERO(&rs);
	FD_SET(fds[0], &rs);
	tv = (struct timeval){ 0, 20 * 1000 };
	CHECK_EQ(syscall(SYS_select, fds[0] + 1, &rs, NULL, NULL, &tv), 0);
	CHECK(tv.tv_sec == 0 && tv.tv_usec == 0, "select timed out, left %ld.%06ld",
	    (long)tv.tv_sec, (long)tv.tv_usec);

	p = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	ts = (struct timespec){ 0, 20 * 1000000 };
	CHECK_EQ(syscall(SYS_ppoll, &p, 1, &ts, NULL, 8), 0);
	CHECK(ts.tv_sec == 0 && ts.tv_nsec == 0, "ppoll timed out, left %ld.%09ld",
	    (long)ts.tv_sec, ts.tv_nsec);
	pid = write_later(fds[1], 50);
	ts = (struct timespec){ 3, 0 };
	CHECK_EQ(syscall(SYS_ppoll, &p, 1, &ts, NULL, 8), 1);
	CHECK(ts.tv_sec < 3 && ts.tv_sec * 1000000000 + ts.tv_nsec > 0,
	    "ppoll left %ld.%09ld of 3 s", (long)ts.tv_sec, ts.tv_nsec);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(read(fds[0], &(char){ 0 }, 1), 1);

	CHECK_OK(sigaction(SIGALRM, &sa, NULL));
	CHECK_OK(setitimer(ITIMER_REAL, &it, NULL));
	FD_ZERO(&rs);
	FD_SET(fds[0], &rs);
	tv = (struct timeval){ 2, 0 };
	CHECK_ERR(syscall(SYS_select, fds[0] + 1, &rs, NULL, NULL, &tv), EINTR);
	CHECK(tv.tv_sec < 2 && tv.tv_sec * 1000000 + tv.tv_usec > 0,
	    "interrupted select left %ld.%06ld of 2 s", (long)tv.tv_sec,
	    (long)tv.tv_usec);
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
	check_timeleft();
	return guest_done();
}
