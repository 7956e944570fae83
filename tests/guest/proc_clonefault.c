/*
 * A raw clone whose pointers are garbage still makes a child: with
 * CLONE_PARENT_SETTID at an unmapped address, a stack that is neither
 * mapped nor aligned, a child_tid nobody asked to use and an exit signal
 * other than SIGCHLD, with or without CLONE_VM (and CLONE_VFORK), Linux
 * creates the child, ignores the failed store of its tid and returns the
 * pid.  The child here exits at once, in assembly, before it touches its
 * stack.  The parent then kills it (every other
 * round) and waits: the child is reaped whether it had exited or was
 * killed, and the parent is never left waiting for ever.  As root, the
 * rounds run again in a child that dropped to uid 65534.
 *
 * Run with no arguments.
 */
#include <sched.h>
#include <sys/wait.h>

#include "guest.h"

#define TOP_BELOW	0x7ffffff00010UL	/* unmapped, just below the top */

/*
 * clone(flags, stack, parent_tid, child_tid, tls); the child makes
 * exit(0) at once without using the stack it was given.
 */
static long
raw_clone(unsigned long flags, unsigned long stack, unsigned long ptid,
    unsigned long ctid, unsigned long tls)
{
	register unsigned long r10 __asm__("r10") = ctid;
	register unsigned long r8 __asm__("r8") = tls;
	long ret;

	__asm__ volatile(
	    "syscall\n\t"
	    "test %%rax, %%rax\n\t"
	    "jnz 1f\n\t"
	    "mov $60, %%eax\n\t"
	    "xor %%edi, %%edi\n\t"
	    "syscall\n\t"
	    "1:"
	    : "=a"(ret)
	    : "0"((long)SYS_clone), "D"(flags), "S"(stack), "d"(ptid),
	    "r"(r10), "r"(r8)
	    : "rcx", "r11", "memory");
	return ret;
}

static void
check_one(unsigned long flags, unsigned long ptid, bool killall)
{
	unsigned char junk[64];
	int st = -1;
	long pid;

	/* The stack is far from any mapping, and unaligned. */
	pid = raw_clone(flags, 0x7f4e299a2f73UL, ptid, (unsigned long)junk + 4,
	    0x1000);
	if (!CHECK(pid > 0, "clone(%#lx) gave %ld", flags, pid))
		return;
	if (killall) {
		(void)kill((pid_t)pid, SIGKILL);
	}
	CHECK_EQ(waitpid((pid_t)pid, &st, __WALL), (pid_t)pid);
	CHECK(WIFEXITED(st) ? WEXITSTATUS(st) == 0 :
	    WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status %#x", st);
}

static void
on_trap(int sig)
{
	(void)sig;
}

int
main(void)
{
	static const unsigned long flags[] = {
		CLONE_PARENT_SETTID | SIGTRAP,
		CLONE_PARENT_SETTID | SIGCHLD,
		CLONE_PARENT_SETTID | CLONE_CHILD_SETTID | SIGTRAP,
		CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | SIGTRAP,
		CLONE_PARENT_SETTID,
		CLONE_VM | CLONE_PARENT_SETTID | SIGTRAP,
		CLONE_VM | CLONE_VFORK | CLONE_PARENT_SETTID | SIGCHLD,
	};
	static const unsigned long ptids[] = { TOP_BELOW, 8, ~0UL };
	int i, j, round;
	pid_t user = -1;
	int st = -1;

	/* SIGTRAP is the exit signal of most: it must not kill this parent. */
	signal(SIGTRAP, on_trap);
	if (getuid() == 0) {
		user = fork();
		CHECK(user >= 0, "fork");
		if (user == 0)
			CHECK_OK(setresuid(65534, 65534, 65534));
	}
	for (round = 0; round < 20; round++)
		for (i = 0; i < (int)(sizeof(flags) / sizeof(flags[0])); i++)
			for (j = 0; j < 3; j++)
				check_one(flags[i], ptids[j], round & 1);
	if (user > 0) {
		CHECK_EQ(waitpid(user, &st, 0), user);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "as 65534: %#x",
		    st);
	}
	return guest_done();
}
