/*
 * An orphan's exit signal: whatever signal its parent asked clone() for,
 * the process it is handed to (a subreaper here, the sandbox's init
 * otherwise) hears SIGCHLD when it ends, as on Linux, which resets the
 * exit signal at reparenting.  An orphan must not kill its new parent
 * with the signal of its choice, SIGSEGV or a real-time one.
 */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

static volatile sig_atomic_t got_usr1;

static void
on_usr1(int sig)
{
	(void)sig;
	got_usr1++;
}

/* Wait, for 5 s at most, until ppid is the caller's parent. */
static int
wait_ppid(pid_t ppid)
{
	for (int i = 0; i < 5000; i++) {
		if (getppid() == ppid)
			return 0;
		usleep(1000);
	}
	return -1;
}

static void
check_orphan(const void *unused)
{
	pid_t me = getpid(), mid, w;
	int st;

	(void)unused;
	got_usr1 = 0;
	CHECK_OK(prctl(PR_SET_CHILD_SUBREAPER, 1));
	CHECK(signal(SIGUSR1, on_usr1) != SIG_ERR, "signal");
	if ((mid = fork()) == 0) {
		/* As fork(), but the parent is to hear SIGUSR1. */
		long g = syscall(SYS_clone, (long)SIGUSR1, 0L, 0L, 0L, 0L);

		if (g == 0)
			_exit(wait_ppid(me) == 0 ? 5 : 6);
		_exit(g > 0 ? 0 : 1);
	}
	CHECK_EQ(waitpid(mid, &st, 0), mid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "middle status %#x", st);
	/* The orphan is ours now, an ordinary child: plain waitpid. */
	w = waitpid(-1, &st, 0);
	CHECK(w > 0 && w != mid, "waitpid: %d", (int)w);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5, "orphan status %#x", st);
	CHECK_EQ(got_usr1, 0);
}

int
main(void)
{
	check_orphan(NULL);
	guest_as_nobody(check_orphan, NULL);
	return guest_done();
}
