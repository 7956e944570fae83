/*
 * netloop - loopback sockets between two processes.
 *
 * Usage: netloop MODE [ITERS|auto]
 *   stream     TCP over 127.0.0.1: one op is a 64 KiB write, read whole
 *              by the other process
 *   rr-tcp     a 1-byte request and its 1-byte answer over one TCP
 *              connection: one op is a round trip
 *   rr-pipe    the same over a pair of pipes
 *   conn-tcp   connect + accept + close of both ends, over 127.0.0.1
 *   conn-unix  the same over an abstract AF_UNIX name
 */
#include "bench.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#define CHUNK 65536

static char chunk[CHUNK];

/* A listener: on 127.0.0.1 (a port of its own), or an abstract name. */
static int
listener(bool local, struct sockaddr_storage *ss, socklen_t *lenp)
{
	int fd = socket(local ? AF_UNIX : AF_INET, SOCK_STREAM, 0);

	memset(ss, 0, sizeof(*ss));
	if (local) {
		struct sockaddr_un *sun = (struct sockaddr_un *)ss;

		sun->sun_family = AF_UNIX;
		snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1,
		    "netloop-%d", (int)getpid());
		*lenp = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
		    strlen(sun->sun_path + 1));
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		*lenp = sizeof(*sin);
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)ss, *lenp) < 0 ||
	    listen(fd, 64) < 0 || getsockname(fd, (struct sockaddr *)ss,
	    lenp) < 0)
		bench_die("listener");
	return fd;
}

/* A connected TCP pair over 127.0.0.1. */
static void
tcp_pair(int sv[2])
{
	struct sockaddr_storage ss;
	socklen_t len;
	int l = listener(false, &ss, &len), one = 1;

	sv[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (sv[0] < 0 || connect(sv[0], (struct sockaddr *)&ss, len) < 0 ||
	    (sv[1] = accept(l, NULL, NULL)) < 0)
		bench_die("connect");
	setsockopt(sv[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(sv[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(l);
}

static void
reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || st != 0)
		bench_die("child");
}

static long long
run_stream(long n, void *ctx)
{
	long long t0;
	int sv[2];
	pid_t pid;

	tcp_pair(sv);
	if ((pid = fork()) == 0) {
		close(sv[0]);
		while (read(sv[1], chunk, CHUNK) > 0)
			;
		_exit(0);
	}
	close(sv[1]);
	t0 = bench_now_ns();
	for (long i = 0; i < n; i++)
		if (write(sv[0], chunk, CHUNK) != CHUNK)
			bench_die("write");
	close(sv[0]);
	reap(pid);
	return bench_now_ns() - t0;
}

/* One byte there and back, n times, between fds a (here) and b (child). */
static long long
pingpong(long n, int a_rd, int a_wr, int b_rd, int b_wr)
{
	long long t0;
	char c = 'x';
	pid_t pid;

	if ((pid = fork()) == 0) {
		for (long i = 0; i < n; i++)
			if (read(b_rd, &c, 1) != 1 || write(b_wr, &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	t0 = bench_now_ns();
	for (long i = 0; i < n; i++)
		if (write(a_wr, &c, 1) != 1 || read(a_rd, &c, 1) != 1)
			bench_die("round trip");
	t0 = bench_now_ns() - t0;
	reap(pid);
	return t0;
}

static long long
run_rr_tcp(long n, void *ctx)
{
	long long t;
	int sv[2];

	tcp_pair(sv);
	t = pingpong(n, sv[0], sv[0], sv[1], sv[1]);
	close(sv[0]);
	close(sv[1]);
	return t;
}

static long long
run_rr_pipe(long n, void *ctx)
{
	long long t;
	int there[2], back[2];

	if (pipe(there) < 0 || pipe(back) < 0)
		bench_die("pipe");
	t = pingpong(n, back[0], there[1], there[0], back[1]);
	close(there[0]);
	close(there[1]);
	close(back[0]);
	close(back[1]);
	return t;
}

static long long
run_conn(long n, void *ctx)
{
	bool local = ctx != NULL;
	struct sockaddr_storage ss;
	socklen_t len;
	int l = listener(local, &ss, &len), c, a;
	long long t0 = bench_now_ns();

	for (long i = 0; i < n; i++) {
		c = socket(local ? AF_UNIX : AF_INET, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&ss, len) < 0 ||
		    (a = accept(l, NULL, NULL)) < 0)
			bench_die("connect");
		close(c);
		close(a);
	}
	t0 = bench_now_ns() - t0;
	close(l);
	return t0;
}

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		bench_fn fn;
		void *ctx;
	} modes[] = {
		{ "stream", run_stream, NULL },
		{ "rr-tcp", run_rr_tcp, NULL },
		{ "rr-pipe", run_rr_pipe, NULL },
		{ "conn-tcp", run_conn, NULL },
		{ "conn-unix", run_conn, chunk },
	};
	long n;

	for (size_t i = 0; argc > 1 && i < sizeof(modes) / sizeof(modes[0]);
	    i++) {
		if (strcmp(argv[1], modes[i].name) != 0)
			continue;
		n = bench_iters(argc > 2 ? argv[2] : NULL, modes[i].fn,
		    modes[i].ctx);
		bench_report(modes[i].name, n, modes[i].fn(n, modes[i].ctx),
		    NULL);
		return 0;
	}
	bench_fprint(2, "usage: netloop stream|rr-tcp|rr-pipe|conn-tcp|"
	    "conn-unix [ITERS|auto]\n");
	return 2;
}
