/*
 * Terminals: the console (the host terminal behind the host's fds 0-2)
 * and the pseudo-terminals' slaves (pty.c).  Each is the controlling
 * terminal of at most one guest session, with a foreground process
 * group (job control); that part is the same for both and lives here.
 */
#ifndef VK_VFS_TTY_H
#define VK_VFS_TTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arch_termios;
struct file;
struct proc;
struct thread;
struct vattr;

/* A terminal's job-control state. */
struct tty {
	int sid;                /* the session it controls, or 0 */
	int pgrp;               /* its foreground group, or 0 */
	uint64_t rdev;          /* its device number (/proc/PID/stat) */
	/* Its settings now: the host's, or the line discipline's. */
	int (*getattr)(struct tty *t, struct arch_termios *tio);
};

/* Mark console file fp as the terminal when its host fd is one. */
void tty_file_init(struct file *fp);

/*
 * Name the console /dev/console, looked up in p's root; then fstat of a
 * console file on the terminal is that node's (tty_console_stat gives
 * it, or -ENOENT).
 */
void tty_name_console(struct proc *p);
int tty_console_stat(const struct file *fp, struct vattr *va);

/* Whether fp is a console file on the terminal. */
bool tty_file(const struct file *fp);

/* Whether t is the console. */
bool tty_is_console(const struct tty *t);

/* The terminal fp is (a console file or a pty slave), or NULL. */
struct tty *tty_of(const struct file *fp);

/*
 * t becomes the controlling terminal of p's session, with p's group in
 * the foreground (pid 1 at boot, TIOCSCTTY, a leader's open).
 */
void tty_set_ctty(struct tty *t, struct proc *p);

/* The console's foreground group: 0 when none, -1 with no terminal. */
int tty_fg_pgrp(void);

/* Post sig to t's foreground group, if it has one. */
void tty_signal_fg(struct tty *t, int sig);

/*
 * Job control before td reads (or writes) fp: 0 to go on, -EIO, or
 * -ERESTARTSYS_ when SIGTTIN (SIGTTOU) went to td's background group.
 */
long tty_check_io(struct thread *td, struct file *fp, bool write);

/* The same for a request that changes t's settings (SIGTTOU). */
long tty_check_change(struct thread *td, struct tty *t);

/*
 * The job-control requests on t (TIOCGPGRP, TIOCSPGRP, TIOCGSID,
 * TIOCSCTTY, TIOCNOTTY) through fp; -ENOTTY for the others.
 */
long tty_ioctl_job(struct thread *td, struct file *fp, struct tty *t,
    unsigned cmd, uint64_t arg);

/*
 * t hangs up (its pty master closed): the session leader gets SIGHUP and
 * SIGCONT, and the session loses the terminal, as Linux's tty_hangup.
 */
void tty_hangup(struct tty *t);

/* t goes away: no process keeps it as its terminal. */
void tty_gone(struct tty *t);

/*
 * A read of console file fp takes what TIOCSTI pushed first: up to len
 * bytes (a line at most in canonical mode), or 0 when there is nothing.
 */
long tty_read_pushed(struct file *fp, void *buf, size_t len);

/* POLLIN when TIOCSTI left fp's terminal bytes to read, else 0. */
short tty_poll_pushed(const struct file *fp);

/* A terminal ioctl on console file fp; -ENOTTY for the others. */
long tty_ioctl(struct thread *td, struct file *fp, unsigned cmd,
    uint64_t arg);

/* p exits: a session leader's session loses its terminal. */
void tty_proc_exit(struct proc *p);

#endif
