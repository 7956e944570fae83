/*
 * kill's targets: one process, the caller's group, another group, and -1,
 * which reaches every process but init and the caller; bad signals and
 * pids give Linux's errors; SIGCONT goes to anyone in the session.  The
 * -1 case runs only as pid 1 or as the command under vkernel's init
 * (inside the vkernel, or a pid namespace), since natively it would
 * signal the host.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sig_common.h"

/* A child that reports on fd w each SIGUSR1 it takes, until SIGTERM. */
static pid_t
listener(int w, pid_t pgid)
{
	sigset_t set, old;
	pid_t pid;
	int sig;

	/* Blocked from birth, so that none is taken by the handler. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	CHECK_OK(sigprocmask(SIG_BLOCK, &set, &old));
	if ((pid = fork()) != 0) {
		CHECK_OK(sigprocmask(SIG_SETMASK, &old, NULL));
		return pid;
	}
	if (pgid >= 0)
		setpgid(0, pgid);
	for (;;) {
		if (sigwait(&set, &sig) != 0 || sig == SIGTERM)
			_exit(0);
		if (write(w, "u", 1) != 1)
			_exit(1);
	}
}

/* How many reports wait on fd r after a moment. */
static int
reports(int r)
{
	char buf[16];
	ssize_t n;

	usleep(100000);
	n = read(r, buf, sizeof(buf));
	return n < 0 ? 0 : (int)n;
}

static void
reap(pid_t pid)
{
	int st;

	CHECK_OK(kill(pid, SIGTERM));
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}

static void
check_errors(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_ERR(kill(pid, 0), ESRCH);
	CHECK_ERR(kill(getpid(), 65), EINVAL);
	CHECK_ERR(kill(getpid(), -1), EINVAL);
	CHECK_ERR(kill(INT32_MIN, 0), ESRCH);
	CHECK_OK(kill(getpid(), 0));
	CHECK_ERR(kill(-pid, 0), ESRCH);
}

/*
 * A child that exited but is not yet waited for is still there to be
 * signalled, alone and as its group, until it is reaped: a parent that
 * asks kill(pid, 0) whether its child is gone must not hear ESRCH
 * before waitpid() can return it.
 */
static void
check_zombie(const void *unused)
{
	siginfo_t si;
	pid_t pid;
	int st;

	(void)unused;
	if ((pid = fork()) == 0) {
		setpgid(0, 0);
		_exit(7);
	}
	CHECK_OK(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT));
	CHECK_OK(kill(pid, 0));
	CHECK_OK(kill(pid, SIGKILL));
	CHECK_OK(kill(-pid, SIGTERM));
	CHECK_ERR(kill(pid, 65), EINVAL);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %#x", st);
	CHECK_ERR(kill(pid, 0), ESRCH);
	CHECK_ERR(kill(-pid, 0), ESRCH);
}

/*
 * kill(2): an unprivileged process may send SIGCONT to any process of its
 * session, another user's too, but nothing else, and not from a session
 * of its own.
 */
static void
check_cont(const void *arg)
{
	pid_t root = *(const pid_t *)arg, pid;
	int st;

	CHECK_OK(kill(root, SIGCONT));
	CHECK_ERR(kill(root, SIGWINCH), EPERM);
	if ((pid = fork()) == 0)
		_exit(setsid() < 0 ? 2 : kill(root, SIGCONT) == 0 ? 1 :
		    errno == EPERM ? 0 : 3);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "SIGCONT from another session: status %#x", st);
}

/* kill(0) reaches the caller's group, kill(-pgid) another group. */
static void
check_groups(int p[2])
{
	pid_t same, other;

	same = listener(p[1], -1);
	other = listener(p[1], 0);
	CHECK_OK(setpgid(other, other));
	usleep(50000);
	CHECK_OK(kill(-other, SIGUSR1));
	CHECK_EQ(reports(p[0]), 1);
	CHECK_OK(kill(0, SIGUSR1));
	CHECK_EQ(reports(p[0]), 1);
	CHECK_EQ(hits[SIGUSR1], 1);
	reap(same);
	reap(other);
}

/*
 * kill(-1) from a child: the other child gets it, init and the caller do
 * not; this process does unless it is init.
 */
static void
check_all(int p[2])
{
	pid_t other = listener(p[1], -1), sender;
	int st;

	usleep(50000);
	sender = fork();
	if (sender == 0) {
		signal(SIGUSR1, SIG_DFL);
		_exit(kill(-1, SIGUSR1) == 0 ? 0 : 2);
	}
	CHECK_EQ(waitpid(sender, &st, 0), sender);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "sender status %#x", st);
	CHECK_EQ(reports(p[0]), 1);
	CHECK_EQ(hits[SIGUSR1], getpid() == 1 ? 0 : 1);
	reap(other);
}

int
main(void)
{
	pid_t me;
	int p[2];

	/* kill(0) must reach no one outside the test. */
	if (getpgrp() != getpid())
		CHECK_OK(setpgid(0, 0));
	CHECK_OK(pipe(p));
	CHECK_OK(fcntl(p[0], F_SETFL, O_NONBLOCK));
	check_errors();
	check_zombie(NULL);
	guest_as_nobody(check_zombie, NULL);
	me = getpid();
	guest_as_nobody(check_cont, &me);
	CHECK(signal(SIGUSR1, on_plain) != SIG_ERR, "signal");
	check_groups(p);
	/* pid 1, or the command under vkernel's init: the sandbox is ours. */
	if (getpid() == 1 || (getpid() == 2 && getppid() == 1)) {
		hits[SIGUSR1] = 0;
		check_all(p);
	}
	return guest_done();
}
