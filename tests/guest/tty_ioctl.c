/*
 * Verifies the terminal ioctls on a real terminal (fd 0, the controlling
 * terminal, in the foreground): tcdrain and the breaks (TCSBRK, TCSBRKP,
 * TIOCSBRK, TIOCCBRK) succeed, termios2 (TCGETS2, TCSETS[WF]2) reads back
 * what was set, speeds too, an old TCSETS shows its speed in TCGETS2, bad
 * pointers give EFAULT, a background group changing the settings or
 * sending a break is stopped by SIGTTOU, and TIOCSTI pushes bytes that a
 * read, poll and FIONREAD see next, or fails EIO where Linux refuses it.
 *
 * It needs a terminal: tests/integration/tty.py runs it on a pty, inside
 * vkernel and natively.  Elsewhere it skips.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>

#include "guest.h"

/*
 * The kernel's struct termios and struct termios2 (<asm/termbits.h>, which
 * clashes with <termios.h> and which musl's compiler does not see); libc's
 * struct termios is another layout.
 */
struct ktermios {
	uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_line;
	uint8_t c_cc[19];
};
struct ktermios2 {
	uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_line;
	uint8_t c_cc[19];
	uint32_t c_ispeed, c_ospeed;
};
_Static_assert(sizeof(struct ktermios2) == 44, "struct termios2");

#define K_TCGETS2	_IOR('T', 0x2A, struct ktermios2)
#define K_TCSETS2	_IOW('T', 0x2B, struct ktermios2)
#define K_TCSETSW2	_IOW('T', 0x2C, struct ktermios2)
#define K_TCSETSF2	_IOW('T', 0x2D, struct ktermios2)
#define K_BOTHER	0010000
#define K_IBSHIFT	16
#ifndef TIOCCBRK
#define TIOCCBRK	0x5428
#endif

#define BAD	((void *)8)	/* an address no process maps */

static int
tio_get(struct ktermios2 *t)
{
	return (int)syscall(SYS_ioctl, 0, K_TCGETS2, t);
}

static int
tio_set(unsigned long req, const struct ktermios2 *t)
{
	return (int)syscall(SYS_ioctl, 0, req, t);
}

static void
test_drain(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		CHECK_OK(tcdrain(fd));
		CHECK_OK(syscall(SYS_ioctl, fd, TCSBRK, 1));
	}
	CHECK_OK(tcsendbreak(0, 0));
	CHECK_OK(syscall(SYS_ioctl, 0, TCSBRK, 0));
	CHECK_OK(syscall(SYS_ioctl, 0, TCSBRKP, 0));
	CHECK_OK(syscall(SYS_ioctl, 0, TCSBRKP, 1));
	CHECK_OK(syscall(SYS_ioctl, 0, TIOCSBRK, 0));
	CHECK_OK(syscall(SYS_ioctl, 0, TIOCCBRK, 0));
}

/* Set t with its speeds as given (BOTHER) through req; read it back. */
static void
check_speeds(unsigned long req, const struct ktermios2 *orig, unsigned ispeed,
    unsigned ospeed)
{
	struct ktermios2 t = *orig, got;

	t.c_cflag &= ~(uint32_t)(CBAUD | CIBAUD);
	t.c_cflag |= K_BOTHER | (K_BOTHER << K_IBSHIFT);
	t.c_ispeed = ispeed;
	t.c_ospeed = ospeed;
	CHECK_OK(tio_set(req, &t));
	memset(&got, 0xa5, sizeof(got));
	CHECK_OK(tio_get(&got));
	CHECK_EQ(got.c_cflag & CBAUD, K_BOTHER);
	CHECK_EQ(got.c_ispeed, ispeed);
	CHECK_EQ(got.c_ospeed, ospeed);
	CHECK_EQ(got.c_lflag, t.c_lflag);
	CHECK(memcmp(got.c_cc, t.c_cc, sizeof(t.c_cc)) == 0, "c_cc kept");
}

