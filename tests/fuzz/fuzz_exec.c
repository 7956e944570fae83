/*
 * libFuzzer harness of exec: the input is a file that pid 1 runs, so
 * ELF validation and loading, "#!" lines (an interpreter chain up to the
 * kernel's limit) and the initial stack and auxv all meet it.  Whatever
 * it loads is then looked at: its maps, its break, a fault on its stack.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "tests/fuzz/fuzz_kern.h"
#include "tests/fuzz/fuzz_prog.h"
#include "vkern/vfs/vfs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fz_prog prog;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const uint8_t nul = 0;

	fz_boot();
	/* execve("/tmp/new", NULL, NULL) */
	fz_put_call(&prog, SYS_execve, 0);
	fz_put_path(&prog, "/tmp/new");
	fz_put_raw(&prog, 0);
	fz_put_raw(&prog, 0);
	/* openat(AT_FDCWD, "/proc/self/maps", O_RDONLY, 0), read it */
	fz_put_call(&prog, SYS_openat, 0);
	fz_put_raw(&prog, (uint64_t)-100);
	fz_put_path(&prog, "/proc/self/maps");
	fz_put_raw(&prog, 0);
	fz_put_raw(&prog, 0);
	fz_put_call(&prog, SYS_read, 0);
	fz_put(&prog, &nul, 1);   /* the latest result */
	fz_put(&prog, &nul, 1);
	fz_put_raw(&prog, FZ_SCRATCH);
	fz_put_raw(&prog, 4096);
	fz_put_call(&prog, SYS_brk, 0);
	fz_put_raw(&prog, 0);
	/* a fault just below the stack pointer */
	fz_put(&prog, (const uint8_t[]){ FZ_OP_FAULT, 0, FZ_PTR_STACK, 64, 0,
	    0 }, 6);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_tree();
	vnode_rel(fz_make("/tmp/new", S_IFREG | 0755, NULL, data, size));
	fz_run(prog.b, prog.n);
	return 0;
}
