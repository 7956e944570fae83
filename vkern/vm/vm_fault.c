/*
 * Page faults the host could not serve.
 *
 * Guest memory is mapped into the stub a whole region at a time, so the
 * host serves nearly every fault itself.  A fault reaches the kernel only
 * when the address has no host mapping that allows the access.  Either the
 * stub's mapping is stale (the map is the truth and the stub only a cache,
 * so the region is mapped again and the access retried), or the access is
 * truly bad and the guest gets SIGSEGV.
 */
#include <errno.h>
#include <signal.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/kern.h"
#include "vkern/platform.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_map_impl.h"
#include "vkern/vm/vm_ram.h"

int
vm_fill_oom(struct vm_map *m, uint64_t va,
    int (*fill)(struct vm_map *, uint64_t))
{
	int r;

	while ((r = fill(m, va)) == -ENOMEM)
		if (!oom_kill(m))
			return -EINTR;
	return r;
}

/* How a page of e without RAM gets it when touched; NULL: it has RAM. */
static int (*
vm_filler(const struct vm_entry *e))(struct vm_map *, uint64_t)
{
	if (e->prot == 0 || (e->flags & VME_RESERVED) || e->ramoff != VM_NORAM)
		return NULL;
	if ((e->flags & VME_SHARED) && e->obj != NULL)
		return vm_map_file_fault;
	if (e->vn != NULL)
		return vm_map_file_fill;
	return vm_entry_untouched(e) ? vm_map_anon_fill : NULL;
}

void
vm_map_populate(struct vm_map *m, uint64_t start, uint64_t end)
{
	uint64_t va = start;

	while (va < end) {
		unsigned i = vm_map_search(m, va);
		int (*fill)(struct vm_map *, uint64_t);
		int r;

		if (i >= m->n)
			break;
		va = VK_MAX(va, m->ent[i].start);
		if (va >= end)
			break;
		/* A fill makes the page's entry one with RAM, or fails. */
		if ((fill = vm_filler(&m->ent[i])) == NULL ||
		    (r = fill(m, va)) == -ENXIO)
			va = vm_map_lookup(m, va)->end;
		else if (r < 0)
			break;
	}
}

int
vm_fault(struct thread *td, uint64_t addr, int *codep)
{
	struct proc *p = td->proc;
	struct vm_entry *e = vm_map_lookup(p->vm, addr);
	uint64_t page = VK_ROUND_DOWN(addr, VK_PAGE_SIZE);
	int r;

	if (e == NULL || (e->flags & VME_RESERVED)) {
		*codep = SEGV_MAPERR;
		return -EFAULT;
	}
	/* A shared file page with no RAM: the file may have grown to it. */
	if ((e->flags & VME_SHARED) && e->ramoff == VM_NORAM &&
	    e->obj != NULL && e->prot != 0) {
		r = vm_fill_oom(p->vm, addr, vm_map_file_fault);
		if (r == -EINTR)
			return 0;   /* killed, or another that maps it */
		if (r < 0 || plat_space_flush(p->vm->space) < 0) {
			*codep = -BUS_ADRERR;   /* SIGBUS: past the end */
			return -EFAULT;
		}
		return 0;
	}
	/*
	 * A private file page without RAM (read it, unless past the end),
	 * untouched private memory (charge it now), or a write to
	 * copy-on-write memory (the page gets its own copy).
	 */
	if (e->vn != NULL && e->ramoff == VM_NORAM && e->prot != 0)
		r = vm_fill_oom(p->vm, addr, vm_map_file_fill);
	else if (vm_entry_untouched(e))
		r = vm_fill_oom(p->vm, addr, vm_map_anon_fill);
	else if ((e->flags & VME_COW) && (e->prot & PLAT_PROT_WRITE))
		r = vm_fill_oom(p->vm, addr, vm_map_cow);
	else
		r = 1;
	if (r == -EINTR)
		return 0;
	if (r <= 0) {
		td->last_fault = 0;
		if (r < 0 || plat_space_flush(p->vm->space) < 0) {
			*codep = r == -ENXIO ? -BUS_ADRERR : SEGV_MAPERR;
			return -EFAULT;
		}
		return 0;
	}
	/*
	 * A second fault on the same page with nothing in between means the
	 * host mapping is current and the protection forbids the access.
	 */
	if (e->prot == 0 || e->ramoff == VM_NORAM || td->last_fault == page) {
		td->last_fault = 0;
		*codep = SEGV_ACCERR;
		return -EFAULT;
	}
	td->last_fault = page;
	plat_space_map(p->vm->space, e->start, e->end - e->start, e->prot,
	    e->ramoff);
	if (plat_space_flush(p->vm->space) < 0) {
		*codep = SEGV_MAPERR;
		return -EFAULT;
	}
	return 0;
}
