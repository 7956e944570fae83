/*
 * libFuzzer harness of rt_sigreturn: the input is a signal frame (struct
 * rt_sigframe, from its return address on) and, from byte 512 on, the
 * XSAVE image its fpstate may point to.  pid 1 takes a signal first (so
 * that it has an FPU frame size), reads the input into its scratch area
 * and returns through it; a frame whose first byte is even gets its
 * fpstate pointed at the image.  Then it goes on: a system call, a
 * fault, another signal, from whatever registers the frame gave.
 */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "arch/x86/sigframe.h"
#include "tests/fuzz/fuzz_kern.h"
#include "tests/fuzz/fuzz_prog.h"
#include "vkern/vk.h"
#include "vkern/vfs/vfs.h"

/* Where the file goes in the scratch area, and the image in it. */
#define SF_AT 0x1000
#define SF_FPU 512

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fz_prog prog;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const uint8_t last[] = { 0, 0 };   /* the latest result */
	/* handler, SA_RESTORER | SA_SIGINFO, restorer, no mask */
	const uint64_t act[4] = { FZ_SYSCALL_SITE, 0x04000004,
	    FZ_SYSCALL_SITE, 0 };

	fz_boot();
	fz_put_call(&prog, SYS_rt_sigaction, 0);
	fz_put_raw(&prog, SIGUSR1);
	fz_put(&prog, (const uint8_t[]){ FZ_PTR_DATA, 0, 1, sizeof(act) }, 4);
	fz_put(&prog, act, sizeof(act));
	fz_put_raw(&prog, 0);
	fz_put_raw(&prog, 8);
	fz_put_call(&prog, SYS_kill, 0);
	fz_put(&prog, (const uint8_t[]){ 0 }, 1);   /* its own pid */
	fz_put_raw(&prog, SIGUSR1);
	fz_put_call(&prog, SYS_openat, 0);
	fz_put_raw(&prog, (uint64_t)-100);
	fz_put_path(&prog, "/tmp/new");
	fz_put_raw(&prog, 0);
	fz_put_raw(&prog, 0);
	fz_put_call(&prog, SYS_read, 0);
	fz_put(&prog, last, sizeof(last));
	fz_put_raw(&prog, FZ_SCRATCH + SF_AT);
	fz_put_raw(&prog, 8192);
	fz_put_call(&prog, SYS_rt_sigreturn, FZ_CALL_SETSP);
	fz_put(&prog, (const uint8_t[]){ FZ_PTR_SCRATCH, (SF_AT + 8) & 0xff,
	    (SF_AT + 8) >> 8 }, 3);
	fz_put_call(&prog, SYS_getpid, 0);
	fz_put(&prog, (const uint8_t[]){ FZ_OP_FAULT, 0, FZ_PTR_STACK, 0, 0,
	    0 }, 6);
	fz_put_call(&prog, SYS_kill, 0);
	fz_put(&prog, (const uint8_t[]){ 0 }, 1);
	fz_put_raw(&prog, SIGUSR1);
	fz_put_call(&prog, SYS_rt_sigreturn, 0);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t file[8192] = { 0 };
	struct arch_rt_sigframe *f = (struct arch_rt_sigframe *)file;

	memcpy(file, data, VK_MIN(size, sizeof(file)));
	if (size > 0 && (data[0] & 1) == 0)
		f->uc.uc_mcontext.fpstate = FZ_SCRATCH + SF_AT + SF_FPU;
	fz_tree();
	vnode_rel(fz_make("/tmp/new", S_IFREG | 0644, NULL, file,
	    sizeof(file)));
	fz_run(prog.b, prog.n);
	return 0;
}
