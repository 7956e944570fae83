/*
 * Pipes: pipe, pipe2, and the pipe side of fcntl (F_GETPIPE_SZ,
 * F_SETPIPE_SZ) and ioctl (FIONREAD).
 *
 * A pipe is a ring buffer on the kernel heap (64 KiB unless resized)
 * with a reader and a writer count.  A read of an empty pipe with
 * writers, or a write to a full one, parks the thread on the pipe; every
 * change wakes the parked threads, which retry their call.  Writes of at
 * most PIPE_BUF bytes go in whole or not at all.  With no readers left a
 * write gets EPIPE (and SIGPIPE, in sys_rw.c); with no writers left an
 * empty pipe reads as end of file.
 *
 * A write through a file with O_DIRECT makes packets of at most PIPE_BUF
 * bytes: a read that reaches one takes it and no more, and drops what of
 * it does not fit.  As on Linux, each packet takes one of the pipe's
 * PIPE_BUF-sized slots, so a 64 KiB pipe holds at most 16 of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/pipe.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

#define PIPE_BUF_ATOMIC PIPE_PACKET_MAX
#define PIPE_DEFAULT    65536

/* A packet: where it starts in the stream of bytes ever written. */
struct pkt {
	uint64_t start;
	size_t len;
};

struct pipe {
	uint8_t *buf;
	size_t size, head, len;   /* ring: len bytes from head */
	uint64_t consumed;        /* bytes read ever: where head is */
	struct pkt *pkts;         /* ring of size / PIPE_BUF packets */
	size_t pkt_head, npkt;
	int readers, writers;
	int wait_readers, wait_writers;   /* FIFO opens waiting for a peer */
	uint64_t nopen_w;         /* opens for writing, ever, from 1 */
	uint64_t ino;
	int64_t ctime_ns;
	uint32_t uid, gid;        /* who made it (pipe2) */
	struct vnode *fifo;       /* the FIFO it belongs to (referenced) */
	struct pipe *next;        /* the open FIFOs */
};

static struct pipe *fifos;

/* The pipe changed: wake who waits on it, and every poller. */
static void
pipe_wake(struct pipe *pp)
{
	sched_wake_chan(pp);
	poll_wake();
}

static uint64_t pipe_ino = 1000;

static struct pipe *
pipe_of(struct file *fp)
{
	return fp->data;
}

static void
pipe_ring_free(size_t size, uint8_t *buf, struct pkt *pkts)
{
	kmem_free(buf, size, 0);
	kmem_free(pkts, size / PIPE_BUF_ATOMIC * sizeof(*pkts), 0);
}

/*
 * A ring of size bytes and its packet ring, charged to the sandbox.
 * Returns 0 or -ENOMEM.
 */
static int
pipe_ring_alloc(size_t size, uint8_t **bufp, struct pkt **pktsp)
{
	*bufp = kmem_alloc(size, 0);
	*pktsp = kmem_alloc(size / PIPE_BUF_ATOMIC * sizeof(**pktsp),
	    KM_ZERO);
	if (*bufp == NULL || *pktsp == NULL) {
		pipe_ring_free(size, *bufp, *pktsp);
		return -ENOMEM;
	}
	return 0;
}

/* A new pipe, or NULL when the sandbox's memory is full. */
static struct pipe *
pipe_new(void)
{
	struct pipe *pp = kmem_alloc(sizeof(*pp), KM_ZERO);

	if (pp == NULL)
		return NULL;
	pp->size = PIPE_DEFAULT;
	if (pipe_ring_alloc(pp->size, &pp->buf, &pp->pkts) < 0) {
		kmem_free(pp, sizeof(*pp), 0);
		return NULL;
	}
	pp->ino = pipe_ino++;
	pp->ctime_ns = plat_clock_ns(0);
	/*
	 * As Linux's w_counter: the files pipe2 makes have seen no writer
	 * open (version 0), so a reader of them sees a hang-up as soon as
	 * the writers are gone.
	 */
	pp->nopen_w = 1;
	return pp;
}

/* A FIFO's data goes when its last open file does, as Linux's. */
static void
pipe_free(struct pipe *pp)
{
	if (pp->wait_readers > 0 || pp->wait_writers > 0)
		return;
	if (pp->fifo != NULL) {
		for (struct pipe **q = &fifos; *q != NULL; q = &(*q)->next) {
			if (*q == pp) {
				*q = pp->next;
				break;
			}
		}
		vnode_rel(pp->fifo);
	}
	pipe_ring_free(pp->size, pp->buf, pp->pkts);
	kmem_free(pp, sizeof(*pp), 0);
}

