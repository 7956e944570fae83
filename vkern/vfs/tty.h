/*
 * The console as a terminal: the host terminal behind the host's fds
 * 0-2, the controlling terminal of one guest session, with a foreground
 * process group (job control).
 */
#ifndef VK_VFS_TTY_H
#define VK_VFS_TTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct file;
struct proc;
struct thread;

/* Mark console file fp as the terminal when its host fd is one. */
void tty_file_init(struct file *fp);

/* Whether fp is a console file on the terminal. */
bool tty_file(const struct file *fp);

/*
 * The terminal becomes the controlling terminal of p's session, with p's
 * group in the foreground (pid 1 at boot, TIOCSCTTY).
 */
void tty_set_ctty(struct proc *p);

/* The foreground group: 0 when there is none, -1 with no terminal. */
int tty_fg_pgrp(void);

/*
 * Job control before td reads (or writes) fp: 0 to go on, -EIO, or
 * -ERESTARTSYS_ when SIGTTIN (SIGTTOU) went to td's background group.
 */
long tty_check_io(struct thread *td, struct file *fp, bool write);

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
