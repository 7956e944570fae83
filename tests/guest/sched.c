/* The scheduler calls: affinity, priorities, policies, getcpu, membarrier. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

/* linux/membarrier.h's commands, not in musl's headers. */
enum {
	MB_QUERY = 0, MB_GLOBAL = 1, MB_GLOBAL_EXPEDITED = 2,
	MB_REGISTER_GLOBAL_EXPEDITED = 4, MB_PRIVATE_EXPEDITED = 8,
	MB_REGISTER_PRIVATE_EXPEDITED = 16, MB_SYNC_CORE = 32,
	MB_REGISTER_SYNC_CORE = 64, MB_RSEQ = 128, MB_REGISTER_RSEQ = 256,
	MB_GET_REGISTRATIONS = 512,
};

static long
mb(int cmd, unsigned flags, int cpu)
{
	return syscall(SYS_membarrier, cmd, flags, cpu);
}

static volatile int spin_stop;

static void *
spinner(void *arg)
{
	(void)arg;
	while (!spin_stop)
		;
	return NULL;
}

/*
 * The private commands need their registration, which fork keeps and exec
 * drops; every barrier succeeds while another thread runs (on another CPU
 * too, with --cpus 2).
 */
static void
check_membarrier(char *self)
{
	const int regs = MB_REGISTER_GLOBAL_EXPEDITED |
	    MB_REGISTER_PRIVATE_EXPEDITED | MB_REGISTER_SYNC_CORE |
	    MB_REGISTER_RSEQ;
	pthread_t t;
	pid_t pid;
	int st;

	CHECK_EQ(mb(MB_QUERY, 0, 0) & 0x3ff, 0x3ff);
	CHECK_ERR(mb(MB_QUERY, 1, 0), EINVAL);
	CHECK_ERR(mb(3, 0, 0), EINVAL);
	CHECK_ERR(mb(1024, 0, 0), EINVAL);
	CHECK_ERR(mb(MB_GLOBAL, 1, 0), EINVAL);
	CHECK_ERR(mb(MB_REGISTER_PRIVATE_EXPEDITED, 1, 0), EINVAL);
	CHECK_EQ(mb(MB_GET_REGISTRATIONS, 0, 0), 0);
	CHECK_ERR(mb(MB_PRIVATE_EXPEDITED, 0, 0), EPERM);
	CHECK_ERR(mb(MB_SYNC_CORE, 0, 0), EPERM);
	CHECK_ERR(mb(MB_RSEQ, 0, 0), EPERM);
	CHECK_OK(mb(MB_GLOBAL_EXPEDITED, 0, 0));
	for (int r = MB_REGISTER_GLOBAL_EXPEDITED; r <= MB_REGISTER_RSEQ;
	    r <<= 2)
		CHECK_OK(mb(r, 0, 0));
	CHECK_EQ(mb(MB_GET_REGISTRATIONS, 0, 0), regs);
	CHECK_OK(pthread_create(&t, NULL, spinner, NULL));
	CHECK_OK(mb(MB_GLOBAL, 0, 0));
	CHECK_OK(mb(MB_PRIVATE_EXPEDITED, 0, 0));
	CHECK_OK(mb(MB_SYNC_CORE, 0, 0));
	CHECK_OK(mb(MB_RSEQ, 0, 0));
	CHECK_OK(mb(MB_RSEQ, 1, 0));
	CHECK_ERR(mb(MB_RSEQ, 2, 0), EINVAL);
	spin_stop = 1;
	CHECK_OK(pthread_join(t, NULL));
	if ((pid = fork()) == 0)
		_exit(mb(MB_GET_REGISTRATIONS, 0, 0) == regs ? 0 : 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork keeps them: %#x",
	    st);
	if ((pid = fork()) == 0) {
		execl(self, self, "unregistered", (char *)NULL);
		_exit(2);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exec drops them: %#x",
	    st);
}

#define IOPRIO(c, l)	(((c) << 13) | (l))

static long
ioprio_set(int which, int who, int v)
{
	return syscall(SYS_ioprio_set, which, who, v);
}

/*
 * I/O priorities: a thread's own value back, none (0) at first; the
 * classes' rules (a level only with RT and BE, none with no class, hints
 * between); 16 bits kept; a child keeps its parent's.
 */
