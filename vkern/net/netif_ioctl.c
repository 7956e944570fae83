/*
 * The interface ioctls of netdevice(7), on a socket of any family: what
 * the guest's interfaces (netif.c's table) are called, their flags, MTU,
 * hardware and IPv4 addresses.
 *
 * As Linux: every family answers the device ones (SIOCGIFCONF,
 * SIOCGIFFLAGS, SIOCGIFINDEX, SIOCGIFNAME, SIOCGIFMTU, SIOCGIFHWADDR...),
 * only an AF_INET socket the IPv4 address ones (SIOCGIFADDR and the
 * netmask, broadcast and destination; another family's is ENOTTY).  A
 * name is cut at IFNAMSIZ - 1; an unknown one is ENODEV, an interface
 * without an IPv4 address EADDRNOTAVAIL.  The set ioctls need
 * CAP_NET_ADMIN (a guest's euid 0; else EPERM, before anything else but
 * the copy).  The interfaces are fixed, so root's set is refused with
 * EPERM too, after Linux's own checks, unless it sets what is already
 * there (as "ip link set lo up" on an up lo), which succeeds.
 */
#include <errno.h>
#include <string.h>
#include <linux/if.h>
#include <linux/ioctl.h>
#include <linux/ipv6.h>
#include <linux/sockios.h>

#include "vkern/kern/proc.h"
#include "vkern/net/net.h"
#include "vkern/vm/copyio.h"

/* The interface named name (up to any ':' of an alias label), or NULL. */
static const struct netif *
netif_by_name(const char *name, size_t len)
{
	const struct netif *ifp;

	for (size_t i = 0; (ifp = netif_at(i)) != NULL; i++)
		if (strlen(ifp->name) == len &&
		    memcmp(ifp->name, name, len) == 0)
			return ifp;
	return NULL;
}

/* The first IPv4 address of interface ifindex, or NULL. */
static const struct netif_addr *
netif_addr4(int ifindex)
{
	const struct netif_addr *ia;

	for (size_t i = 0; (ia = netif_addr_at(i)) != NULL; i++)
		if (ia->ifindex == ifindex && ia->family == AF_INET)
			return ia;
	return NULL;
}

static void
netif_put_sin(struct sockaddr *sa, const void *addr4)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	memcpy(&sin.sin_addr, addr4, 4);
	memcpy(sa, &sin, sizeof(sin));
}

/*
 * SIOCGIFCONF: an ifreq per IPv4 address, as many as ifc_len holds whole;
 * with a NULL buffer, the length they all need.
 */
static long
netif_ifconf(struct thread *td, uaddr_t uarg)
{
	const struct netif_addr *ia;
	struct ifconf ifc;
	struct ifreq ifr;
	int len = 0;
	int r;

	if ((r = copyin(td, uarg, &ifc, sizeof(ifc))) != 0)
		return r;
	for (size_t i = 0; (ia = netif_addr_at(i)) != NULL; i++) {
		if (ia->family != AF_INET)
			continue;
		if (ifc.ifc_buf != NULL) {
			if (ifc.ifc_len - len < (int)sizeof(ifr))
				break;
			memset(&ifr, 0, sizeof(ifr));
			strcpy(ifr.ifr_name, netif_by_index(ia->ifindex)->name);
			netif_put_sin(&ifr.ifr_addr, ia->addr);
			r = copyout(td, &ifr, UADDR((uintptr_t)ifc.ifc_buf + (size_t)len),
			    sizeof(ifr));
			if (r != 0)
				return r;
		}
		len += (int)sizeof(ifr);
	}
	ifc.ifc_len = len;
	return copyout(td, &ifc.ifc_len, uarg, sizeof(ifc.ifc_len));
}

