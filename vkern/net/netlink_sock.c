/*
 * AF_NETLINK sockets: the family behind socket.h for NETLINK_ROUTE and
 * NETLINK_SOCK_DIAG.
 *
 * A netlink socket has a port id (given by bind, or at its first send or
 * connect: the process's pid when free, else -4096 and down, as Linux's
 * netlink_autobind()) and a queue of datagrams to read.  What it sends
 * to port 0 is the kernel's: netlink_route.c or netlink_diag.c answers
 * at once and the replies join the sender's own queue, so a send never
 * waits and a receive waits only for a reply or another socket's
 * unicast.  Messages to another port id go to that socket's queue;
 * multicast groups may be joined, but nothing is ever sent to them, as
 * the guest's network never changes.  A reply that does not fit in the
 * receive buffer is dropped and the next receive gets ENOBUFS, as
 * Linux's netlink_overrun().
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <string.h>

#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/net/netlink.h"
#include "vkern/vfs/socket.h"
#include "vkern/vk.h"

/* What a queued datagram costs beyond its data, as an skb's truesize. */
#define NLSKB_OVERHEAD 256
/* Linux's first port id when the pid is taken: counts down from there. */
#define NL_ROVER_START 0xfffff000u

struct nlskb {
	struct nlskb *next;
	size_t len;
	uint32_t portid;          /* the sender's: 0 for the kernel */
	uint8_t data[];
};

struct nlsock {
	struct socket sk;         /* first: what the socket layer sees */
	uint32_t portid;
	bool bound;
	uint64_t groups;          /* joined groups: bit g - 1 for group g */
	uint32_t dst_portid, dst_group;   /* connect's */
	struct nlskb *rq, **rq_tail;
	size_t rq_bytes;
	/* SOL_NETLINK's flags, kept for getsockopt; cap_ack changes acks. */
	bool pktinfo, broadcast_error, no_enobufs, listen_all_nsid;
	bool cap_ack, ext_ack, strict_chk;
	bool passcred;
	struct nlsock *next;      /* every netlink socket */
};

_Static_assert(RTNLGRP_MAX <= 64, "the groups fit in a uint64_t");

static struct nlsock *nl_all;
static uint32_t nl_rover = NL_ROVER_START;
static const struct sock_ops nl_ops;

static struct nlsock *
nlk(struct socket *sk)
{
	return (struct nlsock *)sk;
}

static struct nlsock *
nl_find(uint32_t portid)
{
	for (struct nlsock *n = nl_all; n != NULL; n = n->next)
		if (n->bound && n->portid == portid)
			return n;
	return NULL;
}

/* Bind to portid (0: choose one, pid first).  0 or -EADDRINUSE. */
static int
nl_insert(struct nlsock *n, uint32_t portid, int pid)
{
	if (portid == 0) {
		portid = (uint32_t)pid;
		while (portid == 0 || nl_find(portid) != NULL)
			portid = nl_rover--;
	} else if (nl_find(portid) != NULL) {
		return -EADDRINUSE;
	}
	n->portid = portid;
	n->bound = true;
	return 0;
}

static int
nl_autobind(struct proc *p, struct nlsock *n)
{
	if (n->bound)
		return 0;
	return nl_insert(n, 0, p != NULL ? p->pid : n->sk.cred.pid);
}

/*
 * May the socket's owner, and the calling process, change the network
 * or send to others?  Linux asks CAP_NET_ADMIN of both the opener of
 * the socket and the sender; a guest has it as euid 0.
 */
static bool
nl_admin(struct proc *p, const struct nlsock *n)
{
	return n->sk.cred.uid == 0 && (p == NULL || p->cred.euid == 0);
}

/* Queue a datagram on n: 0, or -ENOBUFS when it does not fit. */
static int
nl_queue(struct nlsock *n, const void *data, size_t len, uint32_t from)
{
	size_t cost = len + NLSKB_OVERHEAD;
	struct nlskb *skb;

	if (n->rq_bytes + cost > (size_t)n->sk.rcvbuf ||
	    (skb = kmem_alloc(sizeof(*skb) + len, 0)) == NULL) {
		if (!n->no_enobufs)
			n->sk.error = ENOBUFS;
		sock_wake(&n->sk);
		return -ENOBUFS;
	}
	skb->next = NULL;
	skb->len = len;
	skb->portid = from;
	memcpy(skb->data, data, len);
	*n->rq_tail = skb;
	n->rq_tail = &skb->next;
	n->rq_bytes += cost;
	sock_wake(&n->sk);
	return 0;
}

