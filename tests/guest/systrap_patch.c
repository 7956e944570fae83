/*
 * Syscall sites "mov $NR, %eax; syscall" as the systrap platform patches
 * them, each checked for what Linux does (the program passes natively
 * too).  The sites are this program's own, written in assembly, so that
 * both libcs have the same.  argv[1] is the mode:
 *   race      threads started together call a gettid and a getppid site
 *             of one page while they are patched (the second in a page
 *             the threads run from, private already), each must get its
 *             own tid and the parent every time; a call made
 *             at the old syscall instruction (a thread that ran the mov
 *             before the patch) still runs the call
 *   fork      a patched site called again in a forked child
 *   rewrite   the program makes its text writable, writes another call
 *             over a patched site and runs it: the new call runs, then
 *             again once the text is read-only
 *   readself  after the sites ran, /proc/self/exe and a new mapping of
 *             it hold the original bytes
 *   signal    a thread blocked in read() at a patched site, signalled:
 *             its handler runs, then EINTR without SA_RESTART, the read
 *             restarted with it
 *   gs        with a GS base of its own (a block of its memory, one
 *             whose words all hold an address in the stub's range, and
 *             a page it unmapped), the sites still answer and the blocks
 *             are untouched: the trampoline takes its area from GS only
 *             when it is one
 *   patched   a site called often enough holds a patch in memory (the
 *             jump "ff 24 25"): prints "site: patched", or "site:
 *             original" where its bytes are the program's own
 *   sigstorm  a thread calls patched sites without pause while queued
 *             signals interrupt it wherever it is (in the trampoline
 *             too): every one handled, every call right, the registers
 *             of the regs sites kept
 *   jump      children jump into the patching's table, slot entries and
 *             every byte of the stub's trampoline with registers of their
 *             own: each ends (a signal, or back as from a call vkernel
 *             served) and vkernel goes on
 *   cold      a site called a few times only, as most of a program's
 *             start-up is, keeps its bytes in memory: a patch would cost
 *             a private copy of the page for nothing
 *   mapover   after the sites (and libc's getppid) ran hot, children
 *             take the patching's range with munmap, mremap and shmat,
 *             then the program maps data of its own there (MAP_FIXED)
 *             while threads call the sites: the mapping is its own, the
 *             sites hold their original bytes and answer right, code of
 *             its own runs there, a forked child sees the data, an exec
 *             maps over it again, munmap frees it
 *   blockcpu  a thread blocked in read() of an empty pipe at a patched
 *             site, woken every 2 ms, uses little CPU time for each read
 *             (below BLOCK_CPU_US): a patched call that blocks sleeps at
 *             once, as a trapped one does, without spinning first
 *   regs      calls at patched sites that need more of the caller's
 *             registers than its first five arguments, made with rbx,
 *             rbp, r12-r15 and the carry flag set to values of its own,
 *             which must come back (and rsp): a six-argument mmap (the
 *             offset in r9), kill of itself (the handler's frame must
 *             hold those registers and r9), fork (the child returns
 *             through them), sigaltstack on the alternate stack (it must
 *             say SS_ONSTACK, from rsp), a read stopped and continued
 *             in a child, and execve of itself, after failed ones at the
 *             same site (the new image must start with its own stack:
 *             mode regs-exec checks its arguments)
 *   tablecall set_mempolicy (a call vkernel's table answers itself, whose
 *             six arguments --strace shows) at a site, r9 counting the
 *             calls: the test wants the last, patched, traced with its
 *             r9 (0x27), not a register left out
 * A second argument "nobody" drops to uid and gid 65534 first when it
 * starts as root.
 * Exits 0 when all is right.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <asm/prctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define STUB_BASE        0x7ffb00000000UL
#define STUB_TRAMP       (STUB_BASE + 0xa00)
#define STUB_TRAMP_LIMIT (STUB_BASE + 0xc80)
#define PATCH_BASE       0x7f060000UL
#define PATCH_CODE       (PATCH_BASE + 0x2000)
#define PATCH_SLOTS      1024
#define PATCH_SIZE       0x8000

/* The sites, each "mov $NR, %eax; syscall; ret", and a marker. */
long site_gettid(void);
long site_getpid(void);
long site_getppid(void);
long site_read(int fd, void *buf, size_t n);
long site_rw(void);
long site_cold(void);
__asm__(".text\n"
    ".globl site_gettid\nsite_gettid:\n\tmov $186, %eax\n\tsyscall\n\tret\n"
    ".globl site_getpid\nsite_getpid:\n\tmov $39, %eax\n\tsyscall\n\tret\n"
    "\t.ascii \"vkpatch-getpid\"\n"
    ".globl site_getppid\nsite_getppid:\n\tmov $110, %eax\n\tsyscall\n\tret\n"
    ".globl site_read\nsite_read:\n\tmov $0, %eax\n\tsyscall\n\tret\n"
    ".globl site_cold\nsite_cold:\n\tmov $110, %eax\n\tsyscall\n\tret\n"
    "\t.balign 4096\n"
    ".globl site_rw\nsite_rw:\n\tmov $39, %eax\n\tsyscall\n\tret\n"
    "\t.balign 4096\n");

