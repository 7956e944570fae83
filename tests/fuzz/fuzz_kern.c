/*
 * The kernel under the fuzz harnesses: a program of guest events (see
 * fuzz_prog.h), played against vkern/ on the fake platform in this one
 * host process.
 *
 * Each run boots pid 1 from /bin/init, a tiny static ELF with a text page
 * at FZ_TEXT and a writable scratch area at FZ_SCRATCH, and hands
 * kern_run() an event source (fake_event_source) that decodes the input:
 * system calls made by any thread that is running (fork's children,
 * clone's threads, exec'd images alike), page faults, CPU traps, signals
 * from the host, and the clock moving on.  Between two events the kernel
 * runs everything runnable, so each call meets a scheduler at rest; when
 * every thread waits, time jumps to the earliest deadline, and when
 * nothing can ever wake, or the program ends, pid 1 is killed.  kern_run()
 * then tears the sandbox down and checks that every byte of kernel memory
 * the guest made it take came back, and fuzz_tree.c puts back what the
 * run changed in the file tree and the mounts.
 *
 * Arguments are typed by syscalls.tbl's prototypes (fuzz_table.h, made by
 * genfuzz.py): descriptors are small numbers or earlier results, paths
 * come from a dictionary of names the file systems know, pointers point
 * into the scratch area (filled from the input, with pointers and sizes
 * inside for iovecs and the like), at a page edge, into memory an earlier
 * call mapped, or nowhere, sizes and offsets are boundary values.
 * gencorpus.py writes programs in this encoding.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/fuzz/fuzz_kern.h"
#include "tests/fuzz/fuzz_prog.h"
#include "tests/unit/elf_image.h"
#include "tests/unit/fake_platform.h"
#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/sysv_ipc.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_boot.h"
#include "vkern/vm/copyio.h"

enum fz_kind {
	FZ_ANY, FZ_INT, FZ_FLAGS, FZ_FD, FZ_SIZE, FZ_OFF, FZ_PID, FZ_ID,
	FZ_CLOCK, FZ_PTR, FZ_PATH,
};

struct fz_call {
	int nr;
	const char *name;
	unsigned char kind[6];
};

#include "fuzz_table.h"

/*
 * fz_calls by number, made at boot: a scan of the whole table per call
 * made an instrumented comparison, reported to libFuzzer, per entry.
 */
static const struct fz_call *fz_bynr[1024];

/* Events of one run, timeouts included: then pid 1 is killed. */
#define FZ_MAX_EVENTS 256
/* The frozen clock when each run starts: after the tree's. */
#define FZ_RUN_TIME 2000000000LL
/* The furthest the clock jumps at once: a day. */
#define FZ_HORIZON 86400000000000LL
/* Earlier results kept for descriptor, pid and address arguments. */
#define FZ_NRESULTS 16

static const char *const fz_paths[] = {
#define FZ_PATH(s) s,
	FZ_PATHS
#undef FZ_PATH
};

static const uint64_t fz_bounds[] = { FZ_BOUNDS };

/* The input being played. */
static struct {
	const uint8_t *p;
	size_t n;
	unsigned events;
	struct plat_thread *last;     /* made the last call */
	long results[FZ_NRESULTS];    /* small non-negative results */
	uint64_t addrs[FZ_NRESULTS];  /* results that look like addresses */
	unsigned nresults, naddrs, npaths;
	char longpath[FZ_LONGPATH + 1];
} fz;

static uint8_t
fz_u8(void)
{
	if (fz.n == 0)
		return 0;
	fz.n--;
	return *fz.p++;
}

static uint64_t
fz_bytes(unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)fz_u8() << (8 * i);
	return v;
}

static uint64_t
fz_bound(void)
{
	return fz_bounds[fz_u8() % VK_NELEM(fz_bounds)];
}

/* Whether pt is still one of the fake's threads. */
static bool
fz_thread_alive(const struct plat_thread *pt)
{
	for (struct plat_thread *t = fake_threads; t != NULL; t = t->next)
		if (t == pt)
			return true;
	return false;
}

