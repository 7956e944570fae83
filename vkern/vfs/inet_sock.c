/*
 * AF_INET and AF_INET6 on the guest's loopback: the families, TCP and
 * UDP over the local socket queues (see inet_sock.h), and their options.
 *
 * Data goes as on a local socket, with TCP's and UDP's differences: a
 * TCP socket that is not connected answers EPIPE to a send and ENOTCONN
 * to a receive, and MSG_TRUNC throws received bytes away; a UDP
 * datagram goes to whoever has its port (none: it is lost) and is
 * bounded by IP's size.  The options of IPPROTO_IP, IPPROTO_IPV6,
 * IPPROTO_TCP and IPPROTO_UDP are kept as Linux checks them, and change
 * nothing on a loopback.
 */
#include <errno.h>
#include <string.h>
#include <linux/tcp.h>
#include <linux/udp.h>

#include "vkern/vfs/inet_sock.h"
#include "vkern/vfs/socket.h"
#include "vkern/vk.h"

#define UDP_MAX4   65507     /* 65535 less the IPv4 and UDP headers */
#define UDP_MAX6   65527     /* 65535 less the UDP header */
#define LO_MSS     32768     /* what Linux settles on for the loopback */
#define LO_MTU     65536
#define MSS_DEF    536
#define TCP_WMEM   16384     /* net.ipv4.tcp_wmem and tcp_rmem's defaults */
#define TCP_RMEM   131072

/* Linux's TCP states, as TCP_INFO reports them (not in the UAPI). */
enum { TS_ESTABLISHED = 1, TS_FIN_WAIT2 = 5, TS_CLOSE = 7,
    TS_CLOSE_WAIT = 8, TS_LISTEN = 10 };

static const struct sock_ops inet_ops;
static const struct usock_proto tcp_proto, udp_proto;

struct isock *
isk(struct socket *sk)
{
	return (struct isock *)sk;
}

/* --- options --- */

enum { OPT_BOOL, OPT_RANGE, OPT_DEF };   /* OPT_DEF: -1 is the default */

#define ON_TCP   1     /* only a stream's */
#define ON_UDP   2     /* only a datagram's */
#define ON_V6    4     /* only an AF_INET6 socket's */
#define PRE_BIND 8     /* set only before bind */

struct iopt {
	int level, name;
	unsigned char kind, on;
	int min, max, def;
};

