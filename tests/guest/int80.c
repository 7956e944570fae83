/*
 * int $0x80 in a 64-bit program makes an i386 system call, numbered and
 * passed as i386 ones (eax; ebx, ecx, ...), never the 64-bit call of the
 * same number: i386 call 39 is mkdir(ebx, ecx), 64-bit 39 is getpid.  A
 * kernel without IA32 emulation may refuse it (ENOSYS), but must not run
 * the other call.  "nobody" runs it as uid 65534.
 */
#include <sys/stat.h>

#include "guest.h"
#include "int_common.h"

#define I386_MKDIR 39

static long
int80(long nr, long a1, long a2)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a1), "c"(a2)
	    : "memory");
	return r;
}

int
main(int argc, char **argv)
{
	static char path[64];
	struct stat st;
	long r;

	if ((r = int_drop_if_asked(argc, argv)) != 0)
		return (int)r;
	snprintf(path, sizeof(path), "/tmp/int80-%d", getpid());
	if ((uintptr_t)path > UINT32_MAX)
		return guest_skip("no 32-bit address for the path");
	r = int80(I386_MKDIR, (long)(uintptr_t)path, 0700);
	CHECK(r == 0 || r == -ENOSYS, "int $0x80 mkdir: %ld (a 64-bit getpid "
	    "gives the pid)", r);
	if (r == 0) {
		CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode),
		    "mkdir made no directory");
		rmdir(path);
	}
	/* The syscall instruction is served as ever. */
	CHECK_EQ(syscall(SYS_getpid), getpid());
	return guest_done();
}
