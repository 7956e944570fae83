/*
 * NETLINK_SOCK_DIAG's kernel side: see netlink.h.
 *
 * As Linux's sock_diag_rcv_msg(): SOCK_DIAG_BY_FAMILY goes to the
 * family's handler (AF_INET and AF_INET6: inet_diag, AF_UNIX: unix_diag;
 * any other family ENOENT, as a kernel without its module; a family past
 * AF_MAX, a short request or another type EINVAL), SOCK_DESTROY is
 * EOPNOTSUPP (EPERM without CAP_NET_ADMIN).  A dump lists the sockets
 * that net_sock_walk() gives, filtered by protocol and states as the
 * request asks; a get of one socket that is not there is ENOENT.  The
 * attributes beyond the fixed message (memory, TCP info, bytecode
 * filters) are left out: ss applies its own filter again and prints
 * what it has.
 */
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <string.h>

#include "vkern/net/net.h"
#include "vkern/net/netlink_impl.h"
#include "vkern/vk.h"

/* What one diag walk matches, and where its replies go. */
struct diag_walk {
	struct nl_out *o;
	int family, type;        /* family; type 0: any */
	uint32_t states;         /* 1 << state of those wanted */
	uint32_t show;           /* UDIAG_SHOW_* */
	uint64_t ino;            /* a get's socket; 0: a dump */
	int flags;               /* NLM_F_MULTI for a dump */
	bool found;
};

static void
diag_inet_fill(struct nl_msg *m, const struct net_sockinfo *si)
{
	struct inet_diag_msg d = {
		.idiag_family = (uint8_t)si->family,
		.idiag_state = (uint8_t)si->state,
		.idiag_rqueue = si->rxq,
		.idiag_wqueue = si->txq,
		.idiag_uid = si->uid,
		.idiag_inode = (uint32_t)si->ino,
	};

	d.id.idiag_cookie[0] = (uint32_t)si->ino;
	d.id.idiag_cookie[1] = (uint32_t)(si->ino >> 32);
	if (si->family == AF_INET6) {
		d.id.idiag_sport = si->local.in6.sin6_port;
		d.id.idiag_dport = si->remote.in6.sin6_port;
		memcpy(d.id.idiag_src, &si->local.in6.sin6_addr, 16);
		memcpy(d.id.idiag_dst, &si->remote.in6.sin6_addr, 16);
	} else {
		d.id.idiag_sport = si->local.in.sin_port;
		d.id.idiag_dport = si->remote.in.sin_port;
		d.id.idiag_src[0] = si->local.in.sin_addr.s_addr;
		d.id.idiag_dst[0] = si->remote.in.sin_addr.s_addr;
	}
	nlm_put(m, &d, sizeof(d));
}

static void
diag_unix_fill(struct nl_msg *m, const struct net_sockinfo *si,
    uint32_t show)
{
	struct unix_diag_msg d = {
		.udiag_family = AF_UNIX,
		.udiag_type = (uint8_t)si->type,
		.udiag_state = (uint8_t)si->state,
		.udiag_ino = (uint32_t)si->ino,
		.udiag_cookie = { (uint32_t)si->ino,
		    (uint32_t)(si->ino >> 32) },
	};
	struct unix_diag_rqlen q = { .udiag_rqueue = si->rxq,
	    .udiag_wqueue = si->txq };
	uint32_t peer = (uint32_t)si->peer_ino;

	nlm_put(m, &d, sizeof(d));
	if ((show & UDIAG_SHOW_NAME) && si->sun != NULL &&
	    si->sunlen > offsetof(struct sockaddr_un, sun_path))
		nla_put(m, UNIX_DIAG_NAME, si->sun->sun_path, VK_MIN(si->sunlen -
		    offsetof(struct sockaddr_un, sun_path),
		    sizeof(si->sun->sun_path)));
	if ((show & UDIAG_SHOW_PEER) && peer != 0)
		nla_u32(m, UNIX_DIAG_PEER, peer);
	if (show & UDIAG_SHOW_RQLEN)
		nla_put(m, UNIX_DIAG_RQLEN, &q, sizeof(q));
}

