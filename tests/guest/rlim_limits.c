/*
 * Verifies that the resource limits a process sets hold where the kernel
 * serves what they govern, with Linux's errnos and signals: prlimit64 on
 * another process (ESRCH, EPERM, raising a hard limit), RLIMIT_AS and
 * RLIMIT_DATA on mmap, mremap and brk (ENOMEM), and RLIMIT_FSIZE on write,
 * pwrite, ftruncate and fallocate (SIGXFSZ, then EFBIG, or death by
 * SIGXFSZ), RLIMIT_SIGPENDING on sigqueue (EAGAIN), RLIMIT_MEMLOCK on
 * mlock, mlockall and MAP_LOCKED (ENOMEM, EAGAIN, EPERM), and
 * RLIMIT_STACK on the stack exec makes (SIGSEGV past it).  Arguments: "nobody" drops to uid 65534 first; any other is
 * the directory for the files (default /tmp).  Each limit is set in a
 * child of its own.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "int_common.h"

#define MB (1UL << 20)

static const char *dir = "/tmp";
static volatile sig_atomic_t nxfsz;

static int
prlim(pid_t pid, int res, const struct rlimit *nw, struct rlimit *old)
{
	return (int)syscall(SYS_prlimit64, pid, res, nw, old);
}

/* Run fn in a child; its exit status (0 if all held), or -1. */
static int
in_child(void (*fn)(void))
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		guest_failures = 0;
		fn();
		_exit(guest_failures != 0);
	}
	if (!CHECK(pid > 0, "fork") || !CHECK(waitpid(pid, &st, 0) == pid,
	    "waitpid"))
		return -1;
	return st;
}

#define CAP_IPC_LOCK_ 14
#define CAP_SYS_RESOURCE_ 24
#ifndef SYS_mlock2
#define SYS_mlock2 325
#endif

/*
 * Whether the caller holds capability cap: CAP_SYS_RESOURCE raises hard
 * limits, CAP_IPC_LOCK locks memory past RLIMIT_MEMLOCK.
 */
static bool
has_cap(int cap)
{
	/* The UAPI's, which musl's headers lack: version 3. */
	struct { uint32_t version; int pid; } h = { 0x20080522, 0 };
	struct { uint32_t effective, permitted, inheritable; } d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return false;
	return (d[0].effective & (1U << cap)) != 0;
}

