/*
 * Local sockets (AF_UNIX): stream, datagram and sequenced-packet.
 *
 * A socket holds a queue of messages sent to it (struct skb), each with
 * the sender's ids and, when it carries SCM_RIGHTS, referenced files.  A
 * stream reads across messages; a datagram or packet socket reads one
 * message per call and drops what does not fit.  What a sender may have
 * queued at its peer is bounded by the sender's SO_SNDBUF.
 *
 * Connection-oriented sockets connect through a listener (unix_conn.c):
 * connect makes the server's end at once and queues it on the listener
 * until accept takes it, so connect does not wait for accept, as on
 * Linux.
 *
 * Every change wakes the socket and its peer (and every poller); a
 * blocked call retries from the start.  Sockets that only queued
 * messages keep alive are collected by unix_gc.c.
 *
 * Loopback TCP and UDP (inet_sock.c) are these same sockets with another
 * usock_proto: their names, where a datagram goes, TCP's one-way
 * shutdown and window (a sender may also fill the receiver's
 * SO_RCVBUF), and UDP's loss of what finds no room.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/socket.h"
#include "vkern/vfs/unix_sock.h"
#include "vkern/vfs/vfs.h"


struct usock *
usk(struct socket *sk)
{
	return (struct usock *)sk;
}

struct usock *
usock_of(struct file *fp)
{
	struct socket *sk = sock_of(fp);

	return sk != NULL && sk->family == AF_UNIX ? usk(sk) : NULL;
}

void
usock_wake(struct usock *so)
{
	sched_wake_chan(so);
	if (so->peer != NULL)
		sched_wake_chan(so->peer);
	poll_wake();
}

void
scm_init(struct scm *scm, const struct proc *p)
{
	scm->nfds = 0;
	scm->cred = (struct ucred){ .pid = p->pid, .uid = p->cred.uid,
	    .gid = p->cred.gid };
	scm->has_cred = true;
}

void
scm_release(struct scm *scm)
{
	for (int i = 0; i < scm->nfds; i++)
		file_rel(scm->fds[i]);
	scm->nfds = 0;
}

struct usock *usock_all;

static void
skb_free(struct skb *skb)
{
	for (int i = 0; i < skb->nfds; i++) {
		usock_inflight(skb->fds[i], -1);
		file_rel(skb->fds[i]);
	}
	kmem_free(skb->fds, (size_t)skb->nfds * sizeof(*skb->fds), 0);
	kmem_free(skb, sizeof(*skb) + skb->len, 0);
}

static struct skb *
rq_pop(struct usock *so)
{
	struct skb *skb = so->rq;

	if ((so->rq = skb->next) == NULL)
		so->rq_tail = &so->rq;
	so->rq_bytes -= skb->len + SKB_OVERHEAD;
	so->rq_count--;
	return skb;
}

void
usock_purge(struct usock *so)
{
	while (so->rq != NULL)
		skb_free(rq_pop(so));
}

struct usock *
usock_new(const struct usock_proto *pr, int family, int type, int protocol,
    const struct ucred *cred)
{
	/* Never refused: each is a file, and files are bounded. */
	struct usock *so = kmem_alloc(pr->size, KM_ZERO | KM_FORCE);

	sock_init(&so->sk, pr->ops, family, type, protocol, cred);
	so->proto = pr;
	so->refs = 1;
	so->rq_tail = &so->rq;
	so->acceptq_tail = &so->acceptq;
	if ((so->all_next = usock_all) != NULL)
		usock_all->all_prev = &so->all_next;
	so->all_prev = &usock_all;
	usock_all = so;
	return so;
}

void
usock_ref(struct usock *so)
{
	so->refs++;
}

bool
connection_based(const struct usock *so)
{
	return so->sk.type != SOCK_DGRAM;
}

/*
 * The end goes away: its peer of a connection sees the stream end (and
 * ECONNRESET if this end left data unread, or was told to reset it); a
 * datagram peer finds it dead at its next send.  A TCP listener resets
 * the connections it had not accepted.
 */
