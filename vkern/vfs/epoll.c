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
 * report until EPOLL_CTL_MOD.  An epoll fd is itself pollable, so epolls
 * nest.
 *
 * An item is keyed by (file, fd), as Linux's: it stays while the file is
 * open anywhere (a dup of the fd, a child after fork), whatever became of
 * the fd number, and goes when the file's last reference does
 * (epoll_file_gone).  It holds no reference, so it keeps nothing open; a
 * table of the items by file finds them when the file goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/queue.h>
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
	TAILQ_ENTRY(epitem) link;  /* in its epoll's interest list */
	LIST_ENTRY(epitem) hlink;  /* ep_hash chain */
	LIST_ENTRY(epitem) flink;  /* its file's epitems */
	struct epoll *ep;
	int fd;
	struct file *fp;     /* not referenced: the item goes with it */
	uint32_t events;
	uint64_t data;
	short last;          /* EPOLLET: what was reported last, and when */
	uint64_t gen;
	bool disarmed;       /* EPOLLONESHOT: reported, until MOD */
};

struct epoll {
	TAILQ_HEAD(, epitem) items;
};

/*
 * Every item, by its key (epoll, fd, file), so that a lookup costs the
 * same however many items watch one file or fill one epoll.
 */
#define EP_HASH 4096
LIST_HEAD(ep_chain, epitem);
static struct ep_chain ep_hash[EP_HASH];

struct kepoll_event {
	uint32_t events;
	uint64_t data;
} __attribute__((packed));
_Static_assert(sizeof(struct kepoll_event) == 12, "struct epoll_event");

static const struct file_ops epoll_fileops;

static struct ep_chain *
ep_bucket(const struct epoll *ep, int fd, const struct file *fp)
{
	uint64_t h = ((uintptr_t)ep >> 4) * 0x9e3779b97f4a7c15ULL ^
	    ((uintptr_t)fp >> 4) * 0xbf58476d1ce4e5b9ULL ^ (uint32_t)fd;

	return &ep_hash[(h ^ h >> 29) % EP_HASH];
}

static struct epitem *
epoll_find(struct epoll *ep, int fd, struct file *fp)
{
	struct epitem *it;

	LIST_FOREACH(it, ep_bucket(ep, fd, fp), hlink)
		if (it->ep == ep && it->fd == fd && it->fp == fp)
			return it;
	return NULL;
}

/* A new item, charged to the sandbox: 0, or -ENOMEM. */
static int
item_add(struct epoll *ep, int fd, struct file *fp,
    const struct kepoll_event *ev)
{
	struct epitem *it = kmem_alloc(sizeof(*it), KM_ZERO);

	if (it == NULL)
		return -ENOMEM;
	it->ep = ep;
	it->fd = fd;
	it->fp = fp;
	it->events = ev->events;
	it->data = ev->data;
	TAILQ_INSERT_TAIL(&ep->items, it, link);
	LIST_INSERT_HEAD(ep_bucket(ep, fd, fp), it, hlink);
	LIST_INSERT_HEAD(&fp->epitems, it, flink);
	return 0;
}

static void
item_free(struct epitem *it)
{
	LIST_REMOVE(it, hlink);
	LIST_REMOVE(it, flink);
	TAILQ_REMOVE(&it->ep->items, it, link);
	kmem_free(it, sizeof(*it), 0);
}

void
epoll_file_gone(struct file *fp)
{
	while (!LIST_EMPTY(&fp->epitems))
		item_free(LIST_FIRST(&fp->epitems));
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
	struct epitem *it;

	TAILQ_FOREACH(it, &ep->items, link)
		if (!it->disarmed && it->fp != fp &&
		    file_poll(it->fp, (short)it->events) != 0)
			return POLLIN;
	return 0;
}

static void
epoll_close(struct file *fp)
{
	struct epoll *ep = fp->data;

	while (!TAILQ_EMPTY(&ep->items))
		item_free(TAILQ_FIRST(&ep->items));
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
	TAILQ_INIT(&ep->items);
	fp = file_alloc(&epoll_fileops, NULL, O_RDWR, "anon_inode:[eventpoll]");
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
	struct epitem *it;

	if (ep == target || depth > EPOLL_MAX_NESTS)
		return true;
	TAILQ_FOREACH(it, &ep->items, link)
		if (it->fp->ops == &epoll_fileops &&
		    epoll_reaches(it->fp->data, target, depth + 1))
			return true;
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
		if ((r = item_add(ep, a->fd, fp, &ev)) < 0)
			return r;
		poll_wake();
		return 0;
	case EPOLL_CTL_MOD:
		if (it == NULL)
			return -ENOENT;
		/* An exclusive watch cannot be changed, only deleted. */
		if (it->events & EPOLLEXCLUSIVE)
			return -EINVAL;
		it->events = ev.events;
		it->data = ev.data;
		it->last = 0;
		it->gen = 0;
		it->disarmed = false;
		poll_wake();
		return 0;
	case EPOLL_CTL_DEL:
		if (it == NULL)
			return -ENOENT;
		item_free(it);
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
	struct epitem *it;
	struct epoll *ep;
	long r, n = 0;

	if ((ep = epoll_of(td, epfd, &r)) == NULL)
		return r;
	TAILQ_FOREACH(it, &ep->items, link) {
		uint32_t got;

		if (n == max)
			break;
		if ((got = item_ready(it)) == 0)
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
