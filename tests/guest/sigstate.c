/*
 * Verifies signal state without delivering any signal: rt_sigaction stores
 * an action and gives it back as the old action (handler, known flags,
 * restorer, mask without SIGKILL and SIGSTOP), refuses to change SIGKILL and
 * SIGSTOP, and rt_sigprocmask blocks, unblocks and sets the mask the Linux
 * way, with EINVAL for bad signal numbers, bad "how" and a bad sigsetsize.
 *
 * Raw syscalls with the kernel's struct sigaction, because the libc wrappers
 * add SA_RESTORER, use their own sigset size and hide signals they reserve
 * (glibc and musl keep 32-34 for themselves).
 */
#include <signal.h>
#include <stdint.h>

#include "guest.h"

#ifndef SA_RESTORER
#define SA_RESTORER	0x04000000
#endif
/* Since Linux 5.11, a bit the kernel promises never to support. */
#define SA_UNSUPPORTED	0x00000400

/* The x86-64 kernel's struct sigaction: not the libc's, which differs. */
struct ksigaction {
	uintptr_t	handler;
	unsigned long	flags;
	uintptr_t	restorer;
	uint64_t	mask;
};

#define KSIGSET		sizeof(uint64_t)
#define BIT(sig)	((uint64_t)1 << ((sig) - 1))

static void
handler(int sig)
{
	(void)sig;
}

/* Never called: no signal is delivered; only its address is stored. */
static void
restorer(void)
{
}

static long
ksigaction(int sig, const struct ksigaction *act, struct ksigaction *old)
{
	return syscall(SYS_rt_sigaction, sig, act, old, KSIGSET);
}

static long
ksigmask(int how, const uint64_t *set, uint64_t *old)
{
	return syscall(SYS_rt_sigprocmask, how, set, old, KSIGSET);
}

static void
test_action_round_trip(void)
{
	struct ksigaction act, old, got, orig;
	const unsigned long flags = SA_RESTORER | SA_SIGINFO | SA_RESTART |
	    SA_NODEFER;

	memset(&orig, 0x55, sizeof(orig));
	if (!CHECK(ksigaction(SIGUSR1, NULL, &orig) == 0, "query SIGUSR1"))
		return;

	act.handler = (uintptr_t)handler;
	act.flags = flags;
	act.restorer = (uintptr_t)restorer;
	act.mask = BIT(SIGUSR2) | BIT(SIGKILL) | BIT(SIGSTOP) | BIT(40);
	memset(&old, 0x55, sizeof(old));
	CHECK_OK(ksigaction(SIGUSR1, &act, &old));
	CHECK(old.handler == orig.handler && old.mask == orig.mask,
	    "old action returned by the setting call");

	memset(&got, 0, sizeof(got));
	CHECK_OK(ksigaction(SIGUSR1, NULL, &got));
	CHECK(got.handler == (uintptr_t)handler, "handler %#lx", got.handler);
	CHECK(got.flags == flags, "flags %#lx, want %#lx", got.flags, flags);
	CHECK(got.restorer == (uintptr_t)restorer, "restorer %#lx",
	    got.restorer);
	/* SIGKILL and SIGSTOP cannot be blocked, so they leave the mask. */
	CHECK(got.mask == (BIT(SIGUSR2) | BIT(40)), "mask %#llx",
	    (unsigned long long)got.mask);

	/* Setting and getting in one call hands back the previous action. */
	act.handler = (uintptr_t)SIG_IGN;
	act.flags = SA_RESTORER;
	act.mask = 0;
	CHECK_OK(ksigaction(SIGUSR1, &act, &old));
	CHECK(old.handler == (uintptr_t)handler && old.flags == flags,
	    "previous action in oldact");
	CHECK_OK(ksigaction(SIGUSR1, NULL, &got));
	CHECK(got.handler == (uintptr_t)SIG_IGN, "SIG_IGN stored");

	/* Flag bits the kernel does not know are dropped, so callers see. */
	act.handler = (uintptr_t)handler;
	act.flags = SA_RESTORER | SA_UNSUPPORTED;
	CHECK_OK(ksigaction(SIGUSR1, &act, NULL));
	CHECK_OK(ksigaction(SIGUSR1, NULL, &got));
	CHECK(got.flags == SA_RESTORER, "SA_UNSUPPORTED dropped: %#lx",
	    got.flags);

	CHECK_OK(ksigaction(SIGUSR1, &orig, NULL));
	CHECK_OK(ksigaction(SIGUSR1, NULL, &got));
	CHECK(got.handler == orig.handler, "SIGUSR1 restored");
}

