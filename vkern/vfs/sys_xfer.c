/*
 * Copying between files inside the kernel: sendfile, copy_file_range,
 * splice, tee; and vmsplice, between a pipe and the caller's memory.
 *
 * All move data through a kernel buffer, a chunk at a time; nothing
 * passes through guest memory.  splice and tee need a pipe on one side
 * (both, for tee) and wait on it as read(2) and write(2) would.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/uio.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kern/kern.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/pipe.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

#define XFER_CHUNK 65536

/*
 * Copy up to len bytes from in (at *inoff) to out (at *outoff).  Returns
 * the count copied, or -errno when nothing was.
 */
static long
xfer(struct file *in, uint64_t *inoff, struct file *out, uint64_t *outoff,
    size_t len)
{
	char *buf = vk_xmalloc(XFER_CHUNK);
	long done = 0, r = 0;

	while ((size_t)done < len) {
		size_t want = VK_MIN(len - (size_t)done, (size_t)XFER_CHUNK);
		long w;

		r = in->ops->read(in, buf, want, inoff);
		if (r <= 0)
			break;
		w = out->ops->write(out, buf, (size_t)r, outoff);
		if (w < 0) {
			r = w;
			break;
		}
		done += w;
		if (w < r)
			break;
	}
	free(buf);
	return done > 0 ? done : r;
}

long
sys_sendfile(struct thread *td, const struct sys_sendfile_args *a)
{
	struct fdtable *t = td->proc->fdt;
	struct file *out = fd_get(t, a->outfd), *in = fd_get(t, a->infd);
	uint64_t pos;
	int64_t off;
	long r;

	if (in == NULL || out == NULL || !file_readable(in) ||
	    !file_writable(out))
		return -EBADF;
	if (in->vn == NULL || in->vn->type != VREG)
		return -EINVAL;
	if (out->flags & O_APPEND)
		return -EINVAL;
	if (a->offset.va == 0)
		return xfer(in, &in->off, out, &out->off,
		    VK_MIN(a->count, (size_t)MAX_RW_COUNT));
	if ((r = copyin(td, a->offset, &off, sizeof(off))) < 0)
		return r;
	if (off < 0)
		return -EINVAL;
	pos = (uint64_t)off;
	r = xfer(in, &pos, out, &out->off, VK_MIN(a->count,
	    (size_t)MAX_RW_COUNT));
	off = (int64_t)pos;
	if (r >= 0 && copyout(td, &off, a->offset, sizeof(off)) < 0)
		return -EFAULT;
	return r;
}

static int
cfr_offset(struct thread *td, uaddr_t u, struct file *fp, uint64_t *pos,
    uint64_t **pp)
{
	int64_t off;
	int r;

	if (u.va == 0) {
		*pp = &fp->off;
		return 0;
	}
	if ((r = copyin(td, u, &off, sizeof(off))) < 0)
		return r;
	if (off < 0)
		return -EINVAL;
	*pos = (uint64_t)off;
	*pp = pos;
	return 0;
}

/* Write back an offset the caller gave, if it gave one. */
static int
cfr_offset_out(struct thread *td, uaddr_t u, uint64_t pos)
{
	int64_t off = (int64_t)pos;

	return u.va == 0 ? 0 : copyout(td, &off, u, sizeof(off));
}

