/*
 * prctl: names, the dumpable and keepcaps flags, timer slack (per
 * thread, inherited), the THP and machine-check policies, the tid
 * address, ambient capabilities, and the errnos for bad arguments.
 * Names written to /proc/self/comm, by their owner as an ordinary user.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

static long
prctl5(int op, unsigned long a2, unsigned long a3, unsigned long a4,
    unsigned long a5)
{
	return syscall(SYS_prctl, op, a2, a3, a4, a5);
}

static void *
slack_thread(void *arg)
{
	long *got = arg;

	got[0] = prctl5(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	prctl5(PR_SET_TIMERSLACK, 7000, 0, 0, 0);
	got[1] = prctl5(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	return NULL;
}

/* Reads a /proc file whole into buf (NUL-terminated); returns read's. */
static ssize_t
read_all(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Reads a /proc file's first line, without its newline. */
static void
read_line(const char *path, char *buf, size_t size)
{
	ssize_t n = read_all(path, buf, size);

	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
}

struct named {
	long tid;
	int done;        /* main has looked: the thread may end */
	char got[16];
};

static void *
name_thread(void *arg)
{
	struct named *nm = arg;

	prctl5(PR_GET_NAME, (unsigned long)nm->got, 0, 0, 0);
	prctl5(PR_SET_NAME, (unsigned long)"worker", 0, 0, 0);
	__atomic_store_n(&nm->tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (__atomic_load_n(&nm->done, __ATOMIC_ACQUIRE) == 0)
		usleep(1000);
	return NULL;
}

/* A name is each thread's: a new one starts with its creator's. */
static void
test_thread_names(void)
{
	char path[64], buf[32];
	struct named nm = { 0 };
	pthread_t t;

	CHECK_OK(prctl5(PR_SET_NAME, (unsigned long)"main-name", 0, 0, 0));
	CHECK_EQ(pthread_create(&t, NULL, name_thread, &nm), 0);
	while (__atomic_load_n(&nm.tid, __ATOMIC_ACQUIRE) == 0)
		usleep(1000);
	CHECK(strcmp(nm.got, "main-name") == 0, "inherited name: %s", nm.got);
	snprintf(path, sizeof(path), "/proc/self/task/%ld/comm", nm.tid);
	read_line(path, buf, sizeof(buf));
	CHECK(strcmp(buf, "worker") == 0, "thread comm: %s", buf);
	read_line("/proc/self/comm", buf, sizeof(buf));
	CHECK(strcmp(buf, "main-name") == 0, "process comm: %s", buf);
	__atomic_store_n(&nm.done, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
}

static void
test_names_and_flags(void)
{
	char name[16] = { 0 };

	CHECK_OK(prctl5(PR_SET_NAME, (unsigned long)"a-long-name-cut-here", 0,
	    0, 0));
	CHECK_OK(prctl5(PR_GET_NAME, (unsigned long)name, 0, 0, 0));
	CHECK(strcmp(name, "a-long-name-cut") == 0, "name: %s", name);
	CHECK_EQ(prctl5(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
	CHECK_ERR(prctl5(PR_SET_DUMPABLE, 2, 0, 0, 0), EINVAL);
	CHECK_EQ(prctl5(PR_GET_KEEPCAPS, 0, 0, 0, 0), 0);
	CHECK_OK(prctl5(PR_SET_KEEPCAPS, 1, 0, 0, 0));
	CHECK_EQ(prctl5(PR_GET_KEEPCAPS, 0, 0, 0, 0), 1);
	CHECK_ERR(prctl5(PR_SET_KEEPCAPS, 2, 0, 0, 0), EINVAL);
	CHECK_EQ(prctl5(PR_GET_THP_DISABLE, 0, 0, 0, 0), 0);
	CHECK_OK(prctl5(PR_SET_THP_DISABLE, 1, 0, 0, 0));
	CHECK_EQ(prctl5(PR_GET_THP_DISABLE, 0, 0, 0, 0), 1);
	CHECK_ERR(prctl5(PR_SET_THP_DISABLE, 1, 1, 0, 0), EINVAL);
	CHECK_EQ(prctl5(PR_MCE_KILL_GET, 0, 0, 0, 0), PR_MCE_KILL_DEFAULT);
	CHECK_OK(prctl5(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0,
	    0));
	CHECK_EQ(prctl5(PR_MCE_KILL_GET, 0, 0, 0, 0), PR_MCE_KILL_EARLY);
	CHECK_OK(prctl5(PR_MCE_KILL, PR_MCE_KILL_CLEAR, 0, 0, 0));
	CHECK_EQ(prctl5(PR_MCE_KILL_GET, 0, 0, 0, 0), PR_MCE_KILL_DEFAULT);
	CHECK_ERR(prctl5(PR_MCE_KILL, PR_MCE_KILL_SET, 9, 0, 0), EINVAL);
	CHECK_ERR(prctl5(0x7fff, 0, 0, 0, 0), EINVAL);
}

static void
test_inherited(void)
{
	long got[2];
	pthread_t t;
	int st;
	pid_t pid;

	CHECK_EQ(prctl5(PR_GET_TIMERSLACK, 0, 0, 0, 0), 50000);
	CHECK_OK(prctl5(PR_SET_TIMERSLACK, 123456, 0, 0, 0));
	CHECK_EQ(pthread_create(&t, NULL, slack_thread, got), 0);
	pthread_join(t, NULL);
	CHECK_EQ(got[0], 123456);   /* a new thread starts with ours */
	CHECK_EQ(got[1], 7000);
	CHECK_EQ(prctl5(PR_GET_TIMERSLACK, 0, 0, 0, 0), 123456);
	if ((pid = fork()) == 0)
		_exit(prctl5(PR_GET_TIMERSLACK, 0, 0, 0, 0) == 123456 &&
		    prctl5(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1 ? 0 : 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork inherits them");
	CHECK_OK(prctl5(PR_SET_TIMERSLACK, 0, 0, 0, 0));
	CHECK_EQ(prctl5(PR_GET_TIMERSLACK, 0, 0, 0, 0), 50000);
}

static void
test_tid_and_caps(void)
{
	static int word;
	uint64_t addr = 0;

	CHECK_OK(syscall(SYS_set_tid_address, &word));
	CHECK_OK(prctl5(PR_GET_TID_ADDRESS, (unsigned long)&addr, 0, 0, 0));
	CHECK_EQ(addr, (uint64_t)(uintptr_t)&word);
	CHECK_ERR(prctl5(PR_GET_TID_ADDRESS, 16, 0, 0, 0), EFAULT);
	CHECK_EQ(prctl5(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 0, 0, 0), 0);
	CHECK_OK(prctl5(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0));
	CHECK_ERR(prctl5(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 999, 0, 0),
	    EINVAL);
	CHECK_ERR(prctl5(PR_CAP_AMBIENT, 99, 0, 0, 0), EINVAL);
	CHECK_EQ(prctl5(PR_GET_SECCOMP, 0, 0, 0, 0), 0);
}

/*
 * comm is 0644 and its owner's to write, so a user names itself through
 * it: the first 15 bytes as written, a newline too, and the process (a
 * child of it here) may not rename another one, even of its own user.
 */
static int
comm_as_user(void)
{
	char path[64], buf[32], name[16] = { 0 };
	struct stat st;
	pid_t self, pid;
	int fd, status;

	if (geteuid() == 0 && (CHECK_OK(setgroups(0, NULL)) < 0 ||
	    CHECK_OK(setresgid(65534, 65534, 65534)) < 0 ||
	    CHECK_OK(setresuid(65534, 65534, 65534)) < 0))
		return 1;
	/* Linux gives /proc/self to root after the drop until this. */
	CHECK_OK(prctl5(PR_SET_DUMPABLE, 1, 0, 0, 0));
	CHECK_OK(stat("/proc/self/comm", &st));
	CHECK_EQ(st.st_mode, (mode_t)(S_IFREG | 0644));
	if ((fd = CHECK_OK(open("/proc/self/comm", O_WRONLY))) < 0)
		return 1;
	CHECK_EQ(write(fd, "abc\n", 4), 4);
	CHECK_EQ(read_all("/proc/self/comm", buf, sizeof(buf)), 5);
	CHECK(strcmp(buf, "abc\n\n") == 0, "comm: %s", buf);
	CHECK_EQ(write(fd, "0123456789abcdefghij", 20), 20);
	CHECK_OK(prctl5(PR_GET_NAME, (unsigned long)name, 0, 0, 0));
	CHECK(strcmp(name, "0123456789abcde") == 0, "name: %s", name);
	close(fd);
	self = getpid();
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)self);
	if ((fd = CHECK_OK(open(path, O_WRONLY))) >= 0) {
		CHECK_EQ(write(fd, "thread", 6), 6);
		close(fd);
	}
	read_line("/proc/self/comm", buf, sizeof(buf));
	CHECK(strcmp(buf, "thread") == 0, "comm after task/: %s", buf);
	if ((pid = fork()) == 0) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)self);
		fd = open(path, O_WRONLY);
		_exit(fd >= 0 && write(fd, "x", 1) == -1 && errno == EINVAL ?
		    0 : 1);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "another process renamed this one (status %#x)", status);
	read_line("/proc/self/comm", buf, sizeof(buf));
	CHECK(strcmp(buf, "thread") == 0, "comm after the child: %s", buf);
	return guest_failures != 0;
}

static void
test_comm_write(void)
{
	int status;
	pid_t pid;

	if ((pid = fork()) == 0)
		_exit(comm_as_user());
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "writing comm as a user (status %#x)", status);
}

int
main(void)
{
	test_names_and_flags();
	test_thread_names();
	test_inherited();
	test_tid_and_caps();
	test_comm_write();
	return guest_done();
}
