/*
 * epoll: epoll_create, epoll_create1, epoll_ctl, epoll_wait, epoll_pwait,
 * epoll_pwait2.
 *
 * An epoll file holds an interest list of (fd, file, events, data).
 * Waiting looks at each item's readiness through the files' poll ops, as
 * poll does, and parks on poll_chan when nothing is ready.  Level
 * triggering is exact; EPOLLET reports an item again only after its
 * readiness has changed since it was last reported, which is what
 * edge-triggered users rely on; EPOLLONESHOT disarms an item after one
 * report until EPOLL_CTL_MOD.  An item whose fd was closed or reused is
 * dropped.  An epoll fd is itself pollable, so epolls nest.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

struct epitem {
	int fd;
	struct file *fp;     /* not referenced: checked against the fd */
	uint32_t events;
	uint64_t data;
	short last;          /* EPOLLET: what was reported last, and when */
	uint64_t gen;
	bool disarmed;       /* EPOLLONESHOT: reported, until MOD */
};

struct epoll {
	struct epitem *it;
	unsigned n, cap;
	struct fdtable *fdt; /* the table the fds are in */
};

struct kepoll_event {
	uint32_t events;
	uint64_t data;
} __attribute__((packed));
_Static_assert(sizeof(struct kepoll_event) == 12, "struct epoll_event");

static const struct file_ops epoll_fileops;

static bool
item_alive(const struct epoll *ep, const struct epitem *it)
{
	return fd_get(ep->fdt, it->fd) == it->fp;
}

/* Readiness of one item, with EPOLLET and EPOLLONESHOT applied. */
static uint32_t
item_ready(struct epitem *it)
{
	short now;

	if (it->disarmed)
		return 0;
	now = file_poll(it->fp, (short)(it->events & 0xffff));
	/* Edge: new readiness, or a change somewhere since the last report
	 * (which may be more data on a file that stayed readable). */
	if ((it->events & EPOLLET) && (now & ~it->last) == 0 &&
	    (now == 0 || it->gen == poll_generation)) {
		it->last = now;
		return 0;
	}
	it->last = now;
	it->gen = poll_generation;
	return (uint32_t)now;
}

static short
epoll_poll(struct file *fp)
{
	struct epoll *ep = fp->data;

	for (unsigned i = 0; i < ep->n; i++)
		if (item_alive(ep, &ep->it[i]) && !ep->it[i].disarmed &&
		    ep->it[i].fp != fp &&
		    file_poll(ep->it[i].fp, (short)ep->it[i].events) != 0)
			return POLLIN;
	return 0;
}

static void
epoll_close(struct file *fp)
{
	struct epoll *ep = fp->data;

	fdt_unhold(ep->fdt);
	kmem_free(ep->it, ep->cap * sizeof(*ep->it), 0);
	kmem_free(ep, sizeof(*ep), 0);
}

static const struct file_ops epoll_fileops = {
	.read = anon_read_einval,
	.write = anon_write_einval,
	.stat = anon_stat,
	.poll = epoll_poll,
	.close = epoll_close,
};

static long
kern_epoll_create(struct thread *td, bool cloexec)
{
	struct epoll *ep = kmem_alloc(sizeof(*ep), KM_ZERO);
	struct file *fp;

	if (ep == NULL)
		return -ENOMEM;
	fp = file_alloc(&epoll_fileops, NULL, O_RDWR, "anon_inode:[eventpoll]");
	ep->fdt = td->proc->fdt;
	fdt_hold(ep->fdt);
	fp->data = ep;
	return fd_alloc(td->proc->fdt, fp, 0, proc_nofile(td->proc),
	    cloexec);
}

long
sys_epoll_create(struct thread *td, const struct sys_epoll_create_args *a)
{
	if (a->size <= 0)
		return -EINVAL;
	return kern_epoll_create(td, false);
}

long
sys_epoll_create1(struct thread *td, const struct sys_epoll_create1_args *a)
{
	if (a->flags & ~(unsigned)EPOLL_CLOEXEC)
		return -EINVAL;
	return kern_epoll_create(td, a->flags != 0);
}

static struct epoll *
epoll_of(struct thread *td, int epfd, long *errp)
{
	struct file *fp = fd_get(td->proc->fdt, epfd);

	*errp = fp == NULL ? -EBADF : -EINVAL;
	return fp != NULL && fp->ops == &epoll_fileops ? fp->data : NULL;
}

