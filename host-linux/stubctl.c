/*
 * Stub processes, as both backends start, fork and change them: through
 * ptrace, on a stub thread vkernel holds stopped.  A stub is forked from
 * vkernel and execs the stub image; its mappings change by batches of
 * mmap/munmap/mprotect calls the stub runs itself at one stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <elf.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host-linux/cleanup.h"
#include "host-linux/host.h"
#include "host-linux/stubctl.h"
#include "host-linux/stub/stub.h"
#include "vkern/platform.h"
#include "vkern/vk.h"

_Static_assert(sizeof(struct user_regs_struct) == sizeof(struct arch_regs),
    "arch_regs matches user_regs_struct");

extern const unsigned char stub_image[];
extern const size_t stub_image_len;

#define HASH_SIZE 256
static struct plat_thread *thash[HASH_SIZE];
static int stub_fd = -1;
static int stub_bell = -1;   /* systrap's doorbell, or -1 */
static const cpu_set_t *stub_cpus;   /* where a new stub runs, or NULL */
static int64_t vdso_lo_off, vdso_hi_off;


/* --- stops taken early --- */

/*
 * waitpid(-1) reports the stopped thread that comes first in the host's
 * lists, not the one that stopped first: a thread that makes calls
 * without pause is found again and again while a sibling's call waits
 * unserved, and a guest that spins in sched_yield until that sibling
 * moves never ends.  So once more than one thread lives, the event loop
 * takes every stop there is in one go and hands them out oldest first
 * before it asks the host again.  Every other wait for a thread looks
 * here first, since its stop may already have been taken.
 */
#define EARLY_MAX 64
static struct {
	pid_t tid;
	int st;
} early[EARLY_MAX];
static unsigned early_n;
static unsigned nthreads;

/* The oldest stop taken early of tid (-1: of any): its tid, or 0. */
static pid_t
early_take(pid_t tid, int *stp)
{
	for (unsigned i = 0; i < early_n; i++) {
		pid_t r = early[i].tid;

		if (tid != -1 && r != tid)
			continue;
		*stp = early[i].st;
		early_n--;
		memmove(&early[i], &early[i + 1],
		    (early_n - i) * sizeof(early[0]));
		return r;
	}
	return 0;
}

/* Take every stop the host has ready, up to EARLY_MAX. */
static void
early_fill(void)
{
	while (early_n < EARLY_MAX) {
		int st;
		pid_t r = waitpid(-1, &st, __WALL | WNOHANG);

		if (r <= 0)
			return;
		early[early_n].tid = r;
		early[early_n++].st = st;
	}
}

/* waitpid(tid, stp, __WALL), the stops taken early first. */
static pid_t
stop_wait(pid_t tid, int *stp)
{
	pid_t r = early_take(tid, stp);

	return r != 0 ? r : waitpid(tid, stp, __WALL);
}

pid_t
stub_next_stop(bool nohang, int *stp)
{
	pid_t pid = early_take(-1, stp);

	if (pid != 0)
		return pid;
	if (nohang) {
		pid = waitpid(-1, stp, __WALL | WNOHANG);
	} else {
		long r = host_sig_call(SYS_wait4, -1, (long)stp, __WALL, 0, 0);

		if (r < 0) {
			errno = (int)-r;
			return -1;
		}
		pid = (pid_t)r;
	}
	if (pid > 0 && nthreads > 1)
		early_fill();
	return pid;
}

/* --- the pid table --- */

static void
thash_add(struct plat_thread *pt)
{
	unsigned h = (unsigned)pt->tid % HASH_SIZE;
	int st;

	/* What is left of tid's last owner, reaped and gone. */
	while (early_take(pt->tid, &st) != 0)
		;
	pt->hnext = thash[h];
	thash[h] = pt;
	nthreads++;
}

void
thash_del(struct plat_thread *pt)
{
	struct plat_thread **pp = &thash[(unsigned)pt->tid % HASH_SIZE];

	for (; *pp != NULL; pp = &(*pp)->hnext) {
		if (*pp == pt) {
			*pp = pt->hnext;
			nthreads--;
			return;
		}
	}
}

