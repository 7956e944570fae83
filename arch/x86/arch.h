/*
 * The x86-64 CPU as the machine-independent kernel sees it: the guest's
 * register context, the syscall calling convention and the few CPU facts
 * that exec and the auxiliary vector need.
 */
#ifndef VK_ARCH_X86_ARCH_H
#define VK_ARCH_X86_ARCH_H

#include <stdint.h>

#include "vkern/vk.h"

/*
 * General registers in the order of the kernel's struct user_regs_struct,
 * so that the platform can move them with one PTRACE_GETREGS/SETREGS.
 */
struct arch_regs {
	uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	uint64_t rax, rcx, rdx, rsi, rdi, orig_rax;
	uint64_t rip, cs, eflags, rsp, ss;
	uint64_t fs_base, gs_base;
	uint64_t ds, es, fs, gs;
};
_Static_assert(sizeof(struct arch_regs) == 27 * 8, "user_regs_struct layout");

/* What changed in a context since the platform last loaded it. */
#define ARCH_DIRTY_RAX  0x1	/* only the syscall result */
#define ARCH_DIRTY_ALL  0x2	/* any register */

struct arch_context {
	struct arch_regs regs;
	unsigned dirty;
};

/*
 * The syscall number: as Linux, the low 32 bits of orig_rax as an int;
 * the high bits are ignored, and the x32 bit (1 << 30) or a negative
 * number fall outside the table.
 */
static inline long
arch_syscall_nr(const struct arch_context *c)
{
	return (int)(uint32_t)c->regs.orig_rax;
}

/*
 * Whether the call may have come through int $0x80 rather than the
 * syscall instruction, which leaves its return address in rcx (the stop
 * shows rcx == rip); when it may, the instruction's bytes tell.
 */
static inline bool
arch_syscall_maybe_int80(const struct arch_context *c)
{
	return c->regs.rcx != c->regs.rip;
}

#define ARCH_INT80_INSN 0x80cd   /* int $0x80, as a little-endian u16 */

/* Raw syscall arguments in the x86-64 order: rdi, rsi, rdx, r10, r8, r9. */
static inline void
arch_syscall_args(const struct arch_context *c, uint64_t a[6])
{
	a[0] = c->regs.rdi;
	a[1] = c->regs.rsi;
	a[2] = c->regs.rdx;
	a[3] = c->regs.r10;
	a[4] = c->regs.r8;
	a[5] = c->regs.r9;
}

static inline void
arch_syscall_set_ret(struct arch_context *c, long v)
{
	c->regs.rax = (uint64_t)v;
	c->dirty |= ARCH_DIRTY_RAX;
}

void arch_exec_regs(struct arch_context *c, uint64_t entry, uint64_t sp);

/* AT_PLATFORM as Linux reports it. */
const char *arch_platform(void);

#define ARCH_ELF_MACHINE 62	/* EM_X86_64 */

/* The top of the guest's user address space (Linux's TASK_SIZE_MAX). */
#define ARCH_TASK_SIZE 0x7ffffffff000ULL

/*
 * Whether v may be a thread's FS or GS base.  Linux refuses a base at or
 * above TASK_SIZE_MAX with EPERM (arch_prctl and clone's CLONE_SETTLS
 * alike), and so does the host when the platform loads one: a guest's
 * value must be checked here before it reaches a register context.
 */
static inline bool
arch_segbase_ok(uint64_t v)
{
	return v < ARCH_TASK_SIZE;
}

#endif