/* The IPv4 address ioctls of an AF_INET socket, on an ifreq copied in. */
static long
netif_inet(struct thread *td, unsigned cmd, bool set, struct ifreq *ifr)
{
	const char *colon = strchr(ifr->ifr_name, ':');
	size_t len = colon != NULL ? (size_t)(colon - ifr->ifr_name) :
	    strlen(ifr->ifr_name);
	const struct netif *ifp;
	const struct netif_addr *ia;
	uint32_t mask;

	if (set) {
		if (td->proc->cred.euid != 0)
			return -EPERM;
		if (ifr->ifr_addr.sa_family != AF_INET)
			return -EINVAL;
	}
	if ((ifp = netif_by_name(ifr->ifr_name, len)) == NULL)
		return -ENODEV;
	if (set)
		return -EPERM;
	/* An alias label ("lo:1") names an address lo does not have. */
	if (colon != NULL || (ia = netif_addr4(ifp->index)) == NULL)
		return -EADDRNOTAVAIL;
	switch (cmd) {
	case SIOCGIFADDR:
	case SIOCGIFDSTADDR:    /* lo is no point-to-point link */
		netif_put_sin(&ifr->ifr_addr, ia->addr);
		return 0;
	case SIOCGIFNETMASK:
		mask = ia->prefixlen == 0 ? 0 :
		    __builtin_bswap32(~0u << (32 - ia->prefixlen));
		netif_put_sin(&ifr->ifr_addr, &mask);
		return 0;
	case SIOCGIFBRDADDR:    /* 0.0.0.0 for none: lo broadcasts nothing */
		netif_put_sin(&ifr->ifr_addr, ia->broadcast);
		return 0;
	}
	return -ENOTTY;
}

/* A device set ioctl on ifp, by root: what Linux checks, then refused. */
static long
netif_set(unsigned cmd, const struct netif *ifp, const struct ifreq *ifr)
{
	switch (cmd) {
	case SIOCSIFMETRIC:
		return -EOPNOTSUPP;
	case SIOCSIFFLAGS:
		/* Linux keeps the bits it computes itself, as RUNNING. */
		if ((unsigned short)ifr->ifr_flags ==
		    (unsigned short)(ifp->flags & ~(unsigned)IFF_RUNNING) ||
		    (unsigned short)ifr->ifr_flags == (unsigned short)ifp->flags)
			return 0;
		return -EPERM;
	case SIOCSIFMTU:
		if (ifr->ifr_mtu < 0)
			return -EINVAL;
		return (unsigned)ifr->ifr_mtu == ifp->mtu ? 0 : -EPERM;
	case SIOCSIFTXQLEN:
		if (ifr->ifr_qlen < 0)
			return -EINVAL;
		return (unsigned)ifr->ifr_qlen == ifp->txqlen ? 0 : -EPERM;
	case SIOCSIFNAME:
		if (ifr->ifr_newname[0] == '\0')
			return -EINVAL;
		return -EPERM;
	}
	return -EPERM;
}

/* A device ioctl on an ifreq copied in: 0 when ifr is to go back out. */
static long
netif_dev(struct thread *td, unsigned cmd, bool set, struct ifreq *ifr)
{
	const struct netif *ifp;

	if (cmd == SIOCGIFNAME) {
		if ((ifp = netif_by_index(ifr->ifr_ifindex)) == NULL)
			return -ENODEV;
		strcpy(ifr->ifr_name, ifp->name);
		return 0;
	}
	if (set && td->proc->cred.euid != 0)
		return -EPERM;
	if ((ifp = netif_by_name(ifr->ifr_name, strlen(ifr->ifr_name))) == NULL)
		return -ENODEV;
	switch (cmd) {
	case SIOCGIFFLAGS:
		ifr->ifr_flags = (short)ifp->flags;
		return 0;
	case SIOCGIFINDEX:
		ifr->ifr_ifindex = ifp->index;
		return 0;
	case SIOCGIFMTU:
		ifr->ifr_mtu = (int)ifp->mtu;
		return 0;
	case SIOCGIFHWADDR:
		ifr->ifr_hwaddr.sa_family = ifp->type;
		memcpy(ifr->ifr_hwaddr.sa_data, ifp->hwaddr, sizeof(ifp->hwaddr));
		return 0;
	case SIOCGIFTXQLEN:
		ifr->ifr_qlen = (int)ifp->txqlen;
		return 0;
	case SIOCGIFMETRIC:
		ifr->ifr_metric = 0;
		return 0;
	case SIOCGIFMAP:
		memset(&ifr->ifr_map, 0, sizeof(ifr->ifr_map));
		return 0;
	}
	return netif_set(cmd, ifp, ifr);
}

/*
 * SIOCSIFADDR and SIOCDIFADDR of an AF_INET6 socket take an in6_ifreq
 * naming the interface by index.
 */