static void
usock_shutdown_all(struct usock *so)
{
	struct usock *peer = so->peer, *c;

	so->dead = true;
	so->proto->unbind(so);
	while ((c = so->acceptq) != NULL) {
		so->acceptq = c->acc_next;
		c->abort = so->proto->tcp;
		usock_shutdown_all(c);
		usock_rel(c);
	}
	so->nacc = 0;
	if (peer != NULL && connection_based(so)) {
		peer->shut = SHUT_RCV | SHUT_SND;
		if (so->rq != NULL || so->abort) {
			peer->sk.error = ECONNRESET;
			peer->rst = true;
		}
		if (peer->peer == so) {
			peer->peer = NULL;
			usock_rel(so);
		}
	}
	usock_purge(so);
	if (peer != NULL) {
		sched_wake_chan(peer);
		so->peer = NULL;
		usock_rel(peer);
	}
	sched_wake_chan(so);
	poll_wake();
}

void
usock_rel(struct usock *so)
{
	if (--so->refs > 0)
		return;
	usock_purge(so);
	if (so->all_next != NULL)
		so->all_next->all_prev = so->all_prev;
	*so->all_prev = so->all_next;
	kmem_free(so, so->proto->size, 0);
}

/* --- the socket layer's ops --- */

void
usock_release(struct socket *sk)
{
	struct usock *so = usk(sk);

	usock_shutdown_all(so);
	usock_rel(so);
}

/*
 * What a sender may have queued at target: its SO_SNDBUF, and for TCP
 * the receiver's SO_RCVBUF too (its window), as bytes are in flight.
 */
static size_t
send_room(const struct usock *from, const struct usock *target)
{
	return (size_t)from->sk.sndbuf +
	    (from->proto->tcp ? (size_t)target->sk.rcvbuf : 0);
}

/* Whether a sender may queue len more bytes at target now. */
static bool
room_for(const struct usock *from, const struct usock *target, size_t len)
{
	if (target->rq == NULL)
		return true;
	return target->rq_bytes + len + SKB_OVERHEAD <= send_room(from,
	    target);
}

short
usock_poll(struct socket *sk)
{
	struct usock *so = usk(sk);
	struct usock *peer = so->peer;
	short r = 0;

	if (so->state == US_LISTENING)
		return so->acceptq != NULL ? POLLIN : 0;
	if (so->sk.error != 0)
		r |= POLLERR;
	if (so->shut == (SHUT_RCV | SHUT_SND))
		r |= POLLHUP;
	if (so->shut & SHUT_RCV)
		r |= POLLIN | POLLRDHUP;
	if (so->rq != NULL)
		r |= POLLIN;
	/* An unconnected stream socket is hung up, as Linux reports it. */
	if (connection_based(so) && so->state == US_UNCONNECTED)
		r |= POLLHUP;
	if (peer == NULL || peer->dead || (so->shut & SHUT_SND) ||
	    peer->rq_bytes * 4 <= send_room(so, peer))
		r |= POLLOUT;
	return r;
}

void
pair_up(struct usock *a, struct usock *b)
{
	usock_ref(a);
	usock_ref(b);
	a->peer = b;
	b->peer = a;
	if (connection_based(a))
		a->state = b->state = US_CONNECTED;
}

/* --- data --- */

/* Where a send goes: the peer, or the named socket of a datagram. */
static int
send_target(struct proc *p, struct usock *so, const struct sockname *dest,
    struct usock **tp)
{
	if (connection_based(so)) {
		if (dest != NULL)
			return so->state == US_CONNECTED ? -EISCONN :
			    -EOPNOTSUPP;
		if (so->state != US_CONNECTED)
			return -ENOTCONN;
		if ((so->shut & SHUT_SND) || so->peer == NULL ||
		    so->peer->dead || (so->peer->shut & SHUT_RCV))
			return -EPIPE;
		*tp = so->peer;
		return 0;
	}
	if (so->shut & SHUT_SND)
		return -EPIPE;
	return so->proto->dgram_target(p, so, dest, tp);
}

