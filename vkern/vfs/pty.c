/*
 * Pseudo-terminals, as Linux's unix98 ptys.
 *
 * Opening /dev/ptmx makes a pair with the lowest free index N: the open
 * file is its master and /dev/pts/N (devpts) names its slave, which
 * starts locked (TIOCSPTLCK) and owned by the opener.  The slave is a
 * terminal: a struct tty for job control (tty.c) and a line discipline
 * (ldisc.c).  What the master writes is typed at the slave; what the
 * slave writes, and the echo, the master reads.  Settings requests
 * (termios, window size, job control) on either side act on the slave's.
 *
 * Closing the master hangs the slave up: its session leader gets SIGHUP,
 * its reads return 0 and everything else fails EIO, and /dev/pts/N goes.
 * Closing the last slave file makes the master's reads fail EIO, once
 * what it had to read is read, and its poll report POLLHUP.  The pair
 * and its index go with the last file and devpts vnode that hold it.
 *
 * One channel, the pair itself, wakes the waiters on either side.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/devpts/devpts.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/ldisc.h"
#include "vkern/vfs/pty.h"
#include "vkern/vfs/tty.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

/* The group and mode of a new slave, as a systemd host mounts devpts. */
#define PTY_TTY_GID	5
#define PTY_MODE	0620

struct pty {
	unsigned index;
	int refs;               /* files of either side, devpts vnodes */
	int slaves;             /* open slave files */
	bool master_gone;       /* the slave is hung up */
	bool slave_closed;      /* its last slave file closed */
	bool locked;            /* TIOCSPTLCK */
	bool packet;            /* TIOCPKT */
	bool excl;              /* TIOCEXCL */
	struct tty tty;
	struct ldisc ld;
	struct pty_node node;
};

static struct pty *pty_table[PTY_MAX];

static const struct file_ops pty_master_ops, pty_slave_ops;

/* The slave's settings, for job control's TOSTOP. */
static int
pty_getattr(struct tty *t, struct arch_termios *tio)
{
	struct pty *pt = (struct pty *)((char *)t - offsetof(struct pty, tty));

	*tio = pt->ld.tio;
	return 0;
}

struct pty *
pty_get(unsigned i)
{
	return i < PTY_MAX && pty_table[i] != NULL &&
	    !pty_table[i]->master_gone ? pty_table[i] : NULL;
}

unsigned
pty_next(unsigned i)
{
	while (i < PTY_MAX && pty_get(i) == NULL)
		i++;
	return i;
}

unsigned
pty_index(const struct pty *pt)
{
	return pt->index;
}

struct pty_node *
pty_node(struct pty *pt)
{
	return &pt->node;
}

void
pty_ref(struct pty *pt)
{
	pt->refs++;
}

void
pty_rel(struct pty *pt)
{
	VK_ASSERT(pt->refs > 0);
	if (--pt->refs > 0)
		return;
	tty_gone(&pt->tty);
	ld_fini(&pt->ld);
	pty_table[pt->index] = NULL;
	kmem_free(pt, sizeof(*pt), 0);
}

/* Either side's change: wake both sides' waiters and pollers. */
static void
pty_wake(struct pty *pt)
{
	sched_wake_chan(pt);
	fown_arrived(pt);
	poll_wake();
}

bool
pty_is_file(const struct file *fp)
{
	return fp->ops == &pty_master_ops || fp->ops == &pty_slave_ops;
}

struct tty *
pty_slave_tty(const struct file *fp)
{
	return fp->ops == &pty_slave_ops ? &((struct pty *)fp->data)->tty :
	    NULL;
}

bool
pty_reads_whole(const struct file *fp)
{
	struct pty *pt = fp->data;

	if (fp->ops == &pty_master_ops)
		return pt->packet;
	return fp->ops == &pty_slave_ops && (pt->ld.tio.c_lflag & ICANON);
}

/* --- the master --- */