/* Copy out up to len bytes from the head: the count, 0 at EOF, -EAGAIN. */
static long
pipe_copyout(struct pipe *pp, void *buf, size_t len)
{
	size_t n = VK_MIN(len, pp->len), first;

	if (pp->len == 0)
		return pp->writers == 0 ? 0 : -EAGAIN;
	first = VK_MIN(n, pp->size - pp->head);
	memcpy(buf, pp->buf + pp->head, first);
	memcpy((uint8_t *)buf + first, pp->buf, n - first);
	return (long)n;
}

static void
pipe_consume(struct pipe *pp, size_t n)
{
	pp->head = (pp->head + n) % pp->size;
	pp->len -= n;
	pp->consumed += n;
}

static size_t
pkt_cap(const struct pipe *pp)
{
	return pp->size / PIPE_BUF_ATOMIC;
}

static struct pkt *
pkt_first(struct pipe *pp)
{
	return pp->npkt > 0 ? &pp->pkts[pp->pkt_head] : NULL;
}

static long
pipe_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	struct pipe *pp = pipe_of(fp);
	uint8_t *out = buf;
	size_t done = 0, n;
	struct pkt *pk;

	if (pp->len == 0)
		return pipe_copyout(pp, buf, len);
	while (done < len && pp->len > 0) {
		pk = pkt_first(pp);
		if (pk != NULL && pk->start == pp->consumed) {
			/* A packet ends the read; what does not fit is lost. */
			n = (size_t)pipe_copyout(pp, out + done,
			    VK_MIN(len - done, pk->len));
			pipe_consume(pp, pk->len);
			pp->pkt_head = (pp->pkt_head + 1) % pkt_cap(pp);
			pp->npkt--;
			done += n;
			break;
		}
		n = pk != NULL ? (size_t)(pk->start - pp->consumed) : pp->len;
		n = (size_t)pipe_copyout(pp, out + done, VK_MIN(len - done, n));
		pipe_consume(pp, n);
		done += n;
	}
	pipe_wake(pp);
	return (long)done;
}

/* Put n bytes at the tail of the ring. */
static void
pipe_put(struct pipe *pp, const uint8_t *buf, size_t n)
{
	size_t tail = (pp->head + pp->len) % pp->size;
	size_t first = VK_MIN(n, pp->size - tail);

	memcpy(pp->buf + tail, buf, first);
	memcpy(pp->buf, buf + first, n - first);
	pp->len += n;
}

/* O_DIRECT: as many whole packets as there is room and a slot for. */
static long
pipe_write_packets(struct pipe *pp, const uint8_t *buf, size_t len)
{
	size_t done = 0, n;

	while (done < len && pp->npkt < pkt_cap(pp)) {
		n = VK_MIN(len - done, (size_t)PIPE_BUF_ATOMIC);
		if (pp->size - pp->len < n)
			break;
		pp->pkts[(pp->pkt_head + pp->npkt) % pkt_cap(pp)] =
		    (struct pkt){ pp->consumed + pp->len, n };
		pp->npkt++;
		pipe_put(pp, buf + done, n);
		done += n;
	}
	return done > 0 ? (long)done : -EAGAIN;
}

static long
pipe_write(struct file *fp, const void *buf, size_t len, uint64_t *offp)
{
	struct pipe *pp = pipe_of(fp);
	size_t room = pp->size - pp->len, n;
	long r;

	if (pp->readers == 0)
		return -EPIPE;
	if (fp->flags & O_DIRECT) {
		if ((r = pipe_write_packets(pp, buf, len)) > 0) {
			fown_arrived(pp);
			pipe_wake(pp);
		}
		return r;
	}
	/* PIPE_BUF atomicity: a small write waits until it fits whole. */
	if (room == 0 || (len <= PIPE_BUF_ATOMIC && room < len))
		return -EAGAIN;
	n = VK_MIN(len, room);
	pipe_put(pp, buf, n);
	fown_arrived(pp);
	pipe_wake(pp);
	return (long)n;
}

static int
pipe_stat(struct file *fp, struct vattr *va)
{
	struct pipe *pp = pipe_of(fp);

	if (fp->vn != NULL)
		return fp->vn->ops->getattr(fp->vn, va);

	*va = (struct vattr){ .ino = pp->ino, .dev = PIPEFS_DEV,
	    .mode = S_IFIFO | 0600, .uid = pp->uid, .gid = pp->gid,
	    .nlink = 1, .blksize = 4096, .atime_ns = pp->ctime_ns,
	    .mtime_ns = pp->ctime_ns, .ctime_ns = pp->ctime_ns };
	return 0;
}

