/*
 * Loopback inet sockets: addresses, ports and connections.
 *
 * Every socket with a port is on one list: bound ones, listeners, both
 * ends of each connection, UDP sockets that sent.  bind refuses a port
 * that a socket of the same protocol holds where their addresses meet,
 * unless both asked to share it (SO_REUSEADDR with no listener among
 * them, or SO_REUSEPORT by the same user); connect and send pick a free
 * port from inet_port_range.  connect finds the listener of the address
 * and port (an exact address before a wildcard; SO_REUSEPORT listeners
 * in turn) and queues a server end on it as a local stream does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "vkern/kern/proc.h"
#include "vkern/vfs/inet_sock.h"
#include "vkern/vfs/socket.h"

#define SOMAXCONN_DEF  4096
#define PORT_PRIV      1024   /* net.ipv4.ip_unprivileged_port_start */

int inet_port_range[2] = { 32768, 60999 };

static struct isock *bound;
static unsigned port_next, reuse_next;

static const struct in6_addr v4any = { .s6_addr = { [10] = 0xff,
    [11] = 0xff } };
static const struct in6_addr v4loop = { .s6_addr = { [10] = 0xff,
    [11] = 0xff, [12] = 127, [15] = 1 } };

/* --- addresses --- */

static bool
is_v4(const struct in6_addr *a)
{
	return IN6_IS_ADDR_V4MAPPED(a);
}

static bool
is_any(const struct in6_addr *a)
{
	return IN6_IS_ADDR_UNSPECIFIED(a) || IN6_ARE_ADDR_EQUAL(a, &v4any);
}

/* On the loopback: 127.0.0.0/8 and ::1. */
static bool
is_loop(const struct in6_addr *a)
{
	return (is_v4(a) && a->s6_addr[12] == 127) ||
	    IN6_IS_ADDR_LOOPBACK(a);
}

static bool
is_multicast(const struct in6_addr *a)
{
	return is_v4(a) ? (a->s6_addr[12] & 0xf0) == 0xe0 :
	    IN6_IS_ADDR_MULTICAST(a);
}

/*
 * The address and port of a name given for socket is: -EINVAL (short),
 * -EAFNOSUPPORT (another family).  With mixed, a datagram socket of
 * AF_INET6 also takes an AF_INET name (to send to), as v4-mapped.
 */
static int
name_in(const struct isock *is, const struct sockname *sn, bool mixed,
    struct in6_addr *a, uint16_t *port)
{
	int fam = is->u.sk.family;

	if (sn->len >= sizeof(sa_family_t) && sn->sa.sa_family == AF_INET &&
	    (fam == AF_INET || (mixed && is->u.sk.type == SOCK_DGRAM))) {
		if (sn->len < sizeof(struct sockaddr_in))
			return -EINVAL;
		if (fam == AF_INET6 && is->v6only)
			return -EAFNOSUPPORT;
		*a = v4any;
		memcpy(&a->s6_addr[12], &sn->sin.sin_addr, 4);
		*port = ntohs(sn->sin.sin_port);
		return 0;
	}
	if (fam == AF_INET) {
		if (sn->len < sizeof(struct sockaddr_in))
			return -EINVAL;
		return -EAFNOSUPPORT;
	}
	/* The RFC 2133 size, without sin6_scope_id, is enough. */
	if (sn->len < offsetof(struct sockaddr_in6, sin6_scope_id))
		return -EINVAL;
	if (sn->sin6.sin6_family != AF_INET6)
		return -EAFNOSUPPORT;
	*a = sn->sin6.sin6_addr;
	*port = ntohs(sn->sin6.sin6_port);
	return 0;
}

/* The name of address a and port as a socket of family fam shows it. */
static void
name_out(int fam, const struct in6_addr *a, uint16_t port,
    struct sockname *sn)
{
	memset(sn, 0, sizeof(*sn));
	if (fam == AF_INET) {
		sn->sin.sin_family = AF_INET;
		sn->sin.sin_port = htons(port);
		memcpy(&sn->sin.sin_addr, &a->s6_addr[12], 4);
		sn->len = sizeof(sn->sin);
	} else {
		sn->sin6.sin6_family = AF_INET6;
		sn->sin6.sin6_port = htons(port);
		sn->sin6.sin6_addr = *a;
		sn->len = sizeof(sn->sin6);
	}
}

