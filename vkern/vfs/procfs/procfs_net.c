/*
 * procfs's network files: /proc/net/{dev,if_inet6,route,tcp,tcp6,udp,
 * udp6,unix,sockstat,sockstat6,snmp} and
 * /proc/sys/net/ipv4/ip_local_port_range.
 *
 * Formats are Linux's (net/core/net-procfs.c, net/ipv6/addrconf.c,
 * net/ipv4/fib_trie.c, tcp_ipv4.c, tcp_ipv6.c, udp.c, ipv6/datagram.c,
 * unix/af_unix.c), padding included, because net-tools, iproute2's
 * fallbacks and language runtimes parse them.  Interfaces come from the
 * tables of vkern/net/netif.c; sockets from each family's walker
 * (net_sock_walk), so a family that has no walker shows no lines.
 * Kernel pointers read as zeros, as Linux shows them to the unprivileged.
 */
#include <errno.h>
#include <linux/route.h>
#include <linux/rtnetlink.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/net/net.h"
#include "vkern/vfs/procfs/procfs_impl.h"
#include "vkern/vk.h"

/* Pad the line begun at start with spaces to width - 1, then '\n'. */
static void
procfs_pad(struct sbuf *sb, size_t start, size_t width)
{
	while (sb->len - start < width - 1)
		sbuf_append(sb, " ", 1);
	sbuf_append(sb, "\n", 1);
}

int
procfs_gen_net_dev(const struct pfs_ctx *c, struct sbuf *sb)
{
	const struct netif *nif;

	sbuf_printf(sb, "Inter-|   Receive                            "
	    "                    |  Transmit\n"
	    " face |bytes    packets errs drop fifo frame compressed "
	    "multicast|bytes    packets errs drop fifo colls carrier "
	    "compressed\n");
	for (size_t i = 0; (nif = netif_at(i)) != NULL; i++) {
		struct netif_stats st = netif_stats_of(nif->index);

		sbuf_printf(sb, "%6s:%8llu %7llu    0    0    0     0          "
		    "0         0 %8llu %7llu    0    0    0     0       0      "
		    "    0\n", nif->name,
		    (unsigned long long)st.rx_bytes,
		    (unsigned long long)st.rx_packets,
		    (unsigned long long)st.tx_bytes,
		    (unsigned long long)st.tx_packets);
	}
	return 0;
}

int
procfs_gen_net_if_inet6(const struct pfs_ctx *c, struct sbuf *sb)
{
	const struct netif_addr *a;

	for (size_t i = 0; (a = netif_addr_at(i)) != NULL; i++) {
		const struct netif *nif = netif_by_index(a->ifindex);

		if (a->family != AF_INET6 || nif == NULL)
			continue;
		for (int b = 0; b < 16; b++)
			sbuf_printf(sb, "%02x", a->addr[b]);
		/*
		 * The scope column is IPv6's address type: 0x10 loopback,
		 * 0x20 link-local, 0x40 site-local, 0 global.
		 */
		sbuf_printf(sb, " %02x %02x %02x %02x %8s\n", a->ifindex,
		    a->prefixlen, a->scope == RT_SCOPE_HOST ? 0x10 :
		    a->scope == RT_SCOPE_LINK ? 0x20 :
		    a->scope == RT_SCOPE_SITE ? 0x40 : 0, a->flags, nif->name);
	}
	return 0;
}

/* An IPv4 address as /proc/net/route prints it: its 4 bytes, read LE. */
static uint32_t
procfs_route_word(const uint8_t *a)
{
	return (uint32_t)a[0] | (uint32_t)a[1] << 8 | (uint32_t)a[2] << 16 |
	    (uint32_t)a[3] << 24;
}

/*
 * The IPv4 main table's unicast routes (lo's are all in the local table,
 * so lo alone shows only the header, as Linux does).  Flags: RTF_UP,
 * RTF_GATEWAY with a next hop, RTF_HOST for a /32.
 */
