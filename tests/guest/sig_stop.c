/* SIGSTOP stops a child and SIGCONT continues it; wait4 reports both. */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

static volatile int chld;

static void
on_chld(int sig)
{
	(void)sig;
	chld++;
}

int
main(void)
{
	/*
	 * SA_RESTART: the stop and its SIGCHLD may come between waitpid's
	 * look at the children and its check for signals; Linux then gives
	 * EINTR, not the stop.
	 */
	struct sigaction sa = { .sa_handler = on_chld, .sa_flags = SA_RESTART };
	pid_t c;
	int st;

	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(SIGCHLD, &sa, NULL));
	if ((c = fork()) == 0) {
		for (;;)
			pause();
	}
	CHECK_OK(kill(c, SIGSTOP));
	CHECK_EQ(waitpid(c, &st, WUNTRACED), c);
	CHECK(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP, "stopped: %#x", st);
	/* Reported once: now nothing more to report. */
	CHECK_EQ(waitpid(c, &st, WUNTRACED | WNOHANG), 0);
	CHECK_OK(kill(c, SIGCONT));
	CHECK_EQ(waitpid(c, &st, WCONTINUED), c);
	CHECK(WIFCONTINUED(st), "continued: %#x", st);
	CHECK(chld >= 1, "SIGCHLD for the stop: %d", chld);
	/* A stopped child still dies of SIGKILL. */
	CHECK_OK(kill(c, SIGSTOP));
	CHECK_EQ(waitpid(c, &st, WUNTRACED), c);
	CHECK_OK(kill(c, SIGKILL));
	CHECK_EQ(waitpid(c, &st, 0), c);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "killed: %#x", st);
	CHECK_ERR(waitpid(-1, &st, WNOHANG), ECHILD);
	return guest_done();
}
