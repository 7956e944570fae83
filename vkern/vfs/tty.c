/*
 * The console as a terminal, and job control on it.
 *
 * The host terminal is the line discipline: the guest's termios go to it
 * as they are, and its echo, line editing and signal keys work for the
 * guest (a Ctrl-C signals vkernel, which passes it to the foreground
 * group here, kern_boot.c).  What the host cannot know is the guest's
 * sessions and process groups, so the controlling-terminal state lives
 * here: which session owns the terminal and which of its groups is in
 * the foreground.  The checks follow Linux's drivers/tty/tty_jobctrl.c:
 * a background group that reads gets SIGTTIN, one that writes with
 * TOSTOP set or changes the settings gets SIGTTOU, and the call runs
 * again once the group is continued.
 *
 * Two things of a terminal stay here too.  Bytes TIOCSTI pushes wait in a
 * small queue that reads take first and poll sees, never in the host
 * terminal's input, where the shell that started vkernel could read them.
 * And no request waits in the host for long: draining output and breaks
 * park the guest thread (tty_drain, tty_break), since a host ioctl that
 * waits holds up the one event loop, and every guest with it.
 *
 * There is one console terminal: the console files on host fds that are
 * one.  The job-control half serves the pseudo-terminals' slaves (pty.c)
 * as well: each is a struct tty, and a process's ctty points at one.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>

#include "arch/x86/abi.h"
#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/platform.h"
#include "vkern/vfs/devfs/devfs.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/ldisc.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/pty.h"
#include "vkern/vfs/tty.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

/* How often a drain looks at the host's output queue. */
#define TTY_DRAIN_POLL_NS	(10 * 1000 * 1000)

/* A break with no length given (TCSBRK 0, TCSBRKP 0), in ms, as Linux. */
#define TTY_BREAK_MS		250

static int tty_console_getattr(struct tty *t, struct arch_termios *tio);

static struct {
	struct tty t;   /* first: fp->data points at both */
	bool present;   /* a console fd is a terminal */
	struct vnode *node;  /* its name, devfs's /dev/console */
	size_t nsti;    /* bytes in sti */
	uint8_t sti[4096];  /* TIOCSTI's, read first; n_tty's buffer size */
} tty = {
	.t = { .getattr = tty_console_getattr },
};

/* The console's settings are the host terminal's (any of its fds). */
static int
tty_console_getattr(struct tty *t, struct arch_termios *tio)
{
	for (int fd = 0; fd < 3; fd++)
		if (plat_console_ioctl(fd, TCGETS, tio) == 0)
			return 0;
	return -ENOTTY;
}

void
tty_file_init(struct file *fp)
{
	struct arch_termios tio;

	if (plat_console_ioctl(fp->console_fd, TCGETS, &tio) == 0) {
		fp->data = &tty;
		/* A reader that waits is woken by a TIOCSTI, too. */
		fp->chan = &tty;
		tty.present = true;
		/* The guest names it /dev/console (devfs.c). */
		tty.t.rdev = makedev(5, 1);
	}
}

bool
tty_file(const struct file *fp)
{
	return fp->console_fd >= 0 && fp->data == &tty;
}

bool
tty_is_console(const struct tty *t)
{
	return t == &tty.t;
}

struct tty *
tty_of(const struct file *fp)
{
	return tty_file(fp) ? &tty.t : pty_slave_tty(fp);
}

/*
 * The guest names the console /dev/console (5:1), as a Linux booted with
 * console= on a serial line names its: fstat of a console file on the
 * terminal is that devfs node's, so that ttyname(), tty(1), ps's TTY and
 * /proc/PID/stat's tty_nr agree.  Looked up once, in p's root.
 */
void
tty_name_console(struct proc *p)
{
	struct nameidata nd;
	uint64_t rdev;

	if (!tty.present || tty.node != NULL || vfs_lookup(p, AT_FDCWD,
	    "/dev/console", LOOKUP_FOLLOW, &nd) < 0)
		return;
	if (devfs_node_rdev(nd.vp, &rdev) == 0 && rdev == tty.t.rdev) {
		tty.node = nd.vp;
		nd.vp = NULL;
	}
	nd_release(&nd);
}

int
tty_console_stat(const struct file *fp, struct vattr *va)
{
	if (!tty_file(fp) || tty.node == NULL)
		return -ENOENT;
	return tty.node->ops->getattr(tty.node, va);
}

/* Whether t is p's controlling terminal. */
static bool
tty_is_ctty(const struct proc *p, const struct tty *t)
{
	return p->ctty == t && t->sid != 0 && p->sid == t->sid;
}

