/*
 * Verifies that a guest storing to unmapped memory dies of SIGSEGV, so that
 * "vkernel run" exits with 128 + 11: by default into a page it mapped and
 * unmapped again, with argument "low" at address 0x10 (the NULL page).
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	static const char msg[] = "FAIL: store to unmapped memory did not "
	    "fault\n";
	volatile int *p;

	if (argc > 1 && strcmp(argv[1], "low") == 0) {
		/* Through a volatile, so the compiler sees no constant. */
		volatile uintptr_t low = 0x10;

		p = (volatile int *)low;
	} else {
		/*
		 * A hole we made ourselves tests the middle of the address
		 * space, where the vkernel's map and the stub's mappings must
		 * both have dropped the page.
		 */
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 2;
		*p = 1;
		if (munmap((void *)p, 4096) != 0)
			return 3;
	}
	*p = 2;
	/* Surviving the store is the failure this program detects. */
	syscall(SYS_write, 2, msg, sizeof(msg) - 1);
	return 1;
}
