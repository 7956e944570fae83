/*
 * NETLINK_ROUTE's kernel side: see netlink.h.
 *
 * The walk over a request datagram is Linux's netlink_rcv_skb(); each
 * message goes to rtnl_msg, which follows rtnetlink_rcv_msg(): types past
 * RTM_MAX are EOPNOTSUPP, a message without a family byte is ignored,
 * anything but a get needs CAP_NET_ADMIN (EPERM), a get with NLM_F_DUMP
 * is a dump (NLM_F_MULTI messages, then NLMSG_DONE, never an ack), and
 * the rest is answered by the type's own handler.  Dumps of types vkernel
 * has nothing for (neighbours, rules, qdiscs...) are empty, as on a
 * machine without them; changes are EOPNOTSUPP, even for root, since the
 * guest's network is fixed.
 *
 * Replies are packed into datagrams of at most NL_GOODSIZE bytes, as
 * Linux's netlink_dump() fills one skb after another.
 */
#include <errno.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "vkern/kmem.h"
#include "vkern/net/net.h"
#include "vkern/net/netlink.h"
#include "vkern/vk.h"

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

/* Append n bytes and the padding to the next 4-byte boundary. */
static void *
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

static void
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

static void
nla_put(struct nl_msg *m, int type, const void *p, size_t n)
{
	struct rtattr a = { .rta_len = (uint16_t)RTA_LENGTH(n),
	    .rta_type = (uint16_t)type };

	nlm_put(m, &a, sizeof(a));
	nlm_put(m, p, n);
}

static void
nla_u32(struct nl_msg *m, int type, uint32_t v)
{
	nla_put(m, type, &v, sizeof(v));
}

static void
nla_u8(struct nl_msg *m, int type, uint8_t v)
{
	nla_put(m, type, &v, sizeof(v));
}

static void
nla_str(struct nl_msg *m, int type, const char *s)
{
	nla_put(m, type, s, strlen(s) + 1);
}

/* Send the datagram being filled, if it holds anything. */
static void
nl_flush(struct nl_out *o)
{
	if (o->dg.len > 0 && o->err == 0)
		o->err = o->emit(o->arg, o->dg.b, o->dg.len);
	o->dg.len = 0;
}

/* Finish m and add it to the datagram, starting a new one if full. */
static void
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
static void
nl_done(struct nl_out *o)
{
	struct nl_msg m;
	int status = 0;

	nlm_start(o, &m, NLMSG_DONE, NLM_F_MULTI);
	nlm_put(&m, &status, sizeof(status));
	nl_add(o, &m);
	nl_flush(o);
}

/* --- Links --- */

static void
link_fill(struct nl_out *o, struct nl_msg *m, const struct netif *nif,
    int flags)
{
	struct ifinfomsg ifi = {
		.ifi_family = AF_UNSPEC,
		.ifi_type = nif->type,
		.ifi_index = nif->index,
		.ifi_flags = nif->flags,
	};
	struct netif_stats st = netif_stats_of(nif->index);
	struct rtnl_link_stats64 s64 = {
		.rx_packets = st.rx_packets, .tx_packets = st.tx_packets,
		.rx_bytes = st.rx_bytes, .tx_bytes = st.tx_bytes,
	};
	struct rtnl_link_stats s32 = {
		.rx_packets = (uint32_t)st.rx_packets,
		.tx_packets = (uint32_t)st.tx_packets,
		.rx_bytes = (uint32_t)st.rx_bytes,
		.tx_bytes = (uint32_t)st.tx_bytes,
	};
	struct rtnl_link_ifmap map = { 0 };

	nlm_start(o, m, RTM_NEWLINK, flags);
	nlm_put(m, &ifi, sizeof(ifi));
	nla_str(m, IFLA_IFNAME, nif->name);
	nla_u32(m, IFLA_TXQLEN, nif->txqlen);
	nla_u8(m, IFLA_OPERSTATE, nif->operstate);
	nla_u8(m, IFLA_LINKMODE, 0);
	nla_u32(m, IFLA_MTU, nif->mtu);
	nla_u32(m, IFLA_MIN_MTU, 0);
	nla_u32(m, IFLA_MAX_MTU, 0);
	nla_u32(m, IFLA_GROUP, 0);
	nla_u32(m, IFLA_PROMISCUITY, 0);
	nla_u32(m, IFLA_NUM_TX_QUEUES, 1);
	nla_u32(m, IFLA_NUM_RX_QUEUES, 1);
	nla_u8(m, IFLA_CARRIER, (nif->flags & IFF_LOWER_UP) != 0);
	nla_str(m, IFLA_QDISC, "noqueue");
	nla_u32(m, IFLA_CARRIER_CHANGES, 0);
	nla_u8(m, IFLA_PROTO_DOWN, 0);
	nla_put(m, IFLA_MAP, &map, sizeof(map));
	nla_put(m, IFLA_ADDRESS, nif->hwaddr, sizeof(nif->hwaddr));
	nla_put(m, IFLA_BROADCAST, nif->hwaddr, sizeof(nif->hwaddr));
	nla_put(m, IFLA_STATS64, &s64, sizeof(s64));
	nla_put(m, IFLA_STATS, &s32, sizeof(s32));
}

