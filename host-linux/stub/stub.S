/*
 * The stub: the host process that holds one guest address space.
 *
 * It runs only what the platform points it at.  At start it reports the
 * vdso's address and its stack pointer through a syscall stop (the
 * platform then unmaps its host stack); afterwards guest code runs in it
 * under PTRACE_SYSEMU, and the platform borrows it to run its own mmap,
 * munmap and mprotect calls at the entry points below, which end in int3
 * so that each borrowing costs one stop.
 */
#include "stub.h"

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

	.section .note.GNU-stack,"",@progbits
