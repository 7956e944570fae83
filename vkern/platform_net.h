/*
 * Platform hooks for a network outside the sandbox (--net=host): sockets
 * the platform holds on the guest's behalf, named by small integer
 * handles.
 *
 * The kernel checks everything the guest gave before a call comes here:
 * families are AF_INET or AF_INET6, types SOCK_STREAM or SOCK_DGRAM (no
 * raw or packet sockets), names are whole struct sockaddr_in or
 * sockaddr_in6 built in kernel memory, and only the options of
 * PLAT_NET_OPTS reach a socket.  Every socket is non-blocking: a call
 * that would wait returns -EAGAIN (connect -EINPROGRESS), and the kernel
 * asks for an event when the socket is ready (plat_net_watch).
 *
 * Every hook returns 0, a count or a handle, or -errno with the errno the
 * network gave, which means the same to the guest (ECONNREFUSED,
 * EADDRINUSE, EACCES, ENETUNREACH...).  The hooks never block, and are
 * called only from the kernel's one event loop thread.  A second network
 * (a user-mode one) plugs in behind the same calls.
 */
#ifndef VK_PLATFORM_NET_H
#define VK_PLATFORM_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/tcp.h>
#include <linux/udp.h>

/*
 * The options a host socket takes, as X(level, name, why): what the
 * lock-down lets set and get, and what the kernel passes on.  The rest
 * stays in the kernel (socket.c's common ones, at SOL_SOCKET).
 */
#define PLAT_NET_OPTS(X) \
	X(SOL_SOCKET, SO_REUSEADDR, "a server's quick restart on its port") \
	X(SOL_SOCKET, SO_REUSEPORT, "servers sharing a port") \
	X(SOL_SOCKET, SO_KEEPALIVE, "keep-alive probes") \
	X(SOL_SOCKET, SO_BROADCAST, "UDP broadcast") \
	X(SOL_SOCKET, SO_SNDBUF, "the send buffer's size") \
	X(SOL_SOCKET, SO_RCVBUF, "the receive buffer's size") \
	X(SOL_SOCKET, SO_LINGER, "a close that resets (only l_linger 0: " \
	    "a longer linger would block the close)") \
	X(SOL_SOCKET, SO_ERROR, "a non-blocking connect's outcome") \
	X(SOL_SOCKET, SO_ACCEPTCONN, "whether it listens (read only)") \
	X(IPPROTO_IP, IP_TOS, "the type of service") \
	X(IPPROTO_IP, IP_TTL, "the time to live") \
	X(IPPROTO_IP, IP_RECVERR, "errors of unconnected UDP (the resolver)") \
	X(IPPROTO_IP, IP_MTU_DISCOVER, "path MTU discovery") \
	X(IPPROTO_IP, IP_MTU, "the path MTU (read only)") \
	X(IPPROTO_IPV6, IPV6_V6ONLY, "IPv6 only, or v4-mapped too") \
	X(IPPROTO_IPV6, IPV6_UNICAST_HOPS, "the hop limit") \
	X(IPPROTO_IPV6, IPV6_TCLASS, "the traffic class") \
	X(IPPROTO_IPV6, IPV6_RECVERR, "errors of unconnected UDP (the " \
	    "resolver)") \
	X(IPPROTO_IPV6, IPV6_MTU_DISCOVER, "path MTU discovery") \
	X(IPPROTO_TCP, TCP_NODELAY, "no Nagle delay") \
	X(IPPROTO_TCP, TCP_CORK, "hold partial segments") \
	X(IPPROTO_TCP, TCP_KEEPIDLE, "keep-alive timing") \
	X(IPPROTO_TCP, TCP_KEEPINTVL, "keep-alive timing") \
	X(IPPROTO_TCP, TCP_KEEPCNT, "keep-alive timing") \
	X(IPPROTO_TCP, TCP_MAXSEG, "the segment size") \
	X(IPPROTO_TCP, TCP_INFO, "the connection's state (read only)") \
	X(IPPROTO_UDP, UDP_CORK, "hold datagrams back until uncorked")

/* Whether level, name is one of PLAT_NET_OPTS. */
static inline bool
plat_net_opt_ok(int level, int name)
{
#define PLAT_NET_OPT_IS(l, n, why) \
	if (level == (l) && name == (n)) \
		return true;
	PLAT_NET_OPTS(PLAT_NET_OPT_IS)
#undef PLAT_NET_OPT_IS
	return false;
}

/* A new socket (its handle): family AF_INET/AF_INET6, type base only. */
int plat_net_socket(int family, int type);
/* Close h; its watch ends with it. */
void plat_net_close(int h);

int plat_net_bind(int h, const struct sockaddr *sa, socklen_t len);
int plat_net_listen(int h, int backlog);
/* 0, -EINPROGRESS (ready to write when done), -EALREADY... */
int plat_net_connect(int h, const struct sockaddr *sa, socklen_t len);
/* The next connection's handle, and its peer's name in sa (*len). */
int plat_net_accept(int h, struct sockaddr *sa, socklen_t *len);
int plat_net_shutdown(int h, int how);
/* The socket's name (peer false) or its peer's, in sa (*len in/out). */
int plat_net_name(int h, bool peer, struct sockaddr *sa, socklen_t *len);

/*
 * Send len bytes of buf, to sa if not NULL; flags MSG_MORE at most
 * (never a signal: the kernel raises SIGPIPE itself on -EPIPE).
 */
long plat_net_send(int h, const void *buf, size_t len, int flags,
    const struct sockaddr *sa, socklen_t salen);
/*
 * Receive up to len bytes into buf; flags MSG_PEEK and MSG_TRUNC.  The
 * sender's name in sa (*salen in/out), if sa is not NULL.
 */
long plat_net_recv(int h, void *buf, size_t len, int flags,
    struct sockaddr *sa, socklen_t *salen);

/* An option of PLAT_NET_OPTS (any other: -ENOPROTOOPT). */
int plat_net_getopt(int h, int level, int name, void *val, socklen_t *len);
int plat_net_setopt(int h, int level, int name, const void *val,
    socklen_t len);

/* Bytes to read (out false) or sent and not yet acknowledged. */
long plat_net_nbytes(int h, bool out);

/* Readiness now, as poll(2)'s revents (POLLRDHUP too). */
short plat_net_poll(int h);
/*
 * Ask for one PLAT_EV_NET (its fd the handle) when h is ready for any of
 * events (POLLIN, POLLOUT; errors and hang-ups always count); 0 stops
 * asking.  The watch stays until changed: the kernel clears it when the
 * event comes.
 */
void plat_net_watch(int h, short events);

/*
 * The host network's interfaces, addresses and routes (main and local
 * tables), into *t: 0, or -errno when they cannot be read.  Called once,
 * at boot, before the lock-down.
 */
struct netif_table;
int plat_net_describe(struct netif_table *t);

#endif