/* The sel-th running thread, counting round; NULL when none runs. */
static struct plat_thread *
fz_pick_thread(unsigned sel)
{
	unsigned n = 0;

	for (struct plat_thread *t = fake_threads; t != NULL; t = t->next)
		n += t->running;
	if (n == 0)
		return NULL;
	sel %= n;
	for (struct plat_thread *t = fake_threads; ; t = t->next)
		if (t->running && sel-- == 0)
			return t;
}

void (*fz_after_call)(struct thread *td, long r);

/* What the last call returned, once its thread runs again. */
static void
fz_note_result(void)
{
	struct plat_thread *pt = fz.last;
	long r;

	fz.last = NULL;
	if (pt == NULL || !fz_thread_alive(pt) || !pt->running)
		return;
	r = (long)pt->ctx->regs.rax;
	if (fz_after_call != NULL)
		fz_after_call(pt->cookie, r);
	if (r >= 0 && r < (1L << 22))
		fz.results[fz.nresults++ % FZ_NRESULTS] = r;
	else if (r >= 0x10000 && (uint64_t)r < ARCH_TASK_SIZE)
		fz.addrs[fz.naddrs++ % FZ_NRESULTS] = (uint64_t)r;
}

/* An earlier result, counting back from the latest. */
static long
fz_result(void)
{
	unsigned n = VK_MIN(fz.nresults, FZ_NRESULTS);

	return n == 0 ? 3 :
	    fz.results[(fz.nresults - 1 - fz_u8() % n) % FZ_NRESULTS];
}

/*
 * Fill guest memory at va from the input: raw bytes, or 8-byte slots
 * each a pointer, a size or raw (an iovec, a msghdr, a sigaction).
 */
static void
fz_fill(struct thread *td, uint64_t va);

/* A guest pointer of selector sel (FZ_PTR_* in fuzz_prog.h). */
static uint64_t
fz_ptr(struct thread *td, uint8_t sel, unsigned depth)
{
	uint64_t va;

	switch (sel % FZ_PTR_NKINDS) {
	case FZ_PTR_NULL:
		return 0;
	case FZ_PTR_SCRATCH:
		return FZ_SCRATCH + (fz_bytes(2) % FZ_SCRATCH_SIZE);
	case FZ_PTR_EDGE:
		/* The last bytes before an unmapped page. */
		return FZ_SCRATCH + FZ_SCRATCH_SIZE - (fz_u8() % 65);
	case FZ_PTR_NOWHERE:
		return fz_bound() | 0x1000;
	case FZ_PTR_RESULT:
		if (fz.naddrs == 0)
			return FZ_SCRATCH;
		va = fz.addrs[(fz.naddrs - 1 - fz_u8() %
		    VK_MIN(fz.naddrs, FZ_NRESULTS)) % FZ_NRESULTS];
		return va + (fz_bytes(2) & 0x3ff8);
	case FZ_PTR_STACK:
		return td->ctx.regs.rsp - (fz_bytes(2) & 0xfff8);
	case FZ_PTR_DATA:
		va = FZ_SCRATCH + (fz_bytes(2) % FZ_SCRATCH_SIZE & ~7ULL);
		if (depth < 2)
			fz_fill(td, va);
		return va;
	default:
		return fz_bytes(8);
	}
}

static uint64_t fz_arg(struct thread *td, unsigned kind, unsigned depth);

static void
fz_fill(struct thread *td, uint64_t va)
{
	uint8_t hdr = fz_u8(), buf[256];
	unsigned n = hdr & 0x7f;

	if (hdr & 0x80) {
		/* n slots of 8 bytes, each its own kind. */
		n = VK_MIN(n, sizeof(buf) / 8);
		for (unsigned i = 0; i < n; i++) {
			uint8_t k = fz_u8();
			uint64_t v = k == 0 ? fz_ptr(td, fz_u8(), 2) :
			    k == 1 ? fz_bound() : fz_bytes(8);

			memcpy(buf + 8 * i, &v, 8);
		}
		n *= 8;
	} else {
		for (unsigned i = 0; i < n; i++)
			buf[i] = fz_u8();
	}
	(void)copyout(td, buf, UADDR(va), n);
}

