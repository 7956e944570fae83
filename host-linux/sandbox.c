/*
 * vkernel's own sandbox, put on after start-up and before the lock-down:
 * the host powers start-up needed are given up, so that a guest which
 * took over the vkernel holds no more of the host than the vkernel's
 * files and stubs.
 *
 * Capabilities.  After start-up the vkernel needs none for its stubs:
 * they are its children, traced since their birth (ptrace requests on a
 * tracee need no capability), of its own uid (kill and sched_setaffinity
 * match by uid), and in a user namespace it owns.  Host files are another
 * matter when the vkernel runs as root: hostfs checks the guest's
 * permissions itself and then acts with the vkernel's, so a guest root
 * expects root's powers over files of other host users.  Kept, and only
 * when the vkernel had them:
 *   CAP_DAC_OVERRIDE  read (and, in rw binds, write) files and search
 *                     directories whatever their modes;
 * and only with a read-write bind, where the guest changes host files:
 *   CAP_CHOWN         chown of a host file;
 *   CAP_FOWNER        chmod, utimens, sticky-directory unlink and hard
 *                     links of files owned by another host user;
 *   CAP_FSETID        set-group-ID kept by chmod of a file of another
 *                     group, and set-ID bits cleared on a write only as
 *                     Linux clears them for the guest.
 * CAP_DAC_READ_SEARCH is not kept: CAP_DAC_OVERRIDE covers its reads, and
 * it alone would open any host file by handle.  Everything else goes from
 * every set; the bounding set is emptied when CAP_SETPCAP allows it (a
 * process without it cannot change the set, but then it cannot gain
 * anything through execve either, which no_new_privs and the lock-down
 * rule out anyway).
 *
 * no_new_privs comes with the lock-down, which needs it.
 *
 * Not dumpable: no core file of the vkernel's memory, and no other
 * process of the same uid may open its /proc/PID/mem or ptrace it without
 * CAP_SYS_PTRACE.
 *
 * RLIMIT_NPROC 0: the vkernel makes no process after start-up (its stubs
 * are forked before, and theirs are counted against their own limit).
 * RLIMIT_NOFILE stays where start-up put it (hostfs holds a host fd per
 * live vnode), and the hard limit cannot be raised once
 * CAP_SYS_RESOURCE is gone.
 */
#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host-linux/host.h"

#define CAP_BIT(c) (1ULL << (c))
#define SANDBOX_CAPS_READ CAP_BIT(CAP_DAC_OVERRIDE)
#define SANDBOX_CAPS_WRITE \
	(CAP_BIT(CAP_CHOWN) | CAP_BIT(CAP_FOWNER) | CAP_BIT(CAP_FSETID))

static int
caps_get(uint64_t *permitted, struct vk_error **err)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &hdr, d) < 0)
		return vk_error_make(err, errno, "sandbox: read capabilities");
	*permitted = d[0].permitted | (uint64_t)d[1].permitted << 32;
	return 0;
}

static int
caps_set(uint64_t keep, struct vk_error **err)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = {
		{ (uint32_t)keep, (uint32_t)keep, 0 },
		{ (uint32_t)(keep >> 32), (uint32_t)(keep >> 32), 0 },
	};

	if (syscall(SYS_capset, &hdr, d) < 0)
		return vk_error_make(err, errno, "sandbox: drop capabilities");
	return 0;
}

static int
caps_drop(bool rw_binds, struct vk_error **err)
{
	uint64_t permitted = 0, keep = SANDBOX_CAPS_READ;
	int r;

	if (rw_binds)
		keep |= SANDBOX_CAPS_WRITE;
	if ((r = caps_get(&permitted, err)) < 0)
		return r;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return vk_error_make(err, errno, "sandbox: clear ambient "
		    "capabilities");
	if (permitted & CAP_BIT(CAP_SETPCAP)) {
		/* Up to the first the host does not know (EINVAL). */
		for (int c = 0; prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0; c++)
			;
		if (errno != EINVAL)
			return vk_error_make(err, errno, "sandbox: empty the "
			    "capability bounding set");
	}
	return caps_set(keep & permitted, err);
}

int
sandbox_harden(bool rw_binds, struct vk_error **err)
{
	int r;

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return vk_error_make(err, errno, "sandbox: set not dumpable");
#ifndef VK_SANITIZE
	/* A sanitizer's leak checker starts a thread at exit. */
	if (setrlimit(RLIMIT_NPROC, &(struct rlimit){ 0, 0 }) < 0)
		return vk_error_make(err, errno, "sandbox: RLIMIT_NPROC");
#endif
	if ((r = caps_drop(rw_binds, err)) < 0)
		return r;
	return 0;
}
