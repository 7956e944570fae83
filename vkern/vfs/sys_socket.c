/*
 * The socket calls: socket, socketpair, bind, listen, accept, accept4,
 * connect, getsockname, getpeername, shutdown, setsockopt, getsockopt,
 * sendto, recvfrom, sendmsg, recvmsg, sendmmsg, recvmmsg.
 *
 * These handlers check what every family shares, move names, data and
 * control messages between the guest and the socket's family (through
 * its sock_ops, socket.h), and park the thread when a socket says to
 * wait; a family not in socket.c's table is EAFNOSUPPORT, as on a
 * kernel built without it.  A blocking stream send goes on
 * until all is sent; MSG_WAITALL makes a stream receive go on until the
 * buffer is full, the stream ends or a signal comes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/socket.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

/* The x86-64 guest's struct msghdr, mmsghdr and cmsghdr. */
struct guest_msghdr {
	uint64_t name;
	uint32_t namelen, pad0;
	uint64_t iov, iovlen, control, controllen;
	int32_t flags;
	uint32_t pad1;
};

struct guest_mmsghdr {
	struct guest_msghdr hdr;
	uint32_t len, pad;
};

struct guest_cmsghdr {
	uint64_t len;
	int32_t level, type;
};

#define CMSG_ALIGN8(n) (((n) + 7) & ~(uint64_t)7)
#define CMSG_HDR       sizeof(struct guest_cmsghdr)
#define SEND_FLAGS (MSG_DONTWAIT | MSG_NOSIGNAL | MSG_EOR | MSG_MORE | \
    MSG_CONFIRM | MSG_DONTROUTE | MSG_BATCH | MSG_ZEROCOPY | MSG_FASTOPEN | \
    MSG_OOB)
#define UIO_MAX 1024

/* Guest buffers, walked as the socket takes or gives bytes. */
struct iovwalk {
	struct thread *td;
	struct kiovec *iov;
	int n, i;
	uint64_t off;
};

static int
walk(struct iovwalk *w, uint8_t *kbuf, size_t n, bool in)
{
	while (n > 0) {
		struct kiovec *v = &w->iov[w->i];
		size_t chunk = VK_MIN(n, v->len - w->off);
		uaddr_t ua = UADDR(v->base + w->off);
		int r;

		if (chunk == 0) {
			w->i++;
			w->off = 0;
			continue;
		}
		r = in ? copyin(w->td, ua, kbuf, chunk) :
		    copyout(w->td, kbuf, ua, chunk);
		if (r < 0)
			return r;
		kbuf += chunk;
		n -= chunk;
		w->off += chunk;
	}
	return 0;
}

static int
walk_in(void *arg, void *kbuf, size_t n)
{
	return walk(arg, kbuf, n, true);
}

static int
walk_out(void *arg, void *kbuf, size_t n)
{
	return walk(arg, kbuf, n, false);
}

/* Skip the first done bytes: a call that goes on after a wait. */
static void
walk_skip(struct iovwalk *w, uint64_t done)
{
	while (w->i < w->n && done >= w->iov[w->i].len - w->off) {
		done -= w->iov[w->i].len - w->off;
		w->i++;
		w->off = 0;
	}
	w->off += done;
}

static long
iov_load(struct thread *td, uint64_t uiov, uint64_t n, struct kiovec *iov,
    uint64_t *totalp)
{
	if (n > UIO_MAX)
		return -EMSGSIZE;
	return copyin_iov(td, UADDR(uiov), n, iov, totalp);
}

static struct ucred
caller_cred(struct thread *td)
{
	struct proc *p = td->proc;

	return (struct ucred){ .pid = p->pid, .uid = p->cred.euid,
	    .gid = p->cred.egid };
}

static long
sock_get(struct thread *td, int fd, struct file **fpp, struct socket **sop)
{
	struct file *fp = fd_get(td->proc->fdt, fd);

	if (fp == NULL)
		return -EBADF;
	if ((*sop = sock_of(fp)) == NULL)
		return -ENOTSOCK;
	if (fpp != NULL)
		*fpp = fp;
	return 0;
}

