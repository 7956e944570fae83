/*
 * Process ids, wait, resource numbers, scheduling, priorities, prctl
 * options and personality at the edges of their types, as raw syscalls
 * with 64-bit register values: an int argument is its register's low 32
 * bits, a pid that cannot be negated (INT_MIN) is ESRCH, an index past
 * its table is EINVAL.
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <limits.h>
#include <sched.h>
#include <stdlib.h>

#include "int_common.h"

#define HI (1L << 32)

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static void
check_wait(void)
{
	siginfo_t si;

	CHECK_ERR(syscall(SYS_wait4, (long)INT_MIN, NULL, 0, NULL), ESRCH);
	CHECK_ERR(syscall(SYS_wait4, (long)INT_MIN, NULL, WNOHANG, NULL),
	    ESRCH);
	CHECK_ERR(syscall(SYS_wait4, 1L << 31, NULL, 0, NULL), ESRCH);
	CHECK_ERR(syscall(SYS_wait4, (long)INT_MAX, NULL, 0, NULL), ECHILD);
	CHECK_ERR(syscall(SYS_wait4, -(long)INT_MAX, NULL, 0, NULL), ECHILD);
	CHECK_ERR(syscall(SYS_wait4, HI | (long)INT_MAX, NULL, 0, NULL),
	    ECHILD);
	CHECK_ERR(syscall(SYS_wait4, -1L, NULL, INT_MAX, NULL), EINVAL);
	/* INT_MIN is __WCLONE. */
	CHECK_ERR(syscall(SYS_wait4, -1L, NULL, INT_MIN, NULL), ECHILD);
	CHECK_ERR(syscall(SYS_wait4, -1L, NULL, 1L << 31 | 0x100, NULL),
	    EINVAL);
	CHECK_ERR(syscall(SYS_wait4, -1L, NULL, HI | WNOHANG, NULL), ECHILD);
	CHECK_ERR(syscall(SYS_waitid, INT_MAX, 0, &si, WEXITED, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_waitid, -1L, 0, &si, WEXITED, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_waitid, HI | P_ALL, 0, &si, WEXITED, NULL),
	    ECHILD);
	CHECK_ERR(syscall(SYS_waitid, P_PID, 0, &si, WEXITED, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_waitid, P_PID, (long)INT_MIN, &si, WEXITED,
	    NULL), EINVAL);
	CHECK_ERR(syscall(SYS_waitid, P_PID, (long)INT_MAX, &si, WEXITED,
	    NULL), ECHILD);
	CHECK_ERR(syscall(SYS_waitid, P_PGID, (long)INT_MIN, &si, WEXITED,
	    NULL), EINVAL);
	CHECK_ERR(syscall(SYS_waitid, P_PGID, HI | (long)INT_MAX, &si,
	    WEXITED, NULL), ECHILD);
	CHECK_ERR(syscall(SYS_waitid, P_PIDFD, -1L, &si, WEXITED, NULL),
	    EINVAL);
	CHECK_ERR(syscall(SYS_waitid, P_PIDFD, (long)INT_MAX, &si, WEXITED,
	    NULL), EBADF);
	CHECK_ERR(syscall(SYS_waitid, P_ALL, 0, &si, 0, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_waitid, P_ALL, 0, &si, INT_MAX, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_waitid, P_ALL, 0, &si, HI | WEXITED | WNOHANG,
	    NULL), ECHILD);
}

static void
check_ids(void)
{
	long pid = syscall(SYS_getpid);
	long pgid = syscall(SYS_getpgid, 0), sid = syscall(SYS_getsid, 0);

	CHECK_ERR(syscall(SYS_getpgid, (long)INT_MIN), ESRCH);
	CHECK_ERR(syscall(SYS_getpgid, (long)INT_MAX), ESRCH);
	CHECK_ERR(syscall(SYS_getpgid, -1L), ESRCH);
	CHECK_EQ(syscall(SYS_getpgid, HI), pgid);
	CHECK_EQ(syscall(SYS_getpgid, HI | pid), pgid);
	CHECK_ERR(syscall(SYS_getsid, (long)INT_MIN), ESRCH);
	CHECK_EQ(syscall(SYS_getsid, HI | pid), sid);
	CHECK_ERR(syscall(SYS_setpgid, (long)INT_MIN, 0), EINVAL);
	CHECK_ERR(syscall(SYS_setpgid, 0, (long)INT_MIN), EINVAL);
	CHECK_ERR(syscall(SYS_setpgid, (long)INT_MAX, 0), ESRCH);
	CHECK_ERR(syscall(SYS_get_robust_list, (long)INT_MIN, NULL, NULL),
	    ESRCH);
	CHECK_ERR(syscall(SYS_get_robust_list, (long)INT_MAX, NULL, NULL),
	    ESRCH);
	CHECK_ERR(syscall(SYS_getgroups, -1L, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_getgroups, (long)INT_MIN, NULL), EINVAL);
	CHECK_EQ(syscall(SYS_getgroups, HI, NULL),
	    syscall(SYS_getgroups, 0, NULL));
}