void
tty_set_ctty(struct tty *t, struct proc *p)
{
	t->sid = p->sid;
	t->pgrp = p->pgid;
	p->ctty = t;
}

int
tty_fg_pgrp(void)
{
	return tty.present ? tty.t.pgrp : -1;
}

void
tty_signal_fg(struct tty *t, int sig)
{
	uint8_t info[128];

	if (t->pgrp == 0)
		return;
	sig_info_user(info, sig, SI_KERNEL, 0, 0);
	sig_post_pgrp(t->pgrp, sig, info);
}

/* Every process of t's session loses it as its terminal. */
static void
tty_forget(struct tty *t)
{
	for (struct proc *q = proc_first(); q != NULL; q = q->next)
		if (q->ctty == t)
			q->ctty = NULL;
	t->sid = t->pgrp = 0;
}

/*
 * The session loses the terminal: its foreground group gets SIGHUP (and
 * SIGCONT, unless the leader is exiting), as Linux's disassociate_ctty.
 */
static void
tty_disassociate(struct tty *t, bool on_exit)
{
	tty_signal_fg(t, SIGHUP);
	if (!on_exit)
		tty_signal_fg(t, SIGCONT);
	tty_forget(t);
}

void
tty_hangup(struct tty *t)
{
	struct proc *leader = t->sid != 0 ? proc_find(t->sid) : NULL;
	uint8_t info[128];

	if (leader != NULL && !leader->exiting && leader->ctty == t) {
		sig_info_user(info, SIGHUP, SI_KERNEL, 0, 0);
		sig_post(leader->main, SIGHUP, info, 0);
		sig_info_user(info, SIGCONT, SI_KERNEL, 0, 0);
		sig_post(leader->main, SIGCONT, info, 0);
	}
	tty_forget(t);
}

void
tty_gone(struct tty *t)
{
	tty_forget(t);
}

void
tty_proc_exit(struct proc *p)
{
	if (p->ctty != NULL && tty_is_ctty(p, p->ctty) && p->pid == p->sid)
		tty_disassociate(p->ctty, true);
}

/* A signal the caller blocks or ignores does not stop it. */
static bool
tty_sig_ignored(const struct thread *td, int sig)
{
	return (td->sigmask & SIGBIT(sig)) ||
	    td->proc->sighand->act[sig - 1].handler == (uint64_t)(uintptr_t)SIG_IGN;
}

/*
 * A caller outside t's foreground group: with sig ignored a read fails
 * EIO and the rest go on; an orphaned group (nobody to continue it) gets
 * EIO; otherwise the group gets sig and the call is made again later.
 */
static long
tty_check_sig(struct thread *td, struct tty *t, int sig)
{
	struct proc *p = td->proc;
	uint8_t info[128];

	if (!tty_is_ctty(p, t) || t->pgrp == 0 || p->pgid == t->pgrp)
		return 0;
	if (tty_sig_ignored(td, sig))
		return sig == SIGTTIN ? -EIO : 0;
	if (pgrp_orphaned(p->pgid))
		return -EIO;
	sig_info_user(info, sig, SI_KERNEL, 0, 0);
	sig_post_pgrp(p->pgid, sig, info);
	return -ERESTARTSYS_;
}

long
tty_check_change(struct thread *td, struct tty *t)
{
	return tty_check_sig(td, t, SIGTTOU);
}

long
tty_check_io(struct thread *td, struct file *fp, bool write)
{
	struct tty *t = tty_of(fp);
	struct arch_termios tio;

	if (t == NULL)
		return 0;
	if (!write)
		return tty_check_sig(td, t, SIGTTIN);
	/* TOSTOP is looked up only for a background writer. */
	if (!tty_is_ctty(td->proc, t) || td->proc->pgid == t->pgrp ||
	    t->getattr(t, &tio) < 0 || !(tio.c_lflag & TOSTOP))
		return 0;
	return tty_check_sig(td, t, SIGTTOU);
}

/* Whether c ends a line in canonical mode: n_tty's line delimiters. */
static bool
tty_eol(const struct arch_termios *tio, uint8_t c)
{
	return c == '\n' || (c != _POSIX_VDISABLE &&
	    (c == tio->c_cc[VEOL] || c == tio->c_cc[VEOL2]));
}

long
tty_read_pushed(struct file *fp, void *buf, size_t len)
{
	struct arch_termios tio;
	size_t n = VK_MIN(len, tty.nsti);

	if (!tty_file(fp) || n == 0)
		return 0;
	/* A canonical read returns one line at most. */
	if (plat_console_ioctl(fp->console_fd, TCGETS, &tio) == 0 &&
	    (tio.c_lflag & ICANON)) {
		for (size_t i = 0; i < n; i++) {
			if (tty_eol(&tio, tty.sti[i])) {
				n = i + 1;
				break;
			}
		}
	}
	memcpy(buf, tty.sti, n);
	tty.nsti -= n;
	memmove(tty.sti, tty.sti + n, tty.nsti);
	return (long)n;
}

