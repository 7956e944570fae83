/*
 * Resource attacks, each run under one of the sandbox's limits by the
 * driver, which checks that vkernel ends in bounded time with the status
 * the limit gives and leaves nothing on the host:
 *   fork    every process forks for ever (ended by --timeout: 124);
 *   thread  threads until clone fails with EAGAIN (under --pids), exit 0;
 *   fd      descriptors until EMFILE, in several processes (under --fds),
 *           exit 0;
 *   mem     memory touched until mmap fails with ENOMEM or the sandbox's
 *           OOM killer ends the process (under --mem): exit 0 or 137;
 *   spin    processes that ignore SIGTERM and spin (ended by --timeout's
 *           SIGKILL: 124).
 * With "nobody" after the mode, as uid 65534.
 * Usage: esc_bomb MODE [nobody]
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>

#include "../guest/guest.h"

static void
fork_bomb(void)
{
	for (;;)
		(void)fork();
}

static void *
sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int
thread_bomb(void)
{
	pthread_attr_t at;
	pthread_t th;
	int n = 0, r;

	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 64 * 1024);
	while ((r = pthread_create(&th, &at, sleeper, NULL)) == 0)
		n++;
	CHECK(r == EAGAIN, "pthread_create after %d: %d", n, r);
	CHECK(n > 0 && n < 4096, "%d threads", n);
	guest_note("%d threads", n);
	return guest_done();
}

static int
fd_bomb(void)
{
	int st, bad = 0;

	for (int i = 0; i < 4; i++) {
		if (fork() == 0) {
			int n = 0;

			while (open("/dev/null", O_RDONLY) >= 0)
				n++;
			_exit(errno == EMFILE || errno == ENFILE ? 0 : 1);
		}
	}
	while (wait(&st) > 0)
		bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(bad == 0, "%d children ended without EMFILE", bad);
	return guest_done();
}

static int
mem_bomb(void)
{
	size_t chunk = 1 << 20, total = 0;

	for (;;) {
		char *p = guest_anon(chunk, PROT_READ | PROT_WRITE);

		if (p == MAP_FAILED)
			break;
		for (size_t i = 0; i < chunk; i += GUEST_PAGE)
			p[i] = 1;
		total += chunk;
	}
	CHECK(errno == ENOMEM, "mmap after %zu MiB", total >> 20);
	return guest_done();
}

static void
spin(void)
{
	signal(SIGTERM, SIG_IGN);
	(void)fork();
	for (;;)
		__asm__ volatile("" ::: "memory");
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (argc > 2 && strcmp(argv[2], "nobody") == 0 &&
	    (syscall(SYS_setresgid, 65534, 65534, 65534) < 0 ||
	    syscall(SYS_setresuid, 65534, 65534, 65534) < 0))
		return guest_skip("cannot switch to uid 65534");
	if (strcmp(argv[1], "fork") == 0)
		fork_bomb();
	if (strcmp(argv[1], "thread") == 0)
		return thread_bomb();
	if (strcmp(argv[1], "fd") == 0)
		return fd_bomb();
	if (strcmp(argv[1], "mem") == 0)
		return mem_bomb();
	if (strcmp(argv[1], "spin") == 0)
		spin();
	return 2;
}
