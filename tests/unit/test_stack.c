/*
 * Unit tests of the initial stack builder (vkern/kern/stack.c): the image
 * must read, from the new stack pointer up, as Linux's create_elf_tables()
 * writes it (argc, argv, NULL, envp, NULL, auxv ending in AT_NULL), with
 * every pointer aimed at its string inside the image.
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/fake_platform.h"
#include "vkern/kern/stack.h"

#define TOP 0x7ffffffde000ULL    /* a 16-byte aligned guest stack top */
#define BUFSZ 65536UL

/* A built image: the buffer, and where its bytes stand in the guest. */
struct image {
	uint8_t buf[BUFSZ];
	size_t size;
	uint64_t top, sp;
	long r;
};

static struct image im;

static long
build(struct stack_args *sa, size_t size)
{
	cr_assert_leq(size, BUFSZ);
	memset(im.buf, 0xcc, sizeof(im.buf));
	im.size = size;
	im.top = TOP;
	im.r = stack_build(sa, TOP, im.buf, size);
	im.sp = im.r > 0 ? TOP - (uint64_t)im.r : 0;
	return im.r;
}

/* The host byte for guest address va, which must lie inside the image. */
static const uint8_t *
at(uint64_t va, size_t n)
{
	cr_assert_gt(im.r, 0);
	cr_assert(va >= im.sp && va + n <= im.top,
	    "guest %#llx+%zu is outside the image [%#llx, %#llx)",
	    (unsigned long long)va, n, (unsigned long long)im.sp,
	    (unsigned long long)im.top);
	return im.buf + im.size - (im.top - va);
}

static uint64_t
word(unsigned i)
{
	uint64_t w;

	memcpy(&w, at(im.sp + 8 * i, 8), 8);
	return w;
}

/* The NUL-terminated string at guest address va, checked to fit. */
static const char *
str(uint64_t va)
{
	const char *s = (const char *)at(va, 1);
	size_t room = (size_t)(im.top - va);

	cr_assert_not_null(memchr(s, '\0', room), "string at %#llx unended",
	    (unsigned long long)va);
	return s;
}

static void
args_init(struct stack_args *sa, char *const *argv, char *const *envp)
{
	memset(sa, 0, sizeof(*sa));
	sa->argv = argv;
	sa->envp = envp;
	sa->execfn = "/bin/prog";
	sa->platform = "x86_64";
	for (unsigned i = 0; i < 16; i++)
		sa->random[i] = (uint8_t)(0xa0 + i);
}

/* Index of the word after the auxv's AT_NULL pair, or fails. */
static unsigned
aux_start(void)
{
	unsigned i = 1 + (unsigned)word(0) + 1;

	while (word(i) != 0)
		i++;
	return i + 1;
}

/* The value of auxv type t, which must occur exactly once. */
static uint64_t
aux_get(uint64_t t)
{
	unsigned n = 0;
	uint64_t v = 0;

	for (unsigned i = aux_start(); word(i) != AT_NULL; i += 2) {
		if (word(i) == t) {
			v = word(i + 1);
			n++;
		}
	}
	cr_assert_eq(n, 1, "auxv type %llu occurs %u times",
	    (unsigned long long)t, n);
	return v;
}

static char *const test_argv[] = { "prog", "-v", "hello world", NULL };
static char *const test_envp[] = { "HOME=/", "PATH=/bin:/usr/bin", NULL };

Test(stack, build_writes_argc_argv_envp)
{
	struct stack_args sa;

	args_init(&sa, test_argv, test_envp);
	cr_assert_gt(build(&sa, BUFSZ), 0);
	cr_assert_eq(word(0), 3);
	for (unsigned i = 0; i < 3; i++)
		cr_assert_str_eq(str(word(1 + i)), test_argv[i]);
	cr_assert_eq(word(4), 0, "argv not NULL-terminated");
	for (unsigned i = 0; i < 2; i++)
		cr_assert_str_eq(str(word(5 + i)), test_envp[i]);
	cr_assert_eq(word(7), 0, "envp not NULL-terminated");
}

