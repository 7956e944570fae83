/*
 * Signal-driven I/O obeys kill(2)'s permission, as Linux's sigio_perm():
 * a process of uid 65534 that makes root's process the owner of an
 * O_ASYNC pipe (F_SETOWN, F_SETOWN_EX, a process group), with F_SETSIG
 * SIGKILL, then writes to it, signals nobody; root's process lives, and
 * with F_SETSIG SIGUSR1 and a handler gets nothing.  The same, set by
 * root, reaches it.  Needs root (natively too); skips without.
 */
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/wait.h>

#include "guest.h"

static volatile sig_atomic_t got;

static void
on_usr1(int sig)
{
	got = sig;
}

/* Make who the owner of an O_ASYNC pipe with signal sig, then write. */
static int
arm_and_write(int how, pid_t who, int sig)
{
	struct f_owner_ex ox = { F_OWNER_PID, who };
	int p[2];

	if (pipe(p) < 0)
		return 1;
	if (how == 0 && fcntl(p[0], F_SETOWN, who) < 0)
		return 1;
	if (how == 1 && fcntl(p[0], F_SETOWN_EX, &ox) < 0)
		return 1;
	if (how == 2 && fcntl(p[0], F_SETOWN, -getpgid(who)) < 0)
		return 1;
	if (fcntl(p[0], F_SETSIG, sig) < 0 ||
	    fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK) < 0 ||
	    write(p[1], "x", 1) != 1)
		return 1;
	/* A moment for the signal to come, were it to. */
	for (int i = 0; i < 100; i++)
		sched_yield();
	return 0;
}

/* A child that becomes uid 65534 and aims signal sig at its parent. */
static void
as_nobody(int how, int sig)
{
	pid_t parent = getpid(), pid = fork();
	int st;

	if (pid == 0) {
		/* Not in the parent's group: its own signal stays its own. */
		if (setpgid(0, 0) < 0 || setgroups(0, NULL) < 0 ||
		    setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		_exit(arm_and_write(how, parent, sig));
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "child %d/%d", how, sig);
}

int
main(void)
{
	if (geteuid() != 0)
		return guest_skip("needs root to have two users");
	signal(SIGUSR1, on_usr1);
	for (int how = 0; how < 3; how++) {
		as_nobody(how, SIGKILL);
		as_nobody(how, SIGUSR1);
		CHECK_EQ(got, 0);
	}
	/* Root's own arming reaches it. */
	CHECK_EQ(arm_and_write(0, getpid(), SIGUSR1), 0);
	CHECK_EQ(got, SIGUSR1);
	return guest_done();
}
