/*
 * The interface ioctls of netdevice(7) on sockets of every family that
 * has them: SIOCGIFCONF (and its NULL-buffer length query), the device
 * gets on "lo" (flags, index, name, MTU, hardware address, queue length,
 * metric), the IPv4 address gets that only AF_INET answers (ENOTTY
 * elsewhere), ENODEV for unknown names and indexes, EFAULT for bad
 * pointers, and the sets: EPERM for uid 65534 before anything else,
 * Linux's own checks for root.  Natively the host may have more
 * interfaces than lo; only lo's answers are compared, and root sets
 * nothing but what lo already has.  Run as root and as uid 65534.
 */
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "guest.h"

#define BAD_PTR ((void *)16)

static const struct {
	int af, type;
} socks[] = {
	{ AF_INET, SOCK_DGRAM }, { AF_INET, SOCK_STREAM },
	{ AF_INET6, SOCK_DGRAM }, { AF_INET6, SOCK_STREAM },
	{ AF_UNIX, SOCK_DGRAM }, { AF_NETLINK, SOCK_RAW },
};

static void
name_req(struct ifreq *ifr, const char *name)
{
	memset(ifr, 0xaa, sizeof(*ifr));
	memset(ifr->ifr_name, 0, sizeof(ifr->ifr_name));
	strcpy(ifr->ifr_name, name);
}

/* cmd on an ifreq naming lo. */
static int
lo_ioctl(int fd, unsigned long cmd, struct ifreq *ifr)
{
	name_req(ifr, "lo");
	return ioctl(fd, cmd, ifr);
}

static uint32_t
sin_addr(const struct sockaddr *sa)
{
	struct sockaddr_in sin;

	memcpy(&sin, sa, sizeof(sin));
	CHECK_EQ(sin.sin_family, AF_INET);
	return ntohl(sin.sin_addr.s_addr);
}

static void
check_ifconf(int fd)
{
	struct ifreq req[16];
	struct ifconf ifc = { .ifc_len = 0, .ifc_buf = NULL };
	int need, i;
	bool lo = false;

	CHECK_OK(ioctl(fd, SIOCGIFCONF, &ifc));
	need = ifc.ifc_len;
	CHECK(need >= (int)sizeof(struct ifreq) &&
	    need % (int)sizeof(struct ifreq) == 0, "length query %d", need);
	ifc.ifc_len = 12345;
	CHECK_OK(ioctl(fd, SIOCGIFCONF, &ifc));
	CHECK_EQ(ifc.ifc_len, need);

	memset(req, 0xaa, sizeof(req));
	ifc.ifc_req = req;
	ifc.ifc_len = sizeof(req);
	CHECK_OK(ioctl(fd, SIOCGIFCONF, &ifc));
	CHECK_EQ(ifc.ifc_len, need);
	for (i = 0; i < ifc.ifc_len / (int)sizeof(req[0]); i++)
		if (strcmp(req[i].ifr_name, "lo") == 0) {
			lo = true;
			CHECK_EQ(sin_addr(&req[i].ifr_addr), INADDR_LOOPBACK);
		}
	CHECK(lo, "lo not listed");

	/* Room for less than one entry: none, and no error. */
	ifc.ifc_len = sizeof(struct ifreq) - 1;
	CHECK_OK(ioctl(fd, SIOCGIFCONF, &ifc));
	CHECK_EQ(ifc.ifc_len, 0);
	ifc.ifc_len = -5;
	CHECK_OK(ioctl(fd, SIOCGIFCONF, &ifc));
	CHECK_EQ(ifc.ifc_len, 0);
	ifc.ifc_len = sizeof(req);
	ifc.ifc_buf = BAD_PTR;
	CHECK_ERR(ioctl(fd, SIOCGIFCONF, &ifc), EFAULT);
	CHECK_ERR(ioctl(fd, SIOCGIFCONF, BAD_PTR), EFAULT);
}

