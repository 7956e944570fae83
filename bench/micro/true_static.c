/*
 * true_static - does nothing and exits 0.
 *
 * Timed from outside (fork, exec, wait), so it measures what it costs to
 * start and tear down a program: natively the host's exec, under vkernel
 * the vkernel's own start-up, stub creation, ELF load and exit.
 */
int
main(void)
{
	return 0;
}