/* A name for so, at most as long as its family's: -EINVAL if longer. */
static long
addr_in(struct thread *td, const struct socket *so, uaddr_t uaddr,
    uint32_t len, struct sockname *sn)
{
	if ((int32_t)len < 0 || len > sizeof(struct sockaddr_storage))
		return -EINVAL;
	memset(sn, 0, sizeof(*sn));
	if (len > sock_family(so->family)->addrlen_max)
		return -EINVAL;
	sn->len = len;
	return copyin(td, uaddr, sn->raw, len);
}

/* Give a name to the guest: as much as fits, and its whole length. */
static long
addr_out(struct thread *td, const struct sockname *ua, uaddr_t uaddr,
    uaddr_t ulen)
{
	int32_t len;
	long r;

	if (uaddr.va == 0)
		return 0;
	if ((r = copyin(td, ulen, &len, sizeof(len))) < 0)
		return r;
	if (len < 0)
		return -EINVAL;
	if ((r = copyout(td, ua->raw, uaddr, VK_MIN((uint32_t)len,
	    ua->len))) < 0)
		return r;
	len = (int32_t)ua->len;
	return copyout(td, &len, ulen, sizeof(len));
}

static long
install(struct thread *td, struct file *fp, bool cloexec)
{
	struct proc *p = td->proc;

	return fd_alloc(p->fdt, fp, 0, proc_nofile(p), cloexec);
}

/* Park until chan changes; with a timeout, until then (EAGAIN). */
static struct thread *retrying;

static long
sock_retry(struct thread *td)
{
	long r;

	if (plat_clock_ns(1) >= td->wait.timeout)
		return -EAGAIN;
	retrying = td;
	r = syscall_redispatch(td);
	retrying = NULL;
	return r;
}

static long
sock_park(struct thread *td, const void *chan, int64_t timeo_ns)
{
	int64_t deadline = -1;

	if (retrying == td)
		deadline = td->wait.timeout;
	else if (timeo_ns > 0)
		deadline = plat_clock_ns(1) + timeo_ns;
	/* Without a timeout, SA_RESTART can simply run the call again. */
	td->wait = (struct wait){ .cont = deadline >= 0 ? sock_retry :
	    syscall_redispatch, .deadline = deadline, .timeout = deadline,
	    .console_fd = -1, .chan = chan };
	return -EPARKED;
}

long
sock_wait(struct thread *td, struct file *fp, bool send)
{
	struct socket *so = sock_of(fp);

	return sock_park(td, so, sock_timeo(so, send));
}

static bool
may_wait(const struct file *fp, int flags)
{
	return !(fp->flags & O_NONBLOCK) && !(flags & MSG_DONTWAIT);
}

/* --- making sockets --- */

/* The family and base type of socket(2)'s arguments. */
static long
sock_type(int domain, int type, const struct sock_family **fp)
{
	if ((*fp = sock_family(domain)) == NULL)
		return -EAFNOSUPPORT;
	if (type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC | 0xf))
		return -EINVAL;
	return 0;
}

static unsigned
sock_oflags(int type)
{
	return (type & SOCK_NONBLOCK) ? O_NONBLOCK : 0;
}

long
sys_socket(struct thread *td, const struct sys_socket_args *a)
{
	struct ucred cred = caller_cred(td);
	const struct sock_family *fam;
	struct socket *so;
	long r;

	if ((r = sock_type(a->domain, (int)a->type, &fam)) < 0)
		return r;
	if ((r = fam->create((int)a->type & 0xf, a->protocol, &cred,
	    &so)) < 0)
		return r;
	return install(td, sock_file(so, sock_oflags((int)a->type)),
	    a->type & SOCK_CLOEXEC);
}

