/*
 * ETXTBSY: a running program may not be opened for writing or truncated,
 * and a file open for writing may not be run.  A copy of this program in
 * /tmp is the file under test; run with "hold FD" it writes one byte to
 * FD and waits for its stdin to reach end of file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

static int
copy_self(const char *to)
{
	char buf[65536];
	int in = open("/proc/self/exe", O_RDONLY), out;
	ssize_t n;

	if (in < 0)
		return -1;
	if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755)) < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	close(in);
	close(out);
	return n < 0 ? -1 : 0;
}

/* A child runs path; its exit status is execve's errno if it fails. */
static int
exec_errno(const char *path)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		execl(path, path, "exit", (char *)NULL);
		_exit(errno);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void
test_txtbsy(const char *path)
{
	int w, ready[2], hold[2], st;
	pid_t pid;
	char c;

	CHECK_ERR(open("/proc/self/exe", O_WRONLY), ETXTBSY);
	CHECK_OK(copy_self(path));
	w = (int)CHECK_OK(open(path, O_WRONLY));
	CHECK_EQ(exec_errno(path), ETXTBSY);
	close(w);
	CHECK_EQ(exec_errno(path), 0);

	CHECK_OK(pipe(ready));
	CHECK_OK(pipe(hold));
	if ((pid = fork()) == 0) {
		char fd[16];

		dup2(hold[0], 0);
		close(hold[1]);
		snprintf(fd, sizeof(fd), "%d", ready[1]);
		execl(path, path, "hold", fd, (char *)NULL);
		_exit(127);
	}
	close(hold[0]);
	close(ready[1]);
	CHECK_EQ(read(ready[0], &c, 1), 1);
	CHECK_ERR(open(path, O_WRONLY), ETXTBSY);
	CHECK_ERR(open(path, O_RDWR), ETXTBSY);
	CHECK_ERR(open(path, O_RDONLY | O_TRUNC), ETXTBSY);
	CHECK_ERR(truncate(path, 0), ETXTBSY);
	w = (int)CHECK_OK(open(path, O_RDONLY));
	close(w);
	close(hold[1]);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "holder status %#x", st);
	close(ready[0]);
	/* Once no image runs it, it may be written again. */
	w = (int)CHECK_OK(open(path, O_WRONLY));
	close(w);
	CHECK_OK(unlink(path));
}

int
main(int argc, char **argv)
{
	char path[64], c;

	if (argc > 1 && strcmp(argv[1], "exit") == 0)
		return 0;
	if (argc > 2 && strcmp(argv[1], "hold") == 0) {
		if (write(atoi(argv[2]), "r", 1) != 1)
			return 1;
		while (read(0, &c, 1) > 0)
			;
		return 0;
	}
	snprintf(path, sizeof(path), "/tmp/vk-txtbsy-%d", (int)getpid());
	test_txtbsy(path);
	return guest_done();
}
