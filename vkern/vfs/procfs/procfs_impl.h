/*
 * What the files of procfs share: the calling process, clock ticks, mount
 * ids, and the generators of the table in procfs.c.  Each generator is a
 * pfs_gen_fn (pseudofs.h): it writes one file's whole content, or one
 * link's target, for the node described by its pfs_ctx.
 */
#ifndef VK_VFS_PROCFS_IMPL_H
#define VK_VFS_PROCFS_IMPL_H

#include <stdint.h>

#include "vkern/vfs/procfs/pseudofs.h"

struct mount;
struct proc;

/* USER_HZ: the unit of every tick count Linux's proc files show. */
#define PROCFS_HZ 100

/* procfs.c */

/* The process of the current syscall (procfs_set_current), or NULL. */
struct proc *procfs_current(void);

/*
 * A number written to a file, as Linux's kstrtoint() reads it (decimal,
 * octal with 0, hex with 0x, a sign) with blanks around it, of at most
 * 12 bytes (its PROC_NUMBUF, the excess dropped): 0, -EINVAL for
 * anything else, or -ERANGE past an int.
 */
int procfs_parse_int(const char *buf, size_t len, long *vp);

/*
 * Whether the current process may read q's links to its files (fd/N,
 * exe, cwd): 0, or -EACCES as Linux's proc_fd_access_allowed().
 */
int procfs_may_read(const struct proc *q);

/* ns as clock ticks. */
uint64_t procfs_ticks(int64_t ns);

/* procfs_cpu.c */
int procfs_gen_cpuinfo(const struct pfs_ctx *c, struct sbuf *sb);

/* procfs_sys.c: the system-wide files. */
int procfs_gen_meminfo(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_stat(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_uptime(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_loadavg(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_version(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_osrelease(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_mounts(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_kversion(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_threads_max(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_file_max(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_pipe_max_size(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_boot_id(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_uuid(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_mountinfo(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_hostname(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_domainname(const struct pfs_ctx *c, struct sbuf *sb);
long procfs_write_hostname(const struct pfs_ctx *c, const char *buf,
    size_t len);
long procfs_write_domainname(const struct pfs_ctx *c, const char *buf,
    size_t len);

/* The mountinfo id of mp: its place in the mount table from 21 on. */
int procfs_mount_id(const struct mount *mp);

/* procfs_net.c: /proc/net and /proc/sys/net. */
int procfs_gen_net_dev(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_net_if_inet6(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_net_route(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_net_tcp(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_net_tcp6(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_net_udp(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_net_udp6(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_net_unix(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_net_sockstat(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_net_sockstat6(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_net_snmp(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_port_range(const struct pfs_ctx *c, struct sbuf *sb);
long procfs_write_port_range(const struct pfs_ctx *c, const char *buf,
    size_t len);
/* procfs_ipc.c: System V IPC's limits and tables. */
int procfs_gen_shmmax(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_shmall(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_shmmni(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_sem(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_msgmax(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_msgmnb(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_msgmni(const struct pfs_ctx *c, struct sbuf *sb);
long procfs_write_shmmax(const struct pfs_ctx *c, const char *buf,
    size_t len);
long procfs_write_shmall(const struct pfs_ctx *c, const char *buf,
    size_t len);
long procfs_write_shmmni(const struct pfs_ctx *c, const char *buf,
    size_t len);
long procfs_write_sem(const struct pfs_ctx *c, const char *buf, size_t len);
long procfs_write_msgmax(const struct pfs_ctx *c, const char *buf,
    size_t len);
long procfs_write_msgmnb(const struct pfs_ctx *c, const char *buf,
    size_t len);
long procfs_write_msgmni(const struct pfs_ctx *c, const char *buf,
    size_t len);
int procfs_gen_mq_msg_max(const struct pfs_ctx *c, struct sbuf *sb);
long procfs_write_mq_msg_max(const struct pfs_ctx *c, const char *buf,
    size_t len);
int procfs_gen_mq_msgsize_max(const struct pfs_ctx *c, struct sbuf *sb);
long procfs_write_mq_msgsize_max(const struct pfs_ctx *c, const char *buf,
    size_t len);
int procfs_gen_mq_msg_default(const struct pfs_ctx *c, struct sbuf *sb);
long procfs_write_mq_msg_default(const struct pfs_ctx *c, const char *buf,
    size_t len);
int procfs_gen_mq_msgsize_default(const struct pfs_ctx *c, struct sbuf *sb);
long procfs_write_mq_msgsize_default(const struct pfs_ctx *c, const char *buf,
    size_t len);
int procfs_gen_mq_queues_max(const struct pfs_ctx *c, struct sbuf *sb);
long procfs_write_mq_queues_max(const struct pfs_ctx *c, const char *buf,
    size_t len);
int procfs_gen_sysvipc_shm(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_sysvipc_sem(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_sysvipc_msg(const struct pfs_ctx *c, struct sbuf *sb);

/* procfs_pid.c: the files of /proc/PID and /proc/PID/task/TID. */
int procfs_gen_pid_stat(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_pid_status(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_pid_statm(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_pid_cmdline(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_pid_environ(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_pid_comm(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_tid_comm(const struct pfs_ctx *c, struct sbuf *sb);
long procfs_write_pid_comm(const struct pfs_ctx *c, const char *buf,
    size_t len);
long procfs_write_tid_comm(const struct pfs_ctx *c, const char *buf,
    size_t len);
int procfs_gen_pid_oom_score(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_pid_oom_adj(const struct pfs_ctx *c, struct sbuf *sb);
long procfs_write_pid_oom_adj(const struct pfs_ctx *c, const char *buf,
    size_t len);
int procfs_gen_pid_maps(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_pid_exe(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_pid_cwd(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_fd_link(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_fdinfo(const struct pfs_ctx *c, struct sbuf *sb);
int procfs_gen_pid_limits(const struct pfs_ctx *c, struct sbuf *sb);

#endif