long
sys_socketpair(struct thread *td, const struct sys_socketpair_args *a)
{
	struct ucred cred = caller_cred(td);
	const struct sock_family *fam;
	struct socket *sv[2];
	struct file *f0, *f1;
	int fds[2];
	long r;

	if ((r = sock_type(a->domain, (int)a->type, &fam)) < 0)
		return r;
	if (fam->pair == NULL)
		return -EOPNOTSUPP;
	if ((r = fam->pair((int)a->type & 0xf, a->protocol, &cred, sv)) < 0)
		return r;
	f0 = sock_file(sv[0], sock_oflags((int)a->type));
	f1 = sock_file(sv[1], sock_oflags((int)a->type));
	if ((fds[0] = (int)install(td, f0, a->type & SOCK_CLOEXEC)) < 0) {
		file_rel(f1);
		return fds[0];
	}
	if ((fds[1] = (int)install(td, f1, a->type & SOCK_CLOEXEC)) < 0) {
		fd_close(td->proc->fdt, fds[0]);
		return fds[1];
	}
	if ((r = copyout(td, fds, a->sv, sizeof(fds))) < 0) {
		fd_close(td->proc->fdt, fds[0]);
		fd_close(td->proc->fdt, fds[1]);
	}
	return r;
}

/* --- names and connections --- */

long
sys_bind(struct thread *td, const struct sys_bind_args *a)
{
	struct socket *so;
	struct sockname ua;
	long r;

	if ((r = sock_get(td, a->fd, NULL, &so)) < 0)
		return r;
	if ((r = addr_in(td, so, a->addr, a->addrlen, &ua)) < 0)
		return r;
	return so->ops->bind(td->proc, so, &ua);
}

long
sys_listen(struct thread *td, const struct sys_listen_args *a)
{
	struct ucred cred = caller_cred(td);
	struct socket *so;
	long r;

	if ((r = sock_get(td, a->fd, NULL, &so)) < 0)
		return r;
	if (so->ops->listen == NULL)
		return -EOPNOTSUPP;
	return so->ops->listen(so, a->backlog, &cred);
}

long
sys_connect(struct thread *td, const struct sys_connect_args *a)
{
	struct ucred cred = caller_cred(td);
	const void *chan = NULL;
	struct file *fp;
	struct socket *so;
	struct sockname ua;
	long r;

	if ((r = sock_get(td, a->fd, &fp, &so)) < 0)
		return r;
	if ((r = addr_in(td, so, a->addr, a->addrlen, &ua)) < 0)
		return r;
	r = so->ops->connect(td->proc, so, &ua, &cred, !may_wait(fp, 0),
	    &chan);
	if (r == -EAGAIN && may_wait(fp, 0))
		return sock_park(td, chan, sock_timeo(so, true));
	return r;
}

static long
kern_accept(struct thread *td, int fd, uaddr_t uaddr, uaddr_t ulen,
    unsigned flags)
{
	struct file *fp, *nfp;
	struct socket *so;
	struct sockname ua;
	long r;

	if (flags & ~(unsigned)(SOCK_NONBLOCK | SOCK_CLOEXEC))
		return -EINVAL;
	if ((r = sock_get(td, fd, &fp, &so)) < 0)
		return r;
	if (so->ops->accept == NULL)
		return -EOPNOTSUPP;
	r = so->ops->accept(so, sock_oflags((int)flags), &nfp);
	if (r == -EAGAIN && may_wait(fp, 0))
		return sock_park(td, so, sock_timeo(so, false));
	if (r < 0)
		return r;
	/*
	 * A client that is gone already leaves no name to report: Linux
	 * still gives its old one, which for a client that never bound is
	 * the bare family, as here.
	 */
	if (so->ops->name(sock_of(nfp), true, &ua) < 0) {
		memset(&ua, 0, sizeof(ua));
		ua.sa.sa_family = (sa_family_t)so->family;
		ua.len = sizeof(sa_family_t);
	}
	if ((r = addr_out(td, &ua, uaddr, ulen)) < 0) {
		file_rel(nfp);
		return r;
	}
	return install(td, nfp, flags & SOCK_CLOEXEC);
}

long
sys_accept(struct thread *td, const struct sys_accept_args *a)
{
	return kern_accept(td, a->fd, a->addr, a->addrlen, 0);
}

long
sys_accept4(struct thread *td, const struct sys_accept4_args *a)
{
	return kern_accept(td, a->fd, a->addr, a->addrlen, a->flags);
}

