/*
 * Netlink replies and the walk over requests: see netlink_impl.h.
 *
 * Replies are packed into datagrams of at most NL_GOODSIZE bytes, as
 * Linux's netlink_dump() fills one skb after another; an error or ack
 * goes on a datagram of its own, which may be bigger (it echoes the
 * request).
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "vkern/kmem.h"
#include "vkern/net/netlink_impl.h"
#include "vkern/vk.h"

void *
nlm_put(struct nl_msg *m, const void *p, size_t n)
{
	void *at = m->b + m->len;

	/* Every message is made from the tables: its size is known. */
	VK_ASSERT(m->len + NLMSG_ALIGN(n) <= sizeof(m->b));
	memset(at, 0, NLMSG_ALIGN(n));
	if (p != NULL)
		memcpy(at, p, n);
	m->len += NLMSG_ALIGN(n);
	return at;
}

void
nlm_start(struct nl_out *o, struct nl_msg *m, int type, int flags)
{
	struct nlmsghdr h = {
		.nlmsg_type = (uint16_t)type,
		.nlmsg_flags = (uint16_t)flags,
		.nlmsg_seq = o->req->nlmsg_seq,
		.nlmsg_pid = o->who->portid,
	};

	m->len = 0;
	nlm_put(m, &h, sizeof(h));
}

void
nla_put(struct nl_msg *m, int type, const void *p, size_t n)
{
	struct rtattr a = { .rta_len = (uint16_t)RTA_LENGTH(n),
	    .rta_type = (uint16_t)type };

	nlm_put(m, &a, sizeof(a));
	nlm_put(m, p, n);
}

void
nla_u32(struct nl_msg *m, int type, uint32_t v)
{
	nla_put(m, type, &v, sizeof(v));
}

void
nla_u8(struct nl_msg *m, int type, uint8_t v)
{
	nla_put(m, type, &v, sizeof(v));
}

void
nla_str(struct nl_msg *m, int type, const char *s)
{
	nla_put(m, type, s, strlen(s) + 1);
}

/* Send the datagram being filled, if it holds anything. */
void
nl_flush(struct nl_out *o)
{
	if (o->dg.len > 0 && o->err == 0)
		o->err = o->emit(o->arg, o->dg.b, o->dg.len);
	o->dg.len = 0;
}

/* Finish m and add it to the datagram, starting a new one if full. */
void
nl_add(struct nl_out *o, struct nl_msg *m)
{
	((struct nlmsghdr *)m->b)->nlmsg_len = (uint32_t)m->len;
	if (o->dg.len + m->len > sizeof(o->dg.b))
		nl_flush(o);
	memcpy(o->dg.b + o->dg.len, m->b, m->len);
	o->dg.len += m->len;
}

/*
 * NLMSG_ERROR for the request, with err (0: an ack), as netlink_ack():
 * the request's header follows the errno, and for an error its whole
 * payload too unless the socket asked for NETLINK_CAP_ACK.  On its own
 * datagram, which may be bigger than NL_GOODSIZE.
 */
static void
nl_ack(struct nl_out *o, int err)
{
	const struct nlmsghdr *req = o->req;
	bool capped = err == 0 || o->who->cap_ack;
	size_t echo = capped ? sizeof(*req) : req->nlmsg_len;
	size_t len = NLMSG_HDRLEN + sizeof(int) + echo;
	struct nlmsghdr *h;
	uint8_t *b;

	nl_flush(o);
	if (o->err != 0)
		return;
	if ((b = kmem_alloc(NLMSG_ALIGN(len), KM_ZERO)) == NULL) {
		o->err = -ENOBUFS;
		return;
	}
	h = (struct nlmsghdr *)b;
	*h = (struct nlmsghdr){
		.nlmsg_len = (uint32_t)len,
		.nlmsg_type = NLMSG_ERROR,
		.nlmsg_flags = capped ? NLM_F_CAPPED : 0,
		.nlmsg_seq = req->nlmsg_seq,
		.nlmsg_pid = o->who->portid,
	};
	memcpy(b + NLMSG_HDRLEN, &err, sizeof(err));
	memcpy(b + NLMSG_HDRLEN + sizeof(err), req, echo);
	o->err = o->emit(o->arg, b, NLMSG_ALIGN(len));
	kmem_free(b, NLMSG_ALIGN(len), KM_ZERO);
}

/* The end of a dump: NLMSG_DONE with its status, in the last datagram. */
void
nl_done(struct nl_out *o)
{
	struct nl_msg m;
	int status = 0;

	nlm_start(o, &m, NLMSG_DONE, NLM_F_MULTI);
	nlm_put(&m, &status, sizeof(status));
	nl_add(o, &m);
	nl_flush(o);
}

/*
 * The first well-formed attribute after hdrlen whose type is (or, with
 * other, is not) type; NULL when none comes before the end or a bad one.
 */
static const struct rtattr *
nla_walk(const struct nlmsghdr *nlh, size_t hdrlen, int type, bool other)
{
	const uint8_t *p = (const uint8_t *)nlh + NLMSG_HDRLEN +
	    NLMSG_ALIGN(hdrlen);
	const uint8_t *end = (const uint8_t *)nlh + nlh->nlmsg_len;

	while (end - p >= (long)sizeof(struct rtattr)) {
		const struct rtattr *a = (const struct rtattr *)(const void *)p;

		if (a->rta_len < sizeof(*a) || a->rta_len > end - p)
			return NULL;
		if ((a->rta_type == type) != other)
			return a;
		p += RTA_ALIGN(a->rta_len);
	}
	return NULL;
}

const struct rtattr *
nla_find(const struct nlmsghdr *nlh, size_t hdrlen, int type)
{
	return nla_walk(nlh, hdrlen, type, false);
}

bool
nla_other(const struct nlmsghdr *nlh, size_t hdrlen, int type)
{
	return nla_walk(nlh, hdrlen, type, true) != NULL;
}

int
nl_rcv(const void *buf, size_t len, const struct nl_sender *who,
    nl_emit_fn emit, void *arg, nl_msg_fn handle)
{
	struct nl_out o = { .emit = emit, .arg = arg, .who = who };
	const uint8_t *p = buf;

	while (len >= NLMSG_HDRLEN && o.err == 0) {
		struct nlmsghdr h;
		size_t step;
		int r = 0;

		memcpy(&h, p, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len)
			break;
		o.req = (const struct nlmsghdr *)(const void *)p;
		/* Only requests are served; control messages only acked. */
		if ((h.nlmsg_flags & NLM_F_REQUEST) &&
		    h.nlmsg_type >= NLMSG_MIN_TYPE)
			r = handle(&o, o.req);
		if (r < 0 || (r == 0 && (h.nlmsg_flags & NLM_F_ACK)))
			nl_ack(&o, r);
		step = VK_MIN((size_t)NLMSG_ALIGN(h.nlmsg_len), len);
		p += step;
		len -= step;
	}
	return o.err;
}
