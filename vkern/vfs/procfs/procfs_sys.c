/*
 * procfs's system-wide files: memory, CPUs, times, load, mounts, version.
 *
 * Formats are Linux's (fs/proc/meminfo.c, arch/x86/kernel/cpu/proc.c,
 * fs/proc/stat.c, uptime.c, loadavg.c, fs/proc_namespace.c), down to the
 * column widths, because procps and busybox parse them with scanf.  What
 * the vkernel does not track reads as 0: there is no swap, no page cache
 * apart from tmpfs (which is counted as guest memory), no interrupts.
 * Memory is the RAM file's: its limit (--mem) is the machine's memory.
 */
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/platform.h"
#include "vkern/vfs/procfs/procfs_impl.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"
#include "vkern/vm/vm_ram.h"

/* The first mountinfo id; Linux's own mounts take the ones below. */
#define PROCFS_MNTID_BASE 21

/* Totals over the live processes, for stat, uptime and loadavg. */
struct procfs_load {
	int nprocs;             /* threads, with one per process */
	int running;            /* runnable or on a CPU */
	int lastpid;
	int64_t cputime;        /* ns, all processes */
};

static void
procfs_load_scan(struct procfs_load *l)
{
	*l = (struct procfs_load){ 0 };
	for (struct proc *p = proc_first(); p != NULL; p = p->next) {
		l->lastpid = VK_MAX(l->lastpid, p->pid);
		if (p->exiting)
			continue;
		l->nprocs++;
		for (struct thread *td = p->threads; td != NULL; td = td->tnext)
			if (td->state == TD_RUNNABLE || td->state == TD_ONCPU)
				l->running++;
		l->cputime += cpu_proc_ns(p, NULL);
	}
}

/* ns since the boot (pfs_boot_ns), never negative. */
static int64_t
procfs_uptime_ns(void)
{
	return VK_MAX(plat_clock_ns(CLOCK_MONOTONIC) - pfs_boot_ns(), 0);
}

/* CPU time nobody used: every CPU for the whole uptime, less the busy. */
static int64_t
procfs_idle_ns(const struct procfs_load *l)
{
	return VK_MAX(procfs_uptime_ns() * plat_ncpus() - l->cputime, 0);
}

/* One line as Linux's show_val_kb(): the name padded to 16, 8 digits. */
static void
meminfo_line(struct sbuf *sb, const char *name, uint64_t kb, bool unit)
{
	char key[32];

	snprintf(key, sizeof(key), "%s:", name);
	sbuf_printf(sb, "%-16s%8llu%s\n", key, (unsigned long long)kb,
	    unit ? " kB" : "");
}

int
procfs_gen_meminfo(const struct pfs_ctx *c, struct sbuf *sb)
{
	uint64_t total = vm_ram_limit() / 1024, used = vm_ram_used() / 1024;
	uint64_t slab = vm_ram_kmem() / 1024;
	uint64_t avail = total > used + slab ? total - used - slab : 0;
	const struct {
		const char *name;
		uint64_t kb;
	} rows[] = {
		{ "MemTotal", total }, { "MemFree", avail },
		{ "MemAvailable", avail }, { "Buffers", 0 }, { "Cached", 0 },
		{ "SwapCached", 0 }, { "Active", used }, { "Inactive", 0 },
		{ "Active(anon)", used }, { "Inactive(anon)", 0 },
		{ "Active(file)", 0 }, { "Inactive(file)", 0 },
		{ "Unevictable", 0 }, { "Mlocked", 0 }, { "SwapTotal", 0 },
		{ "SwapFree", 0 }, { "Dirty", 0 }, { "Writeback", 0 },
		{ "AnonPages", used }, { "Mapped", 0 }, { "Shmem", 0 },
		{ "KReclaimable", 0 }, { "Slab", slab }, { "SReclaimable", 0 },
		{ "SUnreclaim", slab }, { "KernelStack", 0 }, { "PageTables", 0 },
		{ "NFS_Unstable", 0 }, { "Bounce", 0 }, { "WritebackTmp", 0 },
		{ "CommitLimit", total }, { "Committed_AS", used },
		/* x86-64's vmalloc area: 32 TiB. */
		{ "VmallocTotal", 34359738367ULL }, { "VmallocUsed", 0 },
		{ "VmallocChunk", 0 }, { "Percpu", 0 },
		{ "HardwareCorrupted", 0 }, { "AnonHugePages", 0 },
		{ "ShmemHugePages", 0 }, { "ShmemPmdMapped", 0 },
		{ "FileHugePages", 0 }, { "FilePmdMapped", 0 },
	};

	for (size_t i = 0; i < VK_NELEM(rows); i++)
		meminfo_line(sb, rows[i].name, rows[i].kb, true);
	/* The huge page counts are pages, without a unit. */
	meminfo_line(sb, "HugePages_Total", 0, false);
	meminfo_line(sb, "HugePages_Free", 0, false);
	meminfo_line(sb, "HugePages_Rsvd", 0, false);
	meminfo_line(sb, "HugePages_Surp", 0, false);
	meminfo_line(sb, "Hugepagesize", 2048, true);
	meminfo_line(sb, "Hugetlb", 0, true);
	meminfo_line(sb, "DirectMap4k", total, true);
	return 0;
}