/* A path from the dictionary, or one from the input, in the scratch. */
static uint64_t
fz_path(struct thread *td, uint8_t sel)
{
	/* The two paths of a call (rename, link) stay apart. */
	uint64_t va = FZ_SCRATCH + FZ_PATHAREA + 0x2000 * (fz.npaths++ % 2);
	char raw[64];
	size_t len;

	if (sel < 0xe0) {
		const char *s = sel % VK_NELEM(fz_paths) == FZ_PATH_LONG ?
		    fz.longpath : fz_paths[sel % VK_NELEM(fz_paths)];

		(void)copyout(td, s, UADDR(va), strlen(s) + 1);
	} else if (sel < 0xe8) {
		/* The longest has no NUL: the guest's copy runs on. */
		len = fz_u8() % sizeof(raw);
		for (size_t i = 0; i < len; i++)
			raw[i] = (char)fz_u8();
		raw[len] = '\0';
		(void)copyout(td, raw, UADDR(va),
		    len + (len < sizeof(raw) - 1));
	} else {
		return fz_ptr(td, fz_u8(), 0);
	}
	return va;
}

static uint64_t
fz_arg(struct thread *td, unsigned kind, unsigned depth)
{
	uint8_t sel = fz_u8();

	if (sel >= 0xf0)
		return fz_bytes(8);
	switch (kind) {
	case FZ_FD:
		switch (sel % 6) {
		case 0:
			return (uint64_t)fz_result();
		case 1:
			return (uint64_t)(int64_t)-1;
		case 2:
			return (uint64_t)(int64_t)AT_FDCWD;
		case 3:
			return fz_bound();
		default:
			return fz_u8() % 24;
		}
	case FZ_PATH:
		return fz_path(td, sel);
	case FZ_PTR:
		return fz_ptr(td, sel, depth);
	case FZ_PID:
		switch (sel % 6) {
		case 0:
			return (uint64_t)td->proc->pid;
		case 1:
			return (uint64_t)td->tid;
		case 2:
			return (uint64_t)fz_result();
		case 3:
			return (uint64_t)-(int64_t)td->proc->pgid;
		case 4:
			return fz_bound();
		default:
			return (uint64_t)(int64_t)(int8_t)fz_u8();
		}
	case FZ_ID:
		return sel % 3 == 0 ? 65534 : sel % 3 == 1 ?
		    (uint64_t)(int64_t)-1 : fz_u8();
	case FZ_CLOCK:
		/* CPU clocks of a pid or tid are negative: ~pid << 3 | kind. */
		return sel % 2 == 0 ? fz_u8() % 12 :
		    (uint64_t)(int64_t)(int)((~(unsigned)fz_result() << 3) |
		    (fz_u8() & 7));
	case FZ_FLAGS:
		return sel % 4 == 0 ? 0 : sel % 4 == 1 ?
		    1ULL << (fz_u8() % 64) : fz_bytes(4);
	case FZ_SIZE:
	case FZ_OFF:
	case FZ_INT:
		return sel % 2 == 0 ? fz_bound() :
		    (uint64_t)(int64_t)(int8_t)fz_u8();
	default:
		return sel % 2 == 0 ? fz_bound() : fz_bytes(8);
	}
}

