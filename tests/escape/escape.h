/*
 * What the escape programs share: each runs its attacks once as the user
 * it starts as and once more in a child that drops to uid 65534, so that
 * both a guest root and an unprivileged guest user try them.
 */
#ifndef ESCAPE_H
#define ESCAPE_H

#include <sys/resource.h>
#include <sys/wait.h>

#include "../guest/guest.h"

/*
 * Runs tests() as the caller, then in a child as uid and gid 65534, and
 * returns what main() should: 0 if every check passed in both.  Core
 * dumps are off, so that whole wait statuses can be compared.  The
 * summary names the program's file.
 */
#define escape_main(tests)	escape_main_((tests), __FILE__)

static inline int
escape_main_(void (*tests)(void), const char *file)
{
	struct rlimit nocore = { 0, 0 };
	pid_t pid;
	int st = 0;

	CHECK_OK(setrlimit(RLIMIT_CORE, &nocore));
	tests();
	pid = fork();
	if (pid == 0) {
		if (syscall(SYS_setresgid, 65534, 65534, 65534) < 0 ||
		    syscall(SYS_setresuid, 65534, 65534, 65534) < 0)
			_exit(77);
		tests();
		_exit(guest_done_(file));
	}
	CHECK(pid > 0, "fork");
	if (pid > 0 && waitpid(pid, &st, 0) == pid) {
		if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
			guest_note("skip: not allowed to switch to uid 65534");
		else
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			    "as uid 65534: status %#x", st);
	}
	return guest_done_(file);
}

#endif
