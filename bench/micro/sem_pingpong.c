/*
 * sem_pingpong - a round trip between two processes through a System V
 * semaphore set.
 *
 * Usage: sem_pingpong [ITERS|auto]
 *
 * The parent raises semaphore 0 and waits on semaphore 1; the child,
 * forked once for the run, waits on 0 and raises 1: per round trip four
 * semop calls, two of them waits, and two switches, as futex_pingpong's.
 */
#include "bench.h"

#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void
op(int id, unsigned short num, short delta)
{
	struct sembuf sb = { num, delta, 0 };

	while (syscall(SYS_semop, id, &sb, 1) != 0)
		if (errno != EINTR)
			exit(3);
}

static long long
run(long n, void *ctx)
{
	int id = (int)syscall(SYS_semget, IPC_PRIVATE, 2, 0600);
	long long t0;
	pid_t pid;

	if (id < 0)
		exit(2);
	pid = fork();
	if (pid == 0) {
		for (long i = 0; i < n; i++) {
			op(id, 0, -1);
			op(id, 1, 1);
		}
		_exit(0);
	}
	t0 = bench_now_ns();
	for (long i = 0; i < n; i++) {
		op(id, 0, 1);
		op(id, 1, -1);
	}
	t0 = bench_now_ns() - t0;
	waitpid(pid, NULL, 0);
	syscall(SYS_semctl, id, 0, IPC_RMID, 0);
	return t0;
}

int
main(int argc, char **argv)
{
	long n = bench_iters(argc > 1 ? argv[1] : NULL, run, NULL);

	bench_report("sem_pingpong", n, run(n, NULL), NULL);
	return 0;
}
