/*
 * Reading and writing: read, write, readv, writev, pread64, pwrite64,
 * preadv, pwritev, preadv2, pwritev2, lseek.
 *
 * Data moves between the file and the guest's buffer span by span, with
 * the buffer's RAM passed straight to the file's ops: no bounce buffer.
 * A read from the console with nothing to read parks the thread until
 * the host fd is readable; a write to a pipe or console whose reader has
 * gone gets EPIPE and SIGPIPE.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/uio.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vfs/console.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/pipe.h"
#include "vkern/vfs/pty.h"
#include "vkern/vfs/socket.h"
#include "vkern/vfs/tty.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

struct rwspan {
	struct file *fp;
	uint64_t *offp;
};

static long
span_read(void *arg, void *hp, size_t n)
{
	struct rwspan *s = arg;

	return s->fp->ops->read(s->fp, hp, n, s->offp);
}

static long
span_write(void *arg, void *hp, size_t n)
{
	struct rwspan *s = arg;

	return s->fp->ops->write(s->fp, hp, n, s->offp);
}

long
file_epipe(struct thread *td)
{
	uint8_t info[128];

	sig_info_user(info, SIGPIPE, 0, td->proc->pid, td->proc->cred.uid);
	sig_post(td, SIGPIPE, info, SIGPOST_THREAD);
	return -EPIPE;
}

/* Wait for the console's host fd, or for a pipe to change; then retry. */
static long
rw_park(struct thread *td, struct file *fp)
{
	td->wait = (struct wait){
		.cont = syscall_redispatch,
		.deadline = -1,
		.console_fd = fp->console_fd,
		.chan = fp->chan,
	};
	return -EPARKED;
}

/* The result of an I/O call that may have to wait or raise SIGPIPE. */
static long
rw_result(struct thread *td, struct file *fp, long r, bool write)
{
	if (r == -EAGAIN && !(fp->flags & O_NONBLOCK) && file_is_socket(fp))
		return sock_wait(td, fp, write);
	if (r == -EAGAIN && !(fp->flags & O_NONBLOCK) && !write &&
	    pty_is_file(fp))
		return pty_read_wait(td, fp);
	if (r == -EAGAIN && !(fp->flags & O_NONBLOCK) &&
	    (fp->console_fd >= 0 || fp->chan != NULL))
		return rw_park(td, fp);
	if (r == -EPIPE)
		return file_epipe(td);
	return r;
}

/*
 * The file at fd if it may be read (or written), and job control lets
 * the caller use it now.
 */
static struct file *
rw_file(struct thread *td, int fd, bool write, long *errp)
{
	struct file *fp = fd_get(td->proc->fdt, fd);

	*errp = -EBADF;
	if (fp == NULL || (write ? !file_writable(fp) : !file_readable(fp)))
		return NULL;
	if ((*errp = tty_check_io(td, fp, write)) != 0)
		return NULL;
	return fp;
}

/*
 * Pipe packets (O_DIRECT) move through a bounce buffer, one op call per
 * packet, so that the guest buffer's page boundaries do not cut them.
 */
static long
rw_packets(struct thread *td, struct file *fp, uaddr_t buf, size_t len,
    bool write)
{
	size_t n = VK_MIN(len, (size_t)PIPE_PACKET_MAX), done = 0;
	uint8_t kbuf[PIPE_PACKET_MAX];
	long r = 0;

	if (!write) {
		if ((r = fp->ops->read(fp, kbuf, n, &fp->off)) <= 0)
			return r;
		done = (size_t)r;
		return (r = copyout(td, kbuf, buf, done)) < 0 ? r : (long)done;
	}
	while (done < len) {
		n = VK_MIN(len - done, (size_t)PIPE_PACKET_MAX);
		if ((r = copyin(td, UADDR(buf.va + done), kbuf, n)) < 0 ||
		    (r = fp->ops->write(fp, kbuf, n, &fp->off)) <= 0)
			break;
		done += (size_t)r;
	}
	return done > 0 ? (long)done : r;
}

