/*
 * The line discipline of vkernel's terminals, after Linux's n_tty.
 *
 * Typed bytes (a pty master's writes) go through the input processing
 * into in: CR and NL mapped (ICRNL, INLCR, IGNCR), flow control keys
 * (IXON) and signal keys (ISIG) acted on, and in canonical mode (ICANON)
 * lines edited (VERASE, VKILL, VWERASE, VLNEXT) until a line delimiter
 * (NL, VEOL, VEOL2, VEOF) completes one; echo goes to out as the
 * settings say.  A canonical reader gets one line at a time, a raw one
 * what VMIN and VTIME ask for.  Written bytes go through the output
 * processing (OPOST: ONLCR, OCRNL, ONOCR, ONLRET, tabs) into out, which
 * the pty master reads.
 *
 * Both queues are bounded: in holds n_tty's 4 KiB, out 64 KiB.  A raw
 * input that is full takes no more, and the master's writer waits; a
 * canonical line that fills in loses what is typed but its delimiter, as
 * on Linux, unless whole lines wait to be read.  A full out makes the
 * slave's writer wait; echo that does not fit is dropped.
 *
 * A VEOF completes a line but is not read: it is kept as a NUL marked as
 * a line's end, which no typed byte can be (a NUL is never a delimiter).
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>

#include "vkern/kmem.h"
#include "vkern/vfs/ldisc.h"
#include "vkern/vfs/tty.h"
#include "vkern/vk.h"

size_t
ld_ring_put(struct ld_ring *r, const uint8_t *buf, size_t n)
{
	size_t tail = (r->head + r->len) % r->size, k;

	n = VK_MIN(n, r->size - r->len);
	k = VK_MIN(n, r->size - tail);
	memcpy(r->buf + tail, buf, k);
	memcpy(r->buf, buf + k, n - k);
	r->len += n;
	return n;
}

size_t
ld_ring_get(struct ld_ring *r, uint8_t *buf, size_t n)
{
	size_t k;

	n = VK_MIN(n, r->len);
	k = VK_MIN(n, r->size - r->head);
	memcpy(buf, r->buf + r->head, k);
	memcpy(buf + k, r->buf, n - k);
	r->head = (r->head + n) % r->size;
	r->len -= n;
	return n;
}

/* The ring position of its i-th byte. */
static size_t
ld_pos(const struct ld_ring *r, size_t i)
{
	return (r->head + i) % r->size;
}

static bool
ld_eol_at(const struct ldisc *ld, size_t i)
{
	size_t p = ld_pos(&ld->in, i);

	return (ld->eol[p / 8] >> (p % 8)) & 1;
}

static void
ld_set_eol(struct ldisc *ld, size_t i, bool on)
{
	size_t p = ld_pos(&ld->in, i);

	if (on)
		ld->eol[p / 8] |= (uint8_t)(1u << (p % 8));
	else
		ld->eol[p / 8] &= (uint8_t)~(1u << (p % 8));
}

int
ld_init(struct ldisc *ld, struct tty *t)
{
	/* Linux's tty_std_termios, as a pty slave starts: 38400 8N1. */
	static const uint8_t cc[19] = {
		[VINTR] = 003, [VQUIT] = 034, [VERASE] = 0177, [VKILL] = 025,
		[VEOF] = 004, [VMIN] = 1, [VSTART] = 021, [VSTOP] = 023,
		[VSUSP] = 032, [VREPRINT] = 022, [VDISCARD] = 017,
		[VWERASE] = 027, [VLNEXT] = 026,
	};

	*ld = (struct ldisc){
		.tio = {
			.c_iflag = ICRNL | IXON,
			.c_oflag = OPOST | ONLCR,
			.c_cflag = B38400 | CS8 | CREAD,
			.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK |
			    ECHOCTL | ECHOKE | IEXTEN,
		},
		.tty = t,
		.in = { .size = LD_IN_SIZE },
		.out = { .size = LD_OUT_SIZE },
	};
	memcpy(ld->tio.c_cc, cc, sizeof(cc));
	ld->in.buf = kmem_alloc(LD_IN_SIZE, 0);
	ld->eol = kmem_alloc(LD_IN_SIZE / 8, KM_ZERO);
	ld->out.buf = kmem_alloc(LD_OUT_SIZE, 0);
	if (ld->in.buf == NULL || ld->eol == NULL || ld->out.buf == NULL) {
		ld_fini(ld);
		return -ENOMEM;
	}
	return 0;
}