static struct nlskb *
nl_dequeue(struct nlsock *n)
{
	struct nlskb *skb = n->rq;

	if ((n->rq = skb->next) == NULL)
		n->rq_tail = &n->rq;
	n->rq_bytes -= skb->len + NLSKB_OVERHEAD;
	return skb;
}

static void
nl_skb_free(struct nlskb *skb)
{
	kmem_free(skb, sizeof(*skb) + skb->len, 0);
}

/* A sockaddr_nl from the guest, at least as long as one (EINVAL). */
static int
nl_addr(const struct sockname *sn, struct sockaddr_nl *nla)
{
	if (sn->len < sizeof(*nla))
		return -EINVAL;
	memcpy(nla, sn->raw, sizeof(*nla));
	if (nla->nl_family != AF_NETLINK)
		return -EINVAL;
	return 0;
}

/* The lowest group of a mask, as Linux's ffs(): 0 for none. */
static uint32_t
nl_group(uint32_t mask)
{
	return mask != 0 ? (uint32_t)__builtin_ctz(mask) + 1 : 0;
}

static int
nl_bind(struct proc *p, struct socket *sk, const struct sockname *sn)
{
	struct nlsock *n = nlk(sk);
	struct sockaddr_nl nla;
	int r;

	if ((r = nl_addr(sn, &nla)) < 0)
		return r;
	if (n->bound && nla.nl_pid != n->portid)
		return -EINVAL;
	if (!n->bound && (r = nla.nl_pid != 0 ? nl_insert(n, nla.nl_pid, 0) :
	    nl_autobind(p, n)) < 0)
		return r;
	/* bind sets the first 32 groups, as Linux's netlink_update_subscriptions. */
	n->groups = (n->groups & ~(uint64_t)0xffffffff) | nla.nl_groups;
	return 0;
}

static int
nl_connect(struct proc *p, struct socket *sk, const struct sockname *sn,
    const struct ucred *cred, bool nonblock, const void **chanp)
{
	struct nlsock *n = nlk(sk);
	struct sockaddr_nl nla;
	int r;

	if (sn->len >= sizeof(sa_family_t) && sn->sa.sa_family == AF_UNSPEC) {
		n->dst_portid = n->dst_group = 0;
		return 0;
	}
	if ((r = nl_addr(sn, &nla)) < 0)
		return r;
	if ((nla.nl_pid != 0 || nla.nl_groups != 0) && !nl_admin(p, n))
		return -EPERM;
	if ((r = nl_autobind(p, n)) < 0)
		return r;
	n->dst_portid = nla.nl_pid;
	n->dst_group = nl_group(nla.nl_groups);
	return 0;
}

/* netlink has no shutdown(2), as Linux's sock_no_shutdown. */
static int
nl_shutdown(struct socket *sk, int how)
{
	return -EOPNOTSUPP;
}

static int
nl_name(struct socket *sk, bool peer, struct sockname *sn)
{
	struct nlsock *n = nlk(sk);
	struct sockaddr_nl nla = { .nl_family = AF_NETLINK };

	if (peer) {
		nla.nl_pid = n->dst_portid;
		nla.nl_groups = n->dst_group != 0 ? 1u << (n->dst_group - 1) :
		    0;
	} else {
		nla.nl_pid = n->portid;
		nla.nl_groups = (uint32_t)n->groups;
	}
	memset(sn, 0, sizeof(*sn));
	memcpy(sn->raw, &nla, sizeof(nla));
	sn->len = sizeof(nla);
	return 0;
}

/* Kernel replies join the sender's own queue. */
static int
nl_emit(void *arg, const void *dgram, size_t len)
{
	return nl_queue(arg, dgram, len, 0);
}

/*
 * Deliver buf to its destination: the kernel (port 0), a group (no one
 * listens), or another socket (-ECONNREFUSED if none has that port id;
 * -EAGAIN to wait on it while its queue is full).
 */
