/*
 * Multicast options of UDP sockets with Linux's errnos: joining and
 * leaving IPv4 groups on lo by address and by index (ip_mreq, ip_mreqn),
 * twice (EADDRINUSE), not a group (EINVAL), no such interface (ENODEV),
 * not joined (EADDRNOTAVAIL), too short (EINVAL), on TCP (EPROTO), past
 * IP_MAX_MEMBERSHIPS (ENOBUFS); IP_MULTICAST_IF in its three forms,
 * IP_MULTICAST_TTL and IP_MULTICAST_LOOP as an int or one byte; the
 * IPv6 ones (IPV6_JOIN_GROUP, IPV6_LEAVE_GROUP, IPV6_MULTICAST_IF,
 * IPV6_MULTICAST_HOPS, IPV6_MULTICAST_LOOP).  Only cases that do not
 * depend on the host's routes: natively the host may have more
 * interfaces and a default route.  Run as root and as uid 65534.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "guest.h"

static struct ip_mreq
mreq(const char *group, const char *iface)
{
	struct ip_mreq m;

	m.imr_multiaddr.s_addr = inet_addr(group);
	m.imr_interface.s_addr = inet_addr(iface);
	return m;
}

static void
check_ip_members(int s)
{
	struct ip_mreq m = mreq("239.1.1.1", "127.0.0.1");
	struct ip_mreqn n = { .imr_ifindex = 1 };
	char big[64];
	int i;

	CHECK_OK(setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)));
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)),
	    EADDRINUSE);
	/* Any address of 127/8 names lo. */
	m = mreq("239.1.1.1", "127.0.0.9");
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)),
	    EADDRINUSE);
	memset(big, 0, sizeof(big));
	memcpy(big, &m, sizeof(m));
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, big,
	    sizeof(big)), EADDRINUSE);
	m = mreq("192.0.2.1", "127.0.0.1");
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)),
	    EINVAL);
	m = mreq("239.1.1.2", "192.0.2.77");
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)),
	    ENODEV);
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m,
	    sizeof(m) - 1), EINVAL);
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, (void *)16,
	    sizeof(m)), EFAULT);

	n.imr_multiaddr.s_addr = inet_addr("239.2.2.2");
	CHECK_OK(setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &n, sizeof(n)));
	n.imr_multiaddr.s_addr = inet_addr("239.3.3.3");
	for (int k = 0; k < 2; k++) {
		n.imr_ifindex = k == 0 ? -1 : 0x7fffffff;
		CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &n,
		    sizeof(n)), ENODEV);
	}

	m = mreq("239.9.9.9", "127.0.0.1");
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_DROP_MEMBERSHIP, &m, sizeof(m)),
	    EADDRNOTAVAIL);
	m = mreq("192.0.2.1", "127.0.0.1");
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_DROP_MEMBERSHIP, &m, sizeof(m)),
	    EADDRNOTAVAIL);
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_DROP_MEMBERSHIP, &m, 4), EINVAL);
	m = mreq("239.1.1.1", "127.0.0.1");
	CHECK_OK(setsockopt(s, IPPROTO_IP, IP_DROP_MEMBERSHIP, &m, sizeof(m)));
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_DROP_MEMBERSHIP, &m, sizeof(m)),
	    EADDRNOTAVAIL);
	n.imr_multiaddr.s_addr = inet_addr("239.2.2.2");
	n.imr_ifindex = 1;
	CHECK_OK(setsockopt(s, IPPROTO_IP, IP_DROP_MEMBERSHIP, &n, sizeof(n)));

	/* net.ipv4.igmp_max_memberships: 20 groups a socket. */
	for (i = 0; i < 20; i++) {
		char g[32];

		snprintf(g, sizeof(g), "239.4.4.%d", i);
		m = mreq(g, "127.0.0.1");
		CHECK_OK(setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m,
		    sizeof(m)));
	}
	m = mreq("239.4.5.5", "127.0.0.1");
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)),
	    ENOBUFS);
	i = 0;
	CHECK_ERR(getsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &i,
	    &(socklen_t){ 4 }), ENOPROTOOPT);
}

static void
check_ip_opts(int s, int tcp)
{
	struct in_addr a = { inet_addr("127.0.0.1") };
	struct ip_mreqn n = { .imr_ifindex = 1 };
	socklen_t len = sizeof(a);
	unsigned char c = 5;
	int v;

	CHECK_OK(setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &a, sizeof(a)));
	a.s_addr = 0;
	CHECK_OK(getsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &a, &len));
	CHECK_EQ(len, sizeof(a));
	CHECK_EQ(ntohl(a.s_addr), INADDR_LOOPBACK);
	a.s_addr = inet_addr("192.0.2.77");
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &a, sizeof(a)),
	    EADDRNOTAVAIL);
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &a, 3), EINVAL);
	CHECK_OK(setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &n, sizeof(n)));
	CHECK_OK(getsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &a, &len));
	CHECK_EQ(a.s_addr, 0);
	n.imr_ifindex = 0x7fffffff;
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &n, sizeof(n)),
	    EADDRNOTAVAIL);

	v = 256;
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_MULTICAST_TTL, &v, 4), EINVAL);
	CHECK_ERR(setsockopt(s, IPPROTO_IP, IP_MULTICAST_TTL, &v, 0), EINVAL);
	v = -1;
	CHECK_OK(setsockopt(s, IPPROTO_IP, IP_MULTICAST_TTL, &v, 4));
	len = 4;
	CHECK_OK(getsockopt(s, IPPROTO_IP, IP_MULTICAST_TTL, &v, &len));
	CHECK_EQ(v, 1);
	CHECK_OK(setsockopt(s, IPPROTO_IP, IP_MULTICAST_TTL, &c, 1));
	c = 0;
	len = 1;
	CHECK_OK(getsockopt(s, IPPROTO_IP, IP_MULTICAST_TTL, &c, &len));
	CHECK_EQ(c, 5);
	CHECK_EQ(len, 1);
	CHECK_OK(setsockopt(s, IPPROTO_IP, IP_MULTICAST_LOOP, &c, 1));
	v = 0;
	len = 4;
	CHECK_OK(getsockopt(s, IPPROTO_IP, IP_MULTICAST_LOOP, &v, &len));
	CHECK_EQ(v, 1);
	v = 1;
	CHECK_ERR(setsockopt(tcp, IPPROTO_IP, IP_MULTICAST_TTL, &v, 4), EINVAL);
}