static struct epitem *
epoll_find(struct epoll *ep, int fd, struct file *fp)
{
	for (unsigned i = 0; i < ep->n; i++) {
		if (!item_alive(ep, &ep->it[i])) {
			ep->it[i--] = ep->it[--ep->n];   /* drop stale ones */
			continue;
		}
		if (ep->it[i].fd == fd && ep->it[i].fp == fp)
			return &ep->it[i];
	}
	return NULL;
}

/* What may come with EPOLLEXCLUSIVE (Linux's EPOLLEXCLUSIVE_OK_BITS). */
#define EPOLL_EXCL_OK (EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | \
    EPOLLWAKEUP | EPOLLET | EPOLLEXCLUSIVE)

/* As Linux's EP_MAX_NESTS: epoll fds watched inside each other. */
#define EPOLL_MAX_NESTS 4

/*
 * Whether ep watches target, itself or through epoll fds it watches, or
 * watches epoll fds nested deeper than depth allows.
 */
static bool
epoll_reaches(struct epoll *ep, const struct epoll *target, int depth)
{
	if (ep == target || depth > EPOLL_MAX_NESTS)
		return true;
	for (unsigned i = 0; i < ep->n; i++) {
		struct epitem *it = &ep->it[i];

		if (item_alive(ep, it) && it->fp->ops == &epoll_fileops &&
		    epoll_reaches(it->fp->data, target, depth + 1))
			return true;
	}
	return false;
}

/*
 * The checks of Linux's epoll_ctl, in its order: the event is copied in
 * first (EFAULT), then the fds (EBADF), a file that cannot be polled
 * (EPERM: regular files and directories are always ready), the epoll fd
 * itself (EINVAL), EPOLLEXCLUSIVE's rules (EINVAL), a loop of epoll fds
 * or one nested too deep (ELOOP).
 */
static long
epoll_ctl_check(struct thread *td, const struct sys_epoll_ctl_args *a,
    struct kepoll_event *ev, struct epoll **epp, struct file **fpp)
{
	struct file *efp = fd_get(td->proc->fdt, a->epfd), *fp;
	long r;

	if (a->op != EPOLL_CTL_DEL && (r = copyin(td, a->event, ev,
	    sizeof(*ev))) < 0)
		return r;
	if (efp == NULL || (fp = fd_get(td->proc->fdt, a->fd)) == NULL)
		return -EBADF;
	if (fp->vn != NULL && (fp->vn->type == VREG || fp->vn->type == VDIR))
		return -EPERM;
	if (efp == fp || efp->ops != &epoll_fileops)
		return -EINVAL;
	if (a->op != EPOLL_CTL_DEL && (ev->events & EPOLLEXCLUSIVE) &&
	    (a->op == EPOLL_CTL_MOD || (a->op == EPOLL_CTL_ADD &&
	    (fp->ops == &epoll_fileops || (ev->events & ~EPOLL_EXCL_OK)))))
		return -EINVAL;
	if (a->op == EPOLL_CTL_ADD && fp->ops == &epoll_fileops &&
	    epoll_reaches(fp->data, efp->data, 1))
		return -ELOOP;
	*epp = efp->data;
	*fpp = fp;
	return 0;
}

long
sys_epoll_ctl(struct thread *td, const struct sys_epoll_ctl_args *a)
{
	struct kepoll_event ev = { 0, 0 };
	struct epoll *ep;
	struct epitem *it;
	struct file *fp;
	long r;

	if ((r = epoll_ctl_check(td, a, &ev, &ep, &fp)) < 0)
		return r;
	it = epoll_find(ep, a->fd, fp);
	switch (a->op) {
	case EPOLL_CTL_ADD:
		if (it != NULL)
			return -EEXIST;
		if (ep->n == ep->cap) {
			unsigned cap = ep->cap ? ep->cap * 2 : 8;
			struct epitem *nit = kmem_realloc(ep->it, ep->cap *
			    sizeof(*ep->it), cap * sizeof(*ep->it), 0);

			if (nit == NULL)
				return -ENOMEM;
			ep->it = nit;
			ep->cap = cap;
		}
		ep->it[ep->n++] = (struct epitem){ .fd = a->fd, .fp = fp,
		    .events = ev.events, .data = ev.data };
		poll_wake();
		return 0;
	case EPOLL_CTL_MOD:
		if (it == NULL)
			return -ENOENT;
		/* An exclusive watch cannot be changed, only deleted. */
		if (it->events & EPOLLEXCLUSIVE)
			return -EINVAL;
		*it = (struct epitem){ .fd = a->fd, .fp = fp,
		    .events = ev.events, .data = ev.data };
		poll_wake();
		return 0;
	case EPOLL_CTL_DEL:
		if (it == NULL)
			return -ENOENT;
		*it = ep->it[--ep->n];
		return 0;
	}
	return -EINVAL;
}

