/*
 * TCP's urgent data, as tcp(7) and Linux give it: send(MSG_OOB) makes the
 * last byte it sends urgent; the receiver's stream gets a mark before
 * that byte, which SIOCATMARK reports and no read crosses (a read stops
 * at it and the next goes on from it).  Without SO_OOBINLINE the urgent
 * byte is left out of the stream, for recv(MSG_OOB) alone (once; EINVAL
 * when there is none or it was taken), FIONREAD counts only the bytes
 * before the mark, and the byte alone at the mark is nothing to read
 * for poll.  POLLPRI says an urgent byte is there, and the owner of
 * the receiving socket (F_SETOWN) gets SIGURG.  A new urgent byte
 * takes the place of the old one, which stays in the stream as data,
 * unless the reader was at the old mark: then it is dropped.
 *
 * The byte stays in the receiver's queue until a read reaches the mark,
 * which throws it away then (a read with MSG_PEEK too: it is no data).
 * The receiver keeps where the mark is as the count of bytes before it.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>

#include "vkern/vfs/file.h"
#include "vkern/vfs/inet_sock.h"
#include "vkern/vm/copyio.h"

static int
urg_discard(void *arg, void *kbuf, size_t n)
{
	return 0;
}

static bool
urg_inline(const struct isock *is)
{
	return (is->u.sk.optflags >> SO_OOBINLINE) & 1;
}

/* The urgent byte at the head of is's queue leaves the stream. */
static void
urg_skip(struct isock *is)
{
	struct scm scm = { .nfds = 0 };
	int fl = 0;

	if (usock_recv(&is->u.sk, 1, urg_discard, NULL, 0, &fl, NULL,
	    &scm) == 1)
		is->urg.skipped = true;
}

static bool
urg_at_mark(const struct isock *is)
{
	return is->urg.mark && is->urg.left == 0;
}

void
urg_sent(struct isock *is)
{
	struct usock *peer = is->u.peer;
	struct isock *pis;
	struct skb *last;

	if (peer == NULL || peer->rq == NULL)
		return;
	pis = isk(&peer->sk);
	/* The reader was at the old mark: that byte is lost. */
	if (urg_at_mark(pis) && !urg_inline(pis) && !pis->urg.skipped)
		urg_skip(pis);
	for (last = peer->rq; last->next != NULL; last = last->next)
		;
	if (last->len == last->off)
		return;
	pis->urg.byte = last->data[last->len - 1];
	pis->urg.left = (size_t)usock_nread(&peer->sk) - 1;
	pis->urg.mark = pis->urg.valid = true;
	pis->urg.skipped = false;
	fown_urgent(peer->sk.fp);
	usock_wake(peer);
}

long
urg_recv_oob(struct isock *is, size_t len, sock_copy_fn drain, void *arg,
    int flags, int *flagsp)
{
	int r;

	if (is->u.state == US_LISTENING)
		return -ENOTCONN;
	if (urg_inline(is) || !is->urg.mark || !is->urg.valid)
		return -EINVAL;
	if (len == 0)
		*flagsp |= MSG_TRUNC;
	else if ((r = drain(arg, &is->urg.byte, 1)) < 0)
		return r;
	*flagsp |= MSG_OOB;
	if (!(flags & MSG_PEEK)) {
		is->urg.valid = false;
		usock_wake(&is->u);
	}
	return len == 0 ? 0 : 1;
}

long
urg_recv(struct isock *is, size_t len, sock_copy_fn drain, void *arg,
    int flags, int *flagsp, struct scm *scm)
{
	bool at_mark = urg_at_mark(is);
	long r;

	if (at_mark && !urg_inline(is) && !is->urg.skipped)
		urg_skip(is);
	if (is->urg.mark && !at_mark && len > is->urg.left)
		len = is->urg.left;
	r = usock_recv(&is->u.sk, len, drain, arg, flags, flagsp, NULL, scm);
	if ((flags & MSG_PEEK) || !is->urg.mark)
		return r;
	if (!at_mark) {
		if (r > 0)
			is->urg.left -= (size_t)r;
	} else if (is->urg.skipped || r > 0) {
		/* Past the mark: no urgent byte any more. */
		memset(&is->urg, 0, sizeof(is->urg));
		usock_wake(&is->u);
	}
	return r;
}

short
urg_poll(struct isock *is, short r)
{
	if (is->urg.valid)
		r |= POLLPRI;
	/* The urgent byte alone, left out of the stream, is nothing to read. */
	if (urg_at_mark(is) && !urg_inline(is) && !is->urg.skipped &&
	    !(is->u.shut & SHUT_RCV) && usock_nread(&is->u.sk) == 1)
		r &= (short)~POLLIN;
	return r;
}

long
urg_nread(struct isock *is)
{
	if (is->urg.mark && !urg_inline(is))
		return (long)is->urg.left;
	return usock_nread(&is->u.sk);
}

long
inet_ioctl(struct thread *td, struct socket *sk, unsigned cmd, uint64_t arg)
{
	struct isock *is = isk(sk);
	int v;

	if (cmd != SIOCATMARK || sk->type != SOCK_STREAM)
		return -ENOTTY;
	v = urg_at_mark(is);
	return copyout(td, &v, UADDR(arg), sizeof(v));
}