/* Where a packet to a leaves from: the loopback's own address. */
static struct in6_addr
source_for(const struct in6_addr *a)
{
	return is_v4(a) ? v4loop : in6addr_loopback;
}

/*
 * A destination: the wildcard means this host, as on Linux; anything
 * off the loopback has no route.
 */
static int
route(const struct isock *is, struct in6_addr *a)
{
	if (is_any(a))
		*a = source_for(a);
	if (is->u.sk.family == AF_INET6 && is->v6only && is_v4(a))
		return -ENETUNREACH;
	return is_loop(a) ? 0 : -ENETUNREACH;
}

/* Whether socket o, at its address, takes what is sent to a. */
static bool
takes(const struct isock *o, const struct in6_addr *l,
    const struct in6_addr *a)
{
	if (IN6_IS_ADDR_UNSPECIFIED(l) && o->u.sk.family == AF_INET6)
		return !is_v4(a) || !o->v6only;
	if (IN6_ARE_ADDR_EQUAL(l, &v4any))
		return is_v4(a);
	return IN6_ARE_ADDR_EQUAL(l, a);
}

/* Whether some address reaches both a at la and b at lb. */
static bool
meet(const struct isock *a, const struct in6_addr *la,
    const struct isock *b, const struct in6_addr *lb)
{
	if (!is_any(la))
		return takes(b, lb, la);
	if (!is_any(lb))
		return takes(a, la, lb);
	/* Two wildcards: they meet unless one is IPv4's, one IPv6-only. */
	return takes(a, la, &v4loop) == takes(b, lb, &v4loop) ||
	    takes(a, la, &in6addr_loopback) == takes(b, lb,
	    &in6addr_loopback);
}

/* --- the list of bound sockets --- */

static bool
flag(const struct isock *is, int name)
{
	return (is->u.sk.optflags >> name) & 1;
}

/*
 * Whether port at address a is taken for is by another socket: by any
 * at all when strict (a port to pick), else by one it may not share.
 */
static bool
port_taken(const struct isock *is, const struct in6_addr *a, uint16_t port,
    bool strict)
{
	for (const struct isock *o = bound; o != NULL; o = o->bound_next) {
		if (o == is || o->lport != port ||
		    o->u.sk.type != is->u.sk.type ||
		    !meet(is, a, o, &o->laddr))
			continue;
		if (strict)
			return true;
		if (flag(is, SO_REUSEPORT) && flag(o, SO_REUSEPORT) &&
		    is->u.sk.cred.uid == o->u.sk.cred.uid)
			continue;
		if (flag(is, SO_REUSEADDR) && flag(o, SO_REUSEADDR) &&
		    (is->u.sk.type == SOCK_DGRAM ||
		    o->u.state != US_LISTENING))
			continue;
		return true;
	}
	return false;
}

static void
list_add(struct isock *is, const struct in6_addr *a, uint16_t port)
{
	is->laddr = *a;
	is->lport = port;
	is->bound = true;
	is->bound_next = bound;
	bound = is;
}

void
inet_unbind(struct usock *so)
{
	struct isock *is = (struct isock *)so;

	if (!is->bound)
		return;
	for (struct isock **q = &bound; *q != NULL; q = &(*q)->bound_next) {
		if (*q == is) {
			*q = is->bound_next;
			break;
		}
	}
	is->bound = false;
	is->lport = 0;
	memset(&is->laddr, 0, sizeof(is->laddr));
}

/* A free port for is at a: 0, or -EADDRINUSE when none is left. */
static int
port_pick(struct isock *is, const struct in6_addr *a, uint16_t *portp)
{
	unsigned n = (unsigned)(inet_port_range[1] - inet_port_range[0] + 1);

	if (inet_port_range[0] < 1 || inet_port_range[1] > 65535 ||
	    inet_port_range[1] < inet_port_range[0])
		return -EADDRINUSE;
	for (unsigned i = 0; i < n; i++) {
		uint16_t port = (uint16_t)(inet_port_range[0] +
		    (int)(port_next++ % n));

		if (!port_taken(is, a, port, true)) {
			*portp = port;
			return 0;
		}
	}
	return -EADDRINUSE;
}

