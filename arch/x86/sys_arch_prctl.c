/*
 * arch_prctl: the guest thread's FS and GS bases, and CPUID faulting.
 *
 * The bases live in the thread's register context; the platform loads
 * them into the stub thread with the other registers, so a guest's TLS
 * pointer never costs a host call of its own.  The guest's CPU has no
 * CPUID faulting: CPUID always runs, and turning it off, or on, gives
 * ENODEV as on such a CPU.
 */
#include <asm/prctl.h>
#include <errno.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/vm/copyio.h"

long
sys_arch_prctl(struct thread *td, const struct sys_arch_prctl_args *a)
{
	struct arch_regs *r = &td->ctx.regs;

	switch (a->code) {
	case ARCH_SET_FS:
	case ARCH_SET_GS:
		if (!arch_segbase_ok(a->addr))
			return -EPERM;
		if (a->code == ARCH_SET_FS)
			r->fs_base = a->addr;
		else
			r->gs_base = a->addr;
		td->ctx.dirty |= ARCH_DIRTY_ALL;
		return 0;
	case ARCH_GET_FS:
		return copyout(td, &r->fs_base, UADDR(a->addr),
		    sizeof(r->fs_base));
	case ARCH_GET_GS:
		return copyout(td, &r->gs_base, UADDR(a->addr),
		    sizeof(r->gs_base));
	case ARCH_GET_CPUID:
		return 1;
	case ARCH_SET_CPUID:
		return -ENODEV;
	}
	return -EINVAL;
}
