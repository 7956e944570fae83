/*
 * libFuzzer harness of openat2's struct open_how: the input is
 *   path:u8 size:u8 how...
 * a path from the dictionary (fuzz_prog.h), openat2's size argument
 * (one of the sizes worth trying) and the struct's bytes, up to 127.
 * What it opens (as fd 3: pid 1 has 0-2 open) is then read, listed and
 * stat'ed.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "tests/fuzz/fuzz_kern.h"
#include "tests/fuzz/fuzz_prog.h"
#include "vkern/vk.h"

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
	static const uint64_t sizes[] = { 0, 8, 23, 24, 25, 32, 4096, 4097 };
	struct fz_prog prog = { .n = 0 };
	uint8_t fill[3] = { FZ_PTR_DATA, 0, 1 };  /* at scratch + 0x100 */
	size_t n;

	if (size < 2)
		return 0;
	n = VK_MIN(size - 2, 127);
	fz_put_call(&prog, SYS_openat2, 0);
	fz_put_raw(&prog, (uint64_t)-100);
	fz_put(&prog, data, 1);
	fz_put(&prog, fill, sizeof(fill));
	fz_put(&prog, &(uint8_t){ (uint8_t)n }, 1);
	fz_put(&prog, data + 2, n);
	fz_put_raw(&prog, sizes[data[1] % VK_NELEM(sizes)]);
	fz_put_call(&prog, SYS_read, 0);
	fz_put_raw(&prog, 3);
	fz_put_raw(&prog, FZ_SCRATCH + 0x1000);
	fz_put_raw(&prog, 4096);
	fz_put_call(&prog, SYS_getdents64, 0);
	fz_put_raw(&prog, 3);
	fz_put_raw(&prog, FZ_SCRATCH + 0x1000);
	fz_put_raw(&prog, 4096);
	fz_put_call(&prog, SYS_fstat, 0);
	fz_put_raw(&prog, 3);
	fz_put_raw(&prog, FZ_SCRATCH + 0x1000);
	fz_run(prog.b, prog.n);
	return 0;
}