static void
check_ioprio(void)
{
	pid_t pid;
	int st;

	CHECK_EQ(syscall(SYS_ioprio_get, 1, 0), 0);
	CHECK_OK(ioprio_set(1, 0, IOPRIO(2, 3)));
	CHECK_EQ(syscall(SYS_ioprio_get, 1, 0), IOPRIO(2, 3));
	CHECK_EQ(syscall(SYS_ioprio_get, 1, getpid()), IOPRIO(2, 3));
	CHECK_EQ(syscall(SYS_ioprio_get, 2, 0), IOPRIO(2, 3));
	CHECK_OK(ioprio_set(1, 0, IOPRIO(2, 8)));
	CHECK_EQ(syscall(SYS_ioprio_get, 1, 0), IOPRIO(2, 8));
	CHECK_OK(ioprio_set(1, 0, IOPRIO(3, 5)));
	CHECK_EQ(syscall(SYS_ioprio_get, 1, 0), IOPRIO(3, 5));
	CHECK_ERR(ioprio_set(1, 0, IOPRIO(0, 1)), EINVAL);
	CHECK_ERR(ioprio_set(1, 0, IOPRIO(4, 0)), EINVAL);
	CHECK_ERR(ioprio_set(1, 0, -1), EINVAL);
	CHECK_ERR(ioprio_set(0, 0, IOPRIO(2, 1)), EINVAL);
	CHECK_ERR(ioprio_set(4, 0, IOPRIO(2, 1)), EINVAL);
	CHECK_ERR(syscall(SYS_ioprio_get, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_ioprio_get, 1, 999999), ESRCH);
	CHECK_ERR(ioprio_set(1, 999999, IOPRIO(2, 1)), ESRCH);
	CHECK_OK(ioprio_set(1, 0, 0x10000 | IOPRIO(2, 1)));
	CHECK_EQ(syscall(SYS_ioprio_get, 1, 0), IOPRIO(2, 1));
	if ((pid = fork()) == 0)
		_exit(syscall(SYS_ioprio_get, 1, 0) == IOPRIO(2, 1) ? 0 : 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child's ioprio");
	CHECK_OK(ioprio_set(1, 0, 0));
}

int
main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 1 };
	cpu_set_t set;
	unsigned cpu = 99, node = 99;

	if (argc > 1)
		return mb(MB_GET_REGISTRATIONS, 0, 0) == 0 ? 0 : 1;

	CHECK_OK(sched_getaffinity(0, sizeof(set), &set));
	CHECK(CPU_COUNT(&set) >= 1, "at least one CPU");
	CHECK_OK(sched_setaffinity(0, sizeof(set), &set));
	CPU_ZERO(&set);
	CHECK_ERR(sched_setaffinity(0, sizeof(set), &set), EINVAL);
	CHECK_OK(syscall(SYS_getcpu, &cpu, &node, NULL));
	CHECK(cpu < 1024 && node < 64, "getcpu: %u %u", cpu, node);
	CHECK_OK(setpriority(PRIO_PROCESS, 0, 5));
	errno = 0;
	CHECK_EQ(getpriority(PRIO_PROCESS, 0), 5);
	CHECK_EQ(syscall(SYS_getpriority, PRIO_PROCESS, 0), 15);
	CHECK_ERR(getpriority(42, 0), EINVAL);
	/* Raw calls: musl's wrappers refuse these on purpose (ENOSYS). */
	CHECK_EQ(syscall(SYS_sched_getscheduler, 0), SCHED_OTHER);
	CHECK_OK(syscall(SYS_sched_getparam, 0, &sp));
	CHECK_EQ(sp.sched_priority, 0);
	sp.sched_priority = 0;
	CHECK_OK(syscall(SYS_sched_setscheduler, 0, SCHED_BATCH, &sp));
	CHECK_EQ(syscall(SYS_sched_getscheduler, 0), SCHED_BATCH);
	CHECK_EQ(syscall(SYS_sched_getscheduler, getpid()), SCHED_BATCH);
	CHECK_OK(syscall(SYS_sched_setparam, 0, &sp));
	CHECK_EQ(syscall(SYS_sched_getscheduler, 0), SCHED_BATCH);
	sp.sched_priority = 5;
	CHECK_ERR(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &sp), EINVAL);
	CHECK_ERR(syscall(SYS_sched_setparam, 0, &sp), EINVAL);
	CHECK_ERR(syscall(SYS_sched_setscheduler, 0, 12345, &sp), EINVAL);
	CHECK_ERR(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_sched_setscheduler, -1, SCHED_OTHER, &sp), EINVAL);
	CHECK_ERR(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, (void *)8),
	    EFAULT);
	sp.sched_priority = 0;
	CHECK_ERR(syscall(SYS_sched_setscheduler, 999999, SCHED_OTHER, &sp),
	    ESRCH);
	CHECK_OK(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &sp));
	CHECK_EQ(syscall(SYS_sched_getscheduler, 0), SCHED_OTHER);
	/* The fair class's slice: 0 alone on a CPU, always below 1 s. */
	struct timespec rr = { -1, -1 };
	CHECK_OK(syscall(SYS_sched_rr_get_interval, 0, &rr));
	CHECK(rr.tv_sec == 0 && rr.tv_nsec >= 0 && rr.tv_nsec < 1000000000,
	    "sched_rr_get_interval: %ld.%09ld", (long)rr.tv_sec,
	    (long)rr.tv_nsec);
	CHECK_ERR(syscall(SYS_sched_rr_get_interval, -1, &rr), EINVAL);
	CHECK_ERR(syscall(SYS_sched_rr_get_interval, 999999, &rr), ESRCH);
	CHECK_ERR(syscall(SYS_sched_rr_get_interval, 0, (void *)8), EFAULT);
	CHECK_EQ(sched_get_priority_max(SCHED_FIFO), 99);
	CHECK_EQ(sched_get_priority_min(SCHED_RR), 1);
	CHECK_ERR(sched_get_priority_max(12345), EINVAL);
	check_ioprio();
	check_membarrier(argv[0]);
	CHECK_EQ(personality(0xffffffff), PER_LINUX);
	return guest_done();
}
