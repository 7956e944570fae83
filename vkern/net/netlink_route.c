/*
 * NETLINK_ROUTE's kernel side: see netlink.h.
 *
 * The walk over a request datagram is netlink_msg.c's; each message goes
 * to rtnl_msg, which follows Linux's rtnetlink_rcv_msg(): types past
 * RTM_MAX are EOPNOTSUPP, a message without a family byte is ignored,
 * anything but a get needs CAP_NET_ADMIN (EPERM), a get with NLM_F_DUMP
 * is a dump (NLM_F_MULTI messages, then NLMSG_DONE, never an ack), and
 * the rest is answered by the type's own handler.  Dumps of types vkernel
 * has nothing for (neighbours, rules, qdiscs...) are empty, as on a
 * machine without them; changes are EOPNOTSUPP, even for root, since the
 * guest's network is fixed (a link request that changes nothing, as
 * "ip link set lo up", succeeds).
 */
#include <errno.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "vkern/net/net.h"
#include "vkern/net/netlink_impl.h"
#include "vkern/vk.h"

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
	nla_str(m, IFLA_QDISC, nif->qdisc[0] != '\0' ? nif->qdisc : "noqueue");
	nla_u32(m, IFLA_CARRIER_CHANGES, 0);
	nla_u8(m, IFLA_PROTO_DOWN, 0);
	nla_put(m, IFLA_MAP, &map, sizeof(map));
	nla_put(m, IFLA_ADDRESS, nif->hwaddr, sizeof(nif->hwaddr));
	nla_put(m, IFLA_BROADCAST, nif->hwbrd, sizeof(nif->hwbrd));
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

/*
 * The interface a link request names, by ifi_index or else IFLA_IFNAME,
 * as rtnl_getlink() finds it: EINVAL for a short header or neither,
 * ENODEV when none is so named.
 */
