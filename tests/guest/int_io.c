/*
 * I/O counts, lengths, commands and flags at the edges of their types,
 * as raw syscalls with 64-bit register values: iovec counts (IOV_MAX,
 * negative), iovec lengths whose sum overflows, poll and select sizes,
 * epoll maxevents, ioctl and fcntl commands, socket levels, options and
 * lengths, and int flags words whose register's high bits are ignored.
 */
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <time.h>

#include "int_common.h"

#define HI (1L << 32)

static int pfd[2], mfd;

static void
check_iovec(void)
{
	static const long bad[] = {
		-1, INT_MIN, INT_MAX, 1025, UINT_MAX, 1L << 31, HI | 1025,
	};
	char buf[4] = "abc";
	struct iovec iov[2] = { { buf, 1 }, { buf, 1 } };
	struct iovec big[2] = { { buf, SSIZE_MAX }, { buf, SSIZE_MAX } };
	struct iovec neg = { buf, (size_t)-1 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_ERR(syscall(SYS_writev, pfd[1], iov, bad[i]), EINVAL);
		CHECK_ERR(syscall(SYS_readv, pfd[0], iov, bad[i]), EINVAL);
		CHECK_ERR(syscall(SYS_pwritev, mfd, iov, bad[i], 0), EINVAL);
		CHECK_ERR(syscall(SYS_preadv2, mfd, iov, bad[i], 0, 0, 0),
		    EINVAL);
	}
	CHECK_EQ(syscall(SYS_writev, pfd[1], iov, HI | 2), 2);
	CHECK_EQ(syscall(SYS_readv, pfd[0], iov, HI | 2), 2);
	CHECK_EQ(syscall(SYS_writev, pfd[1], iov, HI), 0);
	/* A total past SSIZE_MAX is cut to what one call moves, not EINVAL. */
	CHECK_ERR(syscall(SYS_writev, mfd, big, 2), EFAULT);
	CHECK_ERR(syscall(SYS_readv, mfd, big, 2), EFAULT);
	CHECK_ERR(syscall(SYS_writev, mfd, &neg, 1), EINVAL);
	CHECK_ERR(syscall(SYS_preadv, mfd, iov, 1, -1L), EINVAL);
	CHECK_ERR(syscall(SYS_preadv, mfd, iov, 1, LONG_MIN), EINVAL);
	CHECK_ERR(syscall(SYS_preadv, pfd[0], iov, 1, 0), ESPIPE);
	CHECK_ERR(syscall(SYS_pwritev2, mfd, iov, 1, 0, 0, INT_MAX),
	    EOPNOTSUPP);
	CHECK_EQ(syscall(SYS_pwritev2, mfd, iov, 1, 0, 0, HI), 1);
	CHECK_EQ(syscall(SYS_pwritev2, mfd, iov, HI | 1, HI | 1, HI, HI), 1);
}

static void
check_poll(void)
{
	struct pollfd p = { pfd[0], POLLIN, 0 };
	uint64_t mask = 0;
	struct timespec zero = { 0, 0 };

	CHECK_ERR(syscall(SYS_poll, &p, UINT_MAX, 0), EINVAL);
	CHECK_ERR(syscall(SYS_poll, &p, 1L << 31, 0), EINVAL);
	CHECK_ERR(syscall(SYS_poll, &p, (long)INT_MAX, 0), EINVAL);
	CHECK_EQ(syscall(SYS_poll, &p, HI | 1, HI), 0);
	CHECK_EQ(syscall(SYS_poll, &p, HI, 0), 0);
	CHECK_ERR(syscall(SYS_ppoll, &p, 1, &zero, &mask, 16), EINVAL);
	CHECK_ERR(syscall(SYS_ppoll, &p, 1, &zero, &mask, HI | 8), EINVAL);
	CHECK_EQ(syscall(SYS_ppoll, &p, 1, &zero, &mask, 8), 0);
	CHECK_ERR(syscall(SYS_select, -1L, NULL, NULL, NULL, &zero), EINVAL);
	CHECK_ERR(syscall(SYS_select, (long)INT_MIN, NULL, NULL, NULL, &zero),
	    EINVAL);
	CHECK_EQ(syscall(SYS_select, (long)INT_MAX, NULL, NULL, NULL,
	    &(struct timeval){ 0, 0 }), 0);
	CHECK_EQ(syscall(SYS_select, HI, NULL, NULL, NULL,
	    &(struct timeval){ 0, 0 }), 0);
	CHECK_ERR(syscall(SYS_select, 1, NULL, NULL, NULL,
	    &(struct timeval){ -1, 0 }), EINVAL);
}

