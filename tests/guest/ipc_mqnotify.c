/*
 * Verifies that an mq_notify registration ends as Linux ends it: when
 * its process closes any descriptor of the queue (a dup, another open of
 * it, one dup2 replaces), and when it exits; a close by another process,
 * or of another file, leaves it.  As guest root and as a user.
 */
#include <mqueue.h>
#include <stdlib.h>

#include "guest.h"

static char qname[64];

static long
mqopen(int oflag)
{
	return syscall(SYS_mq_open, qname, oflag, 0600, NULL);
}

/* The NOTIFY_PID the queue's descriptor reads, or -1. */
static long
notify_pid(long fd)
{
	char line[128];
	const char *s;

	memset(line, 0, sizeof(line));
	if (lseek((int)fd, 0, SEEK_SET) != 0 ||
	    read((int)fd, line, sizeof(line) - 1) <= 0 ||
	    (s = strstr(line, "NOTIFY_PID:")) == NULL)
		return -1;
	return strtol(s + 11, NULL, 10);
}

static void
reg(long fd)
{
	struct sigevent ev = { .sigev_notify = SIGEV_NONE };

	CHECK_OK(syscall(SYS_mq_notify, fd, &ev));
	CHECK_EQ(notify_pid(fd), getpid());
}

/* The registering process's own closes. */
static void
test_own_close(long fd)
{
	long fd2, other;

	reg(fd);
	fd2 = CHECK_OK(dup((int)fd));
	CHECK_OK(close((int)fd2));
	CHECK_EQ(notify_pid(fd), 0);

	reg(fd);
	fd2 = CHECK_OK(mqopen(O_RDONLY));
	CHECK_OK(close((int)fd2));
	CHECK_EQ(notify_pid(fd), 0);

	reg(fd);
	fd2 = CHECK_OK(dup((int)fd));
	other = CHECK_OK(open("/dev/null", O_RDONLY));
	CHECK_EQ(dup2((int)other, (int)fd2), fd2);
	CHECK_EQ(notify_pid(fd), 0);
	close((int)fd2);

	/* Another file's close is nothing to the queue. */
	reg(fd);
	CHECK_OK(close((int)other));
	CHECK_EQ(notify_pid(fd), getpid());
	CHECK_OK(syscall(SYS_mq_notify, fd, NULL));
	CHECK_EQ(notify_pid(fd), 0);
}

/* Closes by others, and the registering process's exit. */
static void
test_other_close(long fd)
{
	struct sigevent ev = { .sigev_notify = SIGEV_NONE };
	int go[2], ready[2], st;
	long fd2;
	pid_t pid;
	char c = 0;

	/* A child's close of its copy leaves its parent's registration. */
	reg(fd);
	if ((pid = fork()) == 0)
		_exit(close((int)fd) == 0 ? 0 : 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	CHECK_EQ(notify_pid(fd), getpid());
	CHECK_OK(syscall(SYS_mq_notify, fd, NULL));

	/* And the parent's close leaves the child's, until it exits. */
	CHECK_OK(pipe(go));
	CHECK_OK(pipe(ready));
	if ((pid = fork()) == 0) {
		close(go[1]);
		if (syscall(SYS_mq_notify, fd, &ev) != 0 ||
		    write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	CHECK_EQ(read(ready[0], &c, 1), 1);
	CHECK_EQ(notify_pid(fd), pid);
	fd2 = CHECK_OK(dup((int)fd));
	CHECK_OK(close((int)fd2));
	CHECK_EQ(notify_pid(fd), pid);
	close(go[1]);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(st, 0);
	CHECK_EQ(notify_pid(fd), 0);
	close(ready[0]);
}

static void
tests(void)
{
	long fd;

	snprintf(qname, sizeof(qname), "vk_mqnotify_%d", (int)getpid());
	syscall(SYS_mq_unlink, qname);
	fd = CHECK_OK(mqopen(O_RDWR | O_CREAT | O_EXCL));
	if (fd < 0)
		return;
	test_own_close(fd);
	test_other_close(fd);
	close((int)fd);
	CHECK_OK(syscall(SYS_mq_unlink, qname));
}

int
main(void)
{
	return guest_main_twice(tests);
}
