/*
 * The family-independent part of sockets: the families there are, the
 * open file every socket is (read, write, poll, stat, close through its
 * ops), the SOL_SOCKET options every socket keeps, and the ioctls every
 * socket answers.  See socket.h for how a family plugs in.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/net/net.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/net/net.h"
#include "vkern/vfs/socket.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

extern const struct sock_family unix_family, inet_family, inet6_family;
extern const struct sock_family netlink_family;
extern const struct sock_family hostnet_family, hostnet6_family;

/* Every family there is, by number. */
static const struct sock_family *const families[AF_MAX] = {
	[AF_UNIX] = &unix_family,
	[AF_INET] = &inet_family,
	[AF_INET6] = &inet6_family,
	[AF_NETLINK] = &netlink_family,
};

const struct sock_family *
sock_family(int af)
{
	if (af < 0 || af >= AF_MAX)
		return NULL;
	/* --net=host: every Internet socket is a host socket. */
	if (kern_cfg()->net_host && af == AF_INET)
		return &hostnet_family;
	if (kern_cfg()->net_host && af == AF_INET6)
		return &hostnet6_family;
	return families[af];
}

static uint64_t sock_ino = 20000;

void
sock_init(struct socket *so, const struct sock_ops *ops, int family,
    int type, int protocol, const struct ucred *cred)
{
	so->ops = ops;
	so->family = family;
	so->type = type;
	so->protocol = protocol;
	so->sndbuf = so->rcvbuf = SOCKBUF_DEF;
	so->rcvlowat = 1;
	so->cred = *cred;
	so->ino = sock_ino++;
}

void
sock_wake(struct socket *so)
{
	sched_wake_chan(so);
	poll_wake();
}

int
sock_take_error(struct socket *so)
{
	int e = so->error;

	so->error = 0;
	return -e;
}

int64_t
sock_timeo(const struct socket *so, bool send)
{
	return send ? so->sndtimeo : so->rcvtimeo;
}

/* --- the file --- */

static struct socket *
fp_sock(struct file *fp)
{
	return fp->data;
}

/* read(2) and write(2) move bytes between a socket and a host buffer. */
static int
copy_to_buf(void *arg, void *kbuf, size_t n)
{
	uint8_t **bufp = arg;

	memcpy(*bufp, kbuf, n);
	*bufp += n;
	return 0;
}

static int
copy_from_buf(void *arg, void *kbuf, size_t n)
{
	const uint8_t **bufp = arg;

	memcpy(kbuf, *bufp, n);
	*bufp += n;
	return 0;
}

static long
sock_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	struct socket *so = fp_sock(fp);
	struct scm scm = { .nfds = 0 };
	uint8_t *pos = buf;
	int fl = 0;
	long r;

	r = so->ops->recv(so, len, copy_to_buf, &pos, 0, &fl, NULL, &scm);
	scm_release(&scm);
	return r;
}

static long
sock_write(struct file *fp, const void *buf, size_t len, uint64_t *offp)
{
	struct socket *so = fp_sock(fp);
	const uint8_t *pos = buf;
	const void *chan;
	struct scm scm;
	long r;

	scm_init(&scm, curthread->proc);
	r = so->ops->send(NULL, so, len, copy_from_buf, &pos, NULL, &scm, 0,
	    &chan);
	scm_release(&scm);
	return r;
}

static int
sock_stat(struct file *fp, struct vattr *va)
{
	struct socket *so = fp_sock(fp);

	*va = (struct vattr){ .ino = so->ino, .dev = 0x8,
	    .mode = S_IFSOCK | 0777, .nlink = 1, .blksize = 4096,
	    .uid = so->cred.uid, .gid = so->cred.gid };
	return 0;
}

static void
sock_close(struct file *fp)
{
	struct socket *so = fp_sock(fp);

	so->fp = NULL;
	so->ops->release(so);
}

static short
sock_poll(struct file *fp)
{
	struct socket *so = fp_sock(fp);

	return so->ops->poll(so);
}

static const struct file_ops sock_fileops = {
	.read = sock_read,
	.write = sock_write,
	.stat = sock_stat,
	.close = sock_close,
	.poll = sock_poll,
	.whole_writes = true,
	.syncs = true,
};

bool
file_is_socket(const struct file *fp)
{
	return fp->ops == &sock_fileops;
}

struct socket *
sock_of(struct file *fp)
{
	return file_is_socket(fp) ? fp->data : NULL;
}

