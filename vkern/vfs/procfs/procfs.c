/*
 * procfs: the table of /proc, the calling process, and the mount.
 *
 * The tree is the table below (see pseudofs.h for how a table becomes a
 * file system).  Rows are in readdir order; a row without a name is its
 * directory's numbered entry: the processes of /proc, the fds of fd/ and
 * fdinfo/, the threads of task/.  task/TID repeats the per-process files
 * that make sense for one thread; with one thread per process for now
 * they show the same as the process's own.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/platform.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/nsfs.h"
#include "vkern/vfs/procfs/procfs.h"
#include "vkern/vfs/procfs/procfs_impl.h"
#include "vkern/vfs/procfs/pseudofs.h"
#include "vkern/vfs/vfs_notify.h"
#include "vkern/vk.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_ram.h"

static int procfs_gen_self(const struct pfs_ctx *, struct sbuf *);
static int procfs_gen_thread_self(const struct pfs_ctx *, struct sbuf *);
static int procfs_gen_overcommit(const struct pfs_ctx *, struct sbuf *);
static long procfs_write_overcommit(const struct pfs_ctx *, const char *,
    size_t);

enum procfs_kind {
	PK_ROOT,
	PK_SELF, PK_THREAD_SELF, PK_MEMINFO, PK_CPUINFO, PK_STAT, PK_UPTIME,
	PK_LOADAVG, PK_MOUNTS, PK_FILESYSTEMS, PK_VERSION,
	PK_NET, PK_NET_DEV, PK_NET_IF_INET6, PK_NET_ROUTE, PK_NET_TCP,
	PK_NET_TCP6, PK_NET_UDP, PK_NET_UDP6, PK_NET_UNIX,
	PK_NET_SOCKSTAT, PK_NET_SOCKSTAT6, PK_NET_SNMP,
	PK_SYS, PK_SYS_KERNEL, PK_HOSTNAME, PK_DOMAINNAME, PK_OSRELEASE, PK_OSTYPE,
	PK_PID_MAX, PK_CAP_LAST_CAP, PK_KVERSION, PK_TAINTED, PK_THREADS_MAX,
	PK_CORE_PATTERN, PK_SYS_RANDOM, PK_BOOT_ID, PK_UUID, PK_SYS_VM, PK_OVERCOMMIT,
	PK_MAX_MAP_COUNT, PK_SYS_FS,
	PK_NR_OPEN, PK_PROT_FIFOS, PK_PROT_HARDLINKS, PK_PROT_REGULAR,
	PK_PROT_SYMLINKS, PK_MOUNT_MAX, PK_FILE_MAX, PK_PIPE_MAX_SIZE, PK_PIPE_USER_SOFT,
	PK_LEASE_BREAK, PK_SYS_FS_INOTIFY, PK_INOTIFY_INSTANCES,
	PK_INOTIFY_WATCHES, PK_INOTIFY_QUEUED, PK_SYS_DEV, PK_SYS_DEV_TTY, PK_LEGACY_TIOCSTI,
	PK_SYS_NET, PK_SYS_NET_CORE, PK_SOMAXCONN, PK_SYS_NET_IPV4,
	PK_PORT_RANGE,
	PK_SHMMAX, PK_SHMALL, PK_SHMMNI, PK_SEM, PK_MSGMAX, PK_MSGMNB,
	PK_MSGMNI, PK_SYSVIPC, PK_SYSVIPC_SHM, PK_SYSVIPC_SEM,
	PK_SYSVIPC_MSG, PK_SYS_MQUEUE, PK_MQ_MSG_MAX, PK_MQ_MSGSIZE_MAX,
	PK_MQ_MSG_DEFAULT, PK_MQ_MSGSIZE_DEFAULT, PK_MQ_QUEUES_MAX,
	PK_PARTITIONS,
	PK_PID,
	PK_P_STAT, PK_P_STATUS, PK_P_STATM, PK_P_CMDLINE, PK_P_ENVIRON,
	PK_P_COMM, PK_P_MAPS, PK_P_EXE, PK_P_CWD, PK_P_ROOT, PK_P_FD,
	PK_P_FDINFO, PK_P_MOUNTS, PK_P_MOUNTINFO, PK_P_OOM_SCORE,
	PK_P_OOM_ADJ, PK_P_TASK, PK_P_LIMITS, PK_P_CGROUP, PK_P_NS,
	/* In nsfs.h's order. */
	PK_NS_CGROUP, PK_NS_IPC, PK_NS_MNT, PK_NS_NET, PK_NS_PID,
	PK_NS_PID_FOR_CHILDREN, PK_NS_TIME, PK_NS_TIME_FOR_CHILDREN,
	PK_NS_USER, PK_NS_UTS,
	PK_FD, PK_FDINFO,
	PK_TID,
	PK_T_STAT, PK_T_STATUS, PK_T_STATM, PK_T_COMM, PK_T_CMDLINE,
	PK_T_ENVIRON, PK_T_MAPS,
	PK_NKINDS
};

