/*
 * libFuzzer harness over the whole kernel, as fuzz_syscalls, that also
 * stops when a run left the kernel otherwise than it found it: a
 * /proc/sys value, a device node's attributes, a named message queue or
 * a detached mount that the harness's reset did not put back
 * (fuzz_state.c).  Its corpus, tests/fuzz/corpus-reset, holds programs
 * that change each; it also replays fuzz_syscalls' corpus.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz_kern.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_boot();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *diff;

	fz_run(data, size);
	if ((diff = fz_state_diff()) != NULL) {
		fprintf(stderr, "fuzz_reset: the run left %s changed\n", diff);
		abort();
	}
	return 0;
}
