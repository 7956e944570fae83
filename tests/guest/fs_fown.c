/*
 * Verifies the owner of an open file's signals: fcntl(2) F_SETOWN,
 * F_GETOWN, F_SETOWN_EX, F_GETOWN_EX, F_SETSIG and F_GETSIG with their
 * argument checks, shared by dup(); and signal-driven I/O: an O_ASYNC
 * pipe or socket that becomes readable (or writable) signals its owner,
 * with SIGIO or with F_SETSIG's signal and a siginfo that says why.
 */
#include <sys/socket.h>

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>

#include "guest.h"

static long
fcntl3(long fd, int cmd, unsigned long arg)
{
	return syscall(SYS_fcntl, fd, cmd, arg);
}

static struct f_owner_ex
owner_of(long fd)
{
	struct f_owner_ex ox = { -1, -1 };

	CHECK_OK(fcntl3(fd, F_GETOWN_EX, (unsigned long)&ox));
	return ox;
}

static void
test_owner(void)
{
	struct f_owner_ex ox;
	int p[2];
	long d;

	if (CHECK_OK(pipe(p)) != 0)
		return;
	/* A new file has no owner (an empty F_OWNER_TID) and no signal. */
	CHECK_EQ(fcntl3(p[0], F_GETOWN, 0), 0);
	CHECK_EQ(owner_of(p[0]).type, F_OWNER_TID);
	CHECK_EQ(owner_of(p[0]).pid, 0);
	CHECK_EQ(fcntl3(p[0], F_GETSIG, 0), 0);

	CHECK_OK(fcntl3(p[0], F_SETOWN, (unsigned long)getpid()));
	CHECK_EQ(fcntl3(p[0], F_GETOWN, 0), getpid());
	CHECK_EQ(owner_of(p[0]).type, F_OWNER_PID);
	CHECK_EQ(owner_of(p[0]).pid, getpid());
	/* The owner is the open file's: dup() shares it, pipe's twin not. */
	d = CHECK_OK(dup(p[0]));
	CHECK_EQ(fcntl3(d, F_GETOWN, 0), getpid());
	CHECK_EQ(fcntl3(p[1], F_GETOWN, 0), 0);
	close((int)d);
	/* A negative owner is a process group; the arg is an int. */
	CHECK_OK(fcntl3(p[0], F_SETOWN, (unsigned long)-getpgrp()));
	CHECK_EQ(owner_of(p[0]).type, F_OWNER_PGRP);
	CHECK_EQ(owner_of(p[0]).pid, getpgrp());
	if (getpgrp() >= 4096)
		CHECK_EQ(fcntl3(p[0], F_GETOWN, 0), -getpgrp());
	CHECK_OK(fcntl3(p[0], F_SETOWN, (1UL << 32) | (unsigned)getpid()));
	CHECK_EQ(fcntl3(p[0], F_GETOWN, 0), getpid());
	CHECK_ERR(fcntl3(p[0], F_SETOWN, 999999), ESRCH);
	CHECK_ERR(fcntl3(p[0], F_SETOWN, (unsigned)INT_MIN), EINVAL);
	CHECK_EQ(fcntl3(p[0], F_GETOWN, 0), getpid());
	CHECK_OK(fcntl3(p[0], F_SETOWN, 0));
	CHECK_EQ(owner_of(p[0]).type, F_OWNER_PID);
	CHECK_EQ(owner_of(p[0]).pid, 0);

	ox = (struct f_owner_ex){ F_OWNER_TID, gettid() };
	CHECK_OK(fcntl3(p[0], F_SETOWN_EX, (unsigned long)&ox));
	CHECK_EQ(fcntl3(p[0], F_GETOWN, 0), gettid());
	CHECK_EQ(owner_of(p[0]).type, F_OWNER_TID);
	ox = (struct f_owner_ex){ F_OWNER_PGRP, 0 };
	CHECK_OK(fcntl3(p[0], F_SETOWN_EX, (unsigned long)&ox));
	CHECK_EQ(owner_of(p[0]).type, F_OWNER_PGRP);
	ox = (struct f_owner_ex){ 3, getpid() };
	CHECK_ERR(fcntl3(p[0], F_SETOWN_EX, (unsigned long)&ox), EINVAL);
	ox = (struct f_owner_ex){ F_OWNER_TID, 999999 };
	CHECK_ERR(fcntl3(p[0], F_SETOWN_EX, (unsigned long)&ox), ESRCH);
	ox = (struct f_owner_ex){ F_OWNER_PID, -5 };
	CHECK_ERR(fcntl3(p[0], F_SETOWN_EX, (unsigned long)&ox), ESRCH);
	CHECK_ERR(fcntl3(p[0], F_SETOWN_EX, 1), EFAULT);
	CHECK_ERR(fcntl3(p[0], F_GETOWN_EX, 1), EFAULT);
	CHECK_EQ(owner_of(p[0]).type, F_OWNER_PGRP);

	CHECK_OK(fcntl3(p[0], F_SETSIG, 64));
	CHECK_EQ(fcntl3(p[0], F_GETSIG, 0), 64);
	CHECK_ERR(fcntl3(p[0], F_SETSIG, 65), EINVAL);
	CHECK_ERR(fcntl3(p[0], F_SETSIG, -1UL), EINVAL);
	CHECK_OK(fcntl3(p[0], F_SETSIG, (1UL << 32) | 5));
	CHECK_EQ(fcntl3(p[0], F_GETSIG, 0), 5);
	CHECK_OK(fcntl3(p[0], F_SETSIG, 0));
	CHECK_EQ(fcntl3(p[0], F_GETSIG, 0), 0);
	CHECK_ERR(fcntl3(-1, F_GETOWN, 0), EBADF);
	CHECK_ERR(fcntl3(-1, F_SETSIG, 0), EBADF);
	close(p[0]);
	close(p[1]);
}

