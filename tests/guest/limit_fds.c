/*
 * Under "vkernel run --fds N": each process starts with RLIMIT_NOFILE N
 * soft and hard, opens fail with EMFILE at it and work again after a
 * close; the sandbox's open files are bounded by N as well, so that a
 * child (or root, who may raise its limit) gets ENFILE while its parent
 * holds them, and an open works again once they are closed.
 *
 * usage: limit_fds N [nobody]
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "int_common.h"

/* Opens /dev/null until it fails; returns how many, the errno in *errp. */
static int
open_all(int *errp)
{
	int n = 0;

	for (;;) {
		int fd = open("/dev/null", O_RDONLY);

		if (fd < 0) {
			*errp = errno;
			return n;
		}
		n++;
	}
}

/* A child that holds nothing of its own still finds the sandbox full. */
static int
child_enfile(int n)
{
	int err = 0, got;

	for (int fd = 3; fd < n; fd++)
		close(fd);
	got = open_all(&err);
	return err == ENFILE && got < 8 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	struct rlimit rl;
	int n, r, err = 0, got, status;
	pid_t pid;

	if (argc < 2 || (n = atoi(argv[1])) < 16)
		return guest_skip("usage: limit_fds N [nobody], N >= 16");
	if ((r = int_drop_if_asked(argc - 1, argv + 1)) != 0)
		return r;
	CHECK_OK(getrlimit(RLIMIT_NOFILE, &rl));
	CHECK_EQ(rl.rlim_cur, (rlim_t)n);
	CHECK_EQ(rl.rlim_max, (rlim_t)n);

	/* EMFILE at the limit: fds 0 to N-1 in use. */
	got = open_all(&err);
	CHECK_EQ(err, EMFILE);
	CHECK_EQ(got, n - 3);
	CHECK_ERR(dup(0), EMFILE);
	close(n - 1);
	close(n - 2);
	CHECK_EQ(open("/dev/null", O_RDONLY), n - 2);

	/* ENFILE for a child while this process holds the files. */
	if ((pid = fork()) == 0)
		_exit(child_enfile(n));
	CHECK(pid > 0, "fork");
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the child's opens did not end in ENFILE (status %#x)", status);

	/* Root may raise its limit, but not the sandbox's. */
	if (geteuid() == 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)n * 4;
		CHECK_OK(setrlimit(RLIMIT_NOFILE, &rl));
		got = open_all(&err);
		CHECK_EQ(err, ENFILE);
		CHECK(got < 8, "%d opens past the sandbox's files", got);
	} else {
		rl.rlim_max = (rlim_t)n + 1;
		CHECK_ERR(setrlimit(RLIMIT_NOFILE, &rl), EPERM);
	}

	/* Closing makes room again. */
	for (int fd = 3; fd < n + 8; fd++)
		close(fd);
	CHECK_EQ(open("/dev/null", O_RDONLY), 3);
	return guest_done();
}