/*
 * A message of len bytes, taken by fill.  -ENOBUFS when the sandbox's
 * memory cannot hold it, as Linux's socket buffer allocation.
 */
static int
skb_make(size_t len, sock_copy_fn fill, void *arg, struct skb **skbp)
{
	struct skb *skb = kmem_alloc(sizeof(*skb) + len, 0);
	int r;

	if (skb == NULL)
		return -ENOBUFS;
	memset(skb, 0, sizeof(*skb));
	skb->len = len;
	if ((r = fill(arg, skb->data, len)) < 0) {
		skb_free(skb);
		return r;
	}
	*skbp = skb;
	return 0;
}

/* Queue skb, which takes scm's files: 0, or -ENOBUFS. */
static int
enqueue(struct usock *so, struct usock *target, struct skb *skb,
    struct scm *scm)
{
	skb->cred = scm != NULL && scm->has_cred ? scm->cred : so->sk.cred;
	if (so->proto->from != NULL)
		so->proto->from(so, target, &skb->from);
	else
		skb->from = so->name;
	if (scm != NULL && scm->nfds > 0) {
		skb->fds = kmem_alloc((size_t)scm->nfds * sizeof(*skb->fds),
		    0);
		if (skb->fds == NULL)
			return -ENOBUFS;
		memcpy(skb->fds, scm->fds, (size_t)scm->nfds *
		    sizeof(*skb->fds));
		skb->nfds = scm->nfds;
		for (int i = 0; i < skb->nfds; i++)
			usock_inflight(skb->fds[i], 1);
		scm->nfds = 0;
	}
	*target->rq_tail = skb;
	target->rq_tail = &skb->next;
	target->rq_bytes += skb->len + SKB_OVERHEAD;
	target->rq_count++;
	fown_arrived(target);
	usock_wake(target);
	usock_wake(so);
	return 0;
}

static long
send_stream(struct proc *p, struct usock *so, size_t len, sock_copy_fn fill,
    void *arg, const struct sockname *dest, struct scm *scm,
    const void **chanp)
{
	struct usock *target;
	struct skb *skb;
	size_t n;
	int r;

	if ((r = send_target(p, so, dest, &target)) < 0)
		return r;
	*chanp = so;
	if (!room_for(so, target, 1))
		return -EAGAIN;
	n = VK_MIN(len, send_room(so, target) - target->rq_bytes -
	    SKB_OVERHEAD);
	if ((r = skb_make(n, fill, arg, &skb)) < 0)
		return r;
	if ((r = enqueue(so, target, skb, scm)) < 0) {
		skb_free(skb);
		return r;
	}
	return (long)n;
}

/* A datagram or packet: its bytes are taken before its target is found. */
static long
send_packet(struct proc *p, struct usock *so, size_t len, sock_copy_fn fill,
    void *arg, const struct sockname *dest, struct scm *scm,
    const void **chanp)
{
	struct usock *target;
	struct skb *skb;
	int r;

	if (!so->proto->lossy && len > (size_t)so->sk.sndbuf - 32)
		return -EMSGSIZE;
	if ((r = skb_make(len, fill, arg, &skb)) < 0)
		return r;
	if ((r = send_target(p, so, dest, &target)) < 0) {
		skb_free(skb);
		return r;
	}
	if (target == NULL || (so->proto->lossy && target->rq_bytes + len +
	    SKB_OVERHEAD > (size_t)target->sk.rcvbuf)) {
		skb_free(skb);
		return (long)len;
	}
	*chanp = target == so->peer ? (const void *)so : target;
	if (!so->proto->lossy && (!room_for(so, target, len) ||
	    (target->peer != so && target->rq_count > DGRAM_QLEN))) {
		skb_free(skb);
		return -EAGAIN;
	}
	if ((r = enqueue(so, target, skb, scm)) < 0) {
		skb_free(skb);
		return r;
	}
	return (long)len;
}

