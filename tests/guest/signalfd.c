/* signalfd: blocked signals read as data, SIGCHLD's fields, poll, EAGAIN. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

int
main(void)
{
	struct signalfd_siginfo si;
	struct pollfd p;
	sigset_t m;
	pid_t c;
	int fd;

	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigaddset(&m, SIGCHLD);
	CHECK_OK(sigprocmask(SIG_BLOCK, &m, NULL));
	fd = (int)CHECK_OK(signalfd(-1, &m, SFD_NONBLOCK));
	CHECK_ERR(read(fd, &si, sizeof(si)), EAGAIN);
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	CHECK_EQ(poll(&p, 1, 0), 0);
	CHECK_OK(raise(SIGUSR1));
	CHECK_EQ(poll(&p, 1, 0), 1);
	CHECK_EQ(read(fd, &si, sizeof(si)), (long)sizeof(si));
	CHECK_EQ(si.ssi_signo, SIGUSR1);
	CHECK_EQ(si.ssi_pid, (unsigned)getpid());
	CHECK_ERR(read(fd, &si, 16), EINVAL);
	/* A child's exit: SIGCHLD with its pid and status. */
	if ((c = fork()) == 0)
		_exit(5);
	p.revents = 0;
	CHECK_EQ(poll(&p, 1, 5000), 1);
	CHECK_EQ(read(fd, &si, sizeof(si)), (long)sizeof(si));
	CHECK_EQ(si.ssi_signo, SIGCHLD);
	CHECK_EQ(si.ssi_pid, (unsigned)c);
	CHECK_EQ(si.ssi_code, CLD_EXITED);
	CHECK_EQ(si.ssi_status, 5);
	CHECK_EQ(waitpid(c, NULL, 0), c);
	CHECK_ERR(signalfd(-1, &m, 0x12345), EINVAL);
	{
		int q[2];

		CHECK_OK(pipe(q));
		CHECK_ERR(signalfd(q[0], &m, 0), EINVAL);
	}
	return guest_done();
}
