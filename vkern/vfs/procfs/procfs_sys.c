/*
 * procfs's system-wide files: memory, times, load, mounts, version,
 * limits (CPUs are procfs_cpu.c's).
 *
 * Formats are Linux's (fs/proc/meminfo.c, fs/proc/stat.c, uptime.c,
 * loadavg.c, fs/proc_namespace.c), down to the column widths, because
 * procps and busybox parse them with scanf.  What the vkernel does not
 * track reads as 0: there is no swap, no page cache apart from tmpfs
 * (which is counted as guest memory), no interrupts.
 * Memory is the RAM file's: its limit (--mem) is the machine's memory.
 */
#include <linux/mount.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/pipe.h"
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
	return mp != NULL ? PROCFS_MNTID_BASE + mp->id : PROCFS_MNTID_BASE - 1;
}

/*
 * A mount's options as /proc/mounts shows them: "rw,nosuid,relatime".
 * It is read-only alone (MS_RDONLY) or with its file system.
 */
static void
procfs_mount_opts(struct sbuf *sb, const struct mount *m)
{
	bool ro = (m->flags & MS_RDONLY) || m->root->mount->rdonly;

	sbuf_printf(sb, "%s%s%s%s,relatime", ro ? "ro" : "rw",
	    (m->flags & MS_NOSUID) ? ",nosuid" : "",
	    (m->flags & MS_NODEV) ? ",nodev" : "",
	    (m->flags & MS_NOEXEC) ? ",noexec" : "");
}

/*
 * Every mount of the process's namespace.  XXX: paths are the
 * namespace's, not filtered nor cut by the process's root (chroot).
 */
int
procfs_gen_mounts(const struct pfs_ctx *c, struct sbuf *sb)
{
	for (struct mount *m = vfs_mounts(vfs_ns(c->p)); m != NULL;
	    m = m->next) {
		sbuf_escape(sb, m->source != NULL ? m->source : "none");
		sbuf_printf(sb, " ");
		sbuf_escape(sb, m->path != NULL ? m->path : "/");
		sbuf_printf(sb, " %s ", m->fstype);
		procfs_mount_opts(sb, m);
		sbuf_printf(sb, " 0 0\n");
	}
	return 0;
}

/*
 * "ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS] - TYPE SOURCE SUPER"
 * (Linux's show_mountinfo), the tags shared:N, master:N and unbindable.
 * The root's parent is an id no mount has, as in Linux where it is the
 * hidden rootfs.
 */
int
procfs_gen_mountinfo(const struct pfs_ctx *c, struct sbuf *sb)
{
	for (struct mount *m = vfs_mounts(vfs_ns(c->p)); m != NULL;
	    m = m->next) {
		const char *ro = m->root->mount->rdonly ? "ro" : "rw";

		sbuf_printf(sb, "%d %d %u:%u / ", procfs_mount_id(m),
		    procfs_mount_id(m->parent), major(m->dev), minor(m->dev));
		sbuf_escape(sb, m->path != NULL ? m->path : "/");
		sbuf_printf(sb, " ");
		procfs_mount_opts(sb, m);
		if (m->group != 0)
			sbuf_printf(sb, " shared:%d", m->group);
		if (m->master != 0)
			sbuf_printf(sb, " master:%d", m->master);
		if (m->unbindable)
			sbuf_printf(sb, " unbindable");
		sbuf_printf(sb, " - %s ", m->fstype);
		sbuf_escape(sb, m->source != NULL ? m->source : "none");
		sbuf_printf(sb, " %s\n", ro);
	}
	return 0;
}

/* uname -v, as Linux's kernel.version. */
int
procfs_gen_kversion(const struct pfs_ctx *c, struct sbuf *sb)
{
	sbuf_printf(sb, "%s\n", plat_os_version());
	return 0;
}

/* The sandbox's most tasks (--pids), which proc.c enforces. */
int
procfs_gen_threads_max(const struct pfs_ctx *c, struct sbuf *sb)
{
	sbuf_printf(sb, "%llu\n", (unsigned long long)kern_cfg()->pids);
	return 0;
}

/* The sandbox's most open files (--fds), which fd_alloc enforces. */
int
procfs_gen_file_max(const struct pfs_ctx *c, struct sbuf *sb)
{
	sbuf_printf(sb, "%llu\n", (unsigned long long)file_max);
	return 0;
}

int
procfs_gen_pipe_max_size(const struct pfs_ctx *c, struct sbuf *sb)
{
	sbuf_printf(sb, "%d\n", PIPE_MAX_SIZE);
	return 0;
}

/* 16 random bytes as a version 4 UUID, in its text form. */
static void
procfs_uuid(const uint8_t b[16], struct sbuf *sb)
{
	for (int i = 0; i < 16; i++) {
		uint8_t v = b[i];

		if (i == 6)
			v = (v & 0x0f) | 0x40;  /* version 4: random */
		else if (i == 8)
			v = (v & 0x3f) | 0x80;  /* variant 1: RFC 4122 */
		sbuf_printf(sb, "%s%02x", i == 4 || i == 6 || i == 8 ||
		    i == 10 ? "-" : "", v);
	}
	sbuf_printf(sb, "\n");
}

/* Drawn at the first read and kept for the sandbox's life, as a boot's. */
int
procfs_gen_boot_id(const struct pfs_ctx *c, struct sbuf *sb)
{
	static uint8_t id[16];
	static bool drawn;

	if (!drawn) {
		plat_random(id, sizeof(id));
		drawn = true;
	}
	procfs_uuid(id, sb);
	return 0;
}

/* A new one at every read. */
int
procfs_gen_uuid(const struct pfs_ctx *c, struct sbuf *sb)
{
	uint8_t id[16];

	plat_random(id, sizeof(id));
	procfs_uuid(id, sb);
	return 0;
}