static long
netif_inet6_set(struct thread *td, uaddr_t uarg)
{
	struct in6_ifreq ireq;
	int r;

	if (td->proc->cred.euid != 0)
		return -EPERM;
	if ((r = copyin(td, uarg, &ireq, sizeof(ireq))) != 0)
		return r;
	if (netif_by_index(ireq.ifr6_ifindex) == NULL)
		return -ENODEV;
	return -EPERM;
}

/* The ifreq ioctls: a get copies the ifreq back out, a set does not. */
#define NC_SET  1
#define NC_INET 2     /* only an AF_INET socket's */

static const struct {
	unsigned cmd, kind;
} netif_cmds[] = {
	{ SIOCGIFFLAGS, 0 }, { SIOCGIFINDEX, 0 }, { SIOCGIFNAME, 0 },
	{ SIOCGIFMTU, 0 }, { SIOCGIFHWADDR, 0 }, { SIOCGIFTXQLEN, 0 },
	{ SIOCGIFMETRIC, 0 }, { SIOCGIFMAP, 0 },
	{ SIOCSIFFLAGS, NC_SET }, { SIOCSIFMETRIC, NC_SET },
	{ SIOCSIFMTU, NC_SET }, { SIOCSIFHWADDR, NC_SET },
	{ SIOCSIFSLAVE, NC_SET }, { SIOCSIFMAP, NC_SET },
	{ SIOCSIFTXQLEN, NC_SET }, { SIOCSIFNAME, NC_SET },
	{ SIOCADDMULTI, NC_SET }, { SIOCDELMULTI, NC_SET },
	{ SIOCSIFHWBROADCAST, NC_SET },
	{ SIOCGIFADDR, NC_INET }, { SIOCGIFNETMASK, NC_INET },
	{ SIOCGIFBRDADDR, NC_INET }, { SIOCGIFDSTADDR, NC_INET },
	{ SIOCSIFADDR, NC_INET | NC_SET }, { SIOCSIFNETMASK, NC_INET | NC_SET },
	{ SIOCSIFBRDADDR, NC_INET | NC_SET },
	{ SIOCSIFDSTADDR, NC_INET | NC_SET },
};

/* cmd's kind, or -1 for an ioctl that is none of these. */
static int
netif_cmd_kind(unsigned cmd)
{
	for (size_t i = 0; i < sizeof(netif_cmds) / sizeof(netif_cmds[0]); i++)
		if (netif_cmds[i].cmd == cmd)
			return (int)netif_cmds[i].kind;
	return -1;
}

long
netif_ioctl(struct thread *td, int family, unsigned cmd, uint64_t arg)
{
	struct ifreq ifr;
	int kind = netif_cmd_kind(cmd);
	bool set = kind > 0 && (kind & NC_SET) != 0;
	long r;

	if (cmd == SIOCGIFCONF)
		return netif_ifconf(td, UADDR(arg));
	if (family == AF_INET6 && (cmd == SIOCSIFADDR || cmd == SIOCDIFADDR))
		return netif_inet6_set(td, UADDR(arg));
	/* Every socket ioctl (type 0x89) a family leaves takes an ifreq. */
	if (_IOC_TYPE(cmd) != 0x89)
		return -ENOTTY;
	if ((r = copyin(td, UADDR(arg), &ifr, sizeof(ifr))) != 0)
		return r;
	if (cmd >= SIOCDEVPRIVATE && cmd <= SIOCDEVPRIVATE + 15) {
		/* No driver of a guest's interface has private ioctls. */
		ifr.ifr_name[IFNAMSIZ - 1] = '\0';
		if (netif_by_name(ifr.ifr_name, strlen(ifr.ifr_name)) == NULL)
			return -ENODEV;
		return -EOPNOTSUPP;
	}
	if (kind < 0 || ((kind & NC_INET) != 0 && family != AF_INET))
		return -ENOTTY;
	ifr.ifr_name[IFNAMSIZ - 1] = '\0';
	r = (kind & NC_INET) != 0 ? netif_inet(td, cmd, set, &ifr) :
	    netif_dev(td, cmd, set, &ifr);
	if (r != 0 || set)
		return r;
	return copyout(td, &ifr, UADDR(arg), sizeof(ifr));
}
