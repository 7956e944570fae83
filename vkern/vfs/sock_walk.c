/*
 * Local and inet sockets as /proc/net and sock_diag show them: the
 * walkers of net.h.  Inet sockets are local sockets underneath
 * (inet_sock.h), so both walk the list of every usock, each taking its
 * own family's, and skip those whose file is closed.
 */
#include <netinet/tcp.h>
#include <string.h>

#include "vkern/net/net.h"
#include "vkern/vfs/inet_sock.h"
#include "vkern/vfs/unix_sock.h"

/* Linux's sk_state of a socket in so's state. */
static int
usock_tcp_state(const struct usock *so)
{
	switch (so->state) {
	case US_LISTENING:
		return TCP_LISTEN;
	case US_CONNECTED:
		return TCP_ESTABLISHED;
	default:
		return TCP_CLOSE;
	}
}

/* What every walked socket shows, whatever its family. */
static void
usock_info(const struct usock *so, struct net_sockinfo *si)
{
	*si = (struct net_sockinfo){
		.family = so->sk.family,
		.type = so->sk.type,
		.protocol = so->sk.protocol,
		.state = usock_tcp_state(so),
		.rxq = (uint32_t)so->rq_bytes,
		.uid = so->sk.cred.uid,
		.ino = so->sk.ino,
		.refs = so->refs,
	};
	/* A listener: the connections waiting, and its backlog. */
	if (so->state == US_LISTENING) {
		si->rxq = (uint32_t)so->nacc;
		si->txq = (uint32_t)so->backlog;
	}
	if (so->peer != NULL)
		si->peer_ino = so->peer->sk.ino;
}

/* Call fn for the live sockets of family, filled in by fill. */
static int
usock_walk_family(int family, void (*fill)(const struct usock *,
    struct net_sockinfo *), net_sock_fn fn, void *arg)
{
	for (struct usock *so = usock_all; so != NULL; so = so->all_next) {
		struct net_sockinfo si;
		int r;

		if (so->dead || so->sk.family != family)
			continue;
		usock_info(so, &si);
		fill(so, &si);
		if ((r = fn(arg, &si)) != 0)
			return r;
	}
	return 0;
}

static void
unix_fill(const struct usock *so, struct net_sockinfo *si)
{
	si->protocol = 0;
	si->sun = so->name.len > 0 ? &so->name.sun : NULL;
	si->sunlen = so->name.len;
}

int
usock_walk(net_sock_fn fn, void *arg)
{
	return usock_walk_family(AF_UNIX, unix_fill, fn, arg);
}

/* An address kept in IPv6 form as the family's own sockaddr. */
static void
inet_addr_of(int family, const struct in6_addr *a, uint16_t port,
    struct sockaddr_in *in, struct sockaddr_in6 *in6)
{
	if (family == AF_INET) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		memcpy(&in->sin_addr, &a->s6_addr[12], 4);
	} else {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		in6->sin6_addr = *a;
	}
}

static void
inet_fill(const struct usock *so, struct net_sockinfo *si)
{
	const struct isock *is = (const struct isock *)so;

	si->protocol = so->sk.type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;
	si->peer_ino = 0;
	if (is->lport != 0)
		inet_addr_of(so->sk.family, &is->laddr, is->lport,
		    &si->local.in, &si->local.in6);
	if (is->connected)
		inet_addr_of(so->sk.family, &is->paddr, is->pport,
		    &si->remote.in, &si->remote.in6);
	/* A datagram socket is "established" only when connected. */
	if (so->sk.type == SOCK_DGRAM)
		si->state = is->connected ? TCP_ESTABLISHED : TCP_CLOSE;
}

int
inet_walk4(net_sock_fn fn, void *arg)
{
	return usock_walk_family(AF_INET, inet_fill, fn, arg);
}

int
inet_walk6(net_sock_fn fn, void *arg)
{
	return usock_walk_family(AF_INET6, inet_fill, fn, arg);
}
