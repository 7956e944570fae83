/*
 * TCP urgent data over the loopback, as tcp(7) says and Linux does, for
 * AF_INET and AF_INET6: send(MSG_OOB) marks its last byte, recv(MSG_OOB)
 * takes it once (MSG_OOB in msg_flags; EINVAL with none, after it was
 * taken, with SO_OOBINLINE, or once a read passed the mark; ENOTCONN on a
 * listener), MSG_PEEK leaves it, a zero-length MSG_OOB receive takes it
 * with MSG_TRUNC; reads stop at the mark and skip the byte, SIOCATMARK
 * says where the mark is, FIONREAD counts the bytes before it; POLLPRI,
 * EPOLLPRI and select's exceptfds report it, and the byte alone is not
 * readable.  A second urgent byte leaves the first in the stream, or
 * drops it when the reader is at its mark.  IPv4 UDP's MSG_OOB send
 * and AF_UNIX datagram sockets' are EOPNOTSUPP; IPv6 UDP's send and UDP
 * receives ignore the flag.  The receiving socket's owner (F_SETOWN)
 * gets SIGURG.
 * Run as root and as uid 65534.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>

#include "guest.h"
#include "inet_common.h"

static int lis;

/* A connected pair c (client) and s (server end) of af. */
static bool
tcp_pair(int af, int *c, int *s)
{
	*c = socket(af, SOCK_STREAM, 0);
	*s = -1;
	if (!CHECK(*c >= 0 && connect_port(*c, af, local_port(lis)) == 0,
	    "connect"))
		return false;
	*s = accept(lis, NULL, NULL);
	return CHECK(*s >= 0, "accept");
}

/* One receive with flags (never waiting): its result, the bytes in buf. */
static long
rcv(int fd, char *buf, size_t len, int flags, int *mflags)
{
	struct iovec v = { buf, len };
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1 };
	long r;

	memset(buf, 0, len);
	r = recvmsg(fd, &m, flags | MSG_DONTWAIT);
	*mflags = r >= 0 ? m.msg_flags : -1;
	return r;
}

static void
check_read(int fd, int flags, const char *want, int want_flags)
{
	char buf[16];
	int mf;
	long r = rcv(fd, buf, sizeof(buf), flags, &mf);

	CHECK(r == (long)strlen(want) && memcmp(buf, want, strlen(want)) == 0,
	    "recv %#x: %ld '%s', want '%s'", flags, r, r > 0 ? buf : "", want);
	CHECK_EQ(mf, want_flags);
}

static int
atmark(int fd)
{
	int v = -1;

	CHECK_OK(ioctl(fd, SIOCATMARK, &v));
	return v;
}

static int
inq(int fd)
{
	int v = -1;

	CHECK_OK(ioctl(fd, FIONREAD, &v));
	return v;
}

/* The receiver has seen the urgent byte arrive. */
static void
wait_pri(int s)
{
	CHECK(wait_events(s, POLLPRI, 2000) & POLLPRI, "no POLLPRI");
}

static void
check_basic(int af)
{
	char buf[4];
	int c, s, one = 1;

	if (!tcp_pair(af, &c, &s))
		return;
	CHECK_EQ(atmark(s), 0);
	CHECK_ERR(rcv(s, buf, 1, MSG_OOB, &one), EINVAL);
	CHECK_EQ(send(c, "abc", 3, MSG_OOB), 3);
	wait_pri(s);
	CHECK_EQ(inq(s), 2);
	CHECK_EQ(atmark(s), 0);
	CHECK_EQ(revents(s, POLLIN | POLLPRI), POLLIN | POLLPRI);
	check_read(s, MSG_OOB | MSG_PEEK, "c", MSG_OOB);
	check_read(s, MSG_OOB, "c", MSG_OOB);
	CHECK_EQ(revents(s, POLLIN | POLLPRI), POLLIN);
	CHECK_ERR(rcv(s, buf, 1, MSG_OOB, &one), EINVAL);
	check_read(s, 0, "ab", 0);
	/* At the mark, with the taken byte alone behind it. */
	CHECK_EQ(atmark(s), 1);
	CHECK_EQ(inq(s), 0);
	CHECK_EQ(revents(s, POLLIN | POLLPRI), 0);
	CHECK_ERR(rcv(s, buf, 1, 0, &one), EAGAIN);
	CHECK_EQ(atmark(s), 0);
	close(c);
	close(s);
}

