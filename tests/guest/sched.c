/* The scheduler calls: affinity, priorities, policies, getcpu, membarrier. */
#include <errno.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guest.h"

#define MEMBARRIER_CMD_QUERY 0   /* linux/membarrier.h, not in musl's */

int
main(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	cpu_set_t set;
	unsigned cpu = 99, node = 99;

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
	CHECK_EQ(sched_get_priority_max(SCHED_FIFO), 99);
	CHECK_EQ(sched_get_priority_min(SCHED_RR), 1);
	CHECK_ERR(sched_get_priority_max(12345), EINVAL);
	CHECK(syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0) > 0,
	    "membarrier commands");
	CHECK_ERR(syscall(SYS_membarrier, 3, 0, 0), EINVAL);
	CHECK_EQ(personality(0xffffffff), PER_LINUX);
	return guest_done();
}
