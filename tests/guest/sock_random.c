/*
 * Sockets under random calls: a fixed-seed stream of socket calls with
 * random descriptors, pointers, lengths, names, options, flags (MSG_OOB
 * among them) and interface ioctls, on
 * local and loopback TCP and UDP sockets, non-blocking so that nothing
 * waits.  Names sent to are local ones or the loopback's (to ports the
 * program's own sockets hold, so that natively nothing else is reached).  Every call must come back with a count
 * or one of the errnos Linux gives these calls; the kernel under test
 * must live through all of them.  Then a last round trip on a fresh pair
 * proves the sockets still work.  An argument picks another seed.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <net/if.h>
#include <linux/sockios.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "guest.h"
#define RND_SEED 0x9e3779b97f4a7c15ULL
#include "rnd.h"
#include "inet_common.h"

#define ROUNDS 6000
#define NFDS 12


static char buf[8192] __attribute__((aligned(64)));
static int fds[NFDS];

/* A pointer: good, NULL, low, unmapped, kernel, or into the buffer. */
static void *
rnd_ptr(void)
{
	switch (rnd() % 6) {
	case 0:
		return NULL;
	case 1:
		return (void *)16;
	case 2:
		return (void *)0x7ffffffff000ULL;
	case 3:
		return (void *)0xffffffff81000000ULL;
	default:
		return buf + rnd() % 4096;
	}
}

static size_t
rnd_len(void)
{
	static const size_t lens[] = { 0, 1, 2, 3, 16, 110, 111, 200, 4096,
	    65536, 1 << 20, (size_t)-1 };

	return lens[rnd() % (sizeof(lens) / sizeof(lens[0]))];
}

static int
rnd_fd(void)
{
	switch (rnd() % 8) {
	case 0:
		return -1;
	case 1:
		return 1000;
	default:
		return fds[rnd() % NFDS];
	}
}

/* A port one of the program's sockets holds, or 0. */
static uint16_t
rnd_port(void)
{
	return rnd() % 4 == 0 ? 0 : local_port(fds[rnd() % NFDS]);
}

/*
 * An inet name in buf: the loopback, a wildcard, v4-mapped, or (with
 * far, for bind) an address that is not here.
 */
static socklen_t
rnd_inaddr(bool far)
{
	static const char *const v4[] = { "127.0.0.1", "0.0.0.0", "127.0.0.2",
	    "192.0.2.1" };
	static const char *const v6[] = { "::1", "::", "::ffff:127.0.0.1",
	    "2001:db8::1" };
	struct sockaddr_storage *ss = (void *)(buf + 4096);
	socklen_t len;
	int i = (int)(rnd() % (far ? 4 : 3));

	if (rnd() % 2) {
		len = loop_addr(AF_INET, ss, rnd_port());
		inet_pton(AF_INET, v4[i], &((struct sockaddr_in *)ss)->sin_addr);
	} else {
		len = loop_addr(AF_INET6, ss, rnd_port());
		inet_pton(AF_INET6, v6[i],
		    &((struct sockaddr_in6 *)ss)->sin6_addr);
	}
	if (rnd() % 8 == 0)
		ss->ss_family = AF_UNSPEC;
	return rnd() % 8 == 0 ? (socklen_t)rnd_len() : len;
}

/* A name in buf, of a random kind: local or inet. */
static socklen_t
rnd_addr(bool far)
{
	struct sockaddr_un *sa = (void *)(buf + 4096);
	static const char *const names[] = { "/tmp/vk-rnd-a", "/tmp/vk-rnd-b",
	    "", "/nonexistent/x" };

	if (rnd() % 2)
		return rnd_inaddr(far);
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = rnd() % 5 == 0 ? AF_INET : AF_UNIX;
	if (rnd() % 2) {
		strcpy(sa->sun_path, names[rnd() % 4]);
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
		    strlen(sa->sun_path) + 1);
	}
	sa->sun_path[0] = '\0';
	sa->sun_path[1] = (char)('a' + rnd() % 3);
	return rnd() % 4 == 0 ? (socklen_t)rnd_len() : 4;
}