/*
 * Sites called like functions of six arguments (the fourth moved to r10)
 * that give the call rbx, rbp, r12-r15 and the carry flag of their own
 * and count in regs_bad whatever did not come back as it went (rsp too).
 */
#define R_BX  0x1b1b1b1b1b1b1b1bUL
#define R_BP  0x2b2b2b2b2b2b2b2bUL
#define R_12  0x3c3c3c3c3c3c3c3cUL
#define R_13  0x4d4d4d4d4d4d4d4dUL
#define R_14  0x5e5e5e5e5e5e5e5eUL
#define R_15  0x6f6f6f6f6f6f6f6fUL
#define STR_(x) #x
#define STR(x) STR_(x)
long regsite_mmap(long, long, long, long, long, long);
long regsite_kill(long, long, long, long, long, long);
long regsite_fork(long, long, long, long, long, long);
long regsite_sigaltstack(long, long, long, long, long, long);
long regsite_execve(long, long, long, long, long, long);
long regsite_getpid(long, long, long, long, long, long);
long regsite_read(long, long, long, long, long, long);
long regsite_mempolicy(long, long, long, long, long, long);
volatile long regs_bad;
uint64_t regsite_rsp;
__asm__(".macro regsite name, nr\n"
    ".globl \\name\n\\name:\n"
    "\tpush %rbx\n\tpush %rbp\n\tpush %r12\n\tpush %r13\n"
    "\tpush %r14\n\tpush %r15\n"
    "\tmov %rsp, regsite_rsp(%rip)\n"
    "\tmov %rcx, %r10\n"
    "\tmovabs $" STR(R_BX) ", %rbx\n"
    "\tmovabs $" STR(R_BP) ", %rbp\n"
    "\tmovabs $" STR(R_12) ", %r12\n"
    "\tmovabs $" STR(R_13) ", %r13\n"
    "\tmovabs $" STR(R_14) ", %r14\n"
    "\tmovabs $" STR(R_15) ", %r15\n"
    "\tstc\n"
    "\tmov $\\nr, %eax\n\tsyscall\n"
    "\tjnc 1f\n"
    "\tcmp regsite_rsp(%rip), %rsp\n\tjne 1f\n"
    "\tmovabs $" STR(R_BX) ", %rcx\n\tcmp %rcx, %rbx\n\tjne 1f\n"
    "\tmovabs $" STR(R_BP) ", %rcx\n\tcmp %rcx, %rbp\n\tjne 1f\n"
    "\tmovabs $" STR(R_12) ", %rcx\n\tcmp %rcx, %r12\n\tjne 1f\n"
    "\tmovabs $" STR(R_13) ", %rcx\n\tcmp %rcx, %r13\n\tjne 1f\n"
    "\tmovabs $" STR(R_14) ", %rcx\n\tcmp %rcx, %r14\n\tjne 1f\n"
    "\tmovabs $" STR(R_15) ", %rcx\n\tcmp %rcx, %r15\n\tjne 1f\n"
    "\tjmp 2f\n"
    "1:\tlock incq regs_bad(%rip)\n"
    "2:\tpop %r15\n\tpop %r14\n\tpop %r13\n\tpop %r12\n"
    "\tpop %rbp\n\tpop %rbx\n\tret\n"
    ".endm\n"
    "regsite regsite_mmap, 9\n"
    "regsite regsite_kill, 62\n"
    "regsite regsite_fork, 57\n"
    "regsite regsite_sigaltstack, 131\n"
    "regsite regsite_execve, 59\n"
    "regsite regsite_getpid, 39\n"
    "regsite regsite_read, 0\n"
    "regsite regsite_mempolicy, 238\n");

static const uint8_t getpid_bytes[] = {
	0xb8, 39, 0, 0, 0, 0x0f, 0x05, 0xc3,
	'v', 'k', 'p', 'a', 't', 'c', 'h', '-', 'g', 'e', 't', 'p', 'i', 'd',
};

/* Calls that make a site hot enough to be patched (16 traps), and more. */
#define HOT 40

static int fails;

#define CHECK(c, ...)                                                   \
	do {                                                            \
		if (!(c)) {                                             \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                   \
			fprintf(stderr, "\n");                          \
			fails++;                                        \
		}                                                       \
	} while (0)

/* Call addr with rax = nr, as a thread that ran a site's mov would. */
static long
call_rax(uint64_t addr, long nr, long a0)
{
	long r;

	__asm__ volatile("call *%[addr]"
	    : "=a"(r)
	    : [addr] "r"(addr), "0"(nr), "D"(a0)
	    : "rcx", "r11", "rsi", "rdx", "r8", "r9", "r10", "memory");
	return r;
}

