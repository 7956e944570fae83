/*
 * timerfd: timerfd_create, timerfd_settime, timerfd_gettime.
 *
 * A timer is a next expiry on the monotonic clock and an interval; its
 * expirations are counted when looked at.  read returns the count and
 * waits while it is zero; the event loop sleeps no later than the next
 * expiry of any timer (timerfd_next) and wakes pollers when one passes.
 * XXX: TFD_TIMER_CANCEL_ON_SET, and CLOCK_REALTIME timers following a
 * change of the wall clock, are not done.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

#define NS 1000000000LL

struct tfd {
	int clock;
	int64_t next;          /* monotonic ns, or -1 when disarmed */
	int64_t interval;
	uint64_t count;        /* expirations not yet read */
	struct tfd *lnext;
};

static struct tfd *timers;

/* Count the expirations up to now. */
static void
tfd_update(struct tfd *t, int64_t now)
{
	if (t->next < 0 || now < t->next)
		return;
	if (t->interval > 0) {
		uint64_t n = (uint64_t)((now - t->next) / t->interval) + 1;

		t->count += n;
		t->next += (int64_t)n * t->interval;
	} else {
		t->count++;
		t->next = -1;
	}
}

int64_t
timerfd_next(void)
{
	int64_t d = -1;

	for (struct tfd *t = timers; t != NULL; t = t->lnext)
		if (t->next >= 0 && (d < 0 || t->next < d))
			d = t->next;
	return d;
}

void
timerfd_expire(int64_t now)
{
	bool fired = false;

	for (struct tfd *t = timers; t != NULL; t = t->lnext) {
		uint64_t before = t->count;

		tfd_update(t, now);
		if (t->count != before) {
			sched_wake_chan(t);
			fired = true;
		}
	}
	if (fired)
		poll_wake();
}

static long
tfd_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	struct tfd *t = fp->data;

	if (len < sizeof(t->count))
		return -EINVAL;
	tfd_update(t, plat_clock_ns(CLOCK_MONOTONIC));
	if (t->count == 0)
		return -EAGAIN;
	memcpy(buf, &t->count, sizeof(t->count));
	t->count = 0;
	return sizeof(t->count);
}

static short
tfd_poll(struct file *fp)
{
	struct tfd *t = fp->data;

	tfd_update(t, plat_clock_ns(CLOCK_MONOTONIC));
	return t->count > 0 ? POLLIN : 0;
}

static void
tfd_close(struct file *fp)
{
	struct tfd *t = fp->data;

	for (struct tfd **pp = &timers; *pp != NULL; pp = &(*pp)->lnext) {
		if (*pp == t) {
			*pp = t->lnext;
			break;
		}
	}
	kmem_free(t, sizeof(*t), 0);
}

static const struct file_ops tfd_fileops = {
	.read = tfd_read,
	.write = anon_write_einval,
	.stat = anon_stat,
	.poll = tfd_poll,
	.close = tfd_close,
};

long
sys_timerfd_create(struct thread *td, const struct sys_timerfd_create_args *a)
{
	struct tfd *t;
	struct file *fp;
	int clock = a->clockid;

	if (a->flags & ~(unsigned)(TFD_CLOEXEC | TFD_NONBLOCK))
		return -EINVAL;
	/*
	 * An alarm clock's timer takes CAP_WAKE_ALARM; with no machine to
	 * wake, it counts as the clock it is an alarm of.
	 */
	if (clock == CLOCK_REALTIME_ALARM || clock == CLOCK_BOOTTIME_ALARM) {
		if (td->proc->cred.euid != 0)
			return -EPERM;
		clock = clock == CLOCK_REALTIME_ALARM ? CLOCK_REALTIME :
		    CLOCK_BOOTTIME;
	}
	if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC &&
	    clock != CLOCK_BOOTTIME)
		return -EINVAL;
	if ((t = kmem_alloc(sizeof(*t), KM_ZERO)) == NULL)
		return -ENOMEM;
	t->clock = clock;
	t->next = -1;
	t->lnext = timers;
	timers = t;
	fp = file_alloc(&tfd_fileops, NULL, O_RDWR | (a->flags & TFD_NONBLOCK),
	    "anon_inode:[timerfd]");
	fp->data = t;
	fp->chan = t;
	return fd_alloc(td->proc->fdt, fp, 0, proc_nofile(td->proc),
	    (a->flags & TFD_CLOEXEC) != 0);
}

struct kitimerspec {
	int64_t int_sec, int_nsec, val_sec, val_nsec;
};

static struct tfd *
tfd_of(struct thread *td, int fd, long *errp)
{
	struct file *fp = fd_get(td->proc->fdt, fd);

	*errp = fp == NULL ? -EBADF : -EINVAL;
	return fp != NULL && fp->ops == &tfd_fileops ? fp->data : NULL;
}

static void
tfd_get(struct tfd *t, struct kitimerspec *v)
{
	int64_t now = plat_clock_ns(CLOCK_MONOTONIC), left;

	tfd_update(t, now);
	left = t->next < 0 ? 0 : VK_MAX(t->next - now, 1);
	*v = (struct kitimerspec){ t->interval / NS, t->interval % NS,
	    left / NS, left % NS };
}

long
sys_timerfd_settime(struct thread *td,
    const struct sys_timerfd_settime_args *a)
{
	struct kitimerspec nw, old;
	struct tfd *t;
	int64_t val, now = plat_clock_ns(CLOCK_MONOTONIC);
	long r;

	if ((t = tfd_of(td, a->fd, &r)) == NULL)
		return r;
	if (a->flags & ~(unsigned)(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET))
		return -EINVAL;
	if ((r = copyin(td, a->nw, &nw, sizeof(nw))) < 0)
		return r;
	if (nw.int_sec < 0 || nw.int_nsec < 0 || nw.int_nsec >= NS ||
	    nw.val_sec < 0 || nw.val_nsec < 0 || nw.val_nsec >= NS)
		return -EINVAL;
	tfd_get(t, &old);
	val = vk_ns(nw.val_sec, nw.val_nsec, 1);
	t->interval = vk_ns(nw.int_sec, nw.int_nsec, 1);
	t->count = 0;
	if (val == 0)
		t->next = -1;
	else if (a->flags & TFD_TIMER_ABSTIME)
		t->next = now + (val - plat_clock_ns(t->clock));
	else
		t->next = now + val;
	if (a->old.va != 0)
		return copyout(td, &old, a->old, sizeof(old));
	return 0;
}

long
sys_timerfd_gettime(struct thread *td,
    const struct sys_timerfd_gettime_args *a)
{
	struct kitimerspec v;
	struct tfd *t;
	long r;

	if ((t = tfd_of(td, a->fd, &r)) == NULL)
		return r;
	tfd_get(t, &v);
	return copyout(td, &v, a->cur, sizeof(v));
}
