/*
 * Helpers for the loopback inet guest programs (sock_tcp, sock_udp,
 * sock_inet_random): names of 127.0.0.1 and ::1, listeners on a port
 * the kernel picks, and readiness at a glance.
 */
#ifndef INET_COMMON_H
#define INET_COMMON_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

/* The loopback address of af and port, in ss: its length. */
static inline socklen_t
loop_addr(int af, struct sockaddr_storage *ss, uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (af == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		sin6->sin6_addr = in6addr_loopback;
		return sizeof(*sin6);
	}
}

/* The wildcard address of af and port. */
static inline socklen_t
any_addr(int af, struct sockaddr_storage *ss, uint16_t port)
{
	socklen_t len = loop_addr(af, ss, port);

	if (af == AF_INET)
		((struct sockaddr_in *)ss)->sin_addr.s_addr = htonl(INADDR_ANY);
	else
		((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_any;
	return len;
}

/* Bind fd to port of the loopback, or of the wildcard if any. */
static inline int
bind_port(int fd, int af, uint16_t port, bool any)
{
	struct sockaddr_storage ss;
	socklen_t len = any ? any_addr(af, &ss, port) :
	    loop_addr(af, &ss, port);

	return bind(fd, (struct sockaddr *)&ss, len);
}

static inline uint16_t
port_of(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET ?
	    ((const struct sockaddr_in *)ss)->sin_port :
	    ((const struct sockaddr_in6 *)ss)->sin6_port);
}

static inline uint16_t
local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	return port_of(&ss);
}

/* A socket of af and type bound to the loopback on a port of its own. */
static inline int
bound_socket(int af, int type)
{
	struct sockaddr_storage ss;
	socklen_t len = loop_addr(af, &ss, 0);
	int fd = socket(af, type, 0);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&ss, len) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static inline int
tcp_listener(int af)
{
	int fd = bound_socket(af, SOCK_STREAM);

	if (fd >= 0 && listen(fd, 8) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static inline int
connect_port(int fd, int af, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = loop_addr(af, &ss, port);

	return connect(fd, (struct sockaddr *)&ss, len);
}

static inline short
revents(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

/* Wait up to ms for any of events. */
static inline short
wait_events(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };

	return poll(&p, 1, ms) == 1 ? p.revents : 0;
}

#endif