static long
pty_master_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	struct pty *pt = fp->data;
	uint8_t *b = buf;
	size_t n;

	if (pt->packet && pt->ld.ctrl != 0) {
		b[0] = pt->ld.ctrl;
		pt->ld.ctrl = 0;
		return 1;
	}
	if (pt->ld.out.len > 0) {
		if (!pt->packet) {
			n = ld_ring_get(&pt->ld.out, b, len);
		} else {
			b[0] = TIOCPKT_DATA;
			n = 1 + ld_ring_get(&pt->ld.out, b + 1, len - 1);
		}
		pty_wake(pt);
		return (long)n;
	}
	return pt->slave_closed ? -EIO : -EAGAIN;
}

static long
pty_master_write(struct file *fp, const void *buf, size_t len,
    uint64_t *offp)
{
	struct pty *pt = fp->data;
	size_t n = ld_receive(&pt->ld, buf, len);

	if (n > 0)
		pty_wake(pt);
	return n > 0 || len == 0 ? (long)n : -EAGAIN;
}

static short
pty_master_poll(struct file *fp)
{
	struct pty *pt = fp->data;
	short ev = 0;

	if (pt->ld.out.len > 0 || (pt->packet && pt->ld.ctrl != 0))
		ev |= POLLIN | POLLRDNORM;
	if (pt->packet && pt->ld.ctrl != 0)
		ev |= POLLPRI;
	if (pt->ld.in.len < pt->ld.in.size)
		ev |= POLLOUT | POLLWRNORM;
	if (pt->slave_closed)
		ev |= POLLHUP;
	return ev;
}

static void
pty_master_close(struct file *fp)
{
	struct pty *pt = fp->data;

	pt->master_gone = true;
	tty_hangup(&pt->tty);
	pty_wake(pt);
	pty_rel(pt);
}

/* The ptmx node, or a devpts slave's, is what fstat tells. */
static int
pty_stat(struct file *fp, struct vattr *va)
{
	return fp->vn->ops->getattr(fp->vn, va);
}

static const struct file_ops pty_master_ops = {
	.read = pty_master_read,
	.write = pty_master_write,
	.stat = pty_stat,
	.poll = pty_master_poll,
	.close = pty_master_close,
	.whole_writes = true,
};

/* --- the slave --- */

/*
 * A read that waited with VTIME, run again (pty_retrying), and whether
 * its time ran out (pty_expired): then it returns what there is.
 */
static struct thread *pty_retrying, *pty_expired;

static long
pty_slave_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	struct pty *pt = fp->data;
	long r;

	if (pt->master_gone)
		return 0;
	r = ld_read(&pt->ld, buf, len, pty_expired == curthread &&
	    curthread != NULL);
	if (r > 0)
		pty_wake(pt);
	return r;
}

static long
pty_slave_write(struct file *fp, const void *buf, size_t len,
    uint64_t *offp)
{
	struct pty *pt = fp->data;
	long r;

	if (pt->master_gone)
		return -EIO;
	if ((r = ld_write(&pt->ld, buf, len)) > 0)
		pty_wake(pt);
	return r;
}

static short
pty_slave_poll(struct file *fp)
{
	struct pty *pt = fp->data;
	short ev = 0;

	if (pt->master_gone)
		return POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM | POLLERR |
		    POLLHUP;
	if (ld_readable(&pt->ld))
		ev |= POLLIN | POLLRDNORM;
	if (ld_writable(&pt->ld))
		ev |= POLLOUT | POLLWRNORM;
	return ev;
}

static void
pty_slave_close(struct file *fp)
{
	struct pty *pt = fp->data;

	if (--pt->slaves == 0)
		pt->slave_closed = true;
	pty_wake(pt);
	pty_rel(pt);
}

static const struct file_ops pty_slave_ops = {
	.read = pty_slave_read,
	.write = pty_slave_write,
	.stat = pty_stat,
	.poll = pty_slave_poll,
	.close = pty_slave_close,
	.whole_writes = true,
};