/* One buffer: off < 0 means the file's own offset. */
static long
kern_rw1(struct thread *td, struct file *fp, uaddr_t buf, size_t len,
    int64_t off, bool write)
{
	uint64_t pos = off < 0 ? 0 : (uint64_t)off;
	struct rwspan s = { fp, off < 0 ? &fp->off : &pos };

	if (len == 0)
		return 0;
	/* As Linux's rw_verify_area(): the range must end within an off_t. */
	if (len > (uint64_t)INT64_MAX - *s.offp)
		return -EINVAL;
	len = VK_MIN(len, (size_t)MAX_RW_COUNT);
	if ((file_is_pipe(fp) && pipe_packets(fp, write)) ||
	    (!write && pty_is_file(fp) && pty_reads_whole(fp)))
		return rw_packets(td, fp, buf, len, write);
	return vm_uio(td, buf, len, write ? PLAT_PROT_READ : PLAT_PROT_WRITE,
	    write ? span_write : span_read, &s);
}

/*
 * A blocking write to a pipe or stream socket goes on until all of it is
 * written, as pipe(7) says; arg[0] fd, arg[1] buffer, arg[2] length,
 * arg[3] done.  A signal in between ends it with the count written.
 */
static long
write_more(struct thread *td)
{
	int fdno = (int)td->wait.arg[0];
	struct file *fp = fd_get(td->proc->fdt, fdno);
	uint64_t buf = td->wait.arg[1], len = td->wait.arg[2];
	uint64_t done = td->wait.arg[3];
	long r;

	if (fp == NULL)
		return done > 0 ? (long)done : -EBADF;
	r = kern_rw1(td, fp, UADDR(buf + done), len - done, -1, true);
	if (r < 0 && r != -EAGAIN)
		return done > 0 ? (long)done : rw_result(td, fp, r, true);
	if (r > 0)
		done += (uint64_t)r;
	if (done == len)
		return (long)done;
	td->wait = (struct wait){ .cont = write_more, .deadline = -1,
	    .console_fd = -1, .chan = fp->chan };
	td->wait.arg[0] = (uint64_t)fdno;
	td->wait.arg[1] = buf;
	td->wait.arg[2] = len;
	td->wait.arg[3] = done;
	td->wait.done = (long)done;
	return -EPARKED;
}

static long
kern_rw(struct thread *td, int fd, uaddr_t buf, size_t len, int64_t off,
    bool positioned, bool write)
{
	struct file *fp;
	long err;

	if (positioned && off < 0)
		return -EINVAL;
	/* As Linux: ESPIPE for an unseekable file comes before EBADF. */
	fp = fd_get(td->proc->fdt, fd);
	if (positioned && fp != NULL && !fp->seekable)
		return -ESPIPE;
	if ((fp = rw_file(td, fd, write, &err)) == NULL)
		return err;
	err = kern_rw1(td, fp, buf, len, positioned ? off : -1, write);
	if (write && err > 0 && (size_t)err < VK_MIN(len,
	    (size_t)MAX_RW_COUNT) && fp->ops->whole_writes &&
	    !(fp->flags & O_NONBLOCK)) {
		td->wait.arg[0] = (uint64_t)fd;
		td->wait.arg[1] = buf.va;
		td->wait.arg[2] = VK_MIN(len, (size_t)MAX_RW_COUNT);
		td->wait.arg[3] = (uint64_t)err;
		return write_more(td);
	}
	return rw_result(td, fp, err, write);
}

long
sys_read(struct thread *td, const struct sys_read_args *a)
{
	return kern_rw(td, a->fd, a->buf, a->count, -1, false, false);
}

long
sys_write(struct thread *td, const struct sys_write_args *a)
{
	return kern_rw(td, a->fd, a->buf, a->count, -1, false, true);
}

long
sys_pread64(struct thread *td, const struct sys_pread64_args *a)
{
	return kern_rw(td, a->fd, a->buf, a->count, a->off, true, false);
}

long
sys_pwrite64(struct thread *td, const struct sys_pwrite64_args *a)
{
	return kern_rw(td, a->fd, a->buf, a->count, a->off, true, true);
}