static long
kern_getname(struct thread *td, int fd, uaddr_t uaddr, uaddr_t ulen,
    bool peer)
{
	struct socket *so;
	struct sockname ua;
	long r;

	if ((r = sock_get(td, fd, NULL, &so)) < 0)
		return r;
	if ((r = so->ops->name(so, peer, &ua)) < 0)
		return r;
	if (uaddr.va == 0)
		return -EFAULT;
	return addr_out(td, &ua, uaddr, ulen);
}

long
sys_getsockname(struct thread *td, const struct sys_getsockname_args *a)
{
	return kern_getname(td, a->fd, a->addr, a->addrlen, false);
}

long
sys_getpeername(struct thread *td, const struct sys_getpeername_args *a)
{
	return kern_getname(td, a->fd, a->addr, a->addrlen, true);
}

long
sys_shutdown(struct thread *td, const struct sys_shutdown_args *a)
{
	struct socket *so;
	long r;

	if ((r = sock_get(td, a->fd, NULL, &so)) < 0)
		return r;
	return so->ops->shutdown(so, a->how);
}

/* --- options --- */

long
sys_setsockopt(struct thread *td, const struct sys_setsockopt_args *a)
{
	uint8_t val[SOCK_OPTMAX];
	struct socket *so;
	long r;

	if ((r = sock_get(td, a->fd, NULL, &so)) < 0)
		return r;
	if ((int32_t)a->optlen < 0)
		return -EINVAL;
	if ((r = copyin(td, a->optval, val, VK_MIN(a->optlen,
	    sizeof(val)))) < 0)
		return r;
	return sock_setopt(so, a->level, a->optname, val, VK_MIN(a->optlen,
	    sizeof(val)));
}

long
sys_getsockopt(struct thread *td, const struct sys_getsockopt_args *a)
{
	uint8_t val[SOCK_OPTMAX];
	struct socket *so;
	int32_t len;
	socklen_t klen;
	long r;

	if ((r = sock_get(td, a->fd, NULL, &so)) < 0)
		return r;
	if ((r = copyin(td, a->optlen, &len, sizeof(len))) < 0)
		return r;
	if (len < 0)
		return -EINVAL;
	klen = VK_MIN((socklen_t)len, sizeof(val));
	if ((r = sock_getopt(so, a->level, a->optname, val, &klen)) < 0)
		return r;
	if ((r = copyout(td, val, a->optval, klen)) < 0)
		return r;
	len = (int32_t)klen;
	return copyout(td, &len, a->optlen, sizeof(len));
}

/* --- control messages --- */

/* SCM_RIGHTS and SCM_CREDENTIALS from the sender's control buffer. */
static long
cmsg_in(struct thread *td, uint64_t uctl, uint64_t len, struct scm *scm)
{
	struct ucred mine = caller_cred(td);
	struct guest_cmsghdr h;
	uint64_t off = 0;
	long r;

	while (len - off >= CMSG_HDR) {
		if ((r = copyin(td, UADDR(uctl + off), &h, sizeof(h))) < 0)
			return r;
		if (h.len < CMSG_HDR || h.len > len - off)
			return -EINVAL;
		if (h.level != SOL_SOCKET)
			return -EINVAL;
		if (h.type == SCM_RIGHTS) {
			size_t n = (h.len - CMSG_HDR) / sizeof(int);
			int fds[SCM_MAX_FDS];

			if (n == 0 || n + (size_t)scm->nfds > SCM_MAX_FDS)
				return -EINVAL;
			if ((r = copyin(td, UADDR(uctl + off + CMSG_HDR), fds,
			    n * sizeof(int))) < 0)
				return r;
			for (size_t i = 0; i < n; i++) {
				struct file *fp = fd_get(td->proc->fdt,
				    fds[i]);

				if (fp == NULL)
					return -EBADF;
				file_ref(fp);
				scm->fds[scm->nfds++] = fp;
			}
		} else if (h.type == SCM_CREDENTIALS) {
			if (h.len != CMSG_HDR + sizeof(struct ucred))
				return -EINVAL;
			if ((r = copyin(td, UADDR(uctl + off + CMSG_HDR),
			    &scm->cred, sizeof(scm->cred))) < 0)
				return r;
			/* Only root may claim other ids than its own. */
			if (td->proc->cred.euid != 0 &&
			    (scm->cred.pid != mine.pid ||
			    scm->cred.uid != mine.uid ||
			    scm->cred.gid != mine.gid))
				return -EPERM;
			scm->has_cred = true;
		} else {
			return -EINVAL;
		}
		off += CMSG_ALIGN8(h.len);
		if (off >= len)
			break;
	}
	return 0;
}

