/*
 * The stub: the host process that holds one guest address space.
 *
 * It runs only what the platform points it at.  At start it reports the
 * vdso's address and its stack pointer through a syscall stop (the
 * platform then unmaps its host stack); afterwards guest code runs in it
 * under PTRACE_SYSEMU, and the platform borrows it to run its own mmap,
 * munmap and mprotect calls at the entry points below, which end in int3
 * so that each borrowing costs one stop.
 *
 * Under the systrap platform the guest runs instead in threads made at
 * stub_clone, which ptrace does not follow: each installs the handler
 * and the seccomp filter vkernel left in the constants page, then traps
 * once to say it is ready.  Every guest syscall traps (SIGSYS), as do
 * faults and vkernel's interrupt; the handler posts the signal frame in
 * the thread's area, rings vkernel's doorbell, sleeps on its message
 * word until answered and returns to the frame, as vkernel left it.  The
 * handler's system calls all go through stub_hsys, the one place the
 * filter lets them run.  A syscall site vkernel patched jumps to
 * stub_tramp instead, which posts the registers in the area and spins
 * for the answer without a signal.
 */
#include "stub.h"

	/* In the handler: the base vkernel asked for with bit, if it did. */
	.macro	set_base bit, code, field
	testl	$\bit, STUB_MSG_SET(%rbx)
	jz	1f
	mov	$158, %eax
	mov	$\code, %edi
	mov	\field(%rbx), %rsi
	call	stub_hsys
1:
	.endm

	.text
	.globl	_start
_start:
	/* rsp -> argc, argv[], NULL, envp[], NULL, auxv[] */
	mov	(%rsp), %rcx
	lea	16(%rsp,%rcx,8), %rdx		/* envp */
1:	mov	(%rdx), %rax
	add	$8, %rdx
	test	%rax, %rax
	jnz	1b
	xor	%edi, %edi			/* rdx -> auxv */
2:	mov	(%rdx), %rax
	test	%rax, %rax
	jz	4f
	cmp	$33, %rax			/* AT_SYSINFO_EHDR */
	jne	3f
	mov	8(%rdx), %rdi
3:	add	$16, %rdx
	jmp	2b
4:	mov	%rsp, %rsi
	mov	$39, %eax			/* the hello stop */
	syscall
5:	int3
	jmp	5b

	.org	STUB_SYSCALL1 - STUB_BASE
stub_syscall1:
	syscall
	int3

	/*
	 * rbx: the batch page, r12: the entry count.  Runs the entries in
	 * order and stops at the first that fails; r13 says how many ran.
	 */
	.org	STUB_BATCH - STUB_BASE
stub_batch:
	xor	%r13d, %r13d
6:	cmp	%r12, %r13
	jae	7f
	mov	%r13, %r14
	shl	$6, %r14
	add	%rbx, %r14
	mov	0(%r14), %rax
	mov	8(%r14), %rdi
	mov	16(%r14), %rsi
	mov	24(%r14), %rdx
	mov	32(%r14), %r10
	mov	40(%r14), %r8
	mov	48(%r14), %r9
	syscall
	cmp	$-4095, %rax
	jae	7f
	inc	%r13
	jmp	6b
7:	int3

	/* mmap(rdi, rsi, rdx, MAP_SHARED | MAP_FIXED, ram, r9): ZF on success. */
	.macro	child_map
	mov	$0x11, %r10d
	mov	$STUB_RAM_FD, %r8d
	mov	$9, %eax
	syscall
	cmp	%rdi, %rax
	.endm

	/*
	 * A forked stub's set-up in one stop (systrap), on a thread without
	 * a stack: its own batch page (r12: its RAM file offset), the
	 * parent's areas gone when rbp is not 0, its guest thread's area
	 * (r13: its offset, r14: its address) and the thread, as stub_clone
	 * makes it (rbx: clone's flags).  r15 counts the steps done: at 3,
	 * rax is clone's result.
	 */
	.org	STUB_CHILD - STUB_BASE
stub_child:
	xor	%r15d, %r15d
	movabs	$STUB_BATCH_PAGE, %rdi		/* mmap(page, 4096, PROT_READ, */
	mov	$4096, %esi			/* ..., r12) */
	mov	$1, %edx
	mov	%r12, %r9
	child_map
	jne	16f
	inc	%r15d
	test	%rbp, %rbp
	jz	17f
	movabs	$STUB_AREAS, %rdi		/* munmap(areas, all) */
	mov	$(STUB_AREA_MAX * STUB_AREA_SIZE), %esi
	mov	$11, %eax
	syscall
	test	%rax, %rax
	jnz	16f
