/*
 * pidfd_open, pidfd_send_signal (through a pidfd and through an open
 * /proc/PID), waitid(P_PIDFD), a child subreaper, and the parent-death
 * signal (PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static void
test_pidfd(void)
{
	siginfo_t si;
	struct pollfd p;
	long fd;
	int st, pfd[2];
	pid_t c;

	CHECK_OK(pipe(pfd));
	if ((c = fork()) == 0) {
		char b;

		(void)read(pfd[0], &b, 1);
		_exit(7);
	}
	fd = CHECK_OK(syscall(SYS_pidfd_open, c, 0));
	p = (struct pollfd){ .fd = (int)fd, .events = POLLIN };
	CHECK_EQ(poll(&p, 1, 0), 0);
	CHECK_OK(write(pfd[1], "x", 1));
	CHECK_EQ(poll(&p, 1, 5000), 1);
	CHECK(p.revents & POLLIN, "readable after exit: %#x", p.revents);
	CHECK_OK(syscall(SYS_waitid, P_PIDFD, (int)fd, &si, WEXITED, NULL));
	CHECK_EQ(si.si_pid, c);
	CHECK_EQ(si.si_code, CLD_EXITED);
	CHECK_EQ(si.si_status, 7);
	close((int)fd);
	/* A signal through a pidfd. */
	if ((c = fork()) == 0) {
		pause();
		_exit(0);
	}
	fd = CHECK_OK(syscall(SYS_pidfd_open, c, 0));
	CHECK_OK(syscall(SYS_pidfd_send_signal, (int)fd, SIGTERM, NULL, 0));
	CHECK_EQ(waitpid(c, &st, 0), c);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %#x", st);
	CHECK_ERR(syscall(SYS_pidfd_send_signal, (int)fd, SIGTERM, NULL, 0),
	    ESRCH);
	CHECK_ERR(syscall(SYS_pidfd_send_signal, pfd[0], SIGTERM, NULL, 0),
	    EBADF);
	CHECK_ERR(syscall(SYS_pidfd_open, c, 0), ESRCH);
	CHECK_ERR(syscall(SYS_pidfd_open, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_pidfd_open, getpid(), 12345), EINVAL);
	close((int)fd);
}

/* Linux takes an open /proc/PID as the process's pidfd for signals. */
static void
test_proc_dir(void)
{
	char path[64];
	int fd, st;
	pid_t c;

	if ((c = fork()) == 0) {
		pause();
		_exit(0);
	}
	snprintf(path, sizeof(path), "/proc/%d", (int)c);
	fd = CHECK_OK(open(path, O_RDONLY | O_DIRECTORY));
	CHECK_OK(syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0));
	CHECK_OK(syscall(SYS_pidfd_send_signal, fd, SIGTERM, NULL, 0));
	CHECK_EQ(waitpid(c, &st, 0), c);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %#x", st);
	/* Not a pidfd for waitid, nor any other directory of /proc. */
	CHECK_ERR(syscall(SYS_waitid, P_PIDFD, fd, NULL, WEXITED, NULL),
	    EBADF);
	close(fd);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)getpid());
	fd = CHECK_OK(open(path, O_RDONLY | O_DIRECTORY));
	CHECK_ERR(syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0), EBADF);
	close(fd);
}

static void
test_subreaper(void)
{
	int pfd[2], got = 0;
	pid_t c, me = getpid();

	CHECK_OK(prctl(PR_SET_CHILD_SUBREAPER, 1));
	CHECK_OK(prctl(PR_GET_CHILD_SUBREAPER, &got));
	CHECK_EQ(got, 1);
	CHECK_OK(pipe(pfd));
	if ((c = fork()) == 0) {
		if (fork() == 0) {
			pid_t pp;

			/* Wait until the middle process is gone. */
			while ((pp = getppid()) != me && pp != 1)
				usleep(1000);
			(void)write(pfd[1], &pp, sizeof(pp));
			_exit(0);
		}
		_exit(0);
	}
	CHECK_EQ(waitpid(c, NULL, 0), c);
	{
		pid_t pp = 0;

		CHECK_EQ(read(pfd[0], &pp, sizeof(pp)), (long)sizeof(pp));
		CHECK_EQ(pp, me);
	}
	/* The grandchild is now our child: we reap it. */
	CHECK(wait(NULL) > 0, "the orphan came to the subreaper");
}

/* A grandchild asks for SIGTERM when its parent dies, and gets it. */
static void
test_pdeathsig(void)
{
	int pfd[2], st = 0, sig = -1;
	pid_t c, g = 0;

	CHECK_OK(prctl(PR_SET_PDEATHSIG, SIGUSR2));
	CHECK_OK(prctl(PR_GET_PDEATHSIG, &sig));
	CHECK_EQ(sig, SIGUSR2);
	CHECK_OK(prctl(PR_SET_PDEATHSIG, 0));
	CHECK_ERR(prctl(PR_SET_PDEATHSIG, 65), EINVAL);
	CHECK_OK(pipe(pfd));
	if ((c = fork()) == 0) {
		if ((g = fork()) == 0) {
			int inherited = -1;

			/* fork clears it in the child; set it for our parent. */
			prctl(PR_GET_PDEATHSIG, &inherited);
			prctl(PR_SET_PDEATHSIG, inherited == 0 ? SIGTERM : 0);
			g = getpid();
			(void)write(pfd[1], &g, sizeof(g));
			for (;;)
				pause();
		}
		(void)read(pfd[0], &g, sizeof(g));
		(void)write(pfd[1], &g, sizeof(g));
		_exit(0);
	}
	CHECK_EQ(waitpid(c, NULL, 0), c);
	CHECK_EQ(read(pfd[0], &g, sizeof(g)), (long)sizeof(g));
	/* We are the subreaper: the orphan's end comes to us. */
	CHECK_EQ(waitpid(g, &st, 0), g);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	    "the orphan died of its parent-death signal: status %#x", st);
	close(pfd[0]);
	close(pfd[1]);
}

int
main(void)
{
	test_pidfd();
	test_proc_dir();
	test_subreaper();
	test_pdeathsig();
	return guest_done();
}