static long
nl_deliver(struct proc *p, struct nlsock *n, const void *buf, size_t len,
    uint32_t portid, uint32_t group, const void **chanp)
{
	struct nl_sender who = { .portid = n->portid,
	    .admin = nl_admin(p, n), .cap_ack = n->cap_ack,
	    .uid = n->sk.cred.uid };
	struct nlsock *to;

	if (group != 0)
		return 0;
	if (portid == 0) {
		/* A reply that did not fit is the reader's ENOBUFS. */
		if (n->sk.protocol == NETLINK_SOCK_DIAG)
			(void)nldiag_input(buf, len, &who, nl_emit, n);
		else
			(void)nlroute_input(buf, len, &who, nl_emit, n);
		return 0;
	}
	if ((to = nl_find(portid)) == NULL)
		return -ECONNREFUSED;
	if (to->rq_bytes + len + NLSKB_OVERHEAD > (size_t)to->sk.rcvbuf) {
		*chanp = &to->sk;
		return -EAGAIN;
	}
	return nl_queue(to, buf, len, n->portid);
}

static long
nl_send(struct proc *p, struct socket *sk, size_t len, sock_copy_fn fill,
    void *arg, const struct sockname *dest, struct scm *scm, int flags,
    const void **chanp)
{
	struct nlsock *n = nlk(sk);
	uint32_t portid = n->dst_portid, group = n->dst_group;
	struct sockaddr_nl nla;
	uint8_t *buf;
	long r;

	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (dest != NULL) {
		if ((r = nl_addr(dest, &nla)) < 0)
			return r;
		portid = nla.nl_pid;
		group = nl_group(nla.nl_groups);
		if ((portid != 0 || group != 0) && !nl_admin(p, n))
			return -EPERM;
	}
	if ((r = nl_autobind(p, n)) < 0)
		return r;
	/* Linux 6.x refuses an empty datagram before it reaches the kernel. */
	if (len == 0)
		return -ENODATA;
	if (len > (size_t)sk->sndbuf - 32)
		return -EMSGSIZE;
	if ((buf = kmem_alloc(len, 0)) == NULL)
		return -ENOBUFS;
	if ((r = fill(arg, buf, len)) == 0)
		r = nl_deliver(p, n, buf, len, portid, group, chanp);
	kmem_free(buf, len, 0);
	return r < 0 ? r : (long)len;
}

static long
nl_recv(struct socket *sk, size_t len, sock_copy_fn drain, void *arg,
    int flags, int *flagsp, struct sockname *from, struct scm *scm)
{
	struct nlsock *n = nlk(sk);
	struct nlskb *skb;
	size_t copied;
	long r;

	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	if ((r = sock_take_error(sk)) < 0)
		return r;
	if ((skb = n->rq) == NULL)
		return -EAGAIN;
	copied = VK_MIN(len, skb->len);
	if ((r = drain(arg, skb->data, copied)) < 0)
		return r;
	if (copied < skb->len)
		*flagsp |= MSG_TRUNC;
	if (from != NULL) {
		struct sockaddr_nl nla = { .nl_family = AF_NETLINK,
		    .nl_pid = skb->portid };

		memset(from, 0, sizeof(*from));
		memcpy(from->raw, &nla, sizeof(nla));
		from->len = sizeof(nla);
	}
	r = (flags & MSG_TRUNC) ? (long)skb->len : (long)copied;
	if (!(flags & MSG_PEEK)) {
		nl_skb_free(nl_dequeue(n));
		sock_wake(sk);
	}
	return r;
}

/* A SOL_NETLINK flag option's place, or NULL. */
static bool *
nl_flag(struct nlsock *n, int name)
{
	switch (name) {
	case NETLINK_PKTINFO:
		return &n->pktinfo;
	case NETLINK_BROADCAST_ERROR:
		return &n->broadcast_error;
	case NETLINK_NO_ENOBUFS:
		return &n->no_enobufs;
	case NETLINK_LISTEN_ALL_NSID:
		return &n->listen_all_nsid;
	case NETLINK_CAP_ACK:
		return &n->cap_ack;
	case NETLINK_EXT_ACK:
		return &n->ext_ack;
	case NETLINK_GET_STRICT_CHK:
		return &n->strict_chk;
	}
	return NULL;
}

/* As Linux's netlink_setsockopt(): a short value reads as 0. */
static int
nl_setopt(struct socket *sk, int level, int name, const void *val,
    socklen_t len)
{
	struct nlsock *n = nlk(sk);
	bool *flag;
	int v = 0;

	if (level == SOL_SOCKET && name == SO_PASSCRED) {
		if (len < sizeof(int))
			return -EINVAL;
		memcpy(&v, val, sizeof(v));
		n->passcred = v != 0;
		return 0;
	}
	if (level != SOL_NETLINK)
		return -ENOPROTOOPT;
	if (len >= sizeof(int))
		memcpy(&v, val, sizeof(v));
	if ((flag = nl_flag(n, name)) != NULL) {
		*flag = v != 0;
		return 0;
	}
	switch (name) {
	case NETLINK_ADD_MEMBERSHIP:
	case NETLINK_DROP_MEMBERSHIP:
		if (v <= 0 || v > RTNLGRP_MAX)
			return -EINVAL;
		if (name == NETLINK_ADD_MEMBERSHIP)
			n->groups |= (uint64_t)1 << (v - 1);
		else
			n->groups &= ~((uint64_t)1 << (v - 1));
		return nl_autobind(NULL, n);
	}
	return -ENOPROTOOPT;
}

