/*
 * Memory locks: mlock, mlock2, munlock, mlockall, munlockall, and
 * mmap's MAP_LOCKED; and mincore, which says which pages are in RAM.
 *
 * Guest memory lives in the RAM file and is never swapped out, so a lock
 * is accounting, and a fill: locked entries carry VME_LOCKED, their
 * bytes count against RLIMIT_MEMLOCK, and their pages get RAM at once
 * unless locked "on fault" (MLOCK_ONFAULT, MCL_ONFAULT), as Linux
 * populates them.  The checks and errnos are those of Linux's
 * mm/mlock.c and mm/mmap.c.  Root (CAP_IPC_LOCK) is not limited.
 * mlockall(MCL_FUTURE) locks the mappings made after it too (mmap, brk,
 * shmat), each checked against the limit as it is made.  Locks are not
 * inherited by a fork (vm_map_fork), and exec starts a map without them.
 *
 * XXX: a fill that finds no RAM leaves the rest to fill when touched,
 * where Linux's mlock fails with EAGAIN or ENOMEM.
 */
#include <errno.h>
#include <sys/mman.h>
#include <string.h>
#include <sys/resource.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/vm/copyio.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_ram.h"

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 0x01
#endif
#define MCL_VALID (MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)

static uint64_t
mlock_limit(const struct proc *p)
{
	return VK_ROUND_DOWN(p->rlim[RLIMIT_MEMLOCK].cur, VK_PAGE_SIZE);
}

/* Linux's can_do_mlock(): a limit of 0 forbids locking to all but root. */
static bool
mlock_allowed(const struct proc *p)
{
	return p->rlim[RLIMIT_MEMLOCK].cur != 0 || p->cred.euid == 0;
}

int
kern_mlock_new_may(struct proc *p, uint64_t len, bool asked)
{
	if (asked && !mlock_allowed(p))
		return -EPERM;
	return asked || p->vm->lock_future ? kern_mlock_grow_may(p, len) : 0;
}

int
kern_mlock_grow_may(struct proc *p, uint64_t len)
{
	struct vm_usage u;

	vm_map_usage(p->vm, 0, UINT64_MAX, &u);
	if (p->cred.euid != 0 && (len > mlock_limit(p) ||
	    u.locked > mlock_limit(p) - len))
		return -EAGAIN;
	return 0;
}

void
kern_mlock_new(struct proc *p, uint64_t va, uint64_t len, bool asked)
{
	struct vm_map *m = p->vm;

	if (!asked && !m->lock_future)
		return;
	vm_map_add_flags(m, va, va + len, VME_LOCKED);
	if (!m->lock_onfault)
		vm_map_populate(m, va, va + len);
}

/* mlock(2) does not cut a mapping locked (or not) already. */
static bool
mlock_same(const struct vm_entry *e, int lock)
{
	return ((e->flags & VME_LOCKED) != 0) == (lock != 0);
}

/*
 * Lock or unlock the pages of [addr, addr + len).  Locking checks the
 * limit, not counting what is locked already, before the range (-ENOMEM
 * for either, as Linux); the range must be mapped throughout.
 */
static long
mlock_range(struct thread *td, uint64_t addr, uint64_t len, bool lock,
    bool fill)
{
	struct proc *p = td->proc;
	struct vm_map *m = p->vm;
	uint64_t start = VK_ROUND_DOWN(addr, VK_PAGE_SIZE), end;
	struct vm_usage all, in;

	if (lock && !mlock_allowed(p))
		return -EPERM;
	len += addr - start;
	end = start + VK_ROUND_UP(len, VK_PAGE_SIZE);
	if (len < addr - start || end < start)
		return -EINVAL;
	if (lock && p->cred.euid != 0) {
		vm_map_usage(m, 0, UINT64_MAX, &all);
		vm_map_usage(m, start, end, &in);
		if (end - start > mlock_limit(p) ||
		    all.locked - in.locked > mlock_limit(p) - (end - start))
			return -ENOMEM;
	}
	if (end == start)
		return 0;
	if (!vm_map_range_user(m, start, end - start) ||
	    !vm_map_range_mapped(m, start, end) ||
	    vm_map_range_has(m, start, end, VME_RESERVED))
		return -ENOMEM;
	if (!vm_map_may_cut(m, start, end, mlock_same, lock))
		return -ENOMEM;
	if (!lock) {
		vm_map_clear_flags(m, start, end, VME_LOCKED);
		return 0;
	}
	vm_map_add_flags(m, start, end, VME_LOCKED);
	if (fill)
		vm_map_populate(m, start, end);
	return 0;
}

