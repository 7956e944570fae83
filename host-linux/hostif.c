/*
 * The host network as --net=host shows it to the guest: the host's
 * interfaces, addresses and routes, read once at boot through a
 * NETLINK_ROUTE socket (the dumps "ip link", "ip addr" and "ip route
 * show table all" print), before the lock-down forbids such a socket.
 *
 * Only what the kernel's tables hold is kept: the main and local routing
 * tables, single-path routes, and at most the tables' sizes of each
 * (more is left out, not an error).  Nothing the host says is trusted
 * further than a netlink reader must: every length is checked.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_arp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "vkern/net/net.h"
#include "vkern/platform_net.h"

typedef void (*hostif_fn)(struct netif_table *t, const struct nlmsghdr *h);

/* The attribute of type in the len bytes at rta, or NULL. */
static const struct rtattr *
hostif_attr(const struct rtattr *rta, size_t len, unsigned short type)
{
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == type)
			return rta;
	return NULL;
}

/* Copy attribute a (exactly n bytes long, or at most n with min) into p. */
static bool
hostif_copy(const struct rtattr *a, void *p, size_t min, size_t n)
{
	size_t len;

	if (a == NULL)
		return false;
	len = RTA_PAYLOAD(a);
	if (len < min || len > n)
		return false;
	memcpy(p, RTA_DATA(a), len);
	return true;
}

static uint32_t
hostif_u32(const struct rtattr *a, uint32_t dflt)
{
	uint32_t v;

	return hostif_copy(a, &v, sizeof(v), sizeof(v)) ? v : dflt;
}

static void
hostif_link(struct netif_table *t, const struct nlmsghdr *h)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	const struct rtattr *rta = IFLA_RTA(ifi);
	size_t len = IFLA_PAYLOAD(h);
	struct netif *nif;
	uint8_t oper = IF_OPER_UNKNOWN;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) || t->nif == NETIF_MAX)
		return;
	nif = &t->ifs[t->nif];
	memset(nif, 0, sizeof(*nif));
	/* A link without a name that fits is left out. */
	if (!hostif_copy(hostif_attr(rta, len, IFLA_IFNAME), nif->name, 1,
	    sizeof(nif->name)))
		return;
	nif->name[sizeof(nif->name) - 1] = '\0';
	nif->index = ifi->ifi_index;
	nif->flags = ifi->ifi_flags;
	nif->type = ifi->ifi_type;
	nif->mtu = hostif_u32(hostif_attr(rta, len, IFLA_MTU), 1500);
	nif->txqlen = hostif_u32(hostif_attr(rta, len, IFLA_TXQLEN), 0);
	(void)hostif_copy(hostif_attr(rta, len, IFLA_OPERSTATE), &oper, 1, 1);
	nif->operstate = oper;
	(void)hostif_copy(hostif_attr(rta, len, IFLA_ADDRESS), nif->hwaddr, 0,
	    sizeof(nif->hwaddr));
	(void)hostif_copy(hostif_attr(rta, len, IFLA_BROADCAST), nif->hwbrd, 0,
	    sizeof(nif->hwbrd));
	(void)hostif_copy(hostif_attr(rta, len, IFLA_QDISC), nif->qdisc, 1,
	    sizeof(nif->qdisc));
	nif->qdisc[sizeof(nif->qdisc) - 1] = '\0';
	if (nif->index > 0)
		t->nif++;
}

static void
hostif_addr(struct netif_table *t, const struct nlmsghdr *h)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);
	const struct rtattr *rta = IFA_RTA(ifa);
	size_t len = IFA_PAYLOAD(h), alen;
	const struct rtattr *local, *addr;
	struct netif_addr *a;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)) ||
	    t->naddr == NETIF_ADDR_MAX ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
		return;
	alen = ifa->ifa_family == AF_INET ? 4 : 16;
	a = &t->addrs[t->naddr];
	memset(a, 0, sizeof(*a));
	/* IPv4's own address is IFA_LOCAL (IFA_ADDRESS is a peer's). */
	local = hostif_attr(rta, len, IFA_LOCAL);
	addr = hostif_attr(rta, len, IFA_ADDRESS);
	if (!hostif_copy(local != NULL ? local : addr, a->addr, alen, alen) ||
	    ifa->ifa_prefixlen > alen * 8)
		return;
	a->ifindex = (int)ifa->ifa_index;
	a->family = ifa->ifa_family;
	a->prefixlen = ifa->ifa_prefixlen;
	a->scope = ifa->ifa_scope;
	a->flags = hostif_u32(hostif_attr(rta, len, IFA_FLAGS),
	    ifa->ifa_flags);
	if (a->family == AF_INET)
		(void)hostif_copy(hostif_attr(rta, len, IFA_BROADCAST),
		    a->broadcast, 4, 4);
	t->naddr++;
}

