/*
 * Pseudo-terminals: /dev/ptmx and /dev/pts as glibc's and musl's openpty,
 * grantpt, unlockpt and ptsname use them; the line discipline between
 * master and slave (canonical editing, raw mode with VMIN and VTIME, echo,
 * ICRNL and ONLCR); signals from the keys and SIGWINCH; the hang-up when
 * the master closes; packet mode; FIONREAD and TIOCOUTQ; poll and epoll
 * on both sides; and requests with bad arguments failing as on Linux.
 */
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>

#include "guest.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

static long long
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* Read what is there within 2 s (the master's bytes come at once). */
static ssize_t
read_some(int fd, char *buf, size_t len)
{
	struct pollfd p = { fd, POLLIN, 0 };

	if (poll(&p, 1, 2000) != 1)
		return -1;
	return read(fd, buf, len);
}

/*
 * Read until want bytes came or fd stays quiet for 2 s: Linux delivers a
 * pty's echo from a work queue, so it may come in pieces.
 */
static ssize_t
read_want(int fd, char *buf, size_t len, size_t want)
{
	size_t got = 0;
	ssize_t n;

	while (got < want && (n = read_some(fd, buf + got, len - got)) > 0)
		got += (size_t)n;
	return got > 0 ? (ssize_t)got : -1;
}

/* Read what fd has until it stays quiet for 200 ms. */
static void
drain(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	char b[256];

	while (poll(&p, 1, 200) == 1 && read(fd, b, sizeof(b)) > 0)
		;
}

/* Expect exactly want from fd. */
#define EXPECT_READ(fd, want)						\
	do {								\
		char b_[256];						\
		ssize_t n_ = read_want((fd), b_, sizeof(b_),		\
		    sizeof(want) - 1);					\
		CHECK(n_ == (ssize_t)(sizeof(want) - 1) &&		\
		    memcmp(b_, (want), sizeof(want) - 1) == 0,		\
		    "read %s: got %zd bytes \"%.*s\"", #want, n_,	\
		    n_ > 0 ? (int)n_ : 0, b_);				\
	} while (0)

static void
put(int fd, const char *s)
{
	CHECK_EQ(write(fd, s, strlen(s)), (long)strlen(s));
}

static void
check_open(void)
{
	struct stat st, st2;
	char name[64], *tn;
	int m, s, n = -1, lk = -1;

	m = CHECK_OK(posix_openpt(O_RDWR | O_NOCTTY));
	CHECK_OK(grantpt(m));
	CHECK_OK(ioctl(m, TIOCGPTN, &n));
	CHECK(n >= 0, "TIOCGPTN %d", n);
	CHECK_OK(ioctl(m, TIOCGPTLCK, &lk));
	CHECK_EQ(lk, 1);
	CHECK_EQ(ptsname_r(m, name, sizeof(name)), 0);
	/* Locked: the slave does not open yet. */
	CHECK_ERR(open(name, O_RDWR | O_NOCTTY), EIO);
	CHECK_OK(unlockpt(m));
	s = CHECK_OK(open(name, O_RDWR | O_NOCTTY));
	CHECK(isatty(m) && isatty(s), "isatty");
	CHECK_OK(fstat(s, &st));
	CHECK_OK(stat(name, &st2));
	CHECK(S_ISCHR(st.st_mode) && major(st.st_rdev) == 136 &&
	    (int)minor(st.st_rdev) == n, "slave rdev %#lx",
	    (unsigned long)st.st_rdev);
	CHECK(st.st_ino == st2.st_ino && st.st_dev == st2.st_dev,
	    "fstat and stat of %s", name);
	CHECK_EQ(st.st_uid, geteuid());
	tn = ttyname(s);
	CHECK(tn != NULL && strcmp(tn, name) == 0, "ttyname %s", tn);
	CHECK_OK(fstat(m, &st));
	CHECK(S_ISCHR(st.st_mode) && st.st_rdev == makedev(5, 2),
	    "master rdev %#lx", (unsigned long)st.st_rdev);
	/* TIOCGPTPEER opens the same slave. */
	int p = CHECK_OK(ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY |
	    O_CLOEXEC));
	CHECK_OK(fstat(p, &st2));
	CHECK(st2.st_rdev == makedev(136, n), "peer rdev");
	CHECK_EQ(fcntl(p, F_GETFD), FD_CLOEXEC);
	/* A slave request of the master's: ENOTTY. */
	CHECK_ERR(ioctl(s, TIOCGPTN, &n), ENOTTY);
	close(p);
	close(s);
	close(m);
	/* The master gone, so is its name. */
	CHECK_ERR(stat(name, &st), ENOENT);
}

