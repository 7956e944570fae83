/*
 * Signals and threads: a signal sent to a thread (pthread_kill, tgkill)
 * runs its handler in that thread; one sent to the process goes to a
 * thread that does not block it, or stays pending for the process until
 * one unblocks it; masks are per thread and a new thread starts with its
 * creator's; a handler interrupts a thread's futex wait with EINTR; and
 * tgkill's errors.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "sig_common.h"
#include "thr_common.h"

static atomic_int handled_by;
static atomic_int handled_count;

static void
on_usr(int sig)
{
	(void)sig;
	atomic_store(&handled_by, gettid_raw());
	atomic_fetch_add(&handled_count, 1);
}

/* A worker that waits on a futex word until main sets it to 2. */
struct worker {
	pthread_t handle;
	atomic_int tid;
	atomic_uint word;
	uint64_t start_mask;
	uint64_t unblock;      /* signals the worker unblocks at start */
	atomic_int eintr;      /* futex waits a signal cut short */
};

static void *
worker_main(void *arg)
{
	struct worker *w = arg;

	w->start_mask = cur_mask();
	if (w->unblock != 0)
		syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &w->unblock, NULL, 8);
	atomic_store(&w->tid, gettid_raw());
	while (atomic_load(&w->word) != 2) {
		if (futex_wait(&w->word, atomic_load(&w->word), 5000) < 0 &&
		    errno == EINTR)
			atomic_fetch_add(&w->eintr, 1);
	}
	return NULL;
}

static void
worker_start(struct worker *w, uint64_t unblock)
{
	*w = (struct worker){ .unblock = unblock };
	CHECK_EQ(pthread_create(&w->handle, NULL, worker_main, w), 0);
	/* Up to 5 s: a loaded machine may be slow to run the new thread. */
	for (int i = 0; i < 5000 && atomic_load(&w->tid) == 0; i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	CHECK(atomic_load(&w->tid) != 0, "worker started");
	/* Time to reach its futex wait, which a signal must interrupt. */
	nanosleep(&(struct timespec){ 0, 50 * 1000000 }, NULL);
}

static void
worker_stop(struct worker *w)
{
	atomic_store(&w->word, 2);
	futex_wake(&w->word, 1);
	CHECK_EQ(pthread_join(w->handle, NULL), 0);
}

/* Wait until *what reaches count, or a second has passed. */
static void
await_count(atomic_int *what, int count)
{
	for (int i = 0; i < 1000 && atomic_load(what) < count; i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
}

static void
check_thread_directed(void)
{
	struct worker w;

	atomic_store(&handled_count, 0);
	worker_start(&w, 0);
	CHECK_EQ(w.start_mask, cur_mask());
	CHECK_EQ(pthread_kill(w.handle, SIGUSR1), 0);
	await_count(&handled_count, 1);
	CHECK_EQ(atomic_load(&handled_count), 1);
	CHECK_EQ(atomic_load(&handled_by), atomic_load(&w.tid));
	await_count(&w.eintr, 1);
	CHECK_EQ(atomic_load(&w.eintr), 1);

	CHECK_OK(syscall(SYS_tgkill, getpid(), atomic_load(&w.tid), SIGUSR2));
	await_count(&handled_count, 2);
	CHECK_EQ(atomic_load(&handled_by), atomic_load(&w.tid));
	CHECK_OK(syscall(SYS_tkill, atomic_load(&w.tid), 0));
	CHECK_ERR(syscall(SYS_tgkill, getpid() + 1000, atomic_load(&w.tid),
	    SIGUSR1), ESRCH);
	CHECK_ERR(syscall(SYS_tgkill, getpid(), atomic_load(&w.tid), 65),
	    EINVAL);
	CHECK_ERR(syscall(SYS_tgkill, 0, atomic_load(&w.tid), SIGUSR1), EINVAL);
	worker_stop(&w);
	/*
	 * The joined thread's tid may outlive the join a moment while the
	 * host reaps it: give it up to a second to go.
	 */
	for (int i = 0; i < 1000 && syscall(SYS_tgkill, getpid(),
	    atomic_load(&w.tid), 0) == 0; i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	CHECK_ERR(syscall(SYS_tgkill, getpid(), atomic_load(&w.tid), 0), ESRCH);
}

static void
check_process_directed(void)
{
	uint64_t usr1 = BIT(SIGUSR1), set = 0;
	struct worker w;

	atomic_store(&handled_count, 0);
	set_mask(SIG_SETMASK, usr1);
	worker_start(&w, usr1);
	CHECK_EQ(w.start_mask, usr1);
	CHECK_OK(kill(getpid(), SIGUSR1));
	await_count(&handled_count, 1);
	CHECK_EQ(atomic_load(&handled_count), 1);
	CHECK_EQ(atomic_load(&handled_by), atomic_load(&w.tid));
	worker_stop(&w);

	/* Blocked everywhere: pending for the process, seen by every thread. */
	atomic_store(&handled_count, 0);
	worker_start(&w, 0);
	CHECK_OK(kill(getpid(), SIGUSR1));
	CHECK_OK(syscall(SYS_rt_sigpending, &set, 8));
	CHECK((set & usr1) != 0, "SIGUSR1 pending for the process");
	CHECK_EQ(atomic_load(&handled_count), 0);
	set_mask(SIG_SETMASK, 0);
	CHECK_EQ(atomic_load(&handled_count), 1);
	CHECK_EQ(atomic_load(&handled_by), gettid_raw());
	worker_stop(&w);
}

static void *
sigwait_main(void *arg)
{
	sigset_t set;
	int sig = 0;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	if (sigwait(&set, &sig) != 0)
		return (void *)-1;
	return (void *)(long)sig;
}

static void
check_sigwait(void)
{
	pthread_t t;
	void *ret = NULL;

	set_mask(SIG_SETMASK, BIT(SIGUSR2));
	CHECK_EQ(pthread_create(&t, NULL, sigwait_main, NULL), 0);
	CHECK_OK(kill(getpid(), SIGUSR2));
	CHECK_EQ(pthread_join(t, &ret), 0);
	CHECK_EQ((long)ret, SIGUSR2);
	set_mask(SIG_SETMASK, 0);
}

int
main(void)
{
	struct sigaction sa = { .sa_handler = on_usr };

	CHECK_OK(sigaction(SIGUSR1, &sa, NULL));
	CHECK_OK(sigaction(SIGUSR2, &sa, NULL));
	check_thread_directed();
	check_process_directed();
	check_sigwait();
	return guest_done();
}