static void
check_dev_gets(int fd)
{
	struct ifreq ifr;
	static const unsigned char zero[6];

	CHECK_OK(lo_ioctl(fd, SIOCGIFFLAGS, &ifr));
	CHECK_EQ(ifr.ifr_flags & (IFF_UP | IFF_LOOPBACK | IFF_RUNNING),
	    IFF_UP | IFF_LOOPBACK | IFF_RUNNING);
	CHECK_OK(lo_ioctl(fd, SIOCGIFINDEX, &ifr));
	CHECK_EQ(ifr.ifr_ifindex, 1);
	CHECK_OK(lo_ioctl(fd, SIOCGIFMTU, &ifr));
	CHECK_EQ(ifr.ifr_mtu, 65536);
	CHECK_OK(lo_ioctl(fd, SIOCGIFHWADDR, &ifr));
	CHECK_EQ(ifr.ifr_hwaddr.sa_family, ARPHRD_LOOPBACK);
	CHECK(memcmp(ifr.ifr_hwaddr.sa_data, zero, 6) == 0, "lo's hwaddr");
	CHECK_OK(lo_ioctl(fd, SIOCGIFTXQLEN, &ifr));
	CHECK_EQ(ifr.ifr_qlen, 1000);
	CHECK_OK(lo_ioctl(fd, SIOCGIFMETRIC, &ifr));
	CHECK_EQ(ifr.ifr_metric, 0);

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_ifindex = 1;
	CHECK_OK(ioctl(fd, SIOCGIFNAME, &ifr));
	CHECK(strcmp(ifr.ifr_name, "lo") == 0, "index 1 is '%s'", ifr.ifr_name);
	for (int idx = -1; idx <= 0; idx++) {
		ifr.ifr_ifindex = idx;
		CHECK_ERR(ioctl(fd, SIOCGIFNAME, &ifr), ENODEV);
	}
	ifr.ifr_ifindex = 0x7fffffff;
	CHECK_ERR(ioctl(fd, SIOCGIFNAME, &ifr), ENODEV);

	name_req(&ifr, "nosuch0");
	CHECK_ERR(ioctl(fd, SIOCGIFFLAGS, &ifr), ENODEV);
	CHECK_ERR(ioctl(fd, SIOCGIFINDEX, &ifr), ENODEV);
	name_req(&ifr, "");
	CHECK_ERR(ioctl(fd, SIOCGIFMTU, &ifr), ENODEV);
	/* A name without its NUL is cut at IFNAMSIZ - 1. */
	memset(&ifr, 'l', sizeof(ifr));
	CHECK_ERR(ioctl(fd, SIOCGIFINDEX, &ifr), ENODEV);
	/* What follows the NUL does not count. */
	name_req(&ifr, "lo");
	memcpy(ifr.ifr_name + 3, "xyz", 3);
	CHECK_OK(ioctl(fd, SIOCGIFINDEX, &ifr));

	CHECK_ERR(ioctl(fd, SIOCGIFFLAGS, BAD_PTR), EFAULT);
	CHECK_ERR(ioctl(fd, SIOCGIFNAME, BAD_PTR), EFAULT);
	CHECK_ERR(ioctl(fd, SIOCGIFHWADDR, BAD_PTR), EFAULT);
	/* Any other socket ioctl copies its ifreq first too. */
	CHECK_ERR(ioctl(fd, SIOCGIFADDR, BAD_PTR), EFAULT);
	name_req(&ifr, "lo");
	CHECK_ERR(ioctl(fd, SIOCDEVPRIVATE, &ifr), EOPNOTSUPP);
	name_req(&ifr, "nosuch0");
	CHECK_ERR(ioctl(fd, SIOCDEVPRIVATE + 3, &ifr), ENODEV);
	CHECK_ERR(ioctl(fd, SIOCGIFCOUNT, &ifr), ENOTTY);
}