/* Stop td at a system call decoded from the input. */
static void
fz_syscall(struct plat_thread *pt, struct plat_event *ev)
{
	struct thread *td = pt->cookie;
	struct arch_regs *r = &pt->ctx->regs;
	unsigned nr = (unsigned)fz_bytes(2);
	uint8_t flags = fz_u8();
	const struct fz_call *c;
	uint64_t a[6] = { 0 };
	unsigned nargs = 6;

	c = nr < VK_NELEM(fz_bynr) ? fz_bynr[nr] : NULL;
	if (c != NULL)
		for (nargs = 0; nargs < 6 && c->kind[nargs] != FZ_ANY;)
			nargs++;
	for (unsigned i = 0; i < nargs; i++)
		a[i] = fz_arg(td, c != NULL ? c->kind[i] : FZ_ANY, 0);
	if (flags & FZ_CALL_SETSP)
		r->rsp = fz_ptr(td, fz_u8(), 0);
	if (flags & FZ_CALL_X32)
		nr |= 0x40000000;
	/* A restarted call comes back at the syscall instruction. */
	if (r->rip == FZ_SYSCALL_SITE && (flags & FZ_CALL_RESTART)) {
		r->orig_rax = r->rax;
	} else {
		r->orig_rax = nr;
		r->rdi = a[0];
		r->rsi = a[1];
		r->rdx = a[2];
		r->r10 = a[3];
		r->r8 = a[4];
		r->r9 = a[5];
	}
	r->rax = (uint64_t)-ENOSYS;
	r->rip = FZ_SYSCALL_SITE + 2;
	/*
	 * The 64-bit syscall instruction, the one gate vkernel serves: it
	 * runs in 64-bit user code and leaves rip in rcx, the flags in r11.
	 */
	r->cs = ARCH_USER_CS;
	r->rcx = r->rip;
	r->r11 = r->eflags;
	fz.last = pt;
	*ev = (struct plat_event){ .kind = PLAT_EV_SYSCALL, .cookie = td,
	    .fd = -1 };
}

/* pid 1 goes, and with it the sandbox: the run is over. */
static int
fz_end(struct plat_event *ev)
{
	struct proc *init = kern_command();

	*ev = (struct plat_event){ .kind = PLAT_EV_GONE,
	    .cookie = init->threads, .fd = -1 };
	return 0;
}

static int
fz_event(struct plat_event *ev, int64_t deadline)
{
	static const int hostsigs[] = { SIGINT, SIGQUIT, SIGTSTP, SIGWINCH,
	    SIGHUP };
	static const int traps[][2] = { { SIGTRAP, TRAP_BRKPT },
	    { SIGFPE, FPE_INTDIV }, { SIGILL, ILL_ILLOPN },
	    { SIGSEGV, SI_KERNEL }, { SIGBUS, BUS_ADRALN } };
	struct plat_thread *pt;
	uint8_t op;

	fz_note_result();
	fake_clock_now_ns += 1000;
	if (fz.n == 0 || ++fz.events > FZ_MAX_EVENTS)
		return fz_end(ev);
	op = fz_u8();
	pt = fz_pick_thread(fz_u8());
	if (pt == NULL || op % 16 == FZ_OP_CLOCK) {
		/*
		 * Everything waits: time moves to the first deadline, unless
		 * that is further off than a host's clock ever gets (a
		 * guest's "never" is 146 years): then nothing will wake.
		 */
		int64_t to = op % 16 == FZ_OP_CLOCK && pt != NULL ?
		    fake_clock_now_ns + (int64_t)(fz_bound() % 20000000000ULL) :
		    deadline;

		if (to < 0 || to - fake_clock_now_ns > FZ_HORIZON)
			return fz_end(ev);
		if (to > fake_clock_now_ns)
			fake_clock_now_ns = to;
		*ev = (struct plat_event){ .kind = PLAT_EV_TIMEOUT, .fd = -1 };
		return 0;
	}
	switch (op % 16) {
	case FZ_OP_FAULT: {
		uint64_t va = fz_ptr(pt->cookie, fz_u8(), 0);

		pt->running = false;
		*ev = (struct plat_event){ .kind = PLAT_EV_FAULT,
		    .cookie = pt->cookie, .addr = va, .signo = SIGSEGV,
		    .code = fz_u8() & 1 ? SEGV_ACCERR : SEGV_MAPERR, .fd = -1 };
		return 0;
	}
	case FZ_OP_TRAP: {
		const int *t = traps[fz_u8() % VK_NELEM(traps)];

		pt->running = false;
		*ev = (struct plat_event){ .kind = PLAT_EV_TRAP,
		    .cookie = pt->cookie, .signo = t[0], .code = t[1],
		    .addr = FZ_SYSCALL_SITE, .fd = -1 };
		return 0;
	}
	case FZ_OP_HOSTSIG:
		*ev = (struct plat_event){ .kind = PLAT_EV_HOSTSIG,
		    .signo = hostsigs[fz_u8() % VK_NELEM(hostsigs)], .fd = -1 };
		return 0;
	default:
		pt->running = false;
		fz_syscall(pt, ev);
		return 0;
	}
}