/* What Linux would list for the file systems the kernel has. */
static const char procfs_filesystems[] =
    "nodev\tsysfs\n"
    "nodev\ttmpfs\n"
    "nodev\tproc\n"
    "nodev\tdevtmpfs\n"
    "nodev\toverlay\n"
    "\thostfs\n";

/* A number from a header, as the text of a file. */
#define PROCFS_STR_(x) #x
#define PROCFS_STR(x) PROCFS_STR_(x)
#define ROW(n, par, m, s, g) { .name = n, .parent = par, .mode = m, \
	.scope = s, .gen = g }
/* A limit file guest root may write, as Linux's sysctls. */
#define SYSCTL(n, par, g, w) { .name = n, .parent = par, \
	.mode = S_IFREG | 0644, .scope = PFS_GLOBAL, .gen = g, .write = w }
#define TEXT(n, par, m, t) { .name = n, .parent = par, .mode = m, \
	.scope = PFS_GLOBAL, .text = t }

/*
 * /proc/PID/ns/NAME: "KIND:[INODE]" (nsfs.c), to those who may trace
 * the process, as Linux's proc_ns_readlink().
 */
static int
procfs_gen_ns(const struct pfs_ctx *c, struct sbuf *sb, enum nsfs_link l)
{
	char text[32];
	int r;

	if ((r = procfs_may_read(c->p)) < 0)
		return r;
	nsfs_link_text(l, c->p, text, sizeof(text));
	sbuf_printf(sb, "%s", text);
	return 0;
}

#define PROCFS_NS_GEN(name, l)						\
static int								\
name(const struct pfs_ctx *c, struct sbuf *sb)				\
{									\
	return procfs_gen_ns(c, sb, l);					\
}
PROCFS_NS_GEN(procfs_gen_ns_cgroup, NSFS_CGROUP)
PROCFS_NS_GEN(procfs_gen_ns_ipc, NSFS_IPC)
PROCFS_NS_GEN(procfs_gen_ns_mnt, NSFS_MNT)
PROCFS_NS_GEN(procfs_gen_ns_net, NSFS_NET)
PROCFS_NS_GEN(procfs_gen_ns_pid, NSFS_PID)
PROCFS_NS_GEN(procfs_gen_ns_pid_children, NSFS_PID_FOR_CHILDREN)
PROCFS_NS_GEN(procfs_gen_ns_time, NSFS_TIME)
PROCFS_NS_GEN(procfs_gen_ns_time_children, NSFS_TIME_FOR_CHILDREN)
PROCFS_NS_GEN(procfs_gen_ns_user, NSFS_USER)
PROCFS_NS_GEN(procfs_gen_ns_uts, NSFS_UTS)

/*
 * Modes are Linux's: environ is the owner's only (it holds secrets), as
 * are fd/ and fdinfo/; the fd links' own modes follow their files; comm
 * is the owner's to write.
 */
