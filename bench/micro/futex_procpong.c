/*
 * futex_procpong - futex_pingpong's round trip between two processes:
 * the word lies in a MAP_SHARED page that fork leaves shared, and the
 * futex calls are the shared (not FUTEX_PRIVATE) ones.  The reference
 * for sem_pingpong, which also switches between two processes.
 *
 * Usage: futex_procpong [ITERS|auto]
 */
#include "bench.h"

#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

/* Linux's values; musl's headers have no linux/futex.h. */
#define FUTEX_WAIT	0
#define FUTEX_WAKE	1

static atomic_int *word;

static void
fwait(int val)
{
	while (atomic_load(word) == val)
		syscall(SYS_futex, word, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void
fset(int val)
{
	atomic_store(word, val);
	syscall(SYS_futex, word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static long long
run(long n, void *ctx)
{
	long long t0;
	pid_t pid;

	atomic_store(word, 0);
	pid = fork();
	if (pid == 0) {
		for (long i = 0; i < n; i++) {
			fwait(0);
			fset(0);
		}
		_exit(0);
	}
	t0 = bench_now_ns();
	for (long i = 0; i < n; i++) {
		fset(1);
		fwait(1);
	}
	t0 = bench_now_ns() - t0;
	waitpid(pid, NULL, 0);
	return t0;
}

int
main(int argc, char **argv)
{
	long n;

	word = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0);
	if (word == MAP_FAILED)
		return 2;
	n = bench_iters(argc > 1 ? argv[1] : NULL, run, NULL);
	bench_report("futex_procpong", n, run(n, NULL), NULL);
	return 0;
}