static void
check_inet_gets(int fd, int af)
{
	struct ifreq ifr;

	if (af != AF_INET) {
		name_req(&ifr, "lo");
		CHECK_ERR(ioctl(fd, SIOCGIFADDR, &ifr), ENOTTY);
		CHECK_ERR(ioctl(fd, SIOCGIFNETMASK, &ifr), ENOTTY);
		CHECK_ERR(ioctl(fd, SIOCGIFBRDADDR, &ifr), ENOTTY);
		return;
	}
	CHECK_OK(lo_ioctl(fd, SIOCGIFADDR, &ifr));
	CHECK_EQ(sin_addr(&ifr.ifr_addr), INADDR_LOOPBACK);
	CHECK_OK(lo_ioctl(fd, SIOCGIFNETMASK, &ifr));
	CHECK_EQ(sin_addr(&ifr.ifr_netmask), 0xff000000u);
	/* lo has no broadcast address: all zero. */
	CHECK_OK(lo_ioctl(fd, SIOCGIFBRDADDR, &ifr));
	CHECK_EQ(sin_addr(&ifr.ifr_broadaddr), 0);
	CHECK_OK(lo_ioctl(fd, SIOCGIFDSTADDR, &ifr));
	CHECK_EQ(sin_addr(&ifr.ifr_dstaddr), INADDR_LOOPBACK);
	name_req(&ifr, "lo:7");
	CHECK_ERR(ioctl(fd, SIOCGIFADDR, &ifr), EADDRNOTAVAIL);
	name_req(&ifr, "nosuch0");
	CHECK_ERR(ioctl(fd, SIOCGIFADDR, &ifr), ENODEV);
	CHECK_ERR(ioctl(fd, SIOCGIFBRDADDR, &ifr), ENODEV);
}

static void
check_sets(int fd, int af)
{
	bool root = geteuid() == 0;
	struct ifreq ifr;

	CHECK_ERR(ioctl(fd, SIOCSIFFLAGS, BAD_PTR), EFAULT);
	CHECK_OK(lo_ioctl(fd, SIOCGIFFLAGS, &ifr));
	/* lo's own flags again: a change of nothing, for root. */
	if (root)
		CHECK_OK(ioctl(fd, SIOCSIFFLAGS, &ifr));
	else
		CHECK_ERR(ioctl(fd, SIOCSIFFLAGS, &ifr), EPERM);
	name_req(&ifr, "lo");
	ifr.ifr_mtu = 65536;
	if (root)
		CHECK_OK(ioctl(fd, SIOCSIFMTU, &ifr));
	else
		CHECK_ERR(ioctl(fd, SIOCSIFMTU, &ifr), EPERM);
	name_req(&ifr, "lo");
	ifr.ifr_metric = 0;
	CHECK_ERR(ioctl(fd, SIOCSIFMETRIC, &ifr), root ? EOPNOTSUPP : EPERM);
	name_req(&ifr, "lo");
	memset(ifr.ifr_newname, 0, sizeof(ifr.ifr_newname));
	CHECK_ERR(ioctl(fd, SIOCSIFNAME, &ifr), root ? EINVAL : EPERM);
	name_req(&ifr, "nosuch0");
	ifr.ifr_mtu = 1500;
	CHECK_ERR(ioctl(fd, SIOCSIFMTU, &ifr), root ? ENODEV : EPERM);
	CHECK_ERR(ioctl(fd, SIOCSIFFLAGS, &ifr), root ? ENODEV : EPERM);
	if (af == AF_INET) {
		/* Not an AF_INET address: EINVAL before the name is looked up. */
		name_req(&ifr, "nosuch0");
		ifr.ifr_addr.sa_family = AF_UNSPEC;
		CHECK_ERR(ioctl(fd, SIOCSIFADDR, &ifr), root ? EINVAL : EPERM);
		ifr.ifr_addr.sa_family = AF_INET;
		CHECK_ERR(ioctl(fd, SIOCSIFNETMASK, &ifr), root ? ENODEV : EPERM);
	} else if (af == AF_UNIX || af == AF_NETLINK) {
		name_req(&ifr, "lo");
		CHECK_ERR(ioctl(fd, SIOCSIFADDR, &ifr), ENOTTY);
	}
}

static void
tests(void)
{
	for (size_t i = 0; i < sizeof(socks) / sizeof(socks[0]); i++) {
		int fd = CHECK_OK(socket(socks[i].af, socks[i].type, 0));

		if (fd < 0)
			continue;
		check_ifconf(fd);
		check_dev_gets(fd);
		check_inet_gets(fd, socks[i].af);
		check_sets(fd, socks[i].af);
		close(fd);
	}
}

int
main(void)
{
	return guest_main_twice(tests);
}