/* Give an unbound socket the wildcard and a port of its own. */
static int
autobind(struct isock *is)
{
	struct in6_addr a = is->u.sk.family == AF_INET ? v4any : in6addr_any;
	uint16_t port;
	int r;

	if (is->bound)
		return 0;
	if ((r = port_pick(is, &a, &port)) < 0)
		return r;
	list_add(is, &a, port);
	is->autobound = true;
	return 0;
}

int
inet_bind(struct proc *p, struct socket *sk, const struct sockname *sn)
{
	struct isock *is = isk(sk);
	struct in6_addr a;
	uint16_t port;
	int r;

	/* Linux takes AF_UNSPEC with INADDR_ANY from old programs. */
	if (sk->family == AF_INET && sn->len >= sizeof(struct sockaddr_in) &&
	    sn->sin.sin_family == AF_UNSPEC &&
	    sn->sin.sin_addr.s_addr == htonl(INADDR_ANY)) {
		a = v4any;
		port = ntohs(sn->sin.sin_port);
	} else if ((r = name_in(is, sn, false, &a, &port)) < 0) {
		return r;
	}
	if (sk->family == AF_INET6 && is_v4(&a) && is->v6only)
		return -EINVAL;
	if (!is_any(&a) && !is_loop(&a) && !(is_multicast(&a) &&
	    sk->type == SOCK_DGRAM))
		return -EADDRNOTAVAIL;
	if (port != 0 && port < PORT_PRIV && p->cred.euid != 0)
		return -EACCES;
	if (is->bound)
		return -EINVAL;
	if (port == 0) {
		if ((r = port_pick(is, &a, &port)) < 0)
			return r;
	} else if (port_taken(is, &a, port, false)) {
		return -EADDRINUSE;
	}
	list_add(is, &a, port);
	return 0;
}

int
inet_listen(struct socket *sk, int backlog, const struct ucred *cred)
{
	struct isock *is = isk(sk);
	int r;

	if (sk->type != SOCK_STREAM)
		return -EOPNOTSUPP;
	if (is->u.state == US_CONNECTED)
		return -EINVAL;
	if (is->u.state != US_LISTENING) {
		if ((r = autobind(is)) < 0)
			return r;
		/* Two sockets may share a port, but only one listen on it. */
		if (port_taken(is, &is->laddr, is->lport, false))
			return -EADDRINUSE;
	}
	if (backlog < 0 || backlog > SOMAXCONN_DEF)
		backlog = SOMAXCONN_DEF;
	is->u.backlog = backlog;
	is->u.state = US_LISTENING;
	is->u.peercred = *cred;
	usock_wake(&is->u);
	return 0;
}

/*
 * The best socket of type at a and port for a sender at src:sport (NULL
 * for a connection): an exact address before a wildcard, a UDP socket
 * connected to the sender before one that is not; equals share in turn.
 */
static struct isock *
lookup(int type, const struct in6_addr *a, uint16_t port,
    const struct in6_addr *src, uint16_t sport)
{
	struct isock *best = NULL;
	int score, top = 0, n = 0;

	for (struct isock *o = bound; o != NULL; o = o->bound_next) {
		if (o->u.sk.type != type || o->lport != port || o->u.dead ||
		    !takes(o, &o->laddr, a))
			continue;
		if (src == NULL ? o->u.state != US_LISTENING : (o->connected &&
		    (!IN6_ARE_ADDR_EQUAL(&o->paddr, src) || o->pport != sport)))
			continue;
		score = (is_any(&o->laddr) ? 1 : 2) + (o->connected ? 4 : 0);
		if (score > top) {
			top = score;
			n = 0;
		}
		if (score == top && reuse_next % (unsigned)++n == 0)
			best = o;
	}
	reuse_next++;
	return best;
}

