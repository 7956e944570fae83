/*
 * Scheduling: sched_yield, sched_getaffinity.
 *
 * The guest sees as many CPUs as the host gives the kernel.  Yielding
 * returns at once: the kernel's loop already runs every runnable thread
 * before it serves this one again.
 */
#include <errno.h>
#include <string.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"

long
sys_sched_yield(struct thread *td, const struct sys_sched_yield_args *a)
{
	return 0;
}

long
sys_sched_getaffinity(struct thread *td,
    const struct sys_sched_getaffinity_args *a)
{
	uint64_t mask[16];
	unsigned ncpu = (unsigned)VK_MIN(plat_ncpus(), 64 * 16);
	size_t size = (ncpu + 63) / 64 * sizeof(uint64_t);
	int r;

	if (a->pid != 0 && a->pid != td->proc->pid)
		return -ESRCH;
	/* As Linux: the buffer must hold every possible CPU's bit. */
	if (a->len * 8 < ncpu || (a->len & (sizeof(uint64_t) - 1)) != 0)
		return -EINVAL;
	memset(mask, 0, sizeof(mask));
	for (unsigned i = 0; i < ncpu; i++)
		mask[i / 64] |= 1ULL << (i % 64);
	size = VK_MIN(size, a->len);
	if ((r = copyout(td, mask, a->mask, size)) < 0)
		return r;
	return (long)size;
}