/* One control message into the receiver's buffer; MSG_CTRUNC if cut. */
static long
cmsg_put(struct thread *td, struct guest_msghdr *m, uint64_t *offp,
    int type, const void *data, size_t len, int *flagsp)
{
	struct guest_cmsghdr h = { .len = CMSG_HDR + len, .level = SOL_SOCKET,
	    .type = type };
	uint64_t room = m->controllen - *offp;
	long r;

	if (room < CMSG_HDR + len) {
		*flagsp |= MSG_CTRUNC;
		return 0;
	}
	if ((r = copyout(td, &h, UADDR(m->control + *offp), sizeof(h))) < 0 ||
	    (r = copyout(td, data, UADDR(m->control + *offp + CMSG_HDR),
	    len)) < 0)
		return r;
	*offp += VK_MIN(CMSG_ALIGN8(h.len), room);
	return 0;
}

/*
 * Install the files that came (as many as fit and are allowed; the rest
 * are closed, with MSG_CTRUNC) and write the control messages.
 */
static long
cmsg_out(struct thread *td, struct guest_msghdr *m, struct scm *scm,
    int flags, int *flagsp)
{
	uint64_t off = 0;
	int fds[SCM_MAX_FDS], n = 0, fit;
	long r = 0;

	if (m->control == 0 || m->controllen < CMSG_HDR)
		m->controllen = 0;
	if (scm->has_cred && (r = cmsg_put(td, m, &off, SCM_CREDENTIALS,
	    &scm->cred, sizeof(scm->cred), flagsp)) < 0)
		goto out;
	if (scm->nfds > 0) {
		fit = m->controllen >= off + CMSG_HDR ? (int)((m->controllen -
		    off - CMSG_HDR) / sizeof(int)) : 0;
		for (; n < scm->nfds && n < fit; n++) {
			if ((fds[n] = (int)install(td, scm->fds[n],
			    flags & MSG_CMSG_CLOEXEC)) < 0) {
				*flagsp |= MSG_CTRUNC;
				break;
			}
			scm->fds[n] = NULL;
		}
		if (n < scm->nfds)
			*flagsp |= MSG_CTRUNC;
		if (n > 0 && (r = cmsg_put(td, m, &off, SCM_RIGHTS, fds,
		    (size_t)n * sizeof(int), flagsp)) < 0)
			goto out;
	}
out:
	for (int i = n; i < scm->nfds; i++)
		if (scm->fds[i] != NULL)
			file_rel(scm->fds[i]);
	scm->nfds = 0;
	m->controllen = off;
	return r;
}

/* --- data --- */

/*
 * What a send or receive that goes on after a wait keeps: the fd, the
 * flags, the guest's buffers and the count so far.
 */
struct xfer {
	int fd, flags;
	bool send;
	uint64_t total, done;
	int niov;
	struct kiovec iov[];
};

static void
xfer_cancel(struct thread *td)
{
	free((void *)(uintptr_t)td->wait.arg[0]);
}

static long
send_result(struct thread *td, long r, int flags)
{
	if (r == -EPIPE && !(flags & MSG_NOSIGNAL))
		return file_epipe(td);
	return r;
}

static long xfer_more(struct thread *td);