int
inet_dgram_target(struct proc *p, struct usock *so,
    const struct sockname *dest, struct usock **tp)
{
	struct isock *is = (struct isock *)so, *o;
	struct in6_addr a;
	uint16_t port;
	int r;

	*tp = NULL;
	if (dest == NULL) {
		if (!is->connected)
			return -EDESTADDRREQ;
		a = is->paddr;
		port = is->pport;
	} else {
		if ((r = name_in(is, dest, true, &a, &port)) < 0)
			return r;
		if (port == 0)
			return -EINVAL;
		if ((r = route(is, &a)) < 0)
			return r;
	}
	if ((r = autobind(is)) < 0)
		return -EAGAIN;
	is->src = is_any(&is->laddr) ? source_for(&a) : is->laddr;
	if ((o = lookup(SOCK_DGRAM, &a, port, &is->src, is->lport)) == NULL) {
		/* The port is unreachable: a connected sender hears of it. */
		if (is->connected) {
			so->sk.error = ECONNREFUSED;
			usock_wake(so);
		}
		return 0;
	}
	*tp = &o->u;
	return 0;
}

void
inet_from(const struct usock *so, const struct usock *target,
    struct sockname *sn)
{
	const struct isock *is = (const struct isock *)so;

	name_out(target->sk.family, &is->src, is->lport, sn);
}

int
inet_name(struct socket *sk, bool peer, struct sockname *sn)
{
	struct isock *is = isk(sk);

	if (!peer) {
		name_out(sk->family, &is->laddr, is->lport, sn);
		return 0;
	}
	if (!is->connected)
		return -ENOTCONN;
	name_out(sk->family, &is->paddr, is->pport, sn);
	return 0;
}

/* connect(AF_UNSPEC): a datagram socket forgets its peer. */
static int
disconnect(struct isock *is)
{
	if (is->u.sk.type == SOCK_STREAM)
		return is->u.state == US_UNCONNECTED ? 0 : -EINVAL;
	is->connected = false;
	if (is->autobound)
		inet_unbind(&is->u);
	return 0;
}

/* A stream connects to whoever listens at a and port. */
static int
stream_connect(struct isock *is, const struct in6_addr *a, uint16_t port,
    const struct ucred *cred, bool nonblock, const void **chanp)
{
	struct isock *lis = lookup(SOCK_STREAM, a, port, NULL, 0), *srv;
	int r;

	is->u.shut = 0;
	if (lis == NULL) {
		is->connected = false;
		if (is->autobound)
			inet_unbind(&is->u);
		if (!nonblock)
			return -ECONNREFUSED;
		/* Non-blocking: it fails later, as the reset comes back. */
		is->refused = true;
		is->u.shut = SHUT_RCV | SHUT_SND;
		is->u.sk.error = ECONNREFUSED;
		usock_wake(&is->u);
		return -EINPROGRESS;
	}
	if ((r = usock_join(&is->u, &lis->u, cred, nonblock, chanp)) < 0)
		return r;
	srv = (struct isock *)is->u.peer;
	inet_inherit(srv, lis);
	list_add(srv, a, lis->lport);
	srv->paddr = is->laddr;
	srv->pport = is->lport;
	srv->connected = true;
	is->connecting = nonblock;
	return nonblock ? -EINPROGRESS : 0;
}

int
inet_connect(struct proc *p, struct socket *sk, const struct sockname *sn,
    const struct ucred *cred, bool nonblock, const void **chanp)
{
	struct isock *is = isk(sk);
	struct in6_addr a;
	uint16_t port;
	int r;

	if (sn->len >= sizeof(sa_family_t) && sn->sa.sa_family == AF_UNSPEC)
		return disconnect(is);
	if ((r = name_in(is, sn, true, &a, &port)) < 0)
		return r;
	if (sk->type == SOCK_STREAM) {
		/*
		 * A non-blocking connect, asked again, says it is done (then
		 * that it is connected); a refused one tells of it once more.
		 */
		if (is->connecting && is->u.state == US_CONNECTED) {
			is->connecting = false;
			return 0;
		}
		if (is->u.state != US_UNCONNECTED)
			return -EISCONN;
		if (is->refused) {
			is->refused = false;
			return sk->error != 0 ? sock_take_error(sk) :
			    -ECONNABORTED;
		}
	}
	if ((r = route(is, &a)) < 0)
		return r;
	if ((r = autobind(is)) < 0)
		return -EADDRNOTAVAIL;
	if (is_any(&is->laddr))
		is->laddr = source_for(&a);
	is->paddr = a;
	is->pport = port;
	is->connected = true;
	if (sk->type == SOCK_DGRAM)
		return 0;
	return stream_connect(is, &a, port, cred, nonblock, chanp);
}
