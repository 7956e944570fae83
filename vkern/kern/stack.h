/*
 * The initial stack of a new program image, as Linux's create_elf_tables()
 * lays it out: argc, argv[], NULL, envp[], NULL, the auxiliary vector, and
 * above them the 16 random bytes, the platform string and the argument,
 * environment and file-name strings.
 */
#ifndef VK_KERN_STACK_H
#define VK_KERN_STACK_H

#include <stddef.h>
#include <stdint.h>

#define STACK_MAX_AUXV 32

struct stack_auxv {
	uint64_t type, val;
};

struct stack_args {
	char *const *argv;
	char *const *envp;
	const char *execfn;          /* AT_EXECFN */
	const char *platform;        /* AT_PLATFORM */
	uint8_t random[16];          /* AT_RANDOM */
	struct stack_auxv aux[STACK_MAX_AUXV];   /* without AT_EXECFN, */
	unsigned naux;               /* AT_RANDOM, AT_PLATFORM, AT_NULL */
	/* Out: where the argument and environment strings went. */
	uint64_t arg_start, arg_end, env_start, env_end;
};

/*
 * Build the image that goes just below top (a guest address) into buf of
 * size bytes.  Returns the image's size in bytes (the new stack pointer is
 * top minus that, 16-byte aligned), or -E2BIG when it does not fit.
 */
long stack_build(struct stack_args *sa, uint64_t top, uint8_t *buf,
    size_t size);

/* The bytes the argument and environment strings need, with pointers. */
size_t stack_strings_size(char *const *v);

#endif
