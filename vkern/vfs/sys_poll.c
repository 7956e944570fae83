/*
 * Readiness: poll, ppoll, select, pselect6.
 *
 * Each file kind answers "ready now?" through its poll op (files on
 * vnodes are always ready, as on Linux).  With nothing ready the thread
 * parks on poll_chan, which every kind wakes when its readiness may have
 * changed (pipes), and on the console's host fd; it looks again each
 * time, until something is ready, the timeout passes or a signal comes.
 * XXX: epoll, and readiness of the fd kinds still to come, are #5.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vm/copyio.h"

const int poll_chan;
uint64_t poll_generation;

void
poll_wake(void)
{
	poll_generation++;
	sched_wake_chan(&poll_chan);
	fown_poll();
}

struct kpollfd {
	int fd;
	short events, revents;
};

short
file_poll(struct file *fp, short events)
{
	short r = fp->ops->poll != NULL ? fp->ops->poll(fp) : POLLIN | POLLOUT;

	if (r & POLLIN)
		r |= POLLRDNORM;
	if (r & POLLOUT)
		r |= POLLWRNORM;
	return r & (events | POLLERR | POLLHUP | POLLNVAL);
}

static short
fd_revents(struct thread *td, int fd, short events)
{
	struct file *fp;

	if (fd < 0)
		return 0;
	if ((fp = fd_get(td->proc->fdt, fd)) == NULL)
		return POLLNVAL;
	return file_poll(fp, events);
}

/* The first console fd of the set: what to watch while parked. */
static int
poll_console(struct thread *td, const struct kpollfd *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct file *fp = fd_get(td->proc->fdt, p[i].fd);

		if (fp != NULL && fp->console_fd >= 0 && (p[i].events & POLLIN))
			return fp->console_fd;
	}
	return -1;
}

static void
poll_restore_mask(struct thread *td)
{
	if (td->has_saved_mask) {
		td->sigmask = td->saved_mask;
		td->has_saved_mask = false;
	}
}

/*
 * select, pselect6 and ppoll write the time left back into the guest's
 * timeout, as Linux does: programs calling select may loop on it (glibc's
 * pselect and ppoll hide it).  arg[4] is where, arg[5] & 0xff which
 * format.  A bad pointer is ignored, as Linux ignores it; a dying
 * process gets nothing written.
 */
enum { TL_TIMEVAL = 1, TL_TIMESPEC };

int
ts_left_out(struct thread *td, uaddr_t u, int64_t deadline, bool timeval)
{
	int64_t left = VK_MAX(deadline - plat_clock_ns(CLOCK_MONOTONIC), 0);
	struct { int64_t sec, frac; } t = { left / 1000000000,
	    left % 1000000000 };

	if (timeval)
		t.frac /= 1000;
	return copyout(td, &t, u, sizeof(t));
}

static void
poll_timeleft(struct thread *td, int64_t deadline)
{
	uaddr_t u = UADDR(td->wait.arg[4]);

	if (u.va == 0 || deadline < 0 || td->proc->exiting)
		return;
	(void)ts_left_out(td, u, deadline,
	    (td->wait.arg[5] & 0xff) == TL_TIMEVAL);
}

static void
poll_cancel(struct thread *td)
{
	poll_timeleft(td, td->wait.deadline);
}

/* Park td in cont until deadline, keeping its six args. */
static long
poll_park(struct thread *td, long (*cont)(struct thread *), int64_t deadline,
    int console)
{
	uint64_t args[VK_NELEM(td->wait.arg)];

	memcpy(args, td->wait.arg, sizeof(args));
	td->wait = (struct wait){ .cont = cont, .cancel = poll_cancel,
	    .chan = &poll_chan, .deadline = deadline, .console_fd = console };
	memcpy(td->wait.arg, args, sizeof(args));
	return -EPARKED;
}

/* arg[0] the guest array, arg[1] its length, arg[2] the deadline + 1. */
static long
poll_cont(struct thread *td)
{
	uaddr_t ufds = UADDR(td->wait.arg[0]);
	unsigned n = (unsigned)td->wait.arg[1], ready = 0;
	int64_t deadline = (int64_t)td->wait.arg[2] - 1;
	struct kpollfd *p;
	long r;

	p = vk_xcalloc(n ? n : 1, sizeof(*p));
	if ((r = copyin(td, ufds, p, n * sizeof(*p))) < 0)
		goto out;
	for (unsigned i = 0; i < n; i++)
		if ((p[i].revents = fd_revents(td, p[i].fd, p[i].events)) != 0)
			ready++;
	if (ready == 0 && (deadline < 0 ||
	    deadline > plat_clock_ns(CLOCK_MONOTONIC))) {
		r = poll_park(td, poll_cont, deadline, poll_console(td, p, n));
		goto out;
	}
	poll_restore_mask(td);
	poll_timeleft(td, deadline);
	r = copyout(td, p, ufds, n * sizeof(*p));
	if (r == 0)
		r = ready;
out:
	free(p);
	return r;
}

