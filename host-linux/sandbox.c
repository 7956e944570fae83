/*
 * vkernel's own sandbox, put on after start-up and before the lock-down:
 * the host powers start-up needed are given up, so that a guest which
 * took over the vkernel holds no more of the host than the vkernel's
 * files and stubs.
 *
 * Capabilities.  In its own user namespace (namespace.c) a capability
 * the vkernel keeps holds over that namespace's objects only: its stubs,
 * and host files whose owners are mapped, which as root is all of them.
 * Its stubs are its children, traced since their birth (ptrace requests
 * on a tracee need no capability).  Started by an unprivileged user, its
 * stubs are of its uid (kill and sched_setaffinity match by uid) and it
 * keeps nothing, as it held nothing on the host.  Started by root, its
 * stubs are host uid 65534, so it keeps CAP_KILL and CAP_SYS_NICE for
 * them, which reach no host process from its user namespace.  Without
 * one, its stubs are its own uid and these two are not kept.  Host files
 * are another matter when the vkernel runs as root: hostfs checks the
 * guest's permissions itself and then acts with the vkernel's, so a guest
 * root expects root's powers over files of other host users.  Kept, and
 * only when the vkernel had them:
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
 * Not dumpable: no core file of the vkernel's memory, and no other
 * process of the same uid may open its /proc/PID/mem or ptrace it without
 * CAP_SYS_PTRACE.
 *
 * The root: an empty tmpfs (namespace.c), entered before Landlock, which
 * forbids mounts.
 *
 * Landlock, where the host has it: host files are reached beneath the
 * directories hostfs opened at start-up (the root layer and the binds),
 * and /proc for the CPU time of stub threads: reads there, and writes
 * beneath read-write binds only; with --crash-dir, new directories and
 * files beneath it for a crash report.  An open or a change anywhere else, and
 * TCP and abstract-socket connections where the ABI can say so, are
 * refused, even by a call that escaped hostfs's RESOLVE_BENEATH.  Files
 * open before (the console, the RAM file, --strace's) are not affected.
 * Signals are left unscoped: the stubs, forked before, are outside the
 * domain and are signalled.
 *
 * RLIMIT_NPROC 0: the vkernel makes no process after start-up (its stubs
 * are forked before, and theirs are counted against their own limit).
 * RLIMIT_NOFILE stays where start-up put it (hostfs holds a host fd per
 * live vnode), and the hard limit cannot be raised once
 * CAP_SYS_RESOURCE is gone.
 */
#include <errno.h>
#include <stddef.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host-linux/host.h"

#define CAP_BIT(c) (1ULL << (c))
#define SANDBOX_CAPS_STUBS CAP_BIT(CAP_KILL) | CAP_BIT(CAP_SYS_NICE)
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
	/* In vkernel's own user namespace it holds them all: see above. */
	if (!sandbox_ns_host_root())
		keep = 0;
	else if (sandbox_ns(NULL) == SANDBOX_NS_USER)
		keep |= SANDBOX_CAPS_STUBS;
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

/* Rights of later ABIs than the build's headers may know. */
#define LL_FS_TRUNCATE (1ULL << 14)       /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15)      /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0)       /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */

#define LL_FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_FS_WRITE \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
	LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR | \
	LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
	LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM | \
	LANDLOCK_ACCESS_FS_REFER | LL_FS_TRUNCATE)

/* A crash report: a new directory of new files beneath --crash-dir. */
#define LL_FS_CRASH \
	(LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | \
	LANDLOCK_ACCESS_FS_WRITE_FILE)

/* struct landlock_ruleset_attr of ABI 6; older ABIs take a prefix. */
struct ll_ruleset {
	uint64_t fs, net, scoped;
};

static int landlock_abi;

int
sandbox_landlock_abi(void)
{
	return landlock_abi;
}