static void
check_ip6(int s6, int s4, int tcp6)
{
	struct ipv6_mreq m;
	int v;

	inet_pton(AF_INET6, "ff02::1:3", &m.ipv6mr_multiaddr);
	m.ipv6mr_interface = 1;
	CHECK_OK(setsockopt(s6, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m, sizeof(m)));
	CHECK_ERR(setsockopt(s6, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m, sizeof(m)),
	    EADDRINUSE);
	CHECK_ERR(setsockopt(s6, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m,
	    sizeof(m) - 1), EINVAL);
	CHECK_ERR(setsockopt(tcp6, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m,
	    sizeof(m)), EPROTO);
	CHECK_ERR(setsockopt(s4, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m, sizeof(m)),
	    ENOPROTOOPT);
	m.ipv6mr_interface = 0x7fffffff;
	inet_pton(AF_INET6, "ff05::7", &m.ipv6mr_multiaddr);
	CHECK_ERR(setsockopt(s6, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m, sizeof(m)),
	    ENODEV);
	m.ipv6mr_interface = 1;
	inet_pton(AF_INET6, "::1", &m.ipv6mr_multiaddr);
	CHECK_ERR(setsockopt(s6, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m, sizeof(m)),
	    EINVAL);
	CHECK_ERR(setsockopt(s6, IPPROTO_IPV6, IPV6_LEAVE_GROUP, &m, sizeof(m)),
	    EINVAL);
	inet_pton(AF_INET6, "ff05::9", &m.ipv6mr_multiaddr);
	CHECK_ERR(setsockopt(s6, IPPROTO_IPV6, IPV6_LEAVE_GROUP, &m, sizeof(m)),
	    EADDRNOTAVAIL);
	inet_pton(AF_INET6, "ff02::1:3", &m.ipv6mr_multiaddr);
	CHECK_OK(setsockopt(s6, IPPROTO_IPV6, IPV6_LEAVE_GROUP, &m, sizeof(m)));
	CHECK_ERR(setsockopt(s6, IPPROTO_IPV6, IPV6_LEAVE_GROUP, &m, sizeof(m)),
	    EADDRNOTAVAIL);

	v = 1;
	CHECK_OK(setsockopt(s6, IPPROTO_IPV6, IPV6_MULTICAST_IF, &v, 4));
	CHECK_ERR(setsockopt(s6, IPPROTO_IPV6, IPV6_MULTICAST_IF, &v, 2),
	    EINVAL);
	v = -1;
	CHECK_ERR(setsockopt(s6, IPPROTO_IPV6, IPV6_MULTICAST_IF, &v, 4),
	    ENODEV);
	v = 0x7fffffff;
	CHECK_ERR(setsockopt(s6, IPPROTO_IPV6, IPV6_MULTICAST_IF, &v, 4),
	    ENODEV);
	v = 0;
	CHECK_OK(getsockopt(s6, IPPROTO_IPV6, IPV6_MULTICAST_IF, &v,
	    &(socklen_t){ 4 }));
	CHECK_EQ(v, 1);
	v = 256;
	CHECK_ERR(setsockopt(s6, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &v, 4),
	    EINVAL);
	v = 2;
	CHECK_ERR(setsockopt(s6, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &v, 4),
	    EINVAL);
}

static void
tests(void)
{
	int s = CHECK_OK(socket(AF_INET, SOCK_DGRAM, 0));
	int s6 = CHECK_OK(socket(AF_INET6, SOCK_DGRAM, 0));
	int tcp = CHECK_OK(socket(AF_INET, SOCK_STREAM, 0));
	int tcp6 = CHECK_OK(socket(AF_INET6, SOCK_STREAM, 0));
	struct ip_mreq m = mreq("239.1.1.1", "127.0.0.1");

	CHECK_ERR(setsockopt(tcp, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m,
	    sizeof(m)), EPROTO);
	check_ip_members(s);
	check_ip_opts(s, tcp);
	/* An IPv6 socket joins IPv4 groups too. */
	CHECK_OK(setsockopt(s6, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)));
	check_ip6(s6, s, tcp6);
	close(s);
	close(s6);
	close(tcp);
	close(tcp6);
}

int
main(void)
{
	return guest_main_twice(tests);
}