static int
diag_one(void *arg, const struct net_sockinfo *si)
{
	struct diag_walk *w = arg;
	struct nl_msg m;

	if (w->type != 0 && si->type != w->type)
		return 0;
	if (w->ino != 0 ? si->ino != w->ino :
	    !(w->states & (1u << (si->state & 31))))
		return 0;
	nlm_start(w->o, &m, SOCK_DIAG_BY_FAMILY, w->flags);
	if (w->family == AF_UNIX)
		diag_unix_fill(&m, si, w->show);
	else
		diag_inet_fill(&m, si);
	nl_add(w->o, &m);
	w->found = true;
	/* A get wants the one socket. */
	return w->ino != 0;
}

/* Run the walk: a dump ends in NLMSG_DONE, a get is ENOENT or one reply. */
static int
diag_run(struct diag_walk *w, bool dump)
{
	w->flags = dump ? NLM_F_MULTI : 0;
	net_sock_walk(w->family, diag_one, w);
	if (dump) {
		nl_done(w->o);
		return 1;
	}
	if (!w->found)
		return -ENOENT;
	nl_flush(w->o);
	return 0;
}

/* The inet sockets of a protocol: TCP streams or UDP datagrams. */
static int
diag_inet(struct nl_out *o, const struct nlmsghdr *nlh, bool dump)
{
	struct inet_diag_req_v2 req;
	struct diag_walk w = { .o = o };

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(req)))
		return -EINVAL;
	memcpy(&req, NLMSG_DATA(nlh), sizeof(req));
	if (req.sdiag_protocol == IPPROTO_TCP)
		w.type = SOCK_STREAM;
	else if (req.sdiag_protocol == IPPROTO_UDP)
		w.type = SOCK_DGRAM;
	else
		return -ENOENT;
	w.family = req.sdiag_family;
	w.states = req.idiag_states;
	if (!dump)
		w.ino = (uint64_t)req.id.idiag_cookie[0] |
		    (uint64_t)req.id.idiag_cookie[1] << 32;
	return diag_run(&w, dump);
}

static int
diag_unix(struct nl_out *o, const struct nlmsghdr *nlh, bool dump)
{
	struct unix_diag_req req;
	struct diag_walk w = { .o = o, .family = AF_UNIX };

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(req)))
		return -EINVAL;
	memcpy(&req, NLMSG_DATA(nlh), sizeof(req));
	w.states = req.udiag_states;
	w.show = req.udiag_show;
	if (!dump)
		w.ino = req.udiag_ino != 0 ? req.udiag_ino : UINT64_MAX;
	return diag_run(&w, dump);
}

static int
diag_msg(struct nl_out *o, const struct nlmsghdr *nlh)
{
	struct sock_diag_req req;
	bool dump = (nlh->nlmsg_flags & NLM_F_DUMP) != 0;

	if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY &&
	    nlh->nlmsg_type != SOCK_DESTROY)
		return -EINVAL;
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(req)))
		return -EINVAL;
	memcpy(&req, NLMSG_DATA(nlh), sizeof(req));
	if (req.sdiag_family >= AF_MAX)
		return -EINVAL;
	if (req.sdiag_family != AF_INET && req.sdiag_family != AF_INET6 &&
	    req.sdiag_family != AF_UNIX)
		return -ENOENT;
	if (nlh->nlmsg_type == SOCK_DESTROY)
		return o->who->admin ? -EOPNOTSUPP : -EPERM;
	if (req.sdiag_family == AF_UNIX)
		return diag_unix(o, nlh, dump);
	return diag_inet(o, nlh, dump);
}

int
nldiag_input(const void *buf, size_t len, const struct nl_sender *who,
    nl_emit_fn emit, void *arg)
{
	return nl_rcv(buf, len, who, emit, arg, diag_msg);
}
