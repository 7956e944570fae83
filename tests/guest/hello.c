/* Verifies the simplest guest: stdio output reaches stdout, status 0 too. */
#include <stdio.h>

int
main(void)
{
	/*
	 * Through stdio on purpose: exercises the libc's probing of stdout
	 * (fstat, ioctl) and its buffered write at exit.
	 */
	printf("hello from guest\n");
	return 0;
}
