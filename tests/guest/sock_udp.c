/*
 * UDP over the loopback, IPv4 and IPv6: datagrams keep their bounds and
 * their senders' names, MSG_TRUNC, the largest datagram and EMSGSIZE,
 * connect (only the peer's datagrams come in; an unreachable port is
 * told to a connected sender), AF_UNSPEC, shared ports, readiness,
 * sendmmsg/recvmmsg, an IPv4 sender seen by a dual-stack receiver, and
 * the errnos.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "guest.h"
#include "inet_common.h"

static int
setint(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v));
}

static int
getint(int fd, int level, int name)
{
	int v = -1;
	socklen_t len = sizeof(v);

	getsockopt(fd, level, name, &v, &len);
	return v;
}

static ssize_t
send_port(int fd, int af, uint16_t port, const void *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = loop_addr(af, &ss, port);

	return sendto(fd, buf, len, 0, (struct sockaddr *)&ss, sl);
}

static void
test_datagrams(int af)
{
	static char big[65536];
	struct sockaddr_storage from;
	socklen_t flen = sizeof(from);
	char buf[64];
	struct iovec iov = { buf, 2 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int r, s, v;
	size_t max = af == AF_INET ? 65507 : 65527;

	r = (int)CHECK_OK(bound_socket(af, SOCK_DGRAM));
	s = (int)CHECK_OK(socket(af, SOCK_DGRAM, 0));
	CHECK_EQ(getint(r, SOL_SOCKET, SO_PROTOCOL), IPPROTO_UDP);
	CHECK_EQ(revents(r, POLLIN | POLLOUT), POLLOUT);
	CHECK_EQ(send_port(s, af, local_port(r), "one", 3), 3);
	CHECK_EQ(send_port(s, af, local_port(r), "two!", 4), 4);
	CHECK_EQ(send_port(s, af, local_port(r), "", 0), 0);
	/* The sender got a port of its own on its first send. */
	CHECK(local_port(s) != 0, "sender has a port");
	CHECK_EQ(wait_events(r, POLLIN, 1000), POLLIN);
	CHECK_OK(ioctl(r, FIONREAD, &v));
	CHECK_EQ(v, 3);
	CHECK_EQ(recvfrom(r, buf, sizeof(buf), 0, (struct sockaddr *)&from,
	    &flen), 3);
	CHECK_EQ(flen, af == AF_INET ? sizeof(struct sockaddr_in) :
	    sizeof(struct sockaddr_in6));
	CHECK_EQ(port_of(&from), local_port(s));
	/* A datagram cut short says so. */
	CHECK_EQ(recvmsg(r, &m, 0), 2);
	CHECK_EQ(m.msg_flags & MSG_TRUNC, MSG_TRUNC);
	CHECK_EQ(recv(r, buf, sizeof(buf), MSG_DONTWAIT), 0);
	CHECK_ERR(recv(r, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	CHECK_EQ(send_port(s, af, local_port(r), "peek", 4), 4);
	CHECK_EQ(wait_events(r, POLLIN, 1000) & POLLIN, POLLIN);
	CHECK_EQ(recv(r, buf, 1, MSG_PEEK | MSG_TRUNC), 4);
	CHECK_EQ(recv(r, buf, sizeof(buf), 0), 4);
	/* The largest datagram IP carries, and one byte more. */
	CHECK_EQ(send_port(s, af, local_port(r), big, max), (ssize_t)max);
	CHECK_ERR(send_port(s, af, local_port(r), big, max + 1), EMSGSIZE);
	CHECK_EQ(wait_events(r, POLLIN, 1000) & POLLIN, POLLIN);
	CHECK_EQ(recv(r, big, sizeof(big), 0), (ssize_t)max);
	/* To a port no one has: it is lost, and the sender not told. */
	close(r);
	CHECK_EQ(send_port(s, af, 9, "lost", 4), 4);
	CHECK_EQ(recv(s, buf, 1, MSG_DONTWAIT), -1);
	CHECK_EQ(errno, EAGAIN);
	close(s);
}

static void
test_connected(int af)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char buf[16];
	int a, b, c;
	uint16_t gone;

	a = (int)CHECK_OK(bound_socket(af, SOCK_DGRAM));
	b = (int)CHECK_OK(bound_socket(af, SOCK_DGRAM));
	c = (int)CHECK_OK(bound_socket(af, SOCK_DGRAM));
	CHECK_ERR(send(a, "x", 1, 0), EDESTADDRREQ);
	CHECK_ERR(getpeername(a, (struct sockaddr *)&ss, &len), ENOTCONN);
	CHECK_OK(connect_port(a, af, local_port(b)));
	CHECK_OK(getpeername(a, (struct sockaddr *)&ss, &len));
	CHECK_EQ(port_of(&ss), local_port(b));
	CHECK_EQ(send(a, "ab", 2, 0), 2);
	CHECK_EQ(wait_events(b, POLLIN, 1000), POLLIN);
	CHECK_EQ(recv(b, buf, sizeof(buf), 0), 2);
	/* Only the peer's datagrams reach a connected socket. */
	CHECK_EQ(send_port(c, af, local_port(a), "no", 2), 2);
	CHECK_EQ(send_port(b, af, local_port(a), "yes", 3), 3);
	CHECK_EQ(wait_events(a, POLLIN, 1000) & POLLIN, POLLIN);
	CHECK_EQ(recv(a, buf, sizeof(buf), 0), 3);
	CHECK(memcmp(buf, "yes", 3) == 0, "from the peer: %.3s", buf);
	CHECK_ERR(recv(a, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	/* AF_UNSPEC undoes connect. */
	ss.ss_family = AF_UNSPEC;
	CHECK_OK(connect(a, (struct sockaddr *)&ss, sizeof(ss)));
	CHECK_ERR(send(a, "x", 1, 0), EDESTADDRREQ);
	/* A connected sender hears that its peer's port is unreachable. */
	gone = local_port(c);
	close(c);
	CHECK_OK(connect_port(b, af, gone));
	CHECK_EQ(send(b, "x", 1, 0), 1);
	CHECK(wait_events(b, POLLIN, 1000) & POLLERR, "unreachable: POLLERR");
	CHECK_ERR(recv(b, buf, sizeof(buf), MSG_DONTWAIT), ECONNREFUSED);
	CHECK_ERR(recv(b, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	close(a);
	close(b);
}

static void
test_ports(int af)
{
	int a, b, r;
	uint16_t port;

	a = (int)CHECK_OK(bound_socket(af, SOCK_DGRAM));
	b = (int)CHECK_OK(socket(af, SOCK_DGRAM, 0));
	port = local_port(a);
	CHECK_ERR(bind_port(b, af, port, false), EADDRINUSE);
	close(a);
	close(b);
	/* SO_REUSEADDR on both: they share it. */
	a = (int)CHECK_OK(socket(af, SOCK_DGRAM, 0));
	b = (int)CHECK_OK(socket(af, SOCK_DGRAM, 0));
	CHECK_OK(setint(a, SOL_SOCKET, SO_REUSEADDR, 1));
	CHECK_OK(setint(b, SOL_SOCKET, SO_REUSEADDR, 1));
	CHECK_OK(bind_port(a, af, 0, false));
	CHECK_OK(bind_port(b, af, local_port(a), false));
	r = (int)CHECK_OK(socket(af, SOCK_DGRAM, 0));
	CHECK_EQ(send_port(r, af, local_port(a), "x", 1), 1);
	close(r);
	close(a);
	close(b);
}

/* An IPv4 datagram to a dual-stack socket comes from a v4-mapped name. */
static void
test_mapped(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len = sizeof(ss);
	char buf[8];
	int r6, s4;

	r6 = (int)CHECK_OK(socket(AF_INET6, SOCK_DGRAM, 0));
	any_addr(AF_INET6, &ss, 0);
	CHECK_OK(bind(r6, (struct sockaddr *)&ss, sizeof(*sin6)));
	s4 = (int)CHECK_OK(socket(AF_INET, SOCK_DGRAM, 0));
	CHECK_EQ(send_port(s4, AF_INET, local_port(r6), "46", 2), 2);
	CHECK_EQ(wait_events(r6, POLLIN, 1000) & POLLIN, POLLIN);
	CHECK_EQ(recvfrom(r6, buf, sizeof(buf), 0, (struct sockaddr *)&ss,
	    &len), 2);
	CHECK_EQ(ss.ss_family, AF_INET6);
	CHECK(IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr), "v4-mapped sender");
	CHECK_EQ(port_of(&ss), local_port(s4));
	close(r6);
	close(s4);
}

static void
test_mmsg(int af)
{
	char b0[8], b1[8], b2[8];
	struct iovec iov[3] = { { b0, 8 }, { b1, 8 }, { b2, 8 } };
	struct mmsghdr mm[3];
	int r, s;

	r = (int)CHECK_OK(bound_socket(af, SOCK_DGRAM));
	s = (int)CHECK_OK(socket(af, SOCK_DGRAM, 0));
	CHECK_OK(connect_port(s, af, local_port(r)));
	memset(mm, 0, sizeof(mm));
	memcpy(b0, "a", 1);
	memcpy(b1, "bb", 2);
	memcpy(b2, "ccc", 3);
	for (int i = 0; i < 3; i++) {
		iov[i].iov_len = (size_t)i + 1;
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	CHECK_EQ(sendmmsg(s, mm, 3, 0), 3);
	for (int i = 0; i < 3; i++)
		iov[i].iov_len = 8;
	CHECK_EQ(wait_events(r, POLLIN, 1000) & POLLIN, POLLIN);
	CHECK_EQ(recvmmsg(r, mm, 3, MSG_DONTWAIT, NULL), 3);
	CHECK_EQ(mm[0].msg_len, 1);
	CHECK_EQ(mm[1].msg_len, 2);
	CHECK_EQ(mm[2].msg_len, 3);
	close(r);
	close(s);
}

static void
test_errors(int af)
{
	struct sockaddr_storage ss;
	int fd = (int)CHECK_OK(socket(af, SOCK_DGRAM, 0));

	CHECK_ERR(socket(af, SOCK_DGRAM, IPPROTO_TCP), EPROTONOSUPPORT);
	CHECK_ERR(listen(fd, 1), EOPNOTSUPP);
	CHECK_ERR(accept(fd, NULL, NULL), EOPNOTSUPP);
	CHECK_ERR(shutdown(fd, SHUT_RD), ENOTCONN);
	CHECK_ERR(send_port(fd, af, 0, "x", 1), EINVAL);
	loop_addr(af, &ss, 7);
	CHECK_ERR(sendto(fd, "x", 1, 0, (struct sockaddr *)&ss, 4), EINVAL);
	CHECK_ERR(setint(fd, IPPROTO_TCP, 1, 1), ENOPROTOOPT);
	CHECK_OK(setint(fd, IPPROTO_UDP, 1, 1));   /* UDP_CORK */
	close(fd);
}

int
main(void)
{
	static const int afs[] = { AF_INET, AF_INET6 };

	for (size_t i = 0; i < sizeof(afs) / sizeof(afs[0]); i++) {
		test_datagrams(afs[i]);
		test_connected(afs[i]);
		test_ports(afs[i]);
		test_mmsg(afs[i]);
		test_errors(afs[i]);
	}
	test_mapped();
	return guest_done();
}
