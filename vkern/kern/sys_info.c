/*
 * System facts: uname, sysinfo, getrandom.
 *
 * The guest is told it runs Linux of the host's release (programs check
 * the version for features) on a machine named "vkernel", with the memory
 * its --mem allows.
 */
#include <errno.h>
#include <limits.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/utsname.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"
#include "vkern/vm/vm_ram.h"

#define MAX_RW_COUNT (INT_MAX & ~(int)VK_PAGE_MASK)

long
sys_uname(struct thread *td, const struct sys_uname_args *a)
{
	struct new_utsname u;

	memset(&u, 0, sizeof(u));
	snprintf(u.sysname, sizeof(u.sysname), "Linux");
	snprintf(u.nodename, sizeof(u.nodename), "vkernel");
	snprintf(u.release, sizeof(u.release), "%s", plat_os_release());
	snprintf(u.version, sizeof(u.version), "%s", plat_os_version());
	snprintf(u.machine, sizeof(u.machine), "x86_64");
	snprintf(u.domainname, sizeof(u.domainname), "(none)");
	return copyout(td, &u, a->buf, sizeof(u));
}

long
sys_sysinfo(struct thread *td, const struct sys_sysinfo_args *a)
{
	struct sysinfo si;

	memset(&si, 0, sizeof(si));
	si.uptime = (plat_clock_ns(CLOCK_MONOTONIC) - kern_boot_ns()) /
	    1000000000;
	si.totalram = vm_ram_limit();
	/* The kernel's own objects are charged to the same memory. */
	si.freeram = vm_ram_limit() - VK_MIN(vm_ram_used() + vm_ram_kmem(),
	    vm_ram_limit());
	si.procs = 1;
	si.mem_unit = 1;
	return copyout(td, &si, a->info, sizeof(si));
}

static long
random_fill(void *arg, void *hp, size_t n)
{
	plat_random(hp, n);
	return (long)n;
}

long
sys_getrandom(struct thread *td, const struct sys_getrandom_args *a)
{
	unsigned valid = GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE;

	if (a->flags & ~valid)
		return -EINVAL;
	if ((a->flags & GRND_INSECURE) && (a->flags & GRND_RANDOM))
		return -EINVAL;
	if (a->len == 0)
		return 0;
	return vm_uio(td, a->buf, VK_MIN(a->len, (uint64_t)MAX_RW_COUNT),
	    PLAT_PROT_WRITE, random_fill, NULL);
}