static long
pty_read_again(struct thread *td)
{
	long r;

	pty_retrying = td;
	if (plat_clock_ns(CLOCK_MONOTONIC) >= td->wait.timeout)
		pty_expired = td;
	r = syscall_redispatch(td);
	pty_retrying = pty_expired = NULL;
	return r;
}

/*
 * A raw read with VTIME waits that long (VMIN 0), or that long after
 * the first byte came (VMIN > 0), then takes what there is; the time
 * counts from the first wait, not again at each wake-up.
 */
long
pty_read_wait(struct thread *td, struct file *fp)
{
	struct pty *pt = fp->data;
	const uint8_t *cc = pt->ld.tio.c_cc;
	int64_t deadline = -1;

	if (fp->ops == &pty_slave_ops && !(pt->ld.tio.c_lflag & ICANON) &&
	    cc[VTIME] > 0 && (cc[VMIN] == 0 || pt->ld.in.len > 0)) {
		if (pty_retrying == td)
			deadline = td->wait.timeout;
		else
			deadline = plat_clock_ns(CLOCK_MONOTONIC) +
			    (int64_t)cc[VTIME] * 100000000;
	}
	td->wait = (struct wait){
		.cont = deadline >= 0 ? pty_read_again : syscall_redispatch,
		.deadline = deadline,
		.timeout = deadline,
		.console_fd = -1,
		.chan = pt,
	};
	return -EPARKED;
}

/* --- opening --- */

struct file *
pty_open_master(struct proc *p, struct vnode *vn, unsigned flags,
    const char *path, int *errp)
{
	int64_t now = plat_clock_ns(CLOCK_REALTIME);
	struct pty *pt;
	struct file *fp;
	unsigned i;

	for (i = 0; i < PTY_MAX && pty_table[i] != NULL; i++)
		;
	if (i == PTY_MAX) {
		*errp = -ENOSPC;
		return NULL;
	}
	if ((pt = kmem_alloc(sizeof(*pt), KM_ZERO)) == NULL ||
	    ld_init(&pt->ld, &pt->tty) < 0) {
		if (pt != NULL)
			kmem_free(pt, sizeof(*pt), 0);
		*errp = -ENOMEM;
		return NULL;
	}
	pt->index = i;
	pt->refs = 1;
	pt->locked = true;
	pt->ld.ws = (struct arch_winsize){ 0 };
	pt->tty.rdev = makedev(PTY_SLAVE_MAJOR, i);
	pt->tty.getattr = pty_getattr;
	pt->node.a = (struct devfs_attr){
		.mode = S_IFCHR | PTY_MODE, .uid = p->cred.fsuid,
		.gid = PTY_TTY_GID, .atime = now, .mtime = now, .ctime = now,
	};
	pty_table[i] = pt;
	vnode_ref(vn);
	fp = file_alloc(&pty_master_ops, vn, flags, path);
	fp->data = pt;
	fp->chan = pt;
	fp->seekable = false;
	*errp = 0;
	return fp;
}

struct file *
pty_open_slave(struct proc *p, struct pty *pt, struct vnode *vn,
    unsigned flags, int *errp)
{
	char path[32];
	struct file *fp;

	*errp = 0;
	if (pt->master_gone || pt->locked)
		*errp = -EIO;
	else if (pt->excl && p->cred.euid != 0)
		*errp = -EBUSY;
	else if (vn != NULL)
		vnode_ref(vn);
	else if ((vn = devpts_slave_vnode(pt)) == NULL)
		*errp = -EIO;
	if (*errp != 0)
		return NULL;
	(void)snprintf(path, sizeof(path), "/dev/pts/%u", pt->index);
	fp = file_alloc(&pty_slave_ops, vn, flags, path);
	fp->data = pt;
	fp->chan = pt;
	fp->seekable = false;
	pty_ref(pt);
	pt->slaves++;
	pt->slave_closed = false;
	/* As Linux's tty_open: a leader's first terminal becomes its own. */
	if (!(flags & O_NOCTTY) && p->pid == p->sid && p->ctty == NULL &&
	    pt->tty.sid == 0)
		tty_set_ctty(&pt->tty, p);
	return fp;
}

