/*
 * AF_INET and AF_INET6 with --net=host: each guest socket is a socket of
 * the network outside (platform_net.h) that vkernel holds for it, named
 * by a handle.  Every address is the outside's, 127.0.0.1 too: a guest
 * reaches the host's servers and the host reaches the guest's.
 *
 * What the guest gives is checked here before it goes out: names are
 * rebuilt as whole sockaddr_in or sockaddr_in6 from the guest's bytes,
 * data and options travel through kernel buffers, and only the options
 * of PLAT_NET_OPTS reach the host socket.  The host sockets never block:
 * a call that would wait asks the platform for an event when the socket
 * is ready (plat_net_watch), returns -EAGAIN, and is run again when the
 * event wakes the socket (hostnet_ready).  poll, epoll and select read
 * the host socket's readiness the same way.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kern/kern.h"
#include "vkern/platform.h"
#include "vkern/vfs/inet_sock.h"
#include "vkern/vfs/socket.h"
#include "vkern/vk.h"

#define HN_BUF 65536   /* beyond the largest UDP datagram */

struct hsock {
	struct socket sk;         /* first: the common part */
	int h;                    /* the platform's handle */
	bool connecting;          /* a blocking connect waits for the end */
	struct hsock *next;       /* on hsocks */
};

static const struct sock_ops hostnet_ops;
static struct hsock *hsocks;
static uint8_t hn_buf[HN_BUF];

static struct hsock *
hsk(struct socket *sk)
{
	return (struct hsock *)sk;
}

static struct hsock *
hsock_new(int family, int type, int protocol, const struct ucred *cred,
    int h)
{
	struct hsock *hs = vk_xcalloc(1, sizeof(*hs));

	sock_init(&hs->sk, &hostnet_ops, family, type, protocol, cred);
	hs->h = h;
	hs->next = hsocks;
	hsocks = hs;
	return hs;
}

void
hostnet_ready(int h)
{
	for (struct hsock *hs = hsocks; hs != NULL; hs = hs->next) {
		if (hs->h == h) {
			plat_net_watch(h, 0);
			sock_wake(&hs->sk);
			return;
		}
	}
	plat_net_watch(h, 0);
}

/* Wait for events on hs: the caller returns -EAGAIN. */
static int
hn_wait(struct hsock *hs, short events, const void **chanp)
{
	plat_net_watch(hs->h, events);
	if (chanp != NULL)
		*chanp = &hs->sk;
	return -EAGAIN;
}

/* The error the host socket has pending, if any, into SO_ERROR. */
static void
hn_sync(struct socket *sk)
{
	socklen_t len = sizeof(int);
	int e = 0;

	if (plat_net_getopt(hsk(sk)->h, SOL_SOCKET, SO_ERROR, &e, &len) == 0 &&
	    e > 0)
		sk->error = e;
}

/*
 * A name the guest gave, rebuilt in *ss: the bytes of its family's own
 * struct (at most the guest's length), zeros after them and in IPv4's
 * padding.  *lenp, what to pass on, is the guest's length up to an IPv6
 * name's, so that the host tells a short name (EINVAL) from one of the
 * other family (EAFNOSUPPORT) as for the guest's own call.
 */
static int
hn_addr(const struct sockname *sn, struct sockaddr_storage *ss,
    socklen_t *lenp)
{
	socklen_t size;

	memset(ss, 0, sizeof(*ss));
	if (sn->len < sizeof(sa_family_t))
		return -EINVAL;
	switch (sn->sa.sa_family) {
	case AF_INET:
	case AF_UNSPEC:
		size = sizeof(struct sockaddr_in);
		break;
	case AF_INET6:
		size = sizeof(struct sockaddr_in6);
		break;
	default:
		return -EAFNOSUPPORT;
	}
	*lenp = VK_MIN(sn->len, (socklen_t)sizeof(struct sockaddr_in6));
	memcpy(ss, sn->raw, VK_MIN(*lenp, size));
	if (sn->sa.sa_family != AF_INET6)
		memset(((struct sockaddr_in *)ss)->sin_zero, 0,
		    sizeof(((struct sockaddr_in *)ss)->sin_zero));
	return 0;
}

static int
hn_bind(struct proc *p, struct socket *sk, const struct sockname *sn)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int r;

	if ((r = hn_addr(sn, &ss, &len)) < 0)
		return r;
	return plat_net_bind(hsk(sk)->h, (struct sockaddr *)&ss, len);
}

static int
hn_listen(struct socket *sk, int backlog, const struct ucred *cred)
{
	return plat_net_listen(hsk(sk)->h, backlog);
}