static void
check_mark(int af)
{
	char buf[4];
	int c, s, mf;

	if (!tcp_pair(af, &c, &s))
		return;
	CHECK_EQ(send(c, "ab", 2, 0), 2);
	CHECK_EQ(send(c, "cX", 2, MSG_OOB), 2);
	CHECK_EQ(send(c, "de", 2, 0), 2);
	wait_pri(s);
	CHECK_EQ(inq(s), 3);
	check_read(s, 0, "abc", 0);
	CHECK_EQ(atmark(s), 1);
	CHECK_EQ(inq(s), 0);
	CHECK_EQ(revents(s, POLLIN | POLLPRI), POLLIN | POLLPRI);
	/* A peek at the mark shows what follows the urgent byte. */
	check_read(s, MSG_PEEK, "de", 0);
	CHECK_EQ(atmark(s), 1);
	check_read(s, MSG_OOB, "X", MSG_OOB);
	check_read(s, 0, "de", 0);
	CHECK_EQ(atmark(s), 0);
	CHECK_ERR(rcv(s, buf, 1, MSG_OOB, &mf), EINVAL);
	close(c);
	close(s);

	/* A read past the mark loses the byte not taken. */
	if (!tcp_pair(af, &c, &s))
		return;
	CHECK_EQ(send(c, "ab", 2, 0), 2);
	CHECK_EQ(send(c, "X", 1, MSG_OOB), 1);
	CHECK_EQ(send(c, "de", 2, 0), 2);
	wait_pri(s);
	check_read(s, 0, "ab", 0);
	check_read(s, 0, "de", 0);
	CHECK_EQ(revents(s, POLLIN | POLLPRI), 0);
	CHECK_ERR(rcv(s, buf, 1, MSG_OOB, &mf), EINVAL);
	close(c);
	close(s);

	/* The urgent byte alone: not readable, and a read passes it. */
	if (!tcp_pair(af, &c, &s))
		return;
	CHECK_EQ(send(c, "X", 1, MSG_OOB), 1);
	wait_pri(s);
	CHECK_EQ(atmark(s), 1);
	CHECK_EQ(revents(s, POLLIN | POLLPRI), POLLPRI);
	CHECK_ERR(rcv(s, buf, 1, 0, &mf), EAGAIN);
	CHECK_EQ(atmark(s), 0);
	CHECK_EQ(revents(s, POLLIN | POLLPRI), 0);
	CHECK_ERR(rcv(s, buf, 1, MSG_OOB, &mf), EINVAL);
	close(c);
	close(s);
}

static void
check_two(int af)
{
	int c, s;

	/* The first urgent byte stays in the stream as data. */
	if (!tcp_pair(af, &c, &s))
		return;
	CHECK_EQ(send(c, "aX", 2, MSG_OOB), 2);
	CHECK_EQ(send(c, "bY", 2, MSG_OOB), 2);
	wait_pri(s);
	CHECK_EQ(inq(s), 3);
	check_read(s, MSG_OOB, "Y", MSG_OOB);
	check_read(s, 0, "aXb", 0);
	close(c);
	close(s);

	/* Unless the reader is at its mark: then it is dropped. */
	if (!tcp_pair(af, &c, &s))
		return;
	CHECK_EQ(send(c, "aX", 2, MSG_OOB), 2);
	wait_pri(s);
	check_read(s, 0, "a", 0);
	CHECK_EQ(send(c, "bY", 2, MSG_OOB), 2);
	CHECK(wait_events(s, POLLIN, 2000) & POLLIN, "b arrives");
	CHECK_EQ(atmark(s), 0);
	CHECK_EQ(inq(s), 1);
	check_read(s, MSG_OOB, "Y", MSG_OOB);
	check_read(s, 0, "b", 0);
	close(c);
	close(s);
}

static void
check_inline(int af)
{
	char buf[4];
	int c, s, mf, one = 1;

	if (!tcp_pair(af, &c, &s))
		return;
	CHECK_OK(setsockopt(s, SOL_SOCKET, SO_OOBINLINE, &one, sizeof(one)));
	CHECK_EQ(send(c, "ab", 2, 0), 2);
	CHECK_EQ(send(c, "cX", 2, MSG_OOB), 2);
	CHECK_EQ(send(c, "de", 2, 0), 2);
	wait_pri(s);
	CHECK_EQ(inq(s), 6);
	CHECK_ERR(rcv(s, buf, 1, MSG_OOB, &mf), EINVAL);
	check_read(s, 0, "abc", 0);
	CHECK_EQ(atmark(s), 1);
	CHECK_EQ(inq(s), 3);
	check_read(s, 0, "Xde", 0);
	CHECK_EQ(atmark(s), 0);
	CHECK_EQ(revents(s, POLLIN | POLLPRI), 0);
	close(c);
	close(s);
}

static void
check_events(int af)
{
	struct epoll_event ev = { .events = EPOLLPRI }, out;
	struct timeval tv = { 0, 0 };
	char buf[4];
	int c, s, ep, mf;
	fd_set ex;

	if (!tcp_pair(af, &c, &s))
		return;
	ep = CHECK_OK(epoll_create1(0));
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev));
	CHECK_EQ(epoll_wait(ep, &out, 1, 0), 0);
	CHECK_EQ(send(c, "Q", 1, MSG_OOB), 1);
	CHECK_EQ(epoll_wait(ep, &out, 1, 2000), 1);
	CHECK_EQ(out.events, EPOLLPRI);
	FD_ZERO(&ex);
	FD_SET(s, &ex);
	CHECK_EQ(select(s + 1, NULL, NULL, &ex, &tv), 1);
	CHECK(FD_ISSET(s, &ex), "exceptfds");
	/* Zero bytes asked: the byte is taken, with MSG_TRUNC. */
	CHECK_EQ(rcv(s, buf, 0, MSG_OOB, &mf), 0);
	CHECK_EQ(mf, MSG_OOB | MSG_TRUNC);
	CHECK_ERR(rcv(s, buf, 1, MSG_OOB, &mf), EINVAL);
	CHECK_EQ(epoll_wait(ep, &out, 1, 0), 0);
	/* An empty urgent send marks nothing. */
	CHECK_EQ(send(c, "", 0, MSG_OOB), 0);
	CHECK_EQ(revents(s, POLLIN | POLLPRI), 0);
	CHECK_ERR(ioctl(s, SIOCATMARK, (void *)16), EFAULT);
	close(ep);
	close(c);
	close(s);
}