static int
link_find(const struct nlmsghdr *nlh, struct ifinfomsg *ifi,
    const struct netif **nifp)
{
	const struct netif *nif = NULL;
	const struct rtattr *name;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return -EINVAL;
	memcpy(ifi, NLMSG_DATA(nlh), sizeof(*ifi));
	name = nla_find(nlh, sizeof(*ifi), IFLA_IFNAME);
	if (ifi->ifi_index > 0) {
		nif = netif_by_index(ifi->ifi_index);
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
	*nifp = nif;
	return nif != NULL ? 0 : -ENODEV;
}

/* RTM_GETLINK of one interface. */
static int
link_get(struct nl_out *o, const struct nlmsghdr *nlh)
{
	const struct netif *nif;
	struct ifinfomsg ifi;
	struct nl_msg m;
	int r;

	if ((r = link_find(nlh, &ifi, &nif)) < 0)
		return r;
	link_fill(o, &m, nif, 0);
	nl_add(o, &m);
	nl_flush(o);
	return 0;
}

/*
 * RTM_NEWLINK or RTM_SETLINK from root: a request that changes nothing
 * ("ip link set lo up" on lo, which is up) succeeds, as Linux's
 * do_setlink() does; any real change, attribute or new link is
 * EOPNOTSUPP, since the guest's interfaces are fixed.  Flags combine as
 * rtnl_dev_combine_flags(): ifi_change selects the bits, 0 all of them.
 */
static int
link_set(const struct nlmsghdr *nlh)
{
	const struct netif *nif;
	struct ifinfomsg ifi;
	unsigned change, want;
	int r;

	if ((r = link_find(nlh, &ifi, &nif)) == -ENODEV &&
	    (nlh->nlmsg_flags & NLM_F_CREATE))
		return -EOPNOTSUPP;
	if (r < 0)
		return r;
	if (nlh->nlmsg_type == RTM_NEWLINK && (nlh->nlmsg_flags & NLM_F_EXCL))
		return -EEXIST;
	change = ifi.ifi_change != 0 ? ifi.ifi_change : ~0u;
	want = (ifi.ifi_flags & change) | (nif->flags & ~change);
	if ((ifi.ifi_flags != 0 || ifi.ifi_change != 0) &&
	    (want ^ nif->flags) & (IFF_UP | IFF_PROMISC | IFF_ALLMULTI |
	    IFF_NOARP | IFF_DYNAMIC | IFF_MULTICAST))
		return -EOPNOTSUPP;
	/* Only the name that found it may come along. */
	if (nla_other(nlh, sizeof(ifi), IFLA_IFNAME))
		return -EOPNOTSUPP;
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
		static const uint8_t none[4];

		nla_put(m, IFA_LOCAL, a->addr, alen);
		if (memcmp(a->broadcast, none, sizeof(none)) != 0)
			nla_put(m, IFA_BROADCAST, a->broadcast, 4);
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

/* Who made a route: the host's say, or the kernel's for lo's own. */
static uint8_t
route_protocol(const struct netif_route *rt)
{
	return rt->protocol != RTPROT_UNSPEC ? rt->protocol : RTPROT_KERNEL;
}

static void
route_fill(struct nl_out *o, struct nl_msg *m, const struct netif_route *rt,
    int flags)
{
	size_t alen = rt->family == AF_INET ? 4 : 16;
	struct rtmsg r = {
		.rtm_family = (uint8_t)rt->family,
		.rtm_dst_len = rt->dst_len,
		.rtm_table = rt->table,
		.rtm_protocol = route_protocol(rt),
		.rtm_scope = rt->scope,
		.rtm_type = rt->type,
	};

	nlm_start(o, m, RTM_NEWROUTE, flags);
	nlm_put(m, &r, sizeof(r));
	nla_u32(m, RTA_TABLE, rt->table);
	if (rt->dst_len > 0)
		nla_put(m, RTA_DST, rt->dst, alen);
	if (rt->family == AF_INET6 || rt->priority != 0)
		nla_u32(m, RTA_PRIORITY, rt->priority);
	if (rt->prefsrc_len > 0)
		nla_put(m, RTA_PREFSRC, rt->prefsrc, rt->prefsrc_len);
	if (rt->gw_len > 0)
		nla_put(m, RTA_GATEWAY, rt->gw, rt->gw_len);
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
		route_fill(o, &m, rt, NLM_F_MULTI);
		nl_add(o, &m);
	}
	return 0;
}

/* The most specific route of family to dst, or NULL. */
static const struct netif_route *
route_lookup(int family, const uint8_t *dst)
{
	const struct netif_route *rt, *best = NULL;

	for (size_t i = 0; (rt = netif_route_at(i)) != NULL; i++) {
		unsigned bits = rt->dst_len;

		if (rt->family != family || (best != NULL &&
		    best->dst_len >= bits))
			continue;
		if (memcmp(rt->dst, dst, bits / 8) != 0 || (bits % 8 != 0 &&
		    ((rt->dst[bits / 8] ^ dst[bits / 8]) &
		    (0xff00 >> (bits % 8))) != 0))
			continue;
		best = rt;
	}
	return best;
}

/*
 * The source address of a packet to dst by route rt: the route's own
 * preferred one, a local destination itself (IPv6's answer names it),
 * or else the first address of the family on the route's interface
 * whose scope is the destination's (link-local for fe80::/10, global
 * for the rest), or failing that its first.
 */
static const uint8_t *
route_source(const struct netif_route *rt, const uint8_t *dst)
{
	const struct netif_addr *a, *first = NULL;
	bool link = rt->family == AF_INET6 && dst[0] == 0xfe &&
	    (dst[1] & 0xc0) == 0x80;
	uint8_t scope = link ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;

	if (rt->prefsrc_len > 0)
		return rt->prefsrc;
	if (rt->type == RTN_LOCAL)
		return dst;
	for (size_t i = 0; (a = netif_addr_at(i)) != NULL; i++) {
		if (a->family != rt->family || a->ifindex != rt->oif)
			continue;
		if (a->scope == scope)
			return a->addr;
		if (first == NULL)
			first = a;
	}
	return first != NULL ? first->addr : dst;
}

/* What a packet by rt leaves through: a local one goes to the loopback. */
static int
route_dev(const struct netif_route *rt)
{
	const struct netif *nif;

	if (rt->type != RTN_LOCAL)
		return rt->oif;
	for (size_t i = 0; (nif = netif_at(i)) != NULL; i++)
		if (nif->flags & IFF_LOOPBACK)
			return nif->index;
	return rt->oif;
}

/* Linux's RTCF_ flags of a cached IPv4 route, which ip shows as cache <>. */
#define RTCF_BROADCAST 0x10000000
#define RTCF_LOCAL     0x80000000

/*
 * The route a packet to dst takes, as Linux's inet_rtm_getroute() and
 * inet6_rtm_getroute() answer it: an IPv4 one as the cached route (table
 * main, the requester's uid), an IPv6 one as the route with its source;
 * with RTM_F_FIB_MATCH, the table's entry itself.
 */
static void
route_answer(struct nl_out *o, const struct rtmsg *req,
    const struct netif_route *rt, const uint8_t *dst, const uint8_t *src)
{
	size_t alen = rt->family == AF_INET ? 4 : 16;
	static const uint8_t any[16];
	struct rta_cacheinfo ci = { .rta_clntref = 2 };
	struct rtmsg r = {
		.rtm_family = (uint8_t)rt->family,
		.rtm_dst_len = (uint8_t)(alen * 8),
		.rtm_type = rt->type,
	};
	struct nl_msg m;

	if (req->rtm_flags & RTM_F_FIB_MATCH) {
		struct netif_route fib = *rt;

		/* Linux looks IPv4 up in main and local merged, as main. */
		if (rt->family == AF_INET)
			fib.table = RT_TABLE_MAIN;
		route_fill(o, &m, &fib, 0);
		nl_add(o, &m);
		return;
	}
	if (rt->family == AF_INET) {
		r.rtm_table = RT_TABLE_MAIN;
		r.rtm_src_len = src != NULL ? 32 : 0;
		r.rtm_flags = RTM_F_CLONED |
		    (rt->type != RTN_UNICAST ? RTCF_LOCAL : 0) |
		    (rt->type == RTN_BROADCAST ? RTCF_BROADCAST : 0);
	} else {
		r.rtm_table = rt->table;
		r.rtm_protocol = route_protocol(rt);
		r.rtm_src_len = 128;
	}
	nlm_start(o, &m, RTM_NEWROUTE, 0);
	nlm_put(&m, &r, sizeof(r));
	nla_u32(&m, RTA_TABLE, r.rtm_table);
	nla_put(&m, RTA_DST, dst, alen);
	if (rt->family == AF_INET6 || src != NULL)
		nla_put(&m, RTA_SRC, src != NULL ? src : any, alen);
	if (rt->family == AF_INET)
		nla_u32(&m, RTA_OIF, (uint32_t)route_dev(rt));
	if (src == NULL)
		nla_put(&m, RTA_PREFSRC, route_source(rt, dst), alen);
	if (rt->gw_len > 0)
		nla_put(&m, RTA_GATEWAY, rt->gw, rt->gw_len);
	if (rt->family == AF_INET) {
		nla_u32(&m, RTA_UID, o->who->uid);
	} else {
		nla_u32(&m, RTA_PRIORITY, rt->priority);
		nla_u32(&m, RTA_OIF, (uint32_t)rt->oif);
	}
	nla_put(&m, RTA_CACHEINFO, &ci, sizeof(ci));
	if (rt->family == AF_INET6)
		nla_u8(&m, RTA_PREF, 0);
	nl_add(o, &m);
}

/*
 * RTM_GETROUTE of one destination (ip route get): EOPNOTSUPP for a
 * family without routes, EINVAL for a short header or address,
 * ENETUNREACH where no route goes (anywhere off the loopback).
 */
static int
route_get(struct nl_out *o, const struct nlmsghdr *nlh, int family)
{
	const struct rtattr *dsta, *srca;
	const struct netif_route *rt;
	uint8_t dst[16] = { 0 }, src[16] = { 0 };
	struct rtmsg req;
	size_t alen;

	if (family != AF_INET && family != AF_INET6)
		return -EOPNOTSUPP;
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(req)))
		return -EINVAL;
	memcpy(&req, NLMSG_DATA(nlh), sizeof(req));
	alen = req.rtm_family == AF_INET ? 4 : 16;
	dsta = nla_find(nlh, sizeof(req), RTA_DST);
	srca = nla_find(nlh, sizeof(req), RTA_SRC);
	if ((dsta != NULL && RTA_PAYLOAD(dsta) < alen) ||
	    (srca != NULL && RTA_PAYLOAD(srca) < alen))
		return -EINVAL;
	if (dsta != NULL)
		memcpy(dst, RTA_DATA(dsta), alen);
	if (srca != NULL)
		memcpy(src, RTA_DATA(srca), alen);
	if ((rt = route_lookup(req.rtm_family, dst)) == NULL)
		return -ENETUNREACH;
	route_answer(o, &req, rt, dst, srca != NULL ? src : NULL);
	nl_flush(o);
	return 0;
}

/* --- Requests --- */

/*
 * A get: a dump of links, addresses or routes, an empty dump of the
 * other kinds, one link, or the route to one address.  Returns -errno, or 1 when the answer went
 * out and no ack is due for a dump.
 */
static int
rtnl_get(struct nl_out *o, const struct nlmsghdr *nlh, int family)
{
	int type = nlh->nlmsg_type;

	if (!(nlh->nlmsg_flags & NLM_F_DUMP)) {
		if (type == RTM_GETLINK)
			return link_get(o, nlh);
		return type == RTM_GETROUTE ? route_get(o, nlh, family) :
		    -EOPNOTSUPP;
	}
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
	if (type == RTM_NEWLINK || type == RTM_SETLINK)
		return link_set(nlh);
	return -EOPNOTSUPP;
}

int
nlroute_input(const void *buf, size_t len, const struct nl_sender *who,
    nl_emit_fn emit, void *arg)
{
	return nl_rcv(buf, len, who, emit, arg, rtnl_msg);
}