void
ld_fini(struct ldisc *ld)
{
	if (ld->in.buf != NULL)
		kmem_free(ld->in.buf, LD_IN_SIZE, 0);
	if (ld->eol != NULL)
		kmem_free(ld->eol, LD_IN_SIZE / 8, 0);
	if (ld->out.buf != NULL)
		kmem_free(ld->out.buf, LD_OUT_SIZE, 0);
	ld->in.buf = ld->eol = ld->out.buf = NULL;
}

/* Whether c is the special character cc[i] (and that one is set). */
static bool
ld_is(const struct ldisc *ld, int i, uint8_t c)
{
	return c == ld->tio.c_cc[i] && c != _POSIX_VDISABLE;
}

/*
 * One byte through the output processing into out.  Returns false, with
 * nothing done, when what it becomes does not fit.
 */
static bool
ld_out_char(struct ldisc *ld, uint8_t c)
{
	uint32_t of = ld->tio.c_oflag;
	unsigned col = ld->column;
	uint8_t buf[8];
	size_t n = 0;

	if (!(of & OPOST)) {
		buf[n++] = c;
	} else if (c == '\n') {
		if (of & (ONLCR | ONLRET))
			col = 0;
		if (of & ONLCR)
			buf[n++] = '\r';
		buf[n++] = '\n';
	} else if (c == '\r') {
		if ((of & ONOCR) && col == 0)
			return true;
		if (of & OCRNL) {
			c = '\n';
			if (of & ONLRET)
				col = 0;
		} else {
			col = 0;
		}
		buf[n++] = c;
	} else if (c == '\t') {
		unsigned spaces = 8 - (col & 7);

		col += spaces;
		if ((of & TABDLY) == XTABS)
			while (n < spaces)
				buf[n++] = ' ';
		else
			buf[n++] = c;
	} else {
		if (c == '\b')
			col = col > 0 ? col - 1 : 0;
		else if (!iscntrl(c))
			col++;
		buf[n++] = c;
	}
	if (ld->out.size - ld->out.len < n)
		return false;
	(void)ld_ring_put(&ld->out, buf, n);
	ld->column = col;
	return true;
}

static void
ld_out_str(struct ldisc *ld, const char *s)
{
	while (*s != '\0')
		(void)ld_out_char(ld, (uint8_t)*s++);
}

size_t
ld_echo_bytes(const struct arch_termios *tio, uint8_t c, uint8_t out[2])
{
	if ((tio->c_lflag & ECHOCTL) && (c < 0x20 || c == 0x7f) &&
	    c != '\t' && c != '\n') {
		out[0] = '^';
		out[1] = c ^ 0x40;
		return 2;
	}
	out[0] = c;
	return 1;
}

/* Echo typed byte c, if ECHO says so. */
static void
ld_echo(struct ldisc *ld, uint8_t c)
{
	uint8_t e[2];
	size_t n;

	if (!(ld->tio.c_lflag & ECHO))
		return;
	n = ld_echo_bytes(&ld->tio, c, e);
	for (size_t i = 0; i < n; i++)
		(void)ld_out_char(ld, e[i]);
}

/* The last byte of the line being typed. */
static uint8_t
ld_last(const struct ldisc *ld)
{
	return ld->in.buf[ld_pos(&ld->in, ld->in.len - 1)];
}

/*
 * The last character of the line being typed goes, and its echo with
 * it: under IUTF8 a UTF-8 sequence's bytes with it, one column.
 */
static void
ld_rubout(struct ldisc *ld)
{
	uint8_t c = ld_last(ld);
	uint32_t lf = ld->tio.c_lflag;
	int w = (lf & ECHOCTL) && iscntrl(c) && c != '\t' ? 2 : 1;

	ld->in.len--;
	while ((ld->tio.c_iflag & IUTF8) && (c & 0xc0) == 0x80 &&
	    ld->in.len > ld->canon) {
		c = ld_last(ld);
		ld->in.len--;
		if ((c & 0xc0) != 0x80)
			break;
	}
	if ((lf & ECHO) && (lf & ECHOE))
		while (w-- > 0)
			ld_out_str(ld, "\b \b");
}

/* VERASE, VWERASE or VKILL (which is c) on the line being typed. */
static void
ld_erase(struct ldisc *ld, uint8_t c)
{
	uint32_t lf = ld->tio.c_lflag;
	bool word = ld_is(ld, VWERASE, c), kill = ld_is(ld, VKILL, c);

	if (ld->in.len == ld->canon)
		return;
	if (kill && (!(lf & ECHO) || !(lf & ECHOKE) || !(lf & ECHOE))) {
		/* The line goes at once; the kill key is echoed instead. */
		ld->in.len = ld->canon;
		ld_echo(ld, c);
		if ((lf & ECHO) && (lf & ECHOK))
			(void)ld_out_char(ld, '\n');
		return;
	}
	if (!kill && !word && (lf & ECHO) && !(lf & ECHOE)) {
		ld->in.len--;
		ld_echo(ld, c);
		return;
	}
	/* A word is what follows blanks: letters, digits and '_'. */
	while (word && ld->in.len > ld->canon && isspace(ld_last(ld)))
		ld_rubout(ld);
	while (ld->in.len > ld->canon) {
		uint8_t last = ld_last(ld);

		if (word && !isalnum(last) && last != '_')
			break;
		ld_rubout(ld);
		if (!word && !kill)
			break;
	}
}

