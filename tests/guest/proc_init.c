/*
 * pid 1 is the sandbox's init: as pid_namespaces(7) says, the other
 * processes may send it only the signals it has a handler for; the rest,
 * SIGKILL and SIGSTOP too, are dropped, the call succeeding (kill, a
 * process group, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo,
 * pidfd_send_signal).  A signal it handles comes; clone(CLONE_PARENT)
 * is EINVAL to it.  Must run as pid 1
 * (inside vkernel, or natively as "unshare --pid --fork"); "nobody" runs
 * the checks as uid 65534.
 */
#include <sched.h>
#include <sys/wait.h>

#include "guest.h"

static volatile sig_atomic_t got;

static void
on_usr1(int sig)
{
	got = sig;
}

/* Each way a child can signal pid 1 with sig; all must return 0. */
static int
child_sends(int sig)
{
	siginfo_t si = { .si_signo = sig, .si_code = SI_QUEUE };
	int bad = 0, pidfd;

	bad |= kill(1, sig) != 0;
	/* Its group holds pid 1 and itself, which cannot ignore these. */
	if (sig != SIGKILL && sig != SIGSTOP)
		bad |= kill(0, sig) != 0;
	bad |= syscall(SYS_tgkill, 1, 1, sig) != 0;
	bad |= syscall(SYS_rt_sigqueueinfo, 1, sig, &si) != 0;
	bad |= syscall(SYS_rt_tgsigqueueinfo, 1, 1, sig, &si) != 0;
	pidfd = (int)syscall(SYS_pidfd_open, 1, 0);
	bad |= pidfd < 0 ||
	    syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) != 0;
	return bad;
}

/* A child sends sig every way; pid 1 must still be here after it. */
static void
check_dropped(int sig)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		/* So that kill(0) ends only in pid 1. */
		signal(sig, SIG_IGN);
		_exit(child_sends(sig));
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "signal %d: a way to send it failed", sig);
}

int
main(int argc, char **argv)
{
	static const int sigs[] = { SIGTERM, SIGKILL, SIGSTOP, SIGILL,
	    SIGSEGV, SIGINT, SIGHUP, SIGUSR2 };
	pid_t pid;
	int st;

	if (getpid() != 1)
		return guest_skip("not pid 1 (run as unshare --pid --fork)");
	/* A group of its own, whoever started it (kill(0) in child_sends). */
	(void)setsid();
	if (argc > 1 && strcmp(argv[1], "nobody") == 0 &&
	    (setresgid(65534, 65534, 65534) < 0 ||
	    setresuid(65534, 65534, 65534) < 0))
		return guest_skip("cannot become uid 65534");
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigs[i] != SIGKILL && sigs[i] != SIGSTOP)
			signal(sigs[i], SIG_IGN);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* Default again: what protects pid 1 now is being init. */
		if (sigs[i] != SIGKILL && sigs[i] != SIGSTOP)
			signal(sigs[i], SIG_DFL);
		check_dropped(sigs[i]);
	}
	/* Init makes no siblings, which nobody would reap. */
	CHECK_ERR(syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, NULL, NULL, 0),
	    EINVAL);
	/* A handled signal comes. */
	signal(SIGUSR1, on_usr1);
	pid = fork();
	if (pid == 0)
		_exit(kill(1, SIGUSR1) != 0);
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "kill(1, SIGUSR1)");
	CHECK_EQ(got, SIGUSR1);
	return guest_done();
}