int
procfs_gen_net_route(const struct pfs_ctx *c, struct sbuf *sb)
{
	const struct netif_route *rt;
	const struct netif *nif;
	size_t start = sb->len;
	uint8_t mask[4];

	sbuf_printf(sb, "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\t"
	    "Metric\tMask\t\tMTU\tWindow\tIRTT");
	procfs_pad(sb, start, 128);
	for (size_t i = 0; (rt = netif_route_at(i)) != NULL; i++) {
		if (rt->family != AF_INET || rt->table != RT_TABLE_MAIN ||
		    rt->type != RTN_UNICAST ||
		    (nif = netif_by_index(rt->oif)) == NULL)
			continue;
		for (int b = 0; b < 4; b++)
			mask[b] = (uint8_t)(rt->dst_len >= 8 * (b + 1) ? 0xff :
			    rt->dst_len <= 8 * b ? 0 :
			    0xff00 >> (rt->dst_len - 8 * b));
		start = sb->len;
		sbuf_printf(sb, "%s\t%08X\t%08X\t%04X\t0\t0\t%u\t%08X\t0\t0\t0",
		    nif->name, procfs_route_word(rt->dst),
		    rt->gw_len == 4 ? procfs_route_word(rt->gw) : 0,
		    RTF_UP | (rt->gw_len > 0 ? RTF_GATEWAY : 0) |
		    (rt->dst_len == 32 ? RTF_HOST : 0), rt->priority,
		    procfs_route_word(mask));
		procfs_pad(sb, start, 128);
	}
	return 0;
}

/* An address as Linux prints it: each 32-bit word in host order. */
static void
procfs_inet_addr(struct sbuf *sb, const uint8_t *a, int words, int port)
{
	for (int w = 0; w < words; w++) {
		uint32_t v;

		memcpy(&v, a + 4 * w, 4);
		sbuf_printf(sb, "%08X", v);
	}
	sbuf_printf(sb, ":%04X", port);
}

static const uint8_t *
procfs_sock_addr(const struct net_sockinfo *si, bool local, int *portp)
{
	const struct sockaddr_in *in = local ? &si->local.in : &si->remote.in;
	const struct sockaddr_in6 *in6 = local ? &si->local.in6 :
	    &si->remote.in6;

	if (si->family == AF_INET6) {
		*portp = ntohs(in6->sin6_port);
		return in6->sin6_addr.s6_addr;
	}
	*portp = ntohs(in->sin_port);
	return (const uint8_t *)&in->sin_addr.s_addr;
}

/* What a /proc/net/{tcp,udp}[6] walk looks for and where it is. */
struct procfs_inet_walk {
	struct sbuf *sb;
	int type;
	int n;
};

static int
procfs_inet_line(void *arg, const struct net_sockinfo *si)
{
	struct procfs_inet_walk *w = arg;
	struct sbuf *sb = w->sb;
	int words = si->family == AF_INET6 ? 4 : 1, lport, rport;
	const uint8_t *la = procfs_sock_addr(si, true, &lport);
	const uint8_t *ra = procfs_sock_addr(si, false, &rport);
	bool tcp = w->type == SOCK_STREAM;
	size_t start = sb->len;

	if (si->type != w->type)
		return 0;
	sbuf_printf(sb, tcp ? "%4d: " : "%5d: ", tcp ? w->n : lport);
	w->n++;
	procfs_inet_addr(sb, la, words, lport);
	sbuf_printf(sb, " ");
	procfs_inet_addr(sb, ra, words, rport);
	/* A listener's queue is its waiting connections; it sends nothing. */
	sbuf_printf(sb, " %02X %08X:%08X 00:00000000 00000000 %5u %8d "
	    "%llu %d 0000000000000000", si->state,
	    si->state == TCP_LISTEN ? 0 : si->txq, si->rxq, si->uid,
	    0, (unsigned long long)si->ino, si->refs);
	/* TCP: rto (1 s in clock ticks), ato, quick ack, cwnd, ssthresh. */
	if (tcp)
		sbuf_printf(sb, " 100 0 0 10 %d",
		    si->state == TCP_LISTEN ? 0 : -1);
	else
		sbuf_printf(sb, " 0");
	if (words == 1)
		procfs_pad(sb, start, tcp ? 150 : 128);
	else
		sbuf_append(sb, "\n", 1);
	return 0;
}

static int
procfs_gen_inet(struct sbuf *sb, int family, int type)
{
	struct procfs_inet_walk w = { .sb = sb, .type = type };
	bool tcp = type == SOCK_STREAM;
	size_t start = sb->len;

	if (family == AF_INET) {
		sbuf_printf(sb, "%s  sl  local_address rem_address   st "
		    "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
		    "inode%s", tcp ? "" : " ", tcp ? "" : " ref pointer drops");
		procfs_pad(sb, start, tcp ? 150 : 128);
	} else {
		sbuf_printf(sb, "  sl  local_address                         "
		    "remote_address                        st tx_queue rx_queue "
		    "tr tm->when retrnsmt   uid  timeout inode%s\n",
		    tcp ? "" : " ref pointer drops");
	}
	return net_sock_walk(family, procfs_inet_line, &w);
}

int
procfs_gen_net_tcp(const struct pfs_ctx *c, struct sbuf *sb)
{
	return procfs_gen_inet(sb, AF_INET, SOCK_STREAM);
}