Test(stack, build_appends_random_execfn_platform_null)
{
	struct stack_args sa;
	unsigned a;

	args_init(&sa, test_argv, test_envp);
	sa.aux[0] = (struct stack_auxv){ AT_PAGESZ, 4096 };
	sa.aux[1] = (struct stack_auxv){ AT_ENTRY, 0x401000 };
	sa.naux = 2;
	cr_assert_gt(build(&sa, BUFSZ), 0);
	a = aux_start();
	cr_assert_eq(a, 8);
	/* The caller's pairs come first and in order. */
	cr_assert_eq(word(a), AT_PAGESZ);
	cr_assert_eq(word(a + 1), 4096);
	cr_assert_eq(word(a + 2), AT_ENTRY);
	cr_assert_eq(word(a + 3), 0x401000);
	cr_assert_eq(memcmp(at(aux_get(AT_RANDOM), 16), sa.random, 16), 0);
	cr_assert_str_eq(str(aux_get(AT_EXECFN)), "/bin/prog");
	cr_assert_str_eq(str(aux_get(AT_PLATFORM)), "x86_64");
	/* Six pairs in all, the last one AT_NULL, and nothing after it. */
	cr_assert_eq(word(a + 10), AT_NULL);
	cr_assert_eq(word(a + 11), 0);
	cr_assert_leq(im.sp + 8 * (a + 12), aux_get(AT_RANDOM),
	    "the vectors overlap the random bytes");
}

Test(stack, build_places_strings_as_linux)
{
	struct stack_args sa;
	uint64_t execfn, plat, rnd;

	args_init(&sa, test_argv, test_envp);
	cr_assert_gt(build(&sa, BUFSZ), 0);
	execfn = aux_get(AT_EXECFN);
	plat = aux_get(AT_PLATFORM);
	rnd = aux_get(AT_RANDOM);
	/* Eight zero bytes at the very top, then the file name below. */
	for (unsigned i = 1; i <= 8; i++)
		cr_assert_eq(*at(TOP - i, 1), 0);
	cr_assert_eq(execfn + strlen("/bin/prog") + 1, TOP - 8);
	/* Packed upwards: argv strings, envp strings, the file name. */
	for (unsigned i = 0; i < 2; i++)
		cr_assert_eq(word(1 + i) + strlen(test_argv[i]) + 1,
		    word(2 + i), "argv[%u] not packed below the next", i);
	cr_assert_eq(word(3) + strlen(test_argv[2]) + 1, word(5));
	cr_assert_eq(word(5) + strlen(test_envp[0]) + 1, word(6));
	cr_assert_eq(word(6) + strlen(test_envp[1]) + 1, execfn);
	/* Platform string below argv[0], random bytes below that. */
	cr_assert_eq(plat + strlen("x86_64") + 1, word(1));
	cr_assert_eq(rnd + 16, plat);
}

Test(stack, build_image_stays_in_buffer_end)
{
	struct stack_args sa;
	long r;

	args_init(&sa, test_argv, test_envp);
	r = build(&sa, 4096);
	cr_assert_gt(r, 0);
	cr_assert_leq(r, 4096);
	/* Below the image, the buffer is untouched. */
	for (size_t i = 0; i < 4096 - (size_t)r; i++)
		cr_assert_eq(im.buf[i], 0xcc, "byte %zu written", i);
	/* And nothing past size either. */
	cr_assert_eq(im.buf[4096], 0xcc);
}

Test(stack, build_empty_vectors_gives_argc_zero)
{
	struct stack_args sa;

	args_init(&sa, NULL, NULL);
	cr_assert_gt(build(&sa, BUFSZ), 0);
	cr_assert_eq(word(0), 0);
	cr_assert_eq(word(1), 0, "argv not NULL-terminated");
	cr_assert_eq(word(2), 0, "envp not NULL-terminated");
	cr_assert_eq(aux_start(), 3);
	cr_assert_str_eq(str(aux_get(AT_EXECFN)), "/bin/prog");
}

/*
 * argc and envc of both parities with strings of awkward lengths: the
 * stack pointer must be 16-byte aligned each time (x86-64 psABI 3.4.1).
 */
struct align_case {
	unsigned argc, envc, slen;
};