long
usock_send(struct proc *p, struct socket *sk, size_t len, sock_copy_fn fill,
    void *arg, const struct sockname *dest, struct scm *scm, int flags,
    const void **chanp)
{
	struct usock *so = usk(sk);

	/* Local sockets have no urgent data. */
	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (so->sk.error != 0)
		return sock_take_error(&so->sk);
	if (so->sk.type == SOCK_STREAM)
		return send_stream(p, so, len, fill, arg, dest, scm, chanp);
	return send_packet(p, so, len, fill, arg, dest, scm, chanp);
}

/* Hand the message's files to scm (copies with MSG_PEEK). */
static void
take_fds(struct skb *skb, struct scm *scm, bool peek)
{
	for (int i = 0; i < skb->nfds; i++) {
		if (peek)
			file_ref(skb->fds[i]);
		else
			usock_inflight(skb->fds[i], -1);
		scm->fds[scm->nfds++] = skb->fds[i];
	}
	if (!peek) {
		kmem_free(skb->fds, (size_t)skb->nfds * sizeof(*skb->fds), 0);
		skb->fds = NULL;
		skb->nfds = 0;
	}
}

static bool
same_cred(const struct ucred *a, const struct ucred *b)
{
	return a->pid == b->pid && a->uid == b->uid && a->gid == b->gid;
}

static long
recv_stream(struct usock *so, size_t len, sock_copy_fn drain, void *arg,
    int flags, struct sockname *from, struct scm *scm)
{
	bool peek = (flags & MSG_PEEK) != 0, got_fds = false;
	struct skb *skb = so->rq;
	size_t done = 0, chunk;
	int r;

	while (skb != NULL && done < len && !got_fds) {

		/* With SO_PASSCRED, each read has one writer's bytes. */
		if (so->passcred && done > 0 && !same_cred(&skb->cred,
		    &scm->cred))
			break;
		if (done == 0) {
			scm->cred = skb->cred;
			scm->has_cred = so->passcred;
			if (from != NULL)
				*from = skb->from;
		}
		chunk = VK_MIN(len - done, skb->len - skb->off);
		if ((r = drain(arg, skb->data + skb->off, chunk)) < 0)
			return done > 0 ? (long)done : r;
		done += chunk;
		if (skb->nfds > 0) {
			take_fds(skb, scm, peek);
			got_fds = true;
		}
		if (peek) {
			skb = skb->next;
			continue;
		}
		skb->off += chunk;
		if (skb->off < skb->len)
			break;
		skb_free(rq_pop(so));
		skb = so->rq;
	}
	return (long)done;
}

static long
recv_packet(struct usock *so, size_t len, sock_copy_fn drain, void *arg,
    int flags, int *flagsp, struct sockname *from, struct scm *scm)
{
	struct skb *skb = so->rq;
	size_t n = VK_MIN(len, skb->len);
	int r;

	if ((r = drain(arg, skb->data, n)) < 0)
		return r;
	if (n < skb->len)
		*flagsp |= MSG_TRUNC;
	if (from != NULL)
		*from = skb->from;
	scm->cred = skb->cred;
	scm->has_cred = so->passcred;
	take_fds(skb, scm, (flags & MSG_PEEK) != 0);
	if (!(flags & MSG_PEEK))
		skb_free(rq_pop(so));
	return (long)n;
}

long
usock_recv(struct socket *sk, size_t len, sock_copy_fn drain, void *arg,
    int flags, int *flagsp, struct sockname *from, struct scm *scm)
{
	struct usock *so = usk(sk);
	size_t whole;
	long r;

	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (connection_based(so) && so->state != US_CONNECTED)
		return -EINVAL;
	if (so->rq == NULL) {
		if (so->sk.error != 0)
			return sock_take_error(&so->sk);
		if (so->shut & SHUT_RCV)
			return 0;
		return -EAGAIN;
	}
	if (so->sk.type == SOCK_STREAM) {
		r = recv_stream(so, len, drain, arg, flags, from, scm);
	} else {
		whole = so->rq->len;
		r = recv_packet(so, len, drain, arg, flags, flagsp, from, scm);
		if (r >= 0 && (flags & MSG_TRUNC))
			r = (long)whole;
	}
	usock_wake(so);
	return r;
}

