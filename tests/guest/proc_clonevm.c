/*
 * A child made by clone with CLONE_VM but not CLONE_THREAD is a process
 * of its own that uses its parent's memory: its stores, its mmaps and its
 * private futexes are the parent's; a CLONE_VFORK parent sees the child's
 * stores as soon as clone returns; posix_spawn reports a missing program
 * as ENOENT, which its child hands back through that memory; execve in
 * the child leaves the parent's memory alone; the memory outlives a
 * parent that exits first; /proc/PID/maps of the child shows the map.
 *
 * Run with no arguments.  "exit7" is the program the spawning checks run.
 */
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "thr_common.h"

#define STACK_SIZE (64 * 1024)

extern char **environ;

static char *self_path;
static char stack[STACK_SIZE] __attribute__((aligned(16)));
static volatile int word;
static volatile int ready;
static void *volatile child_page;

static pid_t
clone_vm(int (*fn)(void *), unsigned long flags)
{
	return clone(fn, stack + STACK_SIZE, (int)flags | CLONE_VM | SIGCHLD,
	    NULL);
}

static int
wait_status(pid_t pid)
{
	int st = -1;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static long
futex(volatile int *w, int op, int val, const struct timespec *ts)
{
	return syscall(SYS_futex, w, op, val, ts, NULL, 0);
}

static int
store_main(void *arg)
{
	(void)arg;
	word = (int)syscall(SYS_getpid);
	return 0;
}

static void
check_store(void)
{
	pid_t pid;
	int st;

	word = 0;
	pid = clone_vm(store_main, 0);
	CHECK(pid > 0, "clone(CLONE_VM)");
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	CHECK_EQ(word, pid);
	CHECK(pid != getpid(), "the child has its own pid");
}

static void
check_vfork_store(void)
{
	pid_t pid;
	int st;

	word = 0;
	pid = clone_vm(store_main, CLONE_VFORK);
	/* The parent resumed only once the child exited: its store is here. */
	CHECK_EQ(word, pid);
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}

static void
check_posix_spawn(void)
{
	char *missing[] = { "x", NULL };
	char *self[] = { self_path, "exit7", NULL };
	pid_t pid = -1;
	int st;

	CHECK_EQ(posix_spawn(&pid, "/nonexistent/x", NULL, NULL, missing,
	    environ), ENOENT);
	CHECK_EQ(posix_spawn(&pid, self_path, NULL, NULL, self, environ), 0);
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %#x", st);
}

static void
check_vfork_exec(void)
{
	static volatile int child_errno;
	char *argv[] = { "x", NULL };
	pid_t pid;
	int st;

	child_errno = 0;
	pid = vfork();
	if (pid == 0) {
		execve("/nonexistent/x", argv, environ);
		child_errno = errno;
		_exit(127);
	}
	CHECK(pid > 0, "vfork");
	CHECK_EQ(child_errno, ENOENT);
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 127, "status %#x", st);
}

static int
mmap_main(void *arg)
{
	void *p = mmap(NULL, GUEST_PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	if (p == MAP_FAILED)
		return 1;
	memcpy(p, "from the child", 15);
	child_page = p;
	return 0;
}

static void
check_mmap(void)
{
	pid_t pid;
	int st;

	child_page = NULL;
	pid = clone_vm(mmap_main, 0);
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	CHECK(child_page != NULL, "the child's mmap");
	if (child_page != NULL) {
		CHECK(strcmp(child_page, "from the child") == 0,
		    "the parent reads the child's page");
		CHECK_OK(munmap(child_page, GUEST_PAGE));
	}
}

static int
futex_main(void *arg)
{
	struct timespec ts = { 10, 0 };
	long r;

	(void)arg;
	ready = 1;
	r = futex(&word, FUTEX_WAIT_PRIVATE, 0, &ts);
	return r == 0 ? 0 : 1;
}

/* A private futex word is one word for the parent and the child. */
static void
check_private_futex(void)
{
	struct timespec nap = { 0, 1000000 };
	long woken = 0;
	pid_t pid;
	int st;

	word = 0;
	ready = 0;
	pid = clone_vm(futex_main, 0);
	for (int i = 0; i < 5000 && woken == 0; i++) {
		if (ready)
			woken = futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL);
		nanosleep(&nap, NULL);
	}
	CHECK_EQ(woken, 1);
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child was woken: "
	    "status %#x", st);
}

