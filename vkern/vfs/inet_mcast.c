/*
 * Multicast options of UDP sockets, as ip(7) and ipv6(7) give them and
 * Linux checks them: IP_ADD_MEMBERSHIP and IP_DROP_MEMBERSHIP (struct
 * ip_mreq or ip_mreqn), IP_MULTICAST_IF (in_addr, ip_mreq or ip_mreqn),
 * IPV6_JOIN_GROUP and IPV6_LEAVE_GROUP, IPV6_MULTICAST_IF.
 *
 * The interface of a group is named by index, by one of its addresses
 * (any of 127.0.0.0/8 is lo's, as Linux's local route has it), or not at
 * all: then the route to the group picks it, and the guest's network has
 * none (ENODEV), as a network namespace with lo alone.  A socket keeps
 * its groups, at most IP_MAX_MEMBERSHIPS (net.ipv4.igmp_max_memberships)
 * of each family; joining one twice is EADDRINUSE, leaving one not
 * joined EADDRNOTAVAIL.  The groups are kept, not served: no datagram
 * goes to a group.
 */
#include <errno.h>
#include <string.h>
#include <netinet/in.h>

#include "vkern/net/net.h"
#include "vkern/vfs/inet_sock.h"

/* The interface that has IPv4 address a (network order), or 0. */
static int
mc_ifindex_of(uint32_t a)
{
	const struct netif_addr *ia;
	uint32_t mask, mine;

	for (size_t i = 0; (ia = netif_addr_at(i)) != NULL; i++) {
		if (ia->family != AF_INET)
			continue;
		memcpy(&mine, ia->addr, 4);
		mask = ia->prefixlen == 0 ? 0 :
		    __builtin_bswap32(~0u << (32 - ia->prefixlen));
		/* lo's whole prefix is local. */
		if (((a ^ mine) & mask) == 0)
			return ia->ifindex;
	}
	return 0;
}

static int
mc_find(const struct isock *is, int family, const uint8_t *group,
    int ifindex)
{
	for (int i = 0; i < is->nmc; i++)
		if (is->mc[i].family == family && (ifindex == 0 ||
		    is->mc[i].ifindex == ifindex) &&
		    memcmp(is->mc[i].group, group, family == AF_INET ? 4 :
		    16) == 0)
			return i;
	return -1;
}

static int
mc_count(const struct isock *is, int family)
{
	int n = 0;

	for (int i = 0; i < is->nmc; i++)
		n += is->mc[i].family == family;
	return n;
}

static int
mc_add(struct isock *is, int family, const uint8_t *group, int ifindex)
{
	if (mc_count(is, family) >= INET_MC_MAX)
		return -ENOBUFS;
	is->mc[is->nmc].family = family;
	is->mc[is->nmc].ifindex = ifindex;
	memcpy(is->mc[is->nmc].group, group, family == AF_INET ? 4 : 16);
	is->nmc++;
	return 0;
}

static void
mc_del(struct isock *is, int i)
{
	is->mc[i] = is->mc[--is->nmc];
}

/* An ip_mreq or ip_mreqn of len bytes, as ip_mreqn. */
static struct ip_mreqn
mc_mreqn(const void *val, socklen_t len)
{
	struct ip_mreqn m = { .imr_ifindex = 0 };

	memcpy(&m, val, len >= sizeof(m) ? sizeof(m) :
	    sizeof(struct ip_mreq));
	return m;
}

static int
mc_ip_member(struct isock *is, bool add, const void *val, socklen_t len)
{
	struct ip_mreqn m;
	int ifindex, i;

	if (len < sizeof(struct ip_mreq))
		return -EINVAL;
	m = mc_mreqn(val, len);
	if (m.imr_ifindex != 0)
		ifindex = netif_by_index(m.imr_ifindex) != NULL ?
		    m.imr_ifindex : 0;
	else
		ifindex = mc_ifindex_of(m.imr_address.s_addr);
	if (!add) {
		/* Named by an address no interface has: none matches. */
		if (ifindex == 0 && m.imr_ifindex == 0 &&
		    m.imr_address.s_addr == 0)
			return -ENODEV;
		if (ifindex == 0 || (i = mc_find(is, AF_INET,
		    (const uint8_t *)&m.imr_multiaddr, ifindex)) < 0)
			return -EADDRNOTAVAIL;
		mc_del(is, i);
		return 0;
	}
	if (!IN_MULTICAST(ntohl(m.imr_multiaddr.s_addr)))
		return -EINVAL;
	if (ifindex == 0)
		return -ENODEV;
	if (mc_find(is, AF_INET, (const uint8_t *)&m.imr_multiaddr,
	    ifindex) >= 0)
		return -EADDRINUSE;
	return mc_add(is, AF_INET, (const uint8_t *)&m.imr_multiaddr,
	    ifindex);
}

