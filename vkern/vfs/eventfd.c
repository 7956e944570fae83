/*
 * eventfd, eventfd2: a 64-bit counter as a file.
 *
 * read takes the counter (or one, in semaphore mode) and waits while it
 * is zero; write adds and waits while the sum would overflow; both need
 * 8 bytes, as eventfd(2) says.  Readiness follows the counter.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kmem.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/vfs.h"

#define EFD_MAX 0xfffffffffffffffeULL

struct efd {
	uint64_t count;
	bool semaphore;
};

static void
efd_wake(struct file *fp)
{
	sched_wake_chan(fp->chan);
	poll_wake();
}

static long
efd_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	struct efd *e = fp->data;
	uint64_t v;

	if (len < sizeof(v))
		return -EINVAL;
	if (e->count == 0)
		return -EAGAIN;
	v = e->semaphore ? 1 : e->count;
	e->count -= v;
	memcpy(buf, &v, sizeof(v));
	efd_wake(fp);
	return sizeof(v);
}

static long
efd_write(struct file *fp, const void *buf, size_t len, uint64_t *offp)
{
	struct efd *e = fp->data;
	uint64_t v;

	if (len < sizeof(v))
		return -EINVAL;
	memcpy(&v, buf, sizeof(v));
	if (v == UINT64_MAX)
		return -EINVAL;
	if (v > EFD_MAX - e->count)
		return -EAGAIN;
	e->count += v;
	efd_wake(fp);
	return sizeof(v);
}

static short
efd_poll(struct file *fp)
{
	struct efd *e = fp->data;

	return (e->count > 0 ? POLLIN : 0) | (e->count < EFD_MAX ? POLLOUT :
	    0);
}

static void
efd_close(struct file *fp)
{
	kmem_free(fp->data, sizeof(struct efd), 0);
}

static const struct file_ops efd_fileops = {
	.read = efd_read,
	.write = efd_write,
	.stat = anon_stat,
	.poll = efd_poll,
	.close = efd_close,
};

static long
kern_eventfd(struct thread *td, unsigned initval, unsigned flags)
{
	struct efd *e;
	struct file *fp;

	if (flags & ~(unsigned)(EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE))
		return -EINVAL;
	if ((e = kmem_alloc(sizeof(*e), KM_ZERO)) == NULL)
		return -ENOMEM;
	e->count = initval;
	e->semaphore = (flags & EFD_SEMAPHORE) != 0;
	fp = file_alloc(&efd_fileops, NULL, O_RDWR | (flags & EFD_NONBLOCK),
	    "anon_inode:[eventfd]");
	fp->data = e;
	fp->chan = e;
	return fd_alloc(td->proc->fdt, fp, 0, proc_nofile(td->proc),
	    (flags & EFD_CLOEXEC) != 0);
}

long
sys_eventfd2(struct thread *td, const struct sys_eventfd2_args *a)
{
	return kern_eventfd(td, a->initval, a->flags);
}

long
sys_eventfd(struct thread *td, const struct sys_eventfd_args *a)
{
	return kern_eventfd(td, a->initval, 0);
}
