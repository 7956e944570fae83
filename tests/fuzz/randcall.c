/*
 * randcall: random system calls with hostile arguments, made inside vkernel
 * to show that no sequence of guest calls crashes it, trips a sanitizer or
 * makes it kill a guest.
 *
 *	randcall [-u] SEED FIRST END
 *
 * Calls FIRST up to END of the sequence SEED names.  Call i's number and
 * arguments depend only on (SEED, i): the table generated from syscalls.tbl
 * says which arguments are descriptors, paths, pointers, sizes or flags,
 * and each gets a value from the class its kind draws on (boundary
 * integers, pointers at page edges and outside the address space,
 * descriptors the worker opened, strings).  Kernel state comes from the
 * calls before i, so "replay" below names the worker's first call too:
 * every worker starts from the same state, as the supervisor removes what
 * the one before left (its processes, /tmp/fz, /dev/shm's entries).
 *
 * A supervisor (this process, which ignores every signal it may) forks a
 * worker that runs the calls.  The worker writes the call it is about to
 * make into shared memory first.  A worker may die of what it did (a
 * SIGSEGV after unmapping its own stack, a SIGXFSZ): the supervisor starts
 * the next one at the call after.  It may block in a call whose wait it
 * made endless (a masked SIGALRM): the supervisor kills it after a few
 * seconds and goes on.  What it may not do is die of SIGKILL nobody sent:
 * the random values never name SIGKILL or SIGSTOP where a call would send
 * them, so such a death is vkernel's, and the run fails naming the call,
 * unless vkernel's OOM killer chose the worker and said so in /dev/kmsg
 * (a worker may fill the sandbox's --mem as any program may).
 *
 * -u: the worker drops to uid and gid 65534 first.  RANDCALL_VERBOSE in
 * the environment: every death by a signal is reported with its call.  The
 * random values never send SIGSEGV or SIGBUS either, so that such a death
 * comes from a fault.
 *
 * Never run this outside vkernel: it refuses unless /proc/version says
 * vkernel.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum fz_kind {
	FZ_ANY, FZ_INT, FZ_FLAGS, FZ_FD, FZ_SIZE, FZ_OFF, FZ_PID, FZ_ID,
	FZ_CLOCK, FZ_PTR, FZ_PATH, FZ_MEM,
};

struct fz_call {
	int nr;
	const char *name;
	unsigned char kind[6];
};

#include "fuzz_table.h"

#define NCALLS	(sizeof(fz_calls) / sizeof(fz_calls[0]))
#define PAGE	4096UL

/* The worker's memory: all of it made before the first call. */
#define BUF_SIZE	(4UL << 20)	/* read and written by calls */
#define VICTIM_SIZE	(8UL << 20)	/* unmapped, remapped, protected */
#define CHILD_STACK	(64UL << 10)

/* What the worker is doing, for the supervisor. */
struct fz_shared {
	volatile uint64_t index;	/* the call being made */
	volatile long nr;
	volatile uint64_t arg[6];
};

static struct fz_shared *shared;
static int in_child;		/* a clone child: it leaves `shared` alone */
static char *buf;		/* BUF_SIZE, rw, random bytes */
static char *edge;		/* a rw page followed by a PROT_NONE page */
static char *victim;		/* VICTIM_SIZE, the address calls on memory use */
static char *stacks;		/* child stacks for clone with CLONE_VM */
static const char *paths[32];	/* in a read-only page, once made */
static int npaths;

static const char *path_names[] = {
	"/tmp/fz", "/tmp/fz/a", "/tmp/fz/b", "/tmp/fz/d", "/tmp/fz/d/e",
	"/tmp/fz/link", "/tmp/fz/fifo", "a", "b", "d", ".", "..", "/", "",
	"/proc/self/fd/3", "/proc/self/maps", "/proc/self/mem", "/proc/1/status",
	"/proc/self/fd", "/dev/null", "/dev/zero", "/dev/full", "/dev/shm",
	"/etc/passwd", "/sys/devices/system/cpu", "/tmp/fz/d/../../fz/a",
};

/* --- Randomness: a function of (seed, index, draw) --- */

struct rng {
	uint64_t s;
};

static uint64_t
rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t
rng_below(struct rng *r, uint64_t n)
{
	return rng_next(r) % n;
}