static const struct iopt iopts[] = {
	{ SOL_SOCKET, SO_PASSCRED, OPT_BOOL, 0, 0, 1, 0 },
	{ SOL_SOCKET, SO_TIMESTAMP_OLD, OPT_BOOL, 0, 0, 1, 0 },
	{ SOL_SOCKET, SO_TIMESTAMPNS_OLD, OPT_BOOL, 0, 0, 1, 0 },
	{ SOL_SOCKET, SO_RXQ_OVFL, OPT_BOOL, 0, 0, 1, 0 },
	{ SOL_SOCKET, SO_ZEROCOPY, OPT_BOOL, 0, 0, 1, 0 },
	{ SOL_SOCKET, SO_SELECT_ERR_QUEUE, OPT_BOOL, 0, 0, 1, 0 },
	{ SOL_SOCKET, SO_BUSY_POLL, OPT_RANGE, 0, 0, INT32_MAX, 0 },
	{ IPPROTO_IP, IP_TOS, OPT_RANGE, 0, 0, 255, 0 },
	{ IPPROTO_IP, IP_TTL, OPT_DEF, 0, 1, 255, 64 },
	{ IPPROTO_IP, IP_RECVERR, OPT_BOOL, 0, 0, 1, 0 },
	{ IPPROTO_IP, IP_PKTINFO, OPT_BOOL, 0, 0, 1, 0 },
	{ IPPROTO_IP, IP_RECVTTL, OPT_BOOL, 0, 0, 1, 0 },
	{ IPPROTO_IP, IP_RECVTOS, OPT_BOOL, 0, 0, 1, 0 },
	{ IPPROTO_IP, IP_MTU_DISCOVER, OPT_RANGE, 0, 0, 5, 1 },
	{ IPPROTO_IP, IP_MULTICAST_TTL, OPT_DEF, 0, 0, 255, 1 },
	{ IPPROTO_IP, IP_MULTICAST_LOOP, OPT_BOOL, 0, 0, 1, 1 },
	{ IPPROTO_IP, IP_FREEBIND, OPT_BOOL, 0, 0, 1, 0 },
	{ IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, OPT_BOOL, 0, 0, 1, 0 },
	{ IPPROTO_IP, IP_RECVORIGDSTADDR, OPT_BOOL, 0, 0, 1, 0 },
	{ IPPROTO_IPV6, IPV6_V6ONLY, OPT_BOOL, ON_V6 | PRE_BIND, 0, 1, 0 },
	{ IPPROTO_IPV6, IPV6_UNICAST_HOPS, OPT_DEF, ON_V6, 0, 255, 64 },
	{ IPPROTO_IPV6, IPV6_MULTICAST_HOPS, OPT_DEF, ON_V6, 0, 255, 1 },
	{ IPPROTO_IPV6, IPV6_MULTICAST_LOOP, OPT_RANGE, ON_V6, 0, 1, 1 },
	{ IPPROTO_IPV6, IPV6_RECVPKTINFO, OPT_BOOL, ON_V6, 0, 1, 0 },
	{ IPPROTO_IPV6, IPV6_RECVHOPLIMIT, OPT_BOOL, ON_V6, 0, 1, 0 },
	{ IPPROTO_IPV6, IPV6_RECVTCLASS, OPT_BOOL, ON_V6, 0, 1, 0 },
	{ IPPROTO_IPV6, IPV6_RECVERR, OPT_BOOL, ON_V6, 0, 1, 0 },
	{ IPPROTO_IPV6, IPV6_TCLASS, OPT_DEF, ON_V6, 0, 255, 0 },
	{ IPPROTO_IPV6, IPV6_MTU_DISCOVER, OPT_RANGE, ON_V6, 0, 5, 1 },
	{ IPPROTO_TCP, TCP_NODELAY, OPT_BOOL, ON_TCP, 0, 1, 0 },
	{ IPPROTO_TCP, TCP_CORK, OPT_BOOL, ON_TCP, 0, 1, 0 },
	{ IPPROTO_TCP, TCP_QUICKACK, OPT_BOOL, ON_TCP, 0, 1, 1 },
	{ IPPROTO_TCP, TCP_KEEPIDLE, OPT_RANGE, ON_TCP, 1, 32767, 7200 },
	{ IPPROTO_TCP, TCP_KEEPINTVL, OPT_RANGE, ON_TCP, 1, 32767, 75 },
	{ IPPROTO_TCP, TCP_KEEPCNT, OPT_RANGE, ON_TCP, 1, 127, 9 },
	{ IPPROTO_TCP, TCP_SYNCNT, OPT_RANGE, ON_TCP, 1, 127, 6 },
	{ IPPROTO_TCP, TCP_USER_TIMEOUT, OPT_RANGE, ON_TCP, 0, INT32_MAX, 0 },
	{ IPPROTO_TCP, TCP_FASTOPEN, OPT_RANGE, ON_TCP, 0, INT32_MAX, 0 },
	{ IPPROTO_TCP, TCP_NOTSENT_LOWAT, OPT_RANGE, ON_TCP, 0, INT32_MAX, -1 },
	{ IPPROTO_UDP, UDP_CORK, OPT_BOOL, ON_UDP, 0, 1, 0 },
};

_Static_assert(sizeof(iopts) / sizeof(iopts[0]) <= INET_NOPTS,
    "every kept option has a slot");

/*
 * The kept option at level and name, if so has it: NULL with *rp the
 * error for an option so has not, or for one kept elsewhere (*rp 1).
 */
static const struct iopt *
iopt_find(const struct isock *is, int level, int name, int *rp)
{
	const struct socket *sk = &is->u.sk;

	*rp = 1;
	if (level == IPPROTO_IPV6 && sk->family != AF_INET6)
		level = -1;
	if (level == IPPROTO_TCP && sk->type != SOCK_STREAM)
		level = -1;
	if (level == IPPROTO_UDP && sk->type != SOCK_DGRAM)
		level = -1;
	for (size_t i = 0; i < sizeof(iopts) / sizeof(iopts[0]); i++)
		if (iopts[i].level == level && iopts[i].name == name)
			return &iopts[i];
	if (level != SOL_SOCKET && level != IPPROTO_IP &&
	    level != IPPROTO_IPV6 && level != IPPROTO_TCP &&
	    level != IPPROTO_UDP)
		*rp = -ENOPROTOOPT;
	return NULL;
}

static int
tcp_state(const struct isock *is)
{
	const struct usock *so = &is->u;

	switch (so->state) {
	case US_LISTENING:
		return TS_LISTEN;
	case US_UNCONNECTED:
		return TS_CLOSE;
	default:
		break;
	}
	if (so->sk.error != 0 || so->rst)
		return TS_CLOSE;
	/* The peer is gone, or will send no more: this end may. */
	if (so->peer == NULL || (so->shut & SHUT_RCV))
		return TS_CLOSE_WAIT;
	return (so->shut & SHUT_SND) ? TS_FIN_WAIT2 : TS_ESTABLISHED;
}

