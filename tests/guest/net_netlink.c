/*
 * NETLINK_ROUTE sockets: socket(2)'s checks, bind and port ids, dumps of
 * links and addresses that show lo with 127.0.0.1/8 (and ::1/128 where
 * the host has IPv6), the libc functions built on them (getifaddrs,
 * if_nameindex, getaddrinfo with AI_ADDRCONFIG), and Linux's answers to
 * broken and refused requests: errors, acks, truncation, no reply at all;
 * RTM_GETROUTE of one address (ip route get) for lo's.
 * Run as root and as uid 65534; only what holds on any host is checked
 * (other interfaces may exist), and nothing here changes the network.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netdb.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "guest.h"

static uint32_t seq = 1;
static uint8_t buf[65536] __attribute__((aligned(4)));

static int
nl_open(void)
{
	return (int)CHECK_OK(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
	    NETLINK_ROUTE));
}

/* Send one request of type with body, to the kernel. */
static long
nl_send(int fd, int type, int flags, const void *body, size_t n)
{
	struct {
		struct nlmsghdr h;
		uint8_t body[128];
	} req;
	struct sockaddr_nl kern = { .nl_family = AF_NETLINK };

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = (uint32_t)NLMSG_LENGTH(n);
	req.h.nlmsg_type = (uint16_t)type;
	req.h.nlmsg_flags = (uint16_t)flags;
	req.h.nlmsg_seq = ++seq;
	memcpy(req.body, body, n);
	return sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kern,
	    sizeof(kern));
}

/* One datagram, without waiting long: its length, or -1 (errno). */
static long
nl_recv(int fd, int flags)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (!(flags & MSG_DONTWAIT) && poll(&p, 1, 5000) != 1)
		return -1;
	return recv(fd, buf, sizeof(buf), flags | MSG_DONTWAIT);
}

/* The errno an NLMSG_ERROR reply to the last request carries, or 1. */
static int
nl_error(int fd)
{
	long n = nl_recv(fd, 0);
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct nlmsgerr *e = NLMSG_DATA(h);

	if (!CHECK(n >= (long)NLMSG_LENGTH(sizeof(*e)), "error reply: %ld",
	    n))
		return 1;
	CHECK_EQ(h->nlmsg_type, NLMSG_ERROR);
	CHECK_EQ(h->nlmsg_seq, seq);
	CHECK_EQ(e->msg.nlmsg_seq, seq);
	return h->nlmsg_type == NLMSG_ERROR ? e->error : 1;
}

/* Runs a dump; calls fn on each message until NLMSG_DONE.  0 on success. */
static int
nl_dump(int fd, int type, int family,
    void (*fn)(const struct nlmsghdr *, void *), void *arg)
{
	struct rtgenmsg g = { .rtgen_family = (uint8_t)family };

	if (!CHECK_OK(nl_send(fd, type, NLM_F_REQUEST | NLM_F_DUMP, &g,
	    sizeof(g))))
		return -1;
	for (int dgrams = 0; dgrams < 1000; dgrams++) {
		long n = nl_recv(fd, 0);

		if (!CHECK(n > 0, "dump %d: recv %ld", type, n))
			return -1;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf;
		    NLMSG_OK(h, (unsigned long)n); h = NLMSG_NEXT(h, n)) {
			CHECK_EQ(h->nlmsg_seq, seq);
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (!CHECK(h->nlmsg_type != NLMSG_ERROR, "dump error"))
				return -1;
			CHECK(h->nlmsg_flags & NLM_F_MULTI, "multi");
			fn(h, arg);
		}
	}
	return -1;
}

struct seen {
	int lo_index;
	bool lo_up, lo4, lo6;
};

static void
on_link(const struct nlmsghdr *h, void *arg)
{
	struct seen *s = arg;
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	int len = (int)IFLA_PAYLOAD(h);

	CHECK_EQ(h->nlmsg_type, RTM_NEWLINK);
	for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len);
	    a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_IFNAME &&
		    strcmp(RTA_DATA(a), "lo") == 0) {
			s->lo_index = ifi->ifi_index;
			s->lo_up = (ifi->ifi_flags & (IFF_UP | IFF_LOOPBACK)) ==
			    (IFF_UP | IFF_LOOPBACK);
		}
	}
}

