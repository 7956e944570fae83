/*
 * /proc/PID/stat and /proc/PID/task/TID/stat give each thread the state
 * letter Linux does: S while it waits in the kernel (a futex, a read with
 * no data, nanosleep, wait4), R while it runs (the reader itself, a
 * thread that spins), T once its process is stopped.  Test harnesses
 * poll for S before they wake a waiter, so each wait is polled for here
 * the same way, with a bound.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>

#include "proc_common.h"

#define FUTEX_WAIT 0    /* linux/futex.h's; musl has no linux/ */
#define FUTEX_WAKE 1

static atomic_int word, spin = 1, tid;
static int pfd[2];

/* Whether the file shows want within 5 s. */
static bool
shows(const char *path, char want)
{
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; i < 5000; i++) {
		if (proc_stat_state(path) == want)
			return true;
		nanosleep(&ms, NULL);
	}
	return false;
}

static void *
futex_waiter(void *arg)
{
	(void)arg;
	atomic_store(&tid, (int)syscall(SYS_gettid));
	while (atomic_load(&word) == 0)
		syscall(SYS_futex, &word, FUTEX_WAIT, 0, NULL, NULL, 0);
	return NULL;
}

static void *
reader(void *arg)
{
	char c;

	(void)arg;
	atomic_store(&tid, (int)syscall(SYS_gettid));
	return (void *)(intptr_t)read(pfd[0], &c, 1);
}

static void *
spinner(void *arg)
{
	(void)arg;
	atomic_store(&tid, (int)syscall(SYS_gettid));
	while (atomic_load(&spin))
		;
	return NULL;
}

/* Start fn as a thread, see its task's stat show want, then wake it. */
static void
check_thread(void *(*fn)(void *), char want, const char *what)
{
	char path[64];
	pthread_t th;

	atomic_store(&tid, 0);
	CHECK_EQ(pthread_create(&th, NULL, fn, NULL), 0);
	while (atomic_load(&tid) == 0)
		sched_yield();
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", getpid(),
	    atomic_load(&tid));
	CHECK(shows(path, want), "%s: state %c, want %c", what,
	    proc_stat_state(path), want);
	/* The process's own file speaks of its main thread: this one. */
	CHECK_EQ(proc_stat_state("/proc/self/stat"), 'R');
	atomic_store(&word, 1);
	syscall(SYS_futex, &word, FUTEX_WAKE, 1, NULL, NULL, 0);
	if (fn == reader)
		CHECK_EQ(write(pfd[1], "x", 1), 1);
	atomic_store(&spin, 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	atomic_store(&word, 0);
	atomic_store(&spin, 1);
}

/* A child that sleeps, or waits for a child of its own that does. */
static void
check_child(bool in_wait4)
{
	char path[64];
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct timespec ten = { 10, 0 };

		if (in_wait4 && fork() == 0)
			_exit(nanosleep(&ten, NULL));
		if (in_wait4)
			_exit(wait(NULL) > 0);
		_exit(nanosleep(&ten, NULL));
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	CHECK(shows(path, 'S'), "%s: state %c", in_wait4 ? "wait4" :
	    "nanosleep", proc_stat_state(path));
	CHECK_OK(kill(pid, SIGSTOP));
	CHECK_EQ(waitpid(pid, &st, WUNTRACED), pid);
	CHECK(WIFSTOPPED(st), "status %#x", st);
	CHECK(shows(path, 'T'), "stopped: state %c", proc_stat_state(path));
	CHECK_OK(kill(pid, SIGCONT));
	CHECK(shows(path, 'S'), "continued: state %c", proc_stat_state(path));
	CHECK_OK(kill(pid, SIGKILL));
	CHECK_EQ(waitpid(pid, &st, 0), pid);
}

static void
tests(void)
{
	CHECK_EQ(proc_stat_state("/proc/self/stat"), 'R');
	CHECK_OK(pipe(pfd));
	check_thread(futex_waiter, 'S', "futex wait");
	check_thread(reader, 'S', "read of an empty pipe");
	check_thread(spinner, 'R', "spinning");
	check_child(false);
	check_child(true);
	close(pfd[0]);
	close(pfd[1]);
}

int
main(void)
{
	return guest_main_twice(tests);
}