/* arg[0] epfd, arg[1] events, arg[2] maxevents, arg[3] deadline + 1. */
static long
epoll_wait_cont(struct thread *td)
{
	int epfd = (int)td->wait.arg[0], max = (int)td->wait.arg[2];
	int64_t deadline = (int64_t)td->wait.arg[3] - 1;
	uaddr_t uev = UADDR(td->wait.arg[1]);
	struct kepoll_event ev;
	struct epoll *ep;
	long r, n = 0;

	if ((ep = epoll_of(td, epfd, &r)) == NULL)
		return r;
	for (unsigned i = 0; i < ep->n && n < max; i++) {
		struct epitem *it = &ep->it[i];
		uint32_t got;

		if (!item_alive(ep, it) || (got = item_ready(it)) == 0)
			continue;
		ev = (struct kepoll_event){ got, it->data };
		if ((r = copyout(td, &ev, UADDR(uev.va + (uint64_t)n *
		    sizeof(ev)), sizeof(ev))) < 0)
			return r;
		if (it->events & EPOLLONESHOT)
			it->disarmed = true;
		n++;
	}
	if (n > 0 || (deadline >= 0 &&
	    deadline <= plat_clock_ns(CLOCK_MONOTONIC))) {
		if (td->has_saved_mask) {
			td->sigmask = td->saved_mask;
			td->has_saved_mask = false;
		}
		return n;
	}
	{
		uint64_t args[4];

		memcpy(args, td->wait.arg, sizeof(args));
		td->wait = (struct wait){ .cont = epoll_wait_cont,
		    .chan = &poll_chan, .deadline = deadline, .console_fd = -1 };
		memcpy(td->wait.arg, args, sizeof(args));
	}
	return -EPARKED;
}

static long
kern_epoll_wait(struct thread *td, int epfd, uaddr_t events, int max,
    int64_t deadline, uaddr_t umask, size_t masksize)
{
	struct epoll *ep;
	long r;

	if (max <= 0 || max > (int)(INT32_MAX / sizeof(struct kepoll_event)))
		return -EINVAL;
	if ((ep = epoll_of(td, epfd, &r)) == NULL)
		return r;
	if (umask.va != 0) {
		uint64_t m;

		if (masksize != sizeof(m))
			return -EINVAL;
		if ((r = copyin(td, umask, &m, sizeof(m))) < 0)
			return r;
		td->saved_mask = td->sigmask;
		td->has_saved_mask = true;
		td->sigmask = m & ~SIG_UNBLOCKABLE;
	}
	td->wait.arg[0] = (uint64_t)epfd;
	td->wait.arg[1] = events.va;
	td->wait.arg[2] = (uint64_t)max;
	td->wait.arg[3] = (uint64_t)(deadline + 1);
	return epoll_wait_cont(td);
}

static int64_t
ms_deadline(int timeout)
{
	return timeout < 0 ? -1 : plat_clock_ns(CLOCK_MONOTONIC) +
	    (int64_t)timeout * 1000000;
}

long
sys_epoll_wait(struct thread *td, const struct sys_epoll_wait_args *a)
{
	return kern_epoll_wait(td, a->epfd, a->events, a->maxevents,
	    ms_deadline(a->timeout), UADDR(0), 0);
}

long
sys_epoll_pwait(struct thread *td, const struct sys_epoll_pwait_args *a)
{
	return kern_epoll_wait(td, a->epfd, a->events, a->maxevents,
	    ms_deadline(a->timeout), a->sigmask, a->sigsetsize);
}

long
sys_epoll_pwait2(struct thread *td, const struct sys_epoll_pwait2_args *a)
{
	int64_t deadline;
	int r;

	if ((r = ts_deadline(td, a->timeout, &deadline)) < 0)
		return r;
	return kern_epoll_wait(td, a->epfd, a->events, a->maxevents,
	    deadline, a->sigmask, a->sigsetsize);
}
