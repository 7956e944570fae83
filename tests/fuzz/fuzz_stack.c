/*
 * libFuzzer harness of the initial stack builder (stack_build): argument
 * and environment strings, auxv entries, the execfn and the stack's top
 * and buffer size all come from the input.  The image must fit the
 * buffer (AddressSanitizer sees it: the buffer is a heap block of that
 * size) or the answer be -E2BIG, and the image be 16-byte aligned with
 * the string extents it reports inside it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kern/stack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Split s at NULs into at most max strings; v gets a NULL after them. */
static size_t
split(char *s, size_t len, char **v, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n < max; i += strlen(s + i) + 1)
		v[n++] = s + i;
	v[n] = NULL;
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stack_args sa = { .platform = "x86_64" };
	char *strs, *argv[65], *envp[65];
	uint64_t top;
	size_t bufsize, half;
	uint8_t *buf;
	long r;

	if (size < 16)
		return 0;
	/* A top as exec gives: 16-byte aligned, in the guest's space. */
	memcpy(&top, data, 8);
	top = (top | 1ULL << 40) & 0x7ffffffff000ULL;
	bufsize = (size_t)(data[8] | data[9] << 8) + 1;
	sa.naux = data[10] % (STACK_MAX_AUXV + 1);
	for (unsigned i = 0; i < sa.naux; i++)
		sa.aux[i] = (struct stack_auxv){ 3 + i, top ^ i };
	memcpy(sa.random, data, 16);
	data += 16;
	size -= 16;
	/* The rest: argv strings, then envp strings, NUL-separated. */
	if ((strs = malloc(size + 2)) == NULL)
		abort();
	memcpy(strs, data, size);
	strs[size] = strs[size + 1] = '\0';
	half = size / 2;
	strs[half] = '\0';
	split(strs, half, argv, 64);
	split(strs + half + 1, size - half, envp, 64);
	sa.argv = argv;
	sa.envp = envp;
	sa.execfn = argv[0] != NULL ? argv[0] : "";
	if ((buf = malloc(bufsize)) == NULL)
		abort();
	r = stack_build(&sa, top, buf, bufsize);
	if (r == -E2BIG) {
		/* fine: it does not fit */
	} else if (r < 0 || (size_t)r > bufsize || (top - (uint64_t)r) % 16 ||
	    sa.arg_start > sa.arg_end || sa.env_start > sa.env_end ||
	    sa.arg_start < top - (uint64_t)r || sa.arg_end > top ||
	    sa.env_start < top - (uint64_t)r || sa.env_end > top) {
		abort();
	}
	free(buf);
	free(strs);
	return 0;
}