17:	inc	%r15d
	mov	%r14, %rdi			/* mmap(area, size, RW, ..., r13) */
	mov	$STUB_AREA_SIZE, %esi
	mov	$3, %edx
	mov	%r13, %r9
	child_map
	jne	16f
	inc	%r15d
	mov	%rbx, %rdi			/* clone(flags, its stack, 0, */
	lea	STUB_ALT_OFF(%r14), %rsi	/* its area's tid word, 0) */
	xor	%edx, %edx
	lea	STUB_MSG_TID(%r14), %r10
	xor	%r8d, %r8d
	mov	%r14, %r12
	mov	$56, %eax
	jmp	stub_clone
16:	int3

	/* rdi..r8: clone's arguments, r12: the new thread's area. */
	.org	STUB_CLONE - STUB_BASE
stub_clone:
	syscall
	test	%rax, %rax
	jz	stub_thread
	int3

	.org	STUB_HSYS - STUB_BASE
stub_hsys:
	syscall
	ret

	/*
	 * A parked thread vkernel ends: the exit, the one call the filter
	 * lets run here (the host clears the area's tid word after it).
	 */
	.org	STUB_EXIT - STUB_BASE
stub_exit:
	mov	$60, %eax
	xor	%edi, %edi
	jmp	stub_exit_sys

	.org	STUB_EXIT_SYS - STUB_BASE
stub_exit_sys:
	syscall
	ud2

	/* rdi: signal, rsi: siginfo, rdx: ucontext; on the area's stack. */
	.org	STUB_HANDLER - STUB_BASE
stub_handler:
	mov	%rsp, %r15			/* rt_sigreturn wants rsp + 8 */
	mov	%rsp, %rbx
	and	$-STUB_AREA_SIZE, %rbx
	mov	%edi, STUB_MSG_SIGNO(%rbx)
	mov	%rsi, STUB_MSG_INFO(%rbx)
	mov	%rdx, STUB_MSG_UC(%rbx)
	movl	$0, STUB_MSG_SET(%rbx)
	mov	$1, %eax			/* post: after the rest, and */
	xchg	%eax, STUB_MSG_STATE(%rbx)	/* a full barrier before */
	movabs	$STUB_CONST_ASLEEP, %rax	/* asleep is read */
	cmpl	$0, (%rax)
	je	7f
	mov	$1, %eax			/* write(bell, &one, 8) */
	mov	$STUB_BELL_FD, %edi
	movabs	$STUB_CONST_ONE, %rsi
	mov	$8, %edx
	call	stub_hsys
7:	movabs	$STUB_CONST_SPIN, %rax		/* spin for the answer, */
	mov	(%rax), %ecx
8:	mov	STUB_MSG_STATE(%rbx), %eax
	cmp	$1, %eax
	jne	15f
	sub	$1, %ecx
	jb	10f
	pause
	jmp	8b
15:	cmp	$3, %eax			/* vkernel said sleep: it holds */
	je	11f				/* the thread */
	jmp	9f
10:	mov	$1, %eax			/* then say it sleeps (1 -> 3) */
	mov	$3, %edx
	lock cmpxchg %edx, STUB_MSG_STATE(%rbx)
	jne	15b
11:	mov	$202, %eax			/* futex(state, FUTEX_WAIT, 3) */
	lea	STUB_MSG_STATE(%rbx), %rdi
	xor	%esi, %esi
	mov	$3, %edx
	xor	%r10d, %r10d
	call	stub_hsys
	cmpl	$3, STUB_MSG_STATE(%rbx)
	je	11b
9:	set_base 1, 0x1002, STUB_MSG_FS	/* arch_prctl(ARCH_SET_FS) */
	set_base 2, 0x1001, STUB_MSG_GS	/* arch_prctl(ARCH_SET_GS) */
	lea	8(%r15), %rsp
	mov	$15, %eax			/* rt_sigreturn */
	jmp	stub_hsys

	/*
	 * A new guest thread: r12 its area, rsp in it.  It keeps to the
	 * guest's CPUs (the control thread that made it is there already
	 * when vkernel has a CPU of its own: systrap.c's clone_call).  GS
	 * is the area while the guest has no GS base of its own: the
	 * trampoline finds its area there.
	 */