short
tty_poll_pushed(const struct file *fp)
{
	return tty_file(fp) && tty.nsti > 0 ? POLLIN : 0;
}

/*
 * Echo a pushed byte as the line discipline echoes one typed (ldisc.c):
 * control characters as ^X under ECHOCTL, a newline alone under ECHONL.
 * The host's output processing (ONLCR) applies, as to Linux's echo.
 */
static void
tty_echo(int fd, const struct arch_termios *tio, uint8_t c)
{
	uint8_t e[2];

	if (!(tio->c_lflag & ECHO)) {
		if (c == '\n' && (tio->c_lflag & ECHONL) &&
		    (tio->c_lflag & ICANON))
			(void)plat_console_write(fd, &c, 1);
		return;
	}
	(void)plat_console_write(fd, e, ld_echo_bytes(tio, c, e));
}

/*
 * TIOCSTI: a byte as if typed.  vkernel's dev.tty.legacy_tiocsti is 0
 * (/proc/sys/dev/tty/legacy_tiocsti), the setting Linux 6.2+ recommends
 * (CONFIG_LEGACY_TIOCSTI=n), so as Linux's tiocsti only CAP_SYS_ADMIN
 * may push, and a caller without it gets EIO before anything is looked
 * at.  The guest runs with the uid of whoever started vkernel, and its
 * root (euid 0) has every capability: so run by root, a guest pushes,
 * into any session's terminal (no EPERM); run by another user, it gets
 * EIO.  The byte joins the queue reads take first.
 *
 * XXX: pushed bytes are not edited nor turned into signals (ERASE,
 * INTR...), and reads take them before what the host has from the
 * keyboard.
 */
static long
tty_push(struct thread *td, struct file *fp, uaddr_t arg)
{
	struct arch_termios tio;
	uint8_t c;
	long r;

	if (td->proc->cred.euid != 0)
		return -EIO;
	if ((r = copyin(td, arg, &c, sizeof(c))) < 0)
		return r;
	if (plat_console_ioctl(fp->console_fd, TCGETS, &tio) == 0)
		tty_echo(fp->console_fd, &tio, c);
	/* A full queue drops the byte, as n_tty's full buffer does. */
	if (tty.nsti < sizeof(tty.sti))
		tty.sti[tty.nsti++] = c;
	sched_wake_chan(&tty);
	poll_wake();
	return 0;
}

/*
 * The same as syscall_redispatch, but not the same function: a signal
 * ends the wait with EINTR and no restart, as Linux's break requests.
 */
static long
tty_drain_again(struct thread *td)
{
	return syscall_redispatch(td);
}

/*
 * Wait until the host terminal has sent its output, before a break, for
 * tcdrain (brk), or before TCSETSW and TCSETSF.  A slow serial line, or
 * one whose far end sent XOFF, may take any time to drain, and the host's
 * own drain would hold the event loop all that time.  So the thread
 * waits parked and the request runs again every 10 ms until TIOCOUTQ
 * reads 0; only then does the host drain (TCSBRK 1, or TCSETSW's own),
 * which waits at most for the few bytes left in a UART's FIFO (a pty, the
 * usual console, has none).  Returns 0 once drained, -EPARKED or -errno.
 */
static long
tty_drain(struct thread *td, struct file *fp, bool brk)
{
	int n = 0, one = 1;

	if (plat_console_ioctl(fp->console_fd, TIOCOUTQ, &n) == 0 && n > 0) {
		/* Linux's set_termios restarts; the breaks give EINTR. */
		td->wait = (struct wait){
			.cont = brk ? tty_drain_again : syscall_redispatch,
			.deadline = plat_clock_ns(CLOCK_MONOTONIC) +
			    TTY_DRAIN_POLL_NS,
			.console_fd = -1,
		};
		return -EPARKED;
	}
	return brk ? plat_console_ioctl(fp->console_fd, TCSBRK, &one) : 0;
}

static long
tty_break_end(struct thread *td)
{
	return plat_console_ioctl((int)td->wait.arg[0], TIOCCBRK, NULL);
}

static void
tty_break_cancel(struct thread *td)
{
	(void)plat_console_ioctl((int)td->wait.arg[0], TIOCCBRK, NULL);
}

