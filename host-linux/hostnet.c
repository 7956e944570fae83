/*
 * The host network (--net=host): the guest's Internet sockets as host
 * sockets vkernel holds, the handle being the host fd.
 *
 * The kernel has checked the names and options (platform_net.h); this
 * side checks the family, type and option again and fixes every flag, so
 * that what reaches the host is what the lock-down allows whatever the
 * kernel asks: sockets only AF_INET/AF_INET6 of SOCK_STREAM/SOCK_DGRAM,
 * non-blocking and close-on-exec, sends never raising SIGPIPE.
 *
 * The watched sockets are kept as pollfds for the event loop's ppoll
 * (ptrace.c's wait_slow).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "host-linux/host.h"
#include "vkern/platform.h"
#include "vkern/vk.h"

#define NET_FLAGS (SOCK_NONBLOCK | SOCK_CLOEXEC)

static struct pollfd *watch;
static unsigned nwatch, capwatch;

static int
neg_errno(long r)
{
	return r < 0 ? -errno : (int)r;
}

int
plat_net_socket(int family, int type)
{
	if ((family != AF_INET && family != AF_INET6) ||
	    (type != SOCK_STREAM && type != SOCK_DGRAM))
		return -EAFNOSUPPORT;
	return neg_errno(socket(family, type | NET_FLAGS, 0));
}

void
plat_net_close(int h)
{
	plat_net_watch(h, 0);
	close(h);
}

int
plat_net_bind(int h, const struct sockaddr *sa, socklen_t len)
{
	return neg_errno(bind(h, sa, len));
}

int
plat_net_listen(int h, int backlog)
{
	return neg_errno(listen(h, backlog));
}

int
plat_net_connect(int h, const struct sockaddr *sa, socklen_t len)
{
	return neg_errno(connect(h, sa, len));
}

int
plat_net_accept(int h, struct sockaddr *sa, socklen_t *len)
{
	return neg_errno(accept4(h, sa, len, NET_FLAGS));
}

int
plat_net_shutdown(int h, int how)
{
	return neg_errno(shutdown(h, how));
}

int
plat_net_name(int h, bool peer, struct sockaddr *sa, socklen_t *len)
{
	return neg_errno(peer ? getpeername(h, sa, len) :
	    getsockname(h, sa, len));
}

long
plat_net_send(int h, const void *buf, size_t len, int flags,
    const struct sockaddr *sa, socklen_t salen)
{
	ssize_t r = sendto(h, buf, len, (flags & MSG_MORE) | MSG_DONTWAIT |
	    MSG_NOSIGNAL, sa, salen);

	return r < 0 ? -errno : (long)r;
}

long
plat_net_recv(int h, void *buf, size_t len, int flags, struct sockaddr *sa,
    socklen_t *salen)
{
	ssize_t r = recvfrom(h, buf, len, (flags & (MSG_PEEK | MSG_TRUNC)) |
	    MSG_DONTWAIT, sa, sa != NULL ? salen : NULL);

	return r < 0 ? -errno : (long)r;
}

int
plat_net_getopt(int h, int level, int name, void *val, socklen_t *len)
{
	if (!plat_net_opt_ok(level, name))
		return -ENOPROTOOPT;
	return neg_errno(getsockopt(h, level, name, val, len));
}

int
plat_net_setopt(int h, int level, int name, const void *val, socklen_t len)
{
	const struct linger *l = val;

	if (!plat_net_opt_ok(level, name))
		return -ENOPROTOOPT;
	/* A linger longer than none would block vkernel in close. */
	if (level == SOL_SOCKET && name == SO_LINGER &&
	    (len < sizeof(*l) || (l->l_onoff && l->l_linger != 0)))
		return -EINVAL;
	return neg_errno(setsockopt(h, level, name, val, len));
}

long
plat_net_nbytes(int h, bool out)
{
	int n = 0;

	if (ioctl(h, out ? SIOCOUTQ : SIOCINQ, &n) < 0)
		return -errno;
	return n;
}

short
plat_net_poll(int h)
{
	struct pollfd p = { .fd = h,
	    .events = POLLIN | POLLOUT | POLLPRI | POLLRDHUP };
	struct timespec zero = { 0, 0 };

	if (ppoll(&p, 1, &zero, NULL) < 0)
		return POLLERR;
	return p.revents;
}

void
plat_net_watch(int h, short events)
{
	unsigned i;

	for (i = 0; i < nwatch && watch[i].fd != h; i++)
		;
	if (events == 0) {
		if (i < nwatch)
			watch[i] = watch[--nwatch];
		return;
	}
	if (i == nwatch) {
		if (nwatch == capwatch) {
			capwatch = capwatch * 2 + 8;
			watch = vk_xrealloc(watch, capwatch * sizeof(*watch));
		}
		nwatch++;
	}
	watch[i] = (struct pollfd){ .fd = h, .events = events };
}

unsigned
hostnet_watched(const struct pollfd **pp)
{
	*pp = watch;
	return nwatch;
}