/*
 * What every x86-64 CPU has (the x86-64 baseline), in Linux's spelling
 * (arch/x86/include/asm/cpufeatures.h).  XXX: the host's own flags are
 * not to be had: platform.h has no CPUID hook, and AT_HWCAP is no help
 * because glibc replaces it on x86 with its own HWCAP_X86_* bits.
 */
static const char cpuinfo_flags[] =
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat "
    "pse36 clflush mmx fxsr sse sse2 syscall nx lm";

/*
 * XXX: platform.h has no hook for the host CPU's identity (vendor,
 * family, model, speed), so each CPU is a generic one; tools count the
 * "processor" lines and read the flags.
 */
int
procfs_gen_cpuinfo(const struct pfs_ctx *c, struct sbuf *sb)
{
	int n = plat_ncpus();

	for (int i = 0; i < n; i++) {
		sbuf_printf(sb, "processor\t: %d\nvendor_id\t: GenuineIntel\n"
		    "cpu family\t: 6\nmodel\t\t: 0\n"
		    "model name\t: vkernel virtual CPU\nstepping\t: 0\n"
		    "cpu MHz\t\t: 2000.000\ncache size\t: 4096 KB\n", i);
		sbuf_printf(sb, "physical id\t: 0\nsiblings\t: %d\n"
		    "core id\t\t: %d\ncpu cores\t: %d\napicid\t\t: %d\n"
		    "initial apicid\t: %d\nfpu\t\t: yes\n"
		    "fpu_exception\t: yes\ncpuid level\t: 13\nwp\t\t: yes\n",
		    n, i, n, i, i);
		sbuf_printf(sb, "flags\t\t: %s\n", cpuinfo_flags);
		sbuf_printf(sb, "bugs\t\t:\nbogomips\t: 4000.00\n"
		    "clflush size\t: 64\ncache_alignment\t: 64\n"
		    "address sizes\t: 46 bits physical, 48 bits virtual\n"
		    "power management:\n\n");
	}
	return 0;
}

/* One "cpu" line: user nice system idle iowait irq softirq steal ... */
static void
stat_cpu_line(struct sbuf *sb, const char *name, uint64_t user,
    uint64_t idle)
{
	sbuf_printf(sb, "%s %llu 0 0 %llu 0 0 0 0 0 0\n", name,
	    (unsigned long long)user, (unsigned long long)idle);
}

/* All guest CPU time counts as user time: the host's split is unknown. */
int
procfs_gen_stat(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct procfs_load l;
	uint64_t user, idle;
	int n = plat_ncpus();
	char name[16];

	procfs_load_scan(&l);
	user = procfs_ticks(l.cputime);
	idle = procfs_ticks(procfs_idle_ns(&l));
	stat_cpu_line(sb, "cpu ", user, idle);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "cpu%d", i);
		stat_cpu_line(sb, name, user / (uint64_t)n, idle / (uint64_t)n);
	}
	sbuf_printf(sb, "intr 0\nctxt 0\nbtime %lld\nprocesses %d\n"
	    "procs_running %d\nprocs_blocked 0\n"
	    "softirq 0 0 0 0 0 0 0 0 0 0 0\n",
	    (long long)(pfs_realtime_of(pfs_boot_ns()) / 1000000000),
	    l.lastpid, l.running);
	return 0;
}

