/*
 * TCP over the loopback, IPv4 and IPv6: listen/connect/accept and the
 * names each end sees, data and the receive flags, half-close, resets
 * (unread data, SO_LINGER), EPIPE and SIGPIPE, non-blocking connect and
 * refusal, sharing ports (SO_REUSEADDR, SO_REUSEPORT, IPV6_V6ONLY and
 * v4-mapped peers), flow control, timeouts, options and the errnos.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "inet_common.h"

static volatile sig_atomic_t got_sigpipe;

static void
on_sigpipe(int sig)
{
	(void)sig;
	got_sigpipe++;
}

static int
getint(int fd, int level, int name)
{
	int v = -12345;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, level, name, &v, &len) < 0)
		return -errno - 100000;
	return v;
}

static int
setint(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v));
}

static int
tcp_state(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return -1;
	return ti.tcpi_state;
}

/* A connected pair through listener l: *cp the client, *ap the server. */
static void
pair(int af, int l, int *cp, int *ap)
{
	*cp = (int)CHECK_OK(socket(af, SOCK_STREAM, 0));
	CHECK_OK(connect_port(*cp, af, local_port(l)));
	*ap = (int)CHECK_OK(accept(l, NULL, NULL));
}

static void
test_connect_and_data(int af)
{
	struct sockaddr_storage peer, me;
	socklen_t plen = sizeof(peer), mlen = sizeof(me);
	char buf[64];
	int l, c, a, v;

	l = (int)CHECK_OK(tcp_listener(af));
	CHECK_EQ(getint(l, SOL_SOCKET, SO_ACCEPTCONN), 1);
	CHECK_EQ(tcp_state(l), TCP_LISTEN);
	CHECK_EQ(revents(l, POLLIN), 0);
	c = (int)CHECK_OK(socket(af, SOCK_STREAM, 0));
	/* A fresh socket is hung up and writable, as Linux reports it. */
	CHECK_EQ(revents(c, POLLIN | POLLOUT), POLLOUT | POLLHUP);
	CHECK_EQ(tcp_state(c), TCP_CLOSE);
	CHECK_OK(connect_port(c, af, local_port(l)));
	CHECK_EQ(wait_events(l, POLLIN, 1000), POLLIN);
	a = (int)CHECK_OK(accept4(l, (struct sockaddr *)&peer, &plen,
	    SOCK_CLOEXEC));
	CHECK_EQ(fcntl(a, F_GETFD), FD_CLOEXEC);
	CHECK_EQ(plen, af == AF_INET ? sizeof(struct sockaddr_in) :
	    sizeof(struct sockaddr_in6));
	CHECK_EQ(peer.ss_family, af);
	CHECK_EQ(port_of(&peer), local_port(c));
	CHECK_OK(getpeername(c, (struct sockaddr *)&me, &mlen));
	CHECK_EQ(port_of(&me), local_port(l));
	CHECK_EQ(local_port(a), local_port(l));
	CHECK_EQ(getint(a, SOL_SOCKET, SO_PROTOCOL), IPPROTO_TCP);
	CHECK_EQ(getint(a, SOL_SOCKET, SO_DOMAIN), af);
	CHECK_EQ(getint(a, SOL_SOCKET, SO_ACCEPTCONN), 0);
	CHECK_EQ(tcp_state(a), TCP_ESTABLISHED);
	CHECK_EQ(tcp_state(c), TCP_ESTABLISHED);

	CHECK_EQ(write(c, "hello", 5), 5);
	CHECK_EQ(wait_events(a, POLLIN, 1000), POLLIN);
	CHECK_OK(ioctl(a, FIONREAD, &v));
	CHECK_EQ(v, 5);
	CHECK_EQ(recv(a, buf, 3, MSG_PEEK), 3);
	CHECK(memcmp(buf, "hel", 3) == 0, "peeked %.3s", buf);
	plen = sizeof(peer);
	CHECK_EQ(recvfrom(a, buf, sizeof(buf), 0, (struct sockaddr *)&peer,
	    &plen), 5);
	CHECK_EQ(plen, 0);   /* TCP gives no sender's name */
	CHECK(memcmp(buf, "hello", 5) == 0, "read %.5s", buf);
	CHECK_ERR(recv(a, buf, 1, MSG_DONTWAIT), EAGAIN);
	/* MSG_TRUNC on a stream throws the bytes away. */
	CHECK_EQ(send(c, "abcdef", 6, 0), 6);
	CHECK_EQ(wait_events(a, POLLIN, 1000), POLLIN);
	CHECK_EQ(recv(a, NULL, 2, MSG_TRUNC), 2);
	CHECK_EQ(recv(a, buf, sizeof(buf), 0), 4);
	CHECK(memcmp(buf, "cdef", 4) == 0, "after MSG_TRUNC %.4s", buf);
	/* An address given to a connected stream is not looked at. */
	CHECK_EQ(sendto(c, "z", 1, 0, (struct sockaddr *)&peer, sizeof(peer)),
	    1);
	CHECK_EQ(recv(a, buf, 1, 0), 1);

	/* Half-close: the other way still works. */
	CHECK_OK(shutdown(c, SHUT_WR));
	CHECK_EQ(wait_events(a, POLLIN | POLLRDHUP, 1000) & (POLLIN |
	    POLLRDHUP), POLLIN | POLLRDHUP);
	CHECK_EQ(read(a, buf, sizeof(buf)), 0);
	CHECK_EQ(tcp_state(a), TCP_CLOSE_WAIT);
	/* FIN_WAIT1 until the peer's ACK of the FIN comes. */
	CHECK(tcp_state(c) == TCP_FIN_WAIT1 || tcp_state(c) == TCP_FIN_WAIT2,
	    "after SHUT_WR: FIN_WAIT");
	CHECK_EQ(write(a, "back", 4), 4);
	CHECK_EQ(wait_events(c, POLLIN, 1000) & POLLIN, POLLIN);
	CHECK_EQ(read(c, buf, sizeof(buf)), 4);
	CHECK_ERR(send(c, "x", 1, MSG_NOSIGNAL), EPIPE);

	/* The peer is gone: a send or two go, then EPIPE and SIGPIPE. */
	close(c);
	for (int i = 0; i < 100; i++) {
		errno = 0;
		if (send(a, "x", 1, MSG_NOSIGNAL) < 0)
			break;
		usleep(10000);
	}
	CHECK_EQ(errno, EPIPE);
	got_sigpipe = 0;
	CHECK_ERR(write(a, "x", 1), EPIPE);
	CHECK_EQ(got_sigpipe, 1);
	CHECK(revents(a, POLLOUT) & POLLHUP, "closed peer: POLLHUP");
	close(a);
	close(l);
}

