/*
 * The OOM killer.
 *
 * Memory is charged when touched (vm_anon.c), when copy-on-write copies
 * a page, and when a file's page is read in, so a fault can find --mem
 * full.  The fault then does as Linux's: the process with the highest
 * badness is killed with SIGKILL, its memory comes back, and the fault
 * is tried again; the rest of the sandbox goes on.  Badness is Linux's
 * oom_badness(): the pages a process holds, and the pages its map's
 * entries take, plus oom_score_adj thousandths of all memory.  pid 1,
 * the sandbox's init, is never picked, nor is a process whose
 * oom_score_adj is -1000, unless nothing else is left: then the
 * faulting process itself dies, where Linux would panic.
 *
 * A process that shares the faulting map (itself, a vfork parent) is
 * sent SIGKILL rather than ended on the spot, as the fault is still
 * using its map: it dies when the faulting thread next returns to it.
 */
#include <errno.h>
#include <limits.h>
#include <linux/oom.h>
#include <signal.h>
#include <string.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/kmsg.h"
#include "vkern/kern/proc.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_ram.h"

/* The memory there is, in pages: --mem, and no swap. */
static long
oom_totalpages(void)
{
	return (long)(vm_ram_limit() / VK_PAGE_SIZE);
}

/* Pages of p's map that hold RAM: its resident set. */
static long
oom_rss(const struct proc *p)
{
	const struct vm_map *m = p->vm;
	uint64_t n = 0;

	if (m == NULL)
		return 0;
	for (unsigned i = 0; i < m->n; i++)
		if (m->ent[i].ramoff != VM_NORAM &&
		    !(m->ent[i].flags & VME_RESERVED))
			n += m->ent[i].end - m->ent[i].start;
	return (long)(n / VK_PAGE_SIZE);
}

/* Pages p's map entries take: Linux's page tables. */
static long
oom_pgtables(const struct proc *p)
{
	if (p->vm == NULL)
		return 0;
	return (long)((uint64_t)p->vm->cap * sizeof(struct vm_entry) /
	    VK_PAGE_SIZE);
}

/* Whether the killer may pick p at all. */
static bool
oom_killable(const struct proc *p)
{
	return !p->exiting && !p->oom_killed && p->pid != 1 &&
	    p->vm != NULL && p->oom_score_adj != OOM_SCORE_ADJ_MIN;
}

/* p's badness, or LONG_MIN when it may not be picked. */
static long
oom_badness(const struct proc *p, long totalpages)
{
	long points;

	if (!oom_killable(p))
		return LONG_MIN;
	points = oom_rss(p) + oom_pgtables(p);
	return points + (long)p->oom_score_adj * (totalpages / 1000);
}

unsigned
oom_score(const struct proc *p)
{
	long total = oom_totalpages(), b = oom_badness(p, total);

	if (b == LONG_MIN || total == 0)
		return 0;
	/* Linux's scale: badness over all memory, from 0 to 2000. */
	b = (1000 + b * 1000 / total) * 2 / 3;
	return b < 0 ? 0 : (unsigned)b;
}

int
oom_set_adj(struct proc *p, const struct proc *by, long adj)
{
	if (adj < OOM_SCORE_ADJ_MIN || adj > OOM_SCORE_ADJ_MAX)
		return -EINVAL;
	/*
	 * Below the least a privileged writer set takes CAP_SYS_RESOURCE,
	 * whose holder sets that least anew (Linux's __set_oom_adj()).
	 */
	if (by->cred.euid != 0) {
		if (adj < p->oom_score_adj_min)
			return -EACCES;
	} else {
		p->oom_score_adj_min = (short)adj;
	}
	p->oom_score_adj = (short)adj;
	return 0;
}

/* The process the killer picks: the worst, the newest of equals. */
static struct proc *
oom_pick(void)
{
	long total = oom_totalpages(), worst = LONG_MIN;
	struct proc *victim = NULL;

	for (struct proc *p = proc_first(); p != NULL; p = p->next) {
		long b = oom_badness(p, total);

		if (b != LONG_MIN && b >= worst) {
			worst = b;
			victim = p;
		}
	}
	return victim;
}

/* The faulting process: the first live one that maps m. */
static struct proc *
oom_owner(const struct vm_map *m)
{
	for (struct proc *p = proc_first(); p != NULL; p = p->next)
		if (p->vm == m && !p->exiting)
			return p;
	return NULL;
}

bool
oom_kill(const struct vm_map *m)
{
	struct proc *owner = oom_owner(m), *victim;
	struct vm_usage u;
	uint8_t info[128];

	/* Already picked: it dies when the fault returns. */
	if (owner == NULL || owner->oom_killed)
		return false;
	if ((victim = oom_pick()) == NULL)
		victim = owner;
	victim->oom_killed = true;
	vm_map_usage(victim->vm, 0, UINT64_MAX, &u);
	vk_log_guest("out of memory: killed process %d (%.*s)", victim->pid,
	    (int)sizeof(victim->comm), victim->comm);
	kmsg_printf(KMSG_ERR, "Out of memory: Killed process %d (%.*s) "
	    "total-vm:%lukB, anon-rss:%lukB, file-rss:0kB, shmem-rss:0kB, "
	    "UID:%u pgtables:%lukB oom_score_adj:%d", victim->pid,
	    (int)sizeof(victim->comm), victim->comm,
	    (unsigned long)(u.total / 1024),
	    (unsigned long)oom_rss(victim) * (VK_PAGE_SIZE / 1024),
	    victim->cred.uid,
	    (unsigned long)oom_pgtables(victim) * (VK_PAGE_SIZE / 1024),
	    victim->oom_score_adj);
	if (victim->vm != m) {
		proc_kill_sig(victim, SIGKILL);
		return true;
	}
	sig_info_user(info, SIGKILL, SI_KERNEL, 0, 0);
	(void)sig_post(victim->main, SIGKILL, info, 0);
	return false;
}
