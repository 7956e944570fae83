/*
 * The page cache gives back what it charged: a child runs a dynamic
 * program (its libraries go into the page cache), then the parent fills
 * guest memory with a tmpfs file until the kernel drops the unused
 * caches, and exits.  Run under a small --mem: vkernel's own check at
 * exit fails (an assertion) if a dropped cache uncharged kernel memory it
 * never charged.  Natively it only runs /bin/true and a 96 MiB file.
 */
#include <fcntl.h>
#include <sys/wait.h>

#include "guest.h"

int
main(void)
{
	pid_t pid = fork();
	int st, fd;

	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "/bin/true");
	fd = open("/dev/shm/pcache-reclaim", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (CHECK(fd >= 0, "open /dev/shm")) {
		/* A MiB at a time, until memory runs out under --mem. */
		for (off_t off = 0; off < (96 << 20); off += 1 << 20)
			if (fallocate(fd, 0, off, 1 << 20) < 0)
				break;
		close(fd);
		unlink("/dev/shm/pcache-reclaim");
	}
	return guest_done();
}
