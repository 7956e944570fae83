/*
 * Verifies pending signals: a blocked signal waits in sigpending and its
 * handler runs as soon as sigprocmask unblocks it; a standard signal is
 * pending once per pending set, real-time ones queue with their values and
 * go lowest number first; sigsuspend and sigtimedwait take pending signals;
 * ignored signals are dropped when delivered, and setting SIG_IGN drops a
 * pending one.
 */
#include <signal.h>
#include <stdint.h>

#include "sig_common.h"

static uint64_t base;	/* The mask the tests run with. */

/* Pushes signo * 100 + the value sigqueue sent. */
static void
on_info(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	hits[sig]++;
	push(sig * 100 + si->si_value.sival_int);
}

static void
set_action(int sig, void (*fn)(int), int flags, int also)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (also != 0)
		sigaddset(&sa.sa_mask, also);
	CHECK_OK(sigaction(sig, &sa, NULL));
}

/* An SA_SIGINFO action for on_info, also blocking the signals in extra. */
static void
set_info(int sig, uint64_t extra)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_info;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (int s = 1; s <= 64; s++)
		if (extra & BIT(s))
			sigaddset(&sa.sa_mask, s);
	CHECK_OK(sigaction(sig, &sa, NULL));
}

static void
reset(void)
{
	memset((void *)hits, 0, sizeof(hits));
	norder = 0;
}

static void
test_pending(void)
{
	pid_t pid = (pid_t)syscall(SYS_getpid);

	reset();
	set_action(SIGUSR1, on_plain, 0, 0);
	set_mask(SIG_BLOCK, BIT(SIGUSR1));
	kill(pid, SIGUSR1);
	kill(pid, SIGUSR1);
	CHECK_EQ(hits[SIGUSR1], 0);
	CHECK_EQ(pending(), BIT(SIGUSR1));
	/* A standard signal is pending once, however often it is sent. */
	set_mask(SIG_UNBLOCK, BIT(SIGUSR1));
	CHECK_EQ(hits[SIGUSR1], 1);
	CHECK_EQ(mask_in[SIGUSR1], base | BIT(SIGUSR1));
	CHECK_EQ(pending(), 0);
	/*
	 * But once per pending set: kill() queues for the process, raise()
	 * (tgkill) for the thread, and each set keeps its own.
	 */
	set_mask(SIG_BLOCK, BIT(SIGUSR1));
	kill(pid, SIGUSR1);
	raise(SIGUSR1);
	raise(SIGUSR1);
	CHECK_EQ(pending(), BIT(SIGUSR1));
	set_mask(SIG_UNBLOCK, BIT(SIGUSR1));
	CHECK_EQ(hits[SIGUSR1], 3);
}

static void
test_rt_queue(void)
{
	pid_t pid = (pid_t)syscall(SYS_getpid);
	uint64_t rt;

	/*
	 * Real-time signals queue, and go lowest number first, each in the
	 * order sent.  Each handler blocks both, so that none nests.
	 */
	reset();
	rt = BIT(SIGRTMIN + 1) | BIT(SIGRTMIN + 2);
	set_info(SIGRTMIN + 2, rt);
	set_info(SIGRTMIN + 1, rt);
	set_mask(SIG_BLOCK, rt);
	for (int i = 1; i <= 3; i++) {
		sigqueue(pid, SIGRTMIN + 2, (union sigval){ .sival_int = i });
		sigqueue(pid, SIGRTMIN + 1, (union sigval){ .sival_int = i });
	}
	CHECK_EQ(pending(), BIT(SIGRTMIN + 1) | BIT(SIGRTMIN + 2));
	set_mask(SIG_SETMASK, base);
	CHECK_EQ(hits[SIGRTMIN + 1], 3);
	CHECK_EQ(hits[SIGRTMIN + 2], 3);
	CHECK_EQ(norder, 6);
	for (int i = 0; i < norder && i < 6; i++) {
		int want = (SIGRTMIN + 1 + i / 3) * 100 + i % 3 + 1;

		CHECK(order[i] == want, "delivery %d: signo * 100 + value %d, "
		    "want %d", i, order[i], want);
	}
	CHECK_EQ(pending(), 0);
}

