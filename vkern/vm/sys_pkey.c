/*
 * Memory protection keys: pkey_alloc, pkey_free, pkey_mprotect.
 *
 * The guest's CPU has no protection keys (vkernel cannot switch a stub
 * thread's PKRU for it), so these answer as Linux on such a CPU:
 * pkey_alloc finds no key (ENOSPC, pkey_alloc(2)), no key is ever
 * allocated to free or to use, and pkey_mprotect with key -1 is
 * mprotect.
 */
#include <errno.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"

#define PKEY_ACCESS_MASK 0x3   /* PKEY_DISABLE_ACCESS | PKEY_DISABLE_WRITE */

long
sys_pkey_alloc(struct thread *td, const struct sys_pkey_alloc_args *a)
{
	if (a->flags != 0 || (a->access & ~(unsigned long)PKEY_ACCESS_MASK))
		return -EINVAL;
	return -ENOSPC;
}

long
sys_pkey_free(struct thread *td, const struct sys_pkey_free_args *a)
{
	return -EINVAL;
}

long
sys_pkey_mprotect(struct thread *td, const struct sys_pkey_mprotect_args *a)
{
	struct sys_mprotect_args m = { .addr = a->addr, .len = a->len,
	    .prot = a->prot };

	if (a->pkey != -1)
		return -EINVAL;
	return sys_mprotect(td, &m);
}