static void
test_resets(int af)
{
	char buf[16];
	int l, c, a;
	struct linger lg = { 1, 0 };

	l = (int)CHECK_OK(tcp_listener(af));
	/* Closing with unread data resets the connection. */
	pair(af, l, &c, &a);
	CHECK_EQ(write(c, "lost", 4), 4);
	CHECK_EQ(wait_events(a, POLLIN, 1000), POLLIN);
	close(a);
	CHECK(wait_events(c, POLLIN, 1000) & POLLERR, "reset: POLLERR");
	CHECK_ERR(read(c, buf, sizeof(buf)), ECONNRESET);
	CHECK_EQ(read(c, buf, sizeof(buf)), 0);
	CHECK_ERR(send(c, "x", 1, MSG_NOSIGNAL), EPIPE);
	CHECK_EQ(tcp_state(c), TCP_CLOSE);
	close(c);
	/* So does SO_LINGER with no time. */
	pair(af, l, &c, &a);
	CHECK_OK(setsockopt(a, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	close(a);
	CHECK(wait_events(c, POLLIN, 1000) & POLLERR, "linger 0: POLLERR");
	CHECK_ERR(recv(c, buf, sizeof(buf), 0), ECONNRESET);
	close(c);
	close(l);
}

static void
test_nonblocking(int af)
{
	int l, c, a;
	uint16_t port;

	l = (int)CHECK_OK(tcp_listener(af));
	CHECK_OK(fcntl(l, F_SETFL, O_NONBLOCK));
	CHECK_ERR(accept(l, NULL, NULL), EAGAIN);
	c = (int)CHECK_OK(socket(af, SOCK_STREAM | SOCK_NONBLOCK, 0));
	CHECK_ERR(connect_port(c, af, local_port(l)), EINPROGRESS);
	CHECK(wait_events(c, POLLOUT, 1000) & POLLOUT, "connected: POLLOUT");
	CHECK_EQ(getint(c, SOL_SOCKET, SO_ERROR), 0);
	/* Asked again, connect says it is done; then that it is. */
	CHECK_OK(connect_port(c, af, local_port(l)));
	CHECK_ERR(connect_port(c, af, local_port(l)), EISCONN);
	CHECK_EQ(wait_events(l, POLLIN, 1000), POLLIN);
	a = (int)CHECK_OK(accept(l, NULL, NULL));
	close(a);
	close(c);
	/* Where no one listens: refused, at once or later. */
	port = local_port(l);
	close(l);
	c = (int)CHECK_OK(socket(af, SOCK_STREAM, 0));
	CHECK_ERR(connect_port(c, af, port), ECONNREFUSED);
	close(c);
	c = (int)CHECK_OK(socket(af, SOCK_STREAM | SOCK_NONBLOCK, 0));
	CHECK_ERR(connect_port(c, af, port), EINPROGRESS);
	CHECK_EQ(wait_events(c, POLLOUT, 1000) & (POLLERR | POLLHUP | POLLOUT),
	    POLLERR | POLLHUP | POLLOUT);
	CHECK_EQ(getint(c, SOL_SOCKET, SO_ERROR), ECONNREFUSED);
	CHECK_ERR(connect_port(c, af, port), ECONNABORTED);
	close(c);
}

static int
reuse_socket(int af, int opt)
{
	int fd = socket(af, SOCK_STREAM, 0);

	if (opt != 0)
		setint(fd, SOL_SOCKET, opt, 1);
	return fd;
}

static void
test_ports(int af)
{
	int s1, s2, s3, c, a, n1 = 0, n2 = 0;
	uint16_t port;

	s1 = (int)CHECK_OK(tcp_listener(af));
	port = local_port(s1);
	s2 = (int)CHECK_OK(socket(af, SOCK_STREAM, 0));
	CHECK_ERR(bind_port(s2, af, port, false), EADDRINUSE);
	CHECK_ERR(bind_port(s2, af, port, true), EADDRINUSE);
	CHECK_OK(bind_port(s2, af, 0, false));
	CHECK_ERR(bind_port(s2, af, 0, false), EINVAL);
	close(s1);
	close(s2);

	/* SO_REUSEADDR shares a port until one of them listens. */
	s1 = reuse_socket(af, SO_REUSEADDR);
	s2 = reuse_socket(af, SO_REUSEADDR);
	CHECK_OK(bind_port(s1, af, 0, false));
	port = local_port(s1);
	CHECK_OK(bind_port(s2, af, port, false));
	CHECK_OK(listen(s2, 4));
	CHECK_ERR(listen(s1, 4), EADDRINUSE);
	s3 = reuse_socket(af, SO_REUSEADDR);
	CHECK_ERR(bind_port(s3, af, port, true), EADDRINUSE);
	close(s3);
	/* The connections of a closed listener hold its port... */
	pair(af, s2, &c, &a);
	close(s1);
	close(s2);
	s3 = reuse_socket(af, 0);
	CHECK_ERR(bind_port(s3, af, port, false), EADDRINUSE);
	close(s3);
	/* ...unless the new one asks to share it. */
	s3 = reuse_socket(af, SO_REUSEADDR);
	CHECK_OK(bind_port(s3, af, port, false));
	CHECK_OK(listen(s3, 4));
	close(s3);
	close(c);
	close(a);

	/* SO_REUSEPORT listeners share the connections. */
	s1 = reuse_socket(af, SO_REUSEPORT);
	s2 = reuse_socket(af, SO_REUSEPORT);
	CHECK_OK(bind_port(s1, af, 0, false));
	port = local_port(s1);
	CHECK_OK(bind_port(s2, af, port, false));
	CHECK_OK(listen(s1, 32));
	CHECK_OK(listen(s2, 32));
	CHECK_OK(fcntl(s1, F_SETFL, O_NONBLOCK));
	CHECK_OK(fcntl(s2, F_SETFL, O_NONBLOCK));
	for (int i = 0; i < 16; i++) {
		c = (int)CHECK_OK(socket(af, SOCK_STREAM, 0));
		CHECK_OK(connect_port(c, af, port));
		close(c);
	}
	usleep(20000);
	while ((a = accept(s1, NULL, NULL)) >= 0) {
		n1++;
		close(a);
	}
	while ((a = accept(s2, NULL, NULL)) >= 0) {
		n2++;
		close(a);
	}
	CHECK_EQ(n1 + n2, 16);
	CHECK(n1 > 0 && n2 > 0, "SO_REUSEPORT shares: %d and %d", n1, n2);
	close(s1);
	close(s2);
}

static void
test_v6only(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len = sizeof(ss);
	int s6, s4, c, a;
	uint16_t port;

	/* A dual-stack wildcard holds the IPv4 port too... */
	s6 = (int)CHECK_OK(socket(AF_INET6, SOCK_STREAM, 0));
	CHECK_EQ(getint(s6, IPPROTO_IPV6, IPV6_V6ONLY), 0);
	CHECK_OK(bind_port(s6, AF_INET6, 0, true));
	port = local_port(s6);
	CHECK_ERR(setint(s6, IPPROTO_IPV6, IPV6_V6ONLY, 1), EINVAL);
	s4 = (int)CHECK_OK(socket(AF_INET, SOCK_STREAM, 0));
	CHECK_ERR(bind_port(s4, AF_INET, port, false), EADDRINUSE);
	close(s4);
	/* ...and takes IPv4 connections, as v4-mapped peers. */
	CHECK_OK(listen(s6, 4));
	c = (int)CHECK_OK(socket(AF_INET, SOCK_STREAM, 0));
	CHECK_OK(connect_port(c, AF_INET, port));
	a = (int)CHECK_OK(accept(s6, (struct sockaddr *)&ss, &len));
	CHECK_EQ(len, sizeof(struct sockaddr_in6));
	CHECK_EQ(ss.ss_family, AF_INET6);
	CHECK(IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr), "v4-mapped peer");
	CHECK_EQ(port_of(&ss), local_port(c));
	CHECK_EQ(write(c, "4to6", 4), 4);
	CHECK_EQ(wait_events(a, POLLIN, 1000), POLLIN);
	close(a);
	close(c);
	close(s6);

	/* An IPv6-only wildcard leaves the IPv4 port free. */
	s6 = (int)CHECK_OK(socket(AF_INET6, SOCK_STREAM, 0));
	CHECK_OK(setint(s6, IPPROTO_IPV6, IPV6_V6ONLY, 1));
	CHECK_EQ(getint(s6, IPPROTO_IPV6, IPV6_V6ONLY), 1);
	CHECK_OK(bind_port(s6, AF_INET6, 0, true));
	s4 = (int)CHECK_OK(socket(AF_INET, SOCK_STREAM, 0));
	CHECK_OK(bind_port(s4, AF_INET, local_port(s6), false));
	close(s4);
	/* and reaches no IPv4 address. */
	c = (int)CHECK_OK(socket(AF_INET6, SOCK_STREAM, 0));
	CHECK_OK(setint(c, IPPROTO_IPV6, IPV6_V6ONLY, 1));
	memset(&ss, 0, sizeof(ss));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(local_port(s6));
	CHECK_EQ(inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6->sin6_addr), 1);
	CHECK_ERR(connect(c, (struct sockaddr *)sin6, sizeof(*sin6)),
	    ENETUNREACH);
	close(c);
	close(s6);
	s4 = (int)CHECK_OK(socket(AF_INET, SOCK_STREAM, 0));
	CHECK_ERR(setint(s4, IPPROTO_IPV6, IPV6_V6ONLY, 1), ENOPROTOOPT);
	close(s4);
}

