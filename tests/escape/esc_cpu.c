/*
 * Attacks through the CPU's other ways into a kernel: the 32-bit system
 * call gates (int $0x80, sysenter), the legacy vsyscall page, syscall
 * with crafted numbers and registers, privileged instructions, and
 * vkernel's stub (its code page above the guest's address space, found by
 * probing): jumping into it, mapping over it, unmapping it, changing its
 * protection.  Each attack runs in a child; every system call it smuggles
 * is a kill(HOSTPID, SIGKILL) of a host process the driver watches, so a
 * call the host ran instead of vkernel would show there.  The gates of
 * the 32-bit ABI give SIGSEGV, as on a Linux without IA32 emulation
 * (vkernel serves only the 64-bit one), and code run from the stub's page
 * is stopped with SIGSEGV at its first system call or trap, as if the
 * page were not there, which is what the guest's own memory map says.
 * Once as the user it starts as, once more as uid 65534.
 * Usage: esc_cpu HOSTPID
 */
#include <cpuid.h>
#include <setjmp.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "../guest/guest.h"

#define VSYSCALL	0xffffffffff600000UL
#define I386_KILL	37
#define LOW_STACK	0x20000000UL

static long hostpid;

/* --- children: each ends in _exit(0) if the attack came back --- */

static void
int80_kill(void)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "0"((long)I386_KILL),
	    "b"(hostpid), "c"(SIGKILL) : "memory");
	_exit(0);
}

/* 20 is i386 getpid; as x86-64 it would be writev(-1, ...). */
static void
int80_getpid(void)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "0"(20L), "D"(-1L)
	    : "memory");
	_exit(0);
}

/*
 * sysenter from 64-bit code enters Linux's 32-bit entry (on Intel; AMD
 * raises #UD), which reads its ebp from a 32-bit stack: give it one.
 */
static void
sysenter_kill(void)
{
	long r;

	if (guest_mmap((void *)LOW_STACK, GUEST_PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		_exit(3);
	__asm__ volatile("mov %%rsp, %%r12; mov %[sp], %%rsp; sysenter;"
	    "mov %%r12, %%rsp" : "=a"(r) : "0"((long)I386_KILL),
	    "b"(hostpid), "c"(SIGKILL), [sp] "r"(LOW_STACK + 2048)
	    : "r12", "memory");
	_exit(0);
}

/* How sysenter_kill ends natively: the #UD of AMD's and Hygon's CPUs. */
static int
sysenter_status(void)
{
	unsigned a, b, c, d;
	char vendor[13];

	__cpuid(0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	return strcmp(vendor, "AuthenticAMD") == 0 ||
	    strcmp(vendor, "HygonGenuine") == 0 ? SIGILL : SIGSEGV;
}

/* kill(hostpid, SIGKILL) with junk in the number's upper half. */
static void
syscall_highbits(void)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r)
	    : "0"((long)SYS_kill | 0x7fffffff00000000L), "D"(hostpid),
	    "S"((long)SIGKILL) : "rcx", "r11", "memory");
	/* As Linux: the low 32 bits are the number. */
	_exit(r == -ESRCH ? 0 : 4);
}

/* The x32 bit and numbers past the table answer ENOSYS. */
static void
syscall_badnr(void)
{
	static const long nrs[] = {
		0x40000000L | SYS_kill, 1000, -2, 0x7fffffff, -0x80000000L,
	};
	long r;

	for (unsigned i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		__asm__ volatile("syscall" : "=a"(r) : "0"(nrs[i]),
		    "D"(hostpid), "S"((long)SIGKILL)
		    : "rcx", "r11", "memory");
		if (r != -ENOSYS)
			_exit(5);
	}
	_exit(0);
}

/* The three vsyscall entries work (the host serves them) or fault. */
static void
vsyscall_calls(void)
{
	long (*gtod)(void *, void *) = (void *)VSYSCALL;
	long (*vtime)(long *) = (void *)(VSYSCALL + 0x400);
	long (*vgetcpu)(unsigned *, unsigned *, void *) =
	    (void *)(VSYSCALL + 0x800);
	long tv[2] = { 0, 0 }, t = 0;
	unsigned cpu = ~0U;

	if (gtod(tv, NULL) != 0 || tv[0] <= 0)
		_exit(6);
	if (vtime(&t) <= 0 || t <= 0)
		_exit(7);
	if (vgetcpu(&cpu, NULL, NULL) != 0 || cpu == ~0U)
		_exit(8);
	_exit(0);
}

/* Between the entries is no entry: Linux kills with SIGSEGV. */
static void
vsyscall_middle(void)
{
	((void (*)(void))(VSYSCALL + 0x10))();
	_exit(0);
}

/* A vsyscall writes nothing where the caller may not write. */
static void
vsyscall_badptr(void)
{
	long (*gtod)(void *, void *) = (void *)VSYSCALL;
	long r = gtod((void *)0xffff888000000000UL, NULL);

	_exit(r == -EFAULT ? 0 : 9);
}

/* Instructions only a kernel may run fault (#GP: SIGSEGV). */
static void
priv_hlt(void)
{
	__asm__ volatile("hlt");
	_exit(0);
}

static void
priv_cli(void)
{
	__asm__ volatile("cli");
	_exit(0);
}

static void
priv_in(void)
{
	__asm__ volatile("inb $0x80, %%al" : : : "rax");
	_exit(0);
}

static void
priv_cr0(void)
{
	__asm__ volatile("mov %%cr0, %%rax" : : : "rax");
	_exit(0);
}

/* sysretq, and a gate the IDT does not open to user mode. */
static void
priv_sysret(void)
{
	__asm__ volatile(".byte 0x48, 0x0f, 0x07");
	_exit(0);
}