static void
check_canonical(void)
{
	int m, s, v = -1;

	CHECK_OK(openpty(&m, &s, NULL, NULL, NULL));
	put(m, "ab\177c\n");
	EXPECT_READ(s, "ac\n");
	EXPECT_READ(m, "ab\b \bc\r\n");
	put(m, "junk\025foo bar\027baz\n");
	EXPECT_READ(s, "foo baz\n");
	/* IUTF8: one erase takes a whole character. */
	struct termios t;
	CHECK_OK(tcgetattr(s, &t));
	t.c_iflag |= IUTF8;
	CHECK_OK(tcsetattr(s, TCSANOW, &t));
	put(m, "a\xc3\xa9\177b\n");
	EXPECT_READ(s, "ab\n");
	drain(m);
	/* ECHONL without ECHO: the newline alone is echoed. */
	t.c_lflag = (t.c_lflag & ~(tcflag_t)ECHO) | ECHONL;
	CHECK_OK(tcsetattr(s, TCSANOW, &t));
	put(m, "pw\n");
	EXPECT_READ(s, "pw\n");
	EXPECT_READ(m, "\r\n");
	t.c_lflag = (t.c_lflag | ECHO) & ~(tcflag_t)ECHONL;
	CHECK_OK(tcsetattr(s, TCSANOW, &t));
	put(m, "x\004");
	EXPECT_READ(s, "x");
	put(m, "\004");
	CHECK_EQ(read(s, &v, 1), 0);
	/* A line waits for its end; FIONREAD counts what is there to read. */
	put(m, "one\ntwo");
	(void)poll(&(struct pollfd){ s, POLLIN, 0 }, 1, 2000);
	CHECK_OK(ioctl(s, FIONREAD, &v));
	CHECK_EQ(v, 4);
	EXPECT_READ(s, "one\n");
	put(m, "\n");
	EXPECT_READ(s, "two\n");
	/* Output: ONLCR, and what the master has to read. */
	drain(m);
	put(s, "hi\n");
	(void)poll(&(struct pollfd){ m, POLLIN, 0 }, 1, 2000);
	CHECK_OK(ioctl(m, FIONREAD, &v));
	CHECK_EQ(v, 4);
	CHECK_OK(ioctl(s, TIOCOUTQ, &v));
	CHECK_EQ(v, 0);
	EXPECT_READ(m, "hi\r\n");
	close(s);
	close(m);
}

static void
check_raw(void)
{
	struct termios t;
	int m, s;
	char c;
	long long t0;

	CHECK_OK(openpty(&m, &s, NULL, NULL, NULL));
	CHECK_OK(tcgetattr(s, &t));
	cfmakeraw(&t);
	CHECK_OK(tcsetattr(s, TCSANOW, &t));
	put(m, "a\r\003");
	EXPECT_READ(s, "a\r\003");
	put(s, "x\n");
	EXPECT_READ(m, "x\n");
	/* VMIN 0, VTIME 2: nothing comes in 0.2 s, and read returns 0. */
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 2;
	CHECK_OK(tcsetattr(s, TCSANOW, &t));
	/* Each read waits its own time. */
	for (int i = 0; i < 2; i++) {
		t0 = now_ms();
		CHECK_EQ(read(s, &c, 1), 0);
		CHECK(now_ms() - t0 >= 150, "VTIME waited %lld ms",
		    now_ms() - t0);
	}
	/* VMIN 0, VTIME 0: a poll of the input. */
	t.c_cc[VTIME] = 0;
	CHECK_OK(tcsetattr(s, TCSANOW, &t));
	CHECK_EQ(read(s, &c, 1), 0);
	/* VMIN 2, VTIME 1: one byte, then the timer gives it alone. */
	t.c_cc[VMIN] = 2;
	t.c_cc[VTIME] = 1;
	CHECK_OK(tcsetattr(s, TCSANOW, &t));
	put(m, "q");
	CHECK_EQ(read(s, &c, 1), 1);
	CHECK_EQ(c, 'q');
	close(s);
	close(m);
}