long
sys_copy_file_range(struct thread *td,
    const struct sys_copy_file_range_args *a)
{
	struct fdtable *t = td->proc->fdt;
	struct file *in = fd_get(t, a->infd), *out = fd_get(t, a->outfd);
	uint64_t ipos, opos, *ip, *op;
	long r;

	if (a->flags != 0)
		return -EINVAL;
	if (in == NULL || out == NULL || !file_readable(in) ||
	    !file_writable(out) || (out->flags & O_APPEND))
		return -EBADF;
	if (in->vn == NULL || out->vn == NULL)
		return -EINVAL;
	if (in->vn->type == VDIR || out->vn->type == VDIR)
		return -EISDIR;
	if (in->vn->type != VREG || out->vn->type != VREG)
		return -EINVAL;
	if ((r = cfr_offset(td, a->offin, in, &ipos, &ip)) < 0 ||
	    (r = cfr_offset(td, a->offout, out, &opos, &op)) < 0)
		return r;
	if (in->vn == out->vn && *ip < *op + a->len && *op < *ip + a->len)
		return -EINVAL;
	r = xfer(in, ip, out, op, VK_MIN(a->len, (size_t)MAX_RW_COUNT));
	if (r >= 0 && (cfr_offset_out(td, a->offin, ipos) < 0 ||
	    cfr_offset_out(td, a->offout, opos) < 0))
		return -EFAULT;
	return r;
}

#define SPLICE_F_NONBLOCK_ 0x02
#define SPLICE_VALID 0x0f

/* A splice or tee that found its input pipe empty: wait and retry. */
static long
splice_wait(struct thread *td, struct file *in)
{
	td->wait = (struct wait){ .cont = syscall_redispatch, .deadline = -1,
	    .console_fd = in->console_fd, .chan = file_is_pipe(in) ?
	    pipe_chan(in) : NULL };
	return -EPARKED;
}

long
sys_splice(struct thread *td, const struct sys_splice_args *a)
{
	struct fdtable *t = td->proc->fdt;
	struct file *in = fd_get(t, a->infd), *out = fd_get(t, a->outfd);
	uint64_t ipos, opos, *ip, *op;
	long r;

	if (in == NULL || out == NULL || !file_readable(in) ||
	    !file_writable(out))
		return -EBADF;
	if (a->flags & ~(unsigned)SPLICE_VALID)
		return -EINVAL;
	if (!file_is_pipe(in) && !file_is_pipe(out))
		return -EINVAL;
	if ((file_is_pipe(in) && a->offin.va != 0) ||
	    (file_is_pipe(out) && a->offout.va != 0))
		return -ESPIPE;
	/* One pipe's two ends would move its data round without end. */
	if (in == out || (file_is_pipe(in) && file_is_pipe(out) &&
	    pipe_chan(in) == pipe_chan(out)))
		return -EINVAL;
	if (a->len == 0)
		return 0;
	if ((r = cfr_offset(td, a->offin, in, &ipos, &ip)) < 0 ||
	    (r = cfr_offset(td, a->offout, out, &opos, &op)) < 0)
		return r;
	r = xfer(in, ip, out, op, VK_MIN(a->len, (size_t)MAX_RW_COUNT));
	if (r == -EAGAIN && !(a->flags & SPLICE_F_NONBLOCK_) &&
	    !(in->flags & O_NONBLOCK))
		return splice_wait(td, in);
	if (r >= 0 && (cfr_offset_out(td, a->offin, ipos) < 0 ||
	    cfr_offset_out(td, a->offout, opos) < 0))
		return -EFAULT;
	return r;
}

long
sys_tee(struct thread *td, const struct sys_tee_args *a)
{
	struct fdtable *t = td->proc->fdt;
	struct file *in = fd_get(t, a->infd), *out = fd_get(t, a->outfd);
	char *buf;
	long n, w;

	if (in == NULL || out == NULL || !file_readable(in) ||
	    !file_writable(out))
		return -EBADF;
	if (a->flags & ~(unsigned)SPLICE_VALID)
		return -EINVAL;
	if (!file_is_pipe(in) || !file_is_pipe(out) ||
	    pipe_chan(in) == pipe_chan(out))
		return -EINVAL;
	if (a->len == 0)
		return 0;
	buf = vk_xmalloc(XFER_CHUNK);
	n = pipe_peek(in, buf, VK_MIN(a->len, (size_t)XFER_CHUNK));
	w = n > 0 ? out->ops->write(out, buf, (size_t)n, &out->off) : n;
	free(buf);
	if (w == -EAGAIN && n > 0)
		w = -EAGAIN;
	if (n == -EAGAIN && !(a->flags & SPLICE_F_NONBLOCK_) &&
	    !(in->flags & O_NONBLOCK))
		return splice_wait(td, in);
	return w;
}