static void
check_epoll(void)
{
	struct epoll_event ev[2];
	long ep;

	CHECK_ERR(syscall(SYS_epoll_create, 0), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_create, -1L), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_create, (long)INT_MIN), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_create1, INT_MAX), EINVAL);
	ep = CHECK_OK(syscall(SYS_epoll_create1, HI));
	if (ep < 0)
		return;
	CHECK_ERR(syscall(SYS_epoll_wait, ep, ev, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_wait, ep, ev, -1L, 0), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_wait, ep, ev, (long)INT_MIN, 0), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_wait, ep, ev, (long)INT_MAX, 0), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_wait, ep, ev, (long)INT_MAX / 12 + 1, 0),
	    EINVAL);
	CHECK_EQ(syscall(SYS_epoll_wait, ep, ev, HI | 2, HI), 0);
	CHECK_ERR(syscall(SYS_epoll_pwait, ep, ev, 2, 0, &(uint64_t){ 0 },
	    HI | 8), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_ctl, ep, INT_MAX, pfd[0], ev), EINVAL);
	CHECK_ERR(syscall(SYS_epoll_ctl, ep, -1L, pfd[0], ev), EINVAL);
	ev[0] = (struct epoll_event){ .events = EPOLLIN };
	CHECK_EQ(syscall(SYS_epoll_ctl, ep, HI | EPOLL_CTL_ADD, pfd[0], ev),
	    0);
	close((int)ep);
}

static void
check_ioctl_fcntl(void)
{
	int n = -1;

	CHECK_EQ(syscall(SYS_ioctl, pfd[0], HI | FIONREAD, &n), 0);
	CHECK_EQ(n, 0);
	CHECK_ERR(syscall(SYS_ioctl, pfd[0], UINT_MAX, &n), ENOTTY);
	CHECK_ERR(syscall(SYS_ioctl, pfd[0], -1L, &n), ENOTTY);
	CHECK_ERR(syscall(SYS_ioctl, pfd[0], HI, &n), ENOTTY);
	CHECK_EQ(syscall(SYS_fcntl, pfd[0], HI | F_GETFD), 0);
	CHECK_ERR(syscall(SYS_fcntl, pfd[0], INT_MAX), EINVAL);
	CHECK_ERR(syscall(SYS_fcntl, pfd[0], -1L), EINVAL);
	CHECK_ERR(syscall(SYS_fcntl, pfd[0], INT_MIN), EINVAL);
	CHECK_ERR(syscall(SYS_fcntl, pfd[0], F_SETPIPE_SZ, -1L), EINVAL);
	/* The size is an unsigned int. */
	CHECK_EQ(syscall(SYS_fcntl, pfd[0], F_SETPIPE_SZ, HI | 4096), 4096);
	CHECK_ERR(syscall(SYS_fcntl, pfd[0], F_SETPIPE_SZ, 1L << 31 | 1),
	    EINVAL);
	CHECK(syscall(SYS_fcntl, pfd[0], F_SETPIPE_SZ, 0) >= 4096,
	    "F_SETPIPE_SZ 0 gives a page");
	CHECK_ERR(syscall(SYS_lseek, pfd[0], 0, INT_MAX), EINVAL);
	CHECK_ERR(syscall(SYS_lseek, mfd, 0, INT_MAX), EINVAL);
	CHECK_ERR(syscall(SYS_lseek, mfd, 0, -1L), EINVAL);
	CHECK_EQ(syscall(SYS_lseek, mfd, 1, HI | SEEK_SET), 1);
	CHECK_ERR(syscall(SYS_pipe2, &(int[2]){ 0 }, INT_MAX), EINVAL);
	CHECK_ERR(syscall(SYS_eventfd2, 0, INT_MAX), EINVAL);
	n = (int)CHECK_OK(syscall(SYS_eventfd2, UINT_MAX, HI));
	if (n >= 0)
		close(n);
}