int
procfs_gen_uptime(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct procfs_load l;

	procfs_load_scan(&l);
	sbuf_printf(sb, "%.2f %.2f\n", (double)procfs_uptime_ns() / 1e9,
	    (double)procfs_idle_ns(&l) / 1e9);
	return 0;
}

/* XXX: no load average is kept; the counts are real. */
int
procfs_gen_loadavg(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct procfs_load l;

	procfs_load_scan(&l);
	sbuf_printf(sb, "0.00 0.00 0.00 %d/%d %d\n", l.running, l.nprocs,
	    l.lastpid);
	return 0;
}

int
procfs_gen_version(const struct pfs_ctx *c, struct sbuf *sb)
{
	sbuf_printf(sb, "Linux version %s (vkernel) %s\n", plat_os_release(),
	    plat_os_version());
	return 0;
}

int
procfs_gen_osrelease(const struct pfs_ctx *c, struct sbuf *sb)
{
	sbuf_printf(sb, "%s\n", plat_os_release());
	return 0;
}

/* /proc/sys/kernel/hostname and domainname: the sandbox's, as uname's. */
static int
procfs_gen_uts(enum uts_which w, struct sbuf *sb)
{
	sbuf_printf(sb, "%s\n", uts_name(w));
	return 0;
}

/*
 * A write sets the name to what comes before the first newline or NUL,
 * its first UTS_NAME_MAX bytes, and takes all of buf, as Linux's
 * proc_dostring().  Only root may open the file (0644) for writing.
 */
static long
procfs_write_uts(enum uts_which w, const char *buf, size_t len)
{
	size_t n = 0;

	while (n < len && buf[n] != '\n' && buf[n] != '\0')
		n++;
	uts_set_name(w, buf, n);
	return (long)len;
}

int
procfs_gen_hostname(const struct pfs_ctx *c, struct sbuf *sb)
{
	return procfs_gen_uts(UTS_NODENAME, sb);
}

int
procfs_gen_domainname(const struct pfs_ctx *c, struct sbuf *sb)
{
	return procfs_gen_uts(UTS_DOMAINNAME, sb);
}

long
procfs_write_hostname(const struct pfs_ctx *c, const char *buf, size_t len)
{
	return procfs_write_uts(UTS_NODENAME, buf, len);
}

long
procfs_write_domainname(const struct pfs_ctx *c, const char *buf,
    size_t len)
{
	return procfs_write_uts(UTS_DOMAINNAME, buf, len);
}

int
procfs_mount_id(const struct mount *mp)
{
	int id = PROCFS_MNTID_BASE;

	for (struct mount *m = vfs_mounts(); m != NULL; m = m->next, id++)
		if (m == mp)
			return id;
	return PROCFS_MNTID_BASE - 1;
}

/*
 * Every mount, as the process sees them.  XXX: all processes share one
 * mount table and root, so there is no filtering by the reader's root.
 */
int
procfs_gen_mounts(const struct pfs_ctx *c, struct sbuf *sb)
{
	for (struct mount *m = vfs_mounts(); m != NULL; m = m->next) {
		sbuf_escape(sb, m->source != NULL ? m->source : "none");
		sbuf_printf(sb, " ");
		sbuf_escape(sb, m->path != NULL ? m->path : "/");
		sbuf_printf(sb, " %s %s,relatime 0 0\n", m->fstype,
		    m->rdonly ? "ro" : "rw");
	}
	return 0;
}

/*
 * "ID PARENT MAJ:MIN ROOT POINT OPTIONS - TYPE SOURCE SUPER" (Linux's
 * show_mountinfo).  The root's parent is an id no mount has, as in Linux
 * where it is the hidden rootfs.
 */
int
procfs_gen_mountinfo(const struct pfs_ctx *c, struct sbuf *sb)
{
	for (struct mount *m = vfs_mounts(); m != NULL; m = m->next) {
		const char *ro = m->rdonly ? "ro" : "rw";

		sbuf_printf(sb, "%d %d %u:%u / ", procfs_mount_id(m),
		    procfs_mount_id(m->parent), major(m->dev), minor(m->dev));
		sbuf_escape(sb, m->path != NULL ? m->path : "/");
		sbuf_printf(sb, " %s,relatime - %s ", ro, m->fstype);
		sbuf_escape(sb, m->source != NULL ? m->source : "none");
		sbuf_printf(sb, " %s\n", ro);
	}
	return 0;
}
