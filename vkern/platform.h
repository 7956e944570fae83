/*
 * The platform interface: what the machine-independent kernel needs from
 * the host, and nothing more.
 *
 * vkern/ declares these hooks and host-linux/ implements them (the unit
 * tests and the fuzz harness bring a fake).  The model follows DragonFly's
 * vmspace_*() calls: a *space* is one guest address space, held on the host
 * by a stub process; a *thread* is one guest thread running in a space.
 * The kernel loads a thread's registers, lets it run, and is told what
 * stopped it.  Nothing here assumes ptrace, waitpid or any particular
 * host mechanism: a second backend plugs in behind the same calls.
 *
 * Unless a hook says otherwise it never blocks, and it is called only from
 * the kernel's one event loop thread.
 */
#ifndef VK_PLATFORM_H
#define VK_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch/x86/arch.h"

struct plat_space;
struct plat_thread;

/* Memory protections, as the guest's PROT_* bits. */
#define PLAT_PROT_READ  0x1
#define PLAT_PROT_WRITE 0x2
#define PLAT_PROT_EXEC  0x4

/*
 * --- The RAM file ---
 *
 * All guest memory lives in one file that the platform maps whole into the
 * kernel.  Offsets [0, plat_ram_size()) belong to the kernel's page
 * allocator.  A freshly allocated range must read as zeros: the allocator
 * discards ranges it frees.
 */
void *plat_ram_base(void);
uint64_t plat_ram_size(void);

/* Give the host back the pages of [off, off + len); they read as zero. */
void plat_ram_discard(uint64_t off, uint64_t len);

/*
 * Give the host back the free pages of the kernel's own heap, which its
 * allocator keeps after objects go.  Costs a walk of the heap: call it
 * when much was freed.
 */
void plat_heap_trim(void);

/*
 * Copy len bytes from src into the RAM file at off, as a memcpy to
 * plat_ram_base() + off would.  Meant for pages that were just allocated:
 * the host may back them without clearing them first.  src is kernel
 * memory (the RAM file mapping included) that does not overlap the range.
 */
void plat_ram_write(uint64_t off, const void *src, size_t len);

/*
 * --- Spaces and threads ---
 */

/* Facts about a new space that the kernel must respect. */
struct plat_space_info {
	uint64_t reserved_start;   /* guest addresses at or above this are */
				   /* the platform's (stub code, vdso) */
	uint64_t vdso_base;        /* the host vdso left in the space, or 0 */
	uint64_t vdso_start;       /* [vdso_start, vdso_end): vvar + vdso */
	uint64_t vdso_end;
	uint64_t own_start;        /* [own_start, own_end): another range */
	uint64_t own_end;          /* below reserved_start that is the */
				   /* platform's, kept as the vdso's; or 0 */
};

/*
 * Create a space with one thread.  The platform keeps ctx (owned by the
 * caller, who must keep it alive until the thread is destroyed): it loads
 * the thread's registers into ctx at each stop and takes them from ctx
 * when the thread runs.  The segment registers in ctx are valid on return;
 * the others are the stub's and must be set before the first run.
 * cookie comes back in every event of the thread.  Returns 0 or -errno
 * (-EAGAIN when the host refuses another process).  May block briefly
 * while the host starts the stub.
 */
int plat_space_create(void *cookie, struct arch_context *ctx,
    struct plat_space **spp, struct plat_thread **ptp,
    struct plat_space_info *info);

/*
 * A copy of from's space for a forked process, with one thread whose
 * registers live in ctx (as plat_space_create).  from is a thread the
 * kernel holds stopped (at a syscall).  The host mappings start as the
 * parent's were at the call (same RAM file ranges, same protections).
 * Returns 0 or -EAGAIN.  May block briefly.
 */
int plat_space_fork(struct plat_thread *from, void *cookie,
    struct arch_context *ctx, struct plat_space **spp,
    struct plat_thread **ptp);

/*
 * A new thread in from's space (from is held stopped, as for fork), its
 * registers in ctx as plat_space_create's; the caller sets them all
 * before it first runs.  Returns 0 or -EAGAIN.  May block briefly.
 */
int plat_thread_create(struct plat_thread *from, void *cookie,
    struct arch_context *ctx, struct plat_thread **ptp);

/*
 * End one thread of a space that keeps others, running or not; its
 * events stop and pt is freed.  May block briefly.
 */
void plat_thread_destroy(struct plat_thread *pt);

/* Kill the stub and free the space and all its threads. */
void plat_space_destroy(struct plat_space *sp);

/*
 * The guest wants [own_start, own_end) (plat_space_info) of sp: the
 * platform gives it up there for good, undoing what it did with it, and
 * leaves it unmapped.  Returns 0, or -errno when it keeps it.  May block
 * briefly: threads of the space that run are stopped for a moment.
 */
int plat_space_own_release(struct plat_space *sp);