static void
test_wait(void)
{
	struct timespec zero = { 0, 0 };
	siginfo_t si;
	pid_t pid = (pid_t)syscall(SYS_getpid);

	/* sigsuspend takes a pending signal at once and restores the mask. */
	reset();
	set_mask(SIG_BLOCK, BIT(SIGUSR1));
	raise(SIGUSR1);
	CHECK_ERR(syscall(SYS_rt_sigsuspend, &base, 8), EINTR);
	CHECK_EQ(hits[SIGUSR1], 1);
	CHECK_EQ(mask_in[SIGUSR1], base | BIT(SIGUSR1));
	CHECK_EQ(cur_mask(), base | BIT(SIGUSR1));

	/* sigtimedwait takes a blocked pending signal without the handler. */
	reset();
	kill(pid, SIGUSR1);
	memset(&si, 0, sizeof(si));
	CHECK_EQ(syscall(SYS_rt_sigtimedwait, &(uint64_t){ BIT(SIGUSR1) }, &si,
	    &zero, 8), SIGUSR1);
	CHECK_EQ(si.si_signo, SIGUSR1);
	CHECK_EQ(si.si_code, SI_USER);
	CHECK_EQ(si.si_pid, pid);
	CHECK_EQ(hits[SIGUSR1], 0);
	CHECK_EQ(pending(), 0);
	/* Nothing pending and a zero timeout: EAGAIN at once. */
	CHECK_ERR(syscall(SYS_rt_sigtimedwait, &(uint64_t){ BIT(SIGUSR1) },
	    &si, &zero, 8), EAGAIN);
	CHECK_ERR(syscall(SYS_rt_sigtimedwait, &(uint64_t){ BIT(SIGUSR1) },
	    &si, &zero, 4), EINVAL);
	set_mask(SIG_SETMASK, base);
	CHECK_EQ(hits[SIGUSR1], 0);
}

static void
test_ignore(void)
{
	reset();
	set_action(SIGUSR1, SIG_IGN, 0, 0);
	raise(SIGUSR1);
	CHECK_EQ(pending(), 0);
	/* Blocked signals are never dropped on sending, only on delivery. */
	set_mask(SIG_BLOCK, BIT(SIGUSR1));
	raise(SIGUSR1);
	CHECK_EQ(pending(), BIT(SIGUSR1));
	set_mask(SIG_UNBLOCK, BIT(SIGUSR1));
	CHECK_EQ(pending(), 0);
	/* Setting SIG_IGN discards a pending signal. */
	set_action(SIGUSR1, on_plain, 0, 0);
	set_mask(SIG_BLOCK, BIT(SIGUSR1));
	raise(SIGUSR1);
	CHECK_EQ(pending(), BIT(SIGUSR1));
	set_action(SIGUSR1, SIG_IGN, 0, 0);
	CHECK_EQ(pending(), 0);
	set_action(SIGUSR1, on_plain, 0, 0);
	set_mask(SIG_UNBLOCK, BIT(SIGUSR1));
	CHECK_EQ(hits[SIGUSR1], 0);
	/* SIG_DFL for a signal whose default is to ignore it drops it too. */
	set_action(SIGCHLD, SIG_DFL, 0, 0);
	raise(SIGCHLD);
	CHECK_EQ(pending(), 0);
	CHECK_EQ(norder, 0);
}

int
main(void)
{
	/*
	 * A known mask that is not empty, so that a lost one shows, with a
	 * signal no one sends (a terminal may send SIGWINCH).
	 */
	base = BIT(SIGPWR);
	set_mask(SIG_SETMASK, base);
	test_pending();
	test_rt_queue();
	test_wait();
	test_ignore();
	return guest_done();
}