static void
check_rlimit(void)
{
	static const long bad[] = {
		RLIM_NLIMITS, -1, INT_MAX, INT_MIN, UINT_MAX, 1L << 31,
		HI | RLIM_NLIMITS,
	};
	struct rlimit rl, got;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_ERR(syscall(SYS_getrlimit, bad[i], &rl), EINVAL);
		CHECK_ERR(syscall(SYS_setrlimit, bad[i], &rl), EINVAL);
		CHECK_ERR(syscall(SYS_prlimit64, 0, bad[i], NULL, &rl), EINVAL);
	}
	CHECK_EQ(syscall(SYS_getrlimit, RLIMIT_NOFILE, &rl), 0);
	CHECK_EQ(syscall(SYS_getrlimit, HI | RLIMIT_NOFILE, &got), 0);
	CHECK_EQ(got.rlim_cur, rl.rlim_cur);
	CHECK_EQ(syscall(SYS_prlimit64, HI, HI | RLIMIT_NOFILE, NULL, &got),
	    0);
	CHECK_EQ(got.rlim_cur, rl.rlim_cur);
	CHECK_ERR(syscall(SYS_prlimit64, (long)INT_MIN, RLIMIT_NOFILE, NULL,
	    &got), ESRCH);
	CHECK_ERR(syscall(SYS_prlimit64, (long)INT_MAX, RLIMIT_NOFILE, NULL,
	    &got), ESRCH);
	CHECK_ERR(syscall(SYS_prlimit64, -1L, RLIMIT_NOFILE, NULL, &got),
	    ESRCH);
	CHECK_ERR(syscall(SYS_getrusage, INT_MAX, &(struct rusage){ 0 }),
	    EINVAL);
	CHECK_ERR(syscall(SYS_getrusage, INT_MIN, &(struct rusage){ 0 }),
	    EINVAL);
	CHECK_EQ(syscall(SYS_getrusage, HI | RUSAGE_SELF,
	    &(struct rusage){ 0 }), 0);
}

