/*
 * Verifies default signal actions from outside: argv[1] names a way to die
 * of a signal (abort, abort-handled, segv, segv-ignored, kill, term, usr1,
 * usr1-unblock, alarm), which must kill the process, or a signal that must
 * not kill it (pipe-ignored, ignored-default), after which it exits 0;
 * anything else prints a FAIL line and exits 1.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "guest.h"

#define BIT(sig)	((uint64_t)1 << ((sig) - 1))

static void
on_sig(int sig)
{
	(void)sig;
}

static void
set_mask(int how, uint64_t m)
{
	syscall(SYS_rt_sigprocmask, how, &m, NULL, 8);
}

/* Stores to a page that was just unmapped. */
static void
wild_write(void)
{
	volatile int *p = guest_anon(GUEST_PAGE, PROT_READ | PROT_WRITE);

	if (p == MAP_FAILED)
		return;
	guest_munmap((void *)p, GUEST_PAGE);
	*p = 1;
}

static int
run(const char *mode)
{
	pid_t pid = (pid_t)syscall(SYS_getpid);

	/* Each sets the dispositions it needs: SIG_IGN is inherited. */
	if (strcmp(mode, "abort") == 0) {
		abort();
	} else if (strcmp(mode, "abort-handled") == 0) {
		/* abort() still kills when the handler returns. */
		signal(SIGABRT, on_sig);
		abort();
	} else if (strcmp(mode, "segv") == 0) {
		/* A fault while its signal is blocked kills despite a handler. */
		signal(SIGSEGV, on_sig);
		set_mask(SIG_BLOCK, BIT(SIGSEGV));
		wild_write();
	} else if (strcmp(mode, "segv-ignored") == 0) {
		signal(SIGSEGV, SIG_IGN);
		wild_write();
	} else if (strcmp(mode, "kill") == 0) {
		/* Blocking everything does not hold SIGKILL back. */
		set_mask(SIG_SETMASK, ~0ULL);
		kill(pid, SIGKILL);
	} else if (strcmp(mode, "term") == 0) {
		signal(SIGTERM, SIG_DFL);
		raise(SIGTERM);
	} else if (strcmp(mode, "usr1") == 0) {
		signal(SIGUSR1, SIG_DFL);
		raise(SIGUSR1);
	} else if (strcmp(mode, "usr1-unblock") == 0) {
		/* Pending while blocked; unblocking it kills. */
		signal(SIGUSR1, SIG_DFL);
		set_mask(SIG_BLOCK, BIT(SIGUSR1));
		raise(SIGUSR1);
		set_mask(SIG_UNBLOCK, BIT(SIGUSR1));
	} else if (strcmp(mode, "alarm") == 0) {
		signal(SIGALRM, SIG_DFL);
		syscall(SYS_alarm, 1);
		syscall(SYS_pause);
	} else if (strcmp(mode, "pipe-ignored") == 0) {
		if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
			return 1;
		raise(SIGPIPE);
		return 0;
	} else if (strcmp(mode, "ignored-default") == 0) {
		/* These are ignored by default. */
		signal(SIGCHLD, SIG_DFL);
		signal(SIGURG, SIG_DFL);
		signal(SIGWINCH, SIG_DFL);
		raise(SIGCHLD);
		raise(SIGURG);
		kill(pid, SIGWINCH);
		return 0;
	} else {
		guest_note("usage: sig_default abort|abort-handled|segv|"
		    "segv-ignored|kill|term|usr1|usr1-unblock|alarm|pipe-ignored|"
		    "ignored-default");
		return 2;
	}
	CHECK(false, "%s: still alive", mode);
	return 1;
}

int
main(int argc, char **argv)
{
	struct rlimit rl = { 0, 0 };

	/* No core files from the deaths asked for, if we may help it. */
	setrlimit(RLIMIT_CORE, &rl);
	set_mask(SIG_SETMASK, 0);
	return run(argc > 1 ? argv[1] : "");
}
