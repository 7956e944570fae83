/*
 * Throws random POSIX message queue calls at the kernel: names, flags,
 * modes, attributes, descriptors, lengths, priorities, timeouts and
 * sigevents drawn from hostile values (NULL, unmapped, read-only, huge,
 * negative), netlink sockets for SIGEV_THREAD, and children that wait on
 * a queue and are killed in the middle.  It checks only that every name
 * can be removed at the end; the point is that vkernel, run with its
 * sanitizers, survives it without a crash, an assertion or a leak.  Run
 * inside vkernel only: natively its queues would be the host's.
 *
 * usage: ipc_mqrandom [ITERATIONS [SEED]]
 */
#include <linux/netlink.h>
#include <mqueue.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "guest.h"
#include "rnd.h"

#define NFDS 16

static const char *names[] = { "r0", "r1", "r2", "r3" };
static int fds[NFDS];
static char *ro;                /* a read-only page */

static uint64_t
rsize(void)
{
	static const uint64_t v[] = { 0, 1, 2, 10, 127, 128, 8192, 8193,
	    65536, 65537, 1 << 24, 0x7fffffff, (uint64_t)-1, 1ULL << 62 };

	return (rnd() & 1) ? rnd() % 300 : pick(v, NELEM(v));
}

static void *
rbuf(char *good, size_t len)
{
	return rnd_buf(good, len, ro);
}

/* A descriptor: a queue's, another kind's, or nonsense. */
static int
rfd(void)
{
	switch (rnd() % 5) {
	case 0:
		return (int)(rnd() % 8) - 1;
	case 1:
		return (int)rnd();
	default:
		return fds[rnd() % NFDS];
	}
}

static void
keep(long fd)
{
	int i = (int)(rnd() % NFDS);

	if (fd < 0)
		return;
	if (fds[i] >= 0)
		close(fds[i]);
	fds[i] = (int)fd;
}

static void
one_open(char *buf)
{
	struct mq_attr *a = (struct mq_attr *)buf;
	const char *name = names[rnd() % NELEM(names)];
	static const uint64_t flags[] = { O_RDONLY, O_WRONLY, O_RDWR,
	    O_ACCMODE, O_CREAT, O_EXCL, O_NONBLOCK, O_CLOEXEC, O_TRUNC };

	a->mq_flags = (long)rsize();
	a->mq_maxmsg = (rnd() & 1) ? (long)(rnd() % 12) : (long)rsize();
	a->mq_msgsize = (rnd() & 1) ? (long)(rnd() % 600) : (long)rsize();
	if (rnd() % 8 == 0)
		name = rbuf(buf + 1024, 64);
	keep(syscall(SYS_mq_open, name, (int)(pick(flags, NELEM(flags)) |
	    pick(flags, NELEM(flags)) | pick(flags, NELEM(flags))),
	    (unsigned)(rnd() & 07777), (rnd() & 1) ? a : rbuf(buf, 64)));
}

/*
 * A timeout: past, bad or unmapped; never none nor one read from the
 * buffer, which could make the call wait for ever.
 */
static void *
rtimeout(struct timespec *ts)
{
	ts->tv_sec = (rnd() & 1) ? 0 : (time_t)rsize();
	ts->tv_nsec = (rnd() & 1) ? (long)(rnd() % 1000) : (long)rsize();
	if (ts->tv_sec != 0 && ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000)
		ts->tv_sec = 1;         /* 1970: long past */
	switch (rnd() % 6) {
	case 0:
		return (void *)(uintptr_t)8;
	case 1:
		return ro;
	case 2:
		return ro - 8;
	default:
		return ts;
	}
}

static void
one_notify(char *buf)
{
	struct sigevent *ev = (struct sigevent *)buf;
	static const uint64_t how[] = { SIGEV_NONE, SIGEV_SIGNAL,
	    SIGEV_THREAD, SIGEV_THREAD_ID, 77, (uint64_t)-1 };
	static const uint64_t sig[] = { 0, SIGURG, SIGUSR1, 64, 65,
	    (uint64_t)-1 };
	int s = -1;

	memset(ev, 0, sizeof(*ev));
	ev->sigev_notify = (int)pick(how, NELEM(how));
	ev->sigev_signo = (int)pick(sig, NELEM(sig));
	ev->sigev_value.sival_ptr = rbuf(buf + 512, 64);
	if (ev->sigev_notify == SIGEV_THREAD && rnd() % 3 != 0) {
		s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK,
		    NETLINK_ROUTE);
		ev->sigev_signo = s;
	}
	syscall(SYS_mq_notify, rfd(), (rnd() % 4) ? (void *)ev :
	    rbuf(buf, 64));
	if (s >= 0) {
		recv(s, buf + 2048, 64, MSG_DONTWAIT);
		if (rnd() & 1)
			close(s);
		else
			keep(s);
	}
}

static void
one_call(char *buf)
{
	struct timespec ts;
	unsigned prio;

	switch (rnd() % 9) {
	case 0:
	case 1:
		one_open(buf);
		break;
	case 2:
		syscall(SYS_mq_unlink, (rnd() % 6) ? names[rnd() %
		    NELEM(names)] : rbuf(buf, 64));
		break;
	case 3:
	case 4:
		syscall(SYS_mq_timedsend, rfd(), rbuf(buf, 4096),
		    rsize() % 9000, (unsigned)((rnd() & 1) ? rnd() % 40 :
		    rsize()), rtimeout(&ts));
		break;
	case 5:
	case 6:
		syscall(SYS_mq_timedreceive, rfd(), rbuf(buf, 4096),
		    rsize(), (rnd() & 1) ? &prio : rbuf(buf, 8),
		    rtimeout(&ts));
		break;
	case 7:
		one_notify(buf);
		break;
	default:
		if (rnd() & 1)
			keep(dup(rfd()));
		syscall(SYS_mq_getsetattr, rfd(), rbuf(buf, 64),
		    rbuf(buf + 64, 64));
		break;
	}
}

/* A child that waits on a queue, to be killed meanwhile. */
static void
child(void)
{
	char m[65536];
	int fd = fds[rnd() % NFDS];

	syscall(SYS_mq_getsetattr, fd, &(struct mq_attr){ 0 }, NULL);
	syscall(SYS_mq_timedreceive, fd, m, sizeof(m), NULL, NULL);
	syscall(SYS_mq_timedsend, fd, m, 1, 0, NULL);
	_exit(0);
}

int
main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 20000;
	static char buf[16384] __attribute__((aligned(4096)));
	sigset_t all;

	if (argc > 2)
		rnd_state = strtoull(argv[2], NULL, 0) | 1;
	memset(fds, 0xff, sizeof(fds));
	/* Notifications go nowhere: every signal they may name is held. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	ro = guest_anon(4096, PROT_READ);
	CHECK(ro != MAP_FAILED, "mmap");
	for (long i = 0; i < iters; i++) {
		if (rnd() % 50 == 0) {
			pid_t pid = fork();

			if (pid == 0)
				child();
			if (pid > 0) {
				if (rnd() & 1)
					usleep((useconds_t)(rnd() % 2000));
				kill(pid, SIGKILL);
				waitpid(pid, NULL, 0);
			}
			continue;
		}
		errno = 0;
		one_call(buf);
	}
	for (size_t i = 0; i < NELEM(names); i++)
		syscall(SYS_mq_unlink, names[i]);
	for (size_t i = 0; i < NELEM(names); i++)
		CHECK_ERR(syscall(SYS_mq_unlink, names[i]), ENOENT);
	return guest_done();
}
