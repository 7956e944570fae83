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
#define STUB_CHILD       (STUB_BASE + 0x260)   /* systrap: a forked stub's */
							/* first call */
#define STUB_CLONE       (STUB_BASE + 0x320)   /* systrap: a guest thread */
#define STUB_HSYS        (STUB_BASE + 0x380)   /* systrap: syscall; ret */
#define STUB_EXIT        (STUB_BASE + 0x3c0)   /* systrap: a thread's end */
#define STUB_EXIT_SYS    (STUB_BASE + 0x3e0)   /* ... its exit syscall */
#define STUB_HANDLER     (STUB_BASE + 0x400)   /* systrap: signal handler */
#define STUB_TRAMP       (STUB_BASE + 0xa00)   /* systrap: patched sites' */
#define STUB_TRAMP_POSTED (STUB_BASE + 0xb00)  /* ... message posted */
#define STUB_TRAMP_DONE  (STUB_BASE + 0xc00)   /* ... answered: return */
#define STUB_TRAMP_END   (STUB_BASE + 0xc40)   /* ... its trapping way */
#define STUB_TRAMP_TRAP  (STUB_BASE + 0xc60)   /* ... whose syscall */
#define STUB_TRAMP_LIMIT (STUB_BASE + 0xc80)
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
#define STUB_MSG_TID     44    /* u32: the host thread's id, which the */
				/* host clears when the thread ends */
#define STUB_MSG_SELF    48    /* u64: the area's own address, which the */
				/* trampoline reads through GS */

/*
 * The trampoline's message (systrap), beside the handler's so that a
 * signal in the trampoline loses neither: its state, the site's slot,
 * the answer (the result and where to return) and the guest's registers
 * (STUB_FR_*) as the trampoline saved them; its stack below
 * STUB_FAST_STACK, apart from the signal stack.
 */
#define STUB_FAST_STATE  0x40  /* u32: 1 posted, 2 answered, 3 trap now, */
				/* 4 posted and the trampoline sleeps on */
				/* the word (its spin ran out, or vkernel */
				/* holds the call) */
#define STUB_FAST_SLOT   0x44  /* u32 */
#define STUB_FAST_RAX    0x48  /* u64 */
#define STUB_FAST_RIP    0x50  /* u64 */
#define STUB_FAST_REGS   0x58  /* u64 each, in STUB_FR_* order */
/*
 * The state, the answer and the first five arguments fill one cache
 * line, the one vkernel polls: a call then moves that line alone each
 * way.  The rest, from r9 on, vkernel reads only for a call that needs
 * them (plat_thread_regs_load), so that the trampoline's stores there
 * stay in its CPU's cache: a patched getpid takes a fifth less than with
 * the arguments on a line of their own and all read (bench/RESULTS.md).
 */
#define STUB_FR_RDI      0
#define STUB_FR_RSI      1
#define STUB_FR_RDX      2
#define STUB_FR_R10      3
#define STUB_FR_R8       4
#define STUB_FR_R9       5
#define STUB_FR_RSP      6
#define STUB_FR_FLAGS    7
#define STUB_FR_RBX      8
#define STUB_FR_RBP      9
#define STUB_FR_R12      10
#define STUB_FR_R13      11
#define STUB_FR_R14      12
#define STUB_FR_R15      13
#define STUB_FR_N        14
#define STUB_FAST_STACK  0x800
#define STUB_ALT_OFF     0x1000

/*
 * Syscall-site patching (systrap): one read-only region, the same in
 * every stub, below 2 GiB where a 7-byte "jmp *ABS32" reaches it.  A
 * slot's pointer in the table leads to the slot's entry in the code
 * below: "mov $slot, %eax; jmp *STUB_PATCH_PTR" (11 bytes, int3 after).
 * Nothing else runs there: a guest may take the range over, and a thread
 * found in an entry then starts again at its site.  Bits 16-23 of every
 * table address are 0x06, an invalid opcode: the byte a patch leaves
 * where the site's syscall instruction began.
 */
#define STUB_PATCH_BASE  0x7f060000
#define STUB_PATCH_SLOTS 1024
#define STUB_PATCH_CODE  (STUB_PATCH_BASE + 0x2000)  /* 16 bytes a slot */
#define STUB_PATCH_PTR   (STUB_PATCH_BASE + 0x6000)  /* u64: STUB_TRAMP */
#define STUB_PATCH_SIZE  0x8000

#define STUB_SIG_INTERRUPT 10  /* SIGUSR1: vkernel stops a guest thread */

#define STUB_RAM_FD      3     /* the RAM file, in the stub */
#define STUB_EXE_FD      4     /* the stub's own image, until exec */
#define STUB_BELL_FD     5     /* systrap: vkernel's doorbell eventfd */
#define STUB_SYNC_FD     6     /* the start-up handshake, until exec */

/* One batch entry: the syscall number and six arguments, 64 bytes. */
#define STUB_BATCH_ENTRY 64
#define STUB_BATCH_MAX   (4096 / STUB_BATCH_ENTRY)

#endif