static void
on_addr(const struct nlmsghdr *h, void *arg)
{
	static const uint8_t lo6[16] = { [15] = 1 };
	struct seen *s = arg;
	struct ifaddrmsg *ifa = NLMSG_DATA(h);
	int len = (int)IFA_PAYLOAD(h);
	in_addr_t lo4 = htonl(INADDR_LOOPBACK);

	CHECK_EQ(h->nlmsg_type, RTM_NEWADDR);
	for (struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, len);
	    a = RTA_NEXT(a, len)) {
		if (a->rta_type != IFA_ADDRESS ||
		    (int)ifa->ifa_index != s->lo_index)
			continue;
		if (ifa->ifa_family == AF_INET && ifa->ifa_prefixlen == 8 &&
		    memcmp(RTA_DATA(a), &lo4, 4) == 0)
			s->lo4 = true;
		if (ifa->ifa_family == AF_INET6 && ifa->ifa_prefixlen == 128 &&
		    memcmp(RTA_DATA(a), lo6, 16) == 0)
			s->lo6 = true;
	}
}

/* Whether the host shows ::1 at all (IPv6 may be off natively). */
static bool
host_has_lo6(void)
{
	int fd = open("/proc/net/if_inet6", O_RDONLY);
	char t[4096];
	long n = fd >= 0 ? read(fd, t, sizeof(t) - 1) : -1;

	if (fd >= 0)
		close(fd);
	t[n > 0 ? n : 0] = '\0';
	return strstr(t, "00000000000000000000000000000001") != NULL;
}

static void
check_dumps(void)
{
	struct seen s = { .lo_index = -1 };
	int fd = nl_open();

	CHECK_EQ(nl_dump(fd, RTM_GETLINK, AF_UNSPEC, on_link, &s), 0);
	CHECK(s.lo_index > 0 && s.lo_up, "lo up: index %d", s.lo_index);
	CHECK_EQ(nl_dump(fd, RTM_GETADDR, AF_UNSPEC, on_addr, &s), 0);
	CHECK(s.lo4, "127.0.0.1/8 on lo");
	if (host_has_lo6())
		CHECK(s.lo6, "::1/128 on lo");
	/* A family's dump shows that family only. */
	s.lo4 = s.lo6 = false;
	CHECK_EQ(nl_dump(fd, RTM_GETADDR, AF_INET6, on_addr, &s), 0);
	CHECK(!s.lo4, "no IPv4 in an AF_INET6 dump");
	close(fd);
}

static void
check_libc(void)
{
	struct addrinfo hints = { .ai_flags = AI_ADDRCONFIG,
	    .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct if_nameindex *ni;
	struct ifaddrs *ifa = NULL;
	bool lo4 = false, found = false;

	if (CHECK_OK(getifaddrs(&ifa)) == 0) {
		for (struct ifaddrs *i = ifa; i != NULL; i = i->ifa_next)
			if (i->ifa_addr != NULL &&
			    i->ifa_addr->sa_family == AF_INET &&
			    strcmp(i->ifa_name, "lo") == 0 &&
			    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr
			    == htonl(INADDR_LOOPBACK))
				lo4 = true;
		freeifaddrs(ifa);
	}
	CHECK(lo4, "getifaddrs: lo has 127.0.0.1");
	if (CHECK((ni = if_nameindex()) != NULL, "if_nameindex")) {
		for (struct if_nameindex *i = ni; i->if_index != 0; i++)
			found |= strcmp(i->if_name, "lo") == 0;
		if_freenameindex(ni);
	}
	CHECK(found, "if_nameindex has lo");
#ifdef __GLIBC__
	/*
	 * glibc asks RTM_GETADDR which families have addresses; musl
	 * connects a UDP socket of each instead, which is no netlink matter.
	 */
	CHECK_EQ(getaddrinfo("localhost", "80", &hints, &ai), 0);
	if (ai != NULL)
		freeaddrinfo(ai);
	hints.ai_flags |= AI_NUMERICHOST;
	CHECK_EQ(getaddrinfo("127.0.0.1", "80", &hints, &ai), 0);
	if (ai != NULL)
		freeaddrinfo(ai);
#else
	(void)hints;
	(void)ai;
#endif
}

static void
check_socket_calls(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t len = sizeof(sa);
	int sv[2], fd;

	CHECK_ERR(socket(AF_NETLINK, SOCK_STREAM, NETLINK_ROUTE),
	    ESOCKTNOSUPPORT);
	CHECK_ERR(socket(AF_NETLINK, SOCK_RAW, 99), EPROTONOSUPPORT);
	CHECK_ERR(socket(AF_NETLINK, SOCK_RAW, -1), EPROTONOSUPPORT);
	CHECK_ERR(socketpair(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, sv),
	    EOPNOTSUPP);
	fd = nl_open();
	CHECK_OK(socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_ROUTE));
	/* Unbound: port 0. */
	CHECK_OK(getsockname(fd, (struct sockaddr *)&sa, &len));
	CHECK_EQ(len, sizeof(sa));
	CHECK_EQ(sa.nl_family, AF_NETLINK);
	CHECK_EQ(sa.nl_pid, 0);
	CHECK_ERR(bind(fd, (struct sockaddr *)&sa, sizeof(sa) - 1), EINVAL);
	sa.nl_family = AF_UNIX;
	CHECK_ERR(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), EINVAL);
	sa.nl_family = AF_NETLINK;
	CHECK_OK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	len = sizeof(sa);
	CHECK_OK(getsockname(fd, (struct sockaddr *)&sa, &len));
	CHECK(sa.nl_pid != 0, "a port id after bind");
	/* Bound: another port id is EINVAL, the same one is fine. */
	CHECK_OK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	sa.nl_pid++;
	CHECK_ERR(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), EINVAL);
	CHECK_ERR(listen(fd, 1), EOPNOTSUPP);
	CHECK_ERR(shutdown(fd, SHUT_RDWR), EOPNOTSUPP);
	close(fd);
}