static void
test_flow(int af)
{
	static char chunk[65536];
	int l, c, a, st;
	long total = 0, got = 0;
	ssize_t n;
	pid_t pid;

	l = (int)CHECK_OK(tcp_listener(af));
	pair(af, l, &c, &a);
	CHECK_OK(setint(c, SOL_SOCKET, SO_SNDBUF, 4096));
	CHECK_EQ(getint(c, SOL_SOCKET, SO_SNDBUF), 8192);
	CHECK_OK(fcntl(c, F_SETFL, O_NONBLOCK));
	/* A writer stops when the reader does not read. */
	while ((n = write(c, chunk, sizeof(chunk))) > 0 && total < (64 << 20))
		total += n;
	CHECK_ERR(write(c, chunk, sizeof(chunk)), EAGAIN);
	CHECK(total > 0 && total < (16 << 20), "queued %ld bytes", total);
	CHECK_EQ(revents(c, POLLOUT), 0);
	while (got < total && (n = recv(a, chunk, sizeof(chunk),
	    got > 0 ? MSG_DONTWAIT : 0)) > 0)
		got += n;
	CHECK_EQ(got, total);
	CHECK(wait_events(c, POLLOUT, 1000) & POLLOUT, "room again: POLLOUT");
	CHECK(write(c, "x", 1) == 1, "writes again");
	CHECK_EQ(recv(a, chunk, 1, 0), 1);

	/* A blocking writer goes on as the reader makes room. */
	CHECK_OK(fcntl(c, F_SETFL, 0));
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 16; i++) {
			memset(chunk, 'a' + i, sizeof(chunk));
			if (write(c, chunk, sizeof(chunk)) != sizeof(chunk))
				_exit(1);
		}
		_exit(0);
	}
	for (got = 0; got < 16; got++) {
		if (recv(a, chunk, sizeof(chunk), MSG_WAITALL) !=
		    sizeof(chunk) || chunk[0] != 'a' + got ||
		    chunk[sizeof(chunk) - 1] != 'a' + got)
			break;
	}
	CHECK_EQ(got, 16);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	close(c);
	close(a);
	close(l);
}

