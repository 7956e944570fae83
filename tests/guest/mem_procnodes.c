/*
 * Verifies that the nodes of /proc a guest holds count against --mem:
 * each open of /proc/self/fd/N (O_PATH | O_NOFOLLOW, the link itself) of
 * the fd opened last is a new node of /proc, and opening them until one
 * fails must end with ENOMEM well before the fds run out, in the --mem
 * of 16 MiB and --fds of 1048576 the suite gives it (were the nodes not
 * charged, vkernel would spend its own memory past --mem on each, up to
 * the millionth fd).  Once they are closed, as many open again.  Inside
 * vkernel only: natively it would fill the host kernel's memory.
 */
#include <sys/resource.h>

#include "guest.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define MAX_FDS 1048576

/* Opens links of /proc/self/fd until one fails: how many, and errno. */
static long
open_links(int first, int *err)
{
	char path[64];
	int fd = first;
	long n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		fd = open(path, O_PATH | O_NOFOLLOW);
		if (fd < 0) {
			*err = errno;
			return n;
		}
		n++;
	}
}

int
main(void)
{
	struct rlimit rl = { MAX_FDS, MAX_FDS };
	long n, again;
	int first, err = 0;

	CHECK_OK(setrlimit(RLIMIT_NOFILE, &rl));
	first = CHECK_OK(open("/proc/self", O_PATH));
	n = open_links(first, &err);
	CHECK(err == ENOMEM, "ended with %s after %ld", guest_errno_name(err),
	    n);
	CHECK(n > 1000 && n < MAX_FDS / 4, "%ld nodes held", n);
	CHECK_OK(syscall(SYS_close_range, (unsigned)first + 1, ~0U, 0));
	again = open_links(first, &err);
	CHECK(err == ENOMEM && again >= n - n / 10, "%ld again, then %s",
	    again, guest_errno_name(err));
	return guest_done();
}