/* A msghdr in buf, pointing at random buffers and control data. */
static struct msghdr *
rnd_msg(void)
{
	struct msghdr *m = (void *)(buf + 5120);
	struct iovec *iov = (void *)(buf + 5376);
	struct cmsghdr *c = (void *)(buf + 6144);

	memset(m, 0, sizeof(*m));
	for (int i = 0; i < 3; i++) {
		iov[i].iov_base = rnd_ptr();
		iov[i].iov_len = rnd_len() % 5000;
	}
	m->msg_iov = rnd() % 8 == 0 ? rnd_ptr() : iov;
	m->msg_iovlen = rnd() % 8 == 0 ? rnd_len() : rnd() % 4;
	if (rnd() % 2) {
		c->cmsg_level = rnd() % 4 == 0 ? 6 : SOL_SOCKET;
		c->cmsg_type = rnd() % 3 == 0 ? SCM_CREDENTIALS : SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (rnd() % 4));
		for (int i = 0; i < 3; i++)
			((int *)CMSG_DATA(c))[i] = rnd_fd();
		m->msg_control = rnd() % 6 == 0 ? rnd_ptr() : (void *)c;
		m->msg_controllen = rnd() % 6 == 0 ? rnd_len() :
		    CMSG_SPACE(sizeof(int) * 3);
	}
	if (rnd() % 3 == 0) {
		m->msg_namelen = rnd_addr(false);
		m->msg_name = buf + 4096;
	}
	return m;
}

static const int known[] = {
	0, EBADF, ENOTSOCK, EINVAL, EFAULT, EAGAIN, EPIPE, ENOTCONN, EISCONN,
	ECONNREFUSED, ECONNRESET, EADDRINUSE, EAFNOSUPPORT, EOPNOTSUPP,
	EPROTOTYPE, EMSGSIZE, ENOPROTOOPT, ENOENT, ENOBUFS, EPERM, EDOM,
	ESOCKTNOSUPPORT, EPROTONOSUPPORT, EMFILE, ENAMETOOLONG, EACCES,
	EDESTADDRREQ, EADDRNOTAVAIL, ENOTDIR, EROFS, ELOOP, ENOMEM, EEXIST,
	ENOTTY, ESRCH, ENODATA, ENETUNREACH, EINPROGRESS, EALREADY,
	ECONNABORTED, EPROTO, ENODEV,
};

/* A family, type and protocol for socket(2). */
static void
rnd_kind(int *af, int *type, int *proto)
{
	static const int afs[] = { AF_UNIX, AF_INET, AF_INET6 };
	static const int inet_types[] = { SOCK_STREAM, SOCK_DGRAM,
	    SOCK_SEQPACKET };
	static const int protos[] = { IPPROTO_TCP, IPPROTO_UDP, 99 };

	*af = afs[rnd() % 3];
	*type = *af == AF_UNIX ? (int)(1 + rnd() % 5) : inet_types[rnd() % 3];
	*proto = rnd() % 4 == 0 && *af != AF_UNIX ? protos[rnd() % 3] : 0;
}

/* A level for get/setsockopt. */
static int
rnd_level(void)
{
	static const int levels[] = { SOL_SOCKET, SOL_SOCKET, IPPROTO_IP,
	    IPPROTO_IPV6, IPPROTO_TCP, IPPROTO_UDP, 0 };

	return levels[rnd() % (sizeof(levels) / sizeof(levels[0]))];
}

static bool
ours(int fd)
{
	for (int i = 0; i < NFDS; i++)
		if (fds[i] == fd)
			return true;
	return false;
}

static bool
errno_known(int e)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i] == e)
			return true;
	return false;
}

/*
 * A socket ioctl: the queue counts, SIOCATMARK, and the interface ones
 * on a random ifreq or ifconf (or pointer).  A set names an interface
 * no host has, so that natively, as root, nothing changes.
 */
