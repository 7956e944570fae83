/*
 * POSIX timers: a timer firing a signal at one given thread
 * (SIGEV_THREAD_ID), a periodic timer signalling the process, SIGEV_NONE
 * counting down unseen, an absolute CLOCK_REALTIME expiry, the default
 * sigevent (SIGALRM carrying the timer's id), timer_delete stopping a
 * timer, and the errors.  Raw syscalls: libc's timer_create may wrap
 * SIGEV_THREAD in a helper thread of its own.
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/timerfd.h>

#include "thr_common.h"

#define SIGEV_THREAD_ID_ 4

struct ksigevent {
	uint64_t value;
	int32_t signo, notify, tid;
	int32_t pad[11];
};

struct kitimerspec {
	struct timespec interval, value;
};

static atomic_int got_count, got_tid, got_code, got_overrun;
static atomic_long got_value;

static void
on_timer(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	atomic_store(&got_tid, gettid_raw());
	atomic_store(&got_code, si->si_code);
	atomic_store(&got_value, (long)si->si_value.sival_ptr);
	atomic_store(&got_overrun, si->si_overrun);
	atomic_fetch_add(&got_count, 1);
}

static int
timer_new(int clock, struct ksigevent *ev)
{
	int id = -1;

	if (syscall(SYS_timer_create, clock, ev, &id) < 0)
		return -1;
	return id;
}

static long
timer_arm(int id, int flags, long first_ns, long every_ns)
{
	struct kitimerspec v = { { 0, every_ns }, { first_ns / 1000000000L,
	    first_ns % 1000000000L } };

	return syscall(SYS_timer_settime, id, flags, &v, NULL);
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void
await_count(int n)
{
	for (int i = 0; i < 500 && atomic_load(&got_count) < n; i++)
		sleep_ms(2);
}

static atomic_int worker_tid;
static atomic_uint worker_stop;

static void *
worker_main(void *arg)
{
	(void)arg;
	atomic_store(&worker_tid, gettid_raw());
	while (atomic_load(&worker_stop) == 0)
		futex_wait(&worker_stop, 0, 1000);
	return NULL;
}

static void
check_thread_id(void)
{
	struct ksigevent ev = { .value = 77, .signo = SIGUSR1,
	    .notify = SIGEV_THREAD_ID_ };
	pthread_t t;
	int id;

	atomic_store(&got_count, 0);
	CHECK_EQ(pthread_create(&t, NULL, worker_main, NULL), 0);
	while (atomic_load(&worker_tid) == 0)
		sched_yield();
	ev.tid = atomic_load(&worker_tid);
	id = timer_new(CLOCK_MONOTONIC, &ev);
	CHECK(id >= 0, "timer_create SIGEV_THREAD_ID");
	CHECK_OK(timer_arm(id, 0, 20 * 1000000L, 0));
	await_count(1);
	CHECK_EQ(atomic_load(&got_count), 1);
	CHECK_EQ(atomic_load(&got_tid), ev.tid);
	CHECK_EQ(atomic_load(&got_code), SI_TIMER);
	CHECK_EQ(atomic_load(&got_value), 77);
	CHECK_OK(syscall(SYS_timer_delete, id));
	atomic_store(&worker_stop, 1);
	futex_wake(&worker_stop, 1);
	CHECK_EQ(pthread_join(t, NULL), 0);
	/* A thread of another process, or none, is refused. */
	ev.tid = 999999;
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id),
	    EINVAL);
}

static void
check_periodic(void)
{
	struct ksigevent ev = { .value = 5, .signo = SIGUSR2,
	    .notify = SIGEV_SIGNAL };
	struct kitimerspec cur;
	int id = timer_new(CLOCK_MONOTONIC, &ev), seen;

	atomic_store(&got_count, 0);
	CHECK(id >= 0, "timer_create SIGEV_SIGNAL");
	CHECK_OK(timer_arm(id, 0, 10 * 1000000L, 10 * 1000000L));
	CHECK_OK(syscall(SYS_timer_gettime, id, &cur));
	CHECK_EQ(cur.interval.tv_nsec, 10 * 1000000L);
	CHECK(cur.value.tv_sec == 0 && cur.value.tv_nsec > 0 &&
	    cur.value.tv_nsec <= 10 * 1000000L, "left %ld ns",
	    cur.value.tv_nsec);
	await_count(3);
	CHECK(atomic_load(&got_count) >= 3, "periodic: %d signals",
	    atomic_load(&got_count));
	CHECK_EQ(atomic_load(&got_value), 5);
	CHECK(syscall(SYS_timer_getoverrun, id) >= 0, "getoverrun");
	CHECK_OK(syscall(SYS_timer_delete, id));
	seen = atomic_load(&got_count);
	sleep_ms(40);
	CHECK_EQ(atomic_load(&got_count), seen);
	CHECK_ERR(syscall(SYS_timer_delete, id), EINVAL);
	CHECK_ERR(syscall(SYS_timer_gettime, id, &cur), EINVAL);
	CHECK_ERR(syscall(SYS_timer_getoverrun, id), EINVAL);
}

