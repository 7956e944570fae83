/*
 * procfs's IPC files: System V's limits in /proc/sys/kernel (shmmax,
 * shmall, shmmni, sem, msgmax, msgmnb, msgmni) and POSIX message queues'
 * in /proc/sys/fs/mqueue, which guest root may write, and the tables of
 * /proc/sysvipc, which ipcs(1) reads.
 *
 * Formats are Linux's (ipc/shm.c, sem.c and msg.c's sysvipc_*_proc_show,
 * ipc/ipc_sysctl.c, ipc/mq_sysctl.c): the limits are numbers, sem's four
 * separated by tabs; a write takes as many numbers as the file shows,
 * each within its bounds, or fails with EINVAL and changes nothing.
 */
#include <errno.h>
#include <linux/msg.h>
#include <linux/sem.h>
#include <linux/shm.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kern/mqueue.h"
#include "vkern/kern/sysv_ipc.h"
#include "vkern/vfs/procfs/procfs_impl.h"
#include "vkern/vk.h"

/* The longest write a limit file takes: four numbers and blanks. */
#define IPC_SYSCTL_MAX 128

static int
ipc_sysctl_show(const uint64_t *v, int n, struct sbuf *sb)
{
	for (int i = 0; i < n; i++)
		sbuf_printf(sb, "%llu%s", (unsigned long long)v[i],
		    i + 1 < n ? "\t" : "\n");
	return 0;
}

/* Parse n numbers from buf, each within [min, max], into v. */
static long
ipc_sysctl_store(uint64_t *v, int n, uint64_t min, uint64_t max,
    const char *buf, size_t len)
{
	char text[IPC_SYSCTL_MAX + 1], *p = text, *end;
	uint64_t nv[4];

	if (len > IPC_SYSCTL_MAX)
		return -EINVAL;
	memcpy(text, buf, len);
	text[len] = '\0';
	for (int i = 0; i < n; i++) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		nv[i] = strtoull(p, &end, 10);
		if (errno != 0 || nv[i] < min || nv[i] > max)
			return -EINVAL;
		p = end;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p != '\0')
		return -EINVAL;
	memcpy(v, nv, (size_t)n * sizeof(*v));
	return (long)len;
}

/* A limit file: its generator and its writer, over n values at v. */
#define IPC_SYSCTL(name, v, n, min, max)				\
int									\
procfs_gen_##name(const struct pfs_ctx *c, struct sbuf *sb)		\
{									\
	return ipc_sysctl_show(v, n, sb);				\
}									\
long									\
procfs_write_##name(const struct pfs_ctx *c, const char *buf,		\
    size_t len)								\
{									\
	return ipc_sysctl_store(v, n, min, max, buf, len);		\
}

IPC_SYSCTL(shmmax, &ipc_lim.shmmax, 1, 0, UINT64_MAX)
IPC_SYSCTL(shmall, &ipc_lim.shmall, 1, 0, UINT64_MAX)
IPC_SYSCTL(shmmni, &ipc_lim.shmmni, 1, 0, IPC_ID_SLOTS)
IPC_SYSCTL(msgmax, &ipc_lim.msgmax, 1, 0, INT32_MAX)
IPC_SYSCTL(msgmnb, &ipc_lim.msgmnb, 1, 0, INT32_MAX)
IPC_SYSCTL(msgmni, &ipc_lim.msgmni, 1, 0, IPC_ID_SLOTS)
/* ipc/mq_sysctl.c's bounds. */
IPC_SYSCTL(mq_msg_max, &mq_lim.msg_max, 1, 1, MQ_HARD_MSGMAX)
IPC_SYSCTL(mq_msgsize_max, &mq_lim.msgsize_max, 1, 128, MQ_HARD_MSGSIZEMAX)
IPC_SYSCTL(mq_msg_default, &mq_lim.msg_default, 1, 1, MQ_HARD_MSGMAX)
IPC_SYSCTL(mq_msgsize_default, &mq_lim.msgsize_default, 1, 128,
    MQ_HARD_MSGSIZEMAX)
IPC_SYSCTL(mq_queues_max, &mq_lim.queues_max, 1, 0, INT32_MAX)

