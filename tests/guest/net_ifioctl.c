/*
 * The interface ioctls of netdevice(7) on lo, through sockets of each
 * family: names and indexes, flags, MTU, hardware address, queue length,
 * the IPv4 address ioctls (AF_INET sockets only: ENOTTY on the others),
 * SIOCGIFCONF with its length query and short buffers, and Linux's
 * errnos for unknown names and indexes, bad pointers, unknown and
 * driver-private requests.  Sets need CAP_NET_ADMIN: uid 65534 gets
 * EPERM; root may "set" lo's flags to what they are.  Run natively (the
 * host's lo) and inside (the sandbox's), with the same results.
 */
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "guest.h"

#define BAD_PTR ((void *)16)

static const int families[][3] = {
	{ AF_INET, SOCK_DGRAM, 0 },
	{ AF_INET, SOCK_STREAM, 0 },
	{ AF_INET6, SOCK_DGRAM, 0 },
	{ AF_UNIX, SOCK_STREAM, 0 },
	{ AF_NETLINK, SOCK_RAW, NETLINK_ROUTE },
};

static struct ifreq
req(const char *name)
{
	struct ifreq r;

	memset(&r, 0, sizeof(r));
	strncpy(r.ifr_name, name, IFNAMSIZ - 1);
	return r;
}

static const char *
inet_of(const struct sockaddr *sa)
{
	return inet_ntoa(((const struct sockaddr_in *)(const void *)sa)->sin_addr);
}

/* What every family's socket answers for lo. */
static void
check_device(int s, int family)
{
	struct ifreq r = req("lo");
	int index;

	if (!CHECK_OK(ioctl(s, SIOCGIFINDEX, &r)))
		return;
	index = r.ifr_ifindex;
	CHECK(index > 0 && (unsigned)index == if_nametoindex("lo"),
	    "family %d: lo's index %d", family, index);
	r = req("");
	r.ifr_ifindex = index;
	CHECK_OK(ioctl(s, SIOCGIFNAME, &r));
	CHECK(strcmp(r.ifr_name, "lo") == 0, "SIOCGIFNAME: '%s'", r.ifr_name);

	r = req("lo");
	CHECK_OK(ioctl(s, SIOCGIFFLAGS, &r));
	CHECK((r.ifr_flags & (IFF_UP | IFF_LOOPBACK | IFF_RUNNING)) ==
	    (IFF_UP | IFF_LOOPBACK | IFF_RUNNING), "lo's flags %#x",
	    (unsigned)r.ifr_flags);
	r = req("lo");
	CHECK_OK(ioctl(s, SIOCGIFMTU, &r));
	CHECK(r.ifr_mtu >= 1280, "lo's MTU %d", r.ifr_mtu);
	r = req("lo");
	memset(r.ifr_hwaddr.sa_data, 0x55, sizeof(r.ifr_hwaddr.sa_data));
	CHECK_OK(ioctl(s, SIOCGIFHWADDR, &r));
	CHECK_EQ(r.ifr_hwaddr.sa_family, ARPHRD_LOOPBACK);
	CHECK(all_byte(r.ifr_hwaddr.sa_data, 6, 0), "lo's address is zeros");
	r = req("lo");
	r.ifr_qlen = -5;
	CHECK_OK(ioctl(s, SIOCGIFTXQLEN, &r));
	CHECK(r.ifr_qlen >= 0, "txqueuelen %d", r.ifr_qlen);
	r = req("lo");
	r.ifr_metric = 7;
	CHECK_OK(ioctl(s, SIOCGIFMETRIC, &r));
	CHECK_EQ(r.ifr_metric, 0);
	r = req("lo");
	CHECK_OK(ioctl(s, SIOCGIFMAP, &r));

	/* The IPv4 address ioctls are AF_INET's alone. */
	r = req("lo");
	if (family != AF_INET) {
		CHECK_ERR(ioctl(s, SIOCGIFADDR, &r), ENOTTY);
		CHECK_ERR(ioctl(s, SIOCGIFNETMASK, &r), ENOTTY);
		CHECK_ERR(ioctl(s, SIOCGIFPFLAGS, &r), ENOTTY);
		return;
	}
	CHECK_OK(ioctl(s, SIOCGIFADDR, &r));
	CHECK_EQ(r.ifr_addr.sa_family, AF_INET);
	CHECK(strcmp(inet_of(&r.ifr_addr), "127.0.0.1") == 0, "address %s",
	    inet_of(&r.ifr_addr));
	r = req("lo");
	CHECK_OK(ioctl(s, SIOCGIFNETMASK, &r));
	CHECK(strcmp(inet_of(&r.ifr_netmask), "255.0.0.0") == 0, "mask %s",
	    inet_of(&r.ifr_netmask));
	r = req("lo");
	CHECK_OK(ioctl(s, SIOCGIFBRDADDR, &r));
	CHECK(strcmp(inet_of(&r.ifr_broadaddr), "0.0.0.0") == 0,
	    "broadcast %s", inet_of(&r.ifr_broadaddr));
	r = req("lo");
	CHECK_OK(ioctl(s, SIOCGIFDSTADDR, &r));
	CHECK(strcmp(inet_of(&r.ifr_dstaddr), "127.0.0.1") == 0, "peer %s",
	    inet_of(&r.ifr_dstaddr));
	CHECK_ERR(ioctl(s, SIOCGIFPFLAGS, &r), EINVAL);
}

