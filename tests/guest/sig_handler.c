/*
 * Verifies signal delivery to handlers: raise, kill, tgkill and sigqueue run
 * the handler before they return, with the right siginfo and ucontext; the
 * handler's mask adds the signal (unless SA_NODEFER) and sa_mask, and is
 * undone after; SA_RESETHAND resets the handler but keeps the flags and
 * mask, and nested signals run
 * inside the handler or after it as the mask says.
 */
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

#include "sig_common.h"

extern char __executable_start[], etext[];

/* What the last SA_SIGINFO handler saw. */
static volatile struct {
	int		signo, code, value;
	long		pid, uid;
	uintptr_t	rip, rsp, local;
	uint64_t	ucmask;
	bool		has_uc;
} rec;
static volatile bool nest_raised, nest_self;
static uint64_t base;	/* The mask the tests run with. */

static void
on_info(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	volatile int local;

	hits[sig]++;
	rec.signo = si->si_signo;
	rec.code = si->si_code;
	rec.pid = si->si_pid;
	rec.uid = si->si_uid;
	rec.value = si->si_value.sival_int;
	rec.local = (uintptr_t)&local;
	rec.has_uc = uc != NULL;
	if (uc != NULL) {
		rec.rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
		rec.rsp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
		memcpy((void *)&rec.ucmask, &uc->uc_sigmask, 8);
	}
	push(sig);
}

/*
 * Pushes sig, raises SIGUSR2 (its own signal if nest_self) on its first call
 * after reset(), then pushes -sig.
 */
static void
on_nest(int sig)
{
	push(sig);
	if (!nest_raised) {
		nest_raised = true;
		raise(nest_self ? sig : SIGUSR2);
	}
	push(-sig);
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

static void
set_info(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_info;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(sig, &sa, NULL));
}

static void
reset(void)
{
	memset((void *)hits, 0, sizeof(hits));
	memset((void *)&rec, 0, sizeof(rec));
	norder = 0;
	nest_raised = nest_self = false;
}

static void
test_delivery(void)
{
	long pid = syscall(SYS_getpid), tid = syscall(SYS_gettid);

	reset();
	set_action(SIGUSR1, on_plain, 0, 0);
	set_action(SIGUSR2, on_plain, 0, 0);
	CHECK_OK(raise(SIGUSR1));
	CHECK_EQ(hits[SIGUSR1], 1);
	CHECK_OK(kill((pid_t)pid, SIGUSR1));
	CHECK_EQ(hits[SIGUSR1], 2);
	CHECK_OK(syscall(SYS_tgkill, pid, tid, SIGUSR2));
	CHECK_EQ(hits[SIGUSR2], 1);
	CHECK_EQ(hits[SIGUSR1], 2);
	CHECK(norder == 3 && order[0] == SIGUSR1 && order[1] == SIGUSR1 &&
	    order[2] == SIGUSR2, "handlers ran in call order");
	/* Signal 0 only checks that the process exists. */
	CHECK_OK(kill((pid_t)pid, 0));
	CHECK_EQ(norder, 3);
}

static void
test_siginfo(void)
{
	long pid = syscall(SYS_getpid), tid = syscall(SYS_gettid);
	long uid = syscall(SYS_getuid);
	volatile int here;

	reset();
	set_info(SIGUSR1);
	CHECK_OK(kill((pid_t)pid, SIGUSR1));
	CHECK_EQ(hits[SIGUSR1], 1);
	CHECK_EQ(rec.signo, SIGUSR1);
	CHECK_EQ(rec.code, SI_USER);
	CHECK_EQ(rec.pid, pid);
	CHECK_EQ(rec.uid, uid);
	if (CHECK(rec.has_uc, "ucontext pointer")) {
		CHECK(rec.rip >= (uintptr_t)__executable_start &&
		    rec.rip < (uintptr_t)etext, "RIP %#lx in the text",
		    (unsigned long)rec.rip);
		CHECK(rec.rsp < (uintptr_t)&here &&
		    rec.rsp > (uintptr_t)&here - 65536,
		    "RSP %#lx just below the caller's frame",
		    (unsigned long)rec.rsp);
		/* The frame goes below the red zone of the interrupted code. */
		CHECK(rec.local < rec.rsp - 128, "handler frame below RSP");
		CHECK_EQ(rec.ucmask, base);
	}

	CHECK_OK(syscall(SYS_tgkill, pid, tid, SIGUSR1));
	CHECK_EQ(rec.code, SI_TKILL);
	CHECK_EQ(rec.pid, pid);
	CHECK_EQ(rec.uid, uid);
	rec.code = 0;
	CHECK_OK(raise(SIGUSR1));
	CHECK_EQ(rec.code, SI_TKILL);

	CHECK_OK(sigqueue((pid_t)pid, SIGUSR1, (union sigval){ .sival_int =
	    4242 }));
	CHECK_EQ(rec.signo, SIGUSR1);
	CHECK_EQ(rec.code, SI_QUEUE);
	CHECK_EQ(rec.value, 4242);
	CHECK_EQ(rec.pid, pid);
	CHECK_EQ(hits[SIGUSR1], 4);
	CHECK_EQ(cur_mask(), base);
}