/*
 * The piece of iovec i at off that lies in one page: copyin and copyout
 * then fail only for a page that is not there, after the pages before
 * it moved, as Linux's vmsplice stops at the first bad page.
 */
static size_t
vms_piece(const struct kiovec *v, uint64_t off)
{
	uint64_t va = v->base + off;

	return (size_t)VK_MIN(v->len - off, VK_PAGE_SIZE - (va & VK_PAGE_MASK));
}

/* User memory into the pipe fp, until the pipe is full. */
static long
vms_to_pipe(struct thread *td, struct file *fp, const struct kiovec *iov,
    size_t n)
{
	char buf[VK_PAGE_SIZE];
	long done = 0, r = 0;

	for (size_t i = 0; i < n; i++) {
		for (uint64_t off = 0; off < iov[i].len; off += (uint64_t)r) {
			size_t want = vms_piece(&iov[i], off);

			if ((r = copyin(td, UADDR(iov[i].base + off), buf,
			    want)) < 0 ||
			    (r = fp->ops->write(fp, buf, want, &fp->off)) <= 0)
				goto out;
			done += r;
			if ((size_t)r < want)
				goto out;
		}
	}
out:
	return done > 0 ? done : r;
}

/*
 * The pipe fp into user memory, until it is empty.  A piece is looked at,
 * copied out, and only then taken: a bad buffer leaves the pipe's bytes.
 */
static long
vms_from_pipe(struct thread *td, struct file *fp, const struct kiovec *iov,
    size_t n)
{
	char buf[VK_PAGE_SIZE];
	long done = 0, r = 0;

	for (size_t i = 0; i < n; i++) {
		for (uint64_t off = 0; off < iov[i].len; off += (uint64_t)r) {
			size_t want = vms_piece(&iov[i], off);

			if ((r = pipe_peek(fp, buf, want)) <= 0 ||
			    (r = copyout(td, buf, UADDR(iov[i].base + off),
			    (size_t)r)) < 0)
				goto out;
			r = fp->ops->read(fp, buf, want, &fp->off);
			if (r <= 0)
				goto out;
			done += r;
			if ((size_t)r < want)
				goto out;
		}
	}
out:
	return done > 0 ? done : r;
}

/*
 * vmsplice(2): a pipe's write end takes the caller's memory, its read end
 * gives into it.  The bytes are copied, where Linux's pipe may keep the
 * pages themselves (which SPLICE_F_GIFT offers): a program sees the
 * difference only by changing the memory before the pipe is read.
 */
long
sys_vmsplice(struct thread *td, const struct sys_vmsplice_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);
	struct kiovec iov[UIO_MAXIOV];
	uint64_t total;
	long r;

	if (a->flags & ~(unsigned)SPLICE_VALID)
		return -EINVAL;
	if (fp == NULL || (!file_writable(fp) && !file_readable(fp)))
		return -EBADF;
	if (a->nr_segs > UIO_MAXIOV)
		return -EINVAL;
	if ((r = copyin_iov(td, a->iov, a->nr_segs, iov, &total)) < 0)
		return r;
	/* As Linux: nothing to move is done before the pipe is looked for. */
	if (total == 0)
		return 0;
	if (!file_is_pipe(fp))
		return -EBADF;
	if (file_writable(fp))
		r = vms_to_pipe(td, fp, iov, a->nr_segs);
	else
		r = vms_from_pipe(td, fp, iov, a->nr_segs);
	if (r == -EAGAIN && !(a->flags & SPLICE_F_NONBLOCK_) &&
	    !(fp->flags & O_NONBLOCK))
		return splice_wait(td, fp);
	if (r == -EPIPE)
		return file_epipe(td);
	return r;
}