/*
 * Byte c into in, echoed, eol if it ends a line.  Returns false when in
 * is full and the byte has to wait for a reader.
 */
static bool
ld_put(struct ldisc *ld, uint8_t c, bool eol, bool echo)
{
	uint32_t lf = ld->tio.c_lflag;
	bool canon = (lf & ICANON) != 0;

	if (ld->in.len == ld->in.size ||
	    (canon && !eol && ld->in.len == ld->in.size - 1)) {
		/* Whole lines to read: they go first.  Else a line overflows. */
		if (!canon || ld->canon > 0)
			return false;
		if (!eol)
			return true;
		if (ld->in.len == ld->in.size)
			ld->in.len--;
	}
	if (echo && (lf & ECHO))
		ld_echo(ld, c);
	else if (c == '\n' && (lf & ECHONL) && canon)
		(void)ld_out_char(ld, c);
	ld_set_eol(ld, ld->in.len, eol);
	(void)ld_ring_put(&ld->in, eol && ld_is(ld, VEOF, c) ? (uint8_t *)"" :
	    &c, 1);
	if (eol)
		ld->canon = ld->in.len;
	return true;
}

/* The signal key c stands for (ISIG), or 0. */
static int
ld_sig_key(const struct ldisc *ld, uint8_t c)
{
	if (!(ld->tio.c_lflag & ISIG))
		return 0;
	if (ld_is(ld, VINTR, c))
		return SIGINT;
	if (ld_is(ld, VQUIT, c))
		return SIGQUIT;
	if (ld_is(ld, VSUSP, c))
		return SIGTSTP;
	return 0;
}

/* IXON's keys: stop or start the output.  Whether c was one. */
static bool
ld_flow_key(struct ldisc *ld, uint8_t c)
{
	uint32_t inf = ld->tio.c_iflag;

	if (!(inf & IXON))
		return false;
	if (ld_is(ld, VSTOP, c)) {
		if (!ld->stopped)
			ld->ctrl = (ld->ctrl & ~TIOCPKT_START) | TIOCPKT_STOP;
		ld->stopped = true;
		return true;
	}
	if (ld_is(ld, VSTART, c) || (ld->stopped && (inf & IXANY))) {
		if (ld->stopped)
			ld->ctrl = (ld->ctrl & ~TIOCPKT_STOP) | TIOCPKT_START;
		ld->stopped = false;
		return ld_is(ld, VSTART, c);
	}
	return false;
}

/* One typed byte; false when it has to wait (a full raw input). */
static bool
ld_receive1(struct ldisc *ld, uint8_t c)
{
	uint32_t lf = ld->tio.c_lflag, inf = ld->tio.c_iflag;
	int sig;

	if (inf & ISTRIP)
		c &= 0x7f;
	if (ld->lnext) {
		ld->lnext = false;
		if ((lf & ECHO) && (lf & ECHOCTL))
			ld_out_str(ld, "\b");
		return ld_put(ld, c, false, true);
	}
	if (c == '\r') {
		if (inf & IGNCR)
			return true;
		if (inf & ICRNL)
			c = '\n';
	} else if (c == '\n' && (inf & INLCR)) {
		c = '\r';
	}
	if (ld_flow_key(ld, c))
		return true;
	if ((sig = ld_sig_key(ld, c)) != 0) {
		/*
		 * The input goes.  Linux's output flush reaches only what
		 * the master has not yet taken in, nothing here: a packet
		 * reader is told all the same.
		 */
		if (!(lf & NOFLSH)) {
			ld_flush(ld, true, false);
			ld->ctrl |= TIOCPKT_FLUSHWRITE;
		}
		ld_echo(ld, c);
		tty_signal_fg(ld->tty, sig);
		return true;
	}
	if (!(lf & ICANON))
		return ld_put(ld, c, false, true);
	if (ld_is(ld, VERASE, c) || ld_is(ld, VKILL, c) ||
	    ((lf & IEXTEN) && ld_is(ld, VWERASE, c))) {
		ld_erase(ld, c);
		return true;
	}
	if ((lf & IEXTEN) && ld_is(ld, VLNEXT, c)) {
		ld->lnext = true;
		if ((lf & ECHO) && (lf & ECHOCTL))
			ld_out_str(ld, "^");
		return true;
	}
	if (ld_is(ld, VEOF, c))
		return ld_put(ld, c, true, false);
	return ld_put(ld, c, c == '\n' || ld_is(ld, VEOL, c) ||
	    ld_is(ld, VEOL2, c), true);
}

