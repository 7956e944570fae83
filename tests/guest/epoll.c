/* epoll: level and edge triggering, one-shot, errors, nesting, wake-ups. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

/*
 * EPOLLEXCLUSIVE goes with EPOLLIN, EPOLLOUT, EPOLLET and the like only,
 * never on an epoll fd, and an exclusive watch cannot be modified.
 */
static void
check_exclusive(int rfd)
{
	int a = (int)CHECK_OK(epoll_create1(0)), b;
	struct epoll_event x = { .events = EPOLLIN | EPOLLEXCLUSIVE };

	b = (int)CHECK_OK(epoll_create1(0));
	CHECK_OK(epoll_ctl(a, EPOLL_CTL_ADD, rfd, &x));
	CHECK_ERR(epoll_ctl(a, EPOLL_CTL_MOD, rfd, &x), EINVAL);
	x.events = EPOLLIN;
	CHECK_ERR(epoll_ctl(a, EPOLL_CTL_MOD, rfd, &x), EINVAL);
	x.events = EPOLLIN | EPOLLEXCLUSIVE | EPOLLONESHOT;
	CHECK_ERR(epoll_ctl(b, EPOLL_CTL_ADD, rfd, &x), EINVAL);
	x.events = EPOLLIN | EPOLLEXCLUSIVE | EPOLLRDHUP;
	CHECK_ERR(epoll_ctl(b, EPOLL_CTL_ADD, rfd, &x), EINVAL);
	x.events = EPOLLIN | EPOLLEXCLUSIVE;
	CHECK_ERR(epoll_ctl(b, EPOLL_CTL_ADD, a, &x), EINVAL);
	x.events = EPOLLIN | EPOLLOUT | EPOLLET | EPOLLEXCLUSIVE;
	CHECK_OK(epoll_ctl(b, EPOLL_CTL_ADD, rfd, &x));
	CHECK_OK(epoll_ctl(a, EPOLL_CTL_DEL, rfd, NULL));
	close(a);
	close(b);
}

/*
 * epoll fds inside each other: a loop is ELOOP, and so is a chain of
 * more than five (Linux's EP_MAX_NESTS of four below the top).
 */
static void
check_nesting(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int e[6];

	for (int i = 0; i < 6; i++)
		e[i] = (int)CHECK_OK(epoll_create1(0));
	for (int i = 1; i < 5; i++)
		CHECK_OK(epoll_ctl(e[i], EPOLL_CTL_ADD, e[i - 1], &ev));
	CHECK_ERR(epoll_ctl(e[5], EPOLL_CTL_ADD, e[4], &ev), ELOOP);
	CHECK_ERR(epoll_ctl(e[0], EPOLL_CTL_ADD, e[2], &ev), ELOOP);
	CHECK_ERR(epoll_ctl(e[0], EPOLL_CTL_ADD, e[1], &ev), ELOOP);
	for (int i = 0; i < 6; i++)
		close(e[i]);
}

int
main(void)
{
	struct epoll_event ev, out[4];
	char path[] = "/tmp/vk-epoll.XXXXXX", c;
	int ep, ep2, p[2], f;
	pid_t k;

	CHECK_OK(pipe(p));
	ep = (int)CHECK_OK(epoll_create1(EPOLL_CLOEXEC));
	ev = (struct epoll_event){ .events = EPOLLIN, .data.u64 = 42 };
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
	CHECK_ERR(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), EEXIST);
	CHECK_EQ(epoll_wait(ep, out, 4, 0), 0);
	CHECK_EQ(write(p[1], "ab", 2), 2);
	CHECK_EQ(epoll_wait(ep, out, 4, 0), 1);
	CHECK_EQ(out[0].events, EPOLLIN);
	CHECK_EQ(out[0].data.u64, 42);
	/* Level-triggered: still ready while data is there. */
	CHECK_EQ(epoll_wait(ep, out, 4, 0), 1);
	/* Edge-triggered: once, until something new arrives. */
	ev.events = EPOLLIN | EPOLLET;
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev));
	CHECK_EQ(epoll_wait(ep, out, 4, 0), 1);
	CHECK_EQ(epoll_wait(ep, out, 4, 0), 0);
	CHECK_EQ(read(p[0], &c, 1), 1);
	CHECK_EQ(read(p[0], &c, 1), 1);
	CHECK_EQ(write(p[1], "c", 1), 1);
	CHECK_EQ(epoll_wait(ep, out, 4, 0), 1);
	CHECK_EQ(read(p[0], &c, 1), 1);
	/* One-shot: disarmed after one report, until MOD. */
	ev.events = EPOLLIN | EPOLLONESHOT;
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev));
	CHECK_EQ(write(p[1], "d", 1), 1);
	CHECK_EQ(epoll_wait(ep, out, 4, 0), 1);
	CHECK_EQ(epoll_wait(ep, out, 4, 0), 0);
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev));
	CHECK_EQ(epoll_wait(ep, out, 4, 0), 1);
	CHECK_EQ(read(p[0], &c, 1), 1);
	ev.events = EPOLLIN;
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev));
	/* Nesting: an epoll fd is readable when its items are. */
	ep2 = (int)CHECK_OK(epoll_create(1));
	ev = (struct epoll_event){ .events = EPOLLIN, .data.u64 = 7 };
	CHECK_OK(epoll_ctl(ep2, EPOLL_CTL_ADD, ep, &ev));
	CHECK_EQ(epoll_wait(ep2, out, 4, 0), 0);
	CHECK_EQ(write(p[1], "e", 1), 1);
	CHECK_EQ(epoll_wait(ep2, out, 4, 0), 1);
	CHECK_EQ(out[0].data.u64, 7);
	CHECK_EQ(read(p[0], &c, 1), 1);
	/* A blocked wait wakes when another process writes. */
	if ((k = fork()) == 0) {
		usleep(50000);
		_exit(write(p[1], "f", 1) == 1 ? 0 : 1);
	}
	CHECK_EQ(epoll_wait(ep, out, 4, 5000), 1);
	CHECK_EQ(waitpid(k, NULL, 0), k);
	/* Errors as Linux gives them. */
	f = (int)CHECK_OK(mkstemp(path));
	CHECK_ERR(epoll_ctl(ep, EPOLL_CTL_ADD, f, &ev), EPERM);
	CHECK_ERR(epoll_ctl(ep, EPOLL_CTL_DEL, p[1], NULL), ENOENT);
	CHECK_ERR(epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev), EINVAL);
	CHECK_ERR(epoll_ctl(p[0], EPOLL_CTL_ADD, p[1], &ev), EINVAL);
	CHECK_ERR(epoll_wait(ep, out, 0, 0), EINVAL);
	CHECK_ERR(epoll_ctl(ep, 99, p[0], &ev), EINVAL);
	/* The event is copied first: EFAULT even before EBADF. */
	CHECK_ERR(epoll_ctl(-1, EPOLL_CTL_ADD, p[0], (void *)8), EFAULT);
	check_exclusive(p[0]);
	check_nesting();
	CHECK_ERR(syscall(SYS_epoll_create, 0), EINVAL);
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL));
	CHECK_EQ(epoll_wait(ep, out, 4, 20), 0);
	unlink(path);
	return guest_done();
}
