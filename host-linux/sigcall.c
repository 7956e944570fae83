/*
 * The handler's half of sigcall.S: a signal that lands after the flag
 * was tested and before the syscall instruction ran would otherwise be
 * noted and then slept through, until something else woke the call.
 */
#include <stdint.h>
#include <ucontext.h>

#include "host-linux/sigcall.h"

extern const char sigcall_check[], sigcall_entry[], sigcall_cancel[];

bool
sigcall_note(void *ucontext)
{
	ucontext_t *uc = ucontext;
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];

	if (ip <= (uintptr_t)sigcall_check || ip > (uintptr_t)sigcall_entry)
		return false;
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)sigcall_cancel;
	return true;
}