static void
test_termios2(void)
{
	struct ktermios2 orig, got;
	struct ktermios old;

	memset(&orig, 0, sizeof(orig));
	if (!CHECK_OK(tio_get(&orig)))
		return;
	CHECK_OK(syscall(SYS_ioctl, 0, TCGETS, &old));
	CHECK(old.c_iflag == orig.c_iflag && old.c_oflag == orig.c_oflag &&
	    old.c_cflag == orig.c_cflag && old.c_lflag == orig.c_lflag &&
	    memcmp(old.c_cc, orig.c_cc, sizeof(old.c_cc)) == 0,
	    "TCGETS and TCGETS2 agree");

	check_speeds(K_TCSETS2, &orig, 12345, 23456);
	check_speeds(K_TCSETSW2, &orig, 4321, 4321);
	check_speeds(K_TCSETSF2, &orig, 57600, 1200);

	/* An old-style speed: termios2 reads it as a number. */
	old.c_cflag = (old.c_cflag & ~(uint32_t)(CBAUD | CIBAUD)) | B9600;
	CHECK_OK(syscall(SYS_ioctl, 0, TCSETS, &old));
	CHECK_OK(tio_get(&got));
	CHECK_EQ(got.c_cflag & CBAUD, B9600);
	CHECK_EQ(got.c_ospeed, 9600);
	CHECK_EQ(got.c_ispeed, 9600);

	CHECK_ERR(syscall(SYS_ioctl, 0, K_TCGETS2, BAD), EFAULT);
	CHECK_ERR(syscall(SYS_ioctl, 0, K_TCSETS2, BAD), EFAULT);
	CHECK_ERR(syscall(SYS_ioctl, 0, K_TCSETSW2, BAD), EFAULT);
	CHECK_ERR(syscall(SYS_ioctl, 0, K_TCSETSF2, BAD), EFAULT);
	CHECK_ERR(syscall(SYS_ioctl, 0, TCGETS, BAD), EFAULT);

	CHECK_OK(tio_set(K_TCSETS2, &orig));
	CHECK_OK(tio_get(&got));
	CHECK(memcmp(&got, &orig, sizeof(got)) == 0, "settings restored");
}

/*
 * In a background group of the session: reading the settings is free,
 * changing them or sending a break stops the group with SIGTTOU, and goes
 * through when SIGTTOU is ignored.
 */
static void
test_background(void)
{
	static const unsigned long reqs[] = {
		K_TCSETS2, K_TCSETSW2, K_TCSETSF2, TCSBRK, TCSBRKP, TIOCSBRK,
		TIOCCBRK,
	};
	struct ktermios2 t;
	pid_t c;
	int st;

	CHECK_OK(tio_get(&t));
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		unsigned long arg = reqs[i] == TCSBRK ? 1 :
		    reqs[i] == TCSBRKP || reqs[i] == TIOCSBRK ||
		    reqs[i] == TIOCCBRK ? 0 : (unsigned long)&t;

		if ((c = fork()) == 0) {
			struct ktermios2 u;

			if (setpgid(0, 0) < 0 || tio_get(&u) < 0)
				_exit(10);
			if (syscall(SYS_ioctl, 0, reqs[i], arg) < 0)
				_exit(11);
			_exit(12);	/* not stopped */
		}
		CHECK(c > 0, "fork");
		CHECK_EQ(waitpid(c, &st, WUNTRACED), c);
		CHECK(WIFSTOPPED(st) && WSTOPSIG(st) == SIGTTOU,
		    "ioctl %#lx from the background: stopped by SIGTTOU, "
		    "status %#x", reqs[i], st);
		kill(c, SIGKILL);
		waitpid(c, &st, 0);
	}

	if ((c = fork()) == 0) {
		signal(SIGTTOU, SIG_IGN);
		if (setpgid(0, 0) < 0 || tio_set(K_TCSETS2, &t) < 0 ||
		    syscall(SYS_ioctl, 0, TCSBRK, 1) < 0)
			_exit(10);
		_exit(0);
	}
	CHECK(c > 0, "fork");
	CHECK_EQ(waitpid(c, &st, WUNTRACED), c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "background with SIGTTOU ignored: status %#x", st);
}

