/*
 * Netlink sockets under random calls: a fixed-seed stream of socket,
 * bind, connect, sendto, sendmsg, recvfrom, setsockopt, getsockopt,
 * getsockname and poll calls on NETLINK_ROUTE sockets, with random
 * descriptors, addresses, flags and requests (well framed or not, of any
 * rtnetlink type, with random attributes).  Every call must come back
 * with a count or an errno Linux gives these calls; the kernel under test
 * must live through all of them (the sanitizer build runs this too).
 * Then a dump on a fresh socket proves netlink still works.  Natively,
 * root runs it in a network namespace of its own, so that no request can
 * change the host's network; without one it sends only gets.  An
 * argument picks another seed.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guest.h"
#define RND_SEED 0x2545f4914f6cdd1dULL
#include "rnd.h"

#define ROUNDS 4000
#define NFDS 6

static bool gets_only;

static uint8_t buf[16384] __attribute__((aligned(64)));
static uint8_t rbuf[70000] __attribute__((aligned(64)));
static int fds[NFDS];

static void *
rnd_ptr(void *good)
{
	switch (rnd() % 8) {
	case 0:
		return NULL;
	case 1:
		return (void *)16;
	case 2:
		return (void *)0xffffffff81000000ULL;
	default:
		return good;
	}
}

static int
rnd_fd(void)
{
	return rnd() % 10 == 0 ? -1 : fds[rnd() % NFDS];
}

/* A sockaddr_nl at buf + 8192, of a random kind; its length. */
static socklen_t
rnd_addr(void)
{
	struct sockaddr_nl *sa = (void *)(buf + 8192);
	static const socklen_t lens[] = { 0, 2, 11, 12, 16, 128, 129 };

	memset(sa, 0, 16);
	sa->nl_family = rnd() % 6 == 0 ? (sa_family_t)(rnd() % 50) :
	    AF_NETLINK;
	sa->nl_pid = rnd() % 3 == 0 ? (uint32_t)rnd() :
	    rnd() % 2 ? 0 : (uint32_t)getpid();
	sa->nl_groups = rnd() % 3 == 0 ? (uint32_t)rnd() : 0;
	return rnd() % 4 == 0 ? lens[rnd() % 7] : sizeof(*sa);
}

/* Requests in buf, one or several, framed well or not: their length. */
static size_t
rnd_request(void)
{
	size_t off = 0, n = 1 + rnd() % 3;

	for (size_t i = 0; i < n && off + 256 < 8192; i++) {
		struct nlmsghdr *h = (void *)(buf + off);
		size_t body = rnd() % 200;
		int type = RTM_BASE + (int)(rnd() % (RTM_MAX - RTM_BASE + 10));

		if (rnd() % 10 == 0)
			type = (int)(rnd() % 0x20);
		if (gets_only)
			type = RTM_GETLINK + (int)(rnd() % 3) * 4;
		for (size_t k = 0; k < body + 16; k++)
			buf[off + k] = (uint8_t)rnd();
		h->nlmsg_len = (uint32_t)NLMSG_LENGTH(body);
		h->nlmsg_type = (uint16_t)type;
		h->nlmsg_flags = (uint16_t)(NLM_F_REQUEST |
		    (rnd() % 2 ? NLM_F_DUMP : 0) | (rnd() % 2 ? NLM_F_ACK : 0));
		if (rnd() % 4 == 0)
			h->nlmsg_flags = (uint16_t)rnd();
		/* A family byte the kernel knows, then attributes. */
		buf[off + 16] = (uint8_t)(rnd() % 3 == 0 ? rnd() :
		    rnd() % 2 ? AF_INET : AF_UNSPEC);
		if (body >= 20 && rnd() % 2) {
			struct rtattr *a = (void *)(buf + off + 16 +
			    NLMSG_ALIGN(16));

			a->rta_len = (unsigned short)(rnd() % 2 ? RTA_LENGTH(4) :
			    rnd());
			a->rta_type = (unsigned short)(rnd() % 40);
		}
		if (rnd() % 8 == 0)
			h->nlmsg_len = (uint32_t)rnd() % 400;
		off += NLMSG_ALIGN(NLMSG_LENGTH(body));
	}
	if (rnd() % 8 == 0)
		off = rnd() % (off + 1);
	return off;
}

static const int known[] = {
	0, EBADF, ENOTSOCK, EINVAL, EFAULT, EAGAIN, EPERM, ECONNREFUSED,
	EADDRINUSE, EOPNOTSUPP, EMSGSIZE, ENOPROTOOPT, ENOBUFS, ENODATA,
	ESOCKTNOSUPPORT, EPROTONOSUPPORT, EMFILE, ENOTTY, EAFNOSUPPORT,
	ENOTCONN, ENOMEM, EBUSY, EACCES,
};

static bool
errno_known(int e)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i] == e)
			return true;
	return false;
}

