/*
 * /proc/net/sockstat and sockstat6 count the sockets that exist: every
 * socket in "sockets: used", a TCP socket in "inuse" once it listens or
 * is connected (not when merely made), a UDP one once bound, IPv6 ones
 * in sockstat6's lines, and every TCP socket in "alloc"; /proc/net/snmp
 * has Linux's lines, and CurrEstab the connections established.  Natively the
 * counts are the network namespace's, so the program makes one of its
 * own first (with lo up) where it may; inside vkernel the sandbox's
 * network is its own already.  Run as root and as uid 65534.
 */
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>

#include "guest.h"
#include "inet_common.h"

struct stat_counts {
	int used, tcp, alloc, udp, tcp6, udp6, estab;
};

static int
field(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	int v = -1;

	if (CHECK(p != NULL, "no '%s'", key))
		sscanf(p + strlen(key), "%d", &v);
	return v;
}

static void
read_all(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	long n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	CHECK(n > 0, "read %s", path);
	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* /proc/net/snmp's CurrEstab: the ninth number of the second Tcp line. */
static int
snmp_estab(void)
{
	char text[4096];
	const char *p;
	int v[9] = { 0 };

	read_all("/proc/net/snmp", text, sizeof(text));
	CHECK(strncmp(text, "Ip: Forwarding DefaultTTL ", 26) == 0, "Ip");
	p = strstr(text, "\nTcp: 1 ");
	if (!CHECK(p != NULL && strstr(text, "CurrEstab InSegs") != NULL,
	    "Tcp lines: %s", text))
		return -1;
	CHECK_EQ(sscanf(p + 6, "%d %d %d %d %d %d %d %d %d", &v[0], &v[1],
	    &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]), 9);
	CHECK(strstr(text, "\nUdp: InDatagrams NoPorts ") != NULL, "Udp");
	return v[8];
}

static struct stat_counts
counts(void)
{
	char s4[1024], s6[1024];
	struct stat_counts c;

	read_all("/proc/net/sockstat", s4, sizeof(s4));
	read_all("/proc/net/sockstat6", s6, sizeof(s6));
	c.used = field(s4, "sockets: used ");
	c.tcp = field(s4, "TCP: inuse ");
	c.alloc = field(s4, " alloc ");
	c.udp = field(s4, "UDP: inuse ");
	c.tcp6 = field(s6, "TCP6: inuse ");
	c.udp6 = field(s6, "UDP6: inuse ");
	c.estab = snmp_estab();
	CHECK(strncmp(s4, "sockets: used ", 14) == 0, "first line");
	CHECK(strstr(s4, "\nUDPLITE: inuse 0\nRAW: inuse 0\nFRAG: inuse 0 "
	    "memory 0\n") != NULL, "sockstat's last lines: %s", s4);
	CHECK(strstr(s6, "\nUDPLITE6: inuse 0\nRAW6: inuse 0\nFRAG6: inuse 0 "
	    "memory 0\n") != NULL, "sockstat6's last lines: %s", s6);
	return c;
}

/* A network namespace of this program's own, natively, with lo up. */
static void
own_network(void)
{
	struct ifreq ifr;
	int fd;

	if (unshare(CLONE_NEWNET) != 0 &&
	    unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
		return;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		CHECK_OK(ioctl(fd, SIOCSIFFLAGS, &ifr));
	}
	if (fd >= 0)
		close(fd);
}

static void
tests(void)
{
	struct stat_counts b, c;
	int t, l, cl, sv, u, l6, u6;

	own_network();
	b = counts();
	CHECK(b.alloc >= b.tcp, "alloc %d inuse %d", b.alloc, b.tcp);

	t = CHECK_OK(socket(AF_INET, SOCK_STREAM, 0));
	c = counts();
	CHECK_EQ(c.used, b.used + 1);
	CHECK_EQ(c.tcp, b.tcp);
	l = tcp_listener(AF_INET);
	cl = CHECK_OK(socket(AF_INET, SOCK_STREAM, 0));
	CHECK_OK(connect_port(cl, AF_INET, local_port(l)));
	sv = CHECK_OK(accept(l, NULL, NULL));
	c = counts();
	CHECK_EQ(c.used, b.used + 4);
	CHECK_EQ(c.tcp, b.tcp + 3);
	CHECK_EQ(c.estab, b.estab + 2);
	CHECK(c.alloc >= c.tcp + 1, "alloc %d inuse %d", c.alloc, c.tcp);

	u = CHECK_OK(socket(AF_INET, SOCK_DGRAM, 0));
	CHECK_EQ(counts().udp, b.udp);
	CHECK_OK(bind_port(u, AF_INET, 0, true));
	c = counts();
	CHECK_EQ(c.udp, b.udp + 1);
	CHECK_EQ(c.used, b.used + 5);

	l6 = tcp_listener(AF_INET6);
	u6 = bound_socket(AF_INET6, SOCK_DGRAM);
	c = counts();
	CHECK(l6 >= 0 && u6 >= 0, "IPv6 sockets");
	CHECK_EQ(c.tcp6, b.tcp6 + 1);
	CHECK_EQ(c.udp6, b.udp6 + 1);
	CHECK_EQ(c.tcp, b.tcp + 3);
	CHECK_EQ(c.udp, b.udp + 1);
	CHECK_EQ(c.used, b.used + 7);

	close(u);
	close(u6);
	close(t);
	c = counts();
	CHECK_EQ(c.udp, b.udp);
	CHECK_EQ(c.udp6, b.udp6);
	close(l6);
	close(sv);
	close(cl);
	close(l);
}

int
main(void)
{
	return guest_main_twice(tests);
}