/*
 * sp has no guest memory left (exec): the platform takes [own_start,
 * own_end) back if it gave it up, or keeps it.  Returns 0 when the range
 * is the platform's (the caller keeps it free of guest mappings), or
 * -errno when it is the guest's.
 */
int plat_space_own_reclaim(struct plat_space *sp);

/*
 * The host mappings a space holds besides those of the guest's map (the
 * stub's code and pages, and a margin): they count against the host's
 * own limit on mappings too (vm_map.h's VM_MAX_MAP_COUNT).
 */
#define PLAT_SPACE_OWN_MAPS 16

/*
 * Change the host mappings of a space: the kernel's page tables are the
 * truth and these are a cache of them.  Calls are queued and applied, in
 * order, by plat_space_flush() or before any thread of the space runs
 * again.  va, len and ramoff are page aligned.
 */
void plat_space_map(struct plat_space *sp, uint64_t va, uint64_t len,
    int prot, uint64_t ramoff);
void plat_space_unmap(struct plat_space *sp, uint64_t va, uint64_t len);
void plat_space_protect(struct plat_space *sp, uint64_t va, uint64_t len,
    int prot);

/* Apply queued changes.  Returns 0, or -ENOMEM when the host refused. */
int plat_space_flush(struct plat_space *sp);

/*
 * Let the thread run from the registers in its context until its next
 * stop.  Returns 0, or -errno when the space could not be brought up to
 * date (the kernel then kills the guest process).
 */
int plat_thread_run(struct plat_thread *pt);

/*
 * At a system-call stop a platform may leave out of the context what a
 * call seldom needs: r9 (a sixth argument), rsp, the flags (r11 and
 * eflags read 0 until then) and rbx, rbp, r12-r15.  The other registers,
 * the number and the first five arguments are always there.  This loads
 * the rest; the kernel calls it before it reads, copies or changes them.
 */
void plat_thread_regs_load(struct plat_thread *pt);

/*
 * The thread's FPU/vector state as an XSAVE image (what signal frames
 * hold): get returns its size (at most size) or -errno; set loads one
 * back and returns 0, or -EINVAL when the host refuses the image.
 */
long plat_thread_fpu_get(struct plat_thread *pt, void *buf, size_t size);
int plat_thread_fpu_set(struct plat_thread *pt, const void *buf,
    size_t size);

/*
 * Give the host CPU the stopped thread pt runs on to the space's other
 * running threads for a moment, as a host sched_yield would.
 */
void plat_thread_yield(struct plat_thread *pt);

/*
 * Stop a running thread soon: a PLAT_EV_STOPPED follows (or whatever stop
 * it reaches first).  For delivering a signal to a thread that runs.
 */
void plat_thread_interrupt(struct plat_thread *pt);

/*
 * --- Events ---
 */
enum plat_event_kind {
	PLAT_EV_NONE,
	PLAT_EV_SYSCALL,   /* stopped at a system call; context loaded */
	PLAT_EV_FAULT,     /* memory fault at addr (SIGSEGV or SIGBUS) */
	PLAT_EV_TRAP,      /* another synchronous CPU exception */
	PLAT_EV_GONE,      /* the host took the thread away (killed) */
	PLAT_EV_CONSOLE,   /* a watched console fd became ready */
	PLAT_EV_TIMEOUT,   /* the deadline passed */
	PLAT_EV_STOPPED,   /* stopped by plat_thread_interrupt; context loaded */
	PLAT_EV_HOSTSIG,   /* the host sent the kernel a signal (signo) */
	PLAT_EV_NET,       /* a watched network socket is ready (fd) */
};

struct plat_event {
	enum plat_event_kind kind;
	void *cookie;      /* the thread's cookie, for thread events */
	uint64_t addr;     /* fault address (si_addr) */
	int signo;         /* host signal number for FAULT and TRAP */
	int code;          /* si_code as the host reported it */
	int fd;            /* console fd, for CONSOLE; handle, for NET */
};

/*
 * Wait for the next event of any thread.  deadline_ns is an absolute
 * CLOCK_MONOTONIC time, or -1 to wait for ever.  Blocks the kernel: it is
 * the one place the event loop sleeps.  Returns 0 with *ev filled in.
 */
int plat_event_wait(struct plat_event *ev, int64_t deadline_ns);

/*
 * --- The console: the host's fds 0, 1 and 2 ---
 */

/* Both return a byte count or -errno; read never blocks (-EAGAIN). */
long plat_console_read(int fd, void *buf, size_t len);
long plat_console_write(int fd, const void *buf, size_t len);

/*
 * Positioned I/O and seeking on the host fd: the host answers, ESPIPE
 * for a terminal or a pipe.  pread never blocks (-EAGAIN).
 */
