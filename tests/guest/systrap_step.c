/*
 * Single-stepping (the trap flag, set with popf) through syscall sites
 * "mov $NR, %eax; syscall" once they ran often enough for the systrap
 * platform to patch them, checked for what Linux does (the program passes
 * natively too).  argv[1] is the mode:
 *   step  a thread with a SIGTRAP handler steps through a getpid site, a
 *         dup site and the getpid site again, the handler clearing the
 *         flag at its Nth trap for every N: each trap is TRAP_TRACE at
 *         the rip Linux gives (one after each instruction but the
 *         syscall; the mov's at the syscall instruction, with eax the
 *         call's number), each call runs once and answers right, no
 *         other signal comes
 *   mapover  children step through the sites in a thread while their
 *         main thread maps data over the patching's range (which puts
 *         the sites' bytes back): the traps are the same wherever that
 *         found the stepping thread
 *   jump  children set the flag and jump into the patching's table, the
 *         site's slot entry and every byte of the stub's trampoline: each
 *         ends by a signal or goes on as from a call of its own, sees no
 *         trap in that code but at the jump's target, and vkernel goes on
 * Further arguments: "patched" fails unless the sites' bytes in memory
 * are the patch before the stepping (under systrap with a CPU of its
 * own), "nobody" drops to uid and gid 65534 first when it starts as root.
 * Exits 0 when all is right.
 */
#include <pthread.h>
#include <ucontext.h>

#include "guest.h"

#define STUB_BASE        0x7ffb00000000UL
#define STUB_TRAMP       (STUB_BASE + 0xa00)
#define STUB_TRAMP_LIMIT (STUB_BASE + 0xc80)
#define STUB_END         (STUB_BASE + 0x10000 + 4096UL * 0x8000)
#define PATCH_BASE       0x7f060000UL
#define PATCH_CODE       (PATCH_BASE + 0x2000)
#define PATCH_SLOTS      1024
#define PATCH_SIZE       0x8000

#define EFLAGS_TF 0x100
#define HOT       40   /* calls that make a site hot enough to patch */

/*
 * The sites, each "mov $NR, %eax; syscall; ret", and step_run(fd, out),
 * which sets the flag, calls getpid, dup(fd) and getpid again into
 * out[0..2], and clears the flag; step_at[] are the rips of its traps.
 */
long site_getpid(void);
long site_dup(long fd);
void step_run(long fd, long out[3]);
extern const char step_t1[], step_t2[], step_t3[], step_t4[], step_t5[],
    step_t6[], step_t7[], step_t8[], step_t9[], step_t10[];
__asm__(".text\n"
    ".globl site_getpid\nsite_getpid:\n\tmov $39, %eax\n\tsyscall\n\tret\n"
    ".globl site_dup\nsite_dup:\n\tmov $32, %eax\n\tsyscall\n\tret\n"
    ".globl step_run\nstep_run:\n"
    "\tpush %rbx\n\tpush %r12\n"
    "\tmov %rdi, %rbx\n\tmov %rsi, %r12\n"
    "\tpushf\n\torl $0x100, (%rsp)\n\tpopf\n"
    "\tcall site_getpid\n"
    ".globl step_t1\nstep_t1:\tmov %rax, 0(%r12)\n"
    ".globl step_t2\nstep_t2:\tmov %rbx, %rdi\n"
    ".globl step_t3\nstep_t3:\tcall site_dup\n"
    ".globl step_t4\nstep_t4:\tmov %rax, 8(%r12)\n"
    ".globl step_t5\nstep_t5:\tcall site_getpid\n"
    ".globl step_t6\nstep_t6:\tmov %rax, 16(%r12)\n"
    ".globl step_t7\nstep_t7:\tpushf\n"
    ".globl step_t8\nstep_t8:\tandl $~0x100, (%rsp)\n"
    ".globl step_t9\nstep_t9:\tpopf\n"
    ".globl step_t10\nstep_t10:\tpop %r12\n\tpop %rbx\n"
    "\tret\n");

