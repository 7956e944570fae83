/*
 * x86-64 facts for exec: the registers a new image starts with and the
 * platform string of the auxiliary vector.
 */
#include <string.h>

#include "arch/x86/arch.h"

/*
 * Linux's start_thread(): every general register zero, the flags with
 * only IF set, rip at the entry and rsp at the new stack.  The segment
 * registers stay as the host set them for the stub.
 */
void
arch_exec_regs(struct arch_context *c, uint64_t entry, uint64_t sp)
{
	struct arch_regs *r = &c->regs;
	uint64_t cs = r->cs, ss = r->ss, ds = r->ds, es = r->es;

	memset(r, 0, sizeof(*r));
	r->cs = cs;
	r->ss = ss;
	r->ds = ds;
	r->es = es;
	r->rip = entry;
	r->rsp = sp;
	r->eflags = 0x202;
	r->orig_rax = (uint64_t)-1;
	c->dirty |= ARCH_DIRTY_ALL;
}

const char *
arch_platform(void)
{
	return "x86_64";
}