static const struct pfs_spec procfs_specs[PK_NKINDS] = {
	[PK_ROOT] = { .name = "", .mode = PFS_DIR, .numbered = PK_PID },
	[PK_SELF] = ROW("self", PK_ROOT, PFS_LINK, PFS_GLOBAL,
	    procfs_gen_self),
	[PK_THREAD_SELF] = ROW("thread-self", PK_ROOT, PFS_LINK, PFS_GLOBAL,
	    procfs_gen_thread_self),
	[PK_MEMINFO] = ROW("meminfo", PK_ROOT, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_meminfo),
	[PK_CPUINFO] = ROW("cpuinfo", PK_ROOT, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_cpuinfo),
	[PK_STAT] = ROW("stat", PK_ROOT, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_stat),
	[PK_UPTIME] = ROW("uptime", PK_ROOT, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_uptime),
	[PK_LOADAVG] = ROW("loadavg", PK_ROOT, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_loadavg),
	[PK_MOUNTS] = TEXT("mounts", PK_ROOT, PFS_LINK, "self/mounts"),
	[PK_FILESYSTEMS] = TEXT("filesystems", PK_ROOT, PFS_FILE,
	    procfs_filesystems),
	[PK_VERSION] = ROW("version", PK_ROOT, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_version),
	/* Linux's /proc/net is a link to self/net: the same files here. */
	[PK_NET] = TEXT("net", PK_ROOT, PFS_DIR, NULL),
	[PK_NET_DEV] = ROW("dev", PK_NET, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_net_dev),
	[PK_NET_IF_INET6] = ROW("if_inet6", PK_NET, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_net_if_inet6),
	[PK_NET_ROUTE] = ROW("route", PK_NET, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_net_route),
	[PK_NET_TCP] = ROW("tcp", PK_NET, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_net_tcp),
	[PK_NET_TCP6] = ROW("tcp6", PK_NET, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_net_tcp6),
	[PK_NET_UDP] = ROW("udp", PK_NET, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_net_udp),
	[PK_NET_UDP6] = ROW("udp6", PK_NET, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_net_udp6),
	[PK_NET_UNIX] = ROW("unix", PK_NET, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_net_unix),
	[PK_NET_SOCKSTAT] = ROW("sockstat", PK_NET, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_net_sockstat),
	[PK_NET_SOCKSTAT6] = ROW("sockstat6", PK_NET, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_net_sockstat6),
	[PK_NET_SNMP] = ROW("snmp", PK_NET, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_net_snmp),
	[PK_SYS] = TEXT("sys", PK_ROOT, PFS_DIR, NULL),
	[PK_SYS_KERNEL] = TEXT("kernel", PK_SYS, PFS_DIR, NULL),
	[PK_HOSTNAME] = { .name = "hostname", .parent = PK_SYS_KERNEL,
	    .mode = S_IFREG | 0644, .scope = PFS_GLOBAL,
	    .gen = procfs_gen_hostname, .write = procfs_write_hostname },
	[PK_DOMAINNAME] = { .name = "domainname", .parent = PK_SYS_KERNEL,
	    .mode = S_IFREG | 0644, .scope = PFS_GLOBAL,
	    .gen = procfs_gen_domainname, .write = procfs_write_domainname },
	[PK_OSRELEASE] = ROW("osrelease", PK_SYS_KERNEL, PFS_FILE,
	    PFS_GLOBAL, procfs_gen_osrelease),
	[PK_OSTYPE] = TEXT("ostype", PK_SYS_KERNEL, PFS_FILE, "Linux\n"),
	[PK_PID_MAX] = TEXT("pid_max", PK_SYS_KERNEL, PFS_FILE,
	    "4194304\n"),
	/* libcap reads it to size capability sets (CAP_CHECKPOINT_RESTORE). */
	[PK_CAP_LAST_CAP] = TEXT("cap_last_cap", PK_SYS_KERNEL, PFS_FILE,
	    "40\n"),
	[PK_KVERSION] = ROW("version", PK_SYS_KERNEL, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_kversion),
	[PK_TAINTED] = TEXT("tainted", PK_SYS_KERNEL, PFS_FILE, "0\n"),
	[PK_THREADS_MAX] = ROW("threads-max", PK_SYS_KERNEL, PFS_FILE,
	    PFS_GLOBAL, procfs_gen_threads_max),
	/* Linux's default; no core is ever written here. */
	[PK_CORE_PATTERN] = TEXT("core_pattern", PK_SYS_KERNEL, PFS_FILE,
	    "core\n"),
	[PK_SYS_RANDOM] = TEXT("random", PK_SYS_KERNEL, PFS_DIR, NULL),
	[PK_BOOT_ID] = ROW("boot_id", PK_SYS_RANDOM, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_boot_id),
	[PK_UUID] = ROW("uuid", PK_SYS_RANDOM, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_uuid),
	[PK_SYS_VM] = TEXT("vm", PK_SYS, PFS_DIR, NULL),
	/* Root's to change (vm_ram.h says what each mode does). */
	[PK_OVERCOMMIT] = { .name = "overcommit_memory", .parent = PK_SYS_VM,
	    .mode = S_IFREG | 0644, .scope = PFS_GLOBAL,
	    .gen = procfs_gen_overcommit,
	    .write = procfs_write_overcommit },
	/* The limit vm_map.h enforces. */
	[PK_MAX_MAP_COUNT] = TEXT("max_map_count", PK_SYS_VM, PFS_FILE,
	    PROCFS_STR(VM_MAX_MAP_COUNT) "\n"),
	[PK_SYS_FS] = TEXT("fs", PK_SYS, PFS_DIR, NULL),
	[PK_NR_OPEN] = TEXT("nr_open", PK_SYS_FS, PFS_FILE, "1048576\n"),
	/* The most mounts a namespace holds (vfs_mount.c). */
	[PK_MOUNT_MAX] = TEXT("mount-max", PK_SYS_FS, PFS_FILE,
	    PROCFS_STR(VFS_MOUNT_MAX) "\n"),
	/* The rules vfs_perm.c enforces; Linux lets root change them. */
	[PK_PROT_FIFOS] = TEXT("protected_fifos", PK_SYS_FS, PFS_FILE,
	    PROCFS_STR(VFS_PROTECTED_FIFOS) "\n"),
	[PK_PROT_HARDLINKS] = TEXT("protected_hardlinks", PK_SYS_FS,
	    PFS_FILE, PROCFS_STR(VFS_PROTECTED_HARDLINKS) "\n"),
	[PK_PROT_REGULAR] = TEXT("protected_regular", PK_SYS_FS, PFS_FILE,
	    PROCFS_STR(VFS_PROTECTED_REGULAR) "\n"),
	[PK_PROT_SYMLINKS] = TEXT("protected_symlinks", PK_SYS_FS,
	    PFS_FILE, PROCFS_STR(VFS_PROTECTED_SYMLINKS) "\n"),
	[PK_FILE_MAX] = ROW("file-max", PK_SYS_FS, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_file_max),
	[PK_PIPE_MAX_SIZE] = ROW("pipe-max-size", PK_SYS_FS, PFS_FILE,
	    PFS_GLOBAL, procfs_gen_pipe_max_size),
	/* 0: no per-user limit on pipe buffers, as there is none. */
	[PK_PIPE_USER_SOFT] = TEXT("pipe-user-pages-soft", PK_SYS_FS,
	    PFS_FILE, "0\n"),
	/* Linux's default; there are no leases to break. */
	[PK_LEASE_BREAK] = TEXT("lease-break-time", PK_SYS_FS, PFS_FILE,
	    "45\n"),
	/* The limits inotify.c enforces. */
	[PK_SYS_FS_INOTIFY] = TEXT("inotify", PK_SYS_FS, PFS_DIR, NULL),
	[PK_INOTIFY_INSTANCES] = TEXT("max_user_instances",
	    PK_SYS_FS_INOTIFY, PFS_FILE,
	    PROCFS_STR(INOTIFY_MAX_USER_INSTANCES) "\n"),
	[PK_INOTIFY_WATCHES] = TEXT("max_user_watches", PK_SYS_FS_INOTIFY,
	    PFS_FILE, PROCFS_STR(INOTIFY_MAX_USER_WATCHES) "\n"),
	[PK_INOTIFY_QUEUED] = TEXT("max_queued_events", PK_SYS_FS_INOTIFY,
	    PFS_FILE, PROCFS_STR(INOTIFY_MAX_QUEUED_EVENTS) "\n"),
	[PK_SYS_DEV] = TEXT("dev", PK_SYS, PFS_DIR, NULL),
	[PK_SYS_DEV_TTY] = TEXT("tty", PK_SYS_DEV, PFS_DIR, NULL),
	/* TIOCSTI needs CAP_SYS_ADMIN (vfs/tty.c's tty_push). */
	[PK_LEGACY_TIOCSTI] = TEXT("legacy_tiocsti", PK_SYS_DEV_TTY,
	    PFS_FILE, "0\n"),
	[PK_SYS_NET] = TEXT("net", PK_SYS, PFS_DIR, NULL),
	[PK_SYS_NET_CORE] = TEXT("core", PK_SYS_NET, PFS_DIR, NULL),
	/* The most a listen(2) backlog is taken as (vfs/unix_conn.c). */
	[PK_SOMAXCONN] = TEXT("somaxconn", PK_SYS_NET_CORE, PFS_FILE,
	    "4096\n"),
	[PK_SYS_NET_IPV4] = TEXT("ipv4", PK_SYS_NET, PFS_DIR, NULL),
	[PK_PORT_RANGE] = { .name = "ip_local_port_range",
	    .parent = PK_SYS_NET_IPV4, .mode = S_IFREG | 0644,
	    .scope = PFS_GLOBAL, .gen = procfs_gen_port_range,
	    .write = procfs_write_port_range },

	/* System V IPC's limits and tables (procfs_ipc.c). */
	[PK_SHMMAX] = SYSCTL("shmmax", PK_SYS_KERNEL, procfs_gen_shmmax,
	    procfs_write_shmmax),
	[PK_SHMALL] = SYSCTL("shmall", PK_SYS_KERNEL, procfs_gen_shmall,
	    procfs_write_shmall),
	[PK_SHMMNI] = SYSCTL("shmmni", PK_SYS_KERNEL, procfs_gen_shmmni,
	    procfs_write_shmmni),
	[PK_SEM] = SYSCTL("sem", PK_SYS_KERNEL, procfs_gen_sem,
	    procfs_write_sem),
	[PK_MSGMAX] = SYSCTL("msgmax", PK_SYS_KERNEL, procfs_gen_msgmax,
	    procfs_write_msgmax),
	[PK_MSGMNB] = SYSCTL("msgmnb", PK_SYS_KERNEL, procfs_gen_msgmnb,
	    procfs_write_msgmnb),
	[PK_MSGMNI] = SYSCTL("msgmni", PK_SYS_KERNEL, procfs_gen_msgmni,
	    procfs_write_msgmni),
	[PK_SYSVIPC] = TEXT("sysvipc", PK_ROOT, PFS_DIR, NULL),
	[PK_SYSVIPC_SHM] = ROW("shm", PK_SYSVIPC, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_sysvipc_shm),
	[PK_SYSVIPC_SEM] = ROW("sem", PK_SYSVIPC, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_sysvipc_sem),
	[PK_SYSVIPC_MSG] = ROW("msg", PK_SYSVIPC, PFS_FILE, PFS_GLOBAL,
	    procfs_gen_sysvipc_msg),
	/* POSIX message queues' limits (procfs_ipc.c). */
	[PK_SYS_MQUEUE] = TEXT("mqueue", PK_SYS_FS, PFS_DIR, NULL),
	[PK_MQ_MSG_MAX] = SYSCTL("msg_max", PK_SYS_MQUEUE,
	    procfs_gen_mq_msg_max, procfs_write_mq_msg_max),
	[PK_MQ_MSGSIZE_MAX] = SYSCTL("msgsize_max", PK_SYS_MQUEUE,
	    procfs_gen_mq_msgsize_max, procfs_write_mq_msgsize_max),
	[PK_MQ_MSG_DEFAULT] = SYSCTL("msg_default", PK_SYS_MQUEUE,
	    procfs_gen_mq_msg_default, procfs_write_mq_msg_default),
	[PK_MQ_MSGSIZE_DEFAULT] = SYSCTL("msgsize_default", PK_SYS_MQUEUE,
	    procfs_gen_mq_msgsize_default, procfs_write_mq_msgsize_default),
	[PK_MQ_QUEUES_MAX] = SYSCTL("queues_max", PK_SYS_MQUEUE,
	    procfs_gen_mq_queues_max, procfs_write_mq_queues_max),

	/* No block devices: Linux's header alone. */
	[PK_PARTITIONS] = TEXT("partitions", PK_ROOT, PFS_FILE,
	    "major minor  #blocks  name\n\n"),

	[PK_PID] = { .parent = PK_ROOT, .mode = PFS_DIR, .scope = PFS_PROC },
	[PK_P_STAT] = ROW("stat", PK_PID, PFS_FILE, PFS_PROC,
	    procfs_gen_pid_stat),
	[PK_P_STATUS] = ROW("status", PK_PID, PFS_FILE, PFS_PROC,
	    procfs_gen_pid_status),
	[PK_P_STATM] = ROW("statm", PK_PID, PFS_FILE, PFS_PROC,
	    procfs_gen_pid_statm),
	[PK_P_CMDLINE] = ROW("cmdline", PK_PID, PFS_FILE, PFS_PROC,
	    procfs_gen_pid_cmdline),
	[PK_P_ENVIRON] = ROW("environ", PK_PID, S_IFREG | 0400, PFS_PROC,
	    procfs_gen_pid_environ),
	[PK_P_COMM] = { .name = "comm", .parent = PK_PID,
	    .mode = S_IFREG | 0644, .scope = PFS_PROC,
	    .gen = procfs_gen_pid_comm,
	    .write = procfs_write_pid_comm },
	[PK_P_MAPS] = ROW("maps", PK_PID, PFS_FILE, PFS_PROC,
	    procfs_gen_pid_maps),
	[PK_P_EXE] = ROW("exe", PK_PID, PFS_LINK, PFS_PROC,
	    procfs_gen_pid_exe),
	[PK_P_CWD] = ROW("cwd", PK_PID, PFS_LINK, PFS_PROC,
	    procfs_gen_pid_cwd),
	[PK_P_ROOT] = { .name = "root", .parent = PK_PID, .mode = PFS_LINK,
	    .scope = PFS_PROC, .text = "/" },
	[PK_P_FD] = { .name = "fd", .parent = PK_PID, .mode = S_IFDIR | 0500,
	    .scope = PFS_PROC, .numbered = PK_FD },
	[PK_P_FDINFO] = { .name = "fdinfo", .parent = PK_PID,
	    .mode = S_IFDIR | 0500, .scope = PFS_PROC,
	    .numbered = PK_FDINFO },
	[PK_P_MOUNTS] = ROW("mounts", PK_PID, PFS_FILE, PFS_PROC,
	    procfs_gen_mounts),
	[PK_P_MOUNTINFO] = ROW("mountinfo", PK_PID, PFS_FILE, PFS_PROC,
	    procfs_gen_mountinfo),
	[PK_P_OOM_SCORE] = ROW("oom_score", PK_PID, S_IFREG | 0444, PFS_PROC,
	    procfs_gen_pid_oom_score),
	[PK_P_OOM_ADJ] = { .name = "oom_score_adj", .parent = PK_PID,
	    .mode = S_IFREG | 0644, .scope = PFS_PROC,
	    .gen = procfs_gen_pid_oom_adj,
	    .write = procfs_write_pid_oom_adj },
	[PK_P_TASK] = { .name = "task", .parent = PK_PID, .mode = PFS_DIR,
	    .scope = PFS_PROC, .numbered = PK_TID },
	[PK_P_LIMITS] = ROW("limits", PK_PID, PFS_FILE, PFS_PROC,
	    procfs_gen_pid_limits),
	/* One cgroup v2 hierarchy, seen from inside a cgroup namespace. */
	[PK_P_CGROUP] = { .name = "cgroup", .parent = PK_PID,
	    .mode = PFS_FILE, .scope = PFS_PROC, .text = "0::/\n" },
	[PK_P_NS] = { .name = "ns", .parent = PK_PID,
	    .mode = S_IFDIR | 0511, .scope = PFS_PROC },
	[PK_NS_CGROUP] = ROW("cgroup", PK_P_NS, PFS_LINK, PFS_PROC,
	    procfs_gen_ns_cgroup),
	[PK_NS_IPC] = ROW("ipc", PK_P_NS, PFS_LINK, PFS_PROC,
	    procfs_gen_ns_ipc),
	[PK_NS_MNT] = ROW("mnt", PK_P_NS, PFS_LINK, PFS_PROC,
	    procfs_gen_ns_mnt),
	[PK_NS_NET] = ROW("net", PK_P_NS, PFS_LINK, PFS_PROC,
	    procfs_gen_ns_net),
	[PK_NS_PID] = ROW("pid", PK_P_NS, PFS_LINK, PFS_PROC,
	    procfs_gen_ns_pid),
	[PK_NS_PID_FOR_CHILDREN] = ROW("pid_for_children", PK_P_NS, PFS_LINK,
	    PFS_PROC, procfs_gen_ns_pid_children),
	[PK_NS_TIME] = ROW("time", PK_P_NS, PFS_LINK, PFS_PROC,
	    procfs_gen_ns_time),
	[PK_NS_TIME_FOR_CHILDREN] = ROW("time_for_children", PK_P_NS,
	    PFS_LINK, PFS_PROC, procfs_gen_ns_time_children),
	[PK_NS_USER] = ROW("user", PK_P_NS, PFS_LINK, PFS_PROC,
	    procfs_gen_ns_user),
	[PK_NS_UTS] = ROW("uts", PK_P_NS, PFS_LINK, PFS_PROC,
	    procfs_gen_ns_uts),
	[PK_FD] = ROW(NULL, PK_P_FD, PFS_LINK, PFS_FD, procfs_gen_fd_link),
	[PK_FDINFO] = ROW(NULL, PK_P_FDINFO, PFS_FILE, PFS_FD,
	    procfs_gen_fdinfo),

	[PK_TID] = { .parent = PK_P_TASK, .mode = PFS_DIR,
	    .scope = PFS_THREAD },
	[PK_T_STAT] = ROW("stat", PK_TID, PFS_FILE, PFS_THREAD,
	    procfs_gen_pid_stat),
	[PK_T_STATUS] = ROW("status", PK_TID, PFS_FILE, PFS_THREAD,
	    procfs_gen_pid_status),
	[PK_T_STATM] = ROW("statm", PK_TID, PFS_FILE, PFS_THREAD,
	    procfs_gen_pid_statm),
	[PK_T_COMM] = { .name = "comm", .parent = PK_TID,
	    .mode = S_IFREG | 0644, .scope = PFS_THREAD,
	    .gen = procfs_gen_tid_comm,
	    .write = procfs_write_tid_comm },
	[PK_T_CMDLINE] = ROW("cmdline", PK_TID, PFS_FILE, PFS_THREAD,
	    procfs_gen_pid_cmdline),
	[PK_T_ENVIRON] = ROW("environ", PK_TID, S_IFREG | 0400, PFS_THREAD,
	    procfs_gen_pid_environ),
	[PK_T_MAPS] = ROW("maps", PK_TID, PFS_FILE, PFS_THREAD,
	    procfs_gen_pid_maps),
};

