/*
 * Local sockets: names and connections.  bind names a socket with a path
 * (a socket node in the file system, found again through its vnode) or
 * an abstract name (kept only in the list of bound sockets); connect
 * finds the listener by name and queues a new server end on it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "vkern/kern/proc.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/socket.h"
#include "vkern/vfs/unix_sock.h"
#include "vkern/vfs/vfs.h"

#define SOMAXCONN_DEF  4096

static struct usock *bound;
static unsigned autobind_next;

void
unix_unbind(struct usock *so)
{
	if (so->name.len == 0)
		return;
	for (struct usock **q = &bound; *q != NULL; q = &(*q)->bound_next) {
		if (*q == so) {
			*q = so->bound_next;
			break;
		}
	}
	if (so->vn != NULL)
		vnode_rel(so->vn);
	so->vn = NULL;
}

/* --- names --- */

int
uaddr_check(struct sockname *ua)
{
	size_t plen;

	if (ua->len <= offsetof(struct sockaddr_un, sun_path) ||
	    ua->len > sizeof(struct sockaddr_un))
		return -EINVAL;
	if (ua->sun.sun_family != AF_UNIX)
		return -EINVAL;
	if (ua->sun.sun_path[0] == '\0')
		return 0;
	/* A path ends at its first NUL, or where the length ends. */
	plen = strnlen(ua->sun.sun_path, ua->len -
	    offsetof(struct sockaddr_un, sun_path));
	ua->raw[offsetof(struct sockaddr_un, sun_path) + plen] = '\0';
	ua->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen +
	    1);
	return 0;
}

static bool
is_path(const struct sockname *ua)
{
	return ua->sun.sun_path[0] != '\0';
}

static struct usock *
find_abstract(const struct sockname *ua)
{
	for (struct usock *so = bound; so != NULL; so = so->bound_next)
		if (so->vn == NULL && so->name.len == ua->len &&
		    memcmp(so->name.sun.sun_path, ua->sun.sun_path, ua->len -
		    offsetof(struct sockaddr_un, sun_path)) == 0)
			return so;
	return NULL;
}

int
find_bound(struct proc *p, const struct sockname *ua, int type,
    struct usock **sop)
{
	struct nameidata nd;
	struct usock *so = NULL;
	int r;

	if (!is_path(ua)) {
		so = find_abstract(ua);
	} else {
		if ((r = vfs_lookup(p, AT_FDCWD, ua->sun.sun_path,
		    LOOKUP_FOLLOW, &nd)) < 0)
			return r;
		if (nd.vp->type != VSOCK) {
			nd_release(&nd);
			return -ECONNREFUSED;
		}
		if ((r = vfs_access(p, nd.vp, 2, false)) < 0) {
			nd_release(&nd);
			return r;
		}
		for (so = bound; so != NULL; so = so->bound_next)
			if (so->vn == nd.vp)
				break;
		nd_release(&nd);
	}
	if (so == NULL || so->dead)
		return -ECONNREFUSED;
	if (so->sk.type != type)
		return -EPROTOTYPE;
	*sop = so;
	return 0;
}

/* bind with nothing but the family: a fresh abstract name of 5 digits. */
static void
autobind_name(struct sockname *ua)
{
	do {
		memset(ua, 0, sizeof(*ua));
		ua->sun.sun_family = AF_UNIX;
		snprintf(ua->sun.sun_path + 1, sizeof(ua->sun.sun_path) - 1,
		    "%05x", autobind_next++ & 0xfffff);
		ua->len = offsetof(struct sockaddr_un, sun_path) + 6;
	} while (find_abstract(ua) != NULL);
}

int
usock_bind(struct proc *p, struct socket *sk, const struct sockname *uain)
{
	struct usock *so = usk(sk);
	struct sockname ua = *uain;
	struct vnode *vn = NULL;
	int r;

	if (ua.len == sizeof(sa_family_t)) {
		if (ua.sun.sun_family != AF_UNIX)
			return -EINVAL;
		if (so->name.len > 0)
			return -EINVAL;
		autobind_name(&ua);
	} else if ((r = uaddr_check(&ua)) < 0) {
		return r;
	}
	if (so->name.len > 0)
		return -EINVAL;
	if (is_path(&ua)) {
		r = vfs_mknod(p, AT_FDCWD, ua.sun.sun_path, S_IFSOCK |
		    (0777 & ~p->fs->umask), &vn);
		if (r < 0)
			return r == -EEXIST ? -EADDRINUSE : r;
	} else if (find_abstract(&ua) != NULL) {
		return -EADDRINUSE;
	}
	so->name = ua;
	so->vn = vn;
	so->bound_next = bound;
	bound = so;
	return 0;
}

int
usock_name(struct socket *sk, bool peer, struct sockname *ua)
{
	struct usock *so = usk(sk);

	if (peer) {
		if (so->peer == NULL || (connection_based(so) &&
		    so->state != US_CONNECTED))
			return -ENOTCONN;
		so = so->peer;
	}
	if (so->name.len > 0) {
		*ua = so->name;
	} else {
		memset(ua, 0, sizeof(*ua));
		ua->sun.sun_family = AF_UNIX;
		ua->len = sizeof(sa_family_t);
	}
	return 0;
}