static void
check_none_and_abstime(void)
{
	struct ksigevent none = { .notify = SIGEV_NONE };
	struct ksigevent sig = { .value = 9, .signo = SIGUSR2,
	    .notify = SIGEV_SIGNAL };
	struct kitimerspec cur, bad = { { 0, 0 }, { 0, 1000000000L } };
	struct timespec now;
	int id = timer_new(CLOCK_MONOTONIC, &none), rid;

	atomic_store(&got_count, 0);
	CHECK(id >= 0, "timer_create SIGEV_NONE");
	CHECK_OK(timer_arm(id, 0, 30 * 1000000L, 0));
	sleep_ms(50);
	CHECK_OK(syscall(SYS_timer_gettime, id, &cur));
	CHECK(cur.value.tv_sec == 0 && cur.value.tv_nsec == 0,
	    "expired SIGEV_NONE timer: %ld ns left", cur.value.tv_nsec);
	CHECK_EQ(atomic_load(&got_count), 0);
	CHECK_ERR(syscall(SYS_timer_settime, id, 0, &bad, NULL), EINVAL);
	CHECK_OK(syscall(SYS_timer_delete, id));

	rid = timer_new(CLOCK_REALTIME, &sig);
	CHECK(rid >= 0, "timer_create CLOCK_REALTIME");
	clock_gettime(CLOCK_REALTIME, &now);
	now.tv_nsec += 30 * 1000000L;
	if (now.tv_nsec >= 1000000000L) {
		now.tv_sec++;
		now.tv_nsec -= 1000000000L;
	}
	cur = (struct kitimerspec){ { 0, 0 }, now };
	CHECK_OK(syscall(SYS_timer_settime, rid, TIMER_ABSTIME, &cur, NULL));
	await_count(1);
	CHECK_EQ(atomic_load(&got_count), 1);
	CHECK_EQ(atomic_load(&got_value), 9);
	CHECK_OK(syscall(SYS_timer_delete, rid));
}

static void
check_default_and_errors(void)
{
	struct ksigevent bad = { .signo = SIGUSR1, .notify = 99 };
	int id = -1;

	atomic_store(&got_count, 0);
	CHECK_OK(syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, &id));
	CHECK_OK(timer_arm(id, 0, 10 * 1000000L, 0));
	await_count(1);
	CHECK_EQ(atomic_load(&got_count), 1);
	CHECK_EQ(atomic_load(&got_value), id);
	CHECK_OK(syscall(SYS_timer_delete, id));
	CHECK_ERR(syscall(SYS_timer_create, 1000, NULL, &id), EINVAL);
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_MONOTONIC, &bad, &id),
	    EINVAL);
	bad = (struct ksigevent){ .signo = 0, .notify = SIGEV_SIGNAL };
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_MONOTONIC, &bad, &id),
	    EINVAL);
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_MONOTONIC, (void *)8, &id),
	    EFAULT);
	CHECK_ERR(syscall(SYS_timer_settime, 12345, 0, &bad, NULL), EINVAL);
}

/* A signal of timer id taken with sigtimedwait: its si_overrun, or -1. */
static int
take_timer_signal(int signo, int id)
{
	struct timespec zero = { 0, 0 };
	siginfo_t si;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, signo);
	if (syscall(SYS_rt_sigtimedwait, &set, &si, &zero, 8) != signo ||
	    si.si_code != SI_TIMER || si.si_timerid != id)
		return -1;
	return si.si_overrun;
}

static void
on_rt(int sig)
{
	(void)sig;
}

/*
 * Overruns are counted while the signal is queued and told when it is
 * taken; the timer stays armed meanwhile, as the count is the timer's
 * until timer_settime starts it afresh.
 */
