/*
 * Verifies that what a program makes the kernel allocate is bounded and
 * answered with Linux's errors: pipes grown to 1 MiB and filled, tmpfs
 * names and symlinks, record locks, filled socket pairs, epoll items,
 * queued real-time signals and a mapping cut into pieces by munmap.
 *
 * "mem_kmem LIMIT_MIB" runs under a memory limit of LIMIT_MIB (vkernel's
 * --mem): each attack must then meet its error before it has asked for
 * three times the limit.  Without an argument it stops at 1 MiB each,
 * and an error it meets must still be the right one.  After each attack
 * everything is given back, and the same object must be had again.
 * "mem_kmem LIMIT_MIB user" does it all as an unprivileged user: uid
 * 65534 when it starts as root, else the user it starts as.
 */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>

#include "guest.h"

#define MIB (1024UL * 1024)

static unsigned long limit_mib;

/* What an attack may ask for before it must have met its error. */
static unsigned long
budget(void)
{
	return limit_mib > 0 ? 3 * limit_mib * MIB : MIB;
}

/*
 * An attack that stopped on err after n objects: err must be one of the
 * two wanted (0 for none), and under a limit it must have come.
 */
static void
attack_end(const char *what, unsigned long n, int err, int want1, int want2)
{
	guest_note("%s: %lu, then %s", what, n,
	    err != 0 ? guest_errno_name(err) : "the budget");
	if (err != 0)
		CHECK(err == want1 || err == want2, "%s: errno %s", what,
		    guest_errno_name(err));
	if (limit_mib > 0)
		CHECK(err != 0, "%s: %lu made, no error under %lu MiB", what,
		    n, limit_mib);
}

/* Room for descriptors: as many as the hard limit allows. */
static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int *
fds_new(unsigned long n)
{
	int *fds = calloc(n, sizeof(*fds));

	if (fds == NULL)
		abort();
	return fds;
}

static void
fds_close(int *fds, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
}

/*
 * Record locks on every other byte of files (open before memory is full),
 * until ENOLCK.  The locks go with the files.
 */
static void
attack_locks(const int *files, int nfiles)
{
	enum { PER_FILE = 512 };
	unsigned long locks = 0;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
	    .l_len = 1 };
	int err = 0;

	for (int f = 0; f < nfiles && err == 0; f++) {
		for (int i = 0; i < PER_FILE && err == 0; i++, locks++) {
			fl.l_start = 2 * i;
			if (fcntl(files[f], F_SETLK, &fl) < 0)
				err = errno;
		}
	}
	attack_end("record locks", locks, err, ENOLCK, ENOLCK);
}

/*
 * Pipes of 1 MiB, each filled: F_SETPIPE_SZ or pipe2 give ENOMEM.  With
 * the memory full, record locks on the files get ENOLCK.
 */
static void
attack_pipes(const int *files, int nfiles)
{
	unsigned long max = budget() / MIB, n = 0;
	int *fds = fds_new(2 * max), err = 0, p[2];
	static char chunk[65536];

	while (n < max) {
		if (pipe2(p, O_NONBLOCK) < 0) {
			err = errno;
			break;
		}
		fds[2 * n] = p[0];
		fds[2 * n + 1] = p[1];
		n++;
		if (fcntl(p[1], F_SETPIPE_SZ, (int)MIB) < 0) {
			err = errno;
			break;
		}
		while (write(p[1], chunk, sizeof(chunk)) > 0)
			;
		CHECK(errno == EAGAIN, "pipe write: %s", guest_errno_name(errno));
	}
	attack_end("1 MiB pipes", n, err, ENOMEM, ENOMEM);
	attack_locks(files, nfiles);
	fds_close(fds, 2 * n);
	if (CHECK_OK(pipe2(p, 0)) == 0) {
		CHECK_EQ(fcntl(p[1], F_SETPIPE_SZ, (int)MIB), (long)MIB);
		close(p[0]);
		close(p[1]);
	}
}