stub_thread:
	xor	%edi, %edi			/* sched_setaffinity(0, */
	mov	$STUB_CPUS_SIZE, %esi		/* size, guest's CPUs) */
	movabs	$STUB_CONST_CPUS, %rdx
	mov	$203, %eax
	syscall
	mov	$158, %eax			/* arch_prctl(ARCH_SET_GS, r12) */
	mov	$0x1001, %edi
	mov	%r12, %rsi
	syscall
	test	%rax, %rax
	jnz	13f
	sub	$24, %rsp			/* sigaltstack(&ss, NULL) */
	lea	STUB_ALT_OFF(%r12), %rax
	mov	%rax, 0(%rsp)
	movq	$0, 8(%rsp)
	movq	$(STUB_AREA_SIZE - STUB_ALT_OFF), 16(%rsp)
	mov	%rsp, %rdi
	xor	%esi, %esi
	mov	$131, %eax
	syscall
	test	%rax, %rax
	jnz	13f
	lea	stub_sigs(%rip), %r13
12:	movzbl	(%r13), %edi			/* rt_sigaction(sig, &sa, 0, 8) */
	test	%edi, %edi
	jz	14f
	movabs	$STUB_CONST_SIGACT, %rsi
	xor	%edx, %edx
	mov	$8, %r10d
	mov	$13, %eax
	syscall
	test	%rax, %rax
	jnz	13f
	inc	%r13
	jmp	12b
14:	mov	$2, %edi			/* rt_sigprocmask(SETMASK, 0) */
	movabs	$STUB_CONST_MASK0, %rsi
	xor	%edx, %edx
	mov	$8, %r10d
	mov	$14, %eax
	syscall
	test	%rax, %rax
	jnz	13f
	mov	$1, %edi			/* seccomp(SET_MODE_FILTER) */
	xor	%esi, %esi
	movabs	$STUB_CONST_FPROG, %rdx
	mov	$317, %eax
	syscall
	test	%rax, %rax
	jnz	13f
	mov	$39, %eax			/* the first trap: ready */
	syscall
13:	mov	$60, %eax			/* unreachable, or a failure */
	mov	$127, %edi
	syscall
	int3

stub_sigs:
	.byte	31, 11, 7, 8, 4, 5, STUB_SIG_INTERRUPT, 0

	/* Guest registers saved in the area: slot k. */
#define FR(k)	(STUB_FAST_REGS + 8 * STUB_FR_##k)

	/*
	 * A patched syscall site's way in (patch.c): its slot's entry
	 * loads eax with the slot and jumps here.  rax, rcx and r11 are
	 * free, as the syscall instruction the patch replaced clobbers
	 * them; every other register and the flags come back as they were.
	 * The area is GS's base while the guest has none of its own: its
	 * self word, read through GS (no rdgsbase, which hosts without
	 * FSGSBASE lack), must be an area's address.  A guest that set a GS
	 * base of its own, or one that jumps here from elsewhere, takes the
	 * slot's trapping way instead (it keeps its registers, the flags
	 * put back); one whose GS read faults has its call served from the
	 * fault, whose frame still holds the slot, the flags and every
	 * register (patch.c).  From the post on, r9 (saved) keeps the area
	 * across the host calls: the self word is the guest's to write.
	 * Nothing is saved on the guest's stack: the
	 * registers go to the area, and its own stack there serves pushf
	 * and the call to stub_hsys, whose rules pin the one host call made
	 * here (the doorbell).  vkernel knows where a signal found the
	 * thread from rip: before STUB_TRAMP_POSTED nothing is posted yet,
	 * from there the message waits, from STUB_TRAMP_DONE the answer is
	 * taken.  The padding between is int3.
	 */
	.org	STUB_TRAMP - STUB_BASE, 0xcc