static void
priv_int81(void)
{
	__asm__ volatile("int $0x81");
	_exit(0);
}

/* --- the stub's page --- */

static sigjmp_buf probe_env;

static void
on_probe_fault(int sig)
{
	siglongjmp(probe_env, sig);
}

/* Whether a load from va faults. */
static bool
readable(uint64_t va)
{
	volatile uint8_t *p = (volatile uint8_t *)va;

	if (sigsetjmp(probe_env, 1) != 0)
		return false;
	(void)*p;
	return true;
}

/*
 * The lowest page above the guest's mappings that a load reaches: probed
 * on a 4 GiB grid of the top of the address space, and at its first page.
 */
static uint64_t
find_stub(void)
{
	struct sigaction sa, old_segv, old_bus;
	uint64_t found = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_probe_fault;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	for (uint64_t va = 0x7f0000000000UL; va < 0x7ffc00000000UL;
	    va += 1UL << 32) {
		/* Skip what the guest itself has there (its stack). */
		if (guest_probe_read((void *)va) == 0)
			continue;
		if (readable(va)) {
			found = va;
			break;
		}
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return found;
}

static uint64_t stub;

/* Run the stub's first syscall instruction (scanned for) as a kill. */
static void
stub_jump_syscall(void)
{
	const uint8_t *p = (const uint8_t *)stub;
	unsigned i;
	long r;

	for (i = 0; i < 4094 && !(p[i] == 0x0f && p[i + 1] == 0x05); i++)
		;
	if (i == 4094)
		_exit(10);
	__asm__ volatile("call *%[to]" : "=a"(r)
	    : [to] "r"(stub + i), "0"((long)SYS_kill), "D"(hostpid),
	      "S"((long)SIGKILL) : "rcx", "r11", "memory");
	_exit(0);
}

/* Run the stub from its start: whatever it does, it does as the guest. */
static void
stub_jump_start(void)
{
	__asm__ volatile("jmp *%0" : : "r"(stub), "a"((long)SYS_kill),
	    "D"(hostpid), "S"((long)SIGKILL) : "memory");
	_exit(0);
}

/* The stub's page cannot be written, remapped, unmapped or changed. */
static void
stub_remap(void)
{
	void *p;

	p = guest_mmap((void *)stub, GUEST_PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p != MAP_FAILED || errno != ENOMEM)
		_exit(11);
	p = guest_mmap((void *)stub, GUEST_PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != MAP_FAILED && (uint64_t)p == stub)
		_exit(12);
	if (guest_mprotect((void *)stub, GUEST_PAGE, PROT_READ | PROT_WRITE)
	    == 0)
		_exit(13);
	(void)guest_munmap((void *)stub, 2 * GUEST_PAGE);
	if (syscall(SYS_madvise, stub, GUEST_PAGE, MADV_DONTNEED) == 0)
		_exit(14);
	/* vkernel still changes this process's mappings through it. */
	p = guest_anon(GUEST_PAGE, PROT_READ | PROT_WRITE);
	if (p == MAP_FAILED)
		_exit(15);
	*(volatile char *)p = 1;
	/* Nor can a mapping be moved over it. */
	if (syscall(SYS_mremap, p, GUEST_PAGE, GUEST_PAGE,
	    MREMAP_MAYMOVE | MREMAP_FIXED, stub) != -1)
		_exit(16);
	/* And its page is no more writable than before. */
	*(volatile char *)stub = 0;
	_exit(0);
}

struct attack {
	const char *name;
	void (*fn)(void);
	int status;	/* the wait status it must end with; -1: the CPU's */
};

static const struct attack attacks[] = {
	{ "int $0x80 kill", int80_kill, SIGSEGV },
	{ "int $0x80 getpid", int80_getpid, SIGSEGV },
	{ "sysenter kill", sysenter_kill, -1 },
	{ "syscall with upper bits", syscall_highbits, 0 },
	{ "syscall numbers past the table", syscall_badnr, 0 },
	{ "vsyscall entries", vsyscall_calls, 0 },
	{ "vsyscall page middle", vsyscall_middle, SIGSEGV },
	{ "vsyscall bad pointer", vsyscall_badptr, SIGSEGV },
	{ "hlt", priv_hlt, SIGSEGV },
	{ "cli", priv_cli, SIGSEGV },
	{ "in", priv_in, SIGSEGV },
	{ "mov from cr0", priv_cr0, SIGSEGV },
	{ "sysret", priv_sysret, SIGSEGV },
	{ "int $0x81", priv_int81, SIGSEGV },
	{ "stub: its syscall", stub_jump_syscall, SIGSEGV },
	{ "stub: its start", stub_jump_start, SIGSEGV },
	{ "stub: remap and write", stub_remap, SIGSEGV },
};

static void
all_tests(void)
{
	for (unsigned i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++) {
		const struct attack *a = &attacks[i];
		int st = -1, want;
		pid_t pid;

		if (stub == 0 && strncmp(a->name, "stub", 4) == 0)
			continue;
		pid = fork();
		if (pid == 0)
			a->fn();
		CHECK(pid > 0, "fork");
		if (pid <= 0 || waitpid(pid, &st, 0) != pid)
			continue;
		want = a->status < 0 ? sysenter_status() : a->status;
		CHECK(st == want, "%s: status %#x, want %#x", a->name, st,
		    want);
		CHECK_ERR(syscall(SYS_kill, hostpid, 0), ESRCH);
	}
}

int
main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	hostpid = atol(argv[1]);
	stub = find_stub();
	if (stub == 0)
		guest_note("no page found above the guest's mappings");
	return guest_main_twice(all_tests);
}