#define SITE_GETPID ((uint64_t)site_getpid)
#define SITE_DUP    ((uint64_t)site_dup)
#define NSTEPS      16

/* Where Linux traps, step by step, and eax at each trap (-1: any). */
static uint64_t step_at[NSTEPS];
static const long step_eax[NSTEPS] = {
	-1, SYS_getpid, -1, -1, -1, -1, SYS_dup, -1, -1, -1, SYS_getpid,
	-1, -1, -1, -1, -1,
};

static void
steps_fill(void)
{
	const uint64_t at[NSTEPS] = {
		SITE_GETPID, SITE_GETPID + 5, (uint64_t)step_t1,
		(uint64_t)step_t2, (uint64_t)step_t3, SITE_DUP, SITE_DUP + 5,
		(uint64_t)step_t4, (uint64_t)step_t5, SITE_GETPID,
		SITE_GETPID + 5, (uint64_t)step_t6, (uint64_t)step_t7,
		(uint64_t)step_t8, (uint64_t)step_t9, (uint64_t)step_t10,
	};

	memcpy(step_at, at, sizeof(at));
}

/* What the handler saw, trap by trap. */
struct trap {
	uint64_t rip, addr, eax;
	int code;
};

static struct trap traps[NSTEPS + 4];
static volatile int ntraps, clear_at;

static void
on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	int n = ntraps;

	(void)sig;
	if (n < (int)(sizeof(traps) / sizeof(traps[0]))) {
		traps[n].rip = (uint64_t)g[REG_RIP];
		traps[n].addr = (uint64_t)si->si_addr;
		traps[n].eax = (uint32_t)g[REG_RAX];
		traps[n].code = si->si_code;
	}
	ntraps = ++n;
	if (n == clear_at)
		g[REG_EFL] &= ~(greg_t)EFLAGS_TF;
}

/* Any other signal the CPU raises is a failure: say which, and end. */
static void
on_other(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	char buf[160];
	int n;

	n = snprintf(buf, sizeof(buf), "FAIL: signal %d (code %d) at rip "
	    "%#llx, addr %p, after %d traps\n", sig, si->si_code,
	    (unsigned long long)uc->uc_mcontext.gregs[REG_RIP], si->si_addr,
	    ntraps);
	(void)!write(2, buf, (size_t)n);
	_exit(1);
}

static void
catch(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO;
	CHECK(sigaction(sig, &sa, NULL) == 0, "sigaction %d", sig);
}

