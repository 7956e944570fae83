/*
 * What the netlink protocols' kernel sides share (netlink_msg.c): reply
 * messages built in place and packed into datagrams of at most
 * NL_GOODSIZE bytes, acks and errors, NLMSG_DONE, and Linux's
 * netlink_rcv_skb() walk over a request datagram.
 *
 * Internal to vkern/net/; the interface is netlink.h.
 */
#ifndef VK_NET_NETLINK_IMPL_H
#define VK_NET_NETLINK_IMPL_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vkern/net/netlink.h"

/* One message being built. */
struct nl_msg {
	uint8_t b[NL_GOODSIZE];
	size_t len;
};

/* The datagram being filled, and where full ones go. */
struct nl_out {
	struct nl_msg dg;
	nl_emit_fn emit;
	void *arg;
	int err;                 /* emit's first error */
	const struct nl_sender *who;
	const struct nlmsghdr *req;   /* the request being answered */
};

/*
 * Start m as a reply of type to the request, with flags; append the
 * fixed part (nlm_put) and attributes (nla_*); then nl_add it to the
 * datagram being filled, which nl_flush sends.  Every message is made
 * from vkernel's own tables, so its size is known to fit.
 */
void nlm_start(struct nl_out *o, struct nl_msg *m, int type, int flags);
void *nlm_put(struct nl_msg *m, const void *p, size_t n);
void nla_put(struct nl_msg *m, int type, const void *p, size_t n);
void nla_u32(struct nl_msg *m, int type, uint32_t v);
void nla_u8(struct nl_msg *m, int type, uint8_t v);
void nla_str(struct nl_msg *m, int type, const char *s);
void nl_add(struct nl_out *o, struct nl_msg *m);
void nl_flush(struct nl_out *o);

/* The end of a dump: NLMSG_DONE in the last datagram, which is sent. */
void nl_done(struct nl_out *o);

/*
 * The attribute type after a fixed part of hdrlen bytes, or NULL;
 * whether one of another type is there.
 */
const struct rtattr *nla_find(const struct nlmsghdr *nlh, size_t hdrlen,
    int type);
bool nla_other(const struct nlmsghdr *nlh, size_t hdrlen, int type);

/*
 * A protocol's handler of one request message (its type past the
 * control ones): 0 (an ack if asked for), 1 (answered, no ack: a dump),
 * or -errno (an NLMSG_ERROR).
 */
typedef int (*nl_msg_fn)(struct nl_out *o, const struct nlmsghdr *nlh);

/* Linux's netlink_rcv_skb(): see nlroute_input in netlink.h. */
int nl_rcv(const void *buf, size_t len, const struct nl_sender *who,
    nl_emit_fn emit, void *arg, nl_msg_fn handle);

#endif