static void
check_errors(void)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_index = 1 };
	struct nlmsghdr h = { .nlmsg_len = 16, .nlmsg_type = RTM_GETLINK,
	    .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK };
	struct sockaddr_nl nowhere = { .nl_family = AF_NETLINK,
	    .nl_pid = 0x7ffffff0 };
	int fd = nl_open(), one = 1, v = 0;
	socklen_t len = sizeof(v);

	/* Unknown types, single gets that find nothing or name nothing. */
	CHECK_OK(nl_send(fd, RTM_MAX + 1, NLM_F_REQUEST, &ifi, sizeof(ifi)));
	CHECK_EQ(nl_error(fd), -EOPNOTSUPP);
	ifi.ifi_index = 0x7ffffff0;
	CHECK_OK(nl_send(fd, RTM_GETLINK, NLM_F_REQUEST, &ifi, sizeof(ifi)));
	CHECK_EQ(nl_error(fd), -ENODEV);
	ifi.ifi_index = 0;
	CHECK_OK(nl_send(fd, RTM_GETLINK, NLM_F_REQUEST, &ifi, sizeof(ifi)));
	CHECK_EQ(nl_error(fd), -EINVAL);
	/* An error echoes the whole request; an ack only its header. */
	CHECK_EQ(((struct nlmsghdr *)buf)->nlmsg_len,
	    NLMSG_LENGTH(sizeof(int)) + NLMSG_LENGTH(sizeof(ifi)));
	if (geteuid() != 0) {
		CHECK_OK(nl_send(fd, RTM_NEWADDR, NLM_F_REQUEST, &ifa,
		    sizeof(ifa)));
		CHECK_EQ(nl_error(fd), -EPERM);
		CHECK_ERR(sendto(fd, &h, 16, 0, (struct sockaddr *)&nowhere,
		    sizeof(nowhere)), EPERM);
	} else {
		CHECK_ERR(sendto(fd, &h, 16, 0, (struct sockaddr *)&nowhere,
		    sizeof(nowhere)), ECONNREFUSED);
	}
	/* No family byte: nothing but the ack asked for. */
	h.nlmsg_seq = ++seq;
	CHECK_EQ(send(fd, &h, 16, 0), 16);
	CHECK_EQ(nl_error(fd), 0);
	CHECK_EQ(((struct nlmsghdr *)buf)->nlmsg_len, NLMSG_LENGTH(20));
	/* Short and overlong messages get no answer at all. */
	CHECK_EQ(send(fd, &h, 8, 0), 8);
	h.nlmsg_len = 4000;
	CHECK_EQ(send(fd, &h, 16, 0), 16);
	h.nlmsg_len = 8;
	CHECK_EQ(send(fd, &h, 16, 0), 16);
	/* An empty datagram is refused outright (Linux 6.x). */
	CHECK_ERR(send(fd, &h, 0, 0), ENODATA);
	CHECK_ERR(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	/* NETLINK_CAP_ACK: the error's echo is the header alone. */
	CHECK_OK(setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one,
	    sizeof(one)));
	CHECK_OK(getsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &v, &len));
	CHECK_EQ(v, 1);
	ifi.ifi_index = 0x7ffffff0;
	CHECK_OK(nl_send(fd, RTM_GETLINK, NLM_F_REQUEST, &ifi, sizeof(ifi)));
	CHECK_EQ(nl_error(fd), -ENODEV);
	CHECK_EQ(((struct nlmsghdr *)buf)->nlmsg_len, NLMSG_LENGTH(20));
	v = 0;
	CHECK_ERR(setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &v, 4),
	    EINVAL);
	v = RTNLGRP_LINK;
	CHECK_OK(setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &v, 4));
	CHECK_ERR(setsockopt(fd, SOL_NETLINK, 9999, &v, 4), ENOPROTOOPT);
	close(fd);
}

/*
 * An RTM_GETROUTE request of family for dst (alen bytes): the reply's
 * route type, or -errno.  rtm_src_len goes to *src_len, RTA_OIF to *oif.
 */