static void
name_of(char *buf, const char *dir, unsigned long i)
{
	char pad[240];

	memset(pad, 'n', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	snprintf(buf, 4096, "%s/%s%08lu", dir, pad, i);
}

/* Files with long names in dir until ENOSPC; then they all go. */
static void
attack_names(const char *dir)
{
	unsigned long max = budget() / 256, n = 0;
	char path[4096];
	int err = 0, fd;

	for (; n < max; n++) {
		name_of(path, dir, n);
		if ((fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600)) < 0) {
			err = errno;
			break;
		}
		close(fd);
	}
	attack_end("tmpfs names", n, err, ENOSPC, ENOSPC);
	while (n > 0) {
		name_of(path, dir, --n);
		CHECK_OK(unlink(path));
	}
	name_of(path, dir, 0);
	if ((fd = CHECK_OK(open(path, O_CREAT | O_WRONLY, 0600))) >= 0) {
		close(fd);
		unlink(path);
	}
}

/* Symlinks to 4000-byte targets in dir until ENOSPC. */
static void
attack_symlinks(const char *dir)
{
	unsigned long max = budget() / 4096, n = 0;
	static char target[4001];
	char path[4096];
	int err = 0;

	memset(target, 't', sizeof(target) - 1);
	for (; n < max; n++) {
		snprintf(path, sizeof(path), "%s/l%lu", dir, n);
		if (symlink(target, path) < 0) {
			err = errno;
			break;
		}
	}
	attack_end("symlinks", n, err, ENOSPC, ENOSPC);
	while (n > 0) {
		snprintf(path, sizeof(path), "%s/l%lu", dir, --n);
		CHECK_OK(unlink(path));
	}
}

/* Stream socket pairs, each filled: send gives ENOBUFS. */
static void
attack_sockets(void)
{
	unsigned long max = budget() / (200 * 1024), n = 0;
	int *fds = fds_new(2 * max), err = 0, sv[2];
	static char chunk[65536];

	while (n < max && err == 0) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0,
		    sv) < 0) {
			err = errno;
			break;
		}
		fds[2 * n] = sv[0];
		fds[2 * n + 1] = sv[1];
		n++;
		while (send(sv[0], chunk, sizeof(chunk), MSG_DONTWAIT) > 0)
			;
		if (errno != EAGAIN)
			err = errno;
	}
	attack_end("filled socket pairs", n, err, ENOBUFS, ENOMEM);
	fds_close(fds, 2 * n);
	if (CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) == 0) {
		CHECK_EQ(send(sv[0], chunk, sizeof(chunk), 0),
		    (long)sizeof(chunk));
		close(sv[0]);
		close(sv[1]);
	}
}

/* Epoll sets each watching 1024 descriptors of one eventfd. */
static void
attack_epoll(void)
{
	enum { NWATCH = 1024 };
	unsigned long max = budget() / 32 / NWATCH + 1, n = 0, items = 0;
	int *eps = fds_new(max), watch[NWATCH], err = 0;
	struct epoll_event ev = { .events = EPOLLIN };

	watch[0] = eventfd(0, 0);
	for (int i = 1; i < NWATCH; i++)
		watch[i] = dup(watch[0]);
	CHECK(watch[NWATCH - 1] >= 0, "dup");
	while (n < max && err == 0) {
		if ((eps[n] = epoll_create1(0)) < 0) {
			err = errno;
			break;
		}
		n++;
		for (int i = 0; i < NWATCH && err == 0; i++, items++)
			if (epoll_ctl(eps[n - 1], EPOLL_CTL_ADD, watch[i],
			    &ev) < 0)
				err = errno;
	}
	/* ENOSPC natively: /proc/sys/fs/epoll/max_user_watches. */
	attack_end("epoll items", items, err, ENOMEM, ENOSPC);
	fds_close(eps, n);
	eps = fds_new(1);
	if ((eps[0] = CHECK_OK(epoll_create1(0))) >= 0)
		CHECK_OK(epoll_ctl(eps[0], EPOLL_CTL_ADD, watch[0], &ev));
	fds_close(eps, 1);
	for (int i = 0; i < NWATCH; i++)
		close(watch[i]);
}

