/*
 * For the int_* guest programs, which check syscalls at the edges of
 * their integer types: with the argument "nobody" a program first drops
 * to uid and gid 65534 with no supplementary groups, so that the same
 * checks run for an unprivileged user.  A program that does not start as
 * root (vkernel or the suite run by an ordinary user) is one already and
 * runs them as it is.
 */
#ifndef INT_COMMON_H
#define INT_COMMON_H

#include <string.h>

#include "guest.h"

#define INT_NOBODY 65534

/*
 * Drop to nobody if argv asks for it and the caller is root.  Returns 0,
 * or 77 (skip) when root may not change its ids.
 */
static inline int
int_drop_if_asked(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "nobody") != 0 ||
	    syscall(SYS_geteuid) != 0)
		return 0;
	if (syscall(SYS_setgroups, 0, NULL) != 0 ||
	    syscall(SYS_setresgid, INT_NOBODY, INT_NOBODY, INT_NOBODY) != 0 ||
	    syscall(SYS_setresuid, INT_NOBODY, INT_NOBODY, INT_NOBODY) != 0)
		return guest_skip("cannot drop to uid %d", INT_NOBODY);
	CHECK_EQ(syscall(SYS_geteuid), INT_NOBODY);
	CHECK_EQ(syscall(SYS_getegid), INT_NOBODY);
	return 0;
}

#endif /* INT_COMMON_H */