static void
hostif_route(struct netif_table *t, const struct nlmsghdr *h)
{
	const struct rtmsg *rtm = NLMSG_DATA(h);
	const struct rtattr *rta = RTM_RTA(rtm);
	size_t len = RTM_PAYLOAD(h), alen;
	struct netif_route *rt;
	uint32_t table;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)) ||
	    t->nroute == NETIF_ROUTE_MAX ||
	    (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) ||
	    hostif_attr(rta, len, RTA_MULTIPATH) != NULL)
		return;
	table = hostif_u32(hostif_attr(rta, len, RTA_TABLE), rtm->rtm_table);
	if (table != RT_TABLE_MAIN && table != RT_TABLE_LOCAL)
		return;
	alen = rtm->rtm_family == AF_INET ? 4 : 16;
	if (rtm->rtm_dst_len > alen * 8)
		return;
	rt = &t->routes[t->nroute];
	memset(rt, 0, sizeof(*rt));
	rt->family = rtm->rtm_family;
	rt->dst_len = rtm->rtm_dst_len;
	rt->table = (uint8_t)table;
	rt->type = rtm->rtm_type;
	rt->scope = rtm->rtm_scope;
	rt->protocol = rtm->rtm_protocol;
	if (rt->dst_len > 0 &&
	    !hostif_copy(hostif_attr(rta, len, RTA_DST), rt->dst, alen, alen))
		return;
	if (hostif_copy(hostif_attr(rta, len, RTA_PREFSRC), rt->prefsrc, alen,
	    alen))
		rt->prefsrc_len = (uint8_t)alen;
	if (hostif_copy(hostif_attr(rta, len, RTA_GATEWAY), rt->gw, alen,
	    alen))
		rt->gw_len = (uint8_t)alen;
	rt->oif = (int)hostif_u32(hostif_attr(rta, len, RTA_OIF), 0);
	rt->priority = hostif_u32(hostif_attr(rta, len, RTA_PRIORITY), 0);
	t->nroute++;
}

/*
 * One dump of type for family, each message handed to fn: 0, or -errno.
 * The answer is read to its NLMSG_DONE.
 */
static int
hostif_dump(int fd, uint16_t type, uint8_t family, size_t hdrlen,
    hostif_fn fn, struct netif_table *t)
{
	static uint32_t seq;
	struct {
		struct nlmsghdr h;
		struct rtgenmsg g;
		uint8_t pad[sizeof(struct ifinfomsg)];
	} req;
	static char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;

	memset(&req, 0, sizeof(req));
	/* Each dump's header is as long as its message kind's own. */
	req.h.nlmsg_len = (uint32_t)NLMSG_LENGTH(hdrlen);
	req.h.nlmsg_type = type;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = ++seq;
	req.g.rtgen_family = family;
	if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel,
	    sizeof(kernel)) < 0)
		return -errno;
	for (;;) {
		if ((n = recv(fd, buf, sizeof(buf), 0)) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		size_t len = (size_t)n;

		for (const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		    NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -EIO;
			fn(t, h);
		}
		if (n == 0)
			return -EIO;
	}
}

int
plat_net_describe(struct netif_table *t)
{
	int fd, r;

	memset(t, 0, sizeof(*t));
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if ((r = hostif_dump(fd, RTM_GETLINK, AF_UNSPEC,
	    sizeof(struct ifinfomsg), hostif_link, t)) == 0 &&
	    (r = hostif_dump(fd, RTM_GETADDR, AF_UNSPEC,
	    sizeof(struct ifaddrmsg), hostif_addr, t)) == 0)
		r = hostif_dump(fd, RTM_GETROUTE, AF_UNSPEC,
		    sizeof(struct rtmsg), hostif_route, t);
	close(fd);
	return r;
}
