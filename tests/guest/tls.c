/*
 * Verifies arch_prctl(2) thread pointers: ARCH_GET_FS reports the base the
 * libc's TLS really uses (its %fs:0 self-pointer), ARCH_SET_FS and
 * ARCH_SET_GS move the hardware segment bases (seen through %fs: and %gs:
 * loads, not only through ARCH_GET_*), and bad codes or kernel addresses are
 * refused with EINVAL and EPERM.  CPUID runs (ARCH_GET_CPUID is 1); a CPU
 * without CPUID faulting refuses ARCH_SET_CPUID with ENODEV, one with it
 * obeys (and CPUID is turned back on at once).
 */
#include <stdint.h>

#include "guest.h"

#define ARCH_SET_GS	0x1001
#define ARCH_SET_FS	0x1002
#define ARCH_GET_FS	0x1003
#define ARCH_GET_GS	0x1004
#define ARCH_GET_CPUID	0x1011
#define ARCH_SET_CPUID	0x1012

/*
 * While %fs points at our own block, the libc's TLS (errno, the stack
 * protector canary at %fs:0x28) is not there, so that stretch uses this
 * inline syscall instead of syscall(3).  Returns the raw kernel result.
 */
static inline long
raw_arch_prctl(long code, uintptr_t arg)
{
	long ret;

	__asm__ volatile ("syscall"
	    : "=a" (ret)
	    : "0" ((long)SYS_arch_prctl), "D" (code), "S" (arg)
	    : "rcx", "r11", "memory");
	return ret;
}

static inline uintptr_t
load_fs(unsigned off)
{
	uintptr_t v;

	__asm__ volatile ("movq %%fs:(%1), %0" : "=r" (v) : "r" ((uintptr_t)off)
	    : "memory");
	return v;
}

static inline uintptr_t
load_gs(unsigned off)
{
	uintptr_t v;

	__asm__ volatile ("movq %%gs:(%1), %0" : "=r" (v) : "r" ((uintptr_t)off)
	    : "memory");
	return v;
}

static void
test_fs(void)
{
	/* A stand-in thread block: self-pointer, marker, canary copy. */
	static uintptr_t fake[16] __attribute__((aligned(64)));
	uintptr_t fs = 0, got = 0, seen_self, seen_mark, back = 0;
	long r_set, r_get, r_restore;

	if (!CHECK(syscall(SYS_arch_prctl, ARCH_GET_FS, &fs) == 0,
	    "ARCH_GET_FS"))
		return;
	CHECK(fs != 0, "the libc has set up TLS");
	/* Both glibc and musl keep a pointer to the block at its start. */
	CHECK(load_fs(0) == fs, "%%fs:0 = %#lx, ARCH_GET_FS = %#lx",
	    (unsigned long)load_fs(0), (unsigned long)fs);

	/* Setting the same base again is harmless. */
	CHECK_OK(syscall(SYS_arch_prctl, ARCH_SET_FS, fs));
	CHECK_OK(syscall(SYS_arch_prctl, ARCH_GET_FS, &got));
	CHECK_EQ(got, fs);

	fake[0] = (uintptr_t)fake;
	fake[1] = 0x5eedf00dUL;
	fake[5] = load_fs(0x28);
	/* No libc call between here and the restore. */
	r_set = raw_arch_prctl(ARCH_SET_FS, (uintptr_t)fake);
	seen_self = load_fs(0);
	seen_mark = load_fs(8);
	r_get = raw_arch_prctl(ARCH_GET_FS, (uintptr_t)&back);
	r_restore = raw_arch_prctl(ARCH_SET_FS, fs);

	CHECK_EQ(r_set, 0);
	CHECK_EQ(r_get, 0);
	CHECK_EQ(r_restore, 0);
	CHECK(seen_self == (uintptr_t)fake && seen_mark == 0x5eedf00dUL,
	    "loads through %%fs saw the new block");
	CHECK(back == (uintptr_t)fake, "ARCH_GET_FS gave the new base");
	CHECK(load_fs(0) == fs, "base restored");
}

static void
test_gs(void)
{
	static uintptr_t block[4];
	uintptr_t orig = 1, got = 0;

	/* The libcs leave %gs alone on x86-64, so it is ours to play with. */
	if (!CHECK(syscall(SYS_arch_prctl, ARCH_GET_GS, &orig) == 0,
	    "ARCH_GET_GS"))
		return;
	block[0] = 0x1122334455667788UL;
	block[3] = 0x0a0b0c0d;
	CHECK_OK(syscall(SYS_arch_prctl, ARCH_SET_GS, block));
	CHECK_OK(syscall(SYS_arch_prctl, ARCH_GET_GS, &got));
	CHECK(got == (uintptr_t)block, "ARCH_GET_GS %#lx, want %p",
	    (unsigned long)got, (void *)block);
	CHECK(load_gs(0) == block[0] && load_gs(24) == block[3],
	    "loads through %%gs see the block");
	/* The base survives other syscalls. */
	syscall(SYS_getpid);
	syscall(SYS_sched_yield);
	CHECK_EQ(load_gs(0), block[0]);
	CHECK_OK(syscall(SYS_arch_prctl, ARCH_SET_GS, orig));
	CHECK_OK(syscall(SYS_arch_prctl, ARCH_GET_GS, &got));
	CHECK_EQ(got, orig);
}

static void
test_errors(void)
{
	uintptr_t fs = 0, got = 0;

	CHECK_OK(syscall(SYS_arch_prctl, ARCH_GET_FS, &fs));
	CHECK_ERR(syscall(SYS_arch_prctl, 0x9999, &got), EINVAL);
	CHECK_ERR(syscall(SYS_arch_prctl, 0, 0), EINVAL);
	/* A base in the kernel half would fault on the next TLS access. */
	CHECK_ERR(syscall(SYS_arch_prctl, ARCH_SET_FS,
	    0xffff800000000000UL), EPERM);
	CHECK_ERR(syscall(SYS_arch_prctl, ARCH_SET_GS,
	    0xffffffffff600000UL), EPERM);
	CHECK_OK(syscall(SYS_arch_prctl, ARCH_GET_FS, &got));
	CHECK(got == fs, "refused ARCH_SET_FS left the base");
}

static void
test_cpuid(void)
{
	long r;

	CHECK_EQ(syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0), 1);
	errno = 0;
	r = syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0);
	CHECK(r == 0 || (r == -1 && errno == ENODEV),
	    "ARCH_SET_CPUID 0: %ld (errno %d)", r, errno);
	if (r == 0) {
		CHECK_EQ(syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0), 0);
		CHECK_OK(syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1));
	} else {
		CHECK_ERR(syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1), ENODEV);
	}
	CHECK_EQ(syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0), 1);
}

int
main(void)
{
	test_fs();
	test_cpuid();
	test_gs();
	test_errors();
	return guest_done();
}
