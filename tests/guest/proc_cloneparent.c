/*
 * clone(CLONE_PARENT) and clone3 with it make a sibling of the caller:
 * its parent is the caller's parent, which waits for it (the caller gets
 * ECHILD) and is told of its end by the caller's own exit signal, not by
 * the one clone was given (clone3 refuses one: EINVAL).
 */
#include <sched.h>
#include <sys/wait.h>

#include "guest.h"

/* A fork-like clone: the child returns 0 on the same stack. */
static long
clone_flags(unsigned long flags)
{
	return syscall(SYS_clone, flags, 0, NULL, NULL, 0);
}

static long
clone3_flags(unsigned long long flags, int exit_signal)
{
	/* struct clone_args, CLONE_ARGS_SIZE_VER0 (musl has no linux/). */
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
		uint64_t stack, stack_size, tls;
	} ca = { .flags = flags, .exit_signal = (uint64_t)exit_signal };

	return syscall(SYS_clone3, &ca, sizeof(ca));
}

/*
 * The middle process: makes a sibling with CLONE_PARENT and SIGUSR1 as
 * its would-be exit signal, reports its pid and its parent on fd w.
 * Exit 0 when all is right.
 */
static int
middle(int w, bool use_clone3)
{
	pid_t me = getpid(), parent = getppid(), sib;
	int st, bad = 0;

	/* clone3 takes no exit signal with CLONE_PARENT at all. */
	if (use_clone3 && (clone3_flags(CLONE_PARENT, SIGUSR1) != -1 ||
	    errno != EINVAL))
		return 4;
	sib = (pid_t)(use_clone3 ? clone3_flags(CLONE_PARENT, 0) :
	    clone_flags(CLONE_PARENT | SIGUSR1));
	if (sib == 0)
		_exit(getppid() == parent && getppid() != me ? 42 : 1);
	if (sib < 0)
		return 2;
	bad |= waitpid(sib, &st, 0) != -1 || errno != ECHILD;
	bad |= write(w, &sib, sizeof(sib)) != (ssize_t)sizeof(sib);
	return bad ? 3 : 0;
}

static void
check_sibling(bool use_clone3)
{
	sigset_t set, pend;
	pid_t mid, sib = 0;
	int p[2], st;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGCHLD);
	CHECK_OK(sigprocmask(SIG_BLOCK, &set, NULL));
	CHECK_OK(pipe(p));
	mid = fork();
	if (mid == 0)
		_exit(middle(p[1], use_clone3));
	close(p[1]);
	CHECK_EQ(waitpid(mid, &st, 0), mid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "middle: status %#x", st);
	CHECK_EQ(read(p[0], &sib, sizeof(sib)), (ssize_t)sizeof(sib));
	CHECK_EQ(waitpid(sib, &st, 0), sib);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42, "sibling: status %#x",
	    st);
	CHECK_OK(sigpending(&pend));
	CHECK(sigismember(&pend, SIGCHLD) == 1, "SIGCHLD came");
	CHECK(sigismember(&pend, SIGUSR1) == 0, "SIGUSR1 came");
	signal(SIGUSR1, SIG_IGN);
	signal(SIGCHLD, SIG_IGN);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	CHECK_OK(sigprocmask(SIG_UNBLOCK, &set, NULL));
	close(p[0]);
}

static void
tests(void)
{
	check_sibling(false);
	check_sibling(true);
}

int
main(void)
{
	return guest_main_twice(tests);
}