static int
route_get(int fd, int family, const void *dst, size_t alen, int *oif)
{
	struct {
		struct rtmsg r;
		struct rtattr a;
		uint8_t addr[16];
	} req = { .r = { .rtm_family = (uint8_t)family,
	    .rtm_dst_len = (uint8_t)(alen * 8) },
	    .a = { .rta_len = (unsigned short)RTA_LENGTH(alen),
	    .rta_type = RTA_DST } };
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct rtmsg *rm = NLMSG_DATA(h);
	long n, left;

	memcpy(req.addr, dst, alen);
	if (!CHECK_OK(nl_send(fd, RTM_GETROUTE, NLM_F_REQUEST, &req,
	    sizeof(req.r) + RTA_ALIGN(RTA_LENGTH(alen)))))
		return 1;
	n = nl_recv(fd, 0);
	if (!CHECK(n >= (long)NLMSG_LENGTH(sizeof(*rm)), "reply %ld", n))
		return 1;
	CHECK_EQ(h->nlmsg_seq, seq);
	if (h->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)rm)->error;
	CHECK_EQ(h->nlmsg_type, RTM_NEWROUTE);
	CHECK_EQ(rm->rtm_family, family);
	CHECK_EQ(rm->rtm_dst_len, alen * 8);
	*oif = 0;
	left = (long)RTM_PAYLOAD(h);
	for (struct rtattr *a = RTM_RTA(rm); RTA_OK(a, left);
	    a = RTA_NEXT(a, left))
		if (a->rta_type == RTA_OIF)
			memcpy(oif, RTA_DATA(a), sizeof(*oif));
	return rm->rtm_type;
}

/* ip route get: the loopback's addresses are lo's own. */
static void
check_route_get(void)
{
	struct in_addr lo4 = { htonl(INADDR_LOOPBACK) };
	struct in_addr bc = { htonl(0x7fffffff) };
	struct rtmsg r = { .rtm_family = AF_UNIX };
	int fd = nl_open(), oif = -1;

	CHECK_EQ(route_get(fd, AF_INET, &lo4, 4, &oif), RTN_LOCAL);
	CHECK_EQ(oif, 1);
	CHECK_EQ(route_get(fd, AF_INET, &bc, 4, &oif), RTN_BROADCAST);
	CHECK_EQ(route_get(fd, AF_INET6, &in6addr_loopback, 16, &oif),
	    RTN_LOCAL);
	CHECK_EQ(oif, 1);
	/* An address too short for its family. */
	CHECK_EQ(route_get(fd, AF_INET6, &lo4, 4, &oif), -EINVAL);
	/* The family first: one without routes, then a short header. */
	CHECK_OK(nl_send(fd, RTM_GETROUTE, NLM_F_REQUEST, &r, sizeof(r)));
	CHECK_EQ(nl_error(fd), -EOPNOTSUPP);
	r.rtm_family = AF_INET;
	CHECK_OK(nl_send(fd, RTM_GETROUTE, NLM_F_REQUEST, &r, 4));
	CHECK_EQ(nl_error(fd), -EINVAL);
	close(fd);
}

/* A datagram bigger than the buffer: MSG_TRUNC, and MSG_PEEK keeps it. */
static void
check_truncation(void)
{
	struct rtgenmsg g = { .rtgen_family = AF_UNSPEC };
	struct iovec iov = { buf, 16 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct sockaddr_nl from;
	int fd = nl_open();
	long whole;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	CHECK_EQ(poll(&p, 1, 0), 0);
	CHECK_OK(nl_send(fd, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, &g,
	    sizeof(g)));
	CHECK_EQ(poll(&p, 1, 5000), 1);
	CHECK(p.revents & POLLIN, "readable: %#x", p.revents);
	whole = recv(fd, buf, 16, MSG_PEEK | MSG_TRUNC);
	CHECK(whole > 16, "whole length %ld", whole);
	m.msg_name = &from;
	m.msg_namelen = sizeof(from);
	CHECK_EQ(recvmsg(fd, &m, 0), 16);
	CHECK(m.msg_flags & MSG_TRUNC, "MSG_TRUNC: %#x", m.msg_flags);
	CHECK_EQ(m.msg_namelen, sizeof(from));
	CHECK_EQ(from.nl_family, AF_NETLINK);
	CHECK_EQ(from.nl_pid, 0);
	/* The rest of that datagram is gone; what is left is the rest. */
	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	CHECK_ERR(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	close(fd);
}

static void
tests(void)
{
	check_socket_calls();
	check_dumps();
	check_libc();
	check_errors();
	check_route_get();
	check_truncation();
}

int
main(void)
{
	return guest_main_twice(tests);
}