/* Open fds below 256. */
static int
fds_open(void)
{
	int n = 0;

	for (int fd = 0; fd < 256; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* The sites hot, each call checked; whether their bytes are the patch. */
static bool
sites_hot(void)
{
	static const uint8_t jmp[3] = { 0xff, 0x24, 0x25 };

	for (int i = 0; i < HOT; i++) {
		long fd = site_dup(1);

		CHECK(site_getpid() == getpid(), "getpid site");
		CHECK(fd > 2 && fcntl((int)fd, F_GETFD) >= 0, "dup site: %ld",
		    fd);
		close((int)fd);
	}
	return memcmp((const void *)site_getpid, jmp, 3) == 0 &&
	    memcmp((const void *)site_dup, jmp, 3) == 0;
}

/* One stepped run whose handler clears the flag at trap n (0: never). */
static void
step_once(int n)
{
	int want = n == 0 ? NSTEPS : n, fds = fds_open();
	long out[3] = { -1, -1, -1 };

	ntraps = 0;
	clear_at = n;
	step_run(1, out);
	CHECK(ntraps == want, "clear at %d: %d traps, want %d", n, ntraps,
	    want);
	for (int i = 0; i < want && i < ntraps; i++) {
		CHECK(traps[i].rip == step_at[i] && traps[i].addr == step_at[i],
		    "clear at %d, trap %d: rip %#lx addr %#lx, want %#lx", n,
		    i, (unsigned long)traps[i].rip,
		    (unsigned long)traps[i].addr, (unsigned long)step_at[i]);
		CHECK(traps[i].code == TRAP_TRACE, "trap %d: si_code %d", i,
		    traps[i].code);
		CHECK(step_eax[i] < 0 || traps[i].eax == (uint64_t)step_eax[i],
		    "trap %d at %#lx: eax %lu, want %ld", i,
		    (unsigned long)traps[i].rip, (unsigned long)traps[i].eax,
		    step_eax[i]);
	}
	CHECK(out[0] == getpid() && out[2] == getpid(),
	    "clear at %d: getpid %ld %ld", n, out[0], out[2]);
	/* dup ran once: one new fd, and it is a copy of 1. */
	CHECK(out[1] > 2 && fcntl((int)out[1], F_GETFD) >= 0 &&
	    fds_open() == fds + 1, "clear at %d: dup gave %ld, %d fds, "
	    "%d before", n, out[1], fds_open(), fds);
	if (out[1] > 2)
		close((int)out[1]);
}

static void *
stepper(void *arg)
{
	(void)arg;
	for (int n = 0; n <= NSTEPS; n++)
		step_once(n);
	return NULL;
}

static void
step(bool want_patch)
{
	bool patched;
	pthread_t t;

	steps_fill();
	catch(SIGTRAP, on_trap);
	catch(SIGSEGV, on_other);
	catch(SIGILL, on_other);
	catch(SIGBUS, on_other);
	patched = sites_hot();
	printf("sites %s\n", patched ? "patched" : "as they were");
	CHECK(patched || !want_patch, "the sites are not patched");
	CHECK(pthread_create(&t, NULL, stepper, NULL) == 0, "pthread_create");
	pthread_join(t, NULL);
	/* And on the main thread, the flag cleared at the mov's trap. */
	step_once(2);
	CHECK(sites_hot() == patched, "the sites' bytes changed");
}

/* --- mapover --- */

#define MAPOVER_RUNS 64

static volatile int steps_stop;

static void *
stepper_loop(void *arg)
{
	(void)arg;
	for (int n = 0; !steps_stop || n < 3; n++)
		step_once(0);
	return NULL;
}

/*
 * A child whose thread steps through the sites while its main thread
 * maps data of its own over the patching's range, delay_us after the
 * start: the sites get their bytes back under the stepping thread, whose
 * traps stay Linux's wherever the mapping found it.
 */
static void
mapover_one(unsigned delay_us)
{
	static const uint8_t getpid_bytes[] = { 0xb8, 39, 0, 0, 0, 0x0f,
		0x05 };
	int st = 0, failed = guest_failures;
	pid_t child = fork();

	if (child == 0) {
		pthread_t t;
		void *m;

		(void)sites_hot();
		CHECK(pthread_create(&t, NULL, stepper_loop, NULL) == 0,
		    "pthread_create");
		usleep(delay_us);
		m = mmap((void *)PATCH_BASE, PATCH_SIZE, PROT_READ |
		    PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		CHECK(m == (void *)PATCH_BASE, "mmap over the range");
		steps_stop = 1;
		pthread_join(t, NULL);
		CHECK(memcmp((const void *)site_getpid, getpid_bytes,
		    sizeof(getpid_bytes)) == 0, "the site's bytes back");
		_exit(guest_failures == failed ? 0 : 1);
	}
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "child mapping after %u us: status %#x",
	    delay_us, st);
}

static void
mapover(void)
{
	steps_fill();
	catch(SIGTRAP, on_trap);
	catch(SIGSEGV, on_other);
	catch(SIGILL, on_other);
	catch(SIGBUS, on_other);
	for (unsigned i = 0; i < MAPOVER_RUNS; i++)
		mapover_one(i * 97 % 1200);
}

/* --- jump --- */

static volatile int jump_traps;
static uint64_t jump_to;

static bool
in_stub(uint64_t a)
{
	return (a >= PATCH_BASE && a < PATCH_BASE + PATCH_SIZE) ||
	    (a >= STUB_BASE && a < STUB_END);
}

/*
 * The child's handler: a fault ends it well; a trap at the jump's target
 * is Linux's (there is nothing mapped there: the fetch faults next), one
 * further in the patching's or the stub's code must never come.
 */
static void
on_jump_sig(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	uint64_t rip = (uint64_t)g[REG_RIP];

	if (sig != SIGTRAP)
		_exit(0);
	if ((in_stub(rip) || in_stub((uint64_t)si->si_addr)) &&
	    (rip != jump_to || (uint64_t)si->si_addr != jump_to))
		_exit(3);
	if (++jump_traps > 2000)
		g[REG_EFL] &= ~(greg_t)EFLAGS_TF;
}

/*
 * A child that sets the flag and calls addr with eax and rdi of its own:
 * it ends by a signal or its handler, or comes back as from a call of
 * its own; never by status 3 (a trap inside the stub's code) nor by the
 * alarm.
 */
static void
jump_one(uint64_t addr, uint32_t eax)
{
	static const int sigs[] = { SIGTRAP, SIGSEGV, SIGILL, SIGBUS };
	pid_t child;
	int st = 0;

	jump_to = addr;
	if ((child = fork()) == 0) {
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			catch(sigs[i], on_jump_sig);
		alarm(10);
		__asm__ volatile("pushf\n\torl $0x100, (%%rsp)\n\tpopf\n"
		    "\tcall *%[addr]\n"
		    "\tpushf\n\tandl $~0x100, (%%rsp)\n\tpopf"
		    : "+a"(eax)
		    : [addr] "r"(addr), "D"(1L)
		    : "rcx", "r11", "rsi", "rdx", "r8", "r9", "r10", "memory",
		    "cc");
		_exit(0);
	}
	CHECK(waitpid(child, &st, 0) == child && ((WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0) || (WIFSIGNALED(st) &&
	    WTERMSIG(st) != SIGALRM)), "jump to %#lx: status %#x",
	    (unsigned long)addr, st);
}

static void
jumps(void)
{
	uint32_t slot = PATCH_SLOTS - 1, t;
	uint64_t entry;

	/* The site's slot, from its patch: its table address. */
	if (sites_hot()) {
		memcpy(&t, (const uint8_t *)site_getpid + 3, 4);
		if (t >= PATCH_BASE && t < PATCH_BASE + 8 * PATCH_SLOTS)
			slot = (t - (uint32_t)PATCH_BASE) / 8;
	}
	entry = PATCH_CODE + 16 * slot;
	jump_one(PATCH_BASE + 8 * slot, slot);
	jump_one(entry, SYS_getppid);
	jump_one(entry + 5, slot);
	jump_one(entry + 11, slot);
	for (uint64_t a = STUB_TRAMP; a < STUB_TRAMP_LIMIT; a++)
		jump_one(a, slot);
	CHECK(site_getpid() == getpid(), "getpid site after the jumps");
	CHECK(site_dup(1) > 2, "dup site after the jumps");
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	bool patched = false, nobody = false;

	for (int i = 2; i < argc; i++) {
		patched |= strcmp(argv[i], "patched") == 0;
		nobody |= strcmp(argv[i], "nobody") == 0;
	}
	/* Uid 65534 when it starts as root, else the user it starts as. */
	if (nobody && geteuid() == 0 && (setgroups(0, NULL) != 0 ||
	    setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0)) {
		perror("drop to 65534");
		return 1;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "step") == 0)
		step(patched);
	else if (strcmp(mode, "jump") == 0)
		jumps();
	else if (strcmp(mode, "mapover") == 0)
		mapover();
	else {
		fprintf(stderr, "usage: systrap_step step|mapover|jump "
		    "[patched] [nobody]\n");
		return 2;
	}
	return guest_done();
}
