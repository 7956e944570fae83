/*
 * A program that is not pid 1 runs under an init: its parent is pid 1,
 * an orphan is reparented to pid 1 (getppid() says 1 once its parent
 * exits) and reaped by it, and no signal a process of the sandbox sends
 * pid 1 (SIGKILL and SIGSTOP included, every way of sending) stops or
 * ends it, since an init without handlers takes none (pid_namespaces(7)).
 * Inside vkernel the init is vkernel's own; natively, and inside vkernel
 * with --as-pid-1, the program finds itself pid 1 and plays a minimal
 * init itself (it reaps everything and exits with the checks' status);
 * "under-init" says it must find itself the command, pid 2.
 * The checks run as the caller and again as uid 65534.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

#include "proc_common.h"

/* pid 1's real uid, from /proc/1/status. */
static long
init_uid(void)
{
	char buf[4096], *p;

	if (!proc_read_file("/proc/1/status", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "\nUid:\t");
	return p != NULL ? strtol(p + 6, NULL, 10) : -1;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * A grandchild whose parent exits: its parent becomes pid 1, and once it
 * exits too, pid 1 reaps it (it is gone from the process table).
 */
static void
check_orphan(void)
{
	int p[2], st;
	pid_t mid, orphan = 0, ppid = 0;

	CHECK_OK(pipe(p));
	mid = fork();
	if (mid == 0) {
		pid_t me = getpid(), g = fork();

		if (g == 0) {
			pid_t pp = getppid();

			for (int i = 0; i < 500 && pp == me; i++) {
				sleep_ms(10);
				pp = getppid();
			}
			(void)!write(p[1], &pp, sizeof(pp));
			_exit(0);
		}
		(void)!write(p[1], &g, sizeof(g));
		_exit(0);
	}
	CHECK(mid > 0 && waitpid(mid, &st, 0) == mid && WIFEXITED(st),
	    "the middle process");
	CHECK_EQ(read(p[0], &orphan, sizeof(orphan)), (ssize_t)sizeof(orphan));
	CHECK_EQ(read(p[0], &ppid, sizeof(ppid)), (ssize_t)sizeof(ppid));
	CHECK_EQ(ppid, 1);
	/* Not ours to wait for: init reaps it. */
	CHECK_ERR(waitpid(orphan, &st, WNOHANG), ECHILD);
	for (int i = 0; i < 500 && kill(orphan, 0) == 0; i++)
		sleep_ms(10);
	CHECK_ERR(kill(orphan, 0), ESRCH);
	close(p[0]);
	close(p[1]);
}

/* Every way of sending sig to pid 1 gives want (0 or -errno). */
static void
check_send(int sig, int want)
{
	siginfo_t si = { .si_signo = sig, .si_code = SI_QUEUE };
	int pidfd = (int)syscall(SYS_pidfd_open, 1, 0);
	long r[5];

	si.si_pid = getpid();
	si.si_uid = getuid();
	r[0] = kill(1, sig);
	r[1] = syscall(SYS_tgkill, 1, 1, sig);
	r[2] = syscall(SYS_rt_sigqueueinfo, 1, sig, &si);
	r[3] = syscall(SYS_rt_tgsigqueueinfo, 1, 1, sig, &si);
	r[4] = pidfd >= 0 ? syscall(SYS_pidfd_send_signal, pidfd, sig, NULL,
	    0) : -1;
	for (int i = 0; i < 5; i++) {
		int got = r[i] == 0 ? 0 : -errno;

		CHECK(got == want, "signal %d way %d: %d, want %d", sig, i,
		    got, want);
	}
	if (pidfd >= 0)
		close(pidfd);
}

/* Nothing from inside stops or ends pid 1; a stop it took would show. */
static void
check_signals(void)
{
	long uid = init_uid();
	int want = getuid() == 0 || geteuid() == 0 || getuid() == uid ?
	    0 : -EPERM;
	char st;

	CHECK(uid >= 0, "pid 1's uid");
	/* Anyone may send SIGCONT within its session (kill(2)). */
	for (int sig = 1; sig <= 64; sig++)
		check_send(sig, sig == SIGCONT && getsid(0) == getsid(1) ?
		    0 : want);
	sleep_ms(50);
	st = proc_stat_state("/proc/1/stat");
	CHECK(st == 'S' || st == 'R', "pid 1's state is %c", st);
	CHECK(kill(1, 0) == 0 || errno == EPERM, "pid 1 is gone");
}

static void
tests(void)
{
	check_orphan();
	check_signals();
}

/* pid 1 itself: run the checks as pid 2, reap all, end with them. */
static int
be_init(void)
{
	pid_t pid = fork(), w;
	int st, mine = 1;

	if (pid == 0) {
		CHECK_EQ(getppid(), 1);
		_exit(guest_main_twice(tests));
	}
	if (pid < 0)
		return 1;
	while ((w = wait(&st)) > 0 || errno == EINTR)
		if (w == pid)
			mine = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	return mine;
}

/* "under-init": the program must have been started as the command. */
int
main(int argc, char **argv)
{
	bool under = argc > 1 && strcmp(argv[1], "under-init") == 0;

	if (getpid() == 1 && !under)
		return be_init();
	CHECK_EQ(getpid(), 2);
	CHECK_EQ(getppid(), 1);
	return guest_main_twice(tests);
}