static int sigpipe_w = -1;

static void
on_sig(int sig)
{
	char c = (char)sig;

	(void)write(sigpipe_w, &c, 1);
}

/*
 * A child in its own session with the slave as its terminal: its
 * signals are reported down a pipe.  Returns its pid.
 */
static pid_t
session_child(int m, const char *name, int pfd[2], int ready[2])
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	close(m);
	close(pfd[0]);
	close(ready[0]);
	sigpipe_w = pfd[1];
	struct sigaction sa = { .sa_handler = on_sig };
	int sigs[] = { SIGINT, SIGQUIT, SIGTSTP, SIGWINCH, SIGHUP, SIGCONT };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	if (setsid() < 0)
		_exit(2);
	/* A session leader's first terminal becomes its own. */
	int s = open(name, O_RDWR);
	if (s < 0 || tcgetpgrp(s) != getpid())
		_exit(3);
	(void)write(ready[1], "r", 1);
	for (;;) {
		char c;
		ssize_t n = read(s, &c, 1);

		if (n == 0) {
			/* Hung up: read 0, write EIO. */
			_exit(write(s, "x", 1) < 0 && errno == EIO ? 0 : 4);
		}
	}
}

static int
next_sig(int fd)
{
	char c = 0;

	return read_some(fd, &c, 1) == 1 ? c : -1;
}

static void
check_signals(void)
{
	struct winsize ws = { 30, 100, 0, 0 }, ws2;
	int m, s, pfd[2], ready[2], st;
	char name[64], c;
	pid_t pid;

	CHECK_OK(openpty(&m, &s, name, NULL, NULL));
	close(s);
	CHECK_OK(pipe(pfd));
	CHECK_OK(pipe(ready));
	pid = session_child(m, name, pfd, ready);
	close(pfd[1]);
	close(ready[1]);
	CHECK_EQ(read_some(ready[0], &c, 1), 1);
	CHECK_OK(ioctl(m, TIOCGPGRP, &st));
	CHECK_EQ(st, pid);
	put(m, "\003");
	CHECK_EQ(next_sig(pfd[0]), SIGINT);
	put(m, "\034");
	CHECK_EQ(next_sig(pfd[0]), SIGQUIT);
	put(m, "\032");
	CHECK_EQ(next_sig(pfd[0]), SIGTSTP);
	EXPECT_READ(m, "^C^\\^Z");
	CHECK_OK(ioctl(m, TIOCSWINSZ, &ws));
	CHECK_EQ(next_sig(pfd[0]), SIGWINCH);
	CHECK_OK(ioctl(m, TIOCGWINSZ, &ws2));
	CHECK(ws2.ws_row == 30 && ws2.ws_col == 100, "winsize");
	/* The same size again is no change: no signal. */
	CHECK_OK(ioctl(m, TIOCSWINSZ, &ws));
	CHECK_OK(ioctl(m, TIOCSIG, SIGINT));
	CHECK_EQ(next_sig(pfd[0]), SIGINT);
	/* The master closes: the leader gets SIGHUP and SIGCONT. */
	close(m);
	int s1 = next_sig(pfd[0]), s2 = next_sig(pfd[0]);
	CHECK(s1 + s2 == SIGHUP + SIGCONT && (s1 == SIGHUP || s2 == SIGHUP),
	    "hang-up signals %d %d", s1, s2);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	close(pfd[0]);
	close(ready[0]);
}

/*
 * Job control on a pty: a background group's read gets SIGTTIN (EIO when
 * it ignores it), its write with TOSTOP SIGTTOU; tcsetpgrp brings it to
 * the foreground, where both go.
 */
