/*
 * signalfd, signalfd4: signals read as data.
 *
 * A read takes the reading thread's pending signals that are in the
 * file's mask (as sigtimedwait would) and returns them as struct
 * signalfd_siginfo; it waits while there is none.  Readiness is "one of
 * them is pending"; every new signal wakes the pollers.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kmem.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

_Static_assert(sizeof(struct signalfd_siginfo) == 128, "signalfd_siginfo");

struct sfd {
	uint64_t mask;
};

/* Our siginfo (the kernel's layout) as signalfd's. */
static void
sfd_convert(const uint8_t info[128], struct signalfd_siginfo *s)
{
	int32_t i32;
	uint64_t u64;

	memset(s, 0, sizeof(*s));
	memcpy(&i32, info, 4);
	s->ssi_signo = (uint32_t)i32;
	memcpy(&s->ssi_errno, info + 4, 4);
	memcpy(&s->ssi_code, info + 8, 4);
	memcpy(&s->ssi_pid, info + 16, 4);
	memcpy(&s->ssi_uid, info + 20, 4);
	memcpy(&s->ssi_status, info + 24, 4);
	memcpy(&s->ssi_int, info + 24, 4);
	memcpy(&u64, info + 24, 8);
	s->ssi_ptr = u64;
	memcpy(&s->ssi_addr, info + 16, 8);
}

static long
sfd_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	struct sfd *sf = fp->data;
	struct signalfd_siginfo s;
	uint8_t info[128];
	size_t done = 0;
	int sig;

	if (len < sizeof(s))
		return -EINVAL;
	if (curthread == NULL)
		return -EAGAIN;
	while (done + sizeof(s) <= len &&
	    sig_dequeue(curthread, sf->mask, &sig, info)) {
		sfd_convert(info, &s);
		memcpy((char *)buf + done, &s, sizeof(s));
		done += sizeof(s);
	}
	return done > 0 ? (long)done : -EAGAIN;
}

static short
sfd_poll(struct file *fp)
{
	struct sfd *sf = fp->data;

	return curthread != NULL && (sig_pending_set(curthread) & sf->mask) ?
	    POLLIN : 0;
}

static void
sfd_close(struct file *fp)
{
	kmem_free(fp->data, sizeof(struct sfd), 0);
}

static const struct file_ops sfd_fileops = {
	.read = sfd_read,
	.write = anon_write_einval,
	.stat = anon_stat,
	.poll = sfd_poll,
	.close = sfd_close,
};

long
sys_signalfd4(struct thread *td, const struct sys_signalfd4_args *a)
{
	struct sfd *sfd;
	struct file *fp;
	uint64_t mask;
	int r;

	if (a->flags & ~(unsigned)(SFD_CLOEXEC | SFD_NONBLOCK))
		return -EINVAL;
	if (a->sizemask != sizeof(mask))
		return -EINVAL;
	if ((r = copyin(td, a->mask, &mask, sizeof(mask))) < 0)
		return r;
	mask &= ~SIG_UNBLOCKABLE;
	if (a->fd != -1) {
		if ((fp = fd_get(td->proc->fdt, a->fd)) == NULL)
			return -EBADF;
		if (fp->ops != &sfd_fileops)
			return -EINVAL;
		((struct sfd *)fp->data)->mask = mask;
		poll_wake();
		return a->fd;
	}
	if ((sfd = kmem_alloc(sizeof(*sfd), KM_ZERO)) == NULL)
		return -ENOMEM;
	sfd->mask = mask;
	fp = file_alloc(&sfd_fileops, NULL, O_RDWR | (a->flags & SFD_NONBLOCK),
	    "anon_inode:[signalfd]");
	fp->data = sfd;
	fp->chan = &poll_chan;
	return fd_alloc(td->proc->fdt, fp, 0, proc_nofile(td->proc),
	    (a->flags & SFD_CLOEXEC) != 0);
}

long
sys_signalfd(struct thread *td, const struct sys_signalfd_args *a)
{
	struct sys_signalfd4_args b = { a->fd, a->mask, a->sizemask, 0 };

	return sys_signalfd4(td, &b);
}
