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
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/socket.h"
#include "vkern/vfs/unix_sock.h"
#include "vkern/vfs/vfs.h"

static uint64_t usock_ino = 20000;

void
usock_wake(struct usock *so)
{
	sched_wake_chan(so);
	if (so->peer != NULL)
		sched_wake_chan(so->peer);
	poll_wake();
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
usock_new(int type, const struct ucred *cred)
{
	/* Never refused: each is a file, and files are bounded. */
	struct usock *so = kmem_alloc(sizeof(*so), KM_ZERO | KM_FORCE);

	so->refs = 1;
	so->type = type;
	so->rq_tail = &so->rq;
	so->acceptq_tail = &so->acceptq;
	so->sndbuf = so->rcvbuf = SOCKBUF_DEF;
	so->rcvlowat = 1;
	so->ino = usock_ino++;
	so->cred = *cred;
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
	return so->type != SOCK_DGRAM;
}

/*
 * The end goes away: its peer of a connection sees the stream end (and
 * ECONNRESET if this end left data unread); a datagram peer finds it
 * dead at its next send.
 */
static void
usock_shutdown_all(struct usock *so)
{
	struct usock *peer = so->peer, *c;

	so->dead = true;
	if (so->name.len > 0)
		unbind(so);
	while ((c = so->acceptq) != NULL) {
		so->acceptq = c->acc_next;
		usock_shutdown_all(c);
		usock_rel(c);
	}
	so->nacc = 0;
	if (peer != NULL && connection_based(so)) {
		peer->shut = SHUT_RCV | SHUT_SND;
		if (so->rq != NULL)
			peer->error = ECONNRESET;
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
	kmem_free(so, sizeof(*so), 0);
}

/* --- the file --- */

static struct usock *
fp_usock(struct file *fp)
{
	return fp->data;
}

/* read(2) and write(2) move bytes between a socket and a host buffer. */
static int
copy_to_buf(void *arg, void *kbuf, size_t n)
{
	uint8_t **bufp = arg;

	memcpy(*bufp, kbuf, n);
	*bufp += n;
	return 0;
}

static int
copy_from_buf(void *arg, void *kbuf, size_t n)
{
	const uint8_t **bufp = arg;

	memcpy(kbuf, *bufp, n);
	*bufp += n;
	return 0;
}

static long
usock_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	struct scm scm = { .nfds = 0 };
	uint8_t *pos = buf;
	int fl = 0;
	long r;

	r = usock_recv(fp_usock(fp), len, copy_to_buf, &pos, 0, &fl, NULL,
	    &scm);
	scm_release(&scm);
	return r;
}

static long
usock_write(struct file *fp, const void *buf, size_t len, uint64_t *offp)
{
	const uint8_t *pos = buf;
	const void *chan;

	return usock_send(NULL, fp_usock(fp), len, copy_from_buf, &pos, NULL,
	    NULL, &chan);
}

static int
usock_stat(struct file *fp, struct vattr *va)
{
	*va = (struct vattr){ .ino = fp_usock(fp)->ino, .dev = 0x8,
	    .mode = S_IFSOCK | 0777, .nlink = 1, .blksize = 4096,
	    .uid = fp_usock(fp)->cred.uid, .gid = fp_usock(fp)->cred.gid };
	return 0;
}

static void
usock_close(struct file *fp)
{
	struct usock *so = fp_usock(fp);

	so->fp = NULL;
	usock_shutdown_all(so);
	usock_rel(so);
}

/* Whether a sender may queue len more bytes at target now. */
static bool
room_for(const struct usock *from, const struct usock *target, size_t len)
{
	if (target->rq == NULL)
		return true;
	return target->rq_bytes + len + SKB_OVERHEAD <= (size_t)from->sndbuf;
}

static short
usock_poll(struct file *fp)
{
	struct usock *so = fp_usock(fp);
	struct usock *peer = so->peer;
	short r = 0;

	if (so->state == US_LISTENING)
		return so->acceptq != NULL ? POLLIN : 0;
	if (so->error != 0)
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
	    peer->rq_bytes * 4 <= (size_t)so->sndbuf)
		r |= POLLOUT;
	return r;
}

static const struct file_ops usock_fileops = {
	.read = usock_read,
	.write = usock_write,
	.stat = usock_stat,
	.close = usock_close,
	.poll = usock_poll,
	.whole_writes = true,
};

bool
file_is_socket(const struct file *fp)
{
	return fp->ops == &usock_fileops;
}

struct usock *
usock_of(struct file *fp)
{
	return file_is_socket(fp) ? fp->data : NULL;
}

const void *
usock_chan(const struct usock *so)
{
	return so;
}

int
usock_type(const struct usock *so)
{
	return so->type;
}

struct file *
usock_file(struct usock *so, unsigned oflags)
{
	char path[40];
	struct file *fp;

	snprintf(path, sizeof(path), "socket:[%llu]",
	    (unsigned long long)so->ino);
	fp = file_alloc(&usock_fileops, NULL, O_RDWR | (oflags & O_NONBLOCK),
	    path);
	fp->data = so;
	fp->chan = so;
	so->fp = fp;
	return fp;
}