/*
 * msghdr lengths: iovlen and controllen are size_t, namelen an int.  The
 * kernel's layout, since musl's msghdr has an int iovlen and controllen.
 */
struct kmsghdr {
	void *name;
	uint32_t namelen, pad;
	struct iovec *iov;
	uint64_t iovlen;
	void *control;
	uint64_t controllen;
	int flags;
};

struct kmmsghdr {
	struct kmsghdr hdr;
	unsigned len;
};

static void
check_msg(int s)
{
	char c = 'x';
	struct iovec iov = { &c, 1 };
	struct sockaddr_un dst = { .sun_family = AF_UNIX };
	struct kmsghdr m = { .iov = &iov, .iovlen = 1 };
	struct kmmsghdr mm = { .hdr = m };
	int sv[2];

	m.iovlen = HI | 1;
	CHECK_ERR(syscall(SYS_sendmsg, s, &m, 0), EMSGSIZE);
	m.iovlen = 1025;
	CHECK_ERR(syscall(SYS_sendmsg, s, &m, 0), EMSGSIZE);
	m.iovlen = 1;
	m.control = &c;
	m.controllen = (uint64_t)INT_MAX + 1;
	CHECK_ERR(syscall(SYS_sendmsg, s, &m, 0), ENOBUFS);
	m.control = NULL;
	m.controllen = 0;
	m.name = &dst;
	m.namelen = (uint32_t)-1;
	CHECK_ERR(syscall(SYS_sendmsg, s, &m, 0), EINVAL);
	m.namelen = (uint32_t)INT_MIN;
	CHECK_ERR(syscall(SYS_sendmsg, s, &m, 0), EINVAL);
	if (!CHECK_OK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)))
		return;
	/* A count past what is there stops at the first bad entry. */
	CHECK_EQ(syscall(SYS_sendmmsg, sv[0], &mm, UINT_MAX, HI), 1);
	CHECK_EQ(syscall(SYS_sendmmsg, sv[0], &mm, HI | 1, 0), 1);
	CHECK_EQ(syscall(SYS_sendmmsg, sv[0], &mm, HI, 0), 0);
	close(sv[0]);
	close(sv[1]);
}