static int
link_dump(struct nl_out *o)
{
	const struct netif *nif;
	struct nl_msg m;

	for (size_t i = 0; (nif = netif_at(i)) != NULL; i++) {
		link_fill(o, &m, nif, NLM_F_MULTI);
		nl_add(o, &m);
	}
	return 0;
}

/* The value of attribute type among a message's attributes, or NULL. */
static const struct rtattr *
nla_find(const struct nlmsghdr *nlh, size_t hdrlen, int type)
{
	const uint8_t *p = (const uint8_t *)nlh + NLMSG_HDRLEN +
	    NLMSG_ALIGN(hdrlen);
	const uint8_t *end = (const uint8_t *)nlh + nlh->nlmsg_len;

	while (end - p >= (long)sizeof(struct rtattr)) {
		const struct rtattr *a = (const struct rtattr *)(const void *)p;

		if (a->rta_len < sizeof(*a) || a->rta_len > end - p)
			return NULL;
		if (a->rta_type == type)
			return a;
		p += RTA_ALIGN(a->rta_len);
	}
	return NULL;
}

/*
 * RTM_GETLINK of one interface, by ifi_index or else IFLA_IFNAME, as
 * rtnl_getlink(): EINVAL for a short header or neither, ENODEV when none
 * is so named.
 */
static int
link_get(struct nl_out *o, const struct nlmsghdr *nlh)
{
	const struct netif *nif = NULL;
	struct ifinfomsg ifi;
	const struct rtattr *name;
	struct nl_msg m;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(ifi)))
		return -EINVAL;
	memcpy(&ifi, NLMSG_DATA(nlh), sizeof(ifi));
	name = nla_find(nlh, sizeof(ifi), IFLA_IFNAME);
	if (ifi.ifi_index > 0) {
		nif = netif_by_index(ifi.ifi_index);
	} else if (name != NULL) {
		const char *s = RTA_DATA(name);
		size_t n = RTA_PAYLOAD(name);

		for (size_t i = 0; (nif = netif_at(i)) != NULL; i++)
			if (strnlen(s, n) == strlen(nif->name) &&
			    strncmp(s, nif->name, n) == 0)
				break;
	} else {
		return -EINVAL;
	}
	if (nif == NULL)
		return -ENODEV;
	link_fill(o, &m, nif, 0);
	nl_add(o, &m);
	nl_flush(o);
	return 0;
}

/* --- Addresses --- */

static void
addr_fill(struct nl_out *o, struct nl_msg *m, const struct netif_addr *a)
{
	size_t alen = a->family == AF_INET ? 4 : 16;
	const struct netif *nif = netif_by_index(a->ifindex);
	struct ifaddrmsg ifa = {
		.ifa_family = (uint8_t)a->family,
		.ifa_prefixlen = a->prefixlen,
		.ifa_flags = (uint8_t)a->flags,
		.ifa_scope = a->scope,
		.ifa_index = (uint32_t)a->ifindex,
	};
	/* Permanent: forever, as Linux's INFINITY_LIFE_TIME. */
	struct ifa_cacheinfo ci = { .ifa_prefered = 0xffffffff,
	    .ifa_valid = 0xffffffff };

	nlm_start(o, m, RTM_NEWADDR, NLM_F_MULTI);
	nlm_put(m, &ifa, sizeof(ifa));
	nla_put(m, IFA_ADDRESS, a->addr, alen);
	if (a->family == AF_INET) {
		nla_put(m, IFA_LOCAL, a->addr, alen);
		if (nif != NULL)
			nla_str(m, IFA_LABEL, nif->name);
	}
	nla_u32(m, IFA_FLAGS, a->flags);
	nla_put(m, IFA_CACHEINFO, &ci, sizeof(ci));
}