int
procfs_gen_net_tcp6(const struct pfs_ctx *c, struct sbuf *sb)
{
	return procfs_gen_inet(sb, AF_INET6, SOCK_STREAM);
}

int
procfs_gen_net_udp(const struct pfs_ctx *c, struct sbuf *sb)
{
	return procfs_gen_inet(sb, AF_INET, SOCK_DGRAM);
}

int
procfs_gen_net_udp6(const struct pfs_ctx *c, struct sbuf *sb)
{
	return procfs_gen_inet(sb, AF_INET6, SOCK_DGRAM);
}

/*
 * The counts of sockstat and sockstat6, as Linux keeps them: a TCP
 * socket is in use once in a table (listening or connected), a UDP one
 * once bound; "alloc" counts every TCP socket of both families, "mem" the
 * pages their queued data takes.
 */
struct procfs_sockstat {
	int used, tcp, udp, tcp_alloc;
	uint64_t tcp_bytes, udp_bytes;
};

static int
procfs_sockstat_count(void *arg, const struct net_sockinfo *si)
{
	struct procfs_sockstat *st = arg;

	st->used++;
	if (si->protocol == IPPROTO_TCP) {
		st->tcp_alloc++;
		st->tcp += si->state != TCP_CLOSE;
		st->tcp_bytes += si->state == TCP_LISTEN ? 0 : si->rxq;
	} else if (si->protocol == IPPROTO_UDP) {
		st->udp += (si->family == AF_INET ? si->local.in.sin_port :
		    si->local.in6.sin6_port) != 0;
		st->udp_bytes += si->rxq;
	}
	return 0;
}

/* Counts of family's inet sockets; tcp_alloc over both families. */
static struct procfs_sockstat
procfs_sockstat(int family)
{
	struct procfs_sockstat st = { 0 }, other = { 0 };

	net_sock_walk(family, procfs_sockstat_count, &st);
	net_sock_walk(family == AF_INET ? AF_INET6 : AF_INET,
	    procfs_sockstat_count, &other);
	st.tcp_alloc += other.tcp_alloc;
	return st;
}

#define PROCFS_PAGES(b) (((b) + 4095) / 4096)

int
procfs_gen_net_sockstat(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct procfs_sockstat st = procfs_sockstat(AF_INET), un = { 0 };
	struct procfs_sockstat st6 = procfs_sockstat(AF_INET6);

	/* Every socket of the families that are walked. */
	net_sock_walk(AF_UNIX, procfs_sockstat_count, &un);
	sbuf_printf(sb, "sockets: used %d\n", st.used + st6.used + un.used);
	sbuf_printf(sb, "TCP: inuse %d orphan 0 tw 0 alloc %d mem %llu\n",
	    st.tcp, st.tcp_alloc, (unsigned long long)PROCFS_PAGES(
	    st.tcp_bytes + st6.tcp_bytes));
	sbuf_printf(sb, "UDP: inuse %d mem %llu\n", st.udp,
	    (unsigned long long)PROCFS_PAGES(st.udp_bytes + st6.udp_bytes));
	sbuf_printf(sb, "UDPLITE: inuse 0\nRAW: inuse 0\n"
	    "FRAG: inuse 0 memory 0\n");
	return 0;
}

int
procfs_gen_net_sockstat6(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct procfs_sockstat st6 = procfs_sockstat(AF_INET6);

	sbuf_printf(sb, "TCP6: inuse %d\nUDP6: inuse %d\nUDPLITE6: inuse 0\n"
	    "RAW6: inuse 0\nFRAG6: inuse 0 memory 0\n", st6.tcp, st6.udp);
	return 0;
}

static int
procfs_count_estab(void *arg, const struct net_sockinfo *si)
{
	*(int *)arg += si->protocol == IPPROTO_TCP &&
	    si->state == TCP_ESTABLISHED;
	return 0;
}

/*
 * The SNMP counters, in Linux's lines (a new namespace's: forwarding
 * off, TTL 64, TCP's RTO bounds in ms, no connection limit).  vkernel
 * keeps no packet counters: they read 0, but for TCP's CurrEstab, the
 * connections established now (IPv4's and IPv6's, as Linux's one MIB).
 */
