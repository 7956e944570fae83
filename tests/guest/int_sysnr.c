/*
 * The syscall number as Linux reads it: the low 32 bits of rax as an
 * int, so high bits are ignored, and a number with the x32 bit (1 << 30)
 * or out of the table is ENOSYS.  A thread cloned without CLONE_FILES
 * and CLONE_FS is allowed.
 *
 * With the argument "flood", calls 100,000 numbers no kernel serves and
 * exits 0: the integration test checks that vkernel's stderr stays short.
 */
#include <sched.h>
#include <limits.h>
#include <stdlib.h>

#include "int_common.h"
#include "thr_common.h"

#define STACK_SIZE (64 * 1024)

static volatile int thread_ran;

static int
thread_main(void *arg)
{
	(void)arg;
	thread_ran = 1;
	return 0;
}

static void
check_numbers(void)
{
	long pid = syscall(SYS_getpid);

	CHECK_EQ(syscall((1L << 32) | SYS_getpid), pid);
	CHECK_EQ(syscall((long)0xffffffff00000000UL | SYS_getpid), pid);
	CHECK_ERR(syscall(0x40000000L | SYS_getpid), ENOSYS);
	CHECK_ERR(syscall((1L << 32) | 0x40000000L | SYS_getpid), ENOSYS);
	CHECK_ERR(syscall(-1L), ENOSYS);
	CHECK_ERR(syscall((long)INT_MIN), ENOSYS);
	CHECK_ERR(syscall((long)INT_MAX), ENOSYS);
	CHECK_ERR(syscall(1L << 31), ENOSYS);
	CHECK_ERR(syscall((long)UINT_MAX), ENOSYS);
	CHECK_ERR(syscall(1L << 32, -1, NULL, 0), EBADF);	/* read */
	CHECK_ERR(syscall(100000L), ENOSYS);
}

/* A thread with the fd table and fs state not named as shared. */
static void
check_thread_unshared_files(void)
{
	static char stack[STACK_SIZE] __attribute__((aligned(16)));
	static volatile pid_t ctid;
	int flags = CLONE_VM | CLONE_THREAD | CLONE_SIGHAND | CLONE_SYSVSEM |
	    CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID;
	int tid;

	ctid = -1;
	tid = clone(thread_main, stack + STACK_SIZE, flags, NULL, NULL, NULL,
	    &ctid);
	if (!CHECK(tid > 0, "clone(thread without CLONE_FILES|CLONE_FS)"))
		return;
	while (ctid != 0) {
		pid_t v = ctid;

		if (v != 0)
			syscall(SYS_futex, &ctid, FUTEX_WAIT, v, NULL, NULL, 0);
	}
	CHECK(thread_ran, "the thread ran");
}

int
main(int argc, char **argv)
{
	int r;

	if (argc > 1 && strcmp(argv[1], "flood") == 0) {
		for (long i = 0; i < 100000; i++)
			syscall(1000 + i);
		return 0;
	}
	if ((r = int_drop_if_asked(argc, argv)) != 0)
		return r;
	check_numbers();
	check_thread_unshared_files();
	return guest_done();
}
