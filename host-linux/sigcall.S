/*
 * sigcall: a blocking host system call that a signal noted before it
 * enters cannot sleep through.
 *
 * long sigcall_raw(const volatile sig_atomic_t *flag, long nr,
 *     long a1, long a2, long a3, long a4, long a5)
 *
 * The flag is tested as the last thing before the syscall instruction.
 * A signal that lands between the two finds the interrupted address in
 * (sigcall_check, sigcall_entry] and its handler, through sigcall_note,
 * moves it to sigcall_cancel: the call then returns -EINTR without
 * entering, as it would have had the signal come during it.
 */
	.text
	.globl	sigcall_raw
	.globl	sigcall_check
	.globl	sigcall_entry
	.globl	sigcall_cancel
	.type	sigcall_raw, @function
sigcall_raw:
	mov	%rsi, %rax
	mov	%rdi, %r11
	mov	%rdx, %rdi
	mov	%rcx, %rsi
	mov	%r8, %rdx
	mov	%r9, %r10
	mov	8(%rsp), %r8
sigcall_check:
	cmpl	$0, (%r11)
	jne	sigcall_cancel
sigcall_entry:
	syscall
	ret
sigcall_cancel:
	mov	$-4, %rax	/* -EINTR */
	ret
	.size	sigcall_raw, . - sigcall_raw

	.section .note.GNU-stack, "", @progbits