static void
pipe_close(struct file *fp)
{
	struct pipe *pp = pipe_of(fp);

	if (file_readable(fp))
		pp->readers--;
	if (file_writable(fp))
		pp->writers--;
	pipe_wake(pp);
	if (pp->readers == 0 && pp->writers == 0)
		pipe_free(pp);
}

static short
pipe_poll(struct file *fp)
{
	struct pipe *pp = pipe_of(fp);
	short r = 0;

	if (file_readable(fp)) {
		if (pp->len > 0)
			r |= POLLIN;
		/*
		 * A FIFO reader that no writer has met since it opened (a
		 * non-blocking open) waits for one, as Linux's pipe_poll().
		 */
		if (pp->writers == 0 && fp->version != pp->nopen_w)
			r |= POLLHUP;
	}
	if (file_writable(fp)) {
		if (pp->readers == 0)
			r |= POLLERR;
		else if (pp->size - pp->len >= PIPE_BUF_ATOMIC &&
		    pp->npkt < pkt_cap(pp))
			r |= POLLOUT;
	}
	return r;
}

const struct file_ops pipe_fileops = {
	.read = pipe_read,
	.write = pipe_write,
	.stat = pipe_stat,
	.close = pipe_close,
	.poll = pipe_poll,
	.whole_writes = true,
};

bool
pipe_packets(struct file *fp, bool write)
{
	return write ? (fp->flags & O_DIRECT) != 0 : pipe_of(fp)->npkt > 0;
}

bool
file_is_pipe(const struct file *fp)
{
	return fp->ops == &pipe_fileops;
}

const void *
pipe_chan(const struct file *fp)
{
	return fp->data;
}

/*
 * F_GETPIPE_SZ, and F_SETPIPE_SZ to arg rounded up to a power of two of
 * at least a page.  As Linux's pipe_set_size(), arg is an unsigned int
 * and more than 2^31 is EINVAL; past pipe-max-size EPERM.  XXX: Linux
 * lets CAP_SYS_RESOURCE go past pipe-max-size; the buffer here is in
 * vkernel's own heap, so no one does.
 */
long
pipe_fcntl_size(struct file *fp, bool set, uint32_t arg)
{
	struct pipe *pp = pipe_of(fp);
	size_t want = 4096;
	struct pkt *np;
	uint8_t *nb;

	if (!set)
		return (long)pp->size;
	if (arg > 1U << 31)
		return -EINVAL;
	if (arg > PIPE_MAX_SIZE)
		return -EPERM;
	while (want < arg)
		want *= 2;
	if (want < pp->len || want / PIPE_BUF_ATOMIC < pp->npkt)
		return -EBUSY;
	/* fcntl(2): ENOMEM when the new buffer cannot be had. */
	if (pipe_ring_alloc(want, &nb, &np) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < pp->len; i++)
		nb[i] = pp->buf[(pp->head + i) % pp->size];
	for (size_t i = 0; i < pp->npkt; i++)
		np[i] = pp->pkts[(pp->pkt_head + i) % pkt_cap(pp)];
	pipe_ring_free(pp->size, pp->buf, pp->pkts);
	pp->buf = nb;
	pp->pkts = np;
	pp->pkt_head = 0;
	pp->size = want;
	pp->head = 0;
	return (long)want;
}

long
pipe_peek(struct file *fp, void *buf, size_t len)
{
	return pipe_copyout(pipe_of(fp), buf, len);
}

long
pipe_nread(struct file *fp)
{
	return (long)pipe_of(fp)->len;
}