static void
check_others(int af)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char buf[4];
	int t, u, sv[2], mf, v = -1;

	CHECK_ERR(rcv(lis, buf, 1, MSG_OOB, &mf), ENOTCONN);
	CHECK_OK(ioctl(lis, SIOCATMARK, &v));
	CHECK_EQ(v, 0);
	t = CHECK_OK(socket(af, SOCK_STREAM, 0));
	CHECK_ERR(rcv(t, buf, 1, MSG_OOB, &mf), EINVAL);
	CHECK_ERR(send(t, "a", 1, MSG_OOB | MSG_NOSIGNAL), EPIPE);
	close(t);

	u = bound_socket(af, SOCK_DGRAM);
	if (CHECK(u >= 0, "udp") &&
	    CHECK_OK(getsockname(u, (struct sockaddr *)&ss, &len)) == 0) {
		/* IPv6's UDP lets the flag pass, IPv4's does not. */
		if (af == AF_INET) {
			CHECK_ERR(sendto(u, "a", 1, MSG_OOB,
			    (struct sockaddr *)&ss, len), EOPNOTSUPP);
		} else {
			CHECK_EQ(sendto(u, "b", 1, MSG_OOB,
			    (struct sockaddr *)&ss, len), 1);
			CHECK(wait_events(u, POLLIN, 2000) & POLLIN, "udp6");
			check_read(u, 0, "b", 0);
		}
		CHECK_ERR(ioctl(u, SIOCATMARK, &v), ENOTTY);
		CHECK_ERR(rcv(u, buf, 1, MSG_OOB, &mf), EAGAIN);
		CHECK_EQ(sendto(u, "a", 1, 0, (struct sockaddr *)&ss, len), 1);
		CHECK(wait_events(u, POLLIN, 2000) & POLLIN, "udp datagram");
		check_read(u, MSG_OOB, "a", 0);
		close(u);
	}
	if (CHECK_OK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)) == 0) {
		CHECK_ERR(send(sv[0], "a", 1, MSG_OOB), EOPNOTSUPP);
		CHECK_ERR(rcv(sv[1], buf, 1, MSG_OOB, &mf), EOPNOTSUPP);
		close(sv[0]);
		close(sv[1]);
	}
}

static volatile sig_atomic_t urgs, urg_code;

static void
on_urg(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	urgs++;
	urg_code = si->si_code;
}

/*
 * SIGURG goes to the receiving socket's owner (F_SETOWN), O_ASYNC or
 * not, as the kernel's signal; a socket without an owner sends none.
 */
static void
check_sigurg(int af)
{
	struct sigaction sa = { .sa_sigaction = on_urg,
	    .sa_flags = SA_SIGINFO };
	int c, s;

	if (!tcp_pair(af, &c, &s))
		return;
	CHECK_OK(sigaction(SIGURG, &sa, NULL));
	urgs = 0;
	CHECK_EQ(send(c, "ab", 2, MSG_OOB), 2);
	wait_pri(s);
	CHECK_EQ(urgs, 0);
	CHECK_OK(fcntl(s, F_SETOWN, getpid()));
	CHECK_EQ(send(c, "cd", 2, MSG_OOB), 2);
	wait_pri(s);
	CHECK_EQ(urgs, 1);
	CHECK_EQ(urg_code, SI_KERNEL);
	/* F_SETSIG picks SIGIO's replacement, not SIGURG's. */
	CHECK_OK(fcntl(s, F_SETSIG, SIGUSR1));
	CHECK_EQ(send(c, "e", 1, MSG_OOB), 1);
	wait_pri(s);
	CHECK_EQ(urgs, 2);
	/* The sender's own socket has an owner too, but sent nothing. */
	CHECK_OK(fcntl(c, F_SETOWN, getpid()));
	CHECK_EQ(send(s, "f", 1, 0), 1);
	CHECK_EQ(urgs, 2);
	signal(SIGURG, SIG_DFL);
	close(c);
	close(s);
}

static void
tests(void)
{
	static const int afs[] = { AF_INET, AF_INET6 };

	for (size_t i = 0; i < 2; i++) {
		lis = tcp_listener(afs[i]);
		if (!CHECK(lis >= 0, "listener"))
			continue;
		check_basic(afs[i]);
		check_mark(afs[i]);
		check_two(afs[i]);
		check_inline(afs[i]);
		check_events(afs[i]);
		check_others(afs[i]);
		check_sigurg(afs[i]);
		close(lis);
	}
}

int
main(void)
{
	return guest_main_twice(tests);
}
