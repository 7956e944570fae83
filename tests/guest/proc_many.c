/*
 * Many processes at once: 1000 children forked one after another all
 * live together, each asleep in a read of a pipe, until the parent
 * closes the pipe's write end; each then exits with its number's low
 * byte, and the parent reaps every one and checks it.  Run as root and
 * again as uid 65534.
 */
#include <stdlib.h>

#include "guest.h"

#define NCHILD 1000

static void
tests(void)
{
	static pid_t pids[NCHILD];
	int pipefd[2], n = 0, bad = 0;
	char c;

	if (!CHECK(pipe(pipefd) == 0, "pipe"))
		return;
	for (; n < NCHILD; n++) {
		pids[n] = fork();
		if (pids[n] == 0) {
			close(pipefd[1]);
			_exit(read(pipefd[0], &c, 1) == 0 ? n & 0xff : 255);
		}
		if (pids[n] < 0)
			break;
	}
	CHECK(n == NCHILD, "fork %d of %d (errno %d)", n, NCHILD, errno);
	close(pipefd[0]);
	close(pipefd[1]);
	for (int i = 0; i < n; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != (i & 0xff))
			bad++;
	}
	CHECK(bad == 0, "%d of %d children ended wrong", bad, n);
	CHECK_ERR(wait(NULL), ECHILD);
}

int
main(void)
{
	return guest_main_twice(tests);
}