static int
nl_getopt(struct socket *sk, int level, int name, void *val, socklen_t *len)
{
	struct nlsock *n = nlk(sk);
	bool *flag = nl_flag(n, name);
	int v;

	if (level == SOL_SOCKET && name == SO_PASSCRED) {
		v = n->passcred;
	} else if (level != SOL_NETLINK) {
		return -ENOPROTOOPT;
	} else if (name == NETLINK_LIST_MEMBERSHIPS) {
		/* The group bitmap in 32-bit words; *len says how much fits. */
		size_t need = (RTNLGRP_MAX + 31) / 32 * 4;

		memcpy(val, &n->groups, VK_MIN((size_t)*len, VK_MIN(need,
		    sizeof(n->groups))));
		*len = (socklen_t)need;
		return 0;
	} else if (flag != NULL) {
		if (*len < sizeof(int))
			return -EINVAL;
		v = *flag;
	} else {
		return -ENOPROTOOPT;
	}
	*len = VK_MIN(*len, (socklen_t)sizeof(v));
	memcpy(val, &v, *len);
	return 0;
}

/* FIONREAD and TIOCOUTQ: netlink answers neither (ENOTTY). */
static long
nl_nread(struct socket *sk)
{
	return -ENOTTY;
}

static short
nl_poll(struct socket *sk)
{
	struct nlsock *n = nlk(sk);
	short ev = POLLOUT | POLLWRNORM;

	if (n->rq != NULL)
		ev |= POLLIN | POLLRDNORM;
	if (sk->error != 0)
		ev |= POLLERR;
	return ev;
}

static void
nl_release(struct socket *sk)
{
	struct nlsock *n = nlk(sk);

	while (n->rq != NULL)
		nl_skb_free(nl_dequeue(n));
	for (struct nlsock **pp = &nl_all; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			break;
		}
	}
	kmem_free(n, sizeof(*n), 0);
}

static const struct sock_ops nl_ops = {
	.bind = nl_bind,
	.connect = nl_connect,
	.shutdown = nl_shutdown,
	.name = nl_name,
	.send = nl_send,
	.recv = nl_recv,
	.getopt = nl_getopt,
	.setopt = nl_setopt,
	.nread = nl_nread,
	.nwrite = nl_nread,
	.poll = nl_poll,
	.release = nl_release,
};

int
nl_check(struct file *fp)
{
	struct socket *sk = sock_of(fp);

	if (sk == NULL)
		return -ENOTSOCK;
	return sk->ops == &nl_ops ? 0 : -EINVAL;
}

int
nl_post(struct file *fp, const void *data, size_t len)
{
	VK_ASSERT(nl_check(fp) == 0);
	return nl_queue(nlk(sock_of(fp)), data, len, 0);
}

/*
 * Raw and datagram sockets are the same, as in Linux; protocols other
 * than NETLINK_ROUTE and NETLINK_SOCK_DIAG are as on a kernel built
 * without them.
 */
static int
nl_create(int type, int protocol, const struct ucred *cred,
    struct socket **sop)
{
	struct nlsock *n;

	if (type != SOCK_RAW && type != SOCK_DGRAM)
		return -ESOCKTNOSUPPORT;
	if (protocol != NETLINK_ROUTE && protocol != NETLINK_SOCK_DIAG)
		return -EPROTONOSUPPORT;
	if ((n = kmem_alloc(sizeof(*n), KM_ZERO)) == NULL)
		return -ENOBUFS;
	sock_init(&n->sk, &nl_ops, AF_NETLINK, type, protocol, cred);
	n->rq_tail = &n->rq;
	n->next = nl_all;
	nl_all = n;
	*sop = &n->sk;
	return 0;
}

const struct sock_family netlink_family = {
	.family = AF_NETLINK,
	/* bind and sendto take any length from a sockaddr_nl's up. */
	.addrlen_max = sizeof(struct sockaddr_storage),
	.create = nl_create,
};