struct file *
pty_open_ctty(struct proc *p, struct tty *t, unsigned flags, int *errp)
{
	struct pty *pt = (struct pty *)((char *)t - offsetof(struct pty, tty));

	return pty_open_slave(p, pt, NULL, flags | O_NOCTTY, errp);
}

/* --- requests --- */

/* TIOCGPTPEER: the slave opened with open flags arg, as a new fd. */
static long
pty_peer(struct thread *td, struct pty *pt, uint64_t arg)
{
	struct proc *p = td->proc;
	struct file *fp;
	int err;

	/* As Linux's, flags it does not know are ignored. */
	if ((fp = pty_open_slave(p, pt, NULL, (unsigned)arg & (O_ACCMODE |
	    O_NOCTTY | O_NONBLOCK | O_APPEND), &err)) == NULL)
		return err;
	return fd_alloc(p->fdt, fp, 0, proc_nofile(p),
	    (arg & O_CLOEXEC) != 0);
}

/* TIOCSWINSZ: a new size tells the foreground group (SIGWINCH). */
static long
pty_set_winsize(struct thread *td, struct pty *pt, uaddr_t arg)
{
	struct arch_winsize ws;
	long r;

	if ((r = copyin(td, arg, &ws, sizeof(ws))) < 0)
		return r;
	if (memcmp(&ws, &pt->ld.ws, sizeof(ws)) == 0)
		return 0;
	pt->ld.ws = ws;
	tty_signal_fg(&pt->tty, SIGWINCH);
	return 0;
}

/* TCGETS, TCSETS[WF] and termios2's; speeds stay 38400. */
static long
pty_termios(struct thread *td, struct pty *pt, unsigned cmd, uaddr_t arg)
{
	struct arch_termios2 t2;
	bool two = cmd == ARCH_TCGETS2 || cmd == ARCH_TCSETS2 ||
	    cmd == ARCH_TCSETSW2 || cmd == ARCH_TCSETSF2;
	size_t n = two ? sizeof(t2) : sizeof(struct arch_termios);
	long r;

	if (cmd == TCGETS || cmd == ARCH_TCGETS2) {
		memset(&t2, 0, sizeof(t2));
		memcpy(&t2, &pt->ld.tio, sizeof(pt->ld.tio));
		t2.c_ispeed = t2.c_ospeed = 38400;
		return copyout(td, &t2, arg, n);
	}
	if ((r = tty_check_change(td, &pt->tty)) != 0)
		return r;
	if ((r = copyin(td, arg, &t2, n)) < 0)
		return r;
	if (cmd == TCSETSF || cmd == ARCH_TCSETSF2)
		ld_flush(&pt->ld, true, false);
	ld_set_termios(&pt->ld, (struct arch_termios *)&t2);
	pty_wake(pt);
	return 0;
}

/* TCFLSH: the master's input is the slave's output, and back. */
static long
pty_flush(struct thread *td, struct pty *pt, bool master, uint64_t arg)
{
	bool in, out;
	long r;

	if ((r = tty_check_change(td, &pt->tty)) != 0)
		return r;
	switch (arg) {
	case TCIFLUSH:
		in = true, out = false;
		break;
	case TCOFLUSH:
		in = false, out = true;
		break;
	case TCIOFLUSH:
		in = out = true;
		break;
	default:
		return -EINVAL;
	}
	if (master) {
		bool t = in;

		in = out;
		out = t;
	}
	ld_flush(&pt->ld, in, out);
	pty_wake(pt);
	return 0;
}

/* An int argument out, for the requests that report one. */
static long
pty_put_int(struct thread *td, int v, uint64_t arg)
{
	return copyout(td, &v, UADDR(arg), sizeof(v));
}

