/*
 * Every call that takes a time takes the largest one a guest can write
 * and treats it as "practically never", as Linux does, without the
 * kernel's arithmetic overflowing: timeouts on a ready fd return at
 * once, timers armed for the end of time stay armed, file times far in
 * the future stay far in the future.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define HUGE_S	INT64_MAX

/* musl has no linux/futex.h. */
#define FUTEX_WAIT_PRIVATE_		128
#define FUTEX_WAIT_BITSET_PRIVATE_	(9 | 128)
#define FUTEX_CLOCK_REALTIME_		256
#define Y2100	4102444800LL

struct kts {
	int64_t sec, nsec;
};

static void
on_alrm(int sig)
{
	(void)sig;
}

/* A pipe with a byte in it: every readiness wait ends at once. */
static void
check_waits(void)
{
	struct kts ts = { HUGE_S, 0 };
	struct kts tv = { HUGE_S, 0 };
	struct pollfd p;
	struct epoll_event ev = { .events = EPOLLIN };
	fd_set rs;
	int fds[2], ep;

	CHECK_OK(pipe(fds));
	CHECK_EQ(write(fds[1], "x", 1), 1);
	FD_ZERO(&rs);
	FD_SET(fds[0], &rs);
	CHECK_EQ(syscall(SYS_select, fds[0] + 1, &rs, NULL, NULL, &tv), 1);
	CHECK(tv.sec > Y2100, "select left %lld s", (long long)tv.sec);
	FD_SET(fds[0], &rs);
	CHECK_EQ(syscall(SYS_pselect6, fds[0] + 1, &rs, NULL, NULL, &ts,
	    NULL), 1);
	p = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	ts = (struct kts){ HUGE_S, 999999999 };
	CHECK_EQ(syscall(SYS_ppoll, &p, 1, &ts, NULL, 8), 1);
	CHECK(ts.sec > Y2100, "ppoll left %lld s", (long long)ts.sec);
	CHECK((ep = epoll_create1(0)) >= 0, "epoll_create1");
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev));
	ts = (struct kts){ HUGE_S, 0 };
	CHECK_EQ(syscall(SYS_epoll_pwait2, ep, &ev, 1, &ts, NULL, 8), 1);
	close(ep);
	close(fds[0]);
	close(fds[1]);
}

/* A sleep for ever that a signal handler ends. */
static void
check_sleeps(void)
{
	struct sigaction sa = { .sa_handler = on_alrm };
	struct itimerval it = { .it_value = { 0, 20000 } };
	struct kts ts = { HUGE_S, 0 }, rem;
	int word = 0;

	CHECK_OK(sigaction(SIGALRM, &sa, NULL));
	CHECK_OK(setitimer(ITIMER_REAL, &it, NULL));
	CHECK_ERR(syscall(SYS_nanosleep, &ts, &rem), EINTR);
	CHECK(rem.sec > Y2100, "nanosleep left %lld s", (long long)rem.sec);
	CHECK_OK(setitimer(ITIMER_REAL, &it, NULL));
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts,
	    NULL), EINTR);
	CHECK_OK(setitimer(ITIMER_REAL, &it, NULL));
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_REALTIME, TIMER_ABSTIME,
	    &ts, NULL), EINTR);
	CHECK_OK(setitimer(ITIMER_REAL, &it, NULL));
	CHECK_ERR(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE_, 0, &ts, NULL,
	    0), EINTR);
	CHECK_OK(setitimer(ITIMER_REAL, &it, NULL));
	CHECK_ERR(syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE_ |
	    FUTEX_CLOCK_REALTIME_, 0, &ts, NULL, ~0u), EINTR);
	sa.sa_handler = SIG_DFL;
	CHECK_OK(sigaction(SIGALRM, &sa, NULL));
}

/* Timers armed for the end of time: armed, far off, and disarmable. */
static void
check_timers(void)
{
	struct { struct kts interval, value; } its = {
		{ HUGE_S, 0 }, { HUGE_S, 999999999 } }, cur;
	struct itimerval it = { { HUGE_S, 0 }, { HUGE_S, 999999 } }, got;
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	int timer, tfd;

	CHECK_OK(syscall(SYS_setitimer, ITIMER_REAL, &it, NULL));
	CHECK_OK(syscall(SYS_getitimer, ITIMER_REAL, &got));
	CHECK(got.it_value.tv_sec > Y2100 && got.it_interval.tv_sec > Y2100,
	    "itimer %lld/%lld s", (long long)got.it_value.tv_sec,
	    (long long)got.it_interval.tv_sec);
	it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
	CHECK_OK(syscall(SYS_setitimer, ITIMER_REAL, &it, NULL));

	CHECK_OK(syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &timer));
	CHECK_OK(syscall(SYS_timer_settime, timer, 0, &its, NULL));
	CHECK_OK(syscall(SYS_timer_gettime, timer, &cur));
	CHECK(cur.value.sec > Y2100, "timer at %lld s",
	    (long long)cur.value.sec);
	CHECK_OK(syscall(SYS_timer_settime, timer, TIMER_ABSTIME, &its,
	    NULL));
	CHECK_OK(syscall(SYS_timer_delete, timer));

	CHECK((tfd = timerfd_create(CLOCK_MONOTONIC, 0)) >= 0,
	    "timerfd_create");
	CHECK_OK(syscall(SYS_timerfd_settime, tfd, 0, &its, NULL));
	CHECK_OK(syscall(SYS_timerfd_gettime, tfd, &cur));
	CHECK(cur.value.sec > Y2100 && cur.interval.sec > Y2100,
	    "timerfd at %lld s every %lld s", (long long)cur.value.sec,
	    (long long)cur.interval.sec);
	CHECK_OK(syscall(SYS_timerfd_settime, tfd, TFD_TIMER_ABSTIME, &its,
	    NULL));
	close(tfd);
}

/* File times and socket timeouts far past 2100 read back past 2100. */
static void
check_stored(void)
{
	struct kts ts[2] = { { HUGE_S, 0 }, { -HUGE_S, 0 } };
	struct kts tv[2] = { { HUGE_S, 0 }, { HUGE_S, 0 } };
	struct kts rcv = { HUGE_S, 0 };
	struct stat st;
	char path[] = "/tmp/time_huge.XXXXXX";
	int fd, sv[2];

	CHECK((fd = mkstemp(path)) >= 0, "mkstemp");
	CHECK_OK(syscall(SYS_utimensat, AT_FDCWD, path, ts, 0));
	CHECK_OK(fstat(fd, &st));
	CHECK(st.st_atime > Y2100, "atime %lld", (long long)st.st_atime);
	CHECK(st.st_mtime < 0, "mtime %lld", (long long)st.st_mtime);
	CHECK_OK(syscall(SYS_utimes, path, tv));
	CHECK_OK(fstat(fd, &st));
	CHECK(st.st_mtime > Y2100, "mtime %lld", (long long)st.st_mtime);
	close(fd);
	unlink(path);

	CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	CHECK_OK(setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &rcv,
	    sizeof(rcv)));
	close(sv[0]);
	close(sv[1]);
}

int
main(void)
{
	check_waits();
	check_sleeps();
	check_timers();
	check_stored();
	return guest_done();
}