/* A blocking connect's end: 0 or its error, or wait on. */
static int
hn_connect_end(struct hsock *hs, const void **chanp)
{
	if (!(plat_net_poll(hs->h) & (POLLOUT | POLLERR | POLLHUP)))
		return hn_wait(hs, POLLOUT, chanp);
	hs->connecting = false;
	hn_sync(&hs->sk);
	return sock_take_error(&hs->sk);
}

static int
hn_connect(struct proc *p, struct socket *sk, const struct sockname *sn,
    const struct ucred *cred, bool nonblock, const void **chanp)
{
	struct hsock *hs = hsk(sk);
	struct sockaddr_storage ss;
	socklen_t len;
	int r;

	if (hs->connecting)
		return hn_connect_end(hs, chanp);
	if ((r = hn_addr(sn, &ss, &len)) < 0)
		return r;
	r = plat_net_connect(hs->h, (struct sockaddr *)&ss, len);
	if (r != -EINPROGRESS || nonblock)
		return r;
	hs->connecting = true;
	return hn_connect_end(hs, chanp);
}

static long
hn_accept(struct socket *sk, unsigned oflags, struct file **fpp)
{
	struct hsock *hs = hsk(sk), *n;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int h;

	if ((h = plat_net_accept(hs->h, (struct sockaddr *)&ss, &len)) < 0)
		return h == -EAGAIN ? hn_wait(hs, POLLIN, NULL) : h;
	n = hsock_new(sk->family, sk->type, sk->protocol, &sk->cred, h);
	*fpp = sock_file(&n->sk, oflags);
	return 0;
}

static int
hn_shutdown(struct socket *sk, int how)
{
	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
		return -EINVAL;
	return plat_net_shutdown(hsk(sk)->h, how);
}

static int
hn_name(struct socket *sk, bool peer, struct sockname *sn)
{
	socklen_t len = sizeof(struct sockaddr_storage);
	int r;

	memset(sn, 0, sizeof(*sn));
	if ((r = plat_net_name(hsk(sk)->h, peer, &sn->sa, &len)) < 0)
		return r;
	sn->len = VK_MIN(len, (socklen_t)sizeof(struct sockaddr_storage));
	return 0;
}

static long
hn_send(struct proc *p, struct socket *sk, size_t len, sock_copy_fn fill,
    void *arg, const struct sockname *dest, struct scm *scm, int flags,
    const void **chanp)
{
	struct hsock *hs = hsk(sk);
	struct sockaddr_storage ss;
	socklen_t salen = 0;
	size_t n = len;
	long r;

	/* Only a local socket carries descriptors: they are let go. */
	if (scm != NULL)
		scm_release(scm);
	if (sk->error != 0)
		return sock_take_error(sk);
	if (sk->type == SOCK_STREAM)
		n = VK_MIN(len, sizeof(hn_buf));
	else if (len > sizeof(hn_buf))
		return -EMSGSIZE;
	/* A stream's destination is its peer, whatever the guest names. */
	if (dest != NULL && sk->type == SOCK_DGRAM &&
	    (r = hn_addr(dest, &ss, &salen)) < 0)
		return r;
	if ((r = fill(arg, hn_buf, n)) < 0)
		return r;
	r = plat_net_send(hs->h, hn_buf, n, flags & MSG_MORE,
	    salen != 0 ? (struct sockaddr *)&ss : NULL, salen);
	return r == -EAGAIN ? hn_wait(hs, POLLOUT, chanp) : r;
}

static long
hn_recv(struct socket *sk, size_t len, sock_copy_fn drain, void *arg,
    int flags, int *flagsp, struct sockname *from, struct scm *scm)
{
	struct hsock *hs = hsk(sk);
	bool dgram = sk->type == SOCK_DGRAM;
	struct sockname sn;
	size_t n = VK_MIN(len, sizeof(hn_buf)), got;
	long r;
	int e;

	if (sk->error != 0)
		return sock_take_error(sk);
	memset(&sn, 0, sizeof(sn));
	sn.len = sizeof(struct sockaddr_storage);
	/* A datagram's whole length tells whether it was cut. */
	r = plat_net_recv(hs->h, hn_buf, n, (flags & (MSG_PEEK | MSG_TRUNC)) |
	    (dgram ? MSG_TRUNC : 0), dgram ? &sn.sa : NULL, &sn.len);
	if (r == -EAGAIN)
		return hn_wait(hs, POLLIN, NULL);
	if (r < 0)
		return r;
	/* A stream's MSG_TRUNC threw the bytes away. */
	got = !dgram && (flags & MSG_TRUNC) ? 0 : VK_MIN((size_t)r, n);
	if (got > 0 && (e = drain(arg, hn_buf, got)) < 0)
		return e;
	if (dgram && (size_t)r > n)
		*flagsp |= MSG_TRUNC;
	if (dgram && from != NULL) {
		sn.len = VK_MIN(sn.len, (socklen_t)sizeof(struct sockaddr_storage));
		*from = sn;
	}
	return dgram && !(flags & MSG_TRUNC) ? (long)got : r;
}