static void
test_handler_mask(void)
{
	pid_t pid = (pid_t)syscall(SYS_getpid);

	reset();
	set_action(SIGUSR1, on_plain, 0, 0);
	kill(pid, SIGUSR1);
	CHECK_EQ(mask_in[SIGUSR1], base | BIT(SIGUSR1));
	CHECK_EQ(cur_mask(), base);
	set_action(SIGUSR1, on_plain, SA_NODEFER, 0);
	kill(pid, SIGUSR1);
	CHECK_EQ(mask_in[SIGUSR1], base);
	set_action(SIGUSR1, on_plain, 0, SIGUSR2);
	kill(pid, SIGUSR1);
	CHECK_EQ(mask_in[SIGUSR1], base | BIT(SIGUSR1) | BIT(SIGUSR2));
	set_action(SIGUSR1, on_plain, SA_NODEFER, SIGUSR2);
	kill(pid, SIGUSR1);
	CHECK_EQ(mask_in[SIGUSR1], base | BIT(SIGUSR2));
	CHECK_EQ(cur_mask(), base);
	CHECK_EQ(hits[SIGUSR1], 4);
}

/* SIGURG's default action is to ignore it, so a second one is harmless. */
static void
test_resethand(void)
{
	struct sigaction old;

	reset();
	set_action(SIGURG, on_plain, SA_RESETHAND, 0);
	raise(SIGURG);
	CHECK_EQ(hits[SIGURG], 1);
	CHECK_EQ(mask_in[SIGURG], base | BIT(SIGURG));
	memset(&old, 0x55, sizeof(old));
	CHECK_OK(sigaction(SIGURG, NULL, &old));
	CHECK(old.sa_handler == SIG_DFL, "SA_RESETHAND left SIG_DFL");
	raise(SIGURG);
	CHECK_EQ(hits[SIGURG], 1);
	CHECK_EQ(pending(), 0);
}

/*
 * SA_RESETHAND resets the handler alone: an SA_SIGINFO handler gets its
 * siginfo, and the action keeps its flags and mask, as Linux's.
 */
static void
test_resethand_info(void)
{
	struct sigaction sa, old;

	reset();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_info;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	CHECK_OK(sigaction(SIGURG, &sa, NULL));
	CHECK_OK(sigqueue(getpid(), SIGURG, (union sigval){ .sival_int = 7 }));
	CHECK_EQ(hits[SIGURG], 1);
	CHECK_EQ(rec.signo, SIGURG);
	CHECK_EQ(rec.value, 7);
	memset(&old, 0x55, sizeof(old));
	CHECK_OK(sigaction(SIGURG, NULL, &old));
	CHECK(old.sa_handler == SIG_DFL, "SA_RESETHAND left SIG_DFL");
	CHECK_EQ(old.sa_flags & (SA_SIGINFO | SA_RESETHAND),
	    SA_SIGINFO | SA_RESETHAND);
	CHECK(sigismember(&old.sa_mask, SIGUSR2) == 1, "sa_mask kept");
}

static void
test_nested(void)
{
	reset();
	set_action(SIGUSR1, on_nest, 0, 0);
	set_action(SIGUSR2, on_plain, 0, 0);
	raise(SIGUSR1);
	CHECK(norder == 3 && order[0] == SIGUSR1 && order[1] == SIGUSR2 &&
	    order[2] == -SIGUSR1, "SIGUSR2 ran inside SIGUSR1's handler");
	CHECK_EQ(mask_in[SIGUSR2], base | BIT(SIGUSR1) | BIT(SIGUSR2));

	/* Raising its own signal: it waits for the handler to return. */
	reset();
	nest_self = true;
	raise(SIGUSR1);
	CHECK(norder == 4 && order[0] == SIGUSR1 && order[1] == -SIGUSR1 &&
	    order[2] == SIGUSR1 && order[3] == -SIGUSR1,
	    "a blocked signal waited for its handler to end (%d entries)",
	    norder);
	/* Unless SA_NODEFER: then it runs inside the handler. */
	reset();
	nest_self = true;
	set_action(SIGUSR1, on_nest, SA_NODEFER, 0);
	raise(SIGUSR1);
	CHECK(norder == 4 && order[0] == SIGUSR1 && order[1] == SIGUSR1 &&
	    order[2] == -SIGUSR1 && order[3] == -SIGUSR1,
	    "SA_NODEFER nested the handler (%d entries)", norder);
	CHECK_EQ(cur_mask(), base);
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
	test_delivery();
	test_siginfo();
	test_handler_mask();
	test_resethand();
	test_resethand_info();
	test_nested();
	return guest_done();
}