static int
mc_ip_if(struct isock *is, const void *val, socklen_t len)
{
	struct ip_mreqn m = { .imr_ifindex = 0 };
	int ifindex;

	if (len < sizeof(struct in_addr))
		return -EINVAL;
	if (len >= sizeof(struct ip_mreq))
		m = mc_mreqn(val, len);
	else
		memcpy(&m.imr_address, val, sizeof(m.imr_address));
	if (m.imr_ifindex == 0 && m.imr_address.s_addr == INADDR_ANY) {
		is->mc_addr = 0;
		is->mc_index = 0;
		return 0;
	}
	if (m.imr_ifindex != 0)
		ifindex = netif_by_index(m.imr_ifindex) != NULL ?
		    m.imr_ifindex : 0;
	else
		ifindex = mc_ifindex_of(m.imr_address.s_addr);
	if (ifindex == 0)
		return -EADDRNOTAVAIL;
	is->mc_index = ifindex;
	is->mc_addr = m.imr_address.s_addr;
	return 0;
}

static int
mc_ip6_member(struct isock *is, bool add, const void *val, socklen_t len)
{
	struct ipv6_mreq m;
	int i;

	if (len < sizeof(m))
		return -EINVAL;
	memcpy(&m, val, sizeof(m));
	if (m.ipv6mr_multiaddr.s6_addr[0] != 0xff)
		return -EINVAL;
	i = mc_find(is, AF_INET6, m.ipv6mr_multiaddr.s6_addr,
	    m.ipv6mr_interface);
	if (!add) {
		if (i < 0)
			return -EADDRNOTAVAIL;
		mc_del(is, i);
		return 0;
	}
	if (i >= 0)
		return -EADDRINUSE;
	if (m.ipv6mr_interface == 0 || netif_by_index(m.ipv6mr_interface) ==
	    NULL)
		return -ENODEV;
	return mc_add(is, AF_INET6, m.ipv6mr_multiaddr.s6_addr,
	    m.ipv6mr_interface);
}

int
mcast_setopt(struct isock *is, int level, int name, const void *val,
    socklen_t len)
{
	bool stream = is->u.sk.type == SOCK_STREAM;
	int v;

	if (level == IPPROTO_IP) {
		switch (name) {
		case IP_ADD_MEMBERSHIP:
		case IP_DROP_MEMBERSHIP:
			if (stream)
				return -EPROTO;
			return mc_ip_member(is, name == IP_ADD_MEMBERSHIP, val,
			    len);
		case IP_MULTICAST_IF:
			return mc_ip_if(is, val, len);
		}
		return 1;
	}
	if (level != IPPROTO_IPV6 || is->u.sk.family != AF_INET6)
		return 1;
	switch (name) {
	case IPV6_ADD_MEMBERSHIP:
	case IPV6_DROP_MEMBERSHIP:
		if (stream)
			return -EPROTO;
		return mc_ip6_member(is, name == IPV6_ADD_MEMBERSHIP, val, len);
	case IPV6_MULTICAST_IF:
		if (stream || len < sizeof(int))
			return -EINVAL;
		memcpy(&v, val, sizeof(v));
		if (v != 0 && netif_by_index(v) == NULL)
			return -ENODEV;
		is->mc6_index = v;
		return 0;
	}
	return 1;
}

int
mcast_getopt(struct isock *is, int level, int name, void *val,
    socklen_t *len)
{
	if (level == IPPROTO_IP && name == IP_MULTICAST_IF) {
		if (*len > sizeof(is->mc_addr))
			*len = sizeof(is->mc_addr);
		memcpy(val, &is->mc_addr, *len);
		return 0;
	}
	if (level == IPPROTO_IPV6 && name == IPV6_MULTICAST_IF &&
	    is->u.sk.family == AF_INET6)
		return sock_put_int(val, len, is->mc6_index);
	return 1;
}