long
sys_mlock(struct thread *td, const struct sys_mlock_args *a)
{
	return mlock_range(td, a->addr.va, a->len, true, true);
}

long
sys_mlock2(struct thread *td, const struct sys_mlock2_args *a)
{
	if (a->flags & ~(unsigned)MLOCK_ONFAULT)
		return -EINVAL;
	return mlock_range(td, a->addr.va, a->len, true,
	    !(a->flags & MLOCK_ONFAULT));
}

long
sys_munlock(struct thread *td, const struct sys_munlock_args *a)
{
	return mlock_range(td, a->addr.va, a->len, false, false);
}

/* Every entry but the platform's, locked or not. */
static void
mlock_all(struct vm_map *m, bool lock)
{
	for (unsigned i = 0; i < m->n; i++)
		if (!(m->ent[i].flags & VME_RESERVED))
			m->ent[i].flags = lock ?
			    m->ent[i].flags | VME_LOCKED :
			    m->ent[i].flags & ~(unsigned)VME_LOCKED;
}

/*
 * As Linux's mlockall(): MCL_FUTURE is set, or cleared, by every call
 * that succeeds, MCL_CURRENT or not; only MCL_CURRENT checks the limit,
 * against all that is mapped.
 */
long
sys_mlockall(struct thread *td, const struct sys_mlockall_args *a)
{
	struct proc *p = td->proc;
	struct vm_map *m = p->vm;
	struct vm_usage u;

	if (a->flags == 0 || (a->flags & ~(unsigned)MCL_VALID) ||
	    a->flags == MCL_ONFAULT)
		return -EINVAL;
	if (!mlock_allowed(p))
		return -EPERM;
	if (a->flags & MCL_CURRENT) {
		vm_map_usage(m, 0, UINT64_MAX, &u);
		if (p->cred.euid != 0 && u.total > mlock_limit(p))
			return -ENOMEM;
	}
	m->lock_future = (a->flags & MCL_FUTURE) != 0;
	m->lock_onfault = m->lock_future && (a->flags & MCL_ONFAULT);
	if (a->flags & MCL_CURRENT) {
		mlock_all(m, true);
		if (!(a->flags & MCL_ONFAULT))
			vm_map_populate(m, 0, UINT64_MAX);
	}
	return 0;
}

long
sys_munlockall(struct thread *td, const struct sys_munlockall_args *a)
{
	struct vm_map *m = td->proc->vm;

	(void)a;
	m->lock_future = m->lock_onfault = false;
	mlock_all(m, false);
	return 0;
}

/*
 * mincore(2): a page is resident when it has RAM; one never touched (lazy
 * anonymous memory, a file page not read or mapped yet) is not.  Entry by
 * entry, so that a huge reservation costs one lookup, not one a page.
 */
long
sys_mincore(struct thread *td, const struct sys_mincore_args *a)
{
	struct vm_map *m = td->proc->vm;
	uint64_t va = a->addr.va, end, done = 0;
	unsigned char buf[4096];

	if (!VK_PAGE_ALIGNED(va))
		return -EINVAL;
	if (!vm_map_range_user(m, va, a->len))
		return -ENOMEM;
	end = va + VK_ROUND_UP(a->len, VK_PAGE_SIZE);
	while (va < end) {
		const struct vm_entry *e = vm_map_lookup(m, va);
		uint64_t n;

		if (e == NULL || (e->flags & VME_RESERVED))
			return -ENOMEM;
		n = VK_MIN((VK_MIN(e->end, end) - va) / VK_PAGE_SIZE,
		    (uint64_t)sizeof(buf));
		memset(buf, e->ramoff != VM_NORAM, (size_t)n);
		if (copyout(td, buf, UADDR(a->vec.va + done), (size_t)n) < 0)
			return -EFAULT;
		done += n;
		va += n * VK_PAGE_SIZE;
	}
	return 0;
}
