/*
 * The guest's interfaces: see net.h.
 *
 * The tables are what Linux has in a new network namespace once "lo" is
 * up (ip link set lo up): the interface, its two addresses, and the
 * local table's routes for them.  Linux 6.x keeps no ::1 route in the
 * main table, so "ip route" and "ip -6 route" print nothing there either.
 * With --net=host they are the host's instead, read once at boot: what
 * the guest's sockets reach is then the host's network, and programs
 * that look at the interfaces first (glibc's AI_ADDRCONFIG) must see it.
 */
#include <errno.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_arp.h>
#include <linux/rtnetlink.h>

#include "vkern/net/net.h"
#include "vkern/platform_net.h"
#include "vkern/vfs/inet_sock.h"
#include "vkern/vk.h"

#define LO_INDEX 1

static const struct netif lo_ifs[] = {
	{
		.index = LO_INDEX,
		.name = "lo",
		.flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING | IFF_LOWER_UP,
		.mtu = 65536,
		.type = ARPHRD_LOOPBACK,
		.txqlen = 1000,
		.operstate = IF_OPER_UNKNOWN,
	},
};

#define LO4 { 127, 0, 0, 1 }
#define LO6 { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 }

static const struct netif_addr lo_addrs[] = {
	{ .ifindex = LO_INDEX, .family = AF_INET, .addr = LO4,
	    .prefixlen = 8, .scope = RT_SCOPE_HOST, .flags = IFA_F_PERMANENT },
	{ .ifindex = LO_INDEX, .family = AF_INET6, .addr = LO6,
	    .prefixlen = 128, .scope = RT_SCOPE_HOST,
	    .flags = IFA_F_PERMANENT },
};

static const struct netif_route lo_routes[] = {
	{ .family = AF_INET, .dst = { 127 }, .dst_len = 8,
	    .table = RT_TABLE_LOCAL, .type = RTN_LOCAL, .scope = RT_SCOPE_HOST,
	    .prefsrc_len = 4, .prefsrc = LO4, .oif = LO_INDEX },
	{ .family = AF_INET, .dst = LO4, .dst_len = 32,
	    .table = RT_TABLE_LOCAL, .type = RTN_LOCAL, .scope = RT_SCOPE_HOST,
	    .prefsrc_len = 4, .prefsrc = LO4, .oif = LO_INDEX },
	{ .family = AF_INET, .dst = { 127, 255, 255, 255 }, .dst_len = 32,
	    .table = RT_TABLE_LOCAL, .type = RTN_BROADCAST,
	    .scope = RT_SCOPE_LINK, .prefsrc_len = 4, .prefsrc = LO4,
	    .oif = LO_INDEX },
	{ .family = AF_INET6, .dst = LO6, .dst_len = 128,
	    .table = RT_TABLE_LOCAL, .type = RTN_LOCAL,
	    .scope = RT_SCOPE_UNIVERSE, .oif = LO_INDEX },
};

static const struct netif *netifs = lo_ifs;
static const struct netif_addr *netif_addrs = lo_addrs;
static const struct netif_route *netif_routes = lo_routes;
static size_t nnetifs = VK_NELEM(lo_ifs);
static size_t nnetif_addrs = VK_NELEM(lo_addrs);
static size_t nnetif_routes = VK_NELEM(lo_routes);
static struct netif_stats netif_stats[NETIF_MAX];

void
netif_from_host(void)
{
	static struct netif_table host;

	if (plat_net_describe(&host) < 0 || host.nif == 0 ||
	    host.nif > NETIF_MAX || host.naddr > NETIF_ADDR_MAX ||
	    host.nroute > NETIF_ROUTE_MAX)
		return;
	netifs = host.ifs;
	nnetifs = host.nif;
	netif_addrs = host.addrs;
	nnetif_addrs = host.naddr;
	netif_routes = host.routes;
	nnetif_routes = host.nroute;
}

const struct netif *
netif_at(size_t i)
{
	return i < nnetifs ? &netifs[i] : NULL;
}

const struct netif *
netif_by_index(int index)
{
	for (size_t i = 0; i < nnetifs; i++)
		if (netifs[i].index == index)
			return &netifs[i];
	return NULL;
}

const struct netif_addr *
netif_addr_at(size_t i)
{
	return i < nnetif_addrs ? &netif_addrs[i] : NULL;
}

const struct netif_route *
netif_route_at(size_t i)
{
	return i < nnetif_routes ? &netif_routes[i] : NULL;
}

/*
 * Only the loopback's own traffic is counted: what goes through host
 * sockets is the host's to count, and the guest cannot see those counts.
 */
void
netif_count_packet(int ifindex, size_t len)
{
	for (size_t i = 0; i < nnetifs; i++) {
		if (netifs[i].index != ifindex)
			continue;
		netif_stats[i].tx_packets++;
		netif_stats[i].tx_bytes += len;
		/* What lo sends, it receives. */
		netif_stats[i].rx_packets++;
		netif_stats[i].rx_bytes += len;
	}
}

struct netif_stats
netif_stats_of(int ifindex)
{
	for (size_t i = 0; i < nnetifs; i++)
		if (netifs[i].index == ifindex)
			return netif_stats[i];
	return (struct netif_stats){ 0 };
}

/* The range lives with the inet family, which picks ports from it. */
void
netif_port_range(int *lo, int *hi)
{
	*lo = inet_port_range[0];
	*hi = inet_port_range[1];
}

int
netif_set_port_range(int lo, int hi)
{
	if (lo < NETIF_PORT_UNPRIV || hi > 65535 || lo > hi)
		return -EINVAL;
	inet_port_range[0] = lo;
	inet_port_range[1] = hi;
	return 0;
}

/* Each family's walker over its sockets; a family adds its row. */
static int (*const net_sock_walkers[AF_MAX])(net_sock_fn, void *) = {
	[AF_UNIX] = usock_walk,
	[AF_INET] = inet_walk4,
	[AF_INET6] = inet_walk6,
};

int
net_sock_walk(int family, net_sock_fn fn, void *arg)
{
	if (family < 0 || family >= AF_MAX || net_sock_walkers[family] == NULL)
		return 0;
	return net_sock_walkers[family](fn, arg);
}
