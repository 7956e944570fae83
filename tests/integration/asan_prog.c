/*
 * A program built with -fsanitize=address, for mem.sh: AddressSanitizer
 * reserves terabytes of shadow memory with MAP_NORESERVE before main,
 * which runs only where such reservations are allowed.  It allocates,
 * forks and frees and exits 0; with "overflow" it reads past a heap
 * block, which AddressSanitizer reports (exit 1).  With "nobody" it
 * first becomes uid 65534.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static bool
has_arg(int argc, char **argv, const char *arg)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], arg) == 0)
			return true;
	return false;
}

int
main(int argc, char **argv)
{
	volatile char *small;
	char *big;
	pid_t pid;
	int st = 0;

	if (has_arg(argc, argv, "nobody") && (setresgid(65534, 65534,
	    65534) < 0 || setresuid(65534, 65534, 65534) < 0))
		return 4;
	small = malloc(100);
	big = malloc(64 << 20);
	if (small == NULL || big == NULL)
		return 2;
	for (int i = 0; i < 100; i++)
		small[i] = (char)i;
	memset(big, 1, 64 << 20);
	if ((pid = fork()) == 0) {
		big[5] = 2;
		_exit(big[5]);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 2 || big[5] != 1)
		return 3;
	if (has_arg(argc, argv, "overflow"))
		return small[100 + argc];
	printf("asan ok\n");
	free((void *)small);
	free(big);
	return 0;
}
