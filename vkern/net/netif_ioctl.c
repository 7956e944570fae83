/*
 * The interface ioctls of netdevice(7) on any socket: see net.h.
 *
 * Linux answers them in two places, and the errnos show it: what a
 * socket family keeps (the IPv4 address ioctls, on AF_INET sockets only)
 * and, for every family, the device layer (names, indexes, flags, MTU,
 * hardware address, queue length, SIOCGIFCONF).  Others fall through to
 * ENOTTY, the driver-private range to EOPNOTSUPP.  The guest's network is
 * fixed: a set ioctl needs CAP_NET_ADMIN (EPERM), and even then only one
 * that changes nothing succeeds (as "ifconfig lo up" on a lo that is up).
 */
#include <errno.h>
#include <linux/if.h>
#include <linux/if_arp.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <string.h>

#include "vkern/kern/proc.h"
#include "vkern/net/net.h"
#include "vkern/vk.h"
#include "vkern/vm/copyio.h"

/* The first IPv4 address of interface ifindex, or NULL. */
static const struct netif_addr *
inet_addr_of(int ifindex)
{
	const struct netif_addr *a;

	for (size_t i = 0; (a = netif_addr_at(i)) != NULL; i++)
		if (a->ifindex == ifindex && a->family == AF_INET)
			return a;
	return NULL;
}

/* The interface the request names, its name made a string first. */
static const struct netif *
netif_named(struct ifreq *ifr)
{
	const struct netif *nif;

	ifr->ifr_name[IFNAMSIZ - 1] = '\0';
	for (size_t i = 0; (nif = netif_at(i)) != NULL; i++)
		if (strcmp(nif->name, ifr->ifr_name) == 0)
			return nif;
	return NULL;
}

static void
put_inet(struct sockaddr *sa, uint32_t addr_be)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	sin.sin_addr.s_addr = addr_be;
	memcpy(sa, &sin, sizeof(sin));
}

/* SIOCGIFCONF: an ifreq for each IPv4 address, as many as fit whole. */
static long
ifconf(struct thread *td, uaddr_t arg)
{
	const struct netif_addr *a;
	const struct netif *nif;
	struct ifconf ifc;
	struct ifreq ifr;
	int len = 0;
	long r;

	if ((r = copyin(td, arg, &ifc, sizeof(ifc))) < 0)
		return r;
	for (size_t i = 0; (a = netif_addr_at(i)) != NULL; i++) {
		if (a->family != AF_INET ||
		    (nif = netif_by_index(a->ifindex)) == NULL)
			continue;
		if (ifc.ifc_req != NULL) {
			if (ifc.ifc_len < 0 ||
			    (size_t)ifc.ifc_len - (size_t)len < sizeof(ifr))
				break;
			memset(&ifr, 0, sizeof(ifr));
			strncpy(ifr.ifr_name, nif->name, IFNAMSIZ - 1);
			put_inet(&ifr.ifr_addr, *(const uint32_t *)a->addr);
			r = copyout(td, &ifr, UADDR((uintptr_t)ifc.ifc_req +
			    (size_t)len), sizeof(ifr));
			if (r < 0)
				return r;
		}
		len += (int)sizeof(ifr);
	}
	ifc.ifc_len = len;
	return copyout(td, &ifc, arg, sizeof(ifc));
}

/* What an interface ioctl is, on a socket of family. */
enum ifcmd {
	IFC_NONE,        /* not one: ENOTTY */
	IFC_DEV_GET,     /* the device layer's, for every family */
	IFC_DEV_SET,
	IFC_INET_GET,    /* the IPv4 address ones, AF_INET only */
	IFC_INET_SET,
	IFC_INET6_SET,   /* adding or removing an IPv6 address */
};

/* An AF_INET6 socket's SIOCSIFADDR and SIOCDIFADDR take this. */
struct in6_ifreq_abi {
	struct in6_addr addr;
	uint32_t prefixlen;
	int ifindex;
};

static enum ifcmd
ifcmd_of(int family, unsigned cmd)
{
	switch (cmd) {
	case SIOCGIFINDEX:
	case SIOCGIFFLAGS:
	case SIOCGIFMTU:
	case SIOCGIFMETRIC:
	case SIOCGIFMAP:
	case SIOCGIFTXQLEN:
	case SIOCGIFHWADDR:
		return IFC_DEV_GET;
	case SIOCSIFFLAGS:
	case SIOCSIFMTU:
	case SIOCSIFTXQLEN:
	case SIOCSIFMETRIC:
	case SIOCSIFHWADDR:
	case SIOCSIFMAP:
	case SIOCSIFNAME:
	case SIOCSIFHWBROADCAST:
	case SIOCADDMULTI:
	case SIOCDELMULTI:
		return IFC_DEV_SET;
	case SIOCGIFADDR:
	case SIOCGIFDSTADDR:
	case SIOCGIFNETMASK:
	case SIOCGIFBRDADDR:
		return family == AF_INET ? IFC_INET_GET : IFC_NONE;
	case SIOCSIFADDR:
		if (family == AF_INET6)
			return IFC_INET6_SET;
		/* FALLTHROUGH */
	case SIOCSIFDSTADDR:
	case SIOCSIFNETMASK:
	case SIOCSIFBRDADDR:
		return family == AF_INET ? IFC_INET_SET : IFC_NONE;
	case SIOCDIFADDR:
		return family == AF_INET6 ? IFC_INET6_SET : IFC_NONE;
	}
	return IFC_NONE;
}

