/*
 * sendmmsg and recvmmsg on local datagram sockets: every message's length
 * is written back, a blocking recvmmsg waits for all vlen unless
 * MSG_WAITFORONE, its timeout is checked after each message and gets the
 * time left, and a signal after some messages returns their count.
 */
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define NMSG 4

struct kts {
	int64_t sec, nsec;
};

static char bufs[NMSG][16];
static struct iovec iovs[NMSG];
static struct mmsghdr msgs[NMSG];

static void
on_alrm(int sig)
{
	(void)sig;
}

static long long
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

static void
reset_msgs(void)
{
	memset(bufs, 0, sizeof(bufs));
	for (int i = 0; i < NMSG; i++) {
		iovs[i] = (struct iovec){ bufs[i], sizeof(bufs[i]) };
		msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iovs[i],
		    .msg_iovlen = 1 }, .msg_len = 99 };
	}
}

static long
recvm(int fd, unsigned vlen, int flags, struct kts *ts)
{
	reset_msgs();
	return syscall(SYS_recvmmsg, fd, msgs, vlen, flags, ts);
}

/* Send n datagrams "m0", "m1"... in one sendmmsg. */
static void
send_n(int fd, int n)
{
	static char text[NMSG][3];

	reset_msgs();
	for (int i = 0; i < n; i++) {
		text[i][0] = 'm';
		text[i][1] = (char)('0' + i);
		iovs[i] = (struct iovec){ text[i], 2 };
	}
	CHECK_EQ(syscall(SYS_sendmmsg, fd, msgs, n, 0), n);
	for (int i = 0; i < n; i++)
		CHECK_EQ(msgs[i].msg_len, 2);
}

/* A child that sends one datagram after ms milliseconds. */
static pid_t
send_later(int fd, long ms)
{
	pid_t pid = fork();

	if (pid == 0) {
		nanosleep(&(struct timespec){ 0, ms * 1000000 }, NULL);
		_exit(send(fd, "late", 4, 0) == 4 ? 0 : 1);
	}
	return pid;
}

static void
check_basic(int sv[2])
{
	int other;

	send_n(sv[0], 3);
	CHECK_EQ(recvm(sv[1], 2, 0, NULL), 2);
	CHECK(strcmp(bufs[0], "m0") == 0 && strcmp(bufs[1], "m1") == 0,
	    "got %s %s", bufs[0], bufs[1]);
	CHECK_EQ(msgs[0].msg_len, 2);
	CHECK_EQ(msgs[2].msg_len, 99);
	CHECK_EQ(recvm(sv[1], NMSG, MSG_WAITFORONE, NULL), 1);
	CHECK(strcmp(bufs[0], "m2") == 0, "got %s", bufs[0]);
	CHECK_ERR(recvm(sv[1], NMSG, MSG_DONTWAIT, NULL), EAGAIN);
	CHECK_EQ(recvm(sv[1], 0, 0, NULL), 0);
	CHECK_ERR(recvm(-1, 1, 0, NULL), EBADF);
	CHECK((other = dup(1)) >= 0, "dup");
	CHECK_ERR(recvm(other, 1, 0, NULL), ENOTSOCK);
	close(other);
	CHECK_ERR(recvm(sv[1], 1, 0, (struct kts *)8), EFAULT);
	CHECK_ERR(recvm(sv[1], 1, 0, &(struct kts){ 0, 1000000000 }), EINVAL);
	CHECK_ERR(recvm(sv[1], 1, 0, &(struct kts){ -1, 0 }), EINVAL);
}

static void
check_timeout(int sv[2])
{
	struct kts ts;

	/* A timeout already over stops after the first message. */
	send_n(sv[0], 3);
	ts = (struct kts){ 0, 0 };
	CHECK_EQ(recvm(sv[1], 3, 0, &ts), 1);
	CHECK(ts.sec == 0 && ts.nsec == 0, "left %lld.%09lld",
	    (long long)ts.sec, (long long)ts.nsec);
	/*
	 * The timeout bounds no wait, as on Linux: it is only looked at once
	 * a message is in, so ask for no more than are queued.
	 */
	ts = (struct kts){ 5, 0 };
	CHECK_EQ(recvm(sv[1], 2, 0, &ts), 2);
	CHECK(ts.sec >= 3 && ts.sec < 5, "left %lld.%09lld of 5 s",
	    (long long)ts.sec, (long long)ts.nsec);
}

static void
check_blocking(int sv[2])
{
	struct sigaction sa = { .sa_handler = on_alrm };
	struct itimerval it = { .it_value = { 0, 50000 } };
	long long t0;
	pid_t pid;
	int st;

	/* Without MSG_WAITFORONE a blocking call waits for all vlen. */
	send_n(sv[0], 1);
	pid = send_later(sv[0], 100);
	t0 = now_ms();
	CHECK_EQ(recvm(sv[1], 2, 0, NULL), 2);
	CHECK(now_ms() - t0 >= 90, "waited for the second: %lld ms",
	    now_ms() - t0);
	CHECK(strcmp(bufs[1], "late") == 0, "got %s", bufs[1]);
	CHECK_EQ(waitpid(pid, &st, 0), pid);

	/* A socket timeout ends the wait for the second with the first. */
	CHECK_OK(setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO,
	    &(struct timeval){ 0, 200000 }, sizeof(struct timeval)));
	send_n(sv[0], 1);
	t0 = now_ms();
	CHECK_EQ(recvm(sv[1], 2, 0, NULL), 1);
	CHECK(now_ms() - t0 >= 190, "gave up after %lld ms", now_ms() - t0);
	/* But a message that comes in time wakes it, not the timeout. */
	pid = send_later(sv[0], 50);
	CHECK_EQ(recv(sv[1], bufs[0], sizeof(bufs[0]), 0), 4);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_OK(setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO,
	    &(struct timeval){ 0, 0 }, sizeof(struct timeval)));

	/* A signal before any message: EINTR. */
	CHECK_OK(sigaction(SIGALRM, &sa, NULL));
	CHECK_OK(setitimer(ITIMER_REAL, &it, NULL));
	CHECK_ERR(recvm(sv[1], 2, 0, NULL), EINTR);
	/*
	 * After one, the count.  (Last: Linux keeps the interruption as the
	 * socket's error for the next call.)
	 */
	send_n(sv[0], 1);
	CHECK_OK(setitimer(ITIMER_REAL, &it, NULL));
	CHECK_EQ(recvm(sv[1], 2, 0, NULL), 1);
	CHECK(strcmp(bufs[0], "m0") == 0, "got %s", bufs[0]);
}

int
main(void)
{
	int sv[2];

	CHECK_OK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	check_basic(sv);
	check_timeout(sv);
	check_blocking(sv);
	close(sv[0]);
	close(sv[1]);
	return guest_done();
}
