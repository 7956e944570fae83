/*
 * libFuzzer harness over the whole kernel: each input is a program of
 * guest system calls, faults, traps, signals and clock ticks
 * (fuzz_prog.h), run by pid 1 and whatever it forks and clones.
 */
#include <stddef.h>
#include <stdint.h>

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
	fz_run(data, size);
	return 0;
}