static void
check_sched(void)
{
	struct sched_param sp = { 0 };
	uint64_t mask[16];

	CHECK_ERR(syscall(SYS_sched_get_priority_max, INT_MAX), EINVAL);
	CHECK_ERR(syscall(SYS_sched_get_priority_max, INT_MIN), EINVAL);
	CHECK_ERR(syscall(SYS_sched_get_priority_min, -1L), EINVAL);
	CHECK_EQ(syscall(SYS_sched_get_priority_max, HI | SCHED_FIFO), 99);
	CHECK_EQ(syscall(SYS_sched_get_priority_min, HI | SCHED_RR), 1);
	CHECK_ERR(syscall(SYS_sched_setscheduler, 0, INT_MAX, &sp), EINVAL);
	CHECK_ERR(syscall(SYS_sched_setscheduler, 0, -1L, &sp), EINVAL);
	CHECK_ERR(syscall(SYS_sched_setscheduler, 0, INT_MIN, &sp), EINVAL);
	CHECK_ERR(syscall(SYS_sched_setscheduler, (long)INT_MIN, SCHED_OTHER,
	    &sp), EINVAL);
	CHECK_ERR(syscall(SYS_sched_setscheduler, (long)INT_MAX, SCHED_OTHER,
	    &sp), ESRCH);
	CHECK_EQ(syscall(SYS_sched_setscheduler, HI, HI | SCHED_OTHER, &sp),
	    0);
	sp.sched_priority = INT_MAX;
	CHECK_ERR(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &sp),
	    EINVAL);
	CHECK_ERR(syscall(SYS_sched_setparam, 0, &sp), EINVAL);
	sp.sched_priority = INT_MIN;
	CHECK_ERR(syscall(SYS_sched_setparam, 0, &sp), EINVAL);
	CHECK_ERR(syscall(SYS_sched_getscheduler, (long)INT_MIN), EINVAL);
	CHECK_ERR(syscall(SYS_sched_getscheduler, -1L), EINVAL);
	CHECK_ERR(syscall(SYS_sched_getscheduler, (long)INT_MAX), ESRCH);
	CHECK_EQ(syscall(SYS_sched_getscheduler, HI), SCHED_OTHER);
	CHECK_ERR(syscall(SYS_sched_getparam, -1L, &sp), EINVAL);
	CHECK_ERR(syscall(SYS_sched_getaffinity, 0, 4, mask), EINVAL);
	CHECK_ERR(syscall(SYS_sched_getaffinity, 0, UINT_MAX, mask), EINVAL);
	CHECK_ERR(syscall(SYS_sched_getaffinity, 0, HI, mask), EINVAL);
	CHECK_ERR(syscall(SYS_sched_getaffinity, (long)INT_MIN, 128, mask),
	    ESRCH);
	CHECK(syscall(SYS_sched_getaffinity, 0, HI | 128, mask) > 0,
	    "sched_getaffinity(0, 2^32 | 128)");
	CHECK_ERR(syscall(SYS_getpriority, INT_MAX, 0), EINVAL);
	CHECK_ERR(syscall(SYS_getpriority, -1L, 0), EINVAL);
	CHECK_ERR(syscall(SYS_getpriority, PRIO_PROCESS, (long)INT_MIN),
	    ESRCH);
	CHECK_ERR(syscall(SYS_getpriority, PRIO_PGRP, (long)INT_MIN), ESRCH);
	CHECK_ERR(syscall(SYS_getpriority, PRIO_PROCESS, (long)INT_MAX),
	    ESRCH);
	CHECK_ERR(syscall(SYS_getpriority, PRIO_USER, (long)INT_MAX), ESRCH);
	CHECK(syscall(SYS_getpriority, HI | PRIO_PROCESS, HI) > 0,
	    "getpriority with high bits");
	/* Out-of-range nice values are clamped to 19. */
	CHECK_EQ(syscall(SYS_setpriority, PRIO_PROCESS, 0, INT_MAX), 0);
	CHECK_EQ(syscall(SYS_getpriority, PRIO_PROCESS, 0), 1);
	CHECK_EQ(syscall(SYS_setpriority, PRIO_PROCESS, 0, HI | 19), 0);
	CHECK_ERR(syscall(SYS_ioprio_get, INT_MAX, 0), EINVAL);
	CHECK_ERR(syscall(SYS_ioprio_get, -1L, 0), EINVAL);
	CHECK_ERR(syscall(SYS_ioprio_get, 1, (long)INT_MIN), ESRCH);
	CHECK_ERR(syscall(SYS_ioprio_set, 1, 0, INT_MAX), EINVAL);
	CHECK_ERR(syscall(SYS_ioprio_set, 1, 0, -1L), EINVAL);
}

static void
check_prctl(void)
{
	long dumpable = syscall(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0);

	CHECK_ERR(syscall(SYS_prctl, INT_MAX, 0, 0, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_prctl, -1L, 0, 0, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_prctl, INT_MIN, 0, 0, 0, 0), EINVAL);
	CHECK_EQ(syscall(SYS_prctl, HI | PR_GET_DUMPABLE, 0, 0, 0, 0),
	    dumpable);
	CHECK_ERR(syscall(SYS_prctl, PR_SET_PDEATHSIG, 65, 0, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_prctl, PR_SET_PDEATHSIG, -1L, 0, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_prctl, PR_SET_PDEATHSIG, HI | SIGUSR1, 0, 0, 0),
	    EINVAL);
	CHECK_ERR(syscall(SYS_prctl, PR_SET_DUMPABLE, HI | 1, 0, 0, 0),
	    EINVAL);
	CHECK_ERR(syscall(SYS_prctl, PR_SET_DUMPABLE, 3, 0, 0, 0), EINVAL);
}

/* arch_prctl's code is an int; ARCH_GET_FS is 0x1003. */
static void
check_arch_prctl(void)
{
	unsigned long fs = 0, fs2 = 1;

	CHECK_EQ(syscall(SYS_arch_prctl, 0x1003, &fs), 0);
	CHECK_EQ(syscall(SYS_arch_prctl, HI | 0x1003, &fs2), 0);
	CHECK_EQ(fs2, fs);
	CHECK_ERR(syscall(SYS_arch_prctl, INT_MAX, &fs2), EINVAL);
	CHECK_ERR(syscall(SYS_arch_prctl, -1L, &fs2), EINVAL);
}

static void
check_personality(void)
{
	long cur = syscall(SYS_personality, 0xffffffffL);

	CHECK_EQ(syscall(SYS_personality, (long)0xffffffffffffffffUL), cur);
	CHECK_EQ(syscall(SYS_personality, HI | 0xffffffffL), cur);
	CHECK_EQ(syscall(SYS_personality, HI | cur), cur);
	CHECK_EQ(syscall(SYS_personality, 0xffffffffL), cur);
}

