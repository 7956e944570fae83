/*
 * Makes vkernel fail on purpose, for the tests of --crash-dir: 300
 * getppid calls (more than a thread's ring keeps), a write the report
 * must show, a second thread blocked in a read, then the hidden system
 * call of a -Dcrash_test=true build with argv[1] as its mode (1: a failed
 * assertion, 2: a heap read out of bounds, 3: a wild write).  Exits 77
 * where there is no such call (another build, or natively).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CRASH_TEST_NR 0x7663

static int pipefd[2];
static volatile int started;

static void *
reader(void *arg)
{
	char c;

	(void)arg;
	started = 1;
	return (void *)read(pipefd[0], &c, 1);
}

int
main(int argc, char **argv)
{
	static const char mark[] = "crash-test marker\n";
	pthread_t t;
	long mode = argc > 1 ? atol(argv[1]) : 1;

	if (pipe(pipefd) < 0 || pthread_create(&t, NULL, reader, NULL) != 0)
		return 1;
	/* Then turns enough for it to reach its read. */
	while (!started)
		sched_yield();
	for (int i = 0; i < 100; i++)
		sched_yield();
	for (int i = 0; i < 300; i++)
		getppid();
	if (write(1, mark, strlen(mark)) < 0)
		return 1;
	syscall(CRASH_TEST_NR, mode, mode == 3 ? 16UL : 0UL);
	printf("no crash-test call here\n");
	return 77;
}