long
usock_nread(struct socket *sk)
{
	struct usock *so = usk(sk);
	size_t n = 0;

	if (so->state == US_LISTENING)
		return -EINVAL;
	if (so->rq == NULL)
		return 0;
	if (so->sk.type != SOCK_STREAM)
		return (long)so->rq->len;
	for (struct skb *skb = so->rq; skb != NULL; skb = skb->next)
		n += skb->len - skb->off;
	return (long)n;
}

long
usock_nwrite(struct socket *sk)
{
	struct usock *so = usk(sk);

	if (so->state == US_LISTENING)
		return -EINVAL;
	return so->peer == NULL ? 0 : (long)(so->peer->rq_bytes -
	    (size_t)so->peer->rq_count * SKB_OVERHEAD);
}

/* --- options (SOL_SOCKET) --- */

static int
usock_getopt(struct socket *sk, int level, int name, void *val,
    socklen_t *len)
{
	struct usock *so = usk(sk);
	int v;

	if (level != SOL_SOCKET)
		return -EOPNOTSUPP;
	switch (name) {
	case SO_ACCEPTCONN:
		v = so->state == US_LISTENING;
		break;
	case SO_PASSCRED:
		v = so->passcred;
		break;
	case SO_PEERCRED:
		if (*len > sizeof(struct ucred))
			*len = sizeof(struct ucred);
		memcpy(val, &so->peercred, *len);
		return 0;
	default:
		return -ENOPROTOOPT;
	}
	return sock_put_int(val, len, v);
}

static int
usock_setopt(struct socket *sk, int level, int name, const void *val,
    socklen_t len)
{
	int v;

	if (level != SOL_SOCKET)
		return -EOPNOTSUPP;
	if (name != SO_PASSCRED)
		return -ENOPROTOOPT;
	if (len < sizeof(int))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	usk(sk)->passcred = v != 0;
	return 0;
}

/* --- the family --- */

static const struct sock_ops unix_ops = {
	.bind = usock_bind,
	.listen = usock_listen,
	.connect = usock_connect,
	.accept = usock_accept,
	.shutdown = usock_shutdown,
	.name = usock_name,
	.send = usock_send,
	.recv = usock_recv,
	.getopt = usock_getopt,
	.setopt = usock_setopt,
	.nread = usock_nread,
	.nwrite = usock_nwrite,
	.poll = usock_poll,
	.release = usock_release,
};

const struct usock_proto unix_proto = {
	.ops = &unix_ops,
	.size = sizeof(struct usock),
	.dgram_target = unix_dgram_target,
	.unbind = unix_unbind,
};

static int
usock_create(int type, int protocol, const struct ucred *cred,
    struct socket **sop)
{
	switch (type) {
	case SOCK_STREAM:
	case SOCK_DGRAM:
	case SOCK_SEQPACKET:
		break;
	case SOCK_RAW:
		/* As Linux: a raw local socket is a datagram one. */
		type = SOCK_DGRAM;
		break;
	default:
		return -ESOCKTNOSUPPORT;
	}
	if (protocol != 0 && protocol != PF_UNIX)
		return -EPROTONOSUPPORT;
	usock_gc();
	*sop = &usock_new(&unix_proto, AF_UNIX, type, 0, cred)->sk;
	return 0;
}

static int
usock_pair(int type, int protocol, const struct ucred *cred,
    struct socket *sv[2])
{
	struct usock *sa, *sb;
	int r;

	if ((r = usock_create(type, protocol, cred, &sv[0])) < 0)
		return r;
	sa = usk(sv[0]);
	sb = usock_new(&unix_proto, AF_UNIX, sa->sk.type, 0, cred);
	pair_up(sa, sb);
	sa->peercred = sb->sk.cred;
	sb->peercred = sa->sk.cred;
	sv[1] = &sb->sk;
	return 0;
}

const struct sock_family unix_family = {
	.family = AF_UNIX,
	.addrlen_max = sizeof(struct sockaddr_un),
	.create = usock_create,
	.pair = usock_pair,
};