/* --- race --- */

#define NTHREADS 6
#define NCALLS   20000

static pthread_barrier_t start;

static void *
racer(void *arg)
{
	long tid = syscall(SYS_gettid), ppid = getppid(), bad = 0;

	(void)arg;
	pthread_barrier_wait(&start);
	for (int i = 0; i < NCALLS; i++)
		if (site_gettid() != tid || site_getppid() != ppid)
			bad++;
	return (void *)bad;
}

static void
race(void)
{
	pthread_t t[NTHREADS];

	pthread_barrier_init(&start, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, racer, NULL);
	for (int i = 0; i < NTHREADS; i++) {
		void *bad;

		pthread_join(t[i], &bad);
		CHECK(bad == NULL, "thread %d: %ld calls not its tid", i,
		    (long)bad);
	}
	/* Patched now, if it is; the old syscall instruction still calls. */
	for (int i = 0; i < HOT; i++)
		CHECK(site_getpid() == getpid(), "getpid site");
	CHECK(call_rax((uint64_t)site_getpid + 5, SYS_getpid, 0) == getpid(),
	    "a call from the old syscall instruction");
	CHECK(call_rax((uint64_t)site_getpid + 5, SYS_getppid, 0) ==
	    getppid(), "the old syscall instruction runs rax's call");
}

/* --- fork --- */

static void
forked(void)
{
	pid_t child;
	int st;

	for (int i = 0; i < HOT; i++)
		CHECK(site_getpid() == getpid(), "getpid site");
	child = fork();
	if (child == 0) {
		pid_t me = getpid();

		for (int i = 0; i < 1000; i++)
			if (site_getpid() != me || site_getppid() == me)
				_exit(1);
		_exit(0);
	}
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "child: status %#x", st);
	CHECK(site_getpid() == getpid(), "getpid site after fork");
}

/* --- rewrite --- */

static void
rewrite(void)
{
	static const uint8_t ppid[] = { 0xb8, 110, 0, 0, 0, 0x0f, 0x05 };
	uint8_t *page = (uint8_t *)((uintptr_t)site_rw & ~4095UL);

	for (int i = 0; i < HOT; i++)
		CHECK(site_rw() == getpid(), "site before");
	CHECK(mprotect(page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC) == 0,
	    "mprotect rwx: %s", strerror(errno));
	memcpy((uint8_t *)site_rw, ppid, sizeof(ppid));
	__builtin___clear_cache((char *)page, (char *)page + 4096);
	for (int i = 0; i < 3; i++)
		CHECK(site_rw() == getppid(), "rewritten site, writable");
	CHECK(mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0,
	    "mprotect rx: %s", strerror(errno));
	for (int i = 0; i < 5; i++)
		CHECK(site_rw() == getppid(), "rewritten site, read-only");
}

/* --- readself --- */

/* The offset of the getpid site's bytes in the file, or -1. */
static long
file_find(const uint8_t *file, size_t n)
{
	for (size_t i = 0; i + sizeof(getpid_bytes) <= n; i++)
		if (memcmp(file + i, getpid_bytes, sizeof(getpid_bytes)) == 0)
			return (long)i;
	return -1;
}

static uint8_t *
file_read(size_t *np)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	size_t cap = 1 << 20, n = 0;
	uint8_t *b = malloc(cap);
	ssize_t r;

	if (fd < 0)
		return NULL;
	while ((r = read(fd, b + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap)
			b = realloc(b, cap *= 2);
	}
	close(fd);
	*np = n;
	return b;
}

static void
readself(void)
{
	size_t n = 0;
	uint8_t *file;
	long off = -1;
	int fd;
	void *m;

	for (int i = 0; i < HOT; i++)
		CHECK(site_getpid() == getpid(), "getpid site");
	file = file_read(&n);
	if (file != NULL)
		off = file_find(file, n);
	CHECK(off >= 0, "the site's original bytes in /proc/self/exe");
	fd = open("/proc/self/exe", O_RDONLY);
	m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED && file_find(m, n) >= 0,
	    "the original bytes in a new mapping of the file");
	close(fd);
	free(file);
}

/* --- signal --- */

static int pipefd[2];
static volatile long got;
static volatile int handled;

static void
on_usr1(int sig)
{
	(void)sig;
	handled++;
}

static void *
reader(void *arg)
{
	char c;

	(void)arg;
	got = site_read(pipefd[0], &c, 1);
	return NULL;
}

/* A thread blocked in read() at the site, signalled; restart or not. */
static void
signal_one(bool restart)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	int before = handled;
	pthread_t t;

	sa.sa_flags = restart ? SA_RESTART : 0;
	sigaction(SIGUSR1, &sa, NULL);
	got = -1000;
	pthread_create(&t, NULL, reader, NULL);
	usleep(100000);
	pthread_kill(t, SIGUSR1);
	usleep(100000);
	if (restart) {
		CHECK(got == -1000, "restarted read returned %ld", got);
		CHECK(write(pipefd[1], "x", 1) == 1, "write");
	}
	pthread_join(t, NULL);
	CHECK(got == (restart ? 1 : -EINTR), "read at the site: %ld", got);
	CHECK(handled == before + 1, "the handler ran %d times",
	    handled - before);
}