static int
tcp_info(const struct isock *is, void *val, socklen_t *len)
{
	struct tcp_info ti;

	memset(&ti, 0, sizeof(ti));
	ti.tcpi_state = (uint8_t)tcp_state(is);
	if (ti.tcpi_state != TS_LISTEN && ti.tcpi_state != TS_CLOSE) {
		ti.tcpi_snd_mss = ti.tcpi_rcv_mss = ti.tcpi_advmss = LO_MSS;
		ti.tcpi_pmtu = LO_MTU;
		ti.tcpi_snd_cwnd = 10;
	}
	if (*len > sizeof(ti))
		*len = sizeof(ti);
	memcpy(val, &ti, *len);
	return 0;
}

/* The options that are not plain values, at getsockopt. */
static int
special_get(struct isock *is, int level, int name, void *val,
    socklen_t *len)
{
	struct socket *sk = &is->u.sk;
	bool up = is->connected && sk->type == SOCK_STREAM ?
	    is->u.state == US_CONNECTED : is->connected;

	if (level == SOL_SOCKET && name == SO_ACCEPTCONN)
		return sock_put_int(val, len, is->u.state == US_LISTENING);
	if (level == SOL_SOCKET && name == SO_PEERCRED) {
		/* Not a local socket: no process, and ids nobody has. */
		struct ucred c = { .pid = 0, .uid = (uid_t)-1,
		    .gid = (gid_t)-1 };

		if (*len > sizeof(c))
			*len = sizeof(c);
		memcpy(val, &c, *len);
		return 0;
	}
	if ((level == IPPROTO_IP && name == IP_MTU) ||
	    (level == IPPROTO_IPV6 && name == IPV6_MTU &&
	    sk->family == AF_INET6))
		return up ? sock_put_int(val, len, LO_MTU) : -ENOTCONN;
	if (level != IPPROTO_TCP || sk->type != SOCK_STREAM)
		return 1;
	switch (name) {
	case TCP_INFO:
		return tcp_info(is, val, len);
	case TCP_MAXSEG:
		return sock_put_int(val, len, up ? LO_MSS : MSS_DEF);
	case TCP_CONGESTION:
		if (*len > 6)
			*len = 6;
		memcpy(val, "cubic", *len);
		return 0;
	}
	return 1;
}

static int
inet_getopt(struct socket *sk, int level, int name, void *val,
    socklen_t *len)
{
	struct isock *is = isk(sk);
	const struct iopt *o;
	int r, v;

	if ((r = special_get(is, level, name, val, len)) != 1 ||
	    (r = mcast_getopt(is, level, name, val, len)) != 1)
		return r;
	if ((o = iopt_find(is, level, name, &r)) == NULL)
		return r == 1 ? -ENOPROTOOPT : r;
	v = is->opt[o - iopts];
	/* IPv4's options answer a shorter buffer with one byte. */
	if (level == IPPROTO_IP && *len > 0 && *len < sizeof(int) &&
	    v >= 0 && v <= 255) {
		*len = 1;
		*(uint8_t *)val = (uint8_t)v;
		return 0;
	}
	return sock_put_int(val, len, v);
}

/* The options that are not plain values, at setsockopt. */
static int
special_set(struct isock *is, int level, int name, const void *val,
    socklen_t len)
{
	int v = 0;

	memcpy(&v, val, VK_MIN(len, sizeof(v)));
	if (level == IPPROTO_TCP && is->u.sk.type == SOCK_STREAM) {
		switch (name) {
		case TCP_MAXSEG:
			if (len < sizeof(int))
				return -EINVAL;
			return v == 0 || (v >= 88 && v <= 32767) ? 0 : -EINVAL;
		case TCP_CONGESTION:
			/* The algorithms Linux has without modules. */
			if (len >= 5 && memcmp(val, "cubic", 5) == 0)
				return 0;
			if (len >= 4 && memcmp(val, "reno", 4) == 0)
				return 0;
			return -ENOENT;
		}
	}
	return mcast_setopt(is, level, name, val, len);
	return 1;
}

