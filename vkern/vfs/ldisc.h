/*
 * The line discipline of vkernel's own terminals (the pseudo-terminals'
 * slaves): what Linux's n_tty does between the bytes typed and the bytes
 * a program reads, and between what the program writes and the screen.
 */
#ifndef VK_VFS_LDISC_H
#define VK_VFS_LDISC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86/abi.h"

struct tty;

/* The input's size, n_tty's read buffer; the output's, a flip buffer's. */
#define LD_IN_SIZE	4096
#define LD_OUT_SIZE	65536

/* A byte queue of a fixed size. */
struct ld_ring {
	uint8_t *buf;
	size_t size, head, len;
};

struct ldisc {
	struct arch_termios tio;
	struct arch_winsize ws;
	struct tty *tty;        /* where its signal keys signal */
	struct ld_ring in;      /* typed, edited: the reader's */
	uint8_t *eol;           /* a bit per byte of in: a line ends there */
	size_t canon;           /* bytes at in's head in complete lines */
	struct ld_ring out;     /* written and echoed: the screen's */
	bool stopped;           /* output stopped by VSTOP (IXON) */
	bool lnext;             /* the next byte is taken literally */
	unsigned column;        /* the cursor's, for tabs */
	uint8_t ctrl;           /* TIOCPKT_* events for a packet reader */
};

/* Set up with Linux's settings for a new pty; 0 or -ENOMEM. */
int ld_init(struct ldisc *ld, struct tty *t);
void ld_fini(struct ldisc *ld);

/*
 * Bytes typed: edited, echoed, turned into signals as the settings say.
 * Returns how many were taken: fewer when a raw input is full.
 */
size_t ld_receive(struct ldisc *ld, const uint8_t *buf, size_t n);

/*
 * A reader takes up to len bytes: a line at most in canonical mode (0 at
 * its end of file), else as VMIN and VTIME say, expired telling that
 * VTIME ran out.  -EAGAIN when it has to wait.
 */
long ld_read(struct ldisc *ld, uint8_t *buf, size_t len, bool expired);

/* Whether a read would return now (poll's POLLIN). */
bool ld_readable(const struct ldisc *ld);

/* Bytes a read may take now (FIONREAD). */
size_t ld_nread(const struct ldisc *ld);

/*
 * A writer's bytes, with the output processing (OPOST); how many were
 * taken, or -EAGAIN while the output is full or stopped.
 */
long ld_write(struct ldisc *ld, const uint8_t *buf, size_t n);

/* Whether a write would take something now (POLLOUT). */
bool ld_writable(const struct ldisc *ld);

/* New settings (TCSETS*): packet events, a canonical switch. */
void ld_set_termios(struct ldisc *ld, const struct arch_termios *tio);

/* Drop the input, the output, or both (TCFLSH's TCIFLUSH...). */
void ld_flush(struct ldisc *ld, bool in, bool out);

/* The ring's bytes: take up to n, or put what fits. */
size_t ld_ring_get(struct ld_ring *r, uint8_t *buf, size_t n);
size_t ld_ring_put(struct ld_ring *r, const uint8_t *buf, size_t n);

/*
 * How a byte typed is echoed, as n_tty echoes it: a control character as
 * ^X under ECHOCTL.  Writes 0 to 2 bytes to out and returns how many.
 */
size_t ld_echo_bytes(const struct arch_termios *tio, uint8_t c,
    uint8_t out[2]);

#endif