/* Move what is left of x; park again while it must wait. */
static long
xfer_step(struct thread *td, struct xfer *x)
{
	const void *chan = NULL;
	struct scm scm;
	struct iovwalk w;
	struct file *fp;
	struct socket *so;
	long r = 0;
	int fl = 0;

	while (x->done < x->total && sock_get(td, x->fd, &fp, &so) == 0) {
		w = (struct iovwalk){ td, x->iov, x->niov, 0, 0 };
		walk_skip(&w, x->done);
		scm_init(&scm, td->proc);
		if (x->send) {
			r = so->ops->send(td->proc, so, x->total - x->done,
			    walk_in, &w, NULL, &scm, x->flags, &chan);
		} else {
			r = so->ops->recv(so, x->total - x->done, walk_out,
			    &w, x->flags, &fl, NULL, &scm);
			chan = so;
		}
		scm_release(&scm);
		if (r == -EAGAIN) {
			td->wait = (struct wait){ .cont = xfer_more,
			    .cancel = xfer_cancel, .deadline = -1,
			    .console_fd = -1, .chan = chan };
			td->wait.arg[0] = (uint64_t)(uintptr_t)x;
			td->wait.done = (long)x->done;
			return -EPARKED;
		}
		if (r <= 0)
			break;
		x->done += (uint64_t)r;
	}
	if (x->done > 0)
		r = (long)x->done;
	else if (x->send)
		r = send_result(td, r, x->flags);
	free(x);
	return r;
}

static long
xfer_more(struct thread *td)
{
	return xfer_step(td, (struct xfer *)(uintptr_t)td->wait.arg[0]);
}

/* Go on with the rest of a stream send or MSG_WAITALL receive. */
static long
xfer_rest(struct thread *td, int fd, int flags, bool send,
    const struct kiovec *iov, int niov, uint64_t total, uint64_t done)
{
	struct xfer *x = vk_xmalloc(sizeof(*x) + (size_t)niov * sizeof(*iov));

	*x = (struct xfer){ .fd = fd, .flags = flags, .send = send,
	    .total = total, .done = done, .niov = niov };
	memcpy(x->iov, iov, (size_t)niov * sizeof(*iov));
	return xfer_step(td, x);
}

/* A message as the calls give it, with its buffers in the vkernel. */
struct kmsg {
	struct guest_msghdr hdr;
	struct kiovec *iov;
	uint64_t total;
};

static long
kmsg_load(struct thread *td, uaddr_t umsg, struct kmsg *km)
{
	long r;

	if ((r = copyin(td, umsg, &km->hdr, sizeof(km->hdr))) < 0)
		return r;
	return iov_load(td, km->hdr.iov, km->hdr.iovlen, km->iov, &km->total);
}

/* whole: a blocking stream send goes on until all is sent. */
static long
kern_sendmsg(struct thread *td, int fd, struct kmsg *km, int flags,
    bool whole)
{
	struct guest_msghdr *m = &km->hdr;
	struct sockname dest, *destp = NULL;
	const void *chan = NULL;
	struct scm scm;
	struct iovwalk w;
	struct file *fp;
	struct socket *so;
	long r;

	if ((r = sock_get(td, fd, &fp, &so)) < 0)
		return r;
	if (flags & ~SEND_FLAGS)
		return -EOPNOTSUPP;
	scm_init(&scm, td->proc);
	if (m->name != 0 && m->namelen != 0) {
		if ((r = addr_in(td, so, UADDR(m->name), m->namelen,
		    &dest)) < 0)
			return r;
		destp = &dest;
	}
	if (m->controllen > INT_MAX)
		return -ENOBUFS;
	if (m->controllen > 0 && (r = cmsg_in(td, m->control,
	    m->controllen, &scm)) < 0) {
		scm_release(&scm);
		return r;
	}
	w = (struct iovwalk){ td, km->iov, (int)m->iovlen, 0, 0 };
	r = so->ops->send(td->proc, so, km->total, walk_in, &w, destp, &scm,
	    flags, &chan);
	scm_release(&scm);
	if (r == -EAGAIN && may_wait(fp, flags))
		return sock_park(td, chan, sock_timeo(so, true));
	if (whole && r >= 0 && (uint64_t)r < km->total && may_wait(fp, flags))
		return xfer_rest(td, fd, flags, true, km->iov,
		    (int)m->iovlen, km->total, (uint64_t)r);
	return send_result(td, r, flags);
}

long
sys_sendmsg(struct thread *td, const struct sys_sendmsg_args *a)
{
	struct kiovec iov[UIO_MAX];
	struct kmsg km = { .iov = iov };
	long r;

	if ((r = kmsg_load(td, a->msg, &km)) < 0)
		return r;
	return kern_sendmsg(td, a->fd, &km, (int)a->flags, true);
}

