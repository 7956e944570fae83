/*
 * System facts: uname, sethostname, setdomainname, sysinfo, getrandom.
 *
 * The guest is told it runs Linux of the host's release (programs check
 * the version for features) on a machine of its own name (--hostname,
 * "vkernel" by default), with the memory its --mem allows.  The host and
 * domain names are the sandbox's, as in a UTS namespace of its own: a
 * guest root may change them, and the host's never changes.
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

_Static_assert(UTS_NAME_MAX == __NEW_UTS_LEN, "the UAPI's name length");

/* Linux's defaults: "(none)" is what an unset domain name reads as. */
static char uts_names[2][UTS_NAME_MAX + 1] = {
	[UTS_NODENAME] = "vkernel",
	[UTS_DOMAINNAME] = "(none)",
};

const char *
uts_name(enum uts_which w)
{
	return uts_names[w];
}

void
uts_set_name(enum uts_which w, const char *name, size_t len)
{
	len = VK_MIN(len, (size_t)UTS_NAME_MAX);
	memset(uts_names[w], 0, sizeof(uts_names[w]));
	memcpy(uts_names[w], name, len);
}

long
sys_uname(struct thread *td, const struct sys_uname_args *a)
{
	struct new_utsname u;

	memset(&u, 0, sizeof(u));
	snprintf(u.sysname, sizeof(u.sysname), "Linux");
	snprintf(u.nodename, sizeof(u.nodename), "%s", uts_names[UTS_NODENAME]);
	snprintf(u.release, sizeof(u.release), "%s", plat_os_release());
	snprintf(u.version, sizeof(u.version), "%s", plat_os_version());
	snprintf(u.machine, sizeof(u.machine), "x86_64");
	snprintf(u.domainname, sizeof(u.domainname), "%s",
	    uts_names[UTS_DOMAINNAME]);
	return copyout(td, &u, a->buf, sizeof(u));
}

/*
 * sethostname(2), setdomainname(2): Linux checks CAP_SYS_ADMIN, which a
 * guest has as euid 0 (EPERM), then the length (EINVAL), then copies
 * (EFAULT); the name is len bytes, not a string.
 */
static long
uts_sys_set(struct thread *td, enum uts_which w, uaddr_t name, int len)
{
	char buf[UTS_NAME_MAX];
	int r;

	if (td->proc->cred.euid != 0)
		return -EPERM;
	if (len < 0 || len > UTS_NAME_MAX)
		return -EINVAL;
	if ((r = copyin(td, name, buf, (size_t)len)) < 0)
		return r;
	uts_set_name(w, buf, (size_t)len);
	return 0;
}

long
sys_sethostname(struct thread *td, const struct sys_sethostname_args *a)
{
	return uts_sys_set(td, UTS_NODENAME, a->name, a->len);
}

long
sys_setdomainname(struct thread *td, const struct sys_setdomainname_args *a)
{
	return uts_sys_set(td, UTS_DOMAINNAME, a->name, a->len);
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