static int
ll_allow(int ruleset, int dirfd, uint64_t access, uint64_t handled)
{
	struct landlock_path_beneath_attr pb = {
		.allowed_access = access & handled,
		.parent_fd = dirfd,
	};

	return (int)syscall(SYS_landlock_add_rule, ruleset,
	    LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
}

static int
ll_rules(int ruleset, uint64_t handled, const bool *rw, unsigned nrw)
{
	const int *fds;
	unsigned n = hostfs_root_fds(&fds);

	if (n != nrw) {
		errno = EINVAL;
		return -1;
	}
	for (unsigned i = 0; i < n; i++)
		if (ll_allow(ruleset, fds[i], LL_FS_READ |
		    (rw[i] ? LL_FS_WRITE : 0), handled) < 0)
			return -1;
	if (cputime_proc_fd() >= 0 &&
	    ll_allow(ruleset, cputime_proc_fd(), LL_FS_READ, handled) < 0)
		return -1;
	if (crash_dir_fd() >= 0 && ll_allow(ruleset, crash_dir_fd(),
	    LL_FS_CRASH, handled) < 0)
		return -1;
	return 0;
}

static int
landlock_apply(enum sandbox_landlock mode, const bool *rw, unsigned nrw,
    bool net_host, struct vk_error **err)
{
	struct ll_ruleset attr = { 0 };
	size_t size = sizeof(attr.fs);
	int abi, fd, r, e;

	if (mode == SANDBOX_LANDLOCK_OFF)
		return 0;
	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1 && mode == SANDBOX_LANDLOCK_AUTO)
		return 0;
	if (abi < 1)
		return vk_error_make(err, errno, "--landlock=required: the "
		    "host has no Landlock");
	/* Every right the ABI knows is handled; execute is never granted. */
	attr.fs = LANDLOCK_ACCESS_FS_EXECUTE | LL_FS_READ | LL_FS_WRITE |
	    LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK;
	if (abi < 2)
		attr.fs &= ~LANDLOCK_ACCESS_FS_REFER;
	if (abi < 3)
		attr.fs &= ~LL_FS_TRUNCATE;
	/* The host network's binds and connects are the guest's to make. */
	if (abi >= 4) {
		attr.net = net_host ? 0 : LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		size = offsetof(struct ll_ruleset, scoped);
	}
	if (abi >= 5)
		attr.fs |= LL_FS_IOCTL_DEV;
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX;
		size = sizeof(attr);
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (fd < 0)
		return vk_error_make(err, errno, "sandbox: Landlock ruleset");
	r = ll_rules(fd, attr.fs, rw, nrw);
	if (r == 0)
		r = (int)syscall(SYS_landlock_restrict_self, fd, 0);
	e = errno;
	close(fd);
	if (r < 0)
		return vk_error_make(err, e, "sandbox: Landlock rules");
	landlock_abi = abi;
	return 0;
}

int
sandbox_harden(enum sandbox_landlock ll, const bool *rw, unsigned nrw,
    bool net_host, struct vk_error **err)
{
	bool rw_binds = false;
	int r;

	for (unsigned i = 0; i < nrw; i++)
		rw_binds |= rw[i];

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return vk_error_make(err, errno, "sandbox: set not dumpable");
#ifndef VK_SANITIZE
	/* A sanitizer's leak checker starts a thread at exit. */
	if (setrlimit(RLIMIT_NPROC, &(struct rlimit){ 0, 0 }) < 0)
		return vk_error_make(err, errno, "sandbox: RLIMIT_NPROC");
#endif
	/* Landlock without CAP_SYS_ADMIN wants it; the lock-down too. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return vk_error_make(err, errno, "sandbox: set no_new_privs");
	/* Before Landlock, which forbids mounts. */
	if ((r = sandbox_ns_chroot(err)) < 0 ||
	    (r = landlock_apply(ll, rw, nrw, net_host, err)) < 0)
		return r;
	return caps_drop(rw_binds, err);
}