static void
test_waitall_and_timeout(int af)
{
	struct timeval tv = { 0, 100000 };
	struct timespec t0, t1;
	char buf[8];
	int l, c, a, st;
	pid_t pid;

	l = (int)CHECK_OK(tcp_listener(af));
	pair(af, l, &c, &a);
	pid = fork();
	if (pid == 0) {
		write(c, "abc", 3);
		usleep(50000);
		write(c, "def", 3);
		_exit(0);
	}
	CHECK_EQ(recv(a, buf, 6, MSG_WAITALL), 6);
	CHECK(memcmp(buf, "abcdef", 6) == 0, "MSG_WAITALL got %.6s", buf);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_OK(setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_ERR(recv(a, buf, 1, 0), EAGAIN);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK((t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec -
	    t0.tv_nsec >= 90000000L, "SO_RCVTIMEO waited");
	close(c);
	close(a);
	close(l);
}

static void
test_options(int af)
{
	char two[2] = { 1, 0 };
	int fd = (int)CHECK_OK(socket(af, SOCK_STREAM, 0));

	CHECK_OK(setint(fd, IPPROTO_TCP, TCP_NODELAY, 5));
	CHECK_EQ(getint(fd, IPPROTO_TCP, TCP_NODELAY), 1);
	CHECK_OK(setint(fd, SOL_SOCKET, SO_KEEPALIVE, 1));
	CHECK_EQ(getint(fd, SOL_SOCKET, SO_KEEPALIVE), 1);
	CHECK_OK(setint(fd, IPPROTO_TCP, TCP_KEEPIDLE, 60));
	CHECK_EQ(getint(fd, IPPROTO_TCP, TCP_KEEPIDLE), 60);
	CHECK_ERR(setint(fd, IPPROTO_TCP, TCP_KEEPCNT, 0), EINVAL);
	CHECK_ERR(setint(fd, IPPROTO_TCP, TCP_KEEPCNT, 128), EINVAL);
	CHECK_ERR(setint(fd, IPPROTO_TCP, TCP_MAXSEG, 20), EINVAL);
	CHECK_ERR(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, two, 2), EINVAL);
	CHECK_ERR(setint(fd, IPPROTO_TCP, TCP_INFO, 1), ENOPROTOOPT);
	CHECK_ERR(setint(fd, IPPROTO_UDP, 1, 1), ENOPROTOOPT);
	if (af == AF_INET) {
		CHECK_EQ(getint(fd, IPPROTO_IP, IP_TTL), 64);
		CHECK_ERR(setint(fd, IPPROTO_IP, IP_TTL, 0), EINVAL);
		CHECK_ERR(setint(fd, IPPROTO_IP, IP_TTL, 256), EINVAL);
		CHECK_OK(setint(fd, IPPROTO_IP, IP_TTL, 7));
		CHECK_EQ(getint(fd, IPPROTO_IP, IP_TTL), 7);
		CHECK_OK(setint(fd, IPPROTO_IP, IP_TTL, -1));
		CHECK_EQ(getint(fd, IPPROTO_IP, IP_TTL), 64);
		CHECK_OK(setint(fd, IPPROTO_IP, IP_TOS, 0x10));
		CHECK_EQ(getint(fd, IPPROTO_IP, IP_TOS), 0x10);
		CHECK_EQ(getint(fd, IPPROTO_IP, IP_MTU), -ENOTCONN - 100000);
	} else {
		CHECK_OK(setint(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 9));
		CHECK_EQ(getint(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS), 9);
		CHECK_ERR(setint(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 256),
		    EINVAL);
	}
	CHECK_OK(setint(fd, SOL_SOCKET, SO_RCVBUF, 10000));
	CHECK_EQ(getint(fd, SOL_SOCKET, SO_RCVBUF), 20000);
	close(fd);
}

static void
test_errors(int af)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	socklen_t len = loop_addr(af, &ss, 0);
	char cbuf[CMSG_SPACE(sizeof(int))], one[1] = { 'x' };
	struct iovec iov = { one, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	int fd, sv[2], l, c, a;

	CHECK_ERR(socket(af, SOCK_STREAM, IPPROTO_UDP), EPROTONOSUPPORT);
	CHECK_ERR(socket(af, SOCK_SEQPACKET, 0), ESOCKTNOSUPPORT);
	CHECK_ERR(socketpair(af, SOCK_STREAM, 0, sv), EOPNOTSUPP);
	fd = (int)CHECK_OK(socket(af, SOCK_STREAM, 0));
	/* IPv6 takes RFC 2133's name, without sin6_scope_id. */
	CHECK_ERR(bind(fd, (struct sockaddr *)&ss, af == AF_INET ? len - 1 :
	    23), EINVAL);
	CHECK_ERR(connect(fd, (struct sockaddr *)&ss, 1), EINVAL);
	ss.ss_family = af == AF_INET ? AF_INET6 : AF_INET;
	CHECK_ERR(bind(fd, (struct sockaddr *)&ss, sizeof(struct sockaddr_in6)),
	    EAFNOSUPPORT);
	len = loop_addr(af, &ss, 0);
	if (af == AF_INET)
		CHECK_EQ(inet_pton(AF_INET, "192.0.2.1", &sin->sin_addr), 1);
	else
		CHECK_EQ(inet_pton(AF_INET6, "2001:db8::1", &sin6->sin6_addr),
		    1);
	CHECK_ERR(bind(fd, (struct sockaddr *)&ss, len), EADDRNOTAVAIL);
	CHECK_ERR(recv(fd, cbuf, 1, 0), ENOTCONN);
	CHECK_ERR(send(fd, "x", 1, MSG_NOSIGNAL), EPIPE);
	CHECK_ERR(getpeername(fd, (struct sockaddr *)&ss, &len), ENOTCONN);
	CHECK_ERR(shutdown(fd, SHUT_RDWR), ENOTCONN);
	CHECK_ERR(shutdown(fd, 7), EINVAL);
	CHECK_ERR(accept(fd, NULL, NULL), EINVAL);
	close(fd);
	/* Descriptors sent over TCP are let go, not passed. */
	l = (int)CHECK_OK(tcp_listener(af));
	pair(af, l, &c, &a);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &c, sizeof(int));
	CHECK_EQ(sendmsg(c, &m, 0), 1);
	m.msg_controllen = sizeof(cbuf);
	CHECK_EQ(recvmsg(a, &m, 0), 1);
	CHECK_EQ(m.msg_controllen, 0);
	CHECK_ERR(listen(c, 1), EINVAL);
	close(c);
	close(a);
	close(l);
}

int
main(void)
{
	static const int afs[] = { AF_INET, AF_INET6 };

	signal(SIGPIPE, on_sigpipe);
	for (size_t i = 0; i < sizeof(afs) / sizeof(afs[0]); i++) {
		test_connect_and_data(afs[i]);
		test_resets(afs[i]);
		test_nonblocking(afs[i]);
		test_ports(afs[i]);
		test_flow(afs[i]);
		test_waitall_and_timeout(afs[i]);
		test_options(afs[i]);
		test_errors(afs[i]);
	}
	test_v6only();
	return guest_done();
}
