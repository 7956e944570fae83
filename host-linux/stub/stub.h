/*
 * The stub's fixed layout, shared by the stub's assembly and the platform.
 *
 * A stub is a tiny static program without libc.  Its address space holds
 * its one code page at STUB_BASE, the batch page above it and the host's
 * vdso; everything below STUB_BASE (less the vdso) is the guest's.  Under
 * the systrap platform it also holds a read-only page of constants and
 * one area per guest thread: its message to vkernel and its signal stack.
 */
#ifndef VK_HOST_STUB_H
#define VK_HOST_STUB_H

#define STUB_BASE        0x7ffb00000000
#define STUB_SYSCALL1    (STUB_BASE + 0x100)   /* syscall; int3 */
#define STUB_BATCH       (STUB_BASE + 0x200)   /* run the batch page */
#define STUB_CLONE       (STUB_BASE + 0x300)   /* systrap: a guest thread */
#define STUB_HSYS        (STUB_BASE + 0x380)   /* systrap: syscall; ret */
#define STUB_HANDLER     (STUB_BASE + 0x400)   /* systrap: signal handler */
#define STUB_BATCH_PAGE  (STUB_BASE + 0x1000)  /* read-only, from the RAM file */
#define STUB_CONST_PAGE  (STUB_BASE + 0x2000)  /* systrap: read-only */
#define STUB_AREAS       (STUB_BASE + 0x10000)
#define STUB_AREA_SIZE   0x8000                /* aligned to its size */
#define STUB_AREA_MAX    4096                  /* the kernel's task limit */
#define STUB_END         (STUB_AREAS + STUB_AREA_MAX * STUB_AREA_SIZE)

/*
 * The constants page (systrap): the handler's kernel struct sigaction,
 * an empty signal mask, the 8-byte 1 the doorbell is rung with, the
 * seccomp filter as a struct sock_fprog and its instructions, the guest's
 * host CPUs a new thread moves to; and what
 * vkernel says there for every handler: whether it sleeps (a message
 * then rings its doorbell) and how long a handler spins before it sleeps
 * itself.
 */
#define STUB_CONST_SIGACT  (STUB_CONST_PAGE + 0x0)
#define STUB_CONST_MASK0   (STUB_CONST_PAGE + 0x20)
#define STUB_CONST_ONE     (STUB_CONST_PAGE + 0x28)
#define STUB_CONST_FPROG   (STUB_CONST_PAGE + 0x30)
#define STUB_CONST_ASLEEP  (STUB_CONST_PAGE + 0x40)  /* u32: ring vkernel */
#define STUB_CONST_SPIN    (STUB_CONST_PAGE + 0x44)  /* u32: pauses to spin */
#define STUB_CONST_FILTER  (STUB_CONST_PAGE + 0x100)
#define STUB_CONST_CPUS    (STUB_CONST_PAGE + 0x800)  /* a cpu_set_t */
#define STUB_CPUS_SIZE     128

/*
 * A thread area (systrap): the message at its start, the stack of the
 * thread's start-up code up to STUB_ALT_OFF, the signal stack above.
 */
#define STUB_MSG_STATE   0     /* u32: 0 guest runs, 1 posted, 2 answered, */
				/* 3 posted and the handler sleeps (its */
				/* spin ran out, or vkernel holds it) */
#define STUB_MSG_SIGNO   4     /* u32: the signal */
#define STUB_MSG_INFO    8     /* u64: its siginfo, a stub address */
#define STUB_MSG_UC      16    /* u64: its ucontext, a stub address */
#define STUB_MSG_FS      24    /* u64: FS base to set before returning */
#define STUB_MSG_GS      32    /* u64: GS base to set */
#define STUB_MSG_SET     40    /* u32: bit 0 set FS, bit 1 set GS */
#define STUB_ALT_OFF     0x1000

#define STUB_SIG_INTERRUPT 10  /* SIGUSR1: vkernel stops a guest thread */

#define STUB_RAM_FD      3     /* the RAM file, in the stub */
#define STUB_EXE_FD      4     /* the stub's own image, until exec */
#define STUB_BELL_FD     5     /* systrap: vkernel's doorbell eventfd */
#define STUB_SYNC_FD     6     /* the start-up handshake, until exec */

/* One batch entry: the syscall number and six arguments, 64 bytes. */
#define STUB_BATCH_ENTRY 64
#define STUB_BATCH_MAX   (4096 / STUB_BATCH_ENTRY)

#endif