static void
check_sockets(void)
{
	int v = 0, s, u;
	socklen_t len;

	CHECK_ERR(syscall(SYS_socket, INT_MAX, SOCK_STREAM, 0), EAFNOSUPPORT);
	CHECK_ERR(syscall(SYS_socket, -1L, SOCK_STREAM, 0), EAFNOSUPPORT);
	CHECK_ERR(syscall(SYS_socket, (long)INT_MIN, SOCK_STREAM, 0),
	    EAFNOSUPPORT);
	CHECK_ERR(syscall(SYS_socket, AF_UNIX, INT_MAX, 0), EINVAL);
	CHECK_ERR(syscall(SYS_socket, AF_UNIX, -1L, 0), EINVAL);
	CHECK_ERR(syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, INT_MAX),
	    EPROTONOSUPPORT);
	CHECK_ERR(syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, -1L),
	    EPROTONOSUPPORT);
	s = (int)CHECK_OK(syscall(SYS_socket, HI | AF_UNIX, HI | SOCK_DGRAM,
	    HI));
	u = (int)CHECK_OK(syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0));
	if (s < 0 || u < 0)
		return;
	CHECK_ERR(syscall(SYS_setsockopt, s, INT_MAX, 1, &v, 4), EOPNOTSUPP);
	CHECK_ERR(syscall(SYS_setsockopt, s, -1L, 1, &v, 4), EOPNOTSUPP);
	CHECK_ERR(syscall(SYS_setsockopt, s, SOL_SOCKET, INT_MAX, &v, 4),
	    ENOPROTOOPT);
	CHECK_ERR(syscall(SYS_setsockopt, s, SOL_SOCKET, -1L, &v, 4),
	    ENOPROTOOPT);
	CHECK_ERR(syscall(SYS_setsockopt, s, SOL_SOCKET, SO_RCVBUF, &v, -1L),
	    EINVAL);
	CHECK_ERR(syscall(SYS_setsockopt, s, SOL_SOCKET, SO_RCVBUF, &v,
	    (long)INT_MIN), EINVAL);
	CHECK_ERR(syscall(SYS_setsockopt, s, SOL_SOCKET, SO_RCVBUF, &v, 3),
	    EINVAL);
	v = INT_MAX;
	CHECK_EQ(syscall(SYS_setsockopt, HI | s, HI | SOL_SOCKET,
	    HI | SO_RCVBUF, &v, HI | 4), 0);
	v = INT_MIN;
	CHECK_EQ(syscall(SYS_setsockopt, s, SOL_SOCKET, SO_SNDBUF, &v, 4), 0);
	len = sizeof(v);
	CHECK_EQ(syscall(SYS_getsockopt, s, SOL_SOCKET, SO_SNDBUF, &v, &len),
	    0);
	CHECK(v > 0, "SO_SNDBUF after INT_MIN is positive: %d", v);
	v = INT_MAX;
	CHECK_EQ(syscall(SYS_setsockopt, s, SOL_SOCKET, SO_SNDBUF, &v, 4), 0);
	CHECK_EQ(syscall(SYS_getsockopt, s, SOL_SOCKET, SO_SNDBUF, &v, &len),
	    0);
	CHECK(v > 0, "SO_SNDBUF after INT_MAX is positive: %d", v);
	len = (socklen_t)-1;
	CHECK_ERR(syscall(SYS_getsockopt, s, SOL_SOCKET, SO_TYPE, &v, &len),
	    EINVAL);
	len = INT_MAX;
	CHECK_EQ(syscall(SYS_getsockopt, s, SOL_SOCKET, SO_TYPE, &v, &len), 0);
	CHECK_EQ(len, 4);
	CHECK_ERR(syscall(SYS_getsockopt, s, INT_MAX, 1, &v, &len),
	    EOPNOTSUPP);
	CHECK_ERR(syscall(SYS_bind, s, &(struct sockaddr){ AF_UNIX, "" },
	    UINT_MAX), EINVAL);
	CHECK_ERR(syscall(SYS_bind, s, &(struct sockaddr){ AF_UNIX, "" },
	    1L << 31), EINVAL);
	/* A backlog out of 0..somaxconn is somaxconn. */
	CHECK_EQ(syscall(SYS_bind, u, &(struct sockaddr){ AF_UNIX, "" },
	    HI | sizeof(sa_family_t)), 0);
	CHECK_EQ(syscall(SYS_listen, u, INT_MIN), 0);
	CHECK_EQ(syscall(SYS_listen, u, INT_MAX), 0);
	CHECK_EQ(syscall(SYS_listen, u, -1L), 0);
	CHECK_ERR(syscall(SYS_accept4, u, NULL, NULL, INT_MAX), EINVAL);
	check_msg(s);
	CHECK_ERR(syscall(SYS_shutdown, s, INT_MAX), EINVAL);
	CHECK_ERR(syscall(SYS_shutdown, s, -1L), EINVAL);
	close(s);
	close(u);
}

/*
 * Memory calls: madvise's advice and msync's flags are ints, mmap's,
 * mprotect's and mremap's flags and protections unsigned longs.
 */
/*
 * A shared mapping of a gigabyte of a file far shorter (its pages past
 * the end would fault with SIGBUS) is made at once, as on Linux: a kernel
 * that keeps such a mapping as a quarter of a million page entries must
 * not take time quadratic in them to merge them.
 */
