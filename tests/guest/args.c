/*
 * Verifies the initial process stack that exec builds: argv and envp arrive
 * intact (run it as `args alpha "two words" "" "ünï"` with
 * VKERNEL_GUEST_ENV=present in the environment), their strings are packed
 * one after another as Linux lays them out, and the auxiliary vector holds
 * the entries the libcs rely on with consistent values.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include "guest.h"

extern char **environ;
/* Defined by the libc's crt1.o: the ELF entry point. */
extern char _start[];

static const char *const want_args[] = {
	"alpha", "two words", "", "\xc3\xbcn\xc3\xaf",
};
#define NWANT	(int)(sizeof(want_args) / sizeof(want_args[0]))

static void
test_argv(int argc, char **argv)
{
	CHECK_EQ(argc, NWANT + 1);
	CHECK(argv[0] != NULL && argv[0][0] != '\0', "argv[0] set");
	CHECK(argv[argc] == NULL, "argv[argc] is NULL");
	if (argc != NWANT + 1)
		return;
	for (int i = 0; i < NWANT; i++)
		CHECK(strcmp(argv[i + 1], want_args[i]) == 0,
		    "argv[%d] \"%s\", want \"%s\"", i + 1, argv[i + 1],
		    want_args[i]);
}

static void
test_envp(int argc, char **argv, char **envp)
{
	const char *v;
	int n = 0;

	/* envp follows argv's NULL, and the libc's environ is that array. */
	CHECK(envp == argv + argc + 1, "envp right after argv");
	CHECK(environ == envp, "environ == envp");
	v = getenv("VKERNEL_GUEST_ENV");
	CHECK(v != NULL && strcmp(v, "present") == 0,
	    "VKERNEL_GUEST_ENV=%s, want present", v != NULL ? v : "(unset)");
	for (char **e = envp; *e != NULL; e++) {
		n++;
		if (strchr(*e, '=') == NULL)
			CHECK(false, "environment entry \"%s\" lacks '='", *e);
	}
	CHECK(n >= 1, "%d environment entries", n);
}

/*
 * Linux copies the argument strings and then the environment strings to
 * the stack back to back; programs that rewrite their argv area in place
 * (setproctitle) depend on it.
 */
static void
test_string_layout(int argc, char **argv, char **envp)
{
	char *next = argv[0];

	for (int i = 0; i < argc; i++) {
		CHECK(argv[i] == next, "argv[%d] packed after the previous", i);
		next = argv[i] + strlen(argv[i]) + 1;
	}
	if (envp[0] != NULL)
		CHECK(envp[0] == next, "envp[0] packed after the last argv");
	/* The strings sit above the pointer arrays, at the stack's top. */
	CHECK((uintptr_t)argv[0] > (uintptr_t)(envp + 1),
	    "strings above the arrays");
}

static void
test_auxv(char **envp)
{
	const char *platform, *execfn;
	const unsigned char *rnd;
	Elf64_auxv_t *auxv;
	char **e = envp;
	unsigned long seen_pagesz = 0;
	int n = 0, zero = 0;

	while (*e != NULL)
		e++;
	auxv = (Elf64_auxv_t *)(e + 1);
	/* The raw vector must agree with the libc's reading of it. */
	for (; auxv->a_type != AT_NULL && n < 256; auxv++, n++) {
		if (auxv->a_type == AT_PAGESZ)
			seen_pagesz = auxv->a_un.a_val;
		/* glibc puts its own view of the hardware capabilities. */
		if (auxv->a_type == AT_IGNORE || auxv->a_type == AT_HWCAP ||
		    auxv->a_type == AT_HWCAP2)
			continue;
		CHECK(getauxval(auxv->a_type) == auxv->a_un.a_val,
		    "getauxval(%lu) matches the stack",
		    (unsigned long)auxv->a_type);
	}
	CHECK(n < 256, "auxv ends with AT_NULL");
	CHECK_EQ(seen_pagesz, 4096);

	CHECK_EQ(getauxval(AT_PAGESZ), 4096);
	CHECK_EQ(getauxval(AT_PHENT), sizeof(Elf64_Phdr));
	CHECK(getauxval(AT_PHNUM) > 0, "AT_PHNUM");
	CHECK_EQ(getauxval(AT_ENTRY), (uintptr_t)_start);
	CHECK_EQ(getauxval(AT_UID), syscall(SYS_getuid));
	CHECK_EQ(getauxval(AT_EUID), syscall(SYS_geteuid));
	CHECK_EQ(getauxval(AT_GID), syscall(SYS_getgid));
	CHECK_EQ(getauxval(AT_EGID), syscall(SYS_getegid));
	CHECK_EQ(getauxval(AT_SECURE), 0);
	/* USER_HZ, which times(2) and /proc use, is 100 on x86. */
	CHECK_EQ(getauxval(AT_CLKTCK), 100);

	platform = (const char *)getauxval(AT_PLATFORM);
	execfn = (const char *)getauxval(AT_EXECFN);
	rnd = (const unsigned char *)getauxval(AT_RANDOM);
	CHECK(platform != NULL && strcmp(platform, "x86_64") == 0,
	    "AT_PLATFORM \"%s\"", platform != NULL ? platform : "(none)");
	CHECK(execfn != NULL && execfn[0] != '\0', "AT_EXECFN set");
	if (CHECK(rnd != NULL, "AT_RANDOM set")) {
		for (int i = 0; i < 16; i++)
			zero += rnd[i] == 0;
		/* 16 random bytes: even 8 zeros is a 1-in-10^14 event. */
		CHECK(zero < 8, "AT_RANDOM has %d zero bytes of 16", zero);
	}
}

/* The program headers AT_PHDR points at describe a loaded, executable image. */
static void
test_phdrs(void)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)getauxval(AT_PHDR);
	unsigned long n = getauxval(AT_PHNUM);
	int loads = 0, exec_loads = 0;

	if (!CHECK(ph != NULL, "AT_PHDR set"))
		return;
	for (unsigned long i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		loads++;
		if (ph[i].p_flags & PF_X)
			exec_loads++;
		CHECK(ph[i].p_filesz <= ph[i].p_memsz, "PT_LOAD %lu sizes", i);
	}
	CHECK(loads >= 1 && exec_loads >= 1, "%d PT_LOAD, %d executable",
	    loads, exec_loads);
}

int
main(int argc, char **argv, char **envp)
{
	test_argv(argc, argv);
	test_envp(argc, argv, envp);
	test_string_layout(argc, argv, envp);
	test_auxv(envp);
	test_phdrs();
	return guest_done();
}
