/*
 * Fills vkernel's kernel memory with map entries, then forks while it
 * gives them back a few at a time, so that some forks fail half-way (the
 * process made, its memory not): everything a failed fork took must come
 * back, the ring of calls --crash-dir keeps for its thread too, or
 * vkernel's check at exit finds the charge not returned.  Frees all and
 * exits 0; natively the host's map limit ends the filling.
 */
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXMAPS 200000

static void *maps[MAXMAPS];

int
main(void)
{
	int n = 0, prot = PROT_READ;
	pid_t pid = -1;

	while (n < MAXMAPS) {
		void *p = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);

		if (p == MAP_FAILED)
			break;
		maps[n++] = p;
		/* Neighbours of other protections stay apart. */
		prot = prot == PROT_READ ? PROT_NONE : PROT_READ;
	}
	while (n > 0 && pid < 0) {
		for (int i = 0; i < 8 && n > 0; i++)
			munmap(maps[--n], 4096);
		pid = fork();
		if (pid == 0)
			_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	while (n > 0)
		munmap(maps[--n], 4096);
	return pid > 0 ? 0 : 1;
}