stub_tramp:
	mov	%gs:STUB_MSG_SELF, %rcx		/* first: a fault here is served */
	mov	%eax, %r11d			/* the slot */
	lahf					/* SF ZF AF PF CF */
	seto	%al				/* OF */
	sub	areas_lo(%rip), %rcx
	cmp	$(STUB_AREA_MAX * STUB_AREA_SIZE), %rcx
	jae	stub_tramp_trap
	test	$(STUB_AREA_SIZE - 1), %ecx
	jnz	stub_tramp_trap
	add	areas_lo(%rip), %rcx
	/*
	 * The registers vkernel reads only when asked first; then those
	 * of the line it polls, back to back, so that it takes the line
	 * from this CPU once (stub.h).
	 */
	mov	%r9, FR(R9)(%rcx)
	mov	%rcx, %r9
	mov	%rbx, FR(RBX)(%rcx)
	mov	%rbp, FR(RBP)(%rcx)
	mov	%r12, FR(R12)(%rcx)
	mov	%r13, FR(R13)(%rcx)
	mov	%r14, FR(R14)(%rcx)
	mov	%r15, FR(R15)(%rcx)
	mov	%rsp, FR(RSP)(%rcx)
	lea	STUB_FAST_STACK(%rcx), %rsp
	add	$0x7f, %al			/* the flags back, */
	sahf
	pushfq					/* and all of them saved */
	popq	FR(FLAGS)(%rcx)
	mov	%rdi, FR(RDI)(%rcx)
	mov	%rsi, FR(RSI)(%rcx)
	mov	%rdx, FR(RDX)(%rcx)
	mov	%r10, FR(R10)(%rcx)
	mov	%r8, FR(R8)(%rcx)
	mov	%r11d, STUB_FAST_SLOT(%rcx)
	mov	$1, %eax			/* post: a full barrier, */
	jmp	21f
	/*
	 * which ends where STUB_TRAMP_POSTED begins: a signal that comes
	 * once the xchg is done must find rip in the posted zone.
	 */
	.org	STUB_TRAMP_POSTED - STUB_BASE - 3, 0xcc
21:	xchg	%eax, STUB_FAST_STATE(%rcx)
	.if	. - 21b - 3
	.error	"the post's xchg is not 3 bytes long"
	.endif

	.org	STUB_TRAMP_POSTED - STUB_BASE, 0xcc
stub_tramp_posted:
	movabs	$STUB_CONST_ASLEEP, %rax	/* ring vkernel if it sleeps */
	cmpl	$0, (%rax)
	je	22f
	mov	$1, %eax			/* write(bell, &one, 8) */
	mov	$STUB_BELL_FD, %edi
	movabs	$STUB_CONST_ONE, %rsi
	mov	$8, %edx
	call	stub_hsys
	mov	%r9, %rcx
22:	movabs	$STUB_CONST_SPIN, %rax		/* spin for the answer, */
	mov	(%rax), %r11d
23:	mov	STUB_FAST_STATE(%rcx), %eax
	cmp	$1, %eax
	jne	24f
	sub	$1, %r11d
	jb	26f
	pause
	jmp	23b
26:	mov	$4, %edx			/* then say it sleeps (1 -> 4) */
	lock cmpxchg %edx, STUB_FAST_STATE(%rcx)
	jne	24f
	mov	%edx, %eax
24:	cmp	$2, %eax
	je	stub_tramp_done
	cmp	$4, %eax			/* asleep (vkernel holds the */
	jne	25f				/* call, or the spin ran out) */
	mov	$202, %eax			/* futex(fstate, FUTEX_WAIT, 4) */
	lea	STUB_FAST_STATE(%rcx), %rdi
	xor	%esi, %esi
	mov	$4, %edx
	xor	%r10d, %r10d
	call	stub_hsys
	mov	%r9, %rcx
	jmp	22b
25:	or	$-1, %rax			/* vkernel wants the frame: */
	syscall					/* a trap it knows by rip */
	mov	%r9, %rcx
	jmp	22b

	.org	STUB_TRAMP_DONE - STUB_BASE, 0xcc
stub_tramp_done:
	mov	FR(R9)(%rcx), %r9
	mov	FR(RDI)(%rcx), %rdi		/* as the doorbell left them */
	mov	FR(RSI)(%rcx), %rsi
	mov	FR(RDX)(%rcx), %rdx
	pushq	FR(FLAGS)(%rcx)
	popfq
	mov	STUB_FAST_RAX(%rcx), %rax
	mov	FR(RSP)(%rcx), %rsp
	mov	FR(FLAGS)(%rcx), %r11		/* as a syscall leaves r11 */
	mov	STUB_FAST_RIP(%rcx), %rcx	/* and rcx */
	jmp	*%rcx

	/*
	 * The slot's trapping way: the flags back, rax the slot, and a
	 * syscall vkernel knows by its rip and serves as the site's own
	 * (rcx and r11 as that syscall leaves them).
	 */
	.org	STUB_TRAMP_END - STUB_BASE, 0xcc
stub_tramp_trap:
	add	$0x7f, %al
	sahf
	mov	%r11d, %eax
	jmp	stub_tramp_sys

	.org	STUB_TRAMP_TRAP - STUB_BASE, 0xcc
stub_tramp_sys:
	syscall
	ud2

areas_lo:
	.quad	STUB_AREAS
	.org	STUB_TRAMP_LIMIT - STUB_BASE, 0xcc

	.section .note.GNU-stack,"",@progbits
