/*
 * Process ids at the edge of an int: wait4 and kill with INT_MIN, whose
 * group id -INT_MIN no int holds, give ESRCH (after the options and the
 * signal number are checked), never an overflow; waitid with P_PGID and
 * INT_MIN gives EINVAL.  As root, the checks run again as uid 65534.
 *
 * Run with no arguments.
 */
#include <limits.h>
#include <sys/wait.h>

#include "guest.h"

static void
check_all(void)
{
	siginfo_t si;
	int st;

	CHECK_ERR(syscall(SYS_wait4, INT_MIN, &st, 0, NULL), ESRCH);
	CHECK_ERR(syscall(SYS_wait4, INT_MIN, &st, WNOHANG, NULL), ESRCH);
	CHECK_ERR(syscall(SYS_wait4, INT_MIN, &st, 0x10000000, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_wait4, INT_MIN + 1, &st, WNOHANG, NULL), ECHILD);
	CHECK_ERR(syscall(SYS_kill, INT_MIN, 0), ESRCH);
	CHECK_ERR(syscall(SYS_kill, INT_MIN, SIGKILL), ESRCH);
	CHECK_ERR(syscall(SYS_kill, INT_MIN, 65), ESRCH);
	CHECK_ERR(syscall(SYS_kill, INT_MIN + 1, 0), ESRCH);
	CHECK_ERR(syscall(SYS_waitid, P_PGID, INT_MIN, &si, WEXITED, NULL),
	    EINVAL);
	CHECK_ERR(syscall(SYS_waitid, P_PID, INT_MIN, &si, WEXITED, NULL),
	    EINVAL);
	CHECK_ERR(syscall(SYS_waitid, P_PID, 0, &si, WEXITED, NULL), EINVAL);
}

int
main(void)
{
	pid_t pid;
	int st = -1;

	check_all();
	if (getuid() == 0) {
		pid = fork();
		CHECK(pid >= 0, "fork");
		if (pid == 0) {
			if (CHECK_OK(setresuid(65534, 65534, 65534)))
				check_all();
			return guest_done();
		}
		CHECK_EQ(waitpid(pid, &st, 0), pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "as 65534: %#x",
		    st);
	}
	return guest_done();
}