static void
signals(void)
{
	char c;

	CHECK(pipe(pipefd) == 0, "pipe");
	/* Patched by the first calls. */
	for (int i = 0; i < HOT; i++) {
		CHECK(write(pipefd[1], "a", 1) == 1, "write");
		CHECK(site_read(pipefd[0], &c, 1) == 1, "read");
	}
	signal_one(false);
	signal_one(true);
	signal_one(false);
}

/* --- regs --- */

#define REG_R9_KILL 0x7a7a7a7a7a7a7a7aL

static volatile int regs_handled;
static volatile int regs_frame_bad;
static volatile int onstack_calls, onstack_bad;

/* The frame of a kill made at its site holds the site's registers. */
static void
on_regs(int sig, siginfo_t *si, void *ucv)
{
	const greg_t *g = ((ucontext_t *)ucv)->uc_mcontext.gregs;

	(void)sig;
	(void)si;
	regs_handled++;
	if ((uint64_t)g[REG_RBX] != R_BX || (uint64_t)g[REG_RBP] != R_BP ||
	    (uint64_t)g[REG_R12] != R_12 || (uint64_t)g[REG_R13] != R_13 ||
	    (uint64_t)g[REG_R14] != R_14 || (uint64_t)g[REG_R15] != R_15 ||
	    g[REG_R9] != REG_R9_KILL || !(g[REG_EFL] & 1) ||
	    (uint64_t)g[REG_RSP] != regsite_rsp)
		regs_frame_bad++;
}

/* On the alternate stack: sigaltstack must say so, from rsp. */
static void
on_alt(int sig)
{
	(void)sig;
	for (int i = 0; i < HOT; i++) {
		stack_t old;

		onstack_calls++;
		if (regsite_sigaltstack(0, (long)&old, 0, 0, 0, 0) != 0 ||
		    old.ss_flags != SS_ONSTACK)
			onstack_bad++;
	}
}

/*
 * A child blocked in read() at a hot site is stopped and continued: the
 * call starts again from its registers, then returns with the data.
 */
static void
stopped_read(void)
{
	int p[2], st;
	char c;
	pid_t pid;

	CHECK(pipe(p) == 0, "pipe");
	for (int i = 0; i < HOT; i++) {
		CHECK(write(p[1], "a", 1) == 1, "write");
		CHECK(regsite_read(p[0], (long)&c, 1, 0, 0, 0) == 1, "read");
	}
	if ((pid = fork()) == 0) {
		long n = regsite_read(p[0], (long)&c, 1, 0, 0, 0);

		_exit(n == 1 && c == 'z' && regs_bad == 0 ? 0 : 3);
	}
	CHECK(pid > 0, "fork");
	usleep(100000);
	CHECK(kill(pid, SIGSTOP) == 0, "SIGSTOP");
	CHECK(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st),
	    "stopped (status %#x)", st);
	CHECK(kill(pid, SIGCONT) == 0, "SIGCONT");
	usleep(100000);
	CHECK(write(p[1], "z", 1) == 1, "write");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "the read after the stop (status %#x)", st);
	close(p[0]);
	close(p[1]);
	CHECK(regs_bad == 0, "read: %ld registers lost", regs_bad);
}