struct plat_thread *
thash_find(pid_t tid)
{
	struct plat_thread *pt = thash[(unsigned)tid % HASH_SIZE];

	while (pt != NULL && pt->tid != tid)
		pt = pt->hnext;
	return pt;
}

/* --- set-up --- */

/* Where vvar and vdso lie around the vdso's ELF header: the same in every
 * process, so the kernel's own tell us the stubs'. */
static int
vdso_layout(struct vk_error **err)
{
	unsigned long vdso = getauxval(AT_SYSINFO_EHDR);
	unsigned long lo = vdso, hi = vdso;
	char line[256];
	FILE *f;

	if (vdso == 0)
		return 0;
	if ((f = fopen("/proc/self/maps", "re")) == NULL)
		return vk_error_make(err, errno, "open /proc/self/maps");
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long s, e;

		if (strstr(line, "[vvar") == NULL &&
		    strstr(line, "[vdso]") == NULL)
			continue;
		if (sscanf(line, "%lx-%lx", &s, &e) == 2) {
			lo = VK_MIN(lo, s);
			hi = VK_MAX(hi, e);
		}
	}
	fclose(f);
	vdso_lo_off = (int64_t)(lo - vdso);
	vdso_hi_off = (int64_t)(hi - vdso);
	return 0;
}