static int
wait_main(void *arg)
{
	struct timespec ts = { 10, 0 };

	(void)arg;
	ready = 1;
	while (word == 0 && futex(&word, FUTEX_WAIT_PRIVATE, 0, &ts) == 0)
		;
	return 0;
}

/* The child's /proc/PID/maps shows what the parent maps after clone. */
static void
check_maps(void)
{
	char path[64], buf[16384], want[40];
	struct timespec nap = { 0, 1000000 };
	void *p;
	pid_t pid;
	long n = 0;
	int fd, st;

	word = 0;
	ready = 0;
	pid = clone_vm(wait_main, 0);
	while (!ready)
		nanosleep(&nap, NULL);
	p = mmap(NULL, GUEST_PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	CHECK(p != MAP_FAILED, "mmap");
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	snprintf(want, sizeof(want), "%lx-", (unsigned long)p);
	CHECK((fd = open(path, O_RDONLY)) >= 0, "open %s", path);
	if (fd >= 0) {
		long r;

		while (n < (long)sizeof(buf) - 1 &&
		    (r = read(fd, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
			n += r;
		close(fd);
	}
	buf[n] = '\0';
	CHECK(strstr(buf, want) != NULL, "the child's maps has %s", want);
	word = 1;
	futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL);
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	munmap(p, GUEST_PAGE);
}

static int
exec_main(void *arg)
{
	char *argv[] = { self_path, "exit7", NULL };

	(void)arg;
	execve(self_path, argv, environ);
	return 99;
}

/* The child execs; the parent's memory, the child's stack among it, stays. */
static void
check_exec(void)
{
	char *buf = malloc(1 << 20);
	pid_t pid;
	int st;

	CHECK(buf != NULL, "malloc");
	if (buf == NULL)
		return;
	memset(stack, 0x5a, STACK_SIZE / 2);
	pid = clone_vm(exec_main, 0);
	for (int i = 0; i < 64; i++)
		memset(buf + i * (1 << 14), i, 1 << 14);
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %#x", st);
	CHECK(buf[0] == 0 && buf[(1 << 20) - 1] == 63, "the parent's memory");
	CHECK(stack[0] == 0x5a, "the child's old stack");
	free(buf);
}

/*
 * A child's CLONE_CHILD_CLEARTID word, in the memory it shared, is
 * cleared when it execs and leaves that memory.
 */
static void
check_exec_cleartid(void)
{
	static volatile int tidword = -1;
	pid_t pid;
	int st;

	pid = clone(exec_main, stack + STACK_SIZE, CLONE_VM | SIGCHLD |
	    CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID, NULL, NULL, NULL,
	    &tidword);
	CHECK(pid > 0, "clone");
	st = wait_status(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %#x", st);
	CHECK_EQ(tidword, 0);
}

static int
orphan_main(void *arg)
{
	struct timespec nap = { 0, 50000000 };
	int fd = *(int *)arg;

	/* Outlive the parent, then use the memory it left. */
	nanosleep(&nap, NULL);
	word = 'k';
	syscall(SYS_write, fd, (const void *)&word, 1);
	return 0;
}

/* A parent that exits first leaves the memory to its CLONE_VM child. */
static void
check_parent_exits(void)
{
	int fds[2], st;
	char c = 0;
	pid_t mid;

	CHECK_OK(pipe(fds));
	mid = fork();
	if (mid == 0) {
		close(fds[0]);
		word = 0;
		_exit(clone(orphan_main, stack + STACK_SIZE, CLONE_VM | SIGCHLD,
		    &fds[1]) > 0 ? 0 : 1);
	}
	close(fds[1]);
	st = wait_status(mid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	CHECK_EQ(read(fds[0], &c, 1), 1);
	CHECK_EQ(c, 'k');
	close(fds[0]);
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "exit7") == 0)
		return 7;
	self_path = argv[0];
	check_store();
	check_vfork_store();
	check_posix_spawn();
	check_vfork_exec();
	check_mmap();
	check_private_futex();
	check_maps();
	check_exec();
	check_exec_cleartid();
	check_parent_exits();
	return guest_done();
}