static void
regs(const char *self)
{
	struct sigaction sa = { .sa_sigaction = on_regs,
		.sa_flags = SA_SIGINFO };
	static char alt[65536];
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof(alt) };
	int fd = memfd_create("regs", 0);
	char page[4096];
	long bad;

	/* mmap's offset is its sixth argument, in r9. */
	CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	for (int k = 0; k < 2; k++) {
		memset(page, 'A' + k, sizeof(page));
		CHECK(write(fd, page, sizeof(page)) == sizeof(page), "write");
	}
	for (int i = 0; i < HOT; i++) {
		long m = regsite_mmap(0, 4096, PROT_READ, MAP_SHARED, fd,
		    4096);

		CHECK(m > 0 && (m & 4095) == 0, "mmap: %ld", m);
		if (m > 0 && (m & 4095) == 0) {
			CHECK(*(char *)m == 'B', "mmap at offset 4096 "
			    "maps '%c'", *(char *)m);
			munmap((void *)m, 4096);
		}
	}
	close(fd);
	CHECK(regs_bad == 0, "mmap: %ld registers lost", regs_bad);

	/* A signal delivered as the call returns: the frame, and back. */
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < HOT; i++)
		CHECK(regsite_kill(getpid(), SIGUSR1, 0, 0, 0,
		    REG_R9_KILL) == 0, "kill");
	CHECK(regs_handled == HOT, "%d of %d handled", regs_handled, HOT);
	CHECK(regs_frame_bad == 0, "%d frames without the site's registers",
	    regs_frame_bad);
	CHECK(regs_bad == 0, "kill: %ld registers lost", regs_bad);

	/* A child returns from fork through the site's registers. */
	for (int i = 0; i < HOT; i++) {
		long pid = regsite_fork(0, 0, 0, 0, 0, 0);
		int st;

		if (pid == 0)
			_exit(regs_bad == 0 ? 0 : 3);
		CHECK(pid > 0, "fork: %ld", pid);
		CHECK(waitpid((pid_t)pid, &st, 0) == pid && WIFEXITED(st) &&
		    WEXITSTATUS(st) == 0, "the child's registers (status "
		    "%#x)", st);
	}
	CHECK(regs_bad == 0, "fork: %ld registers lost", regs_bad);

	CHECK(sigaltstack(&ss, NULL) == 0, "sigaltstack");
	sa = (struct sigaction){ .sa_handler = on_alt, .sa_flags = SA_ONSTACK };
	sigaction(SIGUSR2, &sa, NULL);
	raise(SIGUSR2);
	CHECK(onstack_calls == HOT && onstack_bad == 0,
	    "%d of %d sigaltstack calls on the stack did not say so",
	    onstack_bad, onstack_calls);
	CHECK(regs_bad == 0, "sigaltstack: %ld registers lost", regs_bad);

	stopped_read();

	/* The same execve site fails until it is hot, then runs. */
	bad = regs_bad;
	for (int i = 0; i < HOT; i++) {
		char *argv[] = { "none", NULL };

		CHECK(regsite_execve((long)"/nonexistent/regs", (long)argv, 0,
		    0, 0, 0) == -ENOENT, "execve of nothing");
	}
	CHECK(regs_bad == bad, "execve: %ld registers lost", regs_bad - bad);
	if (fails == 0) {
		char *argv[] = { (char *)self, "regs-exec", "x", NULL };

		regsite_execve((long)"/proc/self/exe", (long)argv, 0, 0, 0, 0);
		CHECK(0, "execve: %s", strerror(errno));
	}
}

/* MPOL_DEFAULT with no node mask, harmless natively; r9 the call's index. */
static void
tablecall(void)
{
	for (long i = 0; i < HOT; i++)
		(void)regsite_mempolicy(0, 0, 0, 0, 0, i);
	CHECK(HOT - 1 == 0x27, "the test wants 0x27 last");
	CHECK(regs_bad == 0, "set_mempolicy: %ld registers lost", regs_bad);
}

/* The image regs exec'd: its stack and arguments its own. */
static void
regs_exec(int argc, char **argv)
{
	CHECK(argc == 3 && strcmp(argv[2], "x") == 0, "argv after exec");
}

/* --- gs --- */

/* The sites called with GS at base, whose block of n words is fill. */
static void
gs_calls(void *base, const uint64_t *block, size_t n, uint64_t fill,
    const char *what)
{
	uint64_t got_base = 0;

	CHECK(syscall(SYS_arch_prctl, ARCH_SET_GS, base) == 0,
	    "ARCH_SET_GS (%s): %s", what, strerror(errno));
	for (int i = 0; i < 100; i++) {
		CHECK(site_getpid() == getpid(), "getpid site, GS %s", what);
		CHECK(site_gettid() == syscall(SYS_gettid),
		    "gettid site, GS %s", what);
	}
	CHECK(syscall(SYS_arch_prctl, ARCH_GET_GS, &got_base) == 0 &&
	    got_base == (uint64_t)base, "ARCH_GET_GS (%s): %#lx", what,
	    (unsigned long)got_base);
	for (size_t i = 0; i < n; i++)
		if (block[i] != fill) {
			CHECK(0, "the GS block (%s) changed at %zu", what, i * 8);
			break;
		}
}

static void
gs_own(void)
{
	static uint64_t block[512];
	const uint64_t stub = STUB_BASE + 0x10000 + 8;   /* not an area's */
	void *gone;

	/* Warm: the sites are patched before GS changes, where they are. */
	for (int i = 0; i < HOT; i++)
		CHECK(site_getpid() == getpid() &&
		    site_gettid() == syscall(SYS_gettid), "sites, GS 0");
	memset(block, 0xa5, sizeof(block));
	gs_calls(block, block, 512, 0xa5a5a5a5a5a5a5a5ULL, "a block");
	/* Every word an address in the areas, not an area's: the same. */
	for (size_t i = 0; i < 512; i++)
		block[i] = stub;
	gs_calls(block, block, 512, stub, "stub words");
	gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(gone != MAP_FAILED && munmap(gone, 4096) == 0, "a page gone");
	gs_calls(gone, NULL, 0, 0, "unmapped");
	CHECK(syscall(SYS_arch_prctl, ARCH_SET_GS, 0) == 0, "GS back to 0");
	for (int i = 0; i < 100; i++)
		CHECK(site_getpid() == getpid(), "getpid site, GS 0");
}