struct file *
sock_file(struct socket *so, unsigned oflags)
{
	char path[40];
	struct file *fp;

	snprintf(path, sizeof(path), "socket:[%llu]",
	    (unsigned long long)so->ino);
	fp = file_alloc(&sock_fileops, NULL, O_RDWR | (oflags & O_NONBLOCK),
	    path);
	fp->data = so;
	fp->chan = so;
	so->fp = fp;
	return fp;
}

/* --- options (SOL_SOCKET) --- */

int
sock_put_int(void *val, socklen_t *len, int v)
{
	if (*len > sizeof(int))
		*len = sizeof(int);
	memcpy(val, &v, *len);
	return 0;
}

/* SO_RCVTIMEO and SO_SNDTIMEO, old and new: a struct timeval of 64 bits. */
static int
timeo_get(int64_t ns, void *val, socklen_t *len)
{
	int64_t tv[2] = { ns / 1000000000, ns % 1000000000 / 1000 };

	if (*len > sizeof(tv))
		*len = sizeof(tv);
	memcpy(val, tv, *len);
	return 0;
}

static int
timeo_set(int64_t *nsp, const void *val, socklen_t len)
{
	int64_t tv[2];

	if (len < sizeof(tv))
		return -EINVAL;
	memcpy(tv, val, sizeof(tv));
	if (tv[1] < 0 || tv[1] >= 1000000)
		return -EDOM;
	if (tv[0] < 0)
		*nsp = 0;
	else if (tv[0] >= INT64_MAX / 1000000000 - 1)
		*nsp = 0;
	else
		*nsp = tv[0] * 1000000000 + tv[1] * 1000;
	return 0;
}

/*
 * The on/off options every socket keeps and reports; a family may act
 * on them (SO_REUSEADDR) or not (SO_KEEPALIVE on a local socket).
 */
static bool
flag_opt(int name)
{
	switch (name) {
	case SO_REUSEADDR:
	case SO_REUSEPORT:
	case SO_KEEPALIVE:
	case SO_BROADCAST:
	case SO_OOBINLINE:
	case SO_DONTROUTE:
		return true;
	}
	return false;
}

/* What a common option's handler returns for an option it does not keep. */
#define OPT_FAMILY 1

/* SO_RCVTIMEO's or SO_SNDTIMEO's (old or new) value, else NULL. */
static int64_t *
timeo_opt(struct socket *so, int name)
{
	switch (name) {
	case SO_RCVTIMEO_OLD:
	case SO_RCVTIMEO_NEW:
		return &so->rcvtimeo;
	case SO_SNDTIMEO_OLD:
	case SO_SNDTIMEO_NEW:
		return &so->sndtimeo;
	}
	return NULL;
}

static int
common_getopt(struct socket *so, int name, void *val, socklen_t *len)
{
	int64_t *timeo = timeo_opt(so, name);

	if (timeo != NULL)
		return timeo_get(*timeo, val, len);
	if (flag_opt(name))
		return sock_put_int(val, len, (so->optflags >> name) & 1);
	switch (name) {
	case SO_PRIORITY:
		return sock_put_int(val, len, so->priority);
	case SO_RCVLOWAT:
		return sock_put_int(val, len, so->rcvlowat);
	case SO_LINGER:
		if (*len > sizeof(so->linger))
			*len = sizeof(so->linger);
		memcpy(val, &so->linger, *len);
		return 0;
	case SO_TYPE:
		return sock_put_int(val, len, so->type);
	case SO_DOMAIN:
		return sock_put_int(val, len, so->family);
	case SO_PROTOCOL:
		return sock_put_int(val, len, so->protocol);
	case SO_ERROR:
		return sock_put_int(val, len, -sock_take_error(so));
	case SO_SNDBUF:
		return sock_put_int(val, len, so->sndbuf);
	case SO_RCVBUF:
		return sock_put_int(val, len, so->rcvbuf);
	}
	return OPT_FAMILY;
}

int
sock_getopt(struct socket *so, int level, int name, void *val,
    socklen_t *len)
{
	int r;

	if (level == SOL_SOCKET && so->ops->sync != NULL)
		so->ops->sync(so);
	if (level == SOL_SOCKET &&
	    (r = common_getopt(so, name, val, len)) != OPT_FAMILY)
		return r;
	if (so->ops->getopt == NULL)
		return level == SOL_SOCKET ? -ENOPROTOOPT : -EOPNOTSUPP;
	return so->ops->getopt(so, level, name, val, len);
}

/* A buffer size as Linux sets it: doubled, within its bounds. */
static int
bufsize(int v, int min)
{
	if (v < 0 || v > SOCKBUF_MAX)
		v = SOCKBUF_MAX;
	return VK_MAX(v * 2, min);
}