/* Whether a dump for family shows what is of fam (AF_UNSPEC: all). */
static bool
family_match(int family, int fam)
{
	if (family != AF_INET && family != AF_INET6)
		return true;
	return family == fam;
}

static int
addr_dump(struct nl_out *o, int family)
{
	const struct netif_addr *a;
	struct nl_msg m;

	for (size_t i = 0; (a = netif_addr_at(i)) != NULL; i++) {
		if (!family_match(family, a->family))
			continue;
		addr_fill(o, &m, a);
		nl_add(o, &m);
	}
	return 0;
}

/* --- Routes --- */

static void
route_fill(struct nl_out *o, struct nl_msg *m, const struct netif_route *rt)
{
	size_t alen = rt->family == AF_INET ? 4 : 16;
	struct rtmsg r = {
		.rtm_family = (uint8_t)rt->family,
		.rtm_dst_len = rt->dst_len,
		.rtm_table = rt->table,
		.rtm_protocol = RTPROT_KERNEL,
		.rtm_scope = rt->scope,
		.rtm_type = rt->type,
	};

	nlm_start(o, m, RTM_NEWROUTE, NLM_F_MULTI);
	nlm_put(m, &r, sizeof(r));
	nla_u32(m, RTA_TABLE, rt->table);
	if (rt->dst_len > 0)
		nla_put(m, RTA_DST, rt->dst, alen);
	if (rt->family == AF_INET6)
		nla_u32(m, RTA_PRIORITY, rt->priority);
	if (rt->prefsrc_len > 0)
		nla_put(m, RTA_PREFSRC, rt->prefsrc, rt->prefsrc_len);
	nla_u32(m, RTA_OIF, (uint32_t)rt->oif);
	if (rt->family == AF_INET6)
		nla_u8(m, RTA_PREF, 0);     /* ICMPV6_ROUTER_PREF_MEDIUM */
}

static int
route_dump(struct nl_out *o, int family)
{
	const struct netif_route *rt;
	struct nl_msg m;

	for (size_t i = 0; (rt = netif_route_at(i)) != NULL; i++) {
		if (!family_match(family, rt->family))
			continue;
		route_fill(o, &m, rt);
		nl_add(o, &m);
	}
	return 0;
}

/* --- Requests --- */

/*
 * A get: a dump of links, addresses or routes, an empty dump of the
 * other kinds, or one link.  Returns -errno, or 1 when the answer went
 * out and no ack is due for a dump.
 */
static int
rtnl_get(struct nl_out *o, const struct nlmsghdr *nlh, int family)
{
	int type = nlh->nlmsg_type;

	if (!(nlh->nlmsg_flags & NLM_F_DUMP))
		return type == RTM_GETLINK ? link_get(o, nlh) : -EOPNOTSUPP;
	if (type == RTM_GETLINK)
		link_dump(o);
	else if (type == RTM_GETADDR)
		addr_dump(o, family);
	else if (type == RTM_GETROUTE)
		route_dump(o, family);
	nl_done(o);
	return 1;
}

/* One request message (its type past the control ones): 0, 1 or -errno. */
static int
rtnl_msg(struct nl_out *o, const struct nlmsghdr *nlh)
{
	int type = nlh->nlmsg_type, family;

	if (type > RTM_MAX)
		return -EOPNOTSUPP;
	/* Every rtnetlink message has at least a family byte. */
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtgenmsg)))
		return 0;
	family = ((const struct rtgenmsg *)NLMSG_DATA(nlh))->rtgen_family;
	/* Gets are the third of each group of four (RTM_GETLINK...). */
	if (((type - RTM_BASE) & 3) == 2)
		return rtnl_get(o, nlh, family);
	if (!o->who->admin)
		return -EPERM;
	return -EOPNOTSUPP;
}

int
nlroute_input(const void *buf, size_t len, const struct nl_sender *who,
    nl_emit_fn emit, void *arg)
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
			r = rtnl_msg(&o, o.req);
		if (r < 0 || (r == 0 && (h.nlmsg_flags & NLM_F_ACK)))
			nl_ack(&o, r);
		step = VK_MIN((size_t)NLMSG_ALIGN(h.nlmsg_len), len);
		p += step;
		len -= step;
	}
	return o.err;
}