int
procfs_gen_net_snmp(const struct pfs_ctx *c, struct sbuf *sb)
{
	int estab = 0;

	net_sock_walk(AF_INET, procfs_count_estab, &estab);
	net_sock_walk(AF_INET6, procfs_count_estab, &estab);
	sbuf_printf(sb, "Ip: Forwarding DefaultTTL InReceives InHdrErrors "
	    "InAddrErrors ForwDatagrams InUnknownProtos InDiscards InDelivers "
	    "OutRequests OutDiscards OutNoRoutes ReasmTimeout ReasmReqds "
	    "ReasmOKs ReasmFails FragOKs FragFails FragCreates OutTransmits\n"
	    "Ip: 2 64 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	sbuf_printf(sb, "Icmp: InMsgs InErrors InCsumErrors InDestUnreachs "
	    "InTimeExcds InParmProbs InSrcQuenchs InRedirects InEchos "
	    "InEchoReps InTimestamps InTimestampReps InAddrMasks "
	    "InAddrMaskReps OutMsgs OutErrors OutRateLimitGlobal "
	    "OutRateLimitHost OutDestUnreachs OutTimeExcds OutParmProbs "
	    "OutSrcQuenchs OutRedirects OutEchos OutEchoReps OutTimestamps "
	    "OutTimestampReps OutAddrMasks OutAddrMaskReps\n"
	    "Icmp: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	    "0\n");
	sbuf_printf(sb, "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens "
	    "PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs "
	    "RetransSegs InErrs OutRsts InCsumErrors\n"
	    "Tcp: 1 200 120000 -1 0 0 0 0 %d 0 0 0 0 0 0\n", estab);
	for (int lite = 0; lite < 2; lite++)
		sbuf_printf(sb, "%s: InDatagrams NoPorts InErrors OutDatagrams "
		    "RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti "
		    "MemErrors\n%s: 0 0 0 0 0 0 0 0 0\n",
		    lite ? "UdpLite" : "Udp", lite ? "UdpLite" : "Udp");
	return 0;
}

/* Linux's __SO_ACCEPTCON and socket states (SS_*), not in the UAPI. */
#define PROCFS_SO_ACCEPTCON (1 << 16)
#define PROCFS_SS_UNCONNECTED 1
#define PROCFS_SS_CONNECTED 3

static int
procfs_unix_line(void *arg, const struct net_sockinfo *si)
{
	struct sbuf *sb = arg;
	bool conn = si->type != SOCK_DGRAM && si->state == TCP_ESTABLISHED;

	sbuf_printf(sb, "0000000000000000: %08X 00000000 %08X %04X %02X %5llu",
	    si->refs, si->state == TCP_LISTEN ? PROCFS_SO_ACCEPTCON : 0,
	    si->type, conn ? PROCFS_SS_CONNECTED : PROCFS_SS_UNCONNECTED,
	    (unsigned long long)si->ino);
	if (si->sun != NULL) {
		const char *path = si->sun->sun_path;
		size_t n = si->sunlen > offsetof(struct sockaddr_un, sun_path) ?
		    si->sunlen - offsetof(struct sockaddr_un, sun_path) : 0;

		n = VK_MIN(n, sizeof(si->sun->sun_path));
		sbuf_append(sb, " ", 1);
		/* An abstract name shows its NULs as '@', the first too. */
		if (n > 0 && path[0] == '\0') {
			for (size_t i = 0; i < n; i++)
				sbuf_append(sb, path[i] == '\0' ? "@" : &path[i],
				    1);
		} else {
			sbuf_append(sb, path, strnlen(path, n));
		}
	}
	sbuf_append(sb, "\n", 1);
	return 0;
}

int
procfs_gen_net_unix(const struct pfs_ctx *c, struct sbuf *sb)
{
	sbuf_printf(sb, "Num       RefCount Protocol Flags    Type St Inode "
	    "Path\n");
	return net_sock_walk(AF_UNIX, procfs_unix_line, sb);
}

int
procfs_gen_port_range(const struct pfs_ctx *c, struct sbuf *sb)
{
	int lo, hi;

	netif_port_range(&lo, &hi);
	sbuf_printf(sb, "%d\t%d\n", lo, hi);
	return 0;
}

/*
 * One or two numbers, as Linux's proc_dointvec_minmax takes them (one
 * sets the low end alone): EINVAL for anything else or a range
 * netif_set_port_range refuses.
 */
long
procfs_write_port_range(const struct pfs_ctx *c, const char *buf,
    size_t len)
{
	char text[64], *end, *next;
	long lo, hi;
	int r, oldlo, oldhi;

	if (len >= sizeof(text))
		return -EINVAL;
	memcpy(text, buf, len);
	text[len] = '\0';
	netif_port_range(&oldlo, &oldhi);
	lo = strtol(text, &end, 10);
	if (end == text)
		return -EINVAL;
	hi = strtol(end, &next, 10);
	if (next == end)
		hi = oldhi;
	next += strspn(next, " \t\n");
	if (*next != '\0' || lo < 1 || lo > 65535 || hi < 1 || hi > 65535)
		return -EINVAL;
	if ((r = netif_set_port_range((int)lo, (int)hi)) < 0)
		return r;
	return (long)len;
}