static int
queue_rt(int sig)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	return (int)syscall(SYS_rt_sigqueueinfo, getpid(), sig, &si);
}

/* Real-time signals queued while blocked: EAGAIN at the end. */
static void
attack_signals(void)
{
	unsigned long max = budget() / 128, n = 0;
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY }, old;
	int sig = SIGRTMIN + 1, err = 0;
	sigset_t set;

	getrlimit(RLIMIT_SIGPENDING, &old);
	/* Root lifts the limit, so that memory is what stops the queue. */
	if (setrlimit(RLIMIT_SIGPENDING, &rl) < 0)
		max = old.rlim_cur + 1;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (; n < max; n++) {
		if (queue_rt(sig) < 0) {
			err = errno;
			break;
		}
	}
	attack_end("queued signals", n, err, EAGAIN, EAGAIN);
	/* An ignored signal's queue goes at once. */
	signal(sig, SIG_IGN);
	signal(sig, SIG_DFL);
	CHECK_OK(queue_rt(sig));
	signal(sig, SIG_IGN);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	signal(sig, SIG_DFL);
	setrlimit(RLIMIT_SIGPENDING, &old);
}

/* A reserved range cut into pages by munmap: ENOMEM. */
static void
attack_map_pieces(void)
{
	unsigned long max = budget() / 32, n = 0;
	size_t len = 2 * max * GUEST_PAGE;
	char *base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_NORESERVE, -1, 0);
	int err = 0;

	if (!CHECK(base != MAP_FAILED, "mmap %zu", len))
		return;
	for (; n < max; n++) {
		if (munmap(base + (2 * n + 1) * GUEST_PAGE, GUEST_PAGE) < 0) {
			err = errno;
			break;
		}
	}
	/* ENOMEM natively too: /proc/sys/vm/max_map_count. */
	attack_end("map pieces", n, err, ENOMEM, ENOMEM);
	CHECK_OK(munmap(base, len));
	base = mmap(NULL, 1 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (CHECK(base != MAP_FAILED, "mmap after")) {
		CHECK_OK(munmap(base + GUEST_PAGE, GUEST_PAGE));
		CHECK_OK(munmap(base, 1 * MIB));
	}
}

int
main(int argc, char **argv)
{
	enum { NLOCKFILES = 64 };
	int files[NLOCKFILES];
	char dir[64], path[128];

	limit_mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
	raise_nofile();
	if (argc > 2 && strcmp(argv[2], "user") == 0 && geteuid() == 0 &&
	    (CHECK_OK(setgroups(0, NULL)) < 0 ||
	    CHECK_OK(setresgid(65534, 65534, 65534)) < 0 ||
	    CHECK_OK(setresuid(65534, 65534, 65534)) < 0))
		return guest_done();
	snprintf(dir, sizeof(dir), "/tmp/mem_kmem.%d", (int)getpid());
	if (CHECK_OK(mkdir(dir, 0700)) < 0)
		return guest_done();
	for (int i = 0; i < NLOCKFILES; i++) {
		snprintf(path, sizeof(path), "%s/lock%d", dir, i);
		files[i] = CHECK_OK(open(path, O_CREAT | O_RDWR, 0600));
		unlink(path);
	}
	attack_pipes(files, NLOCKFILES);
	for (int i = 0; i < NLOCKFILES; i++)
		close(files[i]);
	attack_names(dir);
	attack_symlinks(dir);
	attack_sockets();
	attack_epoll();
	attack_signals();
	attack_map_pieces();
	CHECK_OK(rmdir(dir));
	return guest_done();
}