long
sys_sendto(struct thread *td, const struct sys_sendto_args *a)
{
	struct kiovec v = { a->buf.va, VK_MIN(a->len,
	    (uint64_t)MAX_RW_COUNT) };
	struct kmsg km = { .hdr = { .name = a->addr.va,
	    .namelen = a->addrlen, .iovlen = 1 }, .iov = &v,
	    .total = v.len };

	return kern_sendmsg(td, a->fd, &km, (int)a->flags, true);
}

/* MSG_NOSIGNAL means nothing to a receive; glibc's mq_notify passes it. */
#define RECV_FLAGS (MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC | MSG_WAITALL | \
    MSG_CMSG_CLOEXEC | MSG_ERRQUEUE | MSG_OOB | MSG_NOSIGNAL)

/* whole: MSG_WAITALL may go on receiving after the first part. */
static long
kern_recvmsg(struct thread *td, int fd, struct kmsg *km, int flags,
    uaddr_t umsg, uaddr_t uaddrlen, bool whole)
{
	struct guest_msghdr *m = &km->hdr;
	struct scm scm = { .nfds = 0 };
	struct sockname from;
	struct iovwalk w;
	struct file *fp;
	struct socket *so;
	int oflags = 0;
	long r, e;

	if ((r = sock_get(td, fd, &fp, &so)) < 0)
		return r;
	if (flags & ~RECV_FLAGS)
		return -EOPNOTSUPP;
	if (flags & MSG_ERRQUEUE)
		return -EAGAIN;
	from.len = 0;
	w = (struct iovwalk){ td, km->iov, (int)m->iovlen, 0, 0 };
	r = so->ops->recv(so, km->total, walk_out, &w, flags, &oflags, &from,
	    &scm);
	if (r == -EAGAIN && may_wait(fp, flags))
		return sock_park(td, so, sock_timeo(so, false));
	if (r < 0)
		return r;
	if (umsg.va != 0) {
		if ((e = cmsg_out(td, m, &scm, flags, &oflags)) < 0)
			return e;
		m->flags = oflags;
		if (m->name == 0)
			m->namelen = 0;
		else if ((e = copyout(td, from.raw, UADDR(m->name),
		    VK_MIN(m->namelen, from.len))) < 0)
			return e;
		else
			m->namelen = from.len;
		if ((e = copyout(td, m, umsg, sizeof(*m))) < 0)
			return e;
	} else {
		scm_release(&scm);
		if (m->name != 0 && (e = addr_out(td, &from, UADDR(m->name),
		    uaddrlen)) < 0)
			return e;
	}
	/* An urgent byte comes alone. */
	if (whole && (flags & MSG_WAITALL) && !(flags & MSG_OOB) &&
	    so->type == SOCK_STREAM && r > 0 && (uint64_t)r < km->total && may_wait(fp, flags))
		return xfer_rest(td, fd, flags & ~MSG_PEEK, false, km->iov,
		    (int)m->iovlen, km->total, (uint64_t)r);
	return r;
}

long
sys_recvmsg(struct thread *td, const struct sys_recvmsg_args *a)
{
	struct kiovec iov[UIO_MAX];
	struct kmsg km = { .iov = iov };
	long r;

	if ((r = kmsg_load(td, a->msg, &km)) < 0)
		return r;
	return kern_recvmsg(td, a->fd, &km, (int)a->flags, a->msg, UADDR(0),
	    true);
}

long
sys_recvfrom(struct thread *td, const struct sys_recvfrom_args *a)
{
	struct kiovec v = { a->buf.va, VK_MIN(a->len,
	    (uint64_t)MAX_RW_COUNT) };
	struct kmsg km = { .hdr = { .name = a->addr.va, .iovlen = 1 },
	    .iov = &v, .total = v.len };

	return kern_recvmsg(td, a->fd, &km, (int)a->flags, UADDR(0),
	    a->addrlen, true);
}

/*
 * sendmmsg and recvmmsg go message by message and park where one would
 * wait, until vlen are done or one fails; recvmmsg also stops when
 * MSG_WAITFORONE finds nothing more after the first, or when its timeout
 * has run out after a message (checked only between messages, as Linux
 * does).  They return the count done, else the first one's error.  The
 * state lives in the wait's args while parked.
 */
