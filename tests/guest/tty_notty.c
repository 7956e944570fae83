/*
 * Verifies the terminal ioctls where there is no terminal: every one fails
 * ENOTTY on a pipe, /dev/null and a regular file, with a good pointer or a
 * bad one (ENOTTY, not EFAULT), FIONREAD counts a pipe's
 * bytes, a process without a controlling terminal gets ENXIO opening
 * /dev/tty and ENOTTY from tcgetpgrp on any fd, and a terminal stop signal
 * sent to an orphaned process group is discarded.
 *
 * The console fds are checked only when they are no terminal (as under
 * "meson test"); the terminal itself is tests/integration/tty.py's.
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>

#include "guest.h"

/*
 * termios2's requests (<asm/termbits.h> clashes with <termios.h>): 'T'
 * 0x2A-0x2D on a 44-byte struct termios2.
 */
#define K_TCGETS2	_IOR('T', 0x2A, char[44])
#define K_TCSETS2	_IOW('T', 0x2B, char[44])
#define K_TCSETSW2	_IOW('T', 0x2C, char[44])
#define K_TCSETSF2	_IOW('T', 0x2D, char[44])
#ifndef TIOCCBRK
#define TIOCCBRK	0x5428
#endif

static const unsigned long reqs[] = {
	TCGETS, TCSETS, TCSETSW, TCSETSF, TCFLSH, TCXONC, TIOCOUTQ,
	TIOCGPGRP, TIOCSPGRP, TIOCGSID, TIOCSCTTY, TIOCNOTTY, TIOCGWINSZ,
	TIOCSWINSZ, TCSBRK, TCSBRKP, TIOCSBRK, TIOCCBRK, TIOCSTI, K_TCGETS2,
	K_TCSETS2, K_TCSETSW2, K_TCSETSF2,
};

/* The requests whose argument is a value, not a pointer. */
static bool
by_value(unsigned long req)
{
	return req == TCFLSH || req == TCXONC || req == TIOCSCTTY ||
	    req == TCSBRK || req == TCSBRKP || req == TIOCSBRK ||
	    req == TIOCCBRK;
}

/*
 * Every terminal request on fd fails ENOTTY, before any look at its
 * argument: a bad pointer changes nothing.
 */
static void
check_notty(int fd, const char *what)
{
	char buf[64];

	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		unsigned long arg = by_value(reqs[i]) ? 0 : (unsigned long)buf;

		/* A pgrp or a size that would be accepted, were fd a tty. */
		memset(buf, 0, sizeof(buf));
		*(int *)buf = getpgrp();
		errno = 0;
		CHECK(syscall(SYS_ioctl, fd, reqs[i], arg) == -1 &&
		    errno == ENOTTY, "ioctl(%s, %#lx) fails ENOTTY", what,
		    reqs[i]);
		/* tcdrain's TCSBRK 1 and a bad pointer: ENOTTY too. */
		arg = by_value(reqs[i]) ? 1 : 8;
		errno = 0;
		CHECK(syscall(SYS_ioctl, fd, reqs[i], arg) == -1 &&
		    errno == ENOTTY, "ioctl(%s, %#lx, %#lx) fails ENOTTY",
		    what, reqs[i], arg);
	}
	errno = 0;
	CHECK(tcdrain(fd) == -1 && errno == ENOTTY, "tcdrain(%s): ENOTTY",
	    what);
	errno = 0;
	CHECK(tcsendbreak(fd, 0) == -1 && errno == ENOTTY,
	    "tcsendbreak(%s): ENOTTY", what);
}

static void
test_files(void)
{
	int p[2], fd, n = -1;

	CHECK_OK(pipe2(p, O_CLOEXEC));
	check_notty(p[0], "pipe read end");
	check_notty(p[1], "pipe write end");
	CHECK_EQ(syscall(SYS_write, p[1], "hello", 5), 5);
	CHECK_OK(syscall(SYS_ioctl, p[0], FIONREAD, &n));
	CHECK_EQ(n, 5);
	close(p[0]);
	close(p[1]);

	CHECK((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0,
	    "open /dev/null");
	check_notty(fd, "/dev/null");
	close(fd);

	CHECK((fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) >= 0 ||
	    (fd = open("/tmp/guest-tty-notty", O_CREAT | O_RDWR | O_CLOEXEC,
	    0600)) >= 0, "a regular file in /tmp");
	check_notty(fd, "a regular file");
	close(fd);
	unlink("/tmp/guest-tty-notty");

	for (int i = 0; i <= 2; i++) {
		char termios[64];

		if (syscall(SYS_ioctl, i, TCGETS, termios) == 0) {
			guest_note("skipped: fd %d is a terminal", i);
			continue;
		}
		check_notty(i, i == 0 ? "stdin" : i == 1 ? "stdout" : "stderr");
	}
}

/*
 * In a new session: no controlling terminal, and a group nobody outside
 * it can continue, where SIGTSTP (default action) is dropped.
 */
static void
test_new_session(void)
{
	pid_t c;
	int st;

	if ((c = fork()) == 0) {
		int pg = -1;

		if (setsid() < 0)
			_exit(10);
		errno = 0;
		if (open("/dev/tty", O_RDWR) >= 0 || errno != ENXIO)
			_exit(11);
		for (int fd = 0; fd <= 2; fd++)
			if (syscall(SYS_ioctl, fd, TIOCGPGRP, &pg) == 0 ||
			    errno != ENOTTY)
				_exit(12);
		if (kill(getpid(), SIGTSTP) < 0 || kill(getpid(), SIGTTIN) < 0)
			_exit(13);
		_exit(7);
	}
	CHECK(c > 0, "fork");
	CHECK_EQ(waitpid(c, &st, WUNTRACED), c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7,
	    "new session: exit 7, not stopped nor step %d: %#x",
	    WIFEXITED(st) ? WEXITSTATUS(st) : -1, st);
	if (WIFSTOPPED(st)) {
		kill(c, SIGKILL);
		waitpid(c, &st, 0);
	}
}

int
main(void)
{
	test_files();
	test_new_session();
	return guest_done();
}