/* --- patched --- */

static void
patched(void)
{
	static const uint8_t jmp[] = { 0xff, 0x24, 0x25 };
	const uint8_t *at = (const uint8_t *)(uintptr_t)site_getpid;

	for (int i = 0; i < HOT; i++)
		CHECK(site_getpid() == getpid(), "getpid site");
	if (memcmp(at, getpid_bytes, 7) == 0)
		printf("site: original\n");
	else if (memcmp(at, jmp, sizeof(jmp)) == 0)
		printf("site: patched\n");
	else
		CHECK(0, "the site holds %02x %02x %02x %02x %02x %02x %02x",
		    at[0], at[1], at[2], at[3], at[4], at[5], at[6]);
}

/* --- sigstorm --- */

#define NSIGS 1000

static volatile int stop, rt_handled;
static volatile long hammer_tid;

static void
on_rt(int sig)
{
	(void)sig;
	rt_handled++;
}

static void *
hammer(void *arg)
{
	long pid = getpid(), bad = 0;

	(void)arg;
	hammer_tid = syscall(SYS_gettid);
	while (!stop)
		if (site_getpid() != pid ||
		    regsite_getpid(0, 0, 0, 0, 0, 0) != pid)
			bad++;
	return (void *)bad;
}

static void
sigstorm(void)
{
	struct sigaction sa = { .sa_handler = on_rt };
	pthread_t t;
	void *bad;

	sigaction(SIGRTMIN, &sa, NULL);
	pthread_create(&t, NULL, hammer, NULL);
	while (hammer_tid == 0)
		sched_yield();
	for (int i = 0; i < NSIGS; i++) {
		siginfo_t si = { .si_signo = SIGRTMIN, .si_code = SI_QUEUE };

		/* Queued, never more than a few pending. */
		while (i - rt_handled > 8)
			sched_yield();
		si.si_pid = getpid();
		syscall(SYS_rt_tgsigqueueinfo, getpid(), hammer_tid, SIGRTMIN,
		    &si);
	}
	while (rt_handled < NSIGS)
		sched_yield();
	stop = 1;
	pthread_join(t, &bad);
	CHECK(bad == NULL, "%ld calls wrong", (long)bad);
	CHECK(regs_bad == 0, "%ld calls lost registers", regs_bad);
	CHECK(rt_handled == NSIGS, "%d of %d signals handled", rt_handled,
	    NSIGS);
}

/* --- cold --- */

static void
cold(void)
{
	static const uint8_t ppid[] = { 0xb8, 110, 0, 0, 0, 0x0f, 0x05 };

	for (int i = 0; i < 3; i++)
		CHECK(site_cold() == getppid(), "getppid site");
	CHECK(memcmp((const void *)site_cold, ppid, sizeof(ppid)) == 0,
	    "a site called three times was rewritten");
}

/* --- jump --- */

static void
on_fault(int sig)
{
	(void)sig;
	_exit(0);
}

/*
 * A child that jumps to addr with registers of its own: it must end, by
 * a signal or by its fault handler, or come back as from a call of the
 * guest's (served by vkernel: the filter lets no other run there), and
 * vkernel must go on.
 */
static void
jump_one(uint64_t addr, uint32_t eax)
{
	pid_t child = fork();
	int st;

	if (child == 0) {
		signal(SIGSEGV, on_fault);
		signal(SIGILL, on_fault);
		signal(SIGTRAP, on_fault);
		signal(SIGBUS, on_fault);
		alarm(10);
		(void)call_rax(addr, SYS_getppid, eax);
		_exit(0);
	}
	CHECK(waitpid(child, &st, 0) == child, "wait");
	CHECK((WIFEXITED(st) && WEXITSTATUS(st) == 0) ||
	    (WIFSIGNALED(st) && WTERMSIG(st) != SIGALRM),
	    "jump to %#lx: status %#x", (unsigned long)addr, st);
}

static void
jumps(void)
{
	const uint64_t slot = PATCH_SLOTS - 1;

	for (int i = 0; i < HOT; i++)
		(void)site_getpid();
	jump_one(PATCH_BASE + 8 * slot, (uint32_t)slot);
	jump_one(PATCH_CODE + 16 * slot, 0);
	jump_one(PATCH_CODE + 16 * slot + 11, 0);
	for (uint64_t a = STUB_TRAMP; a < STUB_TRAMP_LIMIT; a++)
		jump_one(a, (uint32_t)slot);
	CHECK(site_getpid() == getpid(), "getpid site after the jumps");
}

/* --- mapover --- */

#define MAP_AT   (PATCH_BASE - 0x4000)   /* around the range, beyond it */
#define MAP_LEN  (PATCH_SIZE + 0x8000)
#define NCALLERS 3

