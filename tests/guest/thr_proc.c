/*
 * Threads and the process around them: a robust mutex whose owner thread
 * dies is handed over with EOWNERDEAD; a futex in MAP_SHARED memory is
 * one futex for every process that maps it; fork from a thread makes a child
 * with one thread whose tid is its pid; exit_group from a thread ends
 * every thread with its status; a fatal signal in a thread kills the
 * process; execve from a thread that is not the leader kills the others
 * and gives the new program the process's pid.
 *
 * Run with no arguments.  "exec-child PID" is the program execve'd by
 * the last check: it checks it has that pid and one thread.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "thr_common.h"

static pthread_mutex_t robust;

static void *
lock_and_die(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&robust);
	return NULL;
}

static void
check_robust(void)
{
	pthread_mutexattr_t ma;
	pthread_t t;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	CHECK_EQ(pthread_mutex_init(&robust, &ma), 0);
	CHECK_EQ(pthread_create(&t, NULL, lock_and_die, NULL), 0);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(pthread_mutex_lock(&robust), EOWNERDEAD);
	CHECK_EQ(pthread_mutex_consistent(&robust), 0);
	CHECK_EQ(pthread_mutex_unlock(&robust), 0);
	CHECK_EQ(pthread_mutex_lock(&robust), 0);
	CHECK_EQ(pthread_mutex_unlock(&robust), 0);
}

/* The raw form: a list entry whose futex word holds a dead thread's tid. */
struct robust_entry {
	struct robust_entry *next;
	atomic_uint word;
};

struct robust_head {
	struct robust_entry *list;
	long offset;
	struct robust_entry *pending;
};

static struct robust_entry raw_entry;
static struct robust_head raw_head;
static atomic_uint raw_done;

static void *
raw_owner(void *arg)
{
	(void)arg;
	raw_head.list = (struct robust_entry *)&raw_head;
	raw_head.offset = offsetof(struct robust_entry, word);
	raw_entry.next = (struct robust_entry *)&raw_head;
	atomic_store(&raw_entry.word, (uint32_t)gettid_raw());
	raw_head.list = &raw_entry;
	syscall(SYS_set_robust_list, &raw_head, sizeof(raw_head));
	atomic_store(&raw_done, 1);
	syscall(SYS_exit, 0);
	return NULL;
}

static void
check_robust_raw(void)
{
	struct robust_head *h = NULL;
	size_t len = 0;
	pthread_t t;
	uint32_t w;

	CHECK_OK(syscall(SYS_get_robust_list, 0, &h, &len));
	CHECK_EQ(len, sizeof(struct robust_head));
	CHECK_ERR(syscall(SYS_set_robust_list, &raw_head, 8), EINVAL);
	CHECK_ERR(syscall(SYS_get_robust_list, 999999, &h, &len), ESRCH);
	CHECK_EQ(pthread_create(&t, NULL, raw_owner, NULL), 0);
	pthread_detach(t);
	for (int i = 0; i < 200; i++) {
		w = atomic_load(&raw_entry.word);
		if (atomic_load(&raw_done) && (w & FUTEX_OWNER_DIED))
			break;
		nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	}
	w = atomic_load(&raw_entry.word);
	CHECK((w & FUTEX_OWNER_DIED) != 0, "word %#x has FUTEX_OWNER_DIED", w);
	CHECK_EQ(w & FUTEX_TID_MASK, 0);
}

static void *
sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/*
 * In a forked child, start two sleeping threads and then fn in a third,
 * while the first thread pauses too; return the child's wait status.
 * Only what fn does can end the child.
 */
static int
in_child(void *(*fn)(void *))
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		pthread_t t[3];

		pthread_create(&t[0], NULL, sleeper, NULL);
		pthread_create(&t[1], NULL, sleeper, NULL);
		pthread_create(&t[2], NULL, fn, NULL);
		for (;;)
			pause();
	}
	CHECK(pid > 0, "fork");
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	return st;
}

static void *
group_exit_main(void *arg)
{
	(void)arg;
	syscall(SYS_exit_group, 42);
	return NULL;
}

static void *
segv_main(void *arg)
{
	(void)arg;
	*(volatile int *)8 = 1;
	return NULL;
}