static int
inet_setopt(struct socket *sk, int level, int name, const void *val,
    socklen_t len)
{
	struct isock *is = isk(sk);
	const struct iopt *o;
	int r, v;

	if ((r = special_set(is, level, name, val, len)) != 1)
		return r;
	if ((o = iopt_find(is, level, name, &r)) == NULL)
		return r == 1 ? -ENOPROTOOPT : r;
	/* IPv4's options take one byte as well as an int. */
	if (len >= sizeof(int))
		memcpy(&v, val, sizeof(v));
	else if (len > 0 && level == IPPROTO_IP)
		v = *(const uint8_t *)val;
	else
		return -EINVAL;
	/* Multicast TTLs are a datagram's. */
	if (level == IPPROTO_IP && name == IP_MULTICAST_TTL &&
	    sk->type == SOCK_STREAM)
		return -EINVAL;
	if ((o->on & PRE_BIND) && is->bound)
		return -EINVAL;
	if (o->kind == OPT_BOOL)
		v = v != 0;
	else if (o->kind == OPT_DEF && v == -1)
		v = o->def;
	else if (v < o->min || v > o->max)
		return -EINVAL;
	is->opt[o - iopts] = v;
	if (o->level == IPPROTO_IPV6 && o->name == IPV6_V6ONLY)
		is->v6only = v != 0;
	return 0;
}

void
inet_inherit(struct isock *is, const struct isock *lis)
{
	memcpy(is->opt, lis->opt, sizeof(is->opt));
	is->v6only = lis->v6only;
	is->u.sk.optflags = lis->u.sk.optflags;
	is->u.sk.sndbuf = lis->u.sk.sndbuf;
	is->u.sk.rcvbuf = lis->u.sk.rcvbuf;
	is->u.sk.linger = lis->u.sk.linger;
	is->u.sk.priority = lis->u.sk.priority;
}

/* --- data --- */

static int
discard(void *arg, void *kbuf, size_t n)
{
	return 0;
}

static long
inet_send(struct proc *p, struct socket *sk, size_t len, sock_copy_fn fill,
    void *arg, const struct sockname *dest, struct scm *scm, int flags,
    const void **chanp)
{
	struct isock *is = isk(sk);
	long r;

	/* Only a local socket carries descriptors: they are let go. */
	if (scm != NULL)
		scm_release(scm);
	if (sk->type == SOCK_STREAM) {
		if (is->u.state != US_CONNECTED)
			return sk->error != 0 ? sock_take_error(sk) : -EPIPE;
		/* Nothing to send is no segment: the peer sees nothing. */
		if (len == 0)
			return 0;
		/*
		 * The first bytes after the peer closed still go, and are
		 * answered by a reset: only what comes after fails.
		 */
		if (is->u.peer == NULL && !is->u.rst && !is->shut_wr &&
		    sk->error == 0) {
			is->u.rst = true;
			usock_wake(&is->u);
			return (long)len;
		}
		/* TCP does without the address a datagram would take. */
		r = usock_send(p, sk, len, fill, arg, NULL, scm,
		    flags & ~MSG_OOB, chanp);
		/* The byte that ends an urgent send (all of it) is urgent. */
		if ((flags & MSG_OOB) && r > 0 && (size_t)r == len)
			urg_sent(is);
		return r;
	}
	if (len > (sk->family == AF_INET ? UDP_MAX4 : UDP_MAX6))
		return -EMSGSIZE;
	/* IPv4's UDP refuses urgent data as BSD does; IPv6's ignores it. */
	if ((flags & MSG_OOB) && sk->family == AF_INET)
		return -EOPNOTSUPP;
	return usock_send(p, sk, len, fill, arg, dest, scm, flags & ~MSG_OOB,
	    chanp);
}

static long
inet_recv(struct socket *sk, size_t len, sock_copy_fn drain, void *arg,
    int flags, int *flagsp, struct sockname *from, struct scm *scm)
{
	struct isock *is = isk(sk);

	/* UDP has no urgent data, and takes MSG_OOB for a plain receive. */
	if (sk->type == SOCK_DGRAM)
		return usock_recv(sk, len, drain, arg, flags & ~MSG_OOB, flagsp,
		    from, scm);
	if (flags & MSG_OOB)
		return urg_recv_oob(is, len, drain, arg, flags, flagsp);
	if (is->u.state != US_CONNECTED)
		return sk->error != 0 ? sock_take_error(sk) : -ENOTCONN;
	/* A stream's MSG_TRUNC throws the bytes away. */
	return urg_recv(is, len, (flags & MSG_TRUNC) ? discard : drain, arg,
	    flags, flagsp, scm);
}

static short
inet_poll(struct socket *sk)
{
	return urg_poll(isk(sk), usock_poll(sk));
}

static long
inet_nread(struct socket *sk)
{
	return urg_nread(isk(sk));
}

/*
 * What a TCP close with SO_LINGER waits for: the bytes queued at the
 * peer beyond its receive buffer, which Linux would still hold unsent
 * for want of a window.  None when unread data makes the close a reset.
 */