static volatile int callers_stop;

/* Every site this program patches, hot: its own and libc's getppid. */
static void
sites_hot(void)
{
	for (int i = 0; i < HOT; i++) {
		CHECK(site_getpid() == getpid(), "getpid site");
		CHECK(site_getppid() == getppid(), "getppid site");
		CHECK(site_gettid() == syscall(SYS_gettid), "gettid site");
	}
}

static void *
caller(void *arg)
{
	long tid = syscall(SYS_gettid), pid = getpid(), ppid = getppid();
	long bad = 0, n = 0;

	(void)arg;
	while (!callers_stop || n < 100) {
		if (site_gettid() != tid || site_getpid() != pid ||
		    getppid() != ppid || site_getppid() != ppid)
			bad++;
		n++;
	}
	return (void *)bad;
}

/* The sites' bytes in memory are their own again (or never changed). */
static void
sites_original(void)
{
	static const uint8_t tid[] = { 0xb8, 186, 0, 0, 0, 0x0f, 0x05 };

	CHECK(memcmp((const void *)site_getpid, getpid_bytes, 7) == 0,
	    "the getpid site's bytes");
	CHECK(memcmp((const void *)site_gettid, tid, sizeof(tid)) == 0,
	    "the gettid site's bytes");
}

/* Code of the program's own at addr: getpid's call, then ret. */
static void
code_at(uint64_t addr)
{
	static const uint8_t getpid_ret[] = { 0xb8, 39, 0, 0, 0, 0x0f, 0x05,
		0xc3 };

	memcpy((void *)addr, getpid_ret, sizeof(getpid_ret));
	__builtin___clear_cache((char *)addr, (char *)addr + 8);
	CHECK(call_rax(addr, 0, 0) == getpid(), "code of its own at %#lx",
	    (unsigned long)addr);
}

/* A child that takes the range one way (how), then calls the sites. */
static void
take_in_child(const char *how)
{
	pid_t child = fork();
	int st;

	if (child == 0) {
		void *m, *want = (void *)(PATCH_BASE + 0x1000);
		long r = -1;
		int id;

		if (strcmp(how, "munmap") == 0) {
			r = munmap((void *)PATCH_BASE, PATCH_SIZE);
		} else if (strcmp(how, "mremap") == 0) {
			m = mmap(NULL, 0x2000, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			memset(m, 0x5a, 0x2000);
			r = mremap(m, 0x2000, 0x2000, MREMAP_MAYMOVE |
			    MREMAP_FIXED, want) == want &&
			    ((uint8_t *)want)[0x1fff] == 0x5a ? 0 : -1;
		} else if ((id = shmget(IPC_PRIVATE, 0x2000,
		    IPC_CREAT | 0600)) >= 0) {
			m = shmat(id, want, 0);
			r = m == want ? 0 : -1;
			if (m != (void *)-1) {
				memset(m, 0x33, 0x2000);
				r |= shmdt(m);
			}
			shmctl(id, IPC_RMID, NULL);
		}
		if (r != 0) {
			fprintf(stderr, "%s over the range: %s\n", how,
			    strerror(errno));
			_exit(1);
		}
		sites_hot();
		sites_original();
		_exit(fails == 0 ? 0 : 1);
	}
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "child taking the range by %s: %#x", how,
	    st);
}