/*
 * A break of ms milliseconds, as Linux's send_break does it: the line
 * held in break (TIOCSBRK) while the thread waits parked, not the event
 * loop, then let go (TIOCCBRK), also when a signal (EINTR) or the
 * thread's end cuts the wait short.  A terminal that has no break says
 * so or succeeds; either way the call succeeds.  On a pty, which has
 * none, Linux returns at once; the host's TIOCSBRK does not tell, so
 * here the call takes the break's time there too.
 */
static long
tty_break(struct thread *td, struct file *fp, uint32_t ms)
{
	long r;

	if ((r = plat_console_ioctl(fp->console_fd, TIOCSBRK, NULL)) < 0)
		return r == -EOPNOTSUPP ? 0 : r;
	td->wait = (struct wait){
		.cont = tty_break_end,
		.cancel = tty_break_cancel,
		.deadline = plat_clock_ns(CLOCK_MONOTONIC) +
		    (int64_t)ms * 1000000,
		.console_fd = -1,
	};
	td->wait.arg[0] = (uint64_t)fp->console_fd;
	return -EPARKED;
}

/*
 * TCSBRK, TCSBRKP, TIOCSBRK and TIOCCBRK: from the background as a
 * change of settings, and all but TIOCCBRK after the output drains
 * (Linux's tty_ioctl).  TCSBRK with a nonzero arg is tcdrain's.
 */
static long
tty_ioctl_break(struct thread *td, struct file *fp, unsigned cmd,
    uint64_t arg)
{
	long r;

	if ((r = tty_check_change(td, &tty.t)) != 0)
		return r;
	if (cmd != TIOCCBRK && (r = tty_drain(td, fp, true)) != 0)
		return r;
	switch (cmd) {
	case TCSBRK:
		return arg != 0 ? 0 : tty_break(td, fp, TTY_BREAK_MS);
	case TCSBRKP:
		/* POSIX tcsendbreak's: tenths of a second, in an unsigned. */
		return tty_break(td, fp, arg != 0 ? (uint32_t)(arg * 100) :
		    TTY_BREAK_MS);
	}
	return plat_console_ioctl(fp->console_fd, cmd, NULL);
}

/* TIOCSPGRP: a group of the caller's own session to the foreground. */
static long
tty_set_pgrp(struct thread *td, struct tty *t, uaddr_t arg)
{
	struct proc *p = td->proc;
	bool found = false;
	int pgrp;
	long r;

	/* As Linux: an orphaned background caller is told ENOTTY. */
	if ((r = tty_check_change(td, t)) != 0)
		return r == -EIO ? -ENOTTY : r;
	if ((r = copyin(td, arg, &pgrp, sizeof(pgrp))) < 0)
		return r;
	if (pgrp < 0)
		return -EINVAL;
	if (!tty_is_ctty(p, t))
		return -ENOTTY;
	for (struct proc *q = proc_first(); q != NULL; q = q->next) {
		if (q->exiting || q->pgid != pgrp)
			continue;
		if (q->sid != p->sid)
			return -EPERM;
		found = true;
	}
	if (!found)
		return -ESRCH;
	t->pgrp = pgrp;
	return 0;
}

/*
 * TIOCSCTTY: a session leader without a terminal takes it; from another
 * session only root, with arg 1, as Linux's tiocsctty.
 */
static long
tty_take(struct thread *td, struct file *fp, struct tty *t, uint64_t arg)
{
	struct proc *p = td->proc;

	if (p->pid == p->sid && t->sid == p->sid)
		return 0;
	if (p->pid != p->sid || p->ctty != NULL)
		return -EPERM;
	if (t->sid != 0) {
		if ((int)arg != 1 || p->cred.euid != 0)
			return -EPERM;
		tty_forget(t);
	}
	if (!file_readable(fp) && p->cred.euid != 0)
		return -EPERM;
	tty_set_ctty(t, p);
	return 0;
}

/* TIOCNOTTY: a leader gives the terminal up for its session. */
static long
tty_drop(struct thread *td, struct tty *t)
{
	struct proc *p = td->proc;

	if (!tty_is_ctty(p, t))
		return -ENOTTY;
	if (p->pid == p->sid)
		tty_disassociate(t, false);
	p->ctty = NULL;
	return 0;
}