static long
inet_unsent(struct socket *sk)
{
	struct isock *is = isk(sk);
	struct usock *peer = is->u.peer;
	long queued;

	if (sk->type != SOCK_STREAM || peer == NULL || is->u.rq != NULL)
		return 0;
	queued = usock_nwrite(sk);
	return queued > peer->sk.rcvbuf ? queued - peer->sk.rcvbuf : 0;
}

static void
inet_release(struct socket *sk)
{
	struct isock *is = isk(sk);

	/* SO_LINGER with no time: the close resets the connection. */
	if (sk->linger.l_onoff && sk->linger.l_linger == 0)
		is->u.abort = true;
	usock_release(sk);
}

static int
inet_shutdown(struct socket *sk, int how)
{
	struct isock *is = isk(sk);
	int r;

	if ((r = usock_shutdown(sk, how)) < 0)
		return r;
	is->shut_wr = is->shut_wr || how != SHUT_RD;
	if (sk->type == SOCK_STREAM ? is->u.state == US_UNCONNECTED :
	    !is->connected)
		return -ENOTCONN;
	return 0;
}

/* --- the families --- */

static const struct sock_ops inet_ops = {
	.bind = inet_bind,
	.listen = inet_listen,
	.connect = inet_connect,
	.accept = usock_accept,
	.shutdown = inet_shutdown,
	.name = inet_name,
	.send = inet_send,
	.recv = inet_recv,
	.getopt = inet_getopt,
	.setopt = inet_setopt,
	.nread = inet_nread,
	.nwrite = usock_nwrite,
	.ioctl = inet_ioctl,
	.unsent = inet_unsent,
	.poll = inet_poll,
	.release = inet_release,
};

static const struct usock_proto tcp_proto = {
	.ops = &inet_ops,
	.size = sizeof(struct isock),
	.dgram_target = inet_dgram_target,
	.unbind = inet_unbind,
	.tcp = true,
};

static const struct usock_proto udp_proto = {
	.ops = &inet_ops,
	.size = sizeof(struct isock),
	.dgram_target = inet_dgram_target,
	.unbind = inet_unbind,
	.from = inet_from,
	.lossy = true,
};

int
inet_proto(int type, int *protocol, const struct ucred *cred)
{
	switch (type) {
	case SOCK_STREAM:
		if (*protocol != 0 && *protocol != IPPROTO_TCP)
			return -EPROTONOSUPPORT;
		*protocol = IPPROTO_TCP;
		return 0;
	case SOCK_DGRAM:
		/* Ping sockets: net.ipv4.ping_group_range lets no one. */
		if (*protocol == IPPROTO_ICMP || *protocol == IPPROTO_ICMPV6)
			return -EACCES;
		if (*protocol != 0 && *protocol != IPPROTO_UDP)
			return -EPROTONOSUPPORT;
		*protocol = IPPROTO_UDP;
		return 0;
	case SOCK_RAW:
		/* Raw sockets take CAP_NET_RAW, and there are none even so. */
		return cred->uid != 0 ? -EPERM : -ESOCKTNOSUPPORT;
	default:
		return -ESOCKTNOSUPPORT;
	}
}

static int
inet_create(int family, int type, int protocol, const struct ucred *cred,
    struct socket **sop)
{
	struct isock *is;
	int r;

	if ((r = inet_proto(type, &protocol, cred)) < 0)
		return r;
	is = (struct isock *)usock_new(type == SOCK_STREAM ? &tcp_proto :
	    &udp_proto, family, type, protocol, cred);
	if (type == SOCK_STREAM) {
		is->u.sk.sndbuf = TCP_WMEM;
		is->u.sk.rcvbuf = TCP_RMEM;
	}
	for (size_t i = 0; i < sizeof(iopts) / sizeof(iopts[0]); i++)
		is->opt[i] = iopts[i].def;
	*sop = &is->u.sk;
	return 0;
}

static int
inet4_create(int type, int protocol, const struct ucred *cred,
    struct socket **sop)
{
	return inet_create(AF_INET, type, protocol, cred, sop);
}

static int
inet6_create(int type, int protocol, const struct ucred *cred,
    struct socket **sop)
{
	return inet_create(AF_INET6, type, protocol, cred, sop);
}

const struct sock_family inet_family = {
	.family = AF_INET,
	.addrlen_max = sizeof(struct sockaddr_storage),
	.create = inet4_create,
};

const struct sock_family inet6_family = {
	.family = AF_INET6,
	.addrlen_max = sizeof(struct sockaddr_storage),
	.create = inet6_create,
};