static const uint64_t boundary[] = {
	0, 1, 2, 3, 7, 8, 16, 63, 64, 255, 256, 4095, 4096, 4097, 65535, 65536,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL, 0x100000001ULL,
	0x10000001bULL, 0xffffffff80000000ULL, 0x7fffffffffffffffULL,
	0x8000000000000000ULL, ~0ULL, ~0ULL - 1, (uint64_t)-4096,
	(uint64_t)-100 /* AT_FDCWD */, 1UL << 40, 1UL << 47, 1UL << 20,
};

/* Addresses where the guest's address space ends and beyond. */
static const uint64_t wild[] = {
	0, 4096, 0x10000, 0x7ffffffff000ULL, 0x7fffffffe000ULL,
	0x7fffffffffffULL, 0x800000000000ULL, 0x7ffffff00000ULL,
	0xffff800000000000ULL, 0xffffffffff600000ULL /* vsyscall */,
	0x0000800000001000ULL, 0xdead0000beef0000ULL, 0x7f0000000000ULL,
};

static uint64_t
arg_int(struct rng *r)
{
	switch (rng_below(r, 4)) {
	case 0:
		return rng_below(r, 32);
	case 1:
		return boundary[rng_below(r, sizeof(boundary) / sizeof(boundary[0]))];
	case 2:
		return (uint64_t)-(int64_t)rng_below(r, 32);
	default:
		return rng_next(r) >> rng_below(r, 64);
	}
}

static uint64_t
arg_ptr(struct rng *r)
{
	switch (rng_below(r, 8)) {
	case 0:
		return 0;
	case 1:
		return wild[rng_below(r, sizeof(wild) / sizeof(wild[0]))] +
		    rng_below(r, 3) * 8;
	case 2:	/* the last bytes before an unmapped page */
		return (uint64_t)(edge + PAGE - 1 - rng_below(r, 64));
	case 3:
		return (uint64_t)victim + rng_below(r, VICTIM_SIZE);
	default:
		return (uint64_t)buf + (rng_below(r, BUF_SIZE) & ~7UL);
	}
}

static uint64_t
arg_mem(struct rng *r)
{
	switch (rng_below(r, 6)) {
	case 0:
		return wild[rng_below(r, sizeof(wild) / sizeof(wild[0]))] -
		    rng_below(r, 4) * PAGE;
	case 1:
		return (uint64_t)victim + rng_below(r, VICTIM_SIZE);
	default:
		return (uint64_t)victim + rng_below(r, VICTIM_SIZE / PAGE) * PAGE;
	}
}

static uint64_t
arg_size(struct rng *r)
{
	switch (rng_below(r, 4)) {
	case 0:
		return rng_below(r, 64);
	case 1:
		return rng_below(r, 4) * PAGE + rng_below(r, 2) * rng_below(r, 64);
	case 2:
		return rng_below(r, 1 << 20);
	default:
		return boundary[rng_below(r, sizeof(boundary) / sizeof(boundary[0]))];
	}
}

static uint64_t
arg_flags(struct rng *r)
{
	uint64_t v = 0;

	switch (rng_below(r, 4)) {
	case 0:
		return 0;
	case 1:		/* a few bits among the usual ones */
		for (unsigned n = rng_below(r, 4) + 1; n > 0; n--)
			v |= 1UL << rng_below(r, 24);
		return v;
	case 2:
		return rng_next(r) & 0xffffffff;
	default:
		return arg_int(r);
	}
}

static uint64_t
arg_of(struct rng *r, int kind)
{
	switch (kind) {
	case FZ_INT:
	case FZ_OFF:
		return arg_int(r);
	case FZ_FLAGS:
		return arg_flags(r);
	case FZ_FD:
		if (rng_below(r, 8) == 0)
			return arg_int(r);
		return rng_below(r, 24);
	case FZ_SIZE:
		return arg_size(r);
	case FZ_PID:
		switch (rng_below(r, 4)) {
		case 0:
			return arg_int(r);
		case 1:
			return 0;	/* the caller, in the calls that allow it */
		default:
			return rng_below(r, 40);
		}
	case FZ_ID:
		return rng_below(r, 2) ? rng_below(r, 3) * 1234 : arg_int(r);
	case FZ_CLOCK:
		return rng_below(r, 2) ? rng_below(r, 16) : arg_int(r);
	case FZ_PTR:
		return arg_ptr(r);
	case FZ_MEM:
		return arg_mem(r);
	case FZ_PATH:
		if (rng_below(r, 8) == 0)
			return arg_ptr(r);
		return (uint64_t)paths[rng_below(r, npaths)];
	default:
		switch (rng_below(r, 4)) {
		case 0:
			return arg_ptr(r);
		case 1:
			return rng_below(r, 24);
		default:
			return arg_int(r);
		}
	}
}