static void
rnd_socket(void)
{
	int i = (int)(rnd() % NFDS);
	long r = syscall(SYS_socket, rnd() % 10 == 0 ? AF_UNIX : AF_NETLINK,
	    (rnd() % 4 ? SOCK_RAW : (int)(rnd() % 6)) | SOCK_NONBLOCK,
	    rnd() % 6 == 0 ? (int)(rnd() % 40) - 2 : NETLINK_ROUTE);

	if (r >= 0) {
		close(fds[i]);
		fds[i] = (int)r;
	}
}

static long
rnd_sendmsg(int flags)
{
	struct msghdr m = { 0 };
	struct iovec iov[2] = { { buf, rnd_request() }, { buf + 4096,
	    rnd() % 64 } };

	m.msg_iov = rnd_ptr(iov);
	m.msg_iovlen = 1 + rnd() % 2;
	if (rnd() % 2) {
		m.msg_namelen = rnd_addr();
		m.msg_name = rnd_ptr(buf + 8192);
	}
	return syscall(SYS_sendmsg, rnd_fd(), rnd_ptr(&m), flags);
}

static void
one_call(void)
{
	int flags = (int)(rnd() & (MSG_PEEK | MSG_TRUNC | MSG_OOB)) |
	    MSG_DONTWAIT;
	socklen_t *lenp = (void *)(buf + 12288);
	int v = (int)(rnd() % 40);
	long r;

	*lenp = (socklen_t)(rnd() % 2 ? 16 : rnd() % 300);
	switch (rnd() % 12) {
	case 0:
		rnd_socket();
		return;
	case 1:
		r = syscall(SYS_bind, rnd_fd(), rnd_ptr(buf + 8192), rnd_addr());
		break;
	case 2:
		r = syscall(SYS_connect, rnd_fd(), rnd_ptr(buf + 8192),
		    rnd_addr());
		break;
	case 3:
	case 4:
		r = syscall(SYS_sendto, rnd_fd(), rnd_ptr(buf), rnd_request(),
		    flags & ~MSG_PEEK, rnd() % 2 ? buf + 8192 : NULL,
		    rnd_addr());
		break;
	case 5:
		r = rnd_sendmsg(flags & ~(MSG_PEEK | MSG_TRUNC));
		break;
	case 6:
	case 7:
		r = syscall(SYS_recvfrom, rnd_fd(), rnd_ptr(rbuf),
		    rnd() % 2 ? sizeof(rbuf) : rnd() % 64, flags,
		    rnd() % 2 ? rnd_ptr(buf + 8192) : NULL, lenp);
		break;
	case 8:
		r = syscall(SYS_setsockopt, rnd_fd(), rnd() % 5 ? SOL_NETLINK :
		    SOL_SOCKET, (int)(rnd() % 14), rnd_ptr(&v),
		    (socklen_t)(rnd() % 3 * 2));
		break;
	case 9:
		r = syscall(SYS_getsockopt, rnd_fd(), rnd() % 5 ? SOL_NETLINK :
		    SOL_SOCKET, (int)(rnd() % 14), rnd_ptr(buf + 8192),
		    rnd_ptr(lenp));
		break;
	case 10:
		r = syscall(rnd() % 2 ? SYS_getsockname : SYS_getpeername,
		    rnd_fd(), rnd_ptr(buf + 8192), rnd_ptr(lenp));
		break;
	default: {
		struct pollfd p = { .fd = rnd_fd(), .events = POLLIN | POLLOUT };

		r = poll(&p, 1, 0);
		break;
	}
	}
	if (r < 0 && !errno_known(errno))
		CHECK(false, "an errno no netlink call gives: %d", errno);
}

/* A fresh socket's link dump still ends in NLMSG_DONE. */
static void
check_alive(void)
{
	struct {
		struct nlmsghdr h;
		struct rtgenmsg g;
	} req = { { NLMSG_LENGTH(1), RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP,
	    7, 0 }, { AF_UNSPEC } };
	int fd = (int)CHECK_OK(socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE));
	bool done = false;

	CHECK_EQ(send(fd, &req, req.h.nlmsg_len, 0), req.h.nlmsg_len);
	for (int i = 0; i < 100 && !done; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long n;

		if (!CHECK_EQ(poll(&p, 1, 5000), 1))
			break;
		n = recv(fd, rbuf, sizeof(rbuf), 0);
		for (struct nlmsghdr *h = (void *)rbuf; n > 0 &&
		    NLMSG_OK(h, (unsigned long)n); h = NLMSG_NEXT(h, n))
			done |= h->nlmsg_type == NLMSG_DONE;
	}
	CHECK(done, "a link dump after the storm");
	close(fd);
}

int
main(int argc, char **argv)
{
	if (argc > 1)
		rnd_state = strtoull(argv[1], NULL, 0) | 1;
	/* In vkernel, unshare is EINVAL and the network cannot change. */
	if (geteuid() == 0 && unshare(CLONE_NEWNET) != 0 && errno != EINVAL)
		gets_only = true;
	for (int i = 0; i < NFDS; i++)
		fds[i] = -1;
	for (int i = 0; i < ROUNDS; i++)
		one_call();
	for (int i = 0; i < NFDS; i++)
		close(fds[i]);
	check_alive();
	return guest_done();
}