/* Every catchable signal keeps its own action. */
static void
test_action_table(void)
{
	static struct ksigaction saved[65];
	struct ksigaction act, got;
	int bad = 0;

	for (int sig = 1; sig <= 64; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (!CHECK(ksigaction(sig, NULL, &saved[sig]) == 0,
		    "query signal %d", sig))
			return;
		act.handler = (uintptr_t)handler;
		act.flags = SA_RESTORER | SA_RESTART;
		act.restorer = (uintptr_t)restorer;
		act.mask = (uint64_t)sig * 0x0101010101ULL & ~(BIT(SIGKILL) |
		    BIT(SIGSTOP));
		CHECK_OK(ksigaction(sig, &act, NULL));
	}
	for (int sig = 1; sig <= 64; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		memset(&got, 0, sizeof(got));
		ksigaction(sig, NULL, &got);
		if (got.handler != (uintptr_t)handler || got.mask !=
		    ((uint64_t)sig * 0x0101010101ULL & ~(BIT(SIGKILL) |
		    BIT(SIGSTOP))))
			bad++;
		CHECK_OK(ksigaction(sig, &saved[sig], NULL));
	}
	CHECK(bad == 0, "%d signals did not keep their own action", bad);
}

static void
test_action_errors(void)
{
	struct ksigaction act, got;

	memset(&act, 0, sizeof(act));
	act.handler = (uintptr_t)SIG_IGN;
	act.flags = SA_RESTORER;
	CHECK_ERR(ksigaction(SIGKILL, &act, NULL), EINVAL);
	CHECK_ERR(ksigaction(SIGSTOP, &act, NULL), EINVAL);
	/* Only changing them is refused; asking is fine. */
	CHECK_OK(ksigaction(SIGKILL, NULL, &got));
	CHECK(got.handler == (uintptr_t)SIG_DFL, "SIGKILL is SIG_DFL");
	CHECK_OK(ksigaction(SIGSTOP, NULL, &got));

	CHECK_ERR(ksigaction(0, &act, NULL), EINVAL);
	CHECK_ERR(ksigaction(0, NULL, &got), EINVAL);
	CHECK_ERR(ksigaction(65, &act, NULL), EINVAL);
	CHECK_ERR(ksigaction(-1, NULL, &got), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, &act, NULL, 4), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, NULL, &got, 16), EINVAL);
}

static void
test_mask(void)
{
	uint64_t orig, set, old, got;

	if (!CHECK(ksigmask(SIG_BLOCK, NULL, &orig) == 0, "query mask"))
		return;
	/* Whoever ran us may have blocked signals; start from a known mask. */
	set = 0;
	CHECK_OK(ksigmask(SIG_SETMASK, &set, NULL));

	set = BIT(SIGUSR1);
	old = ~0ULL;
	CHECK_OK(ksigmask(SIG_BLOCK, &set, &old));
	CHECK_EQ(old, 0);
	CHECK_OK(ksigmask(SIG_BLOCK, NULL, &got));
	CHECK_EQ(got, BIT(SIGUSR1));

	/* Blocking SIGKILL or SIGSTOP is silently ignored. */
	set = BIT(SIGKILL) | BIT(SIGSTOP) | BIT(SIGUSR2);
	CHECK_OK(ksigmask(SIG_BLOCK, &set, NULL));
	CHECK_OK(ksigmask(SIG_BLOCK, NULL, &got));
	CHECK_EQ(got, BIT(SIGUSR1) | BIT(SIGUSR2));

	set = BIT(SIGUSR1);
	CHECK_OK(ksigmask(SIG_UNBLOCK, &set, &old));
	CHECK_EQ(old, BIT(SIGUSR1) | BIT(SIGUSR2));
	CHECK_OK(ksigmask(SIG_BLOCK, NULL, &got));
	CHECK_EQ(got, BIT(SIGUSR2));

	/* SIG_SETMASK replaces the whole mask, real-time signals included. */
	set = BIT(SIGTERM) | BIT(35) | BIT(64) | BIT(SIGKILL);
	CHECK_OK(ksigmask(SIG_SETMASK, &set, NULL));
	CHECK_OK(ksigmask(SIG_SETMASK, NULL, &got));
	CHECK_EQ(got, BIT(SIGTERM) | BIT(35) | BIT(64));

	/* A bad "how" matters only when there is a set to apply. */
	CHECK_ERR(ksigmask(3, &set, NULL), EINVAL);
	CHECK_ERR(ksigmask(-1, &set, NULL), EINVAL);
	CHECK_OK(ksigmask(99, NULL, &got));
	CHECK_EQ(got, BIT(SIGTERM) | BIT(35) | BIT(64));
	CHECK_ERR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 4),
	    EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &got, 16),
	    EINVAL);
	/* A refused call changed nothing. */
	CHECK_OK(ksigmask(SIG_BLOCK, NULL, &got));
	CHECK_EQ(got, BIT(SIGTERM) | BIT(35) | BIT(64));

	CHECK_OK(ksigmask(SIG_SETMASK, &orig, NULL));
	CHECK_OK(ksigmask(SIG_BLOCK, NULL, &got));
	CHECK_EQ(got, orig);
}

int
main(void)
{
	test_action_round_trip();
	test_action_table();
	test_action_errors();
	test_mask();
	return guest_done();
}