/* --- The calls --- */

static long
raw6(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
    uint64_t a4, uint64_t a5)
{
	register uint64_t r10 __asm__("r10") = a3;
	register uint64_t r8 __asm__("r8") = a4;
	register uint64_t r9 __asm__("r9") = a5;
	long ret;

	__asm__ volatile("syscall"
	    : "=a"(ret)
	    : "0"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r9)
	    : "rcx", "r11", "memory");
	return ret;
}

/*
 * clone and clone3 with any flags: a child that shares the address space
 * (or was given a stack of its own) exits at once in the instruction after
 * the syscall, where neither stack nor TLS is used; any other child comes
 * back as 0 and makes a few calls of its own.
 */
static long
raw_clone(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
    uint64_t a4, int exit_in_child)
{
	register uint64_t r10 __asm__("r10") = a3;
	register uint64_t r8 __asm__("r8") = a4;
	register uint64_t r12 __asm__("r12") = (uint64_t)exit_in_child;
	long ret;

	__asm__ volatile("syscall\n\t"
	    "test %%rax, %%rax\n\t"
	    "jnz 1f\n\t"
	    "test %%r12, %%r12\n\t"
	    "jz 1f\n\t"
	    "mov $60, %%eax\n\t"
	    "xor %%edi, %%edi\n\t"
	    "syscall\n\t"
	    "hlt\n"
	    "1:"
	    : "=a"(ret)
	    : "0"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r12)
	    : "rcx", "r11", "memory");
	return ret;
}

static int
is_fatal_sig(uint64_t v)
{
	int s = (int)v;

	return s == SIGKILL || s == SIGSTOP || s == SIGSEGV || s == SIGBUS;
}

static uint64_t
safe_sig(uint64_t v)
{
	return is_fatal_sig(v) ? 0 : v;
}

static int
in_buf(uint64_t p, size_t n)
{
	/* Unsigned differences: an address near 2^64 must not wrap past. */
	return p >= (uint64_t)buf && p - (uint64_t)buf <= BUF_SIZE - n;
}

/*
 * The worker's SIGALRM, every 20 ms, ends calls that would block: a signal
 * mask in its buffer never blocks it.
 */
static void
keep_alarm(uint64_t set)
{
	if (in_buf(set, 8))
		*(uint64_t *)set &= ~(1ULL << (SIGALRM - 1));
}

/* A sigevent in the worker's buffer must not ask for SIGKILL either. */
static void
safe_sigevent(uint64_t p)
{
	if (in_buf(p, 16) && is_fatal_sig(*(int *)(p + 8)))
		*(int *)(p + 8) = SIGUSR1;
}

/*
 * Makes call `index` and returns 1 when the worker is a clone child that
 * must stop.  Rewrites what would let a call kill or stop the worker
 * (SIGKILL and SIGSTOP as signal numbers, RLIMIT_CPU, exit) into harmless
 * values, so that a SIGKILL seen by the supervisor is vkernel's.
 */