/* tl: ppoll's timeout, which gets the time left, or 0. */
static long
kern_poll(struct thread *td, uaddr_t ufds, uint64_t nfds, int64_t deadline,
    uaddr_t tl)
{
	if (nfds > td->proc->rlim[RLIMIT_NOFILE].cur || nfds > (1U << 20))
		return -EINVAL;
	td->wait.arg[0] = ufds.va;
	td->wait.arg[1] = nfds;
	td->wait.arg[2] = (uint64_t)(deadline + 1);
	td->wait.arg[4] = tl.va;
	td->wait.arg[5] = TL_TIMESPEC;
	return poll_cont(td);
}

int
ts_deadline(struct thread *td, uaddr_t uts, int64_t *deadline)
{
	struct { int64_t sec, nsec; } ts;
	int r;

	*deadline = -1;
	if (uts.va == 0)
		return 0;
	if ((r = copyin(td, uts, &ts, sizeof(ts))) < 0)
		return r;
	if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
		return -EINVAL;
	*deadline = plat_clock_ns(CLOCK_MONOTONIC) + vk_ns(ts.sec, ts.nsec, 1);
	return 0;
}

/* ppoll and pselect6: the mask for the wait, as sigsuspend's. */
static int
wait_mask(struct thread *td, uaddr_t umask, size_t size)
{
	uint64_t m;
	int r;

	if (umask.va == 0)
		return 0;
	if (size != sizeof(m))
		return -EINVAL;
	if ((r = copyin(td, umask, &m, sizeof(m))) < 0)
		return r;
	td->saved_mask = td->sigmask;
	td->has_saved_mask = true;
	td->sigmask = m & ~SIG_UNBLOCKABLE;
	return 0;
}

long
sys_poll(struct thread *td, const struct sys_poll_args *a)
{
	int64_t deadline = a->timeout < 0 ? -1 :
	    plat_clock_ns(CLOCK_MONOTONIC) + (int64_t)a->timeout * 1000000;

	return kern_poll(td, a->fds, a->nfds, deadline, UADDR(0));
}

long
sys_ppoll(struct thread *td, const struct sys_ppoll_args *a)
{
	int64_t deadline;
	int r;

	if ((r = ts_deadline(td, a->tsp, &deadline)) < 0 ||
	    (r = wait_mask(td, a->sigmask, a->sigsetsize)) < 0)
		return r;
	return kern_poll(td, a->fds, a->nfds, deadline, a->tsp);
}

/* --- select: fd_set bit arrays, turned into a poll of the same fds --- */

/*
 * The three guest sets (read, write, except) of words bits each, then
 * the three the answer goes back in.
 */
struct selstate {
	size_t words;
	uint64_t *in[3], *out[3];
};

#define SEL_IN  (POLLIN | POLLHUP | POLLERR)
#define SEL_OUT (POLLOUT | POLLERR)

static long
select_cont(struct thread *td);

/*
 * The ready fds of s in its out sets, and their count; *consolep is the
 * first console fd to read, which a parked select watches, or -1.
 */
static long
select_scan(struct thread *td, int nfds, struct selstate *s, int *consolep)
{
	struct file *fp;
	long n = 0;

	for (int k = 0; k < 3; k++)
		memset(s->out[k], 0, s->words * sizeof(uint64_t));
	*consolep = -1;
	for (int fd = 0; fd < nfds; fd++) {
		uint64_t bit = 1ULL << (fd % 64);
		int w = fd / 64;
		short ev = 0, r;

		if (s->in[0][w] & bit)
			ev |= POLLIN;
		if (s->in[1][w] & bit)
			ev |= POLLOUT;
		if (s->in[2][w] & bit)
			ev |= POLLPRI;
		if (ev == 0)
			continue;
		if ((r = fd_revents(td, fd, ev)) & POLLNVAL)
			return -EBADF;
		if ((ev & POLLIN) && *consolep < 0 &&
		    (fp = fd_get(td->proc->fdt, fd))->console_fd >= 0)
			*consolep = fp->console_fd;
		if ((ev & POLLIN) && (r & SEL_IN) && ++n)
			s->out[0][w] |= bit;
		if ((ev & POLLOUT) && (r & SEL_OUT) && ++n)
			s->out[1][w] |= bit;
		if ((ev & POLLPRI) && (r & POLLPRI) && ++n)
			s->out[2][w] |= bit;
	}
	return n;
}