static void
check_ifconf(int s)
{
	struct ifreq rs[16];
	struct ifconf ic;
	int n, lo = 0;

	memset(&ic, 0, sizeof(ic));
	/* No buffer: the length that would be needed. */
	CHECK_OK(ioctl(s, SIOCGIFCONF, &ic));
	CHECK(ic.ifc_len >= (int)sizeof(struct ifreq) &&
	    ic.ifc_len % (int)sizeof(struct ifreq) == 0, "needed %d",
	    ic.ifc_len);
	ic.ifc_len = sizeof(rs);
	ic.ifc_req = rs;
	CHECK_OK(ioctl(s, SIOCGIFCONF, &ic));
	n = ic.ifc_len / (int)sizeof(struct ifreq);
	CHECK(n >= 1 && ic.ifc_len % (int)sizeof(struct ifreq) == 0,
	    "filled %d", ic.ifc_len);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(rs[i].ifr_addr.sa_family, AF_INET);
		if (strcmp(rs[i].ifr_name, "lo") == 0 &&
		    strcmp(inet_of(&rs[i].ifr_addr), "127.0.0.1") == 0)
			lo++;
	}
	CHECK_EQ(lo, 1);
	/* Room for less than one: none, and a length of 0. */
	ic.ifc_len = sizeof(struct ifreq) - 1;
	CHECK_OK(ioctl(s, SIOCGIFCONF, &ic));
	CHECK_EQ(ic.ifc_len, 0);
	ic.ifc_len = -1;
	CHECK_OK(ioctl(s, SIOCGIFCONF, &ic));
	CHECK_EQ(ic.ifc_len, 0);
	ic.ifc_len = sizeof(rs);
	ic.ifc_req = BAD_PTR;
	CHECK_ERR(ioctl(s, SIOCGIFCONF, &ic), EFAULT);
	CHECK_ERR(ioctl(s, SIOCGIFCONF, BAD_PTR), EFAULT);
}

static void
check_errors(int s)
{
	struct ifreq r = req("nosuch0");

	CHECK_ERR(ioctl(s, SIOCGIFFLAGS, &r), ENODEV);
	CHECK_ERR(ioctl(s, SIOCGIFINDEX, &r), ENODEV);
	/* A name that fills the field is cut to fit, not read past. */
	memset(r.ifr_name, 'l', sizeof(r.ifr_name));
	CHECK_ERR(ioctl(s, SIOCGIFMTU, &r), ENODEV);
	r = req("");
	r.ifr_ifindex = 999999;
	CHECK_ERR(ioctl(s, SIOCGIFNAME, &r), ENODEV);
	r.ifr_ifindex = -1;
	CHECK_ERR(ioctl(s, SIOCGIFNAME, &r), ENODEV);
	CHECK_ERR(ioctl(s, SIOCGIFFLAGS, BAD_PTR), EFAULT);
	CHECK_ERR(ioctl(s, SIOCGIFNAME, BAD_PTR), EFAULT);
	r = req("lo");
	CHECK_ERR(ioctl(s, SIOCGIFCOUNT, &r), ENOTTY);
	CHECK_ERR(ioctl(s, SIOCDEVPRIVATE, &r), EOPNOTSUPP);
	CHECK_ERR(ioctl(s, SIOCDEVPRIVATE + 15, &r), EOPNOTSUPP);
	CHECK_ERR(ioctl(s, SIOCGIFSLAVE, &r), EINVAL);
}

/* Sets: EPERM without CAP_NET_ADMIN, before the name is looked at. */
static void
check_sets_unprivileged(const void *arg)
{
	(void)arg;
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		int s = socket(families[f][0], families[f][1], families[f][2]);
		struct ifreq r = req("lo");

		if (!CHECK(s >= 0, "socket %zu", f))
			continue;
		CHECK_OK(ioctl(s, SIOCGIFFLAGS, &r));
		CHECK_ERR(ioctl(s, SIOCSIFFLAGS, &r), EPERM);
		r = req("nosuch0");
		CHECK_ERR(ioctl(s, SIOCSIFMTU, &r), EPERM);
		if (families[f][0] == AF_INET) {
			r = req("lo");
			r.ifr_addr.sa_family = AF_INET;
			CHECK_ERR(ioctl(s, SIOCSIFADDR, &r), EPERM);
		}
		close(s);
	}
}

int
main(void)
{
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		int s = socket(families[f][0], families[f][1], families[f][2]);

		if (!CHECK(s >= 0, "socket %zu: %s", f, strerror(errno)))
			continue;
		check_device(s, families[f][0]);
		check_ifconf(s);
		check_errors(s);
		if (getuid() == 0) {
			/* Root "sets" lo's flags to what they are. */
			struct ifreq r = req("lo");

			CHECK_OK(ioctl(s, SIOCGIFFLAGS, &r));
			CHECK_OK(ioctl(s, SIOCSIFFLAGS, &r));
			r = req("nosuch0");
			CHECK_ERR(ioctl(s, SIOCSIFFLAGS, &r), ENODEV);
		}
		close(s);
	}
	guest_as_nobody(check_sets_unprivileged, NULL);
	return guest_done();
}