long plat_console_pread(int fd, void *buf, size_t len, int64_t off);
long plat_console_pwrite(int fd, const void *buf, size_t len, int64_t off);
int64_t plat_console_lseek(int fd, int64_t off, int whence);
/* ftruncate(2) of the host fd: 0, or the host's -errno (-EINVAL, -EBADF). */
int plat_console_truncate(int fd, uint64_t size);

/* poll(2) of the host fd with no wait: its revents (POLLIN, POLLOUT). */
short plat_console_poll(int fd, short events);

/*
 * The name /proc/PID/fd shows for console fd fd: the host's own for a
 * pipe, a socket or a file (as it was at start-up), /dev/console for a
 * terminal.  Always a NUL-terminated string in buf.
 */
void plat_console_name(int fd, char *buf, size_t size);

/* The host fd's status flags (O_APPEND, O_NONBLOCK, access mode). */
int plat_console_getfl(int fd);

/* Ask for a PLAT_EV_CONSOLE when fd is readable (on) or stop asking. */
void plat_console_watch(int fd, int on);

/* What fstat() of a console fd says, in the guest's struct stat layout. */
struct plat_console_stat {
	uint64_t dev, ino, rdev, size, blksize, blocks;
	uint32_t mode, nlink, uid, gid;
	int64_t atime_ns, mtime_ns, ctime_ns;
};
int plat_console_stat(int fd, struct plat_console_stat *st);

/*
 * Terminal ioctls the console passes through (TCGETS, TCGETS2,
 * TIOCGWINSZ...): arg points to a buffer of the size the request implies
 * (an int for TCFLSH and TCXONC, nothing for TIOCSBRK and TIOCCBRK).
 * TCSBRK is tcdrain's, whatever arg says: it waits until the host has
 * sent its output, so call it only when TIOCOUTQ reads 0; TCSETSW and
 * TCSETSF drain too.  Returns 0 or -errno (-ENOTTY when the fd is no
 * terminal).
 */
int plat_console_ioctl(int fd, unsigned long req, void *arg);

/*
 * --- Time, randomness, host facts ---
 */

/* Host clock readings in ns for CLOCK_REALTIME/MONOTONIC/BOOTTIME. */
int64_t plat_clock_ns(int clockid);
int64_t plat_clock_res_ns(int clockid);

/*
 * CPU time the host has given a space's stub, all its threads together
 * (those gone too), or one thread of it, in ns; a thread's may lag by a
 * host scheduler tick while it runs.  With userp, *userp is set to the
 * part spent in user mode, which costs a second host read.
 */
int64_t plat_space_cputime(struct plat_space *sp, int64_t *userp);
int64_t plat_thread_cputime(struct plat_thread *pt, int64_t *userp);

/* Fill buf with len random bytes. */
void plat_random(void *buf, size_t len);

/* The value the host gave the kernel itself for an auxv type (AT_HWCAP). */
uint64_t plat_host_auxv(unsigned long type);

int plat_ncpus(void);

/*
 * Make every host CPU the guest runs on pass a full memory barrier before
 * this returns (nothing to do with one); else the host's error.
 */
int plat_cpu_barrier(void);

/*
 * The host CPU's answer to CPUID leaf, subleaf: eax, ebx, ecx, edx in
 * out[0..3], for /proc/cpuinfo.  All zero where there is no CPUID.
 */
void plat_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);

/*
 * Whether the host's kernel shows the CPU flag name (Linux's name, as in
 * /proc/cpuinfo): 1 or 0; -1 when the host does not say.
 */
int plat_cpu_flag_shown(const char *name);

/* The CPU's model name as the host's kernel shows it, or NULL. */
const char *plat_cpu_model_name(void);

/* The host's uname release and version strings, for the guest's uname. */
const char *plat_os_release(void);
const char *plat_os_version(void);

/* Host directories for hostfs: see platform_hostfs.h. */
#include "vkern/platform_hostfs.h"

/* Sockets of a network outside the sandbox: see platform_net.h. */
#include "vkern/platform_net.h"

/*
 * --- The kernel's, for the platform ---
 *
 * Replace len bytes (within one page) of text at va in the address space
 * of the thread whose cookie is cookie, if they still read old, as a
 * debugger's write does: a page the mapping shares (a file's cached
 * page, or a fork's copy-on-write one) gets a copy of its own first, so
 * that the file and other processes keep the old bytes.  Text is private
 * memory the guest may execute and not write.  With new NULL, only
 * compare.  Returns 0, -EAGAIN when the bytes differ, -EFAULT when va is
 * no text, -ENOMEM.  Called from plat_event_wait and plat_thread_run.
 */
int kern_text_replace(void *cookie, uint64_t va, const void *old,
    const void *new, size_t len);

/*
 * --- Output of diagnostics and of --strace ---
 */
void plat_log_write(const char *buf, size_t len);
/* What a guest made vkernel say: to the log, or nowhere (--quiet). */
void plat_guest_log_write(const char *buf, size_t len);
void plat_trace_write(const char *buf, size_t len);

_Noreturn void plat_abort(void);

#endif