int
procfs_gen_sem(const struct pfs_ctx *c, struct sbuf *sb)
{
	return ipc_sysctl_show(ipc_lim.sem, 4, sb);
}

/* Linux's proc_ipc_sem_dointvec(): semmni is at most IPCMNI. */
long
procfs_write_sem(const struct pfs_ctx *c, const char *buf, size_t len)
{
	uint64_t old[4];
	long r;

	memcpy(old, ipc_lim.sem, sizeof(old));
	r = ipc_sysctl_store(ipc_lim.sem, 4, 0, INT32_MAX, buf, len);
	if (r >= 0 && ipc_lim.sem[IPC_SEMMNI] > IPC_ID_SLOTS) {
		memcpy(ipc_lim.sem, old, sizeof(old));
		return -EINVAL;
	}
	return r;
}

int
procfs_gen_sysvipc_shm(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct shmid64_ds d;

	sbuf_printf(sb, "       key      shmid perms                  size"
	    "  cpid  lpid nattch   uid   gid  cuid  cgid      atime"
	    "      dtime      ctime                   rss                  swap\n");
	for (int i = 0, max = ipc_max_idx(shm_family.ids); i <= max; i++) {
		if (!ipc_stat_at(&shm_family, i, &d))
			continue;
		sbuf_printf(sb, "%10d %10d  %4o %21lu %5d %5d  %5lu %5u %5u "
		    "%5u %5u %10ld %10ld %10ld %21lu %21lu\n",
		    d.shm_perm.key, i + (int)d.shm_perm.seq * IPC_ID_SLOTS,
		    (unsigned)d.shm_perm.mode, (unsigned long)d.shm_segsz,
		    d.shm_cpid, d.shm_lpid, (unsigned long)d.shm_nattch,
		    d.shm_perm.uid, d.shm_perm.gid, d.shm_perm.cuid,
		    d.shm_perm.cgid, (long)d.shm_atime, (long)d.shm_dtime,
		    (long)d.shm_ctime,
		    (unsigned long)VK_ROUND_UP(d.shm_segsz, VK_PAGE_SIZE), 0UL);
	}
	return 0;
}

int
procfs_gen_sysvipc_sem(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct semid64_ds d;

	sbuf_printf(sb, "       key      semid perms      nsems   uid   gid"
	    "  cuid  cgid      otime      ctime\n");
	for (int i = 0, max = ipc_max_idx(sem_family.ids); i <= max; i++) {
		if (!ipc_stat_at(&sem_family, i, &d))
			continue;
		sbuf_printf(sb, "%10d %10d  %4o %10lu %5u %5u %5u %5u %10ld "
		    "%10ld\n", d.sem_perm.key,
		    i + (int)d.sem_perm.seq * IPC_ID_SLOTS,
		    (unsigned)d.sem_perm.mode, (unsigned long)d.sem_nsems,
		    d.sem_perm.uid, d.sem_perm.gid, d.sem_perm.cuid,
		    d.sem_perm.cgid, (long)d.sem_otime, (long)d.sem_ctime);
	}
	return 0;
}

int
procfs_gen_sysvipc_msg(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct msqid64_ds d;

	sbuf_printf(sb, "       key      msqid perms      cbytes       qnum"
	    " lspid lrpid   uid   gid  cuid  cgid      stime      rtime"
	    "      ctime\n");
	for (int i = 0, max = ipc_max_idx(msg_family.ids); i <= max; i++) {
		if (!ipc_stat_at(&msg_family, i, &d))
			continue;
		sbuf_printf(sb, "%10d %10d  %4o  %10lu %10lu %5d %5d %5u %5u "
		    "%5u %5u %10ld %10ld %10ld\n", d.msg_perm.key,
		    i + (int)d.msg_perm.seq * IPC_ID_SLOTS,
		    (unsigned)d.msg_perm.mode, (unsigned long)d.msg_cbytes,
		    (unsigned long)d.msg_qnum, d.msg_lspid, d.msg_lrpid,
		    d.msg_perm.uid, d.msg_perm.gid, d.msg_perm.cuid,
		    d.msg_perm.cgid, (long)d.msg_stime, (long)d.msg_rtime,
		    (long)d.msg_ctime);
	}
	return 0;
}