static void
check_jobs(void)
{
	int m, s, st;
	char name[64];
	pid_t pid;

	CHECK_OK(openpty(&m, &s, name, NULL, NULL));
	close(s);
	pid = fork();
	if (pid == 0) {
		struct termios t;
		pid_t bg;
		char c;

		close(m);
		/* O_NOCTTY: no terminal until TIOCSCTTY takes it. */
		if (setsid() < 0 || (s = open(name, O_RDWR | O_NOCTTY)) < 0 ||
		    tcgetpgrp(s) >= 0 || errno != ENOTTY ||
		    ioctl(s, TIOCSCTTY, 0) < 0 || tcgetpgrp(s) != getpid())
			_exit(2);
		bg = fork();
		if (bg == 0) {
			setpgid(0, 0);
			signal(SIGTTIN, SIG_IGN);
			/* Ignored, SIGTTIN leaves the read failing EIO. */
			_exit(read(s, &c, 1) < 0 && errno == EIO ? 0 : 3);
		}
		setpgid(bg, bg);
		if (waitpid(bg, &st, 0) != bg || st != 0)
			_exit(4);
		bg = fork();
		if (bg == 0) {
			setpgid(0, 0);
			(void)read(s, &c, 1);
			_exit(5);
		}
		setpgid(bg, bg);
		if (waitpid(bg, &st, WUNTRACED) != bg || !WIFSTOPPED(st) ||
		    WSTOPSIG(st) != SIGTTIN)
			_exit(6);
		kill(bg, SIGKILL);
		waitpid(bg, &st, 0);
		tcgetattr(s, &t);
		t.c_lflag |= TOSTOP;
		tcsetattr(s, TCSANOW, &t);
		bg = fork();
		if (bg == 0) {
			setpgid(0, 0);
			(void)write(s, "x", 1);
			_exit(7);
		}
		setpgid(bg, bg);
		if (waitpid(bg, &st, WUNTRACED) != bg || !WIFSTOPPED(st) ||
		    WSTOPSIG(st) != SIGTTOU)
			_exit(8);
		/* In the foreground, it writes. */
		signal(SIGTTOU, SIG_IGN);
		if (tcsetpgrp(s, bg) < 0)
			_exit(9);
		kill(bg, SIGCONT);
		if (waitpid(bg, &st, 0) != bg || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 7)
			_exit(10);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "jobs status %#x", st);
	close(m);
}

/*
 * The queues are bounded: a raw slave nobody reads takes some input and
 * then the master's writes wait (EAGAIN without blocking); the same for
 * the slave's output nobody reads.
 */
static void
check_full(void)
{
	static char buf[1 << 20];
	struct termios t;
	int m, s;
	ssize_t n;

	CHECK_OK(openpty(&m, &s, NULL, NULL, NULL));
	CHECK_OK(tcgetattr(s, &t));
	cfmakeraw(&t);
	CHECK_OK(tcsetattr(s, TCSANOW, &t));
	CHECK_OK(fcntl(m, F_SETFL, O_NONBLOCK));
	CHECK_OK(fcntl(s, F_SETFL, O_NONBLOCK));
	memset(buf, 'a', sizeof(buf));
	n = write(m, buf, sizeof(buf));
	CHECK(n > 0 && n < (ssize_t)sizeof(buf), "master write %zd", n);
	for (int i = 0; i < 100 && n >= 0; i++)
		n = write(m, buf, sizeof(buf));
	CHECK(n < 0 && errno == EAGAIN, "master write when full %zd", n);
	n = write(s, buf, sizeof(buf));
	CHECK(n > 0 && n < (ssize_t)sizeof(buf), "slave write %zd", n);
	for (int i = 0; i < 100 && n >= 0; i++)
		n = write(s, buf, sizeof(buf));
	CHECK(n < 0 && errno == EAGAIN, "slave write when full %zd", n);
	/* The reader takes some: the writer goes on. */
	CHECK(read(s, buf, 4096) > 0, "slave read");
	CHECK(read(m, buf, 4096) > 0, "master read");
	close(s);
	close(m);
}

static void
check_packet(void)
{
	int m, s, on = 1, v = -1;
	char b[16];

	CHECK_OK(openpty(&m, &s, NULL, NULL, NULL));
	CHECK_OK(ioctl(m, TIOCPKT, &on));
	CHECK_OK(ioctl(m, TIOCGPKT, &v));
	CHECK_EQ(v, 1);
	put(s, "hi");
	CHECK_EQ(read_some(m, b, sizeof(b)), 3);
	CHECK(b[0] == TIOCPKT_DATA && memcmp(b + 1, "hi", 2) == 0, "data");
	CHECK_OK(tcflush(s, TCIFLUSH));
	CHECK_EQ(read_some(m, b, sizeof(b)), 1);
	CHECK_EQ(b[0], TIOCPKT_FLUSHREAD);
	/* ^S and ^Q typed stop and start the output. */
	put(m, "\023");
	CHECK_EQ(read_some(m, b, sizeof(b)), 1);
	CHECK_EQ(b[0], TIOCPKT_STOP);
	put(m, "\021");
	CHECK_EQ(read_some(m, b, sizeof(b)), 1);
	CHECK_EQ(b[0], TIOCPKT_START);
	close(s);
	close(m);
}