struct mmsg {
	uint64_t vec;		/* the guest's mmsghdr array */
	uint64_t utimeout;	/* recvmmsg's timeout: it gets the time left */
	int64_t end;		/* when that runs out, or -1 */
	int32_t fd, flags;
	uint32_t vlen, done;
	bool send;
};

_Static_assert(sizeof(struct mmsg) <= sizeof(((struct wait *)0)->arg),
    "mmsg state fits in a wait");

static long mmsg_more(struct thread *td);

static long
mmsg_park(struct thread *td, const struct mmsg *m)
{
	/* Without a socket timeout, as a plain receive: ERESTARTSYS. */
	td->wait.restart = td->wait.timeout < 0 ? WAIT_RESTART_SA : 0;
	td->wait.cont = mmsg_more;
	td->wait.done = m->done;
	memcpy(td->wait.arg, m, sizeof(*m));
	return -EPARKED;
}

static long
mmsg_step(struct thread *td, struct mmsg *m)
{
	struct kiovec iov[UIO_MAX];
	struct kmsg km = { .iov = iov };
	long r = 0;

	while (m->done < m->vlen) {
		uaddr_t um = UADDR(m->vec + m->done *
		    sizeof(struct guest_mmsghdr));
		int flags = m->flags;
		uint32_t n;

		if (!m->send) {
			flags &= ~MSG_WAITFORONE;
			if (m->done > 0 && (m->flags & MSG_WAITFORONE))
				flags |= MSG_DONTWAIT;
		}
		if ((r = kmsg_load(td, um, &km)) < 0)
			break;
		r = m->send ? kern_sendmsg(td, m->fd, &km, flags, false) :
		    kern_recvmsg(td, m->fd, &km, flags, um, UADDR(0), false);
		if (r == -EPARKED)
			return mmsg_park(td, m);
		if (r < 0)
			break;
		n = (uint32_t)r;
		if ((r = copyout(td, &n, UADDR(um.va + offsetof(struct
		    guest_mmsghdr, len)), sizeof(n))) < 0)
			break;
		m->done++;
		/* The next message waits on its own socket timeout. */
		retrying = NULL;
		if (m->end >= 0 && plat_clock_ns(1) >= m->end)
			break;
	}
	if (m->done == 0)
		return r;
	if (m->utimeout != 0 && ts_left_out(td, UADDR(m->utimeout), m->end,
	    false) < 0)
		return -EFAULT;
	return m->done;
}

/* A parked message's socket changed, or its socket timeout ran out. */
static long
mmsg_more(struct thread *td)
{
	struct mmsg m;
	long r;

	memcpy(&m, td->wait.arg, sizeof(m));
	if (td->wait.timeout >= 0 && plat_clock_ns(1) >= td->wait.timeout) {
		if (m.done > 0)
			m.vlen = m.done;
		else
			return -EAGAIN;
	}
	retrying = td;
	r = mmsg_step(td, &m);
	retrying = NULL;
	return r;
}

static long
kern_mmsg(struct thread *td, int fd, uaddr_t uvec, unsigned vlen, int flags,
    uaddr_t utimeout, bool send)
{
	struct mmsg m = { .vec = uvec.va, .utimeout = utimeout.va,
	    .fd = fd, .flags = flags, .vlen = VK_MIN(vlen, UIO_MAX),
	    .send = send };
	struct file *fp;
	struct socket *so;
	long r;

	if ((r = sock_get(td, fd, &fp, &so)) < 0)
		return r;
	if ((r = ts_deadline(td, utimeout, &m.end)) < 0)
		return r;
	return mmsg_step(td, &m);
}

long
sys_sendmmsg(struct thread *td, const struct sys_sendmmsg_args *a)
{
	return kern_mmsg(td, a->fd, a->msgvec, a->vlen, (int)a->flags,
	    UADDR(0), true);
}

long
sys_recvmmsg(struct thread *td, const struct sys_recvmmsg_args *a)
{
	return kern_mmsg(td, a->fd, a->msgvec, a->vlen, (int)a->flags,
	    a->timeout, false);
}