static long
inet_addr_get(unsigned cmd, const struct netif *nif, struct ifreq *ifr)
{
	const struct netif_addr *a = inet_addr_of(nif->index);
	uint32_t mask;

	if (a == NULL || !(nif->flags & IFF_UP))
		return -EADDRNOTAVAIL;
	memset(&ifr->ifr_ifru, 0, sizeof(ifr->ifr_ifru));
	switch (cmd) {
	case SIOCGIFNETMASK:
		mask = a->prefixlen == 0 ? 0 : ~0u << (32 - a->prefixlen);
		put_inet(&ifr->ifr_addr, htonl(mask));
		break;
	case SIOCGIFBRDADDR:   /* none on lo */
		put_inet(&ifr->ifr_addr, 0);
		break;
	default:   /* the address; a point-to-point peer's is lo's own */
		put_inet(&ifr->ifr_addr, *(const uint32_t *)a->addr);
		break;
	}
	return 0;
}

static void
dev_get(unsigned cmd, const struct netif *nif, struct ifreq *ifr)
{
	memset(&ifr->ifr_ifru, 0, sizeof(ifr->ifr_ifru));
	switch (cmd) {
	case SIOCGIFINDEX:
		ifr->ifr_ifindex = nif->index;
		break;
	case SIOCGIFFLAGS:   /* the low 16 bits, as the field holds */
		ifr->ifr_flags = (short)nif->flags;
		break;
	case SIOCGIFMTU:
		ifr->ifr_mtu = (int)nif->mtu;
		break;
	case SIOCGIFTXQLEN:
		ifr->ifr_qlen = (int)nif->txqlen;
		break;
	case SIOCGIFHWADDR:
		ifr->ifr_hwaddr.sa_family = nif->type;
		memcpy(ifr->ifr_hwaddr.sa_data, nif->hwaddr,
		    sizeof(nif->hwaddr));
		break;
	}
}

/* Whether the interface already has what a device-layer set asks for. */
static bool
dev_set_same(unsigned cmd, const struct netif *nif, const struct ifreq *ifr)
{
	switch (cmd) {
	case SIOCSIFFLAGS:
		return (unsigned short)ifr->ifr_flags ==
		    (unsigned short)(nif->flags & 0xffff);
	case SIOCSIFMTU:
		return ifr->ifr_mtu == (int)nif->mtu;
	case SIOCSIFTXQLEN:
		return ifr->ifr_qlen == (int)nif->txqlen;
	}
	return false;
}

long
netif_ioctl(struct thread *td, int family, unsigned cmd, uint64_t arg)
{
	enum ifcmd kind = ifcmd_of(family, cmd);
	uaddr_t ua = UADDR(arg);
	const struct netif *nif;
	struct ifreq ifr;
	long r;

	if (cmd == SIOCGIFCONF)
		return ifconf(td, ua);
	if (cmd >= SIOCDEVPRIVATE && cmd <= SIOCDEVPRIVATE + 15)
		return -EOPNOTSUPP;
	if (cmd == SIOCGIFSLAVE || cmd == SIOCSIFSLAVE ||
	    (family == AF_INET && cmd == SIOCGIFPFLAGS))
		return -EINVAL;   /* no bonding; no private flags */
	if (kind == IFC_NONE && cmd != SIOCGIFNAME)
		return -ENOTTY;
	/* A set asks for the capability before it looks at anything. */
	if ((kind == IFC_DEV_SET || kind == IFC_INET_SET ||
	    kind == IFC_INET6_SET) && td->proc->cred.euid != 0)
		return -EPERM;
	if (kind == IFC_INET6_SET) {
		struct in6_ifreq_abi req;

		if ((r = copyin(td, ua, &req, sizeof(req))) < 0)
			return r;
		return netif_by_index(req.ifindex) == NULL ? -ENODEV : -EPERM;
	}
	if ((r = copyin(td, ua, &ifr, sizeof(ifr))) < 0)
		return r;
	if (cmd == SIOCGIFNAME) {
		if ((nif = netif_by_index(ifr.ifr_ifindex)) == NULL)
			return -ENODEV;
		memset(ifr.ifr_name, 0, sizeof(ifr.ifr_name));
		strncpy(ifr.ifr_name, nif->name, IFNAMSIZ - 1);
		return copyout(td, &ifr, ua, sizeof(ifr));
	}
	if (kind == IFC_INET_SET && ifr.ifr_addr.sa_family != AF_INET)
		return -EINVAL;
	if ((nif = netif_named(&ifr)) == NULL)
		return -ENODEV;
	switch (kind) {
	case IFC_DEV_SET:
		return dev_set_same(cmd, nif, &ifr) ? 0 : -EPERM;
	case IFC_INET_SET:
		return -EPERM;
	case IFC_INET_GET:
		if ((r = inet_addr_get(cmd, nif, &ifr)) < 0)
			return r;
		break;
	default:
		dev_get(cmd, nif, &ifr);
		break;
	}
	return copyout(td, &ifr, ua, sizeof(ifr));
}