static void
check_overrun(void)
{
	int signo = SIGRTMIN + 1, id, n;
	struct ksigevent ev = { .signo = signo, .notify = SIGEV_SIGNAL };
	struct sigaction sa = { .sa_handler = on_rt }, oldsa;
	struct timespec zero = { 0, 0 };
	sigset_t set, old;

	sigemptyset(&set);
	sigaddset(&set, signo);
	CHECK_OK(sigaction(signo, &sa, &oldsa));
	CHECK_OK(sigprocmask(SIG_BLOCK, &set, &old));
	id = timer_new(CLOCK_MONOTONIC, &ev);
	CHECK(id >= 0, "timer_create");
	/* Every 20 ms for 210 ms, blocked: one signal, 9 or more overruns. */
	CHECK_OK(timer_arm(id, 0, 20 * 1000000L, 20 * 1000000L));
	sleep_ms(210);
	n = take_timer_signal(signo, id);
	CHECK_ERR(syscall(SYS_rt_sigtimedwait, &set, NULL, &zero, 8),
	    EAGAIN);
	CHECK(n >= 9 && n < 1000, "si_overrun %d after 10 expirations", n);
	CHECK_EQ(syscall(SYS_timer_getoverrun, id), n);
	/* Every nanosecond for 2.3 s: more than INT_MAX, which it stops at. */
	CHECK_OK(timer_arm(id, 0, 1, 1));
	sleep_ms(2300);
	CHECK_EQ(take_timer_signal(signo, id), INT_MAX);
	CHECK_EQ(syscall(SYS_timer_getoverrun, id), INT_MAX);
	CHECK_OK(syscall(SYS_timer_delete, id));
	(void)syscall(SYS_rt_sigtimedwait, &set, NULL, &zero, 8);
	CHECK_OK(sigprocmask(SIG_SETMASK, &old, NULL));
	CHECK_OK(sigaction(signo, &oldsa, NULL));
}

/* The alarm timerfds, by a guest root and by uid 65534. */
static void
check_alarm_timerfd(const void *arg)
{
	int fd;

	(void)arg;
	fd = timerfd_create(CLOCK_REALTIME_ALARM, TFD_CLOEXEC);
	if (geteuid() != 0) {
		CHECK(fd < 0 && errno == EPERM, "alarm timerfd as a user");
		return;
	}
	CHECK(fd >= 0, "CLOCK_REALTIME_ALARM timerfd as root");
	if (fd >= 0)
		close(fd);
	fd = timerfd_create(CLOCK_BOOTTIME_ALARM, TFD_CLOEXEC);
	CHECK(fd >= 0, "CLOCK_BOOTTIME_ALARM timerfd as root");
	if (fd >= 0)
		close(fd);
	CHECK_ERR(timerfd_create(CLOCK_TAI, 0), EINVAL);
	CHECK_ERR(timerfd_create(CLOCK_REALTIME_ALARM, 0x40), EINVAL);
}

static void
check_clocks(void)
{
	struct ksigevent none = { .notify = SIGEV_NONE };
	struct timespec ts = { 0, 1 };
	int id = -1;

	CHECK_OK(syscall(SYS_timer_create, CLOCK_TAI, &none, &id));
	CHECK_OK(syscall(SYS_timer_delete, id));
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_REALTIME_ALARM, &none, &id),
	    EOPNOTSUPP);
	CHECK_ERR(syscall(SYS_timer_create, CLOCK_BOOTTIME_ALARM, &none, &id),
	    EOPNOTSUPP);
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_REALTIME_ALARM, 0, &ts,
	    NULL), EOPNOTSUPP);
	check_alarm_timerfd(NULL);
	guest_as_nobody(check_alarm_timerfd, NULL);
}

int
main(void)
{
	struct sigaction sa = { .sa_sigaction = on_timer,
	    .sa_flags = SA_SIGINFO | SA_RESTART };

	CHECK_OK(sigaction(SIGUSR1, &sa, NULL));
	CHECK_OK(sigaction(SIGUSR2, &sa, NULL));
	CHECK_OK(sigaction(SIGALRM, &sa, NULL));
	check_thread_id();
	check_periodic();
	check_none_and_abstime();
	check_default_and_errors();
	check_clocks();
	check_overrun();
	return guest_done();
}
