/*
 * The guest's network as it is described to the guest: its interfaces,
 * their addresses and routes (the loopback "lo" only, with 127.0.0.1/8
 * and ::1/128, as in a new network namespace once lo is up; with
 * --net=host, the host's, as the host had them at start-up), the
 * settings of /proc/sys/net, and the sockets that exist, family by
 * family, for /proc/net and netlink.
 *
 * Nothing here moves data: the socket families do, and tell this module
 * only what it shows (netif_count_packet, the socket walkers).
 */
#ifndef VK_NET_NET_H
#define VK_NET_NET_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

/* An interface, as RTM_NEWLINK and /proc/net/dev show it. */
struct netif {
	int index;
	char name[16];           /* IFNAMSIZ, NUL-terminated */
	unsigned flags;          /* IFF_UP, IFF_LOOPBACK... */
	unsigned mtu;
	unsigned short type;     /* ARPHRD_LOOPBACK... */
	unsigned txqlen;
	uint8_t operstate;       /* IF_OPER_UNKNOWN... */
	uint8_t hwaddr[6];       /* all zero for lo */
	uint8_t hwbrd[6];        /* the link's broadcast: all zero for lo */
	char qdisc[16];          /* its queueing discipline; "": noqueue */
};

/* Its traffic, for /proc/net/dev and IFLA_STATS64. */
struct netif_stats {
	uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes;
};

/* An address of an interface, as RTM_NEWADDR and if_inet6 show it. */
struct netif_addr {
	int ifindex;
	int family;              /* AF_INET or AF_INET6 */
	uint8_t addr[16];        /* network order; 4 bytes for AF_INET */
	uint8_t prefixlen;
	uint8_t scope;           /* RT_SCOPE_HOST... */
	uint32_t flags;          /* IFA_F_PERMANENT... */
	uint8_t broadcast[4];    /* IPv4's, network order; 0.0.0.0: none */
};

/* A route, as RTM_NEWROUTE shows it. */
struct netif_route {
	int family;
	uint8_t dst[16];         /* network order */
	uint8_t dst_len;
	uint8_t table;           /* RT_TABLE_MAIN or RT_TABLE_LOCAL */
	uint8_t type;            /* RTN_UNICAST, RTN_LOCAL, RTN_BROADCAST */
	uint8_t scope;
	uint8_t prefsrc_len;     /* 0: no preferred source */
	uint8_t prefsrc[16];
	int oif;
	uint32_t priority;       /* the metric (IPv6's 256 for kernel routes) */
	uint8_t protocol;        /* RTPROT_*; 0 (RTPROT_UNSPEC): the kernel's */
	uint8_t gw_len;          /* 0: no gateway, else 4 or 16 */
	uint8_t gw[16];          /* the next hop, network order */
};

/*
 * The tables of another network the guest sees as its own (--net=host:
 * the host's), as the platform reads them once at start-up.  At most
 * NETIF_MAX interfaces, NETIF_ADDR_MAX addresses, NETIF_ROUTE_MAX routes
 * (the main and local tables); the rest is left out.
 */
#define NETIF_MAX 256
#define NETIF_ADDR_MAX 512
#define NETIF_ROUTE_MAX 1024
struct netif_table {
	struct netif ifs[NETIF_MAX];
	struct netif_addr addrs[NETIF_ADDR_MAX];
	struct netif_route routes[NETIF_ROUTE_MAX];
	size_t nif, naddr, nroute;
};

/*
 * With --net=host, take the host's tables in place of the loopback's;
 * kept as they are when the platform cannot read them.  Once, at boot.
 */
void netif_from_host(void);

/*
 * The tables, fixed for the sandbox's life once booted: index i from 0
 * while it returns non-NULL.  netif_by_index: the interface of that index or NULL.
 */
const struct netif *netif_at(size_t i);
const struct netif *netif_by_index(int index);
const struct netif_addr *netif_addr_at(size_t i);
const struct netif_route *netif_route_at(size_t i);

/*
 * The interface ioctls of netdevice(7) (SIOCGIFCONF, SIOCGIFFLAGS...) on
 * a socket of family, with the guest's argument: -ENOTTY for any other.
 */
struct thread;
long netif_ioctl(struct thread *td, int family, unsigned cmd, uint64_t arg);

/*
 * Traffic through interface ifindex: a packet of len bytes sent on lo,
 * which lo also receives.  For the socket families that carry data over
 * the loopback; unknown indexes are ignored.
 */
void netif_count_packet(int ifindex, size_t len);
struct netif_stats netif_stats_of(int ifindex);

/*
 * net.ipv4.ip_local_port_range: the ports an unbound inet socket is
 * given (32768-60999 by default, as Linux).  netif_set_port_range takes
 * a new range from /proc/sys/net: 0, or -EINVAL unless
 * NETIF_PORT_UNPRIV <= lo <= hi <= 65535, as Linux's
 * ipv4_local_port_range() wants it above net.ipv4.ip_unprivileged_port_start.
 */
#define NETIF_PORT_UNPRIV 1024
void netif_port_range(int *lo, int *hi);
int netif_set_port_range(int lo, int hi);

/*
 * One socket, as /proc/net/{tcp,tcp6,udp,udp6,unix} and sock_diag show
 * it.  A family's walker fills one per socket it has.
 */
struct net_sockinfo {
	int family;              /* AF_INET, AF_INET6, AF_UNIX */
	int type;                /* SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET */
	int protocol;            /* IPPROTO_TCP, IPPROTO_UDP; 0 for unix */
	/*
	 * TCP_* of <netinet/tcp.h>: TCP_LISTEN, TCP_ESTABLISHED, TCP_CLOSE
	 * (an unconnected datagram socket)...  A unix socket uses the same
	 * three.
	 */
	int state;
	union {
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} local, remote;         /* inet only; zero when unbound */
	const struct sockaddr_un *sun;   /* unix only: its name, or NULL */
	socklen_t sunlen;        /* the bytes of *sun that count */
	/*
	 * Bytes queued to send and to read; for a listener, its backlog and
	 * the connections waiting to be accepted, as Linux shows them.
	 */
	uint32_t txq, rxq;
	uint32_t uid;            /* its creator's */
	uint64_t ino;            /* the socket inode number fstat shows */
	uint64_t peer_ino;       /* unix only: its peer's, or 0 */
	int refs;
};

/*
 * Call fn for each socket of family that exists, until fn returns
 * non-zero (which is returned).  A family without a walker has none.
 * The info and what it points to are valid only during the call.
 */
typedef int (*net_sock_fn)(void *arg, const struct net_sockinfo *si);
int net_sock_walk(int family, net_sock_fn fn, void *arg);

/*
 * The walkers, one per family, in net_sock_walk's table (netif.c): a
 * family adds its own there.
 */
int usock_walk(net_sock_fn fn, void *arg);
int inet_walk4(net_sock_fn fn, void *arg);
int inet_walk6(net_sock_fn fn, void *arg);

#endif
