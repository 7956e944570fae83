/*
 * Signals aimed at a zombie, a child that exited and was not reaped yet:
 * kill, tkill, tgkill (its first thread), rt_sigqueueinfo,
 * rt_tgsigqueueinfo, pidfd_open and pidfd_send_signal all succeed, as on
 * Linux, and deliver nothing; a thread id of it that is not the first
 * thread is gone (ESRCH), and once the child is reaped everything is
 * ESRCH.  A parent that signals a child which has just exited is a
 * common pattern.
 */
#include <pthread.h>
#include <sys/wait.h>

#include "guest.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

static int
queue_info(pid_t pid, pid_t tid, int sig)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	if (tid == 0)
		return (int)syscall(SYS_rt_sigqueueinfo, pid, sig, &si);
	return (int)syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, &si);
}

/* Every way of signalling pid gives err (0: success). */
static void
check_all(pid_t pid, int err, const char *what)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (err == 0) {
		CHECK(pfd >= 0, "%s: pidfd_open: %s", what, strerror(errno));
	} else {
		CHECK(pfd < 0 && errno == err, "%s: pidfd_open: %d %s", what,
		    pfd, strerror(errno));
	}
	struct {
		const char *name;
		int r;
	} calls[] = {
		{ "kill", kill(pid, SIGUSR1) },
		{ "kill 0", kill(pid, 0) },
		{ "tkill", (int)syscall(SYS_tkill, pid, SIGUSR1) },
		{ "tgkill", (int)syscall(SYS_tgkill, pid, pid, SIGUSR1) },
		{ "tgkill 0", (int)syscall(SYS_tgkill, pid, pid, 0) },
		{ "rt_sigqueueinfo", queue_info(pid, 0, SIGUSR1) },
		{ "rt_tgsigqueueinfo", queue_info(pid, pid, SIGUSR1) },
		{ "pidfd_send_signal", pfd < 0 ? -1 :
		    (int)syscall(SYS_pidfd_send_signal, pfd, SIGUSR1, NULL, 0) },
	};
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (pfd < 0 && i == sizeof(calls) / sizeof(calls[0]) - 1)
			break;
		if (err == 0)
			CHECK(calls[i].r == 0, "%s: %s: %s", what,
			    calls[i].name, strerror(errno));
		else
			CHECK(calls[i].r == -1, "%s: %s: %d, want an error",
			    what, calls[i].name, calls[i].r);
	}
	if (pfd >= 0)
		close(pfd);
}

static void *
quit(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	return NULL;
}

int
main(void)
{
	int pipefd[2], st;
	siginfo_t si;
	pid_t pid, tid = 0;

	CHECK_OK(pipe(pipefd));
	pid = CHECK_OK(fork());
	if (pid == 0) {
		pthread_t th;

		/* A second thread that has ended: its id is gone. */
		if (pthread_create(&th, NULL, quit, &tid) != 0 ||
		    pthread_join(th, NULL) != 0)
			_exit(2);
		if (write(pipefd[1], &tid, sizeof(tid)) != sizeof(tid))
			_exit(2);
		_exit(7);
	}
	close(pipefd[1]);
	CHECK_EQ(read(pipefd[0], &tid, sizeof(tid)), (long)sizeof(tid));
	/* Exited, not reaped: WNOWAIT leaves it a zombie. */
	memset(&si, 0, sizeof(si));
	CHECK_OK(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT));
	CHECK_EQ(si.si_pid, pid);
	CHECK_EQ(si.si_status, 7);

	check_all(pid, 0, "zombie");
	errno = 0;
	CHECK_ERR(syscall(SYS_tgkill, pid, tid, SIGUSR1), ESRCH);
	CHECK_ERR(syscall(SYS_tkill, tid, SIGUSR1), ESRCH);
	/* A thread id is no process's, even of a zombie: ESRCH. */
	CHECK_ERR(syscall(SYS_tgkill, pid, pid + 100000, 0), ESRCH);

	/* The signals reached no one: the status is the exit's. */
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %#x", st);
	check_all(pid, ESRCH, "reaped");
	CHECK_ERR(syscall(SYS_tgkill, pid, pid, 0), ESRCH);
	return guest_done();
}
