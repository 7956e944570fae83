/*
 * Reading and writing: read, write, readv, writev, pread64, pwrite64,
 * lseek, close.
 *
 * Until the file system lands (#3) the only files are the console: fds 0,
 * 1 and 2, which are the host's own.  Data moves between the host fd and
 * the RAM file directly, span by span, without a bounce buffer.  A read
 * with nothing to read parks the thread until the host fd is readable.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/uio.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"

#define MAX_RW_COUNT (INT_MAX & ~(int)VK_PAGE_MASK)

struct kiovec {
	uint64_t base, len;
};

static bool
console_fd(struct thread *td, int fd)
{
	return fd >= 0 && fd < VK_NCONSOLE && td->proc->console_open[fd];
}

static long
console_read_span(void *arg, void *hp, size_t n)
{
	return plat_console_read((int)(intptr_t)arg, hp, n);
}

static long
console_write_span(void *arg, void *hp, size_t n)
{
	return plat_console_write((int)(intptr_t)arg, hp, n);
}

/*
 * A write to a console whose reader has gone: SIGPIPE, whose default
 * action ends the process.  XXX: a handler for it runs with #4.
 */
static long
console_epipe(struct thread *td)
{
	uint64_t h = td->proc->sigact[SIGPIPE - 1].handler;

	if (h == (uint64_t)(uintptr_t)SIG_DFL &&
	    !(td->sigmask & (1ULL << (SIGPIPE - 1))))
		proc_kill_sig(td->proc, SIGPIPE, false);
	return -EPIPE;
}

static long
rw_park(struct thread *td, int fd)
{
	td->wait = (struct wait){
		.cont = syscall_redispatch,
		.deadline = -1,
		.console_fd = fd,
	};
	return -EPARKED;
}

static long
kern_rw(struct thread *td, int fd, uaddr_t buf, size_t len, bool write)
{
	long r;

	len = VK_MIN(len, (size_t)MAX_RW_COUNT);
	if (write)
		r = vm_uio(td, buf, len, PLAT_PROT_READ, console_write_span,
		    (void *)(intptr_t)fd);
	else
		r = vm_uio(td, buf, len, PLAT_PROT_WRITE, console_read_span,
		    (void *)(intptr_t)fd);
	if (r == -EPIPE)
		return console_epipe(td);
	return r;
}

long
sys_read(struct thread *td, const struct sys_read_args *a)
{
	long r;

	if (!console_fd(td, a->fd))
		return -EBADF;
	if (a->count == 0)
		return 0;
	r = kern_rw(td, a->fd, a->buf, a->count, false);
	return r == -EAGAIN ? rw_park(td, a->fd) : r;
}

long
sys_write(struct thread *td, const struct sys_write_args *a)
{
	if (!console_fd(td, a->fd))
		return -EBADF;
	if (a->count == 0)
		return 0;
	return kern_rw(td, a->fd, a->buf, a->count, true);
}

static long
kern_rwv(struct thread *td, int fd, uaddr_t uiov, int iovcnt, bool write)
{
	struct kiovec iov[UIO_MAXIOV];
	uint64_t total = 0;
	long done = 0;
	int r;

	if (!console_fd(td, fd))
		return -EBADF;
	if (iovcnt < 0 || iovcnt > UIO_MAXIOV)
		return -EINVAL;
	if ((r = copyin(td, uiov, iov, (size_t)iovcnt * sizeof(iov[0]))) < 0)
		return r;
	for (int i = 0; i < iovcnt; i++) {
		if ((int64_t)iov[i].len < 0)
			return -EINVAL;
		total += iov[i].len;
		if (total > (uint64_t)SSIZE_MAX)
			return -EINVAL;
	}
	for (int i = 0; i < iovcnt; i++) {
		long n;

		if (iov[i].len == 0)
			continue;
		n = kern_rw(td, fd, UADDR(iov[i].base), iov[i].len, write);
		if (n < 0)
			return done > 0 ? done : n;
		done += n;
		if ((uint64_t)n < iov[i].len)
			break;
	}
	return done;
}

long
sys_readv(struct thread *td, const struct sys_readv_args *a)
{
	long r = kern_rwv(td, a->fd, a->iov, a->iovcnt, false);

	return r == -EAGAIN ? rw_park(td, a->fd) : r;
}

long
sys_writev(struct thread *td, const struct sys_writev_args *a)
{
	return kern_rwv(td, a->fd, a->iov, a->iovcnt, true);
}

struct pio {
	int fd;
	int64_t off;
	bool write;
};

static long
console_pio_span(void *arg, void *hp, size_t n)
{
	struct pio *pio = arg;
	long r = pio->write ? plat_console_pwrite(pio->fd, hp, n, pio->off) :
	    plat_console_pread(pio->fd, hp, n, pio->off);

	if (r > 0)
		pio->off += r;
	return r;
}

/* Positioned I/O: the console is the host's fd, which decides (ESPIPE). */
static long
kern_pio(struct thread *td, int fd, uaddr_t buf, size_t len, int64_t off,
    bool write)
{
	struct pio pio = { fd, off, write };

	if (off < 0)
		return -EINVAL;
	if (!console_fd(td, fd))
		return -EBADF;
	len = VK_MIN(len, (size_t)MAX_RW_COUNT);
	if (len == 0)
		return write ? plat_console_pwrite(fd, NULL, 0, off) :
		    plat_console_pread(fd, NULL, 0, off);
	return vm_uio(td, buf, len, write ? PLAT_PROT_READ : PLAT_PROT_WRITE,
	    console_pio_span, &pio);
}

long
sys_pread64(struct thread *td, const struct sys_pread64_args *a)
{
	long r = kern_pio(td, a->fd, a->buf, a->count, a->off, false);

	return r == -EAGAIN ? rw_park(td, a->fd) : r;
}

long
sys_pwrite64(struct thread *td, const struct sys_pwrite64_args *a)
{
	return kern_pio(td, a->fd, a->buf, a->count, a->off, true);
}

long
sys_lseek(struct thread *td, const struct sys_lseek_args *a)
{
	if (!console_fd(td, a->fd))
		return -EBADF;
	return plat_console_lseek(a->fd, a->off, a->whence);
}

long
sys_close(struct thread *td, const struct sys_close_args *a)
{
	if (!console_fd(td, a->fd))
		return -EBADF;
	td->proc->console_open[a->fd] = false;
	return 0;
}