static long
rnd_ioctl(void)
{
	static const unsigned long gets[] = { FIONREAD, 0x5411 /* TIOCOUTQ */,
	    SIOCATMARK, SIOCGIFCONF, SIOCGIFFLAGS, SIOCGIFINDEX, SIOCGIFNAME,
	    SIOCGIFADDR, SIOCGIFNETMASK, SIOCGIFBRDADDR, SIOCGIFDSTADDR,
	    SIOCGIFMTU, SIOCGIFHWADDR, SIOCGIFTXQLEN, SIOCGIFMETRIC,
	    SIOCGIFMAP, SIOCDEVPRIVATE, 0x89ff, 0x8900 };
	static const unsigned long sets[] = { SIOCSIFFLAGS, SIOCSIFMTU,
	    SIOCSIFMETRIC, SIOCSIFNAME, SIOCSIFTXQLEN, SIOCSIFADDR,
	    SIOCSIFNETMASK, SIOCSIFHWADDR, SIOCADDMULTI, SIOCDIFADDR };
	static const char *const names[] = { "lo", "", "nosuch0", "lo:1",
	    "lolololololololo" };
	struct ifreq *ifr = (void *)(buf + 7424);
	struct ifconf *ifc = (void *)(buf + 7488);
	bool set = rnd() % 4 == 0;
	unsigned long cmd = set ? sets[rnd() % (sizeof(sets) / sizeof(sets[0]))]
	    : gets[rnd() % (sizeof(gets) / sizeof(gets[0]))];
	void *arg = ifr;

	for (size_t i = 0; i < sizeof(*ifr); i++)
		((uint8_t *)ifr)[i] = (uint8_t)rnd();
	memcpy(ifr->ifr_name, set ? "vkrnd0" : names[rnd() % 5], IFNAMSIZ);
	if (rnd() % 2)
		ifr->ifr_ifindex = (int)(rnd() % 4) - 1;
	/* An IPv6 address set's in6_ifreq names no interface either. */
	if (set)
		memcpy(buf + 7424 + 20, &(int){ 0x7fffffff }, sizeof(int));
	if (cmd == SIOCGIFCONF) {
		ifc->ifc_len = (int)rnd_len();
		ifc->ifc_buf = rnd() % 3 == 0 ? NULL : rnd_ptr();
		arg = ifc;
	}
	/* A bad pointer: never one into buf, for a set. */
	if (rnd() % 6 == 0)
		arg = set ? (void *)16 : rnd_ptr();
	return syscall(SYS_ioctl, rnd_fd(), cmd, arg);
}