/* The requests only a master serves. */
static long
pty_ioctl_master(struct thread *td, struct pty *pt, unsigned cmd,
    uint64_t arg)
{
	int v;
	long r;

	switch (cmd) {
	case TIOCGPTN:
		return pty_put_int(td, (int)pt->index, arg);
	case TIOCSPTLCK:
		if ((r = copyin(td, UADDR(arg), &v, sizeof(v))) < 0)
			return r;
		pt->locked = v != 0;
		return 0;
	case TIOCGPTLCK:
		return pty_put_int(td, pt->locked, arg);
	case TIOCPKT:
		if ((r = copyin(td, UADDR(arg), &v, sizeof(v))) < 0)
			return r;
		if (v != 0 && !pt->packet)
			pt->ld.ctrl = 0;
		pt->packet = v != 0;
		return 0;
	case TIOCGPKT:
		return pty_put_int(td, pt->packet, arg);
	case TIOCGPTPEER:
		return pty_peer(td, pt, arg);
	case TIOCSIG:
		if (arg == 0 || arg > 64)
			return -EINVAL;
		tty_signal_fg(&pt->tty, (int)arg);
		return 0;
	}
	return -ENOTTY;
}

long
pty_ioctl(struct thread *td, struct file *fp, unsigned cmd, uint64_t arg)
{
	struct pty *pt = fp->data;
	bool master = fp->ops == &pty_master_ops;
	uint8_t c;
	long r;
	int v;

	if (!master && pt->master_gone)
		return cmd == TIOCSPGRP ? -ENOTTY : -EIO;
	switch (cmd) {
	case TCGETS: case TCSETS: case TCSETSW: case TCSETSF:
	case ARCH_TCGETS2: case ARCH_TCSETS2: case ARCH_TCSETSW2:
	case ARCH_TCSETSF2:
		return pty_termios(td, pt, cmd, UADDR(arg));
	case TIOCGWINSZ:
		return copyout(td, &pt->ld.ws, UADDR(arg), sizeof(pt->ld.ws));
	case TIOCSWINSZ:
		return pty_set_winsize(td, pt, UADDR(arg));
	case FIONREAD:
		return pty_put_int(td, (int)(master ? pt->ld.out.len :
		    ld_nread(&pt->ld)), arg);
	case TIOCOUTQ:
		/* Linux's ptys keep no output queue of their own. */
		return pty_put_int(td, 0, arg);
	case TCFLSH:
		return pty_flush(td, pt, master, arg);
	case TCXONC:
		if ((r = tty_check_change(td, &pt->tty)) != 0)
			return r;
		if (arg > TCION)
			return -EINVAL;
		if (arg == TCOOFF || arg == TCOON)
			pt->ld.stopped = arg == TCOOFF;
		pty_wake(pt);
		return 0;
	case TCSBRK: case TCSBRKP: case TIOCSBRK: case TIOCCBRK:
		/* Nothing to drain, and a pty sends no break. */
		return tty_check_change(td, &pt->tty);
	case TIOCEXCL: case TIOCNXCL:
		pt->excl = cmd == TIOCEXCL;
		return 0;
	case TIOCGEXCL:
		return pty_put_int(td, pt->excl, arg);
	case TIOCGETD:
		return pty_put_int(td, N_TTY, arg);
	case TIOCSETD:
		if ((r = copyin(td, UADDR(arg), &v, sizeof(v))) < 0)
			return r;
		return v == N_TTY ? 0 : -EINVAL;
	case TIOCSTI:
		/* As the console's (tty.c): root's alone. */
		if (td->proc->cred.euid != 0)
			return -EIO;
		if ((r = copyin(td, UADDR(arg), &c, 1)) < 0)
			return r;
		(void)ld_receive(&pt->ld, &c, 1);
		pty_wake(pt);
		return 0;
	case TIOCGPGRP: case TIOCSPGRP: case TIOCGSID: case TIOCSCTTY:
	case TIOCNOTTY:
		return tty_ioctl_job(td, fp, &pt->tty, cmd, arg);
	}
	return master ? pty_ioctl_master(td, pt, cmd, arg) : -ENOTTY;
}