/* From a thread: fork, and the child checks it is one thread, its pid. */
static void *
fork_main(void *arg)
{
	int st = -1;
	pid_t pid = fork();

	(void)arg;
	if (pid == 0) {
		pthread_t t;
		bool ok = gettid_raw() == getpid();

		/* The child can make threads of its own. */
		ok = ok && pthread_create(&t, NULL, lock_and_die, NULL) == 0 &&
		    pthread_join(t, NULL) == 0;
		_exit(ok ? 7 : 8);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return (void *)-1;
	return (void *)(long)st;
}

static void
check_fork_from_thread(void)
{
	pthread_t t;
	void *st = NULL;

	CHECK_EQ(pthread_create(&t, NULL, fork_main, NULL), 0);
	CHECK_EQ(pthread_join(t, &st), 0);
	CHECK((long)st >= 0 && WIFEXITED((long)st) && WEXITSTATUS((long)st) == 7,
	    "child of a thread: status %#lx", (long)st);
}

/* The child waits on a shared word; the parent's wake must reach it. */
static void
check_shared_futex(void)
{
	atomic_uint *word = guest_mmap(NULL, GUEST_PAGE, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long woken = 0;
	int st = -1;
	pid_t pid;

	if (!CHECK(word != MAP_FAILED, "shared mapping"))
		return;
	atomic_store(&word[0], 0);
	atomic_store(&word[1], 0);
	pid = fork();
	if (pid == 0) {
		atomic_store(&word[1], 1);
		while (atomic_load(&word[0]) == 0)
			if (futex_wait(&word[0], 0, 5000) < 0 &&
			    errno == ETIMEDOUT)
				_exit(1);
		_exit(0);
	}
	CHECK(pid > 0, "fork");
	/* Until the child is parked: a wake finds it, or it saw the store. */
	for (int i = 0; i < 2000 && woken == 0; i++) {
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		if (atomic_load(&word[1]) == 1 && i >= 20) {
			atomic_store(&word[0], 1);
			woken = futex_wake(&word[0], 1);
			break;
		}
	}
	CHECK_EQ(woken, 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child woken: status %#x",
	    st);
	/* A private wake names the caller's own address, not the page. */
	CHECK_EQ(syscall(SYS_futex, &word[0], FUTEX_WAKE_PRIVATE, 1, NULL,
	    NULL, 0), 0);
	guest_munmap(word, GUEST_PAGE);
}

static char *self_path;

static void *
exec_main(void *arg)
{
	char pid[16];
	char *argv[] = { self_path, "exec-child", pid, NULL };

	(void)arg;
	snprintf(pid, sizeof(pid), "%d", getpid());
	execv(self_path, argv);
	_exit(98);
}

/* The program the thread execs: one thread, with the old pid. */
static int
exec_child(const char *want_pid)
{
	char buf[4096];
	int fd, n;
	const char *thr;

	CHECK_EQ(getpid(), atoi(want_pid));
	CHECK_EQ(gettid_raw(), getpid());
	fd = (int)CHECK_OK(open("/proc/self/status", O_RDONLY));
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	thr = strstr(buf, "Threads:");
	CHECK(thr != NULL && atoi(thr + 8) == 1, "Threads: line says 1: %s",
	    thr != NULL ? thr : "(none)");
	return guest_failures == 0 ? 5 : 6;
}

/*
 * Another process's robust list is for those who may trace it (Linux's
 * ptrace access check): not root's for a user, nor its own processes'
 * while they are undumpable, as a change of ids leaves a process and its
 * children; one made dumpable again is readable.  The caller here, when
 * root, is the other process.
 */
static void
check_robust_other(const void *arg)
{
	pid_t root_pid = *(const pid_t *)arg, mine;
	struct robust_head *h = NULL;
	size_t len = 0;
	int st, down[2], up[2];
	char c;

	if (getuid() == 0)
		return;
	CHECK_ERR(syscall(SYS_get_robust_list, root_pid, &h, &len), EPERM);
	CHECK_EQ(prctl(PR_GET_DUMPABLE), 0);
	CHECK_OK(pipe(down));
	CHECK_OK(pipe(up));
	mine = fork();
	if (mine == 0) {
		if (read(down[0], &c, 1) == 1)
			prctl(PR_SET_DUMPABLE, 1);
		if (write(up[1], "r", 1) == 1)
			pause();
		_exit(0);
	}
	CHECK_ERR(syscall(SYS_get_robust_list, mine, &h, &len), EPERM);
	CHECK_EQ(write(down[1], "d", 1), 1);
	CHECK(read(up[0], &c, 1) == 1, "the child made itself dumpable");
	CHECK_OK(syscall(SYS_get_robust_list, mine, &h, &len));
	CHECK_EQ(len, sizeof(struct robust_head));
	kill(mine, SIGKILL);
	waitpid(mine, &st, 0);
	for (int i = 0; i < 2; i++) {
		close(down[i]);
		close(up[i]);
	}
}

int
main(int argc, char **argv)
{
	pid_t self = getpid();
	int st;

	if (argc == 3 && strcmp(argv[1], "exec-child") == 0)
		return exec_child(argv[2]);
	self_path = argv[0];
	check_robust();
	check_robust_raw();
	guest_as_nobody(check_robust_other, &self);
	check_fork_from_thread();
	check_shared_futex();
	st = in_child(group_exit_main);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42, "exit_group(42) from "
	    "a thread: status %#x", st);
	st = in_child(segv_main);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "SIGSEGV in a "
	    "thread: status %#x", st);
	st = in_child(exec_main);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5, "exec from a thread: "
	    "status %#x", st);
	return guest_done();
}