/* Whether sig is pending now; takes it if so. */
static bool
take(int sig, siginfo_t *si)
{
	struct timespec zero = { 0, 0 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return sigtimedwait(&set, si, &zero) == sig;
}

/* fd becomes O_ASYNC, owned by this process, with signal sig (0: SIGIO). */
static void
make_async(int fd, int sig)
{
	CHECK_OK(fcntl3(fd, F_SETOWN, (unsigned long)getpid()));
	CHECK_OK(fcntl3(fd, F_SETSIG, (unsigned long)sig));
	CHECK_OK(fcntl3(fd, F_SETFL, O_ASYNC | O_NONBLOCK));
}

/* Block (or unblock) SIGIO and sig, to take them with sigtimedwait. */
static void
mask_io(int how, int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	sigaddset(&set, sig);
	CHECK_OK(sigprocmask(how, &set, NULL));
}

static void
test_sigio(void)
{
	int sig = SIGRTMIN + 1, p[2], sv[2];
	static char buf[1 << 16];
	siginfo_t si;

	mask_io(SIG_BLOCK, sig);

	if (CHECK_OK(pipe(p)) == 0) {
		make_async(p[0], 0);
		CHECK(!take(SIGIO, &si), "no SIGIO before a write");
		CHECK_EQ(write(p[1], "x", 1), 1);
		if (CHECK(take(SIGIO, &si), "SIGIO when the pipe fills"))
			CHECK_EQ(si.si_code, SI_KERNEL);
		CHECK_EQ(read(p[0], buf, sizeof(buf)), 1);
		/* With O_ASYNC off, nothing. */
		CHECK_OK(fcntl3(p[0], F_SETFL, O_NONBLOCK));
		CHECK_EQ(write(p[1], "x", 1), 1);
		CHECK(!take(SIGIO, &si), "no SIGIO without O_ASYNC");
		CHECK_EQ(read(p[0], buf, sizeof(buf)), 1);

		/* The writer's end: space again after the pipe was full. */
		make_async(p[1], sig);
		while (write(p[1], buf, sizeof(buf)) > 0)
			;
		while (take(sig, &si))
			;
		CHECK(read(p[0], buf, sizeof(buf)) > 0, "read");
		if (CHECK(take(sig, &si), "F_SETSIG signal on space")) {
			CHECK_EQ(si.si_code, POLL_OUT);
			CHECK_EQ(si.si_fd, p[1]);
			CHECK((si.si_band & POLLOUT) != 0, "si_band POLLOUT");
		}
		close(p[0]);
		close(p[1]);
	}

	if (CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) == 0) {
		make_async(sv[0], sig);
		while (take(sig, &si))
			;
		CHECK_EQ(write(sv[1], "ab", 2), 2);
		if (CHECK(take(sig, &si), "F_SETSIG signal on data")) {
			CHECK_EQ(si.si_signo, sig);
			CHECK_EQ(si.si_code, POLL_IN);
			CHECK_EQ(si.si_fd, sv[0]);
			CHECK((si.si_band & POLLIN) != 0, "si_band POLLIN");
		}
		close(sv[0]);
		close(sv[1]);
	}
	mask_io(SIG_UNBLOCK, sig);
}

/* Signals sig has queued for the caller: a real-time one queues each. */
static int
count_taken(int sig)
{
	siginfo_t si;
	int n = 0;

	while (take(sig, &si))
		n++;
	return n;
}

/*
 * Every write that brings data signals the reader's owner, whether data
 * was waiting already or not: Linux's pipe_write() and
 * sock_def_readable() signal each time.
 */
static void
test_sigio_each_write(void)
{
	int sig = SIGRTMIN + 2, p[2], sv[2];

	mask_io(SIG_BLOCK, sig);
	if (CHECK_OK(pipe(p)) == 0) {
		make_async(p[0], sig);
		(void)count_taken(sig);
		for (int i = 0; i < 3; i++)
			CHECK_EQ(write(p[1], "x", 1), 1);
		CHECK_EQ(count_taken(sig), 3);
		close(p[0]);
		close(p[1]);
	}
	if (CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) == 0) {
		make_async(sv[0], sig);
		(void)count_taken(sig);
		for (int i = 0; i < 3; i++)
			CHECK_EQ(write(sv[1], "y", 1), 1);
		CHECK_EQ(count_taken(sig), 3);
		close(sv[0]);
		close(sv[1]);
	}
	mask_io(SIG_UNBLOCK, sig);
}

int
main(void)
{
	test_owner();
	test_sigio();
	test_sigio_each_write();
	return guest_done();
}