long
tty_ioctl_job(struct thread *td, struct file *fp, struct tty *t,
    unsigned cmd, uint64_t arg)
{
	int v;

	switch (cmd) {
	case TIOCGPGRP:
		/* A pty's master may ask whoever it is (pty.c: t != fp's). */
		if (tty_of(fp) == t && !tty_is_ctty(td->proc, t))
			return -ENOTTY;
		v = t->pgrp;
		return copyout(td, &v, UADDR(arg), sizeof(v));
	case TIOCSPGRP:
		return tty_set_pgrp(td, t, UADDR(arg));
	case TIOCGSID:
		if (tty_of(fp) == t && !tty_is_ctty(td->proc, t))
			return -ENOTTY;
		if (t->sid == 0)
			return -ENOTTY;
		v = t->sid;
		return copyout(td, &v, UADDR(arg), sizeof(v));
	case TIOCSCTTY:
		return tty_take(td, fp, t, arg);
	case TIOCNOTTY:
		return tty_drop(td, t);
	}
	return -ENOTTY;
}

/* The size of what a request passed to the host reads or writes. */
static size_t
tty_arg_size(unsigned cmd)
{
	switch (cmd) {
	case TCGETS: case TCSETS: case TCSETSW: case TCSETSF:
		return sizeof(struct arch_termios);
	case ARCH_TCGETS2: case ARCH_TCSETS2: case ARCH_TCSETSW2:
	case ARCH_TCSETSF2:
		return sizeof(struct arch_termios2);
	case TIOCGWINSZ: case TIOCSWINSZ:
		return sizeof(struct arch_winsize);
	case FIONREAD: case TIOCOUTQ:
		return sizeof(int);
	}
	return 0;
}

/* The requests that change the settings: TCSETS[WF] and termios2's. */
static bool
tty_sets(unsigned cmd)
{
	return cmd == TCSETS || cmd == TCSETSW || cmd == TCSETSF ||
	    cmd == ARCH_TCSETS2 || cmd == ARCH_TCSETSW2 ||
	    cmd == ARCH_TCSETSF2;
}

/* Whether a request flushes the input, TIOCSTI's queue with it. */
static bool
tty_flushes_input(unsigned cmd, int arg)
{
	return cmd == TCSETSF || cmd == ARCH_TCSETSF2 ||
	    (cmd == TCFLSH && (arg == TCIFLUSH || arg == TCIOFLUSH));
}

/*
 * The requests the host terminal answers.  Changing its settings or its
 * flow from the background is job control's business first; new
 * settings are read, then the output drains, as Linux's set_termios.
 */
static long
tty_ioctl_host(struct thread *td, struct file *fp, unsigned cmd,
    uint64_t arg, size_t n)
{
	uint8_t buf[sizeof(struct arch_termios2)];
	bool in = tty_sets(cmd) || cmd == TIOCSWINSZ;
	int v = (int)arg;
	long r;

	if (tty_sets(cmd) || cmd == TCFLSH || cmd == TCXONC) {
		if ((r = tty_check_change(td, &tty.t)) != 0)
			return r;
	}
	/* TCFLSH and TCXONC take their argument by value. */
	if (n == 0) {
		if ((r = plat_console_ioctl(fp->console_fd, cmd, &v)) == 0 &&
		    tty_flushes_input(cmd, v))
			tty.nsti = 0;
		return r;
	}
	if (in && (r = copyin(td, UADDR(arg), buf, n)) < 0)
		return r;
	if ((cmd == TCSETSW || cmd == TCSETSF || cmd == ARCH_TCSETSW2 ||
	    cmd == ARCH_TCSETSF2) && (r = tty_drain(td, fp, false)) != 0)
		return r;
	if ((r = plat_console_ioctl(fp->console_fd, cmd, buf)) < 0)
		return r;
	if (tty_flushes_input(cmd, 0))
		tty.nsti = 0;
	/* What TIOCSTI pushed is input to read, too. */
	if (cmd == FIONREAD && tty_file(fp)) {
		memcpy(&v, buf, sizeof(v));
		v += (int)tty.nsti;
		memcpy(buf, &v, sizeof(v));
	}
	return in ? 0 : copyout(td, buf, UADDR(arg), n);
}

long
tty_ioctl(struct thread *td, struct file *fp, unsigned cmd, uint64_t arg)
{
	size_t n = tty_arg_size(cmd);

	/* The host counts what a pipe or a file holds, too. */
	if (!tty_file(fp) && cmd != FIONREAD)
		return -ENOTTY;
	switch (cmd) {
	case TCSBRK: case TCSBRKP: case TIOCSBRK: case TIOCCBRK:
		return tty_ioctl_break(td, fp, cmd, arg);
	case TIOCSTI:
		return tty_push(td, fp, UADDR(arg));
	}
	if (n != 0 || cmd == TCFLSH || cmd == TCXONC)
		return tty_ioctl_host(td, fp, cmd, arg, n);
	return tty_ioctl_job(td, fp, &tty.t, cmd, arg);
}