static void
check_mm_long(void)
{
	const size_t len = 1UL << 30;
	struct timespec t0, t1;
	char *q;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!CHECK(q != MAP_FAILED, "mmap of 1 GiB of a memfd"))
		return;
	CHECK(t1.tv_sec - t0.tv_sec < 10, "mmap of 1 GiB took %ld s",
	    (long)(t1.tv_sec - t0.tv_sec));
	guest_munmap(q, len);
}

static void
check_mm(void)
{
	char *p = guest_anon(2 * GUEST_PAGE, PROT_READ | PROT_WRITE);

	if (!CHECK(p != MAP_FAILED, "mmap"))
		return;
	CHECK_EQ(syscall(SYS_madvise, p, GUEST_PAGE, HI | MADV_NORMAL), 0);
	CHECK_ERR(syscall(SYS_madvise, p, GUEST_PAGE, INT_MAX), EINVAL);
	CHECK_ERR(syscall(SYS_madvise, p, GUEST_PAGE, -1L), EINVAL);
	CHECK_EQ(syscall(SYS_msync, p, GUEST_PAGE, HI | MS_ASYNC), 0);
	CHECK_ERR(syscall(SYS_msync, p, GUEST_PAGE, INT_MAX), EINVAL);
	CHECK_ERR(syscall(SYS_mprotect, p, GUEST_PAGE, HI | PROT_READ),
	    EINVAL);
	CHECK_ERR(syscall(SYS_mprotect, p, GUEST_PAGE, -1L), EINVAL);
	CHECK_ERR(syscall(SYS_mremap, p, GUEST_PAGE, GUEST_PAGE,
	    HI | MREMAP_MAYMOVE, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_mremap, p, GUEST_PAGE, GUEST_PAGE, -1L, NULL),
	    EINVAL);
	CHECK_ERR(syscall(SYS_mmap, NULL, GUEST_PAGE, PROT_READ, HI |
	    MAP_PRIVATE | MAP_ANONYMOUS | 0x3, -1, 0), EINVAL);
	CHECK_ERR(syscall(SYS_mmap, NULL, GUEST_PAGE, PROT_READ, 0, -1, 0),
	    EBADF);
	CHECK_ERR(syscall(SYS_mmap, NULL, GUEST_PAGE, PROT_READ, 0, mfd, 0),
	    EINVAL);
	CHECK_ERR(syscall(SYS_mmap, NULL, 0, PROT_READ, MAP_SHARED, -1, 0),
	    EBADF);
	guest_munmap(p, 2 * GUEST_PAGE);
	check_mm_long();
}

/* Sizes and flags of calls that fill a buffer. */
static void
check_misc(void)
{
	char buf[64];

	CHECK_ERR(syscall(SYS_getrandom, buf, 8, INT_MAX), EINVAL);
	CHECK_EQ(syscall(SYS_getrandom, buf, 8, HI | 1), 8);
	CHECK_ERR(syscall(SYS_readlink, "/proc/self/exe", buf, -1L), EINVAL);
	CHECK_ERR(syscall(SYS_readlink, "/proc/self/exe", buf, (long)INT_MIN),
	    EINVAL);
	CHECK_ERR(syscall(SYS_readlink, "/proc/self/exe", buf, 0), EINVAL);
	CHECK_EQ(syscall(SYS_readlink, "/proc/self/exe", buf, HI | 1), 1);
	CHECK_ERR(syscall(SYS_membarrier, INT_MAX, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_membarrier, -1L, 0, 0), EINVAL);
	CHECK(syscall(SYS_membarrier, HI, HI, 0) >= 0, "membarrier(QUERY)");
	CHECK_ERR(syscall(SYS_membarrier, 0, INT_MAX, 0), EINVAL);
	CHECK_ERR(syscall(SYS_getcwd, buf, 0), ERANGE);
}

int
main(int argc, char **argv)
{
	int r;

	if ((r = int_drop_if_asked(argc, argv)) != 0)
		return r;
	if (pipe(pfd) != 0 ||
	    (mfd = (int)syscall(SYS_memfd_create, "int_io", 0)) < 0)
		return 1;
	check_iovec();
	check_poll();
	check_epoll();
	check_ioctl_fcntl();
	check_sockets();
	check_mm();
	check_misc();
	return guest_done();
}