/* --- connections --- */

/* Where a datagram goes: its named socket, or the one so is connected to. */
int
unix_dgram_target(struct proc *p, struct usock *so,
    const struct sockname *dest, struct usock **tp)
{
	struct sockname a;
	int r;

	if (dest == NULL) {
		if (so->peer == NULL)
			return -ENOTCONN;
		if (so->peer->dead)
			return -ECONNREFUSED;
		*tp = so->peer;
	} else {
		a = *dest;
		if ((r = uaddr_check(&a)) < 0)
			return r;
		if ((r = find_bound(p, &a, so->sk.type, tp)) < 0)
			return r;
	}
	/* A socket connected elsewhere takes datagrams from its peer only. */
	if ((*tp)->peer != NULL && (*tp)->peer != so)
		return -EPERM;
	if ((*tp)->shut & SHUT_RCV)
		return -EPIPE;
	return 0;
}

int
usock_listen(struct socket *sk, int backlog, const struct ucred *cred)
{
	struct usock *so = usk(sk);

	if (!connection_based(so))
		return -EOPNOTSUPP;
	if (so->state == US_CONNECTED || so->name.len == 0)
		return -EINVAL;
	if (backlog < 0 || backlog > SOMAXCONN_DEF)
		backlog = SOMAXCONN_DEF;
	so->backlog = backlog;
	so->state = US_LISTENING;
	so->peercred = *cred;
	usock_wake(so);
	return 0;
}

static int
dgram_connect(struct proc *p, struct usock *so, const struct sockname *ua)
{
	struct usock *target;
	struct sockname a = *ua;
	int r;

	if (a.len >= sizeof(sa_family_t) && a.sun.sun_family == AF_UNSPEC) {
		if (so->peer != NULL) {
			usock_rel(so->peer);
			so->peer = NULL;
		}
		return 0;
	}
	if ((r = uaddr_check(&a)) < 0)
		return r;
	if ((r = find_bound(p, &a, so->sk.type, &target)) < 0)
		return r;
	usock_ref(target);
	if (so->peer != NULL)
		usock_rel(so->peer);
	so->peer = target;
	usock_wake(so);
	return 0;
}

int
usock_connect(struct proc *p, struct socket *sk, const struct sockname *ua,
    const struct ucred *cred, bool nonblock, const void **chanp)
{
	struct usock *so = usk(sk);
	struct usock *lis;
	struct sockname a = *ua;
	int r;

	if (!connection_based(so))
		return dgram_connect(p, so, ua);
	if (so->state == US_CONNECTED)
		return -EISCONN;
	if (so->state == US_LISTENING)
		return -EINVAL;
	if ((r = uaddr_check(&a)) < 0)
		return r;
	if ((r = find_bound(p, &a, so->sk.type, &lis)) < 0)
		return r;
	if (lis->state != US_LISTENING)
		return -ECONNREFUSED;
	return usock_join(so, lis, cred, false, chanp);
}

int
usock_join(struct usock *so, struct usock *lis, const struct ucred *cred,
    bool over, const void **chanp)
{
	struct usock *srv;

	if (lis->nacc > lis->backlog && !over) {
		*chanp = lis;
		return -EAGAIN;
	}
	srv = usock_new(lis->proto, lis->sk.family, lis->sk.type,
	    lis->sk.protocol, &lis->sk.cred);
	srv->name = lis->name;
	srv->peercred = *cred;
	so->peercred = lis->peercred;
	so->sk.cred = *cred;
	pair_up(so, srv);
	*lis->acceptq_tail = srv;
	lis->acceptq_tail = &srv->acc_next;
	lis->nacc++;
	usock_wake(lis);
	usock_wake(so);
	return 0;
}

long
usock_accept(struct socket *sk, unsigned oflags, struct file **fpp)
{
	struct usock *so = usk(sk);
	struct usock *srv;

	if (!connection_based(so))
		return -EOPNOTSUPP;
	if (so->state != US_LISTENING)
		return -EINVAL;
	if ((srv = so->acceptq) == NULL)
		return -EAGAIN;
	if ((so->acceptq = srv->acc_next) == NULL)
		so->acceptq_tail = &so->acceptq;
	srv->acc_next = NULL;
	so->nacc--;
	*fpp = sock_file(&srv->sk, oflags);
	usock_wake(so);
	return 0;
}

int
usock_shutdown(struct socket *sk, int how)
{
	struct usock *so = usk(sk);
	int mine, theirs;

	switch (how) {
	case SHUT_RD:
		mine = SHUT_RCV;
		theirs = SHUT_SND;
		break;
	case SHUT_WR:
		mine = SHUT_SND;
		theirs = SHUT_RCV;
		break;
	case SHUT_RDWR:
		mine = theirs = SHUT_RCV | SHUT_SND;
		break;
	default:
		return -EINVAL;
	}
	so->shut |= mine;
	/* TCP tells its peer only that it will send no more. */
	if (so->proto->tcp)
		theirs &= SHUT_RCV;
	if (connection_based(so) && so->peer != NULL)
		so->peer->shut |= theirs;
	usock_wake(so);
	return 0;
}