static int
common_setopt(struct socket *so, int name, const void *val, socklen_t len)
{
	int64_t *timeo = timeo_opt(so, name);
	int v;

	if (timeo != NULL)
		return timeo_set(timeo, val, len);
	if (name == SO_LINGER) {
		if (len < sizeof(so->linger))
			return -EINVAL;
		memcpy(&so->linger, val, sizeof(so->linger));
		so->linger.l_onoff = so->linger.l_onoff != 0;
		return 0;
	}
	if (!flag_opt(name) && name != SO_PRIORITY && name != SO_RCVLOWAT &&
	    name != SO_SNDBUF && name != SO_RCVBUF)
		return OPT_FAMILY;
	if (len < sizeof(int))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	switch (name) {
	case SO_PRIORITY:
		/* Above 6 takes CAP_NET_ADMIN, which the guest lacks. */
		if (v < 0 || v > 6)
			return -EPERM;
		so->priority = v;
		break;
	case SO_RCVLOWAT:
		so->rcvlowat = v < 1 ? 1 : v;
		break;
	case SO_SNDBUF:
		so->sndbuf = bufsize(v, SNDBUF_MIN);
		sock_wake(so);
		break;
	case SO_RCVBUF:
		so->rcvbuf = bufsize(v, RCVBUF_MIN);
		break;
	default:
		so->optflags = v ? so->optflags | 1u << name :
		    so->optflags & ~(1u << name);
	}
	return 0;
}

int
sock_setopt(struct socket *so, int level, int name, const void *val,
    socklen_t len)
{
	int r;

	if (level == SOL_SOCKET &&
	    (r = common_setopt(so, name, val, len)) != OPT_FAMILY) {
		if (r == 0 && so->ops->setopt_common != NULL)
			r = so->ops->setopt_common(so, name, val, len);
		return r;
	}
	if (so->ops->setopt == NULL)
		return level == SOL_SOCKET ? -ENOPROTOOPT : -EOPNOTSUPP;
	return so->ops->setopt(so, level, name, val, len);
}

/* --- ioctls --- */

/* The lingering close's file: released when the wait ends, however. */
static struct file *
linger_file(const struct thread *td)
{
	return (struct file *)(uintptr_t)td->wait.arg[0];
}

static long
linger_cont(struct thread *td)
{
	struct file *fp = linger_file(td);
	struct socket *so = fp_sock(fp);

	if (plat_clock_ns(1) < td->wait.timeout && so->ops->unsent(so) > 0) {
		td->wait.deadline = td->wait.timeout;
		return -EPARKED;
	}
	file_rel(fp);
	return 0;
}

/*
 * A signal ends the wait, and the socket is closed all the same: the
 * descriptor went before the wait began, so close says 0, as Linux's,
 * whose lingering happens after the call's result is set.
 */
static void
linger_cancel(struct thread *td)
{
	file_rel(linger_file(td));
	td->wait.done = 0;
	td->wait.done_set = true;
}

long
sock_close_linger(struct thread *td, int fd)
{
	struct file *fp = fd_get(td->proc->fdt, fd);
	struct socket *so;
	int64_t end;

	if (fp == NULL || !file_is_socket(fp) || fp->refs > 1)
		return 0;
	so = fp_sock(fp);
	if (!so->linger.l_onoff || so->linger.l_linger <= 0 ||
	    so->ops->unsent == NULL || so->ops->unsent(so) == 0)
		return 0;
	end = plat_clock_ns(1) + (int64_t)so->linger.l_linger * 1000000000;
	fp = fd_take(td->proc->fdt, fd);
	td->wait = (struct wait){ .cont = linger_cont,
	    .cancel = linger_cancel, .deadline = end, .timeout = end,
	    .console_fd = -1, .chan = so };
	td->wait.arg[0] = (uintptr_t)fp;
	return -EPARKED;
}

long
sock_ioctl(struct thread *td, struct file *fp, unsigned cmd, uint64_t arg)
{
	struct socket *so = fp_sock(fp);
	long r;
	int n;

	switch (cmd) {
	case FIONREAD:
	case TIOCOUTQ:
		r = cmd == FIONREAD ? so->ops->nread(so) : so->ops->nwrite(so);
		if (r < 0)
			return r;
		n = (int)r;
		return copyout(td, &n, UADDR(arg), sizeof(n));
	}
	/* What the family does not know may be an interface's, as Linux. */
	r = so->ops->ioctl != NULL ? so->ops->ioctl(td, so, cmd, arg) : -ENOTTY;
	if (r != -ENOTTY)
		return r;
	return netif_ioctl(td, so->family, cmd, arg);
}