static void
check_itimer(void)
{
	struct itimerval v = { { 0, 0 }, { 0, 0 } };

	CHECK_ERR(syscall(SYS_getitimer, 3, &v), EINVAL);
	CHECK_ERR(syscall(SYS_getitimer, INT_MAX, &v), EINVAL);
	CHECK_ERR(syscall(SYS_getitimer, -1L, &v), EINVAL);
	CHECK_ERR(syscall(SYS_getitimer, INT_MIN, &v), EINVAL);
	CHECK_EQ(syscall(SYS_getitimer, HI | ITIMER_REAL, &v), 0);
	CHECK_ERR(syscall(SYS_setitimer, INT_MAX, &v, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_setitimer, -1L, &v, NULL), EINVAL);
	CHECK_EQ(syscall(SYS_setitimer, HI | ITIMER_VIRTUAL, &v, NULL), 0);
	v.it_value.tv_usec = 1000000;
	CHECK_ERR(syscall(SYS_setitimer, ITIMER_REAL, &v, NULL), EINVAL);
	v.it_value.tv_usec = -1;
	CHECK_ERR(syscall(SYS_setitimer, ITIMER_REAL, &v, NULL), EINVAL);
	v.it_value.tv_usec = 0;
	v.it_value.tv_sec = -1;
	CHECK_ERR(syscall(SYS_setitimer, ITIMER_REAL, &v, NULL), EINVAL);
	v.it_value.tv_sec = LONG_MAX;
	CHECK_EQ(syscall(SYS_setitimer, ITIMER_REAL, &v, NULL), 0);
	v.it_value.tv_sec = 0;
	CHECK_EQ(syscall(SYS_setitimer, ITIMER_REAL, &v, NULL), 0);
	CHECK_EQ(syscall(SYS_alarm, HI), 0);
	CHECK_EQ(syscall(SYS_alarm, UINT_MAX), 0);
	CHECK(syscall(SYS_alarm, 0) > 0, "alarm(UINT_MAX) was set");
}

/* clone's flags are its register's low 32 bits; clone3's are 64. */
static void
check_clone(void)
{
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
		uint64_t stack, stack_size, tls, set_tid, set_tid_size;
		uint64_t cgroup, beyond[3];
	} ca = { .exit_signal = SIGCHLD };
	int st = -1;
	long pid;

	pid = syscall(SYS_clone, HI | SIGCHLD, 0, NULL, NULL, 0);
	if (pid == 0)
		_exit(7);
	if (CHECK(pid > 0, "clone(2^32 | SIGCHLD)")) {
		CHECK_EQ(syscall(SYS_wait4, pid, &st, 0, NULL), pid);
		CHECK_EQ(st, 7 << 8);
	}
	ca.exit_signal = 65;
	CHECK_ERR(syscall(SYS_clone3, &ca, sizeof(ca)), EINVAL);
	ca.exit_signal = HI | SIGCHLD;
	CHECK_ERR(syscall(SYS_clone3, &ca, sizeof(ca)), EINVAL);
	ca.exit_signal = SIGCHLD;
	ca.flags = HI << 8;
	CHECK_ERR(syscall(SYS_clone3, &ca, sizeof(ca)), EINVAL);
	ca.flags = 0;
	ca.stack = (uint64_t)-0x1000L;
	ca.stack_size = 0x2000;
	CHECK_ERR(syscall(SYS_clone3, &ca, sizeof(ca)), EINVAL);
	ca.stack = 0x1000;
	ca.stack_size = (uint64_t)-1L;
	CHECK_ERR(syscall(SYS_clone3, &ca, sizeof(ca)), EINVAL);
	CHECK_ERR(syscall(SYS_clone3, &ca, HI | sizeof(ca)), E2BIG);
	/* Bytes past the struct the kernel knows must be zero. */
	ca.stack = 0;
	ca.stack_size = 0;
	ca.exit_signal = 65;
	CHECK_ERR(syscall(SYS_clone3, &ca, sizeof(ca)), EINVAL);
	ca.beyond[2] = 1;
	CHECK_ERR(syscall(SYS_clone3, &ca, sizeof(ca)), E2BIG);
	CHECK_ERR(syscall(SYS_clone3, &ca, sizeof(ca) - 8), EINVAL);
	CHECK_ERR(syscall(SYS_clone3, &ca, 63), EINVAL);
	CHECK_ERR(syscall(SYS_clone3, &ca, 4097), E2BIG);
}

int
main(int argc, char **argv)
{
	int r;

	if ((r = int_drop_if_asked(argc, argv)) != 0)
		return r;
	check_clone();
	check_wait();
	check_ids();
	check_rlimit();
	check_sched();
	check_prctl();
	check_personality();
	check_arch_prctl();
	check_itimer();
	return guest_done();
}