static long
kern_rwv(struct thread *td, int fd, uaddr_t uiov, int iovcnt, int64_t off,
    bool positioned, bool write)
{
	struct kiovec iov[UIO_MAXIOV];
	struct file *fp;
	uint64_t total;
	long done = 0, r;

	if (positioned && off < 0)
		return -EINVAL;
	fp = fd_get(td->proc->fdt, fd);
	if (positioned && fp != NULL && !fp->seekable)
		return -ESPIPE;
	if ((fp = rw_file(td, fd, write, &r)) == NULL)
		return r;
	if (iovcnt < 0 || iovcnt > UIO_MAXIOV)
		return -EINVAL;
	if ((r = copyin_iov(td, uiov, (size_t)iovcnt, iov, &total)) < 0)
		return r;
	for (int i = 0; i < iovcnt; i++) {
		if (iov[i].len == 0)
			continue;
		r = kern_rw1(td, fp, UADDR(iov[i].base), iov[i].len,
		    positioned ? off + done : -1, write);
		if (r < 0)
			return done > 0 ? done : rw_result(td, fp, r, write);
		done += r;
		if ((uint64_t)r < iov[i].len)
			break;
	}
	return done;
}

long
sys_readv(struct thread *td, const struct sys_readv_args *a)
{
	return kern_rwv(td, a->fd, a->iov, a->iovcnt, -1, false, false);
}

long
sys_writev(struct thread *td, const struct sys_writev_args *a)
{
	return kern_rwv(td, a->fd, a->iov, a->iovcnt, -1, false, true);
}

long
sys_preadv(struct thread *td, const struct sys_preadv_args *a)
{
	return kern_rwv(td, a->fd, a->iov, a->iovcnt, a->off, true, false);
}

long
sys_pwritev(struct thread *td, const struct sys_pwritev_args *a)
{
	return kern_rwv(td, a->fd, a->iov, a->iovcnt, a->off, true, true);
}

/* preadv2/pwritev2: offset -1 means the file's offset; flags are hints. */
#define RWF_VALID 0x1f

long
sys_preadv2(struct thread *td, const struct sys_preadv2_args *a)
{
	if (a->flags & ~RWF_VALID)
		return -EOPNOTSUPP;
	return kern_rwv(td, a->fd, a->iov, a->iovcnt, a->off, a->off != -1,
	    false);
}

long
sys_pwritev2(struct thread *td, const struct sys_pwritev2_args *a)
{
	if (a->flags & ~RWF_VALID)
		return -EOPNOTSUPP;
	return kern_rwv(td, a->fd, a->iov, a->iovcnt, a->off, a->off != -1,
	    true);
}

/*
 * SEEK_DATA and SEEK_HOLE: ENXIO at or past the end, as Linux; a file
 * system that keeps no holes has data up to its end.  The offset moves
 * to what is found.
 */
static long
lseek_hole(struct file *fp, const struct vattr *va, int64_t off, bool data)
{
	int64_t r;

	if (off < 0 || (uint64_t)off >= va->size)
		return -ENXIO;
	if (fp->vn != NULL && fp->vn->type == VREG)
		r = vnode_seek_hole(fp->vn, (uint64_t)off, data);
	else
		r = data ? off : (int64_t)va->size;
	if (r < 0)
		return (long)r;
	fp->off = (uint64_t)r;
	return (long)r;
}

long
sys_lseek(struct thread *td, const struct sys_lseek_args *a)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);
	struct vattr va;
	int64_t base;
	int r;

	if (fp == NULL)
		return -EBADF;
	/* An unknown whence comes before what the file is, as in Linux. */
	if ((unsigned)a->whence > SEEK_HOLE)
		return -EINVAL;
	if (fp->console_fd >= 0 && !console_own_offset(fp))
		return plat_console_lseek(fp->console_fd, a->off, a->whence);
	if (!fp->seekable)
		return -ESPIPE;
	/* Memory devices (null, zero, full, random) seek nowhere: 0. */
	if (fp->vn != NULL && fp->vn->type == VCHR) {
		fp->off = 0;
		return 0;
	}
	switch (a->whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = (int64_t)fp->off;
		break;
	case SEEK_END:
	case SEEK_DATA:
	case SEEK_HOLE:
		if ((r = fp->ops->stat(fp, &va)) < 0)
			return r;
		base = (int64_t)va.size;
		if (a->whence == SEEK_END)
			break;
		return lseek_hole(fp, &va, a->off, a->whence == SEEK_DATA);
	default:
		return -EINVAL;
	}
	if ((a->off > 0 && base > INT64_MAX - a->off) || base + a->off < 0)
		return -EINVAL;
	fp->off = (uint64_t)(base + a->off);
	return (long)fp->off;
}
