/*
 * Verifies that fork and thread bombs end in EAGAIN and leave the system
 * working: with no arguments, a user under RLIMIT_NPROC (a uid of its own,
 * from the pid, so that runs at once on one host do not meet) gets EAGAIN
 * from fork and pthread_create once its processes plus threads reach the
 * limit, and a fork works again once they are gone.  With "cap N" (run
 * inside vkernel --pids N), root, whom RLIMIT_NPROC does not bind,
 * gets EAGAIN at the sandbox's cap instead; the bombs hold their tasks a
 * moment (for a watcher outside to count) and clean up.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "guest.h"

#define BOMB_MAX	600	/* where a bomb stops if nothing stops it */
#define NPROC_LIMIT	12

static int gate[2];	/* the bombs' tasks wait until it closes */
static pid_t kids[BOMB_MAX];
static pthread_t thr[BOMB_MAX];

static void
hold(void)
{
	struct timespec ts = { 0, 300 * 1000000L };

	nanosleep(&ts, NULL);
}

static void *
thr_wait(void *arg)
{
	char c;

	(void)arg;
	while (read(gate[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* Fork until fork fails: the count made, *errp the errno it failed with. */
static int
fork_bomb(int *errp)
{
	int n = 0;
	char c;

	CHECK_OK(pipe(gate));
	*errp = 0;
	for (; n < BOMB_MAX; n++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(gate[1]);
			while (read(gate[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		if (pid < 0) {
			*errp = errno;
			break;
		}
		kids[n] = pid;
	}
	return n;
}

static void
fork_bomb_end(int n)
{
	int st;

	close(gate[1]);
	close(gate[0]);
	for (int i = 0; i < n; i++) {
		st = -1;
		CHECK_EQ(waitpid(kids[i], &st, 0), kids[i]);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	}
}

static int
thread_bomb(int *errp)
{
	pthread_attr_t a;
	int n = 0;

	CHECK_OK(pipe(gate));
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	*errp = 0;
	for (; n < BOMB_MAX; n++) {
		if ((*errp = pthread_create(&thr[n], &a, thr_wait, NULL)) != 0)
			break;
	}
	pthread_attr_destroy(&a);
	return n;
}

static void
thread_bomb_end(int n)
{
	close(gate[1]);
	for (int i = 0; i < n; i++)
		CHECK_EQ(pthread_join(thr[i], NULL), 0);
	close(gate[0]);
}

/* A fork works (again): its child exits 0. */
static void
fork_works(void)
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	CHECK(pid > 0, "fork after the bomb");
	if (pid > 0) {
		CHECK_EQ(waitpid(pid, &st, 0), pid);
		CHECK_EQ(st, 0);
	}
}

static const struct bomb {
	const char *what;
	int (*make)(int *errp);
	void (*end)(int n);
} bomb_kinds[] = {
	{ "fork", fork_bomb, fork_bomb_end },
	{ "thread", thread_bomb, thread_bomb_end },
};

/*
 * Both bombs, each ending in EAGAIN after at least min and at most max
 * tasks, held a moment, then cleaned up.
 */
static void
bombs(int min, int max)
{
	for (unsigned i = 0; i < sizeof(bomb_kinds) / sizeof(bomb_kinds[0]);
	    i++) {
		const struct bomb *b = &bomb_kinds[i];
		int e, n = b->make(&e);

		CHECK(e == EAGAIN, "%s bomb: error %d after %d", b->what, e, n);
		CHECK(n >= min && n <= max, "%s bomb: %d tasks, not %d-%d",
		    b->what, n, min, max);
		hold();
		b->end(n);
		fork_works();
	}
}

/* As uid under RLIMIT_NPROC, in a child: 77 if it may not switch. */
static void
user_bombs(void)
{
	struct rlimit rl = { NPROC_LIMIT, NPROC_LIMIT };
	long uid = 100000 + getpid();
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		if (setrlimit(RLIMIT_NPROC, &rl) < 0 ||
		    syscall(SYS_setresgid, uid, uid, uid) < 0 ||
		    syscall(SYS_setresuid, uid, uid, uid) < 0)
			_exit(77);
		/* The process itself is one of the user's tasks. */
		bombs(1, NPROC_LIMIT - 1);
		_exit(guest_done());
	}
	CHECK(pid > 0, "fork");
	if (pid <= 0 || waitpid(pid, &st, 0) != pid)
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		guest_note("skip: not allowed to switch to uid %ld", uid);
	else
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "as uid %ld: status %#x", uid, st);
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "cap") == 0) {
		int cap = atoi(argv[2]);

		/* Up to the cap, less this process and init (pid 1). */
		bombs(cap / 2, cap - 1);
	} else {
		user_bombs();
	}
	return guest_done();
}