int
procfs_parse_int(const char *buf, size_t len, long *vp)
{
	char num[13], *end;
	size_t n = VK_MIN(len, sizeof(num) - 1);
	long v;

	memcpy(num, buf, n);
	num[n] = '\0';
	errno = 0;
	v = strtol(num, &end, 0);
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (end == num || *end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*vp = v;
	return 0;
}

/*
 * vm.overcommit_memory: 0, 1 or 2 (vm_ram.h), anything else EINVAL, as
 * Linux's proc_dointvec_minmax() answers.
 */
static int
procfs_gen_overcommit(const struct pfs_ctx *c, struct sbuf *sb)
{
	sbuf_printf(sb, "%d\n", vm_overcommit());
	return 0;
}

static long
procfs_write_overcommit(const struct pfs_ctx *c, const char *buf,
    size_t len)
{
	long v;
	int r;

	if ((r = procfs_parse_int(buf, len, &v)) < 0)
		return r == -ERANGE ? -EINVAL : r;
	if (v < VM_OVERCOMMIT_GUESS || v > VM_OVERCOMMIT_NEVER)
		return -EINVAL;
	vm_overcommit_set((int)v);
	return (long)len;
}

/* The pid of the current syscall's process; 0 before the first. */
static int procfs_cur_pid;

void
procfs_set_current(struct proc *p)
{
	procfs_cur_pid = p != NULL ? p->pid : 0;
}

struct proc *
procfs_current(void)
{
	struct proc *p = procfs_cur_pid != 0 ? proc_find(procfs_cur_pid) :
	    NULL;

	if (p != NULL && !p->exiting)
		return p;
	for (p = proc_first(); p != NULL; p = p->next)
		if (!p->exiting)
			return p;
	return NULL;
}

int
procfs_may_read(const struct proc *q)
{
	struct proc *p = procfs_current();

	return p == NULL || proc_may_trace(p, q, true) ? 0 : -EACCES;
}

uint64_t
procfs_ticks(int64_t ns)
{
	return ns > 0 ? (uint64_t)ns / (1000000000 / PROCFS_HZ) : 0;
}

static int
procfs_gen_self(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct proc *p = procfs_current();

	if (p == NULL)
		return -ENOENT;
	sbuf_printf(sb, "%d", p->pid);
	return 0;
}

static int
procfs_gen_thread_self(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct proc *p = procfs_current();

	if (p == NULL)
		return -ENOENT;
	sbuf_printf(sb, "%d/task/%d", p->pid, curthread != NULL &&
	    curthread->proc == p ? curthread->tid : p->pid);
	return 0;
}

int
procfs_mount(struct mount **mpp)
{
	return pfs_mount("proc", procfs_specs, VK_NELEM(procfs_specs), false,
	    mpp);
}

void
procfs_unmount(struct mount *mp)
{
	pfs_unmount(mp);
}

int
procfs_link_follow(const struct vnode *vn, struct proc *p,
    struct file **fpp, struct vnode **vpp)
{
	bool ns;
	struct proc *q;
	int kind, pid;

	*fpp = NULL;
	*vpp = NULL;
	if (!pfs_vnode_key(vn, procfs_specs, &kind, &pid))
		return 0;
	ns = kind >= PK_NS_CGROUP && kind <= PK_NS_UTS;
	if (!ns && kind != PK_FD && kind != PK_P_EXE && kind != PK_P_CWD &&
	    kind != PK_P_ROOT)
		return 0;
	if ((q = proc_find(pid)) == NULL || q->exiting)
		return -ENOENT;
	if (!proc_may_trace(p, q, true))
		return -EACCES;
	if (kind == PK_FD && (*fpp = pfs_fd_file(vn)) == NULL)
		return -ENOENT;
	if (ns)
		*vpp = nsfs_vnode((enum nsfs_link)(kind - PK_NS_CGROUP), q);
	return 0;
}

int
procfs_pid_dir(const struct vnode *vn)
{
	int kind, pid;

	if (!pfs_vnode_key(vn, procfs_specs, &kind, &pid) || kind != PK_PID)
		return -1;
	return pid;
}