struct file *
usock_create(int type, unsigned oflags, const struct ucred *cred)
{
	usock_gc();
	return usock_file(usock_new(type, cred), oflags);
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

void
usock_connect_pair(struct file *a, struct file *b)
{
	struct usock *sa = fp_usock(a), *sb = fp_usock(b);

	pair_up(sa, sb);
	sa->peercred = sb->cred;
	sb->peercred = sa->cred;
}

/* --- data --- */

static int
take_error(struct usock *so)
{
	int e = so->error;

	so->error = 0;
	return -e;
}

/* Where a send goes: the peer, or the named socket of a datagram. */
static int
send_target(struct proc *p, struct usock *so, const struct uaddr *dest,
    struct usock **tp)
{
	struct uaddr a;
	int r;

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
	if (dest == NULL) {
		if (so->peer == NULL)
			return -ENOTCONN;
		if (so->peer->dead)
			return -ECONNREFUSED;
		*tp = so->peer;
	} else {
		a = *dest;
		if ((r = uaddr_check(&a)) < 0)
			return r;
		if ((r = find_bound(p, &a, so->type, tp)) < 0)
			return r;
	}
	/* A socket connected elsewhere takes datagrams from its peer only. */
	if ((*tp)->peer != NULL && (*tp)->peer != so)
		return -EPERM;
	if ((*tp)->shut & SHUT_RCV)
		return -EPIPE;
	return 0;
}

/*
 * A message of len bytes, taken by fill.  -ENOBUFS when the sandbox's
 * memory cannot hold it, as Linux's socket buffer allocation.
 */
static int
skb_make(size_t len, usock_copy_fn fill, void *arg, struct skb **skbp)
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
	skb->cred = scm != NULL && scm->has_cred ? scm->cred : so->cred;
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
send_stream(struct proc *p, struct usock *so, size_t len, usock_copy_fn fill,
    void *arg, const struct uaddr *dest, struct scm *scm,
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
	n = VK_MIN(len, (size_t)so->sndbuf - target->rq_bytes - SKB_OVERHEAD);
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
send_packet(struct proc *p, struct usock *so, size_t len, usock_copy_fn fill,
    void *arg, const struct uaddr *dest, struct scm *scm,
    const void **chanp)
{
	struct usock *target;
	struct skb *skb;
	int r;

	if (len > (size_t)so->sndbuf - 32)
		return -EMSGSIZE;
	if ((r = skb_make(len, fill, arg, &skb)) < 0)
		return r;
	if ((r = send_target(p, so, dest, &target)) < 0) {
		skb_free(skb);
		return r;
	}
	*chanp = target == so->peer ? (const void *)so : target;
	if (!room_for(so, target, len) || (target->peer != so &&
	    target->rq_count > DGRAM_QLEN)) {
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
usock_send(struct proc *p, struct usock *so, size_t len, usock_copy_fn fill,
    void *arg, const struct uaddr *dest, struct scm *scm,
    const void **chanp)
{
	if (so->error != 0)
		return take_error(so);
	if (so->type == SOCK_STREAM)
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
recv_stream(struct usock *so, size_t len, usock_copy_fn drain, void *arg,
    int flags, struct uaddr *from, struct scm *scm)
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
recv_packet(struct usock *so, size_t len, usock_copy_fn drain, void *arg,
    int flags, int *flagsp, struct uaddr *from, struct scm *scm)
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
usock_recv(struct usock *so, size_t len, usock_copy_fn drain, void *arg,
    int flags, int *flagsp, struct uaddr *from, struct scm *scm)
{
	size_t whole;
	long r;

	if (connection_based(so) && so->state != US_CONNECTED)
		return -EINVAL;
	if (so->rq == NULL) {
		if (so->error != 0)
			return take_error(so);
		if (so->shut & SHUT_RCV)
			return 0;
		return -EAGAIN;
	}
	if (so->type == SOCK_STREAM) {
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
usock_nread(struct usock *so)
{
	size_t n = 0;

	if (so->state == US_LISTENING)
		return -EINVAL;
	if (so->rq == NULL)
		return 0;
	if (so->type != SOCK_STREAM)
		return (long)so->rq->len;
	for (struct skb *skb = so->rq; skb != NULL; skb = skb->next)
		n += skb->len - skb->off;
	return (long)n;
}

long
usock_nwrite(struct usock *so)
{
	if (so->state == US_LISTENING)
		return -EINVAL;
	return so->peer == NULL ? 0 : (long)(so->peer->rq_bytes -
	    (size_t)so->peer->rq_count * SKB_OVERHEAD);
}

/* --- options (SOL_SOCKET) --- */

static int
opt_int(void *val, socklen_t *len, int v)
{
	if (*len > sizeof(int))
		*len = sizeof(int);
	memcpy(val, &v, *len);
	return 0;
}

int64_t
usock_timeo(const struct usock *so, bool send)
{
	return send ? so->sndtimeo : so->rcvtimeo;
}

/* SO_RCVTIMEO and SO_SNDTIMEO, old and new: a struct timeval of 64 bits. */
static int
timeo_get(int64_t ns, void *val, socklen_t *len)
{
	int64_t tv[2] = { ns / 1000000000, ns % 1000000000 / 1000 };

	if (*len > sizeof(tv))
		*len = sizeof(tv);
	memcpy(val, tv, *len);
	return 0;
}

static int
timeo_set(int64_t *nsp, const void *val, socklen_t len)
{
	int64_t tv[2];

	if (len < sizeof(tv))
		return -EINVAL;
	memcpy(tv, val, sizeof(tv));
	if (tv[1] < 0 || tv[1] >= 1000000)
		return -EDOM;
	if (tv[0] < 0)
		*nsp = 0;
	else if (tv[0] >= INT64_MAX / 1000000000 - 1)
		*nsp = 0;
	else
		*nsp = tv[0] * 1000000000 + tv[1] * 1000;
	return 0;
}

/*
 * The on/off options a local socket keeps and reports, though they
 * change nothing for it (as on Linux).
 */
static bool
flag_opt(int name)
{
	switch (name) {
	case SO_REUSEADDR:
	case SO_REUSEPORT:
	case SO_KEEPALIVE:
	case SO_BROADCAST:
	case SO_OOBINLINE:
	case SO_DONTROUTE:
		return true;
	}
	return false;
}

int
usock_getopt(struct usock *so, int name, void *val, socklen_t *len)
{
	if (flag_opt(name))
		return opt_int(val, len, (so->optflags >> name) & 1);
	switch (name) {
	case SO_PRIORITY:
		return opt_int(val, len, so->priority);
	case SO_RCVLOWAT:
		return opt_int(val, len, so->rcvlowat);
	case SO_LINGER:
		if (*len > sizeof(so->linger))
			*len = sizeof(so->linger);
		memcpy(val, &so->linger, *len);
		return 0;
	case SO_TYPE:
		return opt_int(val, len, so->type);
	case SO_DOMAIN:
		return opt_int(val, len, AF_UNIX);
	case SO_PROTOCOL:
		return opt_int(val, len, 0);
	case SO_ERROR:
		return opt_int(val, len, -take_error(so));
	case SO_ACCEPTCONN:
		return opt_int(val, len, so->state == US_LISTENING);
	case SO_SNDBUF:
		return opt_int(val, len, so->sndbuf);
	case SO_RCVBUF:
		return opt_int(val, len, so->rcvbuf);
	case SO_PASSCRED:
		return opt_int(val, len, so->passcred);
	case SO_RCVTIMEO_OLD:
	case SO_RCVTIMEO_NEW:
		return timeo_get(so->rcvtimeo, val, len);
	case SO_SNDTIMEO_OLD:
	case SO_SNDTIMEO_NEW:
		return timeo_get(so->sndtimeo, val, len);
	case SO_PEERCRED:
		if (*len > sizeof(struct ucred))
			*len = sizeof(struct ucred);
		memcpy(val, &so->peercred, *len);
		return 0;
	}
	return -ENOPROTOOPT;
}

/* A buffer size as Linux sets it: doubled, within its bounds. */
static int
bufsize(int v, int min)
{
	if (v < 0 || v > SOCKBUF_MAX)
		v = SOCKBUF_MAX;
	return VK_MAX(v * 2, min);
}

int
usock_setopt(struct usock *so, int name, const void *val, socklen_t len)
{
	int v;

	switch (name) {
	case SO_RCVTIMEO_OLD:
	case SO_RCVTIMEO_NEW:
		return timeo_set(&so->rcvtimeo, val, len);
	case SO_SNDTIMEO_OLD:
	case SO_SNDTIMEO_NEW:
		return timeo_set(&so->sndtimeo, val, len);
	case SO_LINGER:
		if (len < sizeof(so->linger))
			return -EINVAL;
		memcpy(&so->linger, val, sizeof(so->linger));
		so->linger.l_onoff = so->linger.l_onoff != 0;
		return 0;
	}
	if (len < sizeof(int))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	if (flag_opt(name)) {
		so->optflags = v ? so->optflags | 1u << name :
		    so->optflags & ~(1u << name);
		return 0;
	}
	switch (name) {
	case SO_PRIORITY:
		/* Above 6 takes CAP_NET_ADMIN, which the guest lacks. */
		if (v < 0 || v > 6)
			return -EPERM;
		so->priority = v;
		return 0;
	case SO_RCVLOWAT:
		so->rcvlowat = v < 1 ? 1 : v;
		return 0;
	case SO_SNDBUF:
		so->sndbuf = bufsize(v, SNDBUF_MIN);
		usock_wake(so);
		return 0;
	case SO_RCVBUF:
		so->rcvbuf = bufsize(v, RCVBUF_MIN);
		return 0;
	case SO_PASSCRED:
		so->passcred = v != 0;
		return 0;
	}
	return -ENOPROTOOPT;
}