static void
check_prlimit(void)
{
	struct rlimit rl, big = { RLIM_INFINITY, RLIM_INFINITY };
	struct rlimit nr = { 64, 1048576 + 1 };
	int gate[2], st;
	struct stat sb;
	pid_t kid;
	char c;

	CHECK_OK(prlim(0, RLIMIT_NOFILE, NULL, &rl));
	CHECK_ERR(prlim(0, RLIM_NLIMITS, NULL, &rl), EINVAL);
	CHECK_ERR(prlim(0x3ffffff0, RLIMIT_NOFILE, NULL, &rl), ESRCH);
	CHECK_ERR(prlim(0, RLIMIT_NOFILE, &nr, NULL), EPERM);
	/* A child of the same ids: read, lowered, and raised by root only. */
	CHECK_OK(pipe(gate));
	if ((kid = fork()) == 0) {
		close(gate[1]);
		while (read(gate[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(gate[0]);
	CHECK_OK(prlim(kid, RLIMIT_NOFILE, NULL, &rl));
	rl.rlim_max = 200;
	rl.rlim_cur = 100;
	CHECK_OK(prlim(kid, RLIMIT_NOFILE, &rl, NULL));
	CHECK_OK(prlim(kid, RLIMIT_NOFILE, NULL, &rl));
	CHECK_EQ(rl.rlim_cur, 100);
	CHECK_EQ(rl.rlim_max, 200);
	rl.rlim_max = 300;
	if (has_cap(CAP_SYS_RESOURCE_))
		CHECK_OK(prlim(kid, RLIMIT_NOFILE, &rl, NULL));
	else
		CHECK_ERR(prlim(kid, RLIMIT_NOFILE, &rl, NULL), EPERM);
	close(gate[1]);
	CHECK_EQ(waitpid(kid, &st, 0), kid);
	/* Another user's process: it may neither read nor set its limits. */
	if (geteuid() != 0 && stat("/proc/1", &sb) == 0 && sb.st_uid == 0) {
		CHECK_ERR(prlim(1, RLIMIT_NOFILE, NULL, &rl), EPERM);
		CHECK_ERR(prlim(1, RLIMIT_CORE, &big, NULL), EPERM);
	}
	if (!has_cap(CAP_SYS_RESOURCE_)) {
		rl = (struct rlimit){ 64, 128 };
		CHECK_OK(prlim(0, RLIMIT_NOFILE, &rl, NULL));
		rl.rlim_max = 256;
		CHECK_ERR(prlim(0, RLIMIT_NOFILE, &rl, NULL), EPERM);
	}
}

static void
set_limit(int res, rlim_t cur, rlim_t max)
{
	struct rlimit rl = { cur, max };

	CHECK_OK(setrlimit(res, &rl));
}

static void *
map(size_t len, int prot, int flags)
{
	return (void *)syscall(SYS_mmap, NULL, len, prot, flags | MAP_ANONYMOUS,
	    -1, 0);
}

/*
 * Growing the mapping at p from len to big, or the break by big, passes
 * the limit: mremap fails, and brk answers the unchanged break.
 */
static void
check_grow_refused(void *p, size_t len, size_t big)
{
	long brk0 = syscall(SYS_brk, 0);

	CHECK_ERR(syscall(SYS_mremap, p, len, big, MREMAP_MAYMOVE), ENOMEM);
	CHECK(syscall(SYS_brk, brk0 + (long)big) == brk0,
	    "brk grew by %zu past the limit", big);
}

static void
check_as(void)
{
	void *p, *q;

	set_limit(RLIMIT_AS, 1024 * MB, 1024 * MB);
	CHECK_ERR(map(2048 * MB, PROT_NONE, MAP_PRIVATE), ENOMEM);
	CHECK_ERR(map(2048 * MB, PROT_READ, MAP_SHARED), ENOMEM);
	p = (void *)CHECK_OK(map(512 * MB, PROT_NONE, MAP_PRIVATE));
	CHECK_ERR(map(512 * MB, PROT_NONE, MAP_PRIVATE), ENOMEM);
	/* MAP_FIXED over itself takes nothing more. */
	q = (void *)CHECK_OK(syscall(SYS_mmap, p, 256 * MB, PROT_READ,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
	CHECK(q == p, "MAP_FIXED moved");
	check_grow_refused(p, 256 * MB, 1024 * MB);
	CHECK_OK(syscall(SYS_munmap, p, 512 * MB));
	p = (void *)syscall(SYS_brk, 0);
	CHECK(syscall(SYS_brk, (char *)p + MB) == (long)p + (long)MB,
	    "brk by 1 MiB failed");
	CHECK_OK(syscall(SYS_brk, p));
}

static void
check_data(void)
{
	void *p;

	set_limit(RLIMIT_DATA, 64 * MB, 64 * MB);
	CHECK_ERR(map(128 * MB, PROT_READ | PROT_WRITE, MAP_PRIVATE), ENOMEM);
	/* Read-only and shared memory is not data. */
	p = (void *)CHECK_OK(map(128 * MB, PROT_READ, MAP_PRIVATE));
	CHECK_OK(syscall(SYS_munmap, p, 128 * MB));
	p = (void *)CHECK_OK(map(128 * MB, PROT_READ | PROT_WRITE,
	    MAP_SHARED));
	CHECK_OK(syscall(SYS_munmap, p, 128 * MB));
	p = (void *)CHECK_OK(map(16 * MB, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE));
	check_grow_refused(p, 16 * MB, 128 * MB);
	CHECK_OK(syscall(SYS_munmap, p, 16 * MB));
	/* Private memory made writable becomes data. */
	p = (void *)CHECK_OK(map(128 * MB, PROT_NONE, MAP_PRIVATE));
	CHECK_ERR(mprotect(p, 128 * MB, PROT_READ | PROT_WRITE), ENOMEM);
	CHECK_OK(mprotect(p, 16 * MB, PROT_READ | PROT_WRITE));
	CHECK_OK(mprotect(p, 16 * MB, PROT_READ | PROT_WRITE));
	CHECK_OK(syscall(SYS_munmap, p, 128 * MB));
	/* As Linux, a soft limit of 0 lets data grow to the hard limit. */
	set_limit(RLIMIT_DATA, 0, 64 * MB);
	p = (void *)CHECK_OK(map(16 * MB, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE));
	CHECK_ERR(map(128 * MB, PROT_READ | PROT_WRITE, MAP_PRIVATE), ENOMEM);
}

/*
 * Real-time signals a process queues stop at RLIMIT_SIGPENDING with
 * EAGAIN, and may be queued again once one is taken.  The count is per
 * user: root takes a uid of its own (from the pid, so that runs at once
 * do not meet); another user's processes may hold signals already.
 */
static void
check_sigpending(void)
{
	union sigval v = { .sival_int = 7 };
	struct timespec zero = { 0, 0 };
	uid_t uid = 200000 + (uid_t)getpid() % 100000;
	sigset_t set;
	int sig = SIGRTMIN + 6;

	if (geteuid() != 0 || syscall(SYS_setresuid, uid, uid, uid) != 0) {
		guest_note("skip: RLIMIT_SIGPENDING needs a uid of its own");
		return;
	}
	sigemptyset(&set);
	sigaddset(&set, sig);
	CHECK_OK(sigprocmask(SIG_BLOCK, &set, NULL));
	set_limit(RLIMIT_SIGPENDING, 8, 8);
	for (int i = 0; i < 8; i++)
		CHECK_OK(sigqueue(getpid(), sig, v));
	CHECK_ERR(sigqueue(getpid(), sig, v), EAGAIN);
	CHECK_EQ(sigtimedwait(&set, NULL, &zero), sig);
	CHECK_OK(sigqueue(getpid(), sig, v));
	CHECK_ERR(sigqueue(getpid(), sig, v), EAGAIN);
}

/*
 * Locks count against RLIMIT_MEMLOCK (ENOMEM, EAGAIN for MAP_LOCKED), a
 * range locked twice counts once, and a limit of 0 forbids locking
 * (EPERM); CAP_IPC_LOCK passes both.
 */
static void
check_memlock(void)
{
	bool cap = has_cap(CAP_IPC_LOCK_);
	char *p = map(MB, PROT_READ | PROT_WRITE, MAP_PRIVATE);

	set_limit(RLIMIT_MEMLOCK, 64 * 1024, 64 * 1024);
	CHECK_OK(mlock(p + 100, 32 * 1024 - 100));
	CHECK_OK(mlock(p, 32 * 1024));
	CHECK_OK(mlock(p, 64 * 1024));
	CHECK_ERR(syscall(SYS_mlock2, p, 4096, 2), EINVAL);
	CHECK_ERR(mlockall(0), EINVAL);
	CHECK_ERR(mlockall(MCL_CURRENT | 8), EINVAL);
	if (!cap) {
		CHECK_ERR(mlock(p + 64 * 1024, 4096), ENOMEM);
		CHECK_ERR(map(8192, PROT_READ, MAP_PRIVATE | MAP_LOCKED),
		    EAGAIN);
		CHECK_ERR(mlockall(MCL_CURRENT), ENOMEM);
	}
	CHECK_OK(munlock(p, 32 * 1024));
	CHECK_OK(syscall(SYS_mlock2, p + 64 * 1024, 32 * 1024, 1));
	CHECK_OK(munmap(p + 512 * 1024, 4096));
	CHECK_OK(munlock(p, 64 * 1024));
	CHECK_ERR(mlock(p + 508 * 1024, 8192), ENOMEM);
	CHECK_ERR(munlock(p + 508 * 1024, 8192), ENOMEM);
	CHECK_OK(munlockall());
	CHECK_OK(mlockall(MCL_FUTURE));
	CHECK_OK(munlockall());
	set_limit(RLIMIT_MEMLOCK, 0, 0);
	if (!cap) {
		CHECK_ERR(mlock(p, 4096), EPERM);
		CHECK_ERR(map(8192, PROT_READ, MAP_PRIVATE | MAP_LOCKED),
		    EPERM);
		CHECK_ERR(mlockall(MCL_CURRENT), EPERM);
	}
}

static void
on_xfsz(int sig)
{
	(void)sig;
	nxfsz++;
}

static int
fsize_file(void)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/rlim_fsize.%d", dir, (int)getpid());
	fd = (int)CHECK_OK(open(path, O_RDWR | O_CREAT | O_TRUNC, 0600));
	unlink(path);
	return fd;
}

static void
check_fsize(void)
{
	static char buf[8000];
	struct sigaction sa = { .sa_handler = on_xfsz };
	int fd;

	CHECK_OK(sigaction(SIGXFSZ, &sa, NULL));
	set_limit(RLIMIT_FSIZE, 10000, RLIM_INFINITY);
	fd = fsize_file();
	CHECK_EQ(write(fd, buf, 8000), 8000);
	CHECK_EQ(write(fd, buf, 8000), 2000);	/* cut at the limit */
	CHECK_EQ(nxfsz, 0);
	CHECK_EQ(write(fd, buf, 0), 0);
	CHECK_ERR(write(fd, buf, 1), EFBIG);
	CHECK_EQ(nxfsz, 1);
	CHECK_ERR(pwrite(fd, buf, 10, 20000), EFBIG);
	CHECK_EQ(pwrite(fd, buf, 10, 9995), 5);
	CHECK_EQ(nxfsz, 2);
	CHECK_OK(ftruncate(fd, 5000));
	CHECK_OK(ftruncate(fd, 10000));
	CHECK_ERR(ftruncate(fd, 10001), EFBIG);
	CHECK_EQ(nxfsz, 3);
	CHECK_OK(ftruncate(fd, 100));
	CHECK_ERR(fallocate(fd, 0, 0, 20000), EFBIG);
	CHECK_EQ(nxfsz, 4);
	CHECK_OK(fallocate(fd, 0, 0, 10000));
	CHECK_OK(fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 20000));
	CHECK_EQ(nxfsz, 4);
	/* A file that is already bigger may be cut down. */
	CHECK_OK(ftruncate(fd, 9000));
	close(fd);
}

/* With SIGXFSZ at its default, a write past the limit kills. */
static void
fsize_die(void)
{
	int fd = fsize_file();

	set_limit(RLIMIT_CORE, 0, RLIM_INFINITY);
	set_limit(RLIMIT_FSIZE, 100, RLIM_INFINITY);
	CHECK_EQ(pwrite(fd, "x", 1, 100), 1);	/* not reached */
}

/* Touch a page of stack a frame, n frames deep. */
static int __attribute__((noinline))
stack_grow(int n)
{
	volatile char page[4096];

	page[0] = (char)n;
	return n == 0 ? 0 : stack_grow(n - 1) + page[0];
}

/*
 * The stack exec makes stops at RLIMIT_STACK: growing 1 MiB under a
 * limit of 256 KiB dies of SIGSEGV.
 */
static int
check_stack(const char *self)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		set_limit(RLIMIT_CORE, 0, RLIM_INFINITY);
		set_limit(RLIMIT_STACK, 256 * 1024, RLIM_INFINITY);
		execl(self, self, "stackgrow", (char *)NULL);
		_exit(2);
	}
	if (!CHECK(pid > 0, "fork") || !CHECK(waitpid(pid, &st, 0) == pid,
	    "waitpid"))
		return -1;
	return st;
}

int
main(int argc, char **argv)
{
	int st;

	if (argc == 2 && strcmp(argv[1], "stackgrow") == 0)
		return stack_grow(256) < 0 ? 4 : 3;	/* survived */

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "nobody") != 0)
			dir = argv[i];
	if ((st = int_drop_if_asked(argc, argv)) != 0)
		return st;
	check_prlimit();
	CHECK_EQ(in_child(check_as), 0);
	CHECK_EQ(in_child(check_data), 0);
	CHECK_EQ(in_child(check_fsize), 0);
	CHECK_EQ(in_child(check_sigpending), 0);
	CHECK_EQ(in_child(check_memlock), 0);
	st = in_child(fsize_die);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ && !WCOREDUMP(st),
	    "fsize_die: status %#x", st);
	st = check_stack(argv[0]);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	    "stack past RLIMIT_STACK: status %#x", st);
	return guest_done();
}
