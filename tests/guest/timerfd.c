/* timerfd: one-shot and interval timers, blocking reads, poll, gettime. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

static long long
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

int
main(void)
{
	struct itimerspec its = { .it_value = { 0, 50 * 1000000 } }, cur;
	struct epoll_event ev = { .events = EPOLLIN };
	struct pollfd p;
	uint64_t n = 0;
	long long t0;
	int fd, ep;

	fd = (int)CHECK_OK(timerfd_create(CLOCK_MONOTONIC, 0));
	CHECK_OK(timerfd_gettime(fd, &cur));
	CHECK(cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0,
	    "disarmed at first");
	t0 = now_ms();
	CHECK_OK(timerfd_settime(fd, 0, &its, NULL));
	CHECK_EQ(read(fd, &n, sizeof(n)), 8);
	CHECK_EQ(n, 1);
	CHECK(now_ms() - t0 >= 45, "read waited for the expiry");
	/* An interval timer counts every expiry, read or not. */
	its.it_interval = (struct timespec){ 0, 20 * 1000000 };
	its.it_value = its.it_interval;
	t0 = now_ms();
	CHECK_OK(timerfd_settime(fd, 0, &its, NULL));
	usleep(110 * 1000);
	CHECK_EQ(read(fd, &n, sizeof(n)), 8);
	/* One each 20 ms of what passed: a loaded host sleeps longer. */
	t0 = now_ms() - t0;
	CHECK(n >= 4 && n <= (uint64_t)(t0 / 20) + 1,
	    "one expiry each 20 ms: %lu in %lld ms", (unsigned long)n, t0);
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	CHECK_EQ(poll(&p, 1, 1000), 1);
	ep = (int)CHECK_OK(epoll_create1(0));
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	CHECK_EQ(read(fd, &n, sizeof(n)), 8);
	CHECK_EQ(epoll_wait(ep, &ev, 1, 1000), 1);
	CHECK_OK(timerfd_gettime(fd, &cur));
	CHECK_EQ(cur.it_interval.tv_nsec, 20 * 1000000);
	/* Disarming stops it; a non-blocking read then says EAGAIN. */
	its = (struct itimerspec){ 0 };
	CHECK_OK(timerfd_settime(fd, 0, &its, NULL));
	close(fd);
	fd = (int)CHECK_OK(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK));
	CHECK_ERR(read(fd, &n, sizeof(n)), EAGAIN);
	CHECK_ERR(read(fd, &n, 4), EINVAL);
	CHECK_ERR(timerfd_create(12345, 0), EINVAL);
	its.it_value.tv_nsec = 1000000000;
	CHECK_ERR(timerfd_settime(fd, 0, &its, NULL), EINVAL);
	return guest_done();
}