ParameterizedTestParameters(stack, build_sp_is_16_byte_aligned)
{
	static struct align_case cases[] = {
		{ 1, 0, 1 }, { 2, 0, 1 }, { 3, 1, 2 }, { 4, 1, 3 },
		{ 5, 2, 7 }, { 6, 3, 8 }, { 7, 0, 15 }, { 8, 5, 16 },
		{ 1, 1, 0 }, { 2, 2, 0 }, { 9, 4, 5 }, { 10, 7, 31 },
	};

	return cr_make_param_array(struct align_case, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct align_case *c, stack, build_sp_is_16_byte_aligned)
{
	char *argv[16], *envp[16];
	char s[40];
	struct stack_args sa;

	memset(s, 'x', sizeof(s));
	s[c->slen] = '\0';
	for (unsigned i = 0; i < c->argc; i++)
		argv[i] = s;
	argv[c->argc] = NULL;
	for (unsigned i = 0; i < c->envc; i++)
		envp[i] = s;
	envp[c->envc] = NULL;
	args_init(&sa, argv, envp);
	cr_assert_gt(build(&sa, BUFSZ), 0);
	cr_assert_eq(im.sp % 16, 0, "argc %u envc %u: sp %#llx", c->argc,
	    c->envc, (unsigned long long)im.sp);
	cr_assert_eq(word(0), c->argc);
	cr_assert_eq(word(1 + c->argc), 0);
	cr_assert_eq(word(2 + c->argc + c->envc), 0);
	for (unsigned i = 0; i < c->argc; i++)
		cr_assert_str_eq(str(word(1 + i)), s);
}

/* Buffer sizes around the exact need: anything short is -E2BIG. */
struct size_case {
	long delta;        /* size relative to the exact need */
	int fits;
};

ParameterizedTestParameters(stack, build_small_buffer_fails_e2big)
{
	static struct size_case cases[] = {
		{ 0, 1 }, { 1, 1 }, { 100, 1 }, { -1, 0 }, { -8, 0 },
		{ -16, 0 }, { -200, 0 }, { -10000, 0 },
	};

	return cr_make_param_array(struct size_case, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct size_case *c, stack, build_small_buffer_fails_e2big)
{
	struct stack_args sa;
	long need, size, r;

	args_init(&sa, test_argv, test_envp);
	sa.aux[0] = (struct stack_auxv){ AT_PAGESZ, 4096 };
	sa.naux = 1;
	need = build(&sa, BUFSZ);
	cr_assert_gt(need, 0);
	size = need + c->delta;
	if (size < 0)
		size = 0;
	r = build(&sa, (size_t)size);
	if (c->fits) {
		cr_assert_eq(r, need, "size %ld: got %ld, want %ld", size, r,
		    need);
		cr_assert_eq(im.sp % 16, 0);
		cr_assert_eq(word(0), 3);
	} else {
		cr_assert_eq(r, -E2BIG, "size %ld: got %ld", size, r);
	}
}

Test(stack, build_zero_size_fails_e2big)
{
	struct stack_args sa;

	args_init(&sa, test_argv, test_envp);
	cr_assert_eq(stack_build(&sa, TOP, im.buf, 0), -E2BIG);
	cr_assert_eq(stack_build(&sa, TOP, im.buf, 7), -E2BIG);
}

Test(stack, build_full_auxv_fits)
{
	struct stack_args sa;

	args_init(&sa, test_argv, test_envp);
	for (unsigned i = 0; i < STACK_MAX_AUXV; i++)
		sa.aux[i] = (struct stack_auxv){ 100 + i, 1000 + i };
	sa.naux = STACK_MAX_AUXV;
	cr_assert_gt(build(&sa, BUFSZ), 0);
	cr_assert_eq(word(8 + 2 * 31), 131);
	cr_assert_eq(word(8 + 2 * 31 + 1), 1031);
	cr_assert_eq(word(8 + 2 * 32), AT_RANDOM);
	cr_assert_eq(word(8 + 2 * 35), AT_NULL);
	cr_assert_eq(im.sp % 16, 0);
}

Test(stack, build_unaligned_top_aborts, .signal = SIGABRT)
{
	struct stack_args sa;

	args_init(&sa, test_argv, test_envp);
	stack_build(&sa, TOP - 8, im.buf, BUFSZ);
}

Test(stack, build_too_many_auxv_aborts, .signal = SIGABRT)
{
	struct stack_args sa;

	args_init(&sa, test_argv, test_envp);
	sa.naux = STACK_MAX_AUXV + 1;
	stack_build(&sa, TOP, im.buf, BUFSZ);
}

Test(stack, strings_size_counts_nul_and_pointer)
{
	cr_assert_eq(stack_strings_size(test_argv),
	    (4 + 1 + 8) + (2 + 1 + 8) + (11 + 1 + 8));
	cr_assert_eq(stack_strings_size(test_envp),
	    (6 + 1 + 8) + (18 + 1 + 8));
	cr_assert_eq(stack_strings_size(NULL), 0);
}