static int
hn_getopt(struct socket *sk, int level, int name, void *val, socklen_t *len)
{
	if (!plat_net_opt_ok(level, name))
		return -ENOPROTOOPT;
	return plat_net_getopt(hsk(sk)->h, level, name, val, len);
}

static int
hn_setopt(struct socket *sk, int level, int name, const void *val,
    socklen_t len)
{
	/* The read-only ones too, as Linux answers a set of them. */
	if (!plat_net_opt_ok(level, name) ||
	    (level == IPPROTO_TCP && name == TCP_INFO) ||
	    (level == SOL_SOCKET && name == SO_ACCEPTCONN) ||
	    (level == IPPROTO_IP && name == IP_MTU))
		return -ENOPROTOOPT;
	return plat_net_setopt(hsk(sk)->h, level, name, val, len);
}

/* The SOL_SOCKET options socket.c keeps that the host socket needs too. */
static int
hn_setopt_common(struct socket *sk, int name, const void *val,
    socklen_t len)
{
	struct linger l;

	if (name == SO_LINGER) {
		/* Only a close that resets: a linger would block vkernel. */
		l.l_onoff = sk->linger.l_onoff && sk->linger.l_linger == 0;
		l.l_linger = 0;
		return plat_net_setopt(hsk(sk)->h, SOL_SOCKET, SO_LINGER, &l,
		    sizeof(l));
	}
	if (name == SO_ERROR || !plat_net_opt_ok(SOL_SOCKET, name))
		return 0;
	return plat_net_setopt(hsk(sk)->h, SOL_SOCKET, name, val, len);
}

static long
hn_nread(struct socket *sk)
{
	return plat_net_nbytes(hsk(sk)->h, false);
}

static long
hn_nwrite(struct socket *sk)
{
	return plat_net_nbytes(hsk(sk)->h, true);
}

/*
 * Readiness now; and an event asked for when what is not ready yet
 * becomes so, for whoever polls to wait on.
 */
static short
hn_poll(struct socket *sk)
{
	struct hsock *hs = hsk(sk);
	short rev = plat_net_poll(hs->h);

	if (rev & POLLERR)
		hn_sync(sk);
	if (sk->error != 0)
		rev |= POLLERR;
	plat_net_watch(hs->h, (rev & (POLLERR | POLLHUP)) ? 0 :
	    (short)((POLLIN | POLLOUT) & ~rev));
	return rev;
}

static void
hn_release(struct socket *sk)
{
	struct hsock *hs = hsk(sk), **pp;

	for (pp = &hsocks; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == hs) {
			*pp = hs->next;
			break;
		}
	}
	plat_net_close(hs->h);
	free(hs);
}

static const struct sock_ops hostnet_ops = {
	.bind = hn_bind,
	.listen = hn_listen,
	.connect = hn_connect,
	.accept = hn_accept,
	.shutdown = hn_shutdown,
	.name = hn_name,
	.send = hn_send,
	.recv = hn_recv,
	.getopt = hn_getopt,
	.setopt = hn_setopt,
	.setopt_common = hn_setopt_common,
	.sync = hn_sync,
	.nread = hn_nread,
	.nwrite = hn_nwrite,
	.poll = hn_poll,
	.release = hn_release,
};

static int
hn_create(int family, int type, int protocol, const struct ucred *cred,
    struct socket **sop)
{
	int r, h;

	if ((r = inet_proto(type, &protocol, cred)) < 0)
		return r;
	if ((h = plat_net_socket(family, type)) < 0)
		return h;
	*sop = &hsock_new(family, type, protocol, cred, h)->sk;
	return 0;
}

static int
hn4_create(int type, int protocol, const struct ucred *cred,
    struct socket **sop)
{
	return hn_create(AF_INET, type, protocol, cred, sop);
}

static int
hn6_create(int type, int protocol, const struct ucred *cred,
    struct socket **sop)
{
	return hn_create(AF_INET6, type, protocol, cred, sop);
}

const struct sock_family hostnet_family = {
	.family = AF_INET,
	.addrlen_max = sizeof(struct sockaddr_storage),
	.create = hn4_create,
};

const struct sock_family hostnet6_family = {
	.family = AF_INET6,
	.addrlen_max = sizeof(struct sockaddr_storage),
	.create = hn6_create,
};