long
sys_pipe2(struct thread *td, const struct sys_pipe2_args *a)
{
	struct proc *p = td->proc;
	struct pipe *pp;
	struct file *rf, *wf;
	char name[32];
	int fds[2], r;

	if (a->flags & ~(unsigned)(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		return -EINVAL;
	if ((pp = pipe_new()) == NULL)
		return -ENOMEM;
	pp->readers = pp->writers = 1;
	pp->uid = p->cred.fsuid;
	pp->gid = p->cred.fsgid;
	/* The name /proc/PID/fd shows, as Linux's pipefs_dname(). */
	snprintf(name, sizeof(name), "pipe:[%llu]",
	    (unsigned long long)pp->ino);
	rf = file_alloc(&pipe_fileops, NULL, O_RDONLY | (a->flags &
	    O_NONBLOCK), name);
	wf = file_alloc(&pipe_fileops, NULL, O_WRONLY | (a->flags &
	    (O_NONBLOCK | O_DIRECT)), name);
	rf->data = wf->data = pp;
	rf->chan = wf->chan = pp;
	if ((fds[0] = fd_alloc(p->fdt, rf, 0, proc_nofile(p),
	    a->flags & O_CLOEXEC)) < 0) {
		file_rel(wf);
		return fds[0];
	}
	if ((fds[1] = fd_alloc(p->fdt, wf, 0, proc_nofile(p),
	    a->flags & O_CLOEXEC)) < 0) {
		fd_close(p->fdt, fds[0]);
		return fds[1];
	}
	if ((r = copyout(td, fds, a->fds, sizeof(fds))) < 0) {
		fd_close(p->fdt, fds[0]);
		fd_close(p->fdt, fds[1]);
	}
	return r;
}

long
sys_pipe(struct thread *td, const struct sys_pipe_args *a)
{
	struct sys_pipe2_args b = { a->fds, 0 };

	return sys_pipe2(td, &b);
}

/* --- FIFOs --- */

static struct pipe *
fifo_pipe(struct vnode *vn)
{
	struct pipe *pp;

	for (pp = fifos; pp != NULL; pp = pp->next)
		if (pp->fifo == vn)
			return pp;
	if ((pp = pipe_new()) == NULL)
		return NULL;
	vnode_ref(vn);
	pp->fifo = vn;
	pp->next = fifos;
	fifos = pp;
	return pp;
}

static const struct vnode_ops pipefs_vnops;

/* Whether pp is a pipe from pipe2 that a /proc/PID/fd link opens. */
static bool
fifo_is_pipe(const struct pipe *pp)
{
	return pp->fifo->ops == &pipefs_vnops;
}

/* Make the open file for a FIFO whose peer is there (or not needed). */
static long
fifo_file(struct proc *p, struct pipe *pp, unsigned flags, const char *path,
    bool cloexec)
{
	unsigned acc = flags & O_ACCMODE;
	struct file *fp;

	if (acc != O_WRONLY)
		pp->readers++;
	if (acc != O_RDONLY) {
		pp->writers++;
		pp->nopen_w++;
	}
	vnode_ref(pp->fifo);
	fp = file_alloc(&pipe_fileops, pp->fifo, flags, path);
	fp->seekable = false;
	/* A pipe's reader, as pipe2's, has met no writer (see pipe_new). */
	fp->version = fifo_is_pipe(pp) ? 0 : pp->nopen_w;
	fp->data = pp;
	fp->chan = pp;
	pipe_wake(pp);
	return fd_alloc(p->fdt, fp, 0, proc_nofile(p), cloexec);
}

static bool
fifo_peer(const struct pipe *pp, unsigned acc)
{
	return acc == O_RDONLY ? pp->writers + pp->wait_writers > 0 :
	    pp->readers + pp->wait_readers > 0;
}

static void
fifo_unwait(struct pipe *pp, unsigned acc)
{
	if (acc == O_RDONLY)
		pp->wait_readers--;
	else
		pp->wait_writers--;
}

/* A blocked FIFO open: arg[0] the pipe, arg[1] flags, arg[2] path. */
static long
fifo_open_cont(struct thread *td)
{
	struct pipe *pp = (struct pipe *)(uintptr_t)td->wait.arg[0];
	unsigned flags = (unsigned)td->wait.arg[1];
	char *path = (char *)(uintptr_t)td->wait.arg[2];
	long r;

	if (!fifo_peer(pp, flags & O_ACCMODE))
		return -EPARKED;
	fifo_unwait(pp, flags & O_ACCMODE);
	r = fifo_file(td->proc, pp, flags & ~(unsigned)O_CLOEXEC, path,
	    flags & O_CLOEXEC);
	free(path);
	return r;
}

static void
fifo_open_cancel(struct thread *td)
{
	struct pipe *pp = (struct pipe *)(uintptr_t)td->wait.arg[0];

	fifo_unwait(pp, (unsigned)td->wait.arg[1] & O_ACCMODE);
	free((char *)(uintptr_t)td->wait.arg[2]);
	if (pp->readers == 0 && pp->writers == 0)
		pipe_free(pp);
}

long
fifo_open(struct thread *td, struct vnode *vn, unsigned flags,
    const char *path)
{
	struct pipe *pp = fifo_pipe(vn);
	unsigned acc = flags & O_ACCMODE;

	if (pp == NULL)
		return -ENOMEM;
	/*
	 * fifo(7): O_RDWR never waits; a lone non-blocking writer: ENXIO.
	 * A pipe's open never waits, as Linux's fifo_open() on pipefs.
	 */
	if (acc == O_RDWR || fifo_peer(pp, acc) || fifo_is_pipe(pp) ||
	    (acc == O_RDONLY && (flags & O_NONBLOCK)))
		return fifo_file(td->proc, pp, flags & ~(unsigned)O_CLOEXEC,
		    path, flags & O_CLOEXEC);
	if (flags & O_NONBLOCK) {
		if (pp->readers == 0 && pp->writers == 0)
			pipe_free(pp);
		return -ENXIO;
	}
	if (acc == O_RDONLY)
		pp->wait_readers++;
	else
		pp->wait_writers++;
	pipe_wake(pp);
	td->wait = (struct wait){ .cont = fifo_open_cont,
	    .cancel = fifo_open_cancel, .deadline = -1, .console_fd = -1,
	    .chan = pp };
	td->wait.arg[0] = (uint64_t)(uintptr_t)pp;
	td->wait.arg[1] = flags;
	td->wait.arg[2] = (uint64_t)(uintptr_t)strdup(path);
	return -EPARKED;
}

/*
 * --- The pipe behind /proc/PID/fd/N ---
 *
 * Opening such a link to a pipe opens the pipe again, as a FIFO: Linux's
 * pipes are FIFO inodes, so O_RDONLY makes one more reader of the same
 * pipe, O_WRONLY one more writer and O_RDWR both, by fifo_open().  A
 * pipe from pipe2 gets its inode the first time a link to it is
 * followed: a FIFO vnode on an internal pipefs, which the pipe then
 * holds as a named FIFO's.  The vnode keeps the pipe's number, owner and
 * times; should it outlive the pipe (an O_PATH file of it), opening it
 * makes a new empty pipe, as a FIFO's open does.
 */

struct pipefs_node {
	uint64_t ino;
	uint32_t uid, gid;
	int64_t ctime_ns;
};

static int
pipefs_lookup(struct vnode *dir, const char *name, struct vnode **vpp)
{
	return -ENOTDIR;
}

static int
pipefs_getattr(struct vnode *vn, struct vattr *va)
{
	const struct pipefs_node *pn = vn->data;

	*va = (struct vattr){ .ino = pn->ino, .dev = PIPEFS_DEV,
	    .mode = S_IFIFO | 0600, .uid = pn->uid, .gid = pn->gid,
	    .nlink = 1, .blksize = 4096, .atime_ns = pn->ctime_ns,
	    .mtime_ns = pn->ctime_ns, .ctime_ns = pn->ctime_ns };
	return 0;
}

/* XXX: Linux lets the owner chmod a pipe's inode; nothing here keeps it. */
static int
pipefs_setattr(struct vnode *vn, const struct vattr *va, unsigned mask)
{
	return -EPERM;
}

static void
pipefs_inactive(struct vnode *vn)
{
	kmem_free(vn->data, sizeof(struct pipefs_node), KM_FS);
}

static const struct vnode_ops pipefs_vnops = {
	.lookup = pipefs_lookup,
	.getattr = pipefs_getattr,
	.setattr = pipefs_setattr,
	.inactive = pipefs_inactive,
};

int
pipe_vnode(struct file *fp, struct vnode **vpp)
{
	static struct mount *pipefs;
	struct pipe *pp = pipe_of(fp);
	struct pipefs_node *pn;

	if (pp->fifo == NULL) {
		if (pipefs == NULL) {
			pipefs = mount_alloc("pipefs", "pipefs", false,
			    KM_FORCE);
			pipefs->magic = 0x50495045;	/* PIPEFS_MAGIC */
			pipefs->dev = PIPEFS_DEV;
		}
		pn = kmem_alloc(sizeof(*pn), KM_FORCE | KM_FS);
		*pn = (struct pipefs_node){ .ino = pp->ino, .uid = pp->uid,
		    .gid = pp->gid, .ctime_ns = pp->ctime_ns };
		pp->fifo = vnode_alloc(pipefs, VFIFO, &pipefs_vnops, pn);
		pp->next = fifos;
		fifos = pp;
	}
	vnode_ref(pp->fifo);
	*vpp = pp->fifo;
	return 0;
}