static void
check_poll(void)
{
	struct epoll_event ev = { .events = EPOLLIN }, out[2];
	int m, s, ep;
	char b[16];

	CHECK_OK(openpty(&m, &s, NULL, NULL, NULL));
	struct pollfd p[2] = { { m, POLLIN | POLLOUT, 0 },
	    { s, POLLIN | POLLOUT, 0 } };
	CHECK_EQ(poll(p, 2, 0), 2);
	CHECK_EQ(p[0].revents, POLLOUT);
	CHECK_EQ(p[1].revents, POLLOUT);
	ep = CHECK_OK(epoll_create1(0));
	ev.data.fd = m;
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, m, &ev));
	ev.data.fd = s;
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev));
	CHECK_EQ(epoll_wait(ep, out, 2, 0), 0);
	put(m, "x");
	/* A canonical line is not there until it ends; the echo is. */
	CHECK_EQ(epoll_wait(ep, out, 2, 1000), 1);
	CHECK_EQ(out[0].data.fd, m);
	(void)read_some(m, b, sizeof(b));
	put(m, "\n");
	/*
	 * The slave's line comes ready; Linux may make the echo ready on
	 * the master before or after it, so wait (level-triggered) until
	 * the slave shows up among the ready ones.
	 */
	{
		int n = 0, tries = 0;
		bool slave = false;

		while (!slave && tries++ < 100) {
			n = epoll_wait(ep, out, 2, 20);
			for (int i = 0; i < n; i++)
				slave |= out[i].data.fd == s;
			if (!slave && n > 0)
				usleep(10000);
		}
		CHECK(n >= 1 && slave, "epoll: %d ready, slave %d", n, slave);
	}
	CHECK_EQ(poll(p, 2, 0), 2);
	CHECK_EQ(p[1].revents, POLLIN | POLLOUT);
	(void)read_some(s, b, sizeof(b));
	(void)read_some(m, b, sizeof(b));
	/* The slave closed: the master sees a hang-up, and reads fail EIO. */
	close(s);
	CHECK_EQ(poll(p, 1, 0), 1);
	CHECK_EQ(p[0].revents, POLLOUT | POLLHUP);
	CHECK_ERR(read(m, b, sizeof(b)), EIO);
	close(ep);
	close(m);
}

/* Requests with bad arguments fail as Linux's do; nothing crashes. */
static void
check_hostile(void)
{
	int m, s;

	CHECK_OK(openpty(&m, &s, NULL, NULL, NULL));
	CHECK_ERR(ioctl(m, TIOCGPTN, (void *)8), EFAULT);
	CHECK_ERR(ioctl(s, TCGETS, NULL), EFAULT);
	CHECK_ERR(ioctl(s, TCSETS, (void *)-4096L), EFAULT);
	CHECK_ERR(ioctl(m, TIOCSWINSZ, (void *)1), EFAULT);
	CHECK_ERR(ioctl(m, TIOCSPTLCK, NULL), EFAULT);
	CHECK_ERR(ioctl(m, TIOCPKT, NULL), EFAULT);
	CHECK_ERR(ioctl(s, TCFLSH, 7), EINVAL);
	CHECK_ERR(ioctl(m, TIOCSIG, 0), EINVAL);
	CHECK_ERR(ioctl(m, TIOCSIG, 65), EINVAL);
	CHECK_ERR(ioctl(s, 0x54ff, 0), ENOTTY);
	CHECK_ERR(ioctl(s, TIOCMGET, &(int){ 0 }), ENOTTY);
	/* Another user's slave. */
	close(s);
	close(m);
}

static void
tests(void)
{
	check_open();
	check_canonical();
	check_raw();
	check_signals();
	check_jobs();
	check_full();
	check_packet();
	check_poll();
	check_hostile();
}

int
main(void)
{
	return guest_main_twice(tests);
}
