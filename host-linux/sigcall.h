#ifndef HOST_LINUX_SIGCALL_H
#define HOST_LINUX_SIGCALL_H

#include <signal.h>
#include <stdbool.h>

/*
 * A blocking host call that a signal noted in *flag always ends: with
 * the flag set when the call would enter, or set by a handler that
 * interrupts it, it returns -EINTR.  The handler must note the signal in
 * the flag before it calls sigcall_note with its ucontext.  Returns the
 * raw result: a negative errno on failure.
 */
long sigcall_raw(const volatile sig_atomic_t *flag, long nr, long a1,
    long a2, long a3, long a4, long a5);

/* In a handler: true if it interrupted sigcall_raw between its test of
 * the flag and its entry, which it then turns into -EINTR. */
bool sigcall_note(void *ucontext);

#endif