static int
fz_one(uint64_t seed, uint64_t index)
{
	struct rng r = { seed * 0x100000001b3ULL ^ (index + 1) * 0x9e3779b97f4a7c15ULL };
	const struct fz_call *c;
	uint64_t a[6];
	int cont = 0;
	long nr;

	/* One call in 64 is a number outside the table or with high bits. */
	if (rng_below(&r, 64) == 0) {
		static const long odd[] = { -1, 335, 400, 423, 470, 512, 1000,
			0x40000000 | 39, (1L << 32) | 39, 0x7fffffff,
			(long)(~0UL << 20) };

		nr = odd[rng_below(&r, sizeof(odd) / sizeof(odd[0]))];
		c = NULL;
	} else {
		c = &fz_calls[rng_below(&r, NCALLS)];
		nr = c->nr;
	}
	for (int i = 0; i < 6; i++)
		a[i] = arg_of(&r, c != NULL ? c->kind[i] : FZ_ANY);

	switch (nr) {
	case SYS_exit:
	case SYS_exit_group:
	case SYS_rt_sigreturn:
	case SYS_execve:
	case SYS_execveat:
	case SYS_reboot:
		return 0;
	case SYS_mmap:
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_madvise:
	case SYS_msync:
	case SYS_mlock:
	case SYS_munlock:
	case SYS_mlock2:
	case SYS_mincore:
	case SYS_pkey_mprotect:
	case SYS_remap_file_pages:
		a[0] = arg_mem(&r);
		break;
	case SYS_mremap:
		a[0] = arg_mem(&r);
		a[4] = arg_mem(&r);
		break;
	case SYS_brk:
		a[0] = rng_below(&r, 2) ? 0 : arg_mem(&r);
		break;
	case SYS_shmat:
		a[1] = arg_mem(&r);
		break;
	case SYS_kill:
	case SYS_tkill:
	case SYS_rt_sigqueueinfo:
	case SYS_pidfd_send_signal:
		a[1] = safe_sig(a[1]);
		break;
	case SYS_tgkill:
	case SYS_rt_tgsigqueueinfo:
		a[2] = safe_sig(a[2]);
		break;
	case SYS_fcntl:
		if ((int)a[1] == F_SETSIG)
			a[2] = safe_sig(a[2]);
		break;
	case SYS_setrlimit:
	case SYS_getrlimit:
		if ((int)a[0] == RLIMIT_CPU || (int)a[0] == RLIMIT_RTTIME)
			a[0] = RLIMIT_NOFILE;
		break;
	case SYS_prlimit64:
		if ((int)a[1] == RLIMIT_CPU || (int)a[1] == RLIMIT_RTTIME)
			a[1] = RLIMIT_NOFILE;
		break;
	case SYS_timer_create:
		safe_sigevent(a[1]);
		break;
	case SYS_alarm:
		return 0;
	case SYS_setitimer:
		if ((int)a[0] == ITIMER_REAL)
			a[0] = ITIMER_VIRTUAL;
		break;
	case SYS_rt_sigaction:
		if ((int)a[0] == SIGALRM)
			a[0] = SIGUSR2;
		break;
	case SYS_rt_sigprocmask:
	case SYS_rt_sigsuspend:
		keep_alarm(a[1]);
		keep_alarm(a[0]);
		break;
	case SYS_ppoll:
	case SYS_epoll_pwait:
	case SYS_epoll_pwait2:
		keep_alarm(a[3]);
		keep_alarm(a[4]);
		break;
	case SYS_pselect6:
		if (in_buf(a[5], 16))
			keep_alarm(*(uint64_t *)a[5]);
		break;
	case SYS_mq_notify:
		safe_sigevent(a[1]);
		break;
	case SYS_fork:
	case SYS_vfork:
		a[0] = SIGCHLD | (nr == SYS_vfork ? CLONE_VM | CLONE_VFORK : 0);
		a[1] = 0;
		nr = SYS_clone;
		/* FALLTHROUGH */
	case SYS_clone:
		if (in_child)
			return 0;
		if (is_fatal_sig(a[0] & CSIGNAL))
			a[0] = (a[0] & ~(uint64_t)CSIGNAL) | SIGCHLD;
		/* One child in four goes on, on a copy of the worker's stack. */
		cont = rng_below(&r, 4) == 0;
		if (cont) {
			a[0] &= ~(uint64_t)(CLONE_VM | CLONE_SETTLS | CLONE_THREAD |
			    CLONE_SIGHAND | CLONE_VFORK);
			a[1] = 0;
		}
		break;
	case SYS_clone3: {
		struct clone_args *ca = (struct clone_args *)(buf + BUF_SIZE - 256);

		if (in_child)
			return 0;
		memset(ca, 0, sizeof(*ca));
		ca->flags = arg_flags(&r) & ~(uint64_t)CSIGNAL;
		ca->exit_signal = safe_sig(rng_below(&r, 70));
		ca->pidfd = arg_ptr(&r);
		ca->child_tid = arg_ptr(&r);
		ca->parent_tid = arg_ptr(&r);
		ca->stack = (uint64_t)stacks + rng_below(&r, 16) * CHILD_STACK;
		ca->stack_size = rng_below(&r, 2) ? CHILD_STACK : arg_size(&r);
		ca->tls = arg_ptr(&r);
		a[0] = rng_below(&r, 8) ? (uint64_t)ca : arg_ptr(&r);
		a[1] = rng_below(&r, 4) ? sizeof(*ca) : arg_size(&r);
		break;
	}
	}

	if (!in_child) {
		shared->nr = nr;
		for (int i = 0; i < 6; i++)
			shared->arg[i] = a[i];
		shared->index = index;
	}
	if (nr == SYS_clone || nr == SYS_clone3)
		return raw_clone(nr, a[0], a[1], a[2], a[3], a[4], !cont) == 0;
	raw6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	return 0;
}

