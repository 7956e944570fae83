/*
 * sigcall: a host call that a signal noted before it enters returns
 * -EINTR without entering, including one that lands between the flag's
 * test and the syscall instruction, which a test-then-call would sleep
 * through.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host-linux/sigcall.h"

static volatile sig_atomic_t flag;
static volatile sig_atomic_t hits;

static void
note(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	flag = 1;
	if (sigcall_note(uc))
		hits++;
}

static void
catch_alarm(void)
{
	struct sigaction sa = { .sa_sigaction = note, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGALRM, &sa, NULL), 0);
}

/* SIGALRM in usec, then every usec if again (0 disarms). */
static void
alarm_in(long usec, bool again)
{
	struct itimerval it = {
		.it_interval = { 0, again ? usec : 0 },
		.it_value = { 0, usec },
	};

	cr_assert_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
}

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

Test(sigcall, a_flag_already_set_keeps_the_call_out)
{
	uint64_t one = 1, v = 0;
	int efd = eventfd(0, EFD_NONBLOCK);

	cr_assert_geq(efd, 0);
	flag = 1;
	cr_assert_eq(sigcall_raw(&flag, SYS_write, efd, (long)&one, 8, 0, 0),
	    -EINTR);
	flag = 0;
	cr_assert_eq(sigcall_raw(&flag, SYS_write, efd, (long)&one, 8, 0, 0),
	    8);
	cr_assert_eq(read(efd, &v, 8), 8);
	cr_assert_eq(v, 1, "the call with the flag set wrote");
}

/*
 * Signals every 10 us over a tight loop of writes: some land in the
 * window, and each of those must return -EINTR with nothing written.
 * The eventfd's count says how many writes entered.
 */
Test(sigcall, a_signal_in_the_window_keeps_the_call_out, .timeout = 60)
{
	uint64_t one = 1, v = 0, wrote = 0;
	int64_t end = now_ns() + 20 * 1000000000LL;
	int efd = eventfd(0, EFD_NONBLOCK);

	cr_assert_geq(efd, 0);
	catch_alarm();
	alarm_in(10, true);
	while (hits < 3 && now_ns() < end) {
		sig_atomic_t h = hits;
		long r;

		flag = 0;
		r = sigcall_raw(&flag, SYS_write, efd, (long)&one, 8, 0, 0);
		if (hits != h)
			cr_assert_eq(r, -EINTR,
			    "a write stopped in the window entered: %ld", r);
		else
			cr_assert(r == 8 || r == -EINTR, "write: %ld", r);
		wrote += r == 8;
	}
	alarm_in(0, false);
	cr_assert_gt(hits, 0, "no signal landed in the window in 20 s");
	cr_assert_eq(read(efd, &v, 8), 8);
	cr_assert_eq(v, wrote, "%llu writes entered, %llu returned 8",
	    (unsigned long long)v, (unsigned long long)wrote);
}

/*
 * A wait for a child that never changes state, with one signal each,
 * whenever it lands (before the test, in the window, during the wait):
 * each ends the wait, where one slept through would hang the test.
 */
Test(sigcall, a_blocking_wait_always_ends, .timeout = 60)
{
	int64_t end = now_ns() + 10 * 1000000000LL;
	pid_t child = fork();
	int st, n;

	cr_assert_geq(child, 0);
	if (child == 0) {
		for (;;)
			pause();
	}
	catch_alarm();
	for (n = 0; n < 20000 && now_ns() < end; n++) {
		long r;

		flag = 0;
		alarm_in(1 + n % 5, false);
		r = sigcall_raw(&flag, SYS_wait4, child, (long)&st, 0, 0, 0);
		if (r != -EINTR)
			kill(child, SIGKILL);
		cr_assert_eq(r, -EINTR, "wait4: %ld", r);
	}
	kill(child, SIGKILL);
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_log_info("%d waits, %d signals in the window", n, (int)hits);
}
