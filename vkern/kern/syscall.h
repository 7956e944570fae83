/*
 * The syscall table's entry format.  The table itself is generated from
 * syscalls.tbl (see gensyscalls.py).
 */
#ifndef VK_KERN_SYSCALL_H
#define VK_KERN_SYSCALL_H

#include <stdint.h>

struct thread;

enum sys_level {
	SYS_LEVEL_NONE,     /* no such number */
	SYS_LEVEL_FULL,
	SYS_LEVEL_PARTIAL,
	SYS_LEVEL_ENOSYS,
	SYS_LEVEL_EPERM,
};

/* How --strace shows an argument or a result. */
enum sys_arg {
	SYS_ARG_INT, SYS_ARG_UINT, SYS_ARG_LONG, SYS_ARG_ULONG, SYS_ARG_HEX,
	SYS_ARG_PTR, SYS_ARG_STR,
};

struct sysent {
	const char *name;
	long (*disp)(struct thread *td, const uint64_t *raw);
	long err;              /* the answer when disp is NULL */
	unsigned char level;
	unsigned char nargs;
	unsigned char ret;
	unsigned char args[6];
	const char *note;
};

extern const struct sysent sysent[];

#endif