/* --- The worker --- */

static void
must(int ok, const char *what)
{
	if (!ok) {
		perror(what);
		_exit(100);
	}
}

/*
 * The path strings, a name longer than NAME_MAX and a path longer than
 * PATH_MAX, in pages no call can write.
 */
static void
paths_setup(void)
{
	size_t n = sizeof(path_names) / sizeof(path_names[0]);
	char *p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *q;

	must(p != MAP_FAILED, "mmap");
	q = p;
	for (npaths = 0; (size_t)npaths < n; npaths++) {
		paths[npaths] = strcpy(q, path_names[npaths]);
		q += strlen(q) + 1;
	}
	paths[npaths++] = q;
	q = stpcpy(q, "/tmp/fz/");
	memset(q, 'n', 300);
	q += 301;
	paths[npaths++] = q;
	for (int i = 0; i < 1100; i++)
		q = stpcpy(q, "/d/.");
	q++;
	must(q <= p + 4 * PAGE, "paths");
	must(mprotect(p, 4 * PAGE, PROT_READ) == 0, "mprotect");
}

static void
on_alarm(int sig)
{
	(void)sig;
}


/* The state every worker starts from: memory, descriptors, a timer. */
static void
worker_setup(int unprivileged)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
	int fd, sv[2], p[2];
	sigset_t all;

	/* A guest that is not root (vkernel run as a host user) is already. */
	if (unprivileged && geteuid() == 0) {
		must(setgroups(0, NULL) == 0, "setgroups");
		must(setresgid(65534, 65534, 65534) == 0, "setresgid");
		must(setresuid(65534, 65534, 65534) == 0, "setresuid");
	}
	setsid();
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		if (fd > 1)
			close(fd);
	}
	/* The worker's own stderr goes quiet too; the supervisor keeps its. */
	dup2(0, 2);
	closefrom(3);
	mkdir("/tmp/fz", 01777);
	mkdir("/tmp/fz/d", 0777);
	mkfifo("/tmp/fz/fifo", 0666);
	symlink("a", "/tmp/fz/link");

	/* Descriptors 3-19, in an order each worker repeats. */
	open("/tmp/fz/a", O_RDWR | O_CREAT, 0666);
	open("/tmp/fz", O_RDONLY | O_DIRECTORY);
	if (pipe(p) != 0)
		_exit(100);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	epoll_create1(0);
	eventfd(0, EFD_NONBLOCK);
	timerfd_create(CLOCK_MONOTONIC, 0);
	sigemptyset(&all);
	sigaddset(&all, SIGUSR1);
	signalfd(-1, &all, 0);
	memfd_create("fz", 0);
	open("/dev/null", O_RDWR);
	syscall(SYS_pidfd_open, getpid(), 0);
	socket(AF_INET, SOCK_STREAM, 0);
	socket(AF_NETLINK, SOCK_RAW, 0);
	open("/tmp/fz/b", O_RDWR | O_CREAT | O_APPEND, 0600);

	buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	edge = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	victim = mmap(NULL, VICTIM_SIZE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stacks = mmap(NULL, 16 * CHILD_STACK, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	must(buf != MAP_FAILED && edge != MAP_FAILED && victim != MAP_FAILED &&
	    stacks != MAP_FAILED, "mmap");
	must(mprotect(edge + PAGE, PAGE, PROT_NONE) == 0, "mprotect");
	paths_setup();
	for (size_t i = 0; i < BUF_SIZE / 8; i++)
		((uint64_t *)buf)[i] = i * 0x9e3779b97f4a7c15ULL;

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
}

/*
 * A worker makes at most WORKER_CALLS calls, so that the children it did
 * not wait for go with it.
 */
#define WORKER_CALLS	20000

static void
worker(uint64_t seed, uint64_t first, uint64_t end, int unprivileged)
{
	uint64_t i;

	worker_setup(unprivileged);
	for (i = first; i < end && i - first < WORKER_CALLS; i++) {
		if (fz_one(seed, i)) {
			/* A child: a few calls of its own, then gone. */
			in_child = 1;
			for (uint64_t j = 1; j <= 16; j++)
				fz_one(seed ^ 0x5a5a, i + j);
			raw6(SYS_exit_group, 0, 0, 0, 0, 0, 0);
		}
	}
	shared->index = i - 1;
	raw6(SYS_exit_group, 0, 0, 0, 0, 0, 0);
}

/* --- The supervisor --- */

/*
 * Removes path and all below it.  A directory a call made unreadable is
 * opened up first; what cannot go (a mount point) stays.
 */
static void
rm_tree(const char *path)
{
	struct dirent *e;
	struct stat st;
	char sub[4096];
	DIR *d;

	if (lstat(path, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	chmod(path, 0700);
	if ((d = opendir(path)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path,
			    e->d_name) < sizeof(sub))
				rm_tree(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

/*
 * The System V IPC objects listed in /proc/sysvipc/NAME (the id is each
 * line's second field) go, as "ipcrm --all" would: they outlive the
 * processes that made them, and a segment's pages stay charged.
 */
static void
rm_sysvipc(const char *name, long nr, int cmd_arg)
{
	char path[64], line[512];
	FILE *f;
	int id;

	snprintf(path, sizeof(path), "/proc/sysvipc/%s", name);
	if ((f = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%*d %d", &id) == 1) {
			if (cmd_arg)
				syscall(nr, id, 0, 0 /* IPC_RMID */, 0);
			else
				syscall(nr, id, 0 /* IPC_RMID */, 0);
		}
	fclose(f);
}

/*
 * What a worker leaves behind goes before the next starts: the processes
 * it forked (one blocked where no timer wakes it lives on, with the
 * worker's memory), the files it made in /tmp/fz and /dev/shm, its
 * System V IPC objects and POSIX message queues.  Each
 * worker then starts from the same state whatever its predecessors did,
 * so that a replay from its first call makes the same calls on the same
 * kernel state, and a long run does not fill the sandbox's memory.
 */
static void
clean_up(void)
{
	struct dirent *e;
	char sub[300];
	DIR *d;

	kill(-1, SIGKILL);
	while (wait(NULL) > 0)
		;
	rm_tree("/tmp/fz");
	rm_sysvipc("shm", SYS_shmctl, 0);
	rm_sysvipc("sem", SYS_semctl, 1);
	rm_sysvipc("msg", SYS_msgctl, 0);
	for (int i = 0; i < 2; i++) {
		const char *dir = i == 0 ? "/dev/shm" : "/dev/mqueue";

		if ((d = opendir(dir)) == NULL)
			continue;
		while ((e = readdir(d)) != NULL)
			if (strcmp(e->d_name, ".") != 0 &&
			    strcmp(e->d_name, "..") != 0) {
				snprintf(sub, sizeof(sub), "%s/%s", dir,
				    e->d_name);
				rm_tree(sub);
			}
		closedir(d);
	}
}

/*
 * Whether the OOM killer chose pid: its "Killed process PID " record in
 * /dev/kmsg, which a reader opened anew gets from the start.
 */
static int
oom_killed(pid_t pid)
{
	char rec[1024], want[64];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK), found = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	snprintf(want, sizeof(want), "Killed process %d ", (int)pid);
	/* EPIPE: records were overwritten; the read after goes on. */
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 &&
	    errno == EPIPE))
		if (n > 0) {
			rec[n] = '\0';
			found |= strstr(rec, want) != NULL;
		}
	close(fd);
	return found;
}

static const char *
call_name(long nr)
{
	for (size_t i = 0; i < NCALLS; i++)
		if (fz_calls[i].nr == nr)
			return fz_calls[i].name;
	return "?";
}

static void
report(const char *what, uint64_t seed, uint64_t start, int unprivileged)
{
	fprintf(stderr, "randcall: %s at call %lu: %s(%ld)(%#lx, %#lx, %#lx, "
	    "%#lx, %#lx, %#lx)\nreplay: randcall %s%lu %lu %lu\n", what,
	    (unsigned long)shared->index, call_name(shared->nr), shared->nr,
	    (unsigned long)shared->arg[0], (unsigned long)shared->arg[1],
	    (unsigned long)shared->arg[2], (unsigned long)shared->arg[3],
	    (unsigned long)shared->arg[4], (unsigned long)shared->arg[5],
	    unprivileged ? "-u " : "", (unsigned long)seed,
	    (unsigned long)start, (unsigned long)shared->index + 1);
}

static int
in_vkernel(void)
{
	char v[256] = "";
	FILE *f = fopen("/proc/version", "r");

	if (f == NULL)
		return 0;
	if (fgets(v, sizeof(v), f) == NULL)
		v[0] = '\0';
	fclose(f);
	return strstr(v, "(vkernel)") != NULL;
}

int
main(int argc, char **argv)
{
	/* The kernel's struct sigaction: SIG_IGN needs no restorer. */
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		uint64_t mask;
	} ign = { .handler = SIG_IGN };
	uint64_t seed, first, end, start;
	unsigned long workers = 0, hangs = 0, ooms = 0, bad = 0;
	unsigned long bysig[65] = { 0 };
	int unprivileged = 0, verbose = getenv("RANDCALL_VERBOSE") != NULL;

	if (argc > 1 && strcmp(argv[1], "-u") == 0) {
		unprivileged = 1;
		argc--;
		argv++;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: randcall [-u] SEED FIRST END\n");
		return 2;
	}
	if (!in_vkernel()) {
		fprintf(stderr, "randcall: runs only inside vkernel\n");
		return 2;
	}
	seed = strtoull(argv[1], NULL, 0);
	first = strtoull(argv[2], NULL, 0);
	end = strtoull(argv[3], NULL, 0);
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	must(shared != MAP_FAILED, "mmap");
	/*
	 * The raw call: glibc's refuses the two signals it keeps for itself
	 * (32 and 33), which a worker's kill(-1, ...) sends too.
	 */
	for (int s = 1; s < 65; s++)
		if (s != SIGKILL && s != SIGSTOP && s != SIGCHLD)
			raw6(SYS_rt_sigaction, s, (uint64_t)&ign, 0, 8, 0, 0);
	signal(SIGCHLD, SIG_DFL);

	for (start = first; start < end;) {
		uint64_t last = start, stuck = 0;
		int status = 0, killed = 0;
		pid_t pid, w;

		clean_up();
		shared->index = start;
		shared->nr = -1;
		pid = fork();
		must(pid >= 0, "fork");
		if (pid == 0)
			worker(seed, start, end, unprivileged);
		workers++;
		/* Reap everything; watch the worker for progress. */
		for (;;) {
			w = waitpid(-1, &status, WNOHANG);
			if (w == pid)
				break;
			if (w > 0)
				continue;
			usleep(20000);
			if (shared->index != last) {
				last = shared->index;
				stuck = 0;
			} else if (++stuck == 50 && !killed) {
				kill(pid, SIGKILL);
				killed = 1;
			}
		}
		if (killed) {
			hangs++;
			if (hangs <= 5)
				report("hang", seed, start, unprivileged);
		} else if (WIFSIGNALED(status)) {
			bysig[WTERMSIG(status)]++;
			if (verbose)
				report(strsignal(WTERMSIG(status)), seed, start,
				    unprivileged);
			if (WTERMSIG(status) == SIGKILL && oom_killed(pid)) {
				ooms++;
			} else if (WTERMSIG(status) == SIGKILL) {
				report("killed by SIGKILL", seed, start,
				    unprivileged);
				bad++;
			}
		} else if (WEXITSTATUS(status) == 100) {
			fprintf(stderr, "randcall: a worker could not start\n");
			return 1;
		}
		start = shared->index + 1;
	}
	clean_up();
	fprintf(stderr, "randcall: seed %lu calls [%lu, %lu): %lu workers, "
	    "%lu hangs, %lu killed for memory, deaths by signal:",
	    (unsigned long)seed, (unsigned long)first, (unsigned long)end,
	    workers, hangs, ooms);
	for (int s = 1; s < 65; s++)
		if (bysig[s] != 0)
			fprintf(stderr, " %d:%lu", s, bysig[s]);
	fprintf(stderr, "\n");
	return bad != 0;
}