/* Map data of its own over the range, check it and its code there. */
static uint8_t *
map_over(void)
{
	uint8_t *m = mmap((void *)MAP_AT, MAP_LEN, PROT_READ | PROT_WRITE |
	    PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	CHECK(m == (uint8_t *)MAP_AT, "mmap MAP_FIXED over %#lx: %s",
	    (unsigned long)PATCH_BASE, strerror(errno));
	if (m != (uint8_t *)MAP_AT)
		return NULL;
	for (size_t i = 0; i < MAP_LEN; i++)
		CHECK(m[i] == 0, "a new mapping reads %#x at +%#zx", m[i], i);
	for (size_t i = 0; i < MAP_LEN; i++)
		m[i] = (uint8_t)(i * 7 + 3);
	code_at(PATCH_CODE);
	code_at(PATCH_CODE + 16 * 5 + 11);
	code_at(PATCH_BASE + 8);
	return m;
}

static bool
data_right(const uint8_t *m)
{
	for (size_t i = 0; i < MAP_LEN; i++) {
		if (i >= PATCH_CODE - MAP_AT && i < PATCH_CODE - MAP_AT + 8)
			continue;
		if (i >= PATCH_CODE + 16 * 5 + 11 - MAP_AT &&
		    i < PATCH_CODE + 16 * 5 + 19 - MAP_AT)
			continue;
		if (i >= PATCH_BASE + 8 - MAP_AT &&
		    i < PATCH_BASE + 16 - MAP_AT)
			continue;
		if (m[i] != (uint8_t)(i * 7 + 3))
			return false;
	}
	return true;
}

/* The exec'd image: its sites hot, then the range taken again. */
static void
mapexec(void)
{
	uint8_t *m;

	sites_hot();
	if ((m = map_over()) != NULL)
		CHECK(data_right(m), "the data after exec");
	sites_hot();
	sites_original();
}

static void
mapover(void)
{
	pthread_t t[NCALLERS];
	uint8_t *m;
	pid_t child;
	int st;

	sites_hot();
	take_in_child("munmap");
	take_in_child("mremap");
	take_in_child("shmat");
	for (int i = 0; i < NCALLERS; i++)
		pthread_create(&t[i], NULL, caller, NULL);
	usleep(20000);
	m = map_over();
	callers_stop = 1;
	for (int i = 0; i < NCALLERS; i++) {
		void *bad;

		pthread_join(t[i], &bad);
		CHECK(bad == NULL, "caller %d: %ld calls wrong", i, (long)bad);
	}
	if (m == NULL)
		return;
	CHECK(data_right(m), "the data over the range");
	sites_original();
	sites_hot();
	child = fork();
	if (child == 0) {
		sites_hot();
		_exit(data_right(m) && fails == 0 ? 0 : 1);
	}
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "forked child: %#x", st);
	child = fork();
	if (child == 0) {
		execl("/proc/self/exe", "systrap_patch", "mapexec",
		    (char *)NULL);
		_exit(127);
	}
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "exec'd child: %#x", st);
	CHECK(data_right(m), "the data after the children");
	CHECK(munmap(m, MAP_LEN) == 0, "munmap: %s", strerror(errno));
	m = mmap((void *)PATCH_BASE, 4096, PROT_READ, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	CHECK(m == (uint8_t *)PATCH_BASE, "the range free again: %s",
	    strerror(errno));
	sites_hot();
}

/* --- blockcpu --- */

#define BLOCK_READS  200
#define BLOCK_CPU_US 70

static int64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *
blocked_reader(void *arg)
{
	int64_t t0 = thread_cpu_ns();
	char c;

	(void)arg;
	for (int i = 0; i < BLOCK_READS; i++)
		if (site_read(pipefd[0], &c, 1) != 1)
			return (void *)-1L;
	return (void *)(long)((thread_cpu_ns() - t0) / BLOCK_READS / 1000);
}

static void
blockcpu(void)
{
	pthread_t t;
	void *us;
	char c;

	CHECK(pipe(pipefd) == 0, "pipe");
	for (int i = 0; i < HOT; i++) {
		CHECK(write(pipefd[1], "a", 1) == 1, "write");
		CHECK(site_read(pipefd[0], &c, 1) == 1, "read");
	}
	pthread_create(&t, NULL, blocked_reader, NULL);
	for (int i = 0; i < BLOCK_READS; i++) {
		usleep(2000);
		CHECK(write(pipefd[1], "x", 1) == 1, "write");
	}
	pthread_join(t, &us);
	printf("CPU time per blocked read: %ld us\n", (long)us);
	CHECK((long)us >= 0 && (long)us < BLOCK_CPU_US,
	    "%ld us of CPU time per blocked read", (long)us);
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	/* Uid 65534 when it starts as root, else the user it starts as. */
	if (argc > 2 && strcmp(argv[2], "nobody") == 0 && geteuid() == 0 &&
	    (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0)) {
		perror("drop to 65534");
		return 1;
	}
	if (strcmp(mode, "race") == 0)
		race();
	else if (strcmp(mode, "fork") == 0)
		forked();
	else if (strcmp(mode, "rewrite") == 0)
		rewrite();
	else if (strcmp(mode, "readself") == 0)
		readself();
	else if (strcmp(mode, "signal") == 0)
		signals();
	else if (strcmp(mode, "gs") == 0)
		gs_own();
	else if (strcmp(mode, "patched") == 0)
		patched();
	else if (strcmp(mode, "sigstorm") == 0)
		sigstorm();
	else if (strcmp(mode, "jump") == 0)
		jumps();
	else if (strcmp(mode, "cold") == 0)
		cold();
	else if (strcmp(mode, "mapover") == 0)
		mapover();
	else if (strcmp(mode, "mapexec") == 0)
		mapexec();
	else if (strcmp(mode, "blockcpu") == 0)
		blockcpu();
	else if (strcmp(mode, "regs") == 0)
		regs(argv[0]);
	else if (strcmp(mode, "regs-exec") == 0)
		regs_exec(argc, argv);
	else if (strcmp(mode, "tablecall") == 0)
		tablecall();
	else {
		fprintf(stderr, "usage: systrap_patch race|fork|rewrite|"
		    "readself|signal|gs|patched|sigstorm|jump|cold|mapover|"
		    "blockcpu|regs|tablecall\n"
		    "    [nobody]\n");
		return 2;
	}
	return fails == 0 ? 0 : 1;
}