static int
stub_image_fd(struct vk_error **err)
{
	cleanup_close int fd = memfd_create("vkernel-stub",
	    MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t off = 0;

	if (fd < 0)
		return vk_error_make(err, errno, "create the stub image");
	while (off < stub_image_len) {
		ssize_t n = write(fd, stub_image + off, stub_image_len - off);

		if (n < 0)
			return vk_error_make(err, errno, "write the stub image");
		off += (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK |
	    F_SEAL_GROW | F_SEAL_WRITE) < 0)
		return vk_error_make(err, errno, "seal the stub image");
	stub_fd = steal_fd(&fd);
	return 0;
}

void
stubctl_set_bell(int fd)
{
	stub_bell = fd;
}

void
stubctl_set_cpus(const cpu_set_t *cpus)
{
	stub_cpus = cpus;
}

int
stubctl_init(struct vk_error **err)
{
	int r;

	if ((r = vdso_layout(err)) < 0 || (r = stub_image_fd(err)) < 0)
		return r;
	/* Without /proc, threads count their process's time: no error. */
	(void)cputime_init();
	if ((r = event_init(err)) < 0)
		return r;
	/*
	 * The kernel and every stub on the guest's CPUs, one by default: a
	 * ptrace stop wakes the other side, and across CPUs that costs ten
	 * times more here.  More CPUs let guest threads compute in
	 * parallel, at that price for each system call.
	 */
	if (sched_setaffinity(0, sizeof(cpu_set_t), hostinfo_guest_cpus()) < 0)
		return vk_error_make(err, errno, "keep to the guest's CPUs");
	return 0;
}

/* --- the stub's child side, between fork and exec --- */

/*
 * The host places a new process's mmap area, and the vdso first in it,
 * below its stack by RLIMIT_STACK plus up to 16 GiB of stack
 * randomization, less a random offset.  With the default 8 MiB that top
 * lies up to 4 GiB above STUB_BASE, so about one stub in 250 had its vdso
 * where the guest's space does not reach and the guest saw no [vvar] or
 * [vdso].  A stack limit of 8 GiB in the stub alone keeps the whole mmap
 * area below STUB_BASE; a host hard limit below that leaves it as it was.
 */
static void
stub_lower_mmap_base(void)
{
	const rlim_t want = 8ULL << 30;
	struct rlimit rl;

	if (getrlimit(RLIMIT_STACK, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ?
	    want : rl.rlim_max;
	setrlimit(RLIMIT_STACK, &rl);
}

static _Noreturn void
stub_child(int syncfd)
{
	char *argv[] = { "vkernel-stub", NULL };
	char *envp[] = { NULL };
	int ram, exe, bell;
	char c;

	setsid();
	/* Before the parent-death signal: a change of uid clears it. */
	if (sandbox_ns_stub_creds() < 0)
		_exit(127);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Stubs forked from this one are reaped by the host at once. */
	signal(SIGCHLD, SIG_IGN);
	/* The guest's CPUs, wherever vkernel itself runs, or stub_cpus. */
	(void)sched_setaffinity(0, sizeof(cpu_set_t), stub_cpus != NULL ?
	    stub_cpus : hostinfo_guest_cpus());
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	/* Its own namespaces where the host allows: nothing to share. */
	unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC |
	    CLONE_NEWUTS);
	/* Lift the fds out of the way first: their numbers may collide. */
	ram = fcntl(ram_fd(), F_DUPFD_CLOEXEC, 64);
	exe = fcntl(stub_fd, F_DUPFD_CLOEXEC, 64);
	bell = stub_bell >= 0 ? fcntl(stub_bell, F_DUPFD_CLOEXEC, 64) : 64;
	syncfd = fcntl(syncfd, F_DUPFD_CLOEXEC, 64);
	if (ram < 0 || exe < 0 || bell < 0 || syncfd < 0 ||
	    dup2(ram, STUB_RAM_FD) < 0 ||
	    dup3(exe, STUB_EXE_FD, O_CLOEXEC) < 0 ||
	    (stub_bell >= 0 && dup2(bell, STUB_BELL_FD) < 0) ||
	    dup3(syncfd, STUB_SYNC_FD, O_CLOEXEC) < 0)
		_exit(127);
	syncfd = STUB_SYNC_FD;
	stub_lower_mmap_base();
	close_range(STUB_SYNC_FD + 1, ~0U, 0);
	close_range(0, STUB_RAM_FD - 1, 0);
	/* Wait until the parent has seized us. */
	if (read(syncfd, &c, 1) != 1)
		_exit(127);
	syscall(SYS_execveat, STUB_EXE_FD, "", argv, envp, AT_EMPTY_PATH);
	_exit(127);
}

/* --- stopping and starting a stub thread --- */

/*
 * A signal the CPU raised for an instruction of the thread (a fault or a
 * trap), not one sent to it.  The host queues it on the thread and hands
 * it over before anything else at the next resume.
 */
bool
sig_from_cpu(int sig, const siginfo_t *si)
{
	switch (sig) {
	case SIGSEGV:
	case SIGBUS:
	case SIGILL:
	case SIGFPE:
	case SIGTRAP:
		return si->si_code > 0;
	default:
		return false;
	}
}

/*
 * A stop that PTRACE_INTERRUPT won may have overtaken a fault of the
 * guest's code: the host then still holds the fault signal, and would
 * deliver it at the next resume, whatever the thread runs then.  Finds
 * such a signal in the thread's own queue; returns it (with *si) or 0.
 */
static int
thread_queued_fault(struct plat_thread *pt, siginfo_t *si)
{
	struct __ptrace_peeksiginfo_args a = { .off = 0, .flags = 0 };
	siginfo_t q[8];
	long n;

	a.nr = (int32_t)VK_NELEM(q);
	n = ptrace(PTRACE_PEEKSIGINFO, pt->tid, &a, q);
	for (long i = 0; i < n; i++) {
		if (sig_from_cpu(q[i].si_signo, &q[i])) {
			*si = q[i];
			return q[i].si_signo;
		}
	}
	return 0;
}

/*
 * Note at an interrupt stop that the host holds a fault the kernel will
 * be told of now: its delivery, at the next resume, is stale and is
 * dropped (the guest instruction faults again if it still must).
 * Returns the signal (with *si) or 0.
 */
int
thread_take_fault(struct plat_thread *pt, siginfo_t *si)
{
	if (pt->stale != 0)
		return 0;
	return pt->stale = thread_queued_fault(pt, si);
}

/* Wait for tid's next stop; a stub that died instead gives -ESRCH. */
int
stub_wait(pid_t tid, int *stp)
{
	for (;;) {
		pid_t r = stop_wait(tid, stp);

		if (r == tid)
			return WIFSTOPPED(*stp) ? 0 : -ESRCH;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

int
getregs(pid_t tid, struct arch_regs *r)
{
	return ptrace(PTRACE_GETREGS, tid, 0, r) < 0 ? -errno : 0;
}

int
setregs(pid_t tid, const struct arch_regs *r)
{
	return ptrace(PTRACE_SETREGS, tid, 0, r) < 0 ? -errno : 0;
}

/*
 * A signal stop of a thread borrowed to run stub code from entry, its
 * registers read into r.  Returns 0 for the int3 that ends the code, 1
 * for a signal to drop, -EFAULT when the stub's own code failed.
 *
 * Signals sent to the stub (a forked stub's SIGCHLD, which the host
 * delivers to a traced stub although it ignores it; a kill from outside)
 * are dropped, as the guest never sees them either.  A fault of the
 * guest's code that the host still held when the thread was borrowed
 * comes before the stub runs an instruction: dropped too, as the guest
 * instruction faults again if it still must.
 */
static int
stub_signal(struct plat_thread *pt, uint64_t entry, int sig,
    struct arch_regs *r)
{
	siginfo_t si;
	int e;

	if (ptrace(PTRACE_GETSIGINFO, pt->tid, 0, &si) < 0)
		return -errno;
	if (!sig_from_cpu(sig, &si))
		return 1;
	if ((e = getregs(pt->tid, r)) < 0)
		return e;
	if (sig == pt->stale || (r->rip == entry &&
	    (uint64_t)(uintptr_t)si.si_addr != entry)) {
		if (sig == pt->stale)
			pt->stale = 0;
		return 1;
	}
	return sig == SIGTRAP ? 0 : -EFAULT;
}

/*
 * Borrow a stopped stub thread to run the platform's own code: load r,
 * continue to the int3 that ends each entry point, read r back.  The
 * guest's registers must be loaded again before the guest runs.
 */
int
stub_call(struct plat_thread *pt, struct arch_regs *r)
{
	uint64_t entry = r->rip;
	int st, e;

	r->orig_rax = (uint64_t)-1;
	pt->regs_valid = false;
	if ((e = setregs(pt->tid, r)) < 0)
		return e;
	for (;;) {
		if (ptrace(PTRACE_CONT, pt->tid, 0, 0) < 0)
			return -errno;
		if ((e = stub_wait(pt->tid, &st)) < 0)
			return e;
		if ((st >> 16) == PTRACE_EVENT_FORK ||
		    (st >> 16) == PTRACE_EVENT_CLONE) {
			/* An injected fork or clone: note the child, go on. */
			unsigned long child;

			if (ptrace(PTRACE_GETEVENTMSG, pt->tid, 0, &child) < 0)
				return -errno;
			pt->sp->spawned = (pid_t)child;
		} else if ((st >> 16) == PTRACE_EVENT_STOP) {
			/*
			 * An interrupt meant for the guest thread (or a group
			 * stop) stops the stub's own code instead: the kernel
			 * already has the thread, so the stop has done its
			 * job.  A fault it overtook is stale from now on.
			 */
			siginfo_t si;

			pt->interrupted = false;
			(void)thread_take_fault(pt, &si);
		} else if ((st >> 16) != 0) {
			return -EFAULT;
		} else if ((e = stub_signal(pt, entry, WSTOPSIG(st), r)) <= 0) {
			return e;
		}
	}
}

long
stub_syscall(struct plat_thread *pt, long nr, uint64_t a0, uint64_t a1,
    uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	struct arch_regs r = pt->sp->tmpl;
	int e;

	r.rip = STUB_SYSCALL1;
	r.rax = (uint64_t)nr;
	r.rdi = a0;
	r.rsi = a1;
	r.rdx = a2;
	r.r10 = a3;
	r.r8 = a4;
	r.r9 = a5;
	if ((e = stub_call(pt, &r)) < 0)
		return e;
	return (long)r.rax;
}

/* --- spaces --- */

/* Wait until a killed or exiting thread is gone, for good. */
void
thread_reap(pid_t tid)
{
	int st;

	for (;;) {
		pid_t r = stop_wait(tid, &st);

		if (r < 0 && errno != EINTR)
			return;
		if (r == tid && !WIFSTOPPED(st))
			return;
		if (r == tid)
			ptrace(PTRACE_CONT, tid, 0, 0);
	}
}

/*
 * Kill a stub process: through its pidfd, the only way the lock-down
 * leaves (pidfd_send_signal), or by pid before there is one, at start-up.
 */
void
stub_kill(struct plat_space *sp)
{
	if (sp->pidfd >= 0)
		(void)syscall(SYS_pidfd_send_signal, sp->pidfd, SIGKILL, NULL,
		    0);
	else
		kill(sp->pid, SIGKILL);
}

void
stub_reap(struct plat_space *sp)
{
	stub_kill(sp);
	thread_reap(sp->pid);
}

/* Make a held thread run nr (exit or exit_group); wait until it is gone. */
void
thread_exit_now(struct plat_thread *pt, const struct arch_regs *tmpl,
    long nr)
{
	struct arch_regs r = *tmpl;

	r.rip = STUB_SYSCALL1;
	r.rax = (uint64_t)nr;
	r.rdi = 0;
	r.orig_rax = (uint64_t)-1;
	if (setregs(pt->tid, &r) == 0 &&
	    ptrace(PTRACE_CONT, pt->tid, 0, 0) == 0)
		thread_reap(pt->tid);
}

/*
 * Trace a new stub.  Its change of uid (sandbox_ns_stub_creds) makes it
 * not dumpable until its next call makes it so again, and a seize that
 * comes between is EPERM: a loaded host can preempt the child there.
 */
static int
stub_seize(pid_t pid)
{
	for (int i = 0;; i++) {
		if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_EXITKILL |
		    PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC |
		    PTRACE_O_TRACEFORK | PTRACE_O_TRACECLONE) == 0)
			return 0;
		if (errno != EPERM || i == 1000)
			return -errno;
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
}

/* Start the stub process and take it to its hello stop. */
static int
stub_start(struct plat_space *sp, struct plat_thread *pt)
{
	int sync[2], st, e;
	pid_t pid;

	if (pipe2(sync, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		e = -errno;
		close(sync[0]);
		close(sync[1]);
		return e == -ENOMEM ? -EAGAIN : e;
	}
	if (pid == 0)
		stub_child(sync[0]);
	close(sync[0]);
	sp->pid = pt->tid = pid;
	/* After the lock-down a stub is signalled through it alone. */
	sp->pidfd = proc_pidfd(pid);
	e = sp->pidfd < 0 ? sp->pidfd : 0;
	if (e == 0)
		e = stub_seize(pid);
	if (write(sync[1], "g", 1) != 1 && e == 0)
		e = -errno;
	close(sync[1]);
	if (e == 0)
		e = stub_wait(pid, &st);
	if (e == 0 && (st >> 8) != (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
		e = -EIO;
	if (e == 0 && ptrace(PTRACE_SYSEMU, pid, 0, 0) < 0)
		e = -errno;
	if (e == 0)
		e = stub_wait(pid, &st);
	if (e == 0 && WSTOPSIG(st) != (SIGTRAP | 0x80))
		e = -EIO;
	if (e == 0)
		e = getregs(pid, &sp->tmpl);
	if (e < 0) {
		stub_reap(sp);
		return e;
	}
	return 0;
}

/* Map a stub's own batch page over whatever is at its address. */
int
stub_map_batch(struct plat_thread *pt, uint64_t ctloff)
{
	long r = stub_syscall(pt, SYS_mmap, STUB_BATCH_PAGE, VK_PAGE_SIZE,
	    PROT_READ, MAP_SHARED | MAP_FIXED, STUB_RAM_FD, ctloff);

	if (r < 0)
		return (int)r;
	return r == (long)STUB_BATCH_PAGE ? 0 : -EIO;
}

/* Drop the stub's host stack and map its batch page. */
static int
stub_prepare(struct plat_space *sp, struct plat_thread *pt, uint64_t ctloff)
{
	uint64_t sp0 = VK_ROUND_DOWN(sp->tmpl.rsi, VK_PAGE_SIZE);
	uint64_t lo = sp0 - (1 << 20), hi = sp0 + (1 << 20);
	long r;

	/*
	 * The host may have put the stack's top within a megabyte of the
	 * top of user space (1 time in 16,384): a range past it would be
	 * EINVAL.
	 */
	if (hi > ARCH_TASK_SIZE)
		hi = ARCH_TASK_SIZE;
	r = stub_syscall(pt, SYS_munmap, lo, hi - lo, 0, 0, 0, 0);
	if (r < 0)
		return (int)r;
	return stub_map_batch(pt, ctloff);
}

/* Start pt's life in its space: known to the event loop, held. */
void
thread_link(struct plat_space *sp, struct plat_thread *pt, bool traced)
{
	pt->sp = sp;
	pt->held = true;
	pt->sched_fd = -1;
	if (pt == sp->main)
		sp->stat_fd = -1;
	pt->snext = sp->threads;
	sp->threads = pt;
	if (traced)
		thash_add(pt);
}

void
thread_unlink(struct plat_thread *pt)
{
	struct plat_thread **pp;

	for (pp = &pt->sp->threads; *pp != NULL; pp = &(*pp)->snext) {
		if (*pp == pt) {
			*pp = pt->snext;
			break;
		}
	}
	thash_del(pt);
}

/* Free a thread that was linked, and what it holds. */
void
thread_free(struct plat_thread *pt)
{
	if (pt->sched_fd >= 0)
		close(pt->sched_fd);
	free(pt);
}


int
stub_space_new(struct plat_space **spp, struct plat_space_info *info)
{
	struct plat_space *sp = calloc(1, sizeof(*sp));
	struct plat_thread *pt = calloc(1, sizeof(*pt));
	uint64_t ctloff, vdso;
	int slot, e;

	if (sp == NULL || pt == NULL || (slot = ram_ctl_alloc()) < 0) {
		free(sp);
		free(pt);
		return -EAGAIN;
	}
	sp->pidfd = -1;
	sp->slot = (unsigned)slot;
	sp->batch = ram_ctl_page(sp->slot, &ctloff);
	sp->main = pt;
	pt->sp = sp;
	if ((e = stub_start(sp, pt)) < 0 ||
	    (e = stub_prepare(sp, pt, ctloff)) < 0) {
		if (sp->pid > 0 && e != 0)
			stub_reap(sp);
		if (sp->pidfd >= 0)
			close(sp->pidfd);
		ram_ctl_free(sp->slot);
		free(sp);
		free(pt);
		return e;
	}
	vdso = sp->tmpl.rdi;
	thread_link(sp, pt, true);
	info->reserved_start = STUB_BASE;
	info->vdso_base = vdso;
	info->vdso_start = vdso ? vdso + (uint64_t)vdso_lo_off : 0;
	info->vdso_end = vdso ? vdso + (uint64_t)vdso_hi_off : 0;
	*spp = sp;
	return 0;
}

int
stub_space_fork(struct plat_thread *from, struct plat_space **spp,
    int (*setup)(struct plat_space *sp, uint64_t ctloff, void *arg),
    void *arg)
{
	struct plat_space *parent = from->sp, *sp;
	struct plat_thread *pt;
	uint64_t ctloff;
	int slot, e, st;
	long r;

	if ((e = stub_space_flush(parent)) < 0)
		return e;
	if ((slot = ram_ctl_alloc()) < 0)
		return -EAGAIN;
	parent->spawned = 0;
	r = stub_syscall(from, SYS_fork, 0, 0, 0, 0, 0, 0);
	if (r < 0 || parent->spawned <= 0) {
		ram_ctl_free((unsigned)slot);
		return r < 0 ? (int)r : -EAGAIN;
	}
	sp = vk_xcalloc(1, sizeof(*sp));
	pt = vk_xcalloc(1, sizeof(*pt));
	sp->pid = pt->tid = parent->spawned;
	sp->pidfd = proc_pidfd(sp->pid);
	sp->slot = (unsigned)slot;
	sp->batch = ram_ctl_page(sp->slot, &ctloff);
	sp->tmpl = parent->tmpl;
	sp->main = pt;
	pt->sp = sp;
	/*
	 * The child starts stopped (auto-attached); give it its own page, or
	 * let setup do it.  Without a pidfd (no fd left) it is ended from
	 * its stop.
	 */
	if ((e = stub_wait(pt->tid, &st)) < 0 ||
	    (e = sp->pidfd < 0 ? -EAGAIN : 0) < 0 ||
	    (e = setup != NULL ? setup(sp, ctloff, arg) :
	    stub_map_batch(pt, ctloff)) < 0) {
		if (sp->pidfd >= 0)
			stub_reap(sp);
		else if (e == -EAGAIN)
			thread_exit_now(pt, &sp->tmpl, SYS_exit_group);
		if (sp->pidfd >= 0)
			close(sp->pidfd);
		ram_ctl_free((unsigned)slot);
		free(pt);
		free(sp);
		return e;
	}
	thread_link(sp, pt, true);
	*spp = sp;
	return 0;
}

/*
 * The host's teardown of a stub's memory takes a while (~0.7 ms for a
 * compiler's): the stub dies on any CPU the host lets vkernel use, not
 * only the guest's, where it would hold up the guest, and nothing waits
 * for it.  The event loop reaps it with the children it does not know.
 * A killed stub runs no instruction more, so its control page may go to
 * the next stub at once.
 */
void
stub_space_free(struct plat_space *sp)
{
	struct plat_thread *pt;

	for (pt = sp->threads; pt != NULL; pt = pt->snext)
		(void)sched_setaffinity(pt->tid, sizeof(cpu_set_t),
		    hostinfo_host_cpus());
	stub_kill(sp);
	if (sp->pidfd >= 0)
		close(sp->pidfd);
	while ((pt = sp->threads) != NULL) {
		sp->threads = pt->snext;
		thash_del(pt);
		if (pt != sp->main)
			thread_free(pt);
	}
	ram_ctl_free(sp->slot);
	if (sp->stat_fd >= 0)
		close(sp->stat_fd);
	thread_free(sp->main);
	free(sp);
}

/* A thread of sp the kernel holds stopped, to run stub code in. */
struct plat_thread *
held_thread(struct plat_space *sp)
{
	if (sp->main->held)
		return sp->main;
	for (struct plat_thread *pt = sp->threads; pt != NULL; pt = pt->snext)
		if (pt->held)
			return pt;
	return NULL;
}

/*
 * The host's time ns (user part *userp) less what a systrap handler spun
 * while vkernel served the thread (spun: user time on the host, but
 * vkernel's service, which the kernel counts itself), never below the
 * time last reported (*last): a handler the host preempted while
 * vkernel counted its spin would otherwise turn the clock back.
 */
static int64_t
cputime_less_spun(int64_t ns, int64_t *userp, int64_t spun, int64_t *last)
{
	int64_t own = VK_MAX(ns - spun, *last);

	if (userp != NULL)
		*userp = VK_MIN(VK_MAX(*userp - (ns - own), 0), own);
	*last = own;
	return own;
}

int64_t
stub_space_cputime(struct plat_space *sp, int64_t *userp)
{
	/* The host's CPU clock of another process: ~pid << 3 | CPUCLOCK_SCHED. */
	clockid_t clk = (clockid_t)((~(unsigned)sp->pid << 3) | 2);
	struct timespec ts;
	int64_t ns = 0;

	if (clock_gettime(clk, &ts) == 0)
		ns = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	if (userp != NULL) {
		if (sp->stat_fd < 0)
			sp->stat_fd = cputime_open(sp->pid, 0, "stat");
		*userp = sp->stat_fd >= 0 ? cputime_user_ns(sp->stat_fd, ns) :
		    ns;
	}
	return cputime_less_spun(ns, userp, sp->spun, &sp->cpu_last);
}

int64_t
stub_thread_cputime(struct plat_thread *pt, int64_t *userp)
{
	int64_t ns = -1;
	int fd;

	if (pt->sched_fd < 0)
		pt->sched_fd = cputime_open(pt->sp->pid, pt->tid, "schedstat");
	if (pt->sched_fd >= 0)
		ns = cputime_sched_ns(pt->sched_fd);
	if (ns < 0)
		return stub_space_cputime(pt->sp, userp);
	ns = VK_MAX(ns - pt->cpu_base, 0);
	if (userp != NULL) {
		/* Rarely asked (RUSAGE_THREAD): not worth an fd per thread. */
		fd = cputime_open(pt->sp->pid, pt->tid, "stat");
		*userp = fd >= 0 ? cputime_user_ns(fd, ns) : ns;
		if (fd >= 0)
			close(fd);
	}
	return cputime_less_spun(ns, userp, pt->spun, &pt->cpu_last);
}

void
stub_thread_cputime_reset(struct plat_thread *pt)
{
	pt->cpu_base = pt->spun = pt->cpu_last = 0;
	pt->cpu_base = stub_thread_cputime(pt, NULL);
	pt->cpu_last = 0;
}

/* --- mapping changes, batched --- */

/* For --stats: the batches run, the calls in them and their time. */
static struct {
	uint64_t batches, calls;
	int64_t ns;
} batch_stats;

void
stub_stats_print(void)
{
	fprintf(stderr, "%-20s %10lu %8lu %12.1f %10lu\n", "(mapping batch)",
	    (unsigned long)batch_stats.batches,
	    (unsigned long)batch_stats.calls, (double)batch_stats.ns / 1e3,
	    (unsigned long)(batch_stats.batches == 0 ? 0 :
	    batch_stats.ns / (int64_t)batch_stats.batches));
}

/*
 * Every batched call changes the range [va, va + len).  The kernel's map
 * ends below the stub's own pages (plat_space_info.reserved_start), so a
 * range that reaches them is a kernel bug: it is refused, and the flush
 * fails, rather than unmapping the code the stub runs.
 */
static void
batch_add(struct plat_space *sp, long nr, uint64_t va, uint64_t len,
    uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	int e;

	if (len > STUB_BASE || va > STUB_BASE - len) {
		vk_log("stub %d: mapping call %ld on [%#lx, +%#lx) refused: "
		    "it reaches the stub", sp->pid, nr, (unsigned long)va,
		    (unsigned long)len);
		sp->error = -EFAULT;
		return;
	}
	if (sp->nbatch == STUB_BATCH_MAX && (e = stub_space_flush(sp)) < 0)
		sp->error = e;
	sp->batch[sp->nbatch][0] = (uint64_t)nr;
	sp->batch[sp->nbatch][1] = va;
	sp->batch[sp->nbatch][2] = len;
	sp->batch[sp->nbatch][3] = a2;
	sp->batch[sp->nbatch][4] = a3;
	sp->batch[sp->nbatch][5] = a4;
	sp->batch[sp->nbatch][6] = a5;
	sp->nbatch++;
}

void
stub_space_map(struct plat_space *sp, uint64_t va, uint64_t len, int prot,
    uint64_t ramoff)
{
	batch_add(sp, SYS_mmap, va, len, (uint64_t)prot,
	    MAP_SHARED | MAP_FIXED, STUB_RAM_FD, ramoff);
}

void
stub_space_unmap(struct plat_space *sp, uint64_t va, uint64_t len)
{
	batch_add(sp, SYS_munmap, va, len, 0, 0, 0, 0);
}

void
stub_space_protect(struct plat_space *sp, uint64_t va, uint64_t len,
    int prot)
{
	batch_add(sp, SYS_mprotect, va, len, (uint64_t)prot, 0, 0, 0);
}

int
stub_space_flush(struct plat_space *sp)
{
	struct plat_thread *pt;
	struct arch_regs r;
	int e = sp->error;
	int64_t t0;

	sp->error = 0;
	if (sp->nbatch == 0 || (pt = held_thread(sp)) == NULL)
		return e;
	t0 = plat_clock_ns(CLOCK_MONOTONIC);
	r = sp->tmpl;
	r.rip = STUB_BATCH;
	r.rbx = STUB_BATCH_PAGE;
	r.r12 = sp->nbatch;
	if ((e = stub_call(pt, &r)) == 0 && r.r13 != sp->nbatch) {
		/* The host refused a mapping: it is out of memory. */
		vk_log_guest("stub %d: host mapping call %lu failed: "
		    "errno %ld", sp->pid, (unsigned long)sp->batch[r.r13][0],
		    -(long)r.rax);
		e = -ENOMEM;
	}
	batch_stats.batches++;
	batch_stats.calls += sp->nbatch;
	batch_stats.ns += plat_clock_ns(CLOCK_MONOTONIC) - t0;
	sp->nbatch = 0;
	return e;
}
