/*
 * pty_pingpong - a byte's round trip through a pseudo-terminal, against
 * the same through two pipes, in one run.
 *
 * Usage: pty_pingpong [ITERS|auto]
 *
 * A child echoes each byte back: over a pipe pair, or read from a pty's
 * slave in raw mode and written back there while the parent writes and
 * reads the master.  Per round trip two writes, two reads and two
 * switches either way; the pty adds its line discipline.  The second
 * line gives the pty's time as a multiple of the pipes'.
 */
#include "bench.h"

#include <pty.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <termios.h>

struct pp {
	bool pty;
};

static void
echo_child(int rfd, int wfd, long n)
{
	char c;

	for (long i = 0; i < n; i++)
		if (read(rfd, &c, 1) != 1 || write(wfd, &c, 1) != 1)
			_exit(1);
	_exit(0);
}

static long long
run(long n, void *ctx)
{
	struct pp *pp = ctx;
	int up[2], down[2], m, s, st;
	struct termios t;
	long long t0;
	pid_t pid;
	char c = 'x';

	if (pp->pty) {
		if (openpty(&m, &s, NULL, NULL, NULL) < 0 ||
		    tcgetattr(s, &t) < 0)
			bench_die("openpty");
		cfmakeraw(&t);
		if (tcsetattr(s, TCSANOW, &t) < 0)
			bench_die("tcsetattr");
		down[0] = up[1] = s;
		down[1] = up[0] = m;
	} else if (pipe(up) < 0 || pipe(down) < 0) {
		bench_die("pipe");
	}
	if ((pid = fork()) < 0)
		bench_die("fork");
	if (pid == 0)
		echo_child(down[0], up[1], n);
	t0 = bench_now_ns();
	for (long i = 0; i < n; i++)
		if (write(down[1], &c, 1) != 1 || read(up[0], &c, 1) != 1)
			bench_die("round trip");
	t0 = bench_now_ns() - t0;
	if (waitpid(pid, &st, 0) != pid || st != 0)
		bench_die("echo child");
	if (pp->pty) {
		close(m);
		close(s);
	} else {
		close(up[0]);
		close(up[1]);
		close(down[0]);
		close(down[1]);
	}
	return t0;
}

int
main(int argc, char **argv)
{
	struct pp pipes = { false }, ptys = { true };
	long np = bench_iters(argc > 1 ? argv[1] : NULL, run, &pipes);
	long long ep = run(np, &pipes);
	long nt = bench_iters(argc > 1 ? argv[1] : NULL, run, &ptys);
	long long et = run(nt, &ptys);
	char extra[64];

	bench_report("pipe_pingpong", np, ep, NULL);
	snprintf(extra, sizeof(extra), "%.2fx the pipes'",
	    ((double)et / nt) / ((double)ep / np));
	bench_report("pty_pingpong", nt, et, extra);
	return 0;
}