static void
one_call(void)
{
	int flags = (int)(rnd() & (MSG_PEEK | MSG_TRUNC | MSG_WAITALL |
	    MSG_NOSIGNAL | MSG_CMSG_CLOEXEC | MSG_EOR | MSG_OOB)) |
	    MSG_DONTWAIT;
	socklen_t *lenp = (void *)(buf + 7168);
	long r;

	*lenp = (socklen_t)rnd_len();
	switch (rnd() % 16) {
	case 0: {
		int sv[2], i = (int)(rnd() % NFDS);

		r = syscall(SYS_socketpair, AF_UNIX, (int)(1 + rnd() % 5) |
		    SOCK_NONBLOCK, 0, rnd() % 8 == 0 ? rnd_ptr() : sv);
		if (r == 0 && i + 1 < NFDS) {
			close(fds[i]);
			close(fds[i + 1]);
			fds[i] = sv[0];
			fds[i + 1] = sv[1];
		}
		break;
	}
	case 1: {
		int i = (int)(rnd() % NFDS), af, type, proto;

		rnd_kind(&af, &type, &proto);
		r = syscall(SYS_socket, af, type | SOCK_NONBLOCK, proto);
		if (r >= 0) {
			close(fds[i]);
			fds[i] = (int)r;
		}
		break;
	}
	case 2:
		r = syscall(SYS_bind, rnd_fd(), buf + 4096, rnd_addr(true));
		break;
	case 3:
		r = syscall(SYS_listen, rnd_fd(), (int)(rnd() % 3) - 1);
		break;
	case 4:
		r = syscall(SYS_connect, rnd_fd(), buf + 4096, rnd_addr(false));
		break;
	case 5:
		r = syscall(SYS_accept4, rnd_fd(), rnd_ptr(), rnd() % 2 ?
		    (void *)lenp : rnd_ptr(), SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (r >= 0)
			close((int)r);
		break;
	case 6:
		r = syscall(SYS_sendto, rnd_fd(), rnd_ptr(), rnd_len() % 70000,
		    flags, rnd() % 2 ? buf + 4096 : NULL, rnd_addr(false));
		break;
	case 7:
		r = syscall(SYS_recvfrom, rnd_fd(), rnd_ptr(), rnd_len() % 70000,
		    flags, rnd() % 2 ? rnd_ptr() : NULL, lenp);
		break;
	case 8:
		r = syscall(SYS_sendmsg, rnd_fd(), rnd() % 8 ? (void *)rnd_msg()
		    : rnd_ptr(), flags);
		break;
	case 9: {
		r = syscall(SYS_recvmsg, rnd_fd(), rnd() % 8 ? (void *)rnd_msg()
		    : rnd_ptr(), flags);
		break;
	}
	case 10:
		r = syscall(SYS_shutdown, rnd_fd(), (int)(rnd() % 4));
		break;
	case 11:
		r = syscall(SYS_setsockopt, rnd_fd(), rnd_level(),
		    (int)(rnd() % 70), rnd_ptr(), (socklen_t)rnd_len());
		break;
	case 12:
		r = syscall(SYS_getsockopt, rnd_fd(), rnd_level(),
		    (int)(rnd() % 70), rnd_ptr(), rnd() % 2 ? (void *)lenp :
		    rnd_ptr());
		break;
	case 13:
		r = syscall(rnd() % 2 ? SYS_getsockname : SYS_getpeername,
		    rnd_fd(), rnd_ptr(), rnd() % 2 ? (void *)lenp : rnd_ptr());
		break;
	case 14:
		r = syscall(rnd() % 2 ? SYS_read : SYS_write, rnd_fd(),
		    rnd_ptr(), rnd_len() % 70000);
		break;
	default:
		r = rnd_ioctl();
		break;
	}
	if (r < 0 && !errno_known(errno))
		CHECK(false, "an errno no socket call gives: %d", errno);
	/* Close received descriptors now and then: they are not counted. */
	if (rnd() % 64 == 0)
		for (int fd = 3; fd < 256; fd++)
			if (!ours(fd))
				close(fd);
}

int
main(int argc, char **argv)
{
	char back[8];
	int sv[2];

	if (argc > 1)
		rnd_state = strtoull(argv[1], NULL, 0) | 1;
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < NFDS; i++)
		fds[i] = -1;
	for (int i = 0; i < ROUNDS; i++)
		one_call();
	for (int i = 0; i < NFDS; i++)
		close(fds[i]);
	unlink("/tmp/vk-rnd-a");
	unlink("/tmp/vk-rnd-b");
	CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	CHECK_EQ(write(sv[0], "alive", 5), 5);
	CHECK_EQ(read(sv[1], back, sizeof(back)), 5);
	CHECK(memcmp(back, "alive", 5) == 0, "a pair still works");
	close(sv[0]);
	close(sv[1]);
	sv[0] = (int)CHECK_OK(tcp_listener(AF_INET));
	sv[1] = (int)CHECK_OK(socket(AF_INET, SOCK_STREAM, 0));
	CHECK_OK(connect_port(sv[1], AF_INET, local_port(sv[0])));
	fds[0] = (int)CHECK_OK(accept(sv[0], NULL, NULL));
	CHECK_EQ(write(sv[1], "alive", 5), 5);
	CHECK_EQ(read(fds[0], back, sizeof(back)), 5);
	return guest_done();
}