/* dev.tty.legacy_tiocsti; a kernel without it (before 6.2) allows all. */
static bool
legacy_tiocsti(void)
{
	char c = '1';
	int fd = open("/proc/sys/dev/tty/legacy_tiocsti", O_RDONLY);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '?';
		close(fd);
	}
	return c == '1';
}

static void
sti(const char *s)
{
	for (; *s != '\0'; s++)
		CHECK_OK(syscall(SYS_ioctl, 0, TIOCSTI, s));
}

static void
set_lflag(const struct ktermios2 *orig, tcflag_t on, tcflag_t off)
{
	struct ktermios2 t = *orig;

	t.c_lflag = (t.c_lflag | on) & ~off;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	CHECK_OK(tio_set(K_TCSETS2, &t));
}

/* A child waits in poll and read; the byte pushed later wakes it. */
static void
check_sti_wakes(void)
{
	pid_t c;
	int st;

	if ((c = fork()) == 0) {
		struct pollfd p = { .fd = 0, .events = POLLIN };
		char b = 0;

		alarm(10);
		if (poll(&p, 1, -1) != 1 || p.revents != POLLIN)
			_exit(10);
		if (read(0, &b, 1) != 1 || b != 'q')
			_exit(11);
		/* The second byte wakes a read that waits. */
		if (read(0, &b, 1) != 1 || b != 'r')
			_exit(12);
		_exit(0);
	}
	CHECK(c > 0, "fork");
	usleep(300 * 1000);
	sti("q");
	usleep(300 * 1000);
	sti("r");
	CHECK_EQ(waitpid(c, &st, 0), c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "a pushed byte wakes poll and read: status %#x", st);
}

static void
test_sti(void)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	struct ktermios2 orig;
	char buf[32];
	int n = -1;

	if (geteuid() != 0 && !legacy_tiocsti()) {
		/* Linux 6.2+: without CAP_SYS_ADMIN, EIO before all else. */
		CHECK_ERR(syscall(SYS_ioctl, 0, TIOCSTI, "x"), EIO);
		CHECK_ERR(syscall(SYS_ioctl, 0, TIOCSTI, BAD), EIO);
		guest_note("TIOCSTI is refused here (not root, "
		    "legacy_tiocsti 0)");
		return;
	}
	CHECK_ERR(syscall(SYS_ioctl, 0, TIOCSTI, BAD), EFAULT);
	CHECK_OK(tio_get(&orig));

	/* Raw: each byte is there to read at once. */
	set_lflag(&orig, 0, ICANON | ECHO);
	sti("ab");
	CHECK_OK(syscall(SYS_ioctl, 0, FIONREAD, &n));
	CHECK_EQ(n, 2);
	CHECK_EQ(poll(&p, 1, 0), 1);
	CHECK_EQ(p.revents, POLLIN);
	CHECK_EQ(read(0, buf, sizeof(buf)), 2);
	CHECK(memcmp(buf, "ab", 2) == 0, "read the pushed \"ab\"");

	/* A flush of the input drops what was pushed. */
	sti("z");
	CHECK_OK(syscall(SYS_ioctl, 0, TCFLSH, TCIFLUSH));
	CHECK_EQ(poll(&p, 1, 0), 0);
	check_sti_wakes();

	/* Canonical: a line; echoed when ECHO is on. */
	set_lflag(&orig, ICANON, ECHO);
	sti("hi\n");
	CHECK_EQ(read(0, buf, sizeof(buf)), 3);
	CHECK(memcmp(buf, "hi\n", 3) == 0, "read the pushed line");
	set_lflag(&orig, ICANON | ECHO, 0);
	sti("sti-echo\n");
	CHECK_EQ(read(0, buf, sizeof(buf)), 9);
	CHECK(memcmp(buf, "sti-echo\n", 9) == 0, "read the echoed line");

	CHECK_OK(tio_set(K_TCSETS2, &orig));
}

int
main(void)
{
	struct ktermios t;

	if (syscall(SYS_ioctl, 0, TCGETS, &t) < 0)
		return guest_skip("tty_ioctl: fd 0 is no terminal");
	test_drain();
	test_termios2();
	test_background();
	test_sti();
	return guest_done();
}
