/*
 * execve with no argv (NULL, or an empty array) gives the program argc 1
 * and an empty argv[0], as Linux 5.18 and later do, so that code that
 * takes argv[1] for the first argument finds NULL there.
 */
#include <stdlib.h>
#include <sys/wait.h>

#include "guest.h"

/* Run again with no argv at all; the new image checks what it got. */
static void
check_empty_argv(const char *self)
{
	char *const envp[] = { "GUEST_EMPTY_ARGV=1", NULL };
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		syscall(SYS_execve, self, NULL, envp);
		_exit(2);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exec with no argv: "
	    "status %#x", st);
	pid = fork();
	if (pid == 0) {
		char *const none[] = { NULL };

		execve(self, none, envp);
		_exit(2);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exec with argv {NULL}: "
	    "status %#x", st);
}

static void
tests(void)
{
	check_empty_argv("/proc/self/exe");
}

int
main(int argc, char **argv)
{
	const char *e = getenv("GUEST_EMPTY_ARGV");

	if (e != NULL && strcmp(e, "1") == 0)
		return argc == 1 && argv[0] != NULL && argv[0][0] == '\0' &&
		    argv[1] == NULL ? 0 : 1;
	return guest_main_twice(tests);
}