/* The sets for nfds fds, zeroed; free s->in[0] after. */
static void
select_alloc(struct selstate *s, int nfds)
{
	uint64_t *m;

	s->words = ((size_t)nfds + 63) / 64;
	m = vk_xcalloc(VK_MAX(s->words, 1) * 6, sizeof(uint64_t));
	for (int k = 0; k < 3; k++) {
		s->in[k] = m + (size_t)k * s->words;
		s->out[k] = m + (size_t)(k + 3) * s->words;
	}
}

/* arg[0..2] the guest sets, arg[3] the deadline + 1, arg[5] nfds << 8. */
static long
select_cont(struct thread *td)
{
	int nfds = (int)(td->wait.arg[5] >> 8);
	int64_t deadline = (int64_t)td->wait.arg[3] - 1;
	size_t bytes = ((size_t)nfds + 63) / 64 * 8;
	struct selstate s;
	long n;
	int r, console;

	select_alloc(&s, nfds);
	for (int k = 0; k < 3; k++)
		if (td->wait.arg[k] != 0 && (r = copyin(td,
		    UADDR(td->wait.arg[k]), s.in[k], bytes)) < 0) {
			n = r;
			goto out;
		}
	if ((n = select_scan(td, nfds, &s, &console)) < 0)
		goto out;
	if (n == 0 && (deadline < 0 ||
	    deadline > plat_clock_ns(CLOCK_MONOTONIC))) {
		n = poll_park(td, select_cont, deadline, console);
		goto out;
	}
	poll_restore_mask(td);
	poll_timeleft(td, deadline);
	for (int k = 0; k < 3; k++)
		if (td->wait.arg[k] != 0 && (r = copyout(td, s.out[k],
		    UADDR(td->wait.arg[k]), bytes)) < 0) {
			n = r;
			break;
		}
out:
	free(s.in[0]);
	return n;
}

/*
 * tl: the timeout that gets the time left, in format fmt (TL_*), or 0.
 * As Linux's core_sys_select(), nfds past the table's slots reads no
 * more of the sets than there are slots: no fd there can be open.
 */
static long
kern_select(struct thread *td, int nfds, uaddr_t r, uaddr_t w, uaddr_t e,
    int64_t deadline, uaddr_t tl, int fmt)
{
	if (nfds < 0)
		return -EINVAL;
	nfds = VK_MIN(nfds, td->proc->fdt->n);
	td->wait.arg[4] = tl.va;
	td->wait.arg[5] = (uint64_t)fmt | (uint64_t)nfds << 8;
	td->wait.arg[0] = r.va;
	td->wait.arg[1] = w.va;
	td->wait.arg[2] = e.va;
	td->wait.arg[3] = (uint64_t)(deadline + 1);
	return select_cont(td);
}

long
sys_select(struct thread *td, const struct sys_select_args *a)
{
	struct { int64_t sec, usec; } tv;
	int64_t deadline = -1;
	int r;

	if (a->tv.va != 0) {
		if ((r = copyin(td, a->tv, &tv, sizeof(tv))) < 0)
			return r;
		if (tv.sec < 0 || tv.usec < 0 || tv.usec >= 1000000)
			return -EINVAL;
		deadline = plat_clock_ns(CLOCK_MONOTONIC) +
		    vk_ns(tv.sec, tv.usec, 1000);
	}
	return kern_select(td, a->nfds, a->rfds, a->wfds, a->efds, deadline,
	    a->tv, TL_TIMEVAL);
}

long
sys_pselect6(struct thread *td, const struct sys_pselect6_args *a)
{
	struct { uint64_t mask; uint64_t size; } sig = { 0, 0 };
	int64_t deadline;
	int r;

	if ((r = ts_deadline(td, a->ts, &deadline)) < 0)
		return r;
	if (a->sig.va != 0 && (r = copyin(td, a->sig, &sig, sizeof(sig))) < 0)
		return r;
	if (sig.mask != 0 && (r = wait_mask(td, UADDR(sig.mask),
	    sig.size)) < 0)
		return r;
	return kern_select(td, a->nfds, a->rfds, a->wfds, a->efds, deadline,
	    a->ts, TL_TIMESPEC);
}
