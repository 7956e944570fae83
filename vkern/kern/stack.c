/*
 * Building a program's initial stack.
 *
 * The image is built downwards in a kernel buffer whose last byte stands
 * for the guest address top - 1, then copied out in one piece.  From the
 * top: eight zero bytes, the file name, the environment strings, the
 * argument strings, the platform string, the random bytes, then (16-byte
 * aligned, as the x86-64 ABI requires at process entry) argc, the argv and
 * envp arrays and the auxiliary vector.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kern/stack.h"
#include "vkern/vk.h"

struct sbuild {
	uint8_t *buf;
	size_t size, used;   /* bytes taken from the top of buf */
	uint64_t top;
};

/* Reserve n bytes below what is used; returns their guest address. */
static int
sb_take(struct sbuild *b, size_t n, uint64_t *vap)
{
	if (n > b->size - b->used)
		return -E2BIG;
	b->used += n;
	*vap = b->top - b->used;
	return 0;
}

static uint8_t *
sb_host(struct sbuild *b, uint64_t va)
{
	return b->buf + b->size - (b->top - va);
}

static int
sb_push_bytes(struct sbuild *b, const void *p, size_t n, uint64_t *vap)
{
	int r = sb_take(b, n, vap);

	if (r == 0)
		memcpy(sb_host(b, *vap), p, n);
	return r;
}

static size_t
vec_len(char *const *v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

size_t
stack_strings_size(char *const *v)
{
	size_t sz = 0;

	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		sz += strlen(v[i]) + 1 + sizeof(uint64_t);
	return sz;
}

/* Push the strings of v, last first, recording each one's address. */
static int
sb_push_strings(struct sbuild *b, char *const *v, size_t n, uint64_t *va)
{
	for (size_t i = n; i-- > 0;) {
		int r = sb_push_bytes(b, v[i], strlen(v[i]) + 1, &va[i]);

		if (r < 0)
			return r;
	}
	return 0;
}

/* The extent of strings pushed at va[0..n), or at top when n is 0. */
static void
strings_extent(char *const *v, const uint64_t *va, size_t n, uint64_t at,
    uint64_t *startp, uint64_t *endp)
{
	*startp = n > 0 ? va[0] : at;
	*endp = n > 0 ? va[n - 1] + strlen(v[n - 1]) + 1 : at;
}

static long
stack_layout(struct stack_args *sa, struct sbuild *b, uint64_t *argva,
    uint64_t *envva, size_t argc, size_t envc)
{
	static const uint64_t zero;
	uint64_t va, execfn, platform, random, sp;
	size_t nwords, k = 0;
	uint64_t *w;
	int r;

	if ((r = sb_push_bytes(b, &zero, sizeof(zero), &va)) < 0 ||
	    (r = sb_push_bytes(b, sa->execfn, strlen(sa->execfn) + 1,
	    &execfn)) < 0 ||
	    (r = sb_push_strings(b, sa->envp, envc, envva)) < 0 ||
	    (r = sb_push_strings(b, sa->argv, argc, argva)) < 0 ||
	    (r = sb_push_bytes(b, sa->platform, strlen(sa->platform) + 1,
	    &platform)) < 0 ||
	    (r = sb_push_bytes(b, sa->random, sizeof(sa->random),
	    &random)) < 0)
		return r;
	strings_extent(sa->envp, envva, envc, execfn, &sa->env_start,
	    &sa->env_end);
	strings_extent(sa->argv, argva, argc, execfn, &sa->arg_start,
	    &sa->arg_end);

	/* argc, argv + NULL, envp + NULL, auxv + 3 of ours + AT_NULL. */
	nwords = 1 + argc + 1 + envc + 1 + 2 * (sa->naux + 4);
	if ((r = sb_take(b, nwords * 8, &sp)) < 0)
		return r;
	/* Align by taking more: the words move down with sp. */
	if (sp % 16 != 0 && (r = sb_take(b, sp % 16, &sp)) < 0)
		return r;
	/* Built apart and copied: buf need not be aligned as sp is. */
	w = vk_xcalloc(nwords, sizeof(*w));
	w[k++] = argc;
	for (size_t i = 0; i < argc; i++)
		w[k++] = argva[i];
	w[k++] = 0;
	for (size_t i = 0; i < envc; i++)
		w[k++] = envva[i];
	w[k++] = 0;
	for (unsigned i = 0; i < sa->naux; i++) {
		w[k++] = sa->aux[i].type;
		w[k++] = sa->aux[i].val;
	}
	w[k++] = AT_RANDOM;
	w[k++] = random;
	w[k++] = AT_EXECFN;
	w[k++] = execfn;
	w[k++] = AT_PLATFORM;
	w[k++] = platform;
	w[k++] = AT_NULL;
	w[k++] = 0;
	VK_ASSERT(k == nwords);
	memcpy(sb_host(b, sp), w, nwords * sizeof(*w));
	free(w);
	return (long)b->used;
}

long
stack_build(struct stack_args *sa, uint64_t top, uint8_t *buf,
    size_t size)
{
	struct sbuild b = { .buf = buf, .size = size, .top = top };
	size_t argc = vec_len(sa->argv), envc = vec_len(sa->envp);
	uint64_t *argva, *envva;
	long r;

	VK_ASSERT(top % 16 == 0 && sa->naux <= STACK_MAX_AUXV);
	argva = vk_xcalloc(argc + 1, sizeof(*argva));
	envva = vk_xcalloc(envc + 1, sizeof(*envva));
	r = stack_layout(sa, &b, argva, envva, argc, envc);
	free(argva);
	free(envva);
	return r;
}