size_t
ld_receive(struct ldisc *ld, const uint8_t *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!ld_receive1(ld, buf[i]))
			break;
	return i;
}

/* Bytes of in a read takes at most now. */
size_t
ld_nread(const struct ldisc *ld)
{
	return (ld->tio.c_lflag & ICANON) ? ld->canon : ld->in.len;
}

bool
ld_readable(const struct ldisc *ld)
{
	const uint8_t *cc = ld->tio.c_cc;

	if (ld->tio.c_lflag & ICANON)
		return ld->canon > 0;
	/* As n_tty's poll: VMIN bytes, or any with a VTIME. */
	return ld->in.len > 0 && (ld->in.len >= cc[VMIN] || cc[VTIME] > 0);
}

/* Take n bytes from in, keeping canon in step. */
static void
ld_take(struct ldisc *ld, uint8_t *buf, size_t n)
{
	(void)ld_ring_get(&ld->in, buf, n);
	ld->canon = ld->canon > n ? ld->canon - n : 0;
}

long
ld_read(struct ldisc *ld, uint8_t *buf, size_t len, bool expired)
{
	const uint8_t *cc = ld->tio.c_cc;
	size_t n = 0, want;

	if (ld->tio.c_lflag & ICANON) {
		if (ld->canon == 0)
			return -EAGAIN;
		while (n < len && ld->canon > 0) {
			bool eol = ld_eol_at(ld, 0);
			uint8_t c;

			ld_take(ld, &c, 1);
			if (eol && c == '\0')
				break;  /* VEOF: the line ends unread */
			buf[n++] = c;
			if (eol)
				break;
		}
		return (long)n;
	}
	if (ld->in.len == 0)
		return cc[VMIN] == 0 && cc[VTIME] == 0 ? 0 :
		    expired ? 0 : -EAGAIN;
	want = VK_MIN(len, (size_t)cc[VMIN]);
	if (ld->in.len < want && !expired)
		return -EAGAIN;
	n = VK_MIN(len, ld->in.len);
	ld_take(ld, buf, n);
	return (long)n;
}

long
ld_write(struct ldisc *ld, const uint8_t *buf, size_t n)
{
	size_t i;

	if (ld->stopped)
		return -EAGAIN;
	if (!(ld->tio.c_oflag & OPOST))
		i = ld_ring_put(&ld->out, buf, n);
	else
		for (i = 0; i < n && ld_out_char(ld, buf[i]); i++)
			;
	return i > 0 || n == 0 ? (long)i : -EAGAIN;
}

bool
ld_writable(const struct ldisc *ld)
{
	/* A newline may take two bytes. */
	return !ld->stopped && ld->out.size - ld->out.len >= 8;
}

/* Whether the settings let the output be stopped by ^S and ^Q. */
static bool
ld_dostop(const struct arch_termios *tio)
{
	return (tio->c_iflag & IXON) && tio->c_cc[VSTART] == 021 &&
	    tio->c_cc[VSTOP] == 023;
}

void
ld_set_termios(struct ldisc *ld, const struct arch_termios *tio)
{
	bool was_canon = (ld->tio.c_lflag & ICANON) != 0;

	if (ld_dostop(tio) != ld_dostop(&ld->tio))
		ld->ctrl = (ld->ctrl & ~(TIOCPKT_DOSTOP | TIOCPKT_NOSTOP)) |
		    (ld_dostop(tio) ? TIOCPKT_DOSTOP : TIOCPKT_NOSTOP);
	ld->tio = *tio;
	/* Raw input turning canonical is a line, as n_tty makes it. */
	if (!was_canon && (tio->c_lflag & ICANON) && ld->in.len > 0) {
		ld_set_eol(ld, ld->in.len - 1, true);
		ld->canon = ld->in.len;
	} else if (!(tio->c_lflag & ICANON)) {
		ld->canon = 0;
	}
	if (!(tio->c_iflag & IXON))
		ld->stopped = false;
}

void
ld_flush(struct ldisc *ld, bool in, bool out)
{
	if (in) {
		ld->in.len = ld->canon = 0;
		ld->lnext = false;
		ld->ctrl |= TIOCPKT_FLUSHREAD;
	}
	if (out) {
		ld->out.len = 0;
		ld->ctrl |= TIOCPKT_FLUSHWRITE;
	}
}
