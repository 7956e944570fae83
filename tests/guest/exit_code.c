/*
 * Verifies that a guest's exit status reaches the host: exits with the status
 * in argv[1] through exit_group(2), or through exit(2) of the only thread
 * when argv[2] is "thread".
 */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	long status;

	if (argc < 2)
		return 100;
	status = strtol(argv[1], NULL, 0);
	/* Raw calls: libc's exit() would run atexit handlers first. */
	if (argc > 2 && strcmp(argv[2], "thread") == 0)
		syscall(SYS_exit, status);
	else
		syscall(SYS_exit_group, status);
	/* Reached only if the exit call returned, which it must never do. */
	return 101;
}