void
fz_boot(void)
{
	struct kern_config cfg = {
		.mem = 256ULL << 20, .uid = 0, .gid = 0, .cwd = "/tmp",
		.pids = 32, .fds = 256, .disk = 8ULL << 20,
		/* To see what an input does: FUZZ_STRACE=1 fuzz_syscalls FILE */
		.strace = getenv("FUZZ_STRACE") != NULL,
	};

	for (size_t i = 0; i < VK_NELEM(fz_calls); i++)
		if ((unsigned)fz_calls[i].nr < VK_NELEM(fz_bynr))
			fz_bynr[fz_calls[i].nr] = &fz_calls[i];
	fake_clock_frozen = true;
	fake_clock_now_ns = FZ_TREE_TIME;
	fake_console = true;
	kern_init(&cfg);
	if (vfs_boot_root("/", true) < 0 || vfs_boot_std() < 0)
		abort();
	fz_tree_boot();
	fz_state_boot();
	memset(fz.longpath, 'a', FZ_LONGPATH);
	for (size_t i = 0; i < FZ_LONGPATH; i += 200)
		fz.longpath[i] = '/';
	fake_event_source = fz_event;
}

void
fz_run(const uint8_t *data, size_t size)
{
	static char *const argv[] = { "init", NULL };
	static char *const envp[] = { "PATH=/bin", "HOME=/tmp", NULL };
	const char *why;

	fake_clock_now_ns = FZ_RUN_TIME;
	memset(&fz, 0, offsetof(typeof(fz), longpath));
	fz.p = data;
	fz.n = size;
	fake_reseed();
	if (kern_start("/bin/init", argv, envp, &why) < 0)
		abort();
	(void)kern_run();
	/* Every stub the sandbox made is gone with it. */
	if (fake_threads != NULL)
		abort();
	/* Nor does a System V IPC object outlive it. */
	if (ipc_max_idx(shm_family.ids) >= 0 ||
	    ipc_max_idx(sem_family.ids) >= 0 ||
	    ipc_max_idx(msg_family.ids) >= 0)
		abort();
	fz_check_mounts();
	fz_tree();
}

void
fz_put(struct fz_prog *p, const void *b, size_t n)
{
	n = VK_MIN(n, sizeof(p->b) - p->n);
	memcpy(p->b + p->n, b, n);
	p->n += n;
}

void
fz_put_call(struct fz_prog *p, unsigned nr, unsigned flags)
{
	uint8_t b[5] = { 0, 0, (uint8_t)nr, (uint8_t)(nr >> 8),
	    (uint8_t)flags };

	fz_put(p, b, sizeof(b));
}

void
fz_put_raw(struct fz_prog *p, uint64_t v)
{
	uint8_t sel = 0xf0;

	fz_put(p, &sel, 1);
	fz_put(p, &v, sizeof(v));
}

void
fz_put_path(struct fz_prog *p, const char *path)
{
	for (uint8_t i = 0; i < VK_NELEM(fz_paths); i++)
		if (strcmp(fz_paths[i], path) == 0 && i != FZ_PATH_LONG) {
			fz_put(p, &i, 1);
			return;
		}
	abort();
}
