/*
 * Verifies alarm(2): it returns the seconds left of the previous alarm, and
 * its SIGALRM (si_code SI_KERNEL) interrupts a 5 s nanosleep after about a
 * second with EINTR and the time left, even with SA_RESTART, and ends a
 * sigsuspend that unblocks it.
 */
#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "guest.h"

#define BIT(sig)	((uint64_t)1 << ((sig) - 1))
#define NSEC		1000000000LL

static volatile int hits, code;

static void
on_alrm(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGALRM)
		hits++;
	code = si->si_code;
}

static int64_t
now_ns(void)
{
	struct timespec ts = { 0, 0 };

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC + ts.tv_nsec;
}

static void
set_action(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_alrm;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(SIGALRM, &sa, NULL));
}

static void
test_remaining(void)
{
	CHECK_EQ(syscall(SYS_alarm, 0), 0);
	CHECK_EQ(syscall(SYS_alarm, 10), 0);
	/* Rounded to the nearest second, so just set it is still 10. */
	CHECK_EQ(syscall(SYS_alarm, 1), 10);
	CHECK_EQ(syscall(SYS_alarm, 0), 1);
	CHECK_EQ(syscall(SYS_alarm, 0), 0);
	CHECK_EQ(hits, 0);
}

static void
sleep_interrupted(int flags)
{
	struct timespec req = { 5, 0 }, rem = { -1, -1 };
	int64_t t0, dt;

	set_action(flags);
	hits = 0;
	code = 0;
	CHECK_EQ(syscall(SYS_alarm, 1), 0);
	t0 = now_ns();
	CHECK_ERR(syscall(SYS_nanosleep, &req, &rem), EINTR);
	dt = now_ns() - t0;
	CHECK_EQ(hits, 1);
	CHECK_EQ(code, SI_KERNEL);
	CHECK(dt > NSEC / 2 && dt < 3 * NSEC, "slept %lld ms, want about 1 s",
	    (long long)(dt / 1000000));
	CHECK(rem.tv_sec >= 3 && rem.tv_sec < 5 && rem.tv_nsec >= 0 &&
	    rem.tv_nsec < NSEC, "time left %lld.%09ld s, want about 4 s",
	    (long long)rem.tv_sec, rem.tv_nsec);
	/* The alarm is spent. */
	CHECK_EQ(syscall(SYS_alarm, 0), 0);
}

static void
test_sigsuspend(void)
{
	uint64_t block = BIT(SIGALRM), none = 0, got = 0;

	set_action(0);
	hits = 0;
	CHECK_OK(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &block, NULL, 8));
	CHECK_EQ(syscall(SYS_alarm, 1), 0);
	CHECK_ERR(syscall(SYS_rt_sigsuspend, &none, 8), EINTR);
	CHECK_EQ(hits, 1);
	CHECK_OK(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &got, 8));
	CHECK_EQ(got, BIT(SIGALRM));
	CHECK_OK(syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, 8));
}

int
main(void)
{
	CHECK_OK(syscall(SYS_rt_sigprocmask, SIG_SETMASK, &(uint64_t){ 0 },
	    NULL, 8));
	set_action(0);
	test_remaining();
	sleep_interrupted(0);
	/* nanosleep is never restarted after a handler, SA_RESTART or not. */
	sleep_interrupted(SA_RESTART);
	test_sigsuspend();
	return guest_done();
}
