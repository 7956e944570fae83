/*
 * sysfs: the few files of /sys that programs read to count CPUs.
 *
 * glibc's get_nprocs() and sysconf(_SC_NPROCESSORS_ONLN) read
 * /sys/devices/system/cpu/online, and libgomp, Go and Rust runtimes read
 * possible and present as well; each is a CPU list in Linux's "%*pbl"
 * format.  Others (stress-ng, glibc's get_nprocs_conf()) count the cpuN
 * directories and read cpuN/online.  Every CPU the platform reports is
 * possible, present and online.  /sys/kernel/debug holds KCOV (kcov.h).
 */
#include "vkern/kern/kcov.h"
#include "vkern/platform.h"
#include "vkern/vfs/procfs/procfs.h"
#include "vkern/vfs/procfs/pseudofs.h"
#include "vkern/vk.h"

static int sysfs_gen_cpulist(const struct pfs_ctx *, struct sbuf *);
static bool sysfs_cpu_hotpluggable(const struct pfs_ctx *);
static bool sysfs_kcov_exists(const struct pfs_ctx *);

enum sysfs_kind {
	SK_ROOT, SK_DEVICES, SK_SYSTEM, SK_CPU, SK_ONLINE, SK_POSSIBLE,
	SK_PRESENT, SK_CPUN, SK_CPUN_ONLINE, SK_KERNEL, SK_DEBUG, SK_KCOV,
	SK_NKINDS
};

#define SDIR(n, par) { .name = n, .parent = par, .mode = S_IFDIR | 0755 }
#define SLIST(n) { .name = n, .parent = SK_CPU, .mode = PFS_FILE, \
	.gen = sysfs_gen_cpulist }

/* Directories are 0755 in Linux's sysfs, unlike procfs's. */
static const struct pfs_spec sysfs_specs[SK_NKINDS] = {
	[SK_ROOT] = SDIR("", SK_ROOT),
	[SK_DEVICES] = SDIR("devices", SK_ROOT),
	[SK_SYSTEM] = SDIR("system", SK_DEVICES),
	[SK_CPU] = { .name = "cpu", .parent = SK_SYSTEM, .mode = S_IFDIR | 0755,
	    .numbered = SK_CPUN },
	[SK_ONLINE] = SLIST("online"),
	[SK_POSSIBLE] = SLIST("possible"),
	[SK_PRESENT] = SLIST("present"),
	[SK_CPUN] = { .parent = SK_CPU, .mode = S_IFDIR | 0755,
	    .scope = PFS_CPU, .prefix = "cpu" },
	/* x86's boot CPU cannot go offline: Linux gives it no such file. */
	[SK_CPUN_ONLINE] = { .name = "online", .parent = SK_CPUN,
	    .mode = S_IFREG | 0644, .scope = PFS_CPU, .text = "1\n",
	    .exists = sysfs_cpu_hotpluggable },
	/*
	 * debugfs's place, root's alone as on Linux, with KCOV in a
	 * -Dkcov=true build; its opens are kcov_open()'s.
	 */
	[SK_KERNEL] = SDIR("kernel", SK_ROOT),
	[SK_DEBUG] = { .name = "debug", .parent = SK_KERNEL,
	    .mode = S_IFDIR | 0700 },
	[SK_KCOV] = { .name = "kcov", .parent = SK_DEBUG,
	    .mode = S_IFREG | 0600, .exists = sysfs_kcov_exists },
};

static bool
sysfs_kcov_exists(const struct pfs_ctx *c)
{
	return kcov_built;
}

bool
sysfs_is_kcov(const struct vnode *vn)
{
	int kind, pid;

	return pfs_vnode_key(vn, sysfs_specs, &kind, &pid) && kind == SK_KCOV;
}

static bool
sysfs_cpu_hotpluggable(const struct pfs_ctx *c)
{
	return c->arg != 0;
}

static int
sysfs_gen_cpulist(const struct pfs_ctx *c, struct sbuf *sb)
{
	int n = plat_ncpus();

	if (n > 1)
		sbuf_printf(sb, "0-%d\n", n - 1);
	else
		sbuf_printf(sb, "0\n");
	return 0;
}

int
sysfs_mount(struct mount **mpp)
{
	return pfs_mount("sysfs", sysfs_specs, VK_NELEM(sysfs_specs), true,
	    mpp);
}

void
sysfs_unmount(struct mount *mp)
{
	pfs_unmount(mp);
}
