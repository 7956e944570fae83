/*
 * The kernel's entry points for the platform's main(), and the kern_*
 * functions that handlers, exec and the tests share.  Grouped by file.
 */
#ifndef VK_KERN_KERN_H
#define VK_KERN_KERN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vkern/kern/elf.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"

struct file;
struct kcount;
struct kru;
struct proc;
struct thread;
struct plat_event;
struct vm_map;

/* Boot-time settings, from the command line. */
struct kern_config {
	uint64_t mem;          /* --mem: bytes of guest memory */
	bool strace;           /* --strace */
	bool stats;            /* --stats */
	bool sysring;          /* --crash-dir: keep each thread's last calls */
	uint32_t uid, gid;     /* the guest's credentials */
	const char *cwd;       /* pid 1's working directory, if it exists */
	/* The sandbox's limits; 0 for the defaults below, or none. */
	unsigned pids;         /* --pids: processes plus threads */
	unsigned fds;          /* --fds: RLIMIT_NOFILE, and open files */
	int64_t timeout_ns;    /* --timeout: wall clock */
	int64_t cpu_ns;        /* --cpu-time: CPU time of all processes */
	uint64_t disk;         /* --disk: bytes of overlay and tmpfs data */
	bool as_pid_1;         /* --as-pid-1: the command is init itself */
	const char *hostname;  /* --hostname: uname's nodename; NULL: "vkernel" */
	bool net_host;         /* --net=host: Internet sockets are the host's */
	/* Host fds 0 to console_fds - 1 are pid 1's (3 + --preserve-fds). */
	unsigned console_fds;
};

/* The sandbox's processes plus threads when the config says nothing. */
#define KERN_MAX_TASKS 4096
/* Its open files when the config says nothing (as fs.nr_open). */
#define KERN_MAX_FILES 1048576

/* The sandbox limit that ended it, if one did. */
enum kern_limit {
	KERN_LIMIT_NONE,
	KERN_LIMIT_TIMEOUT,    /* --timeout */
	KERN_LIMIT_CPU,        /* --cpu-time */
};

/* How the sandbox ended. */
struct kern_result {
	int status;            /* the command's wait status */
	enum kern_limit limit;
	bool limit_killed;     /* the limit's SIGKILL came */
};

/* kern_boot.c */
void kern_init(const struct kern_config *cfg);

/*
 * The sandbox's boot on CLOCK_MONOTONIC, fixed by the first call (which
 * kern_init makes): what the guest's uptime counts from, in sysinfo and
 * /proc alike.  sys_time.c.
 */
int64_t kern_boot_ns(void);
/*
 * A guest timespec as a CLOCK_MONOTONIC deadline: relative, or absolute
 * on clock.  A deadline already past is "now" (0); one beyond what the
 * clock can count is none (-1).  Returns 0, -EFAULT or -EINVAL.
 * sys_time.c.
 */
int ts_clock_deadline(struct thread *td, uaddr_t uts, bool abs, int clock,
    int64_t *dl);
const struct kern_config *kern_cfg(void);

/*
 * Start the command running path: pid 2 under vkernel's init, or pid 1
 * with config.as_pid_1.  On failure returns -errno and, for
 * -ENOEXEC, sets *whyp to what is wrong with the file.
 */
int kern_start(const char *path, char *const argv[], char *const envp[],
    const char **whyp);

/* Run the guest until the command is gone.  Returns how it ended. */
struct kern_result kern_run(void);

/* Write the --stats table to the log. */
void kern_stats_print(void);
/* --stats: a page fault served in ns, or answered with a signal. */
void kern_stats_fault(int64_t ns, bool signalled);

/*
 * kern_limit.c: --timeout and --cpu-time.  limit_start starts the wall
 * clock; limit_next is when the loop must next call limit_expire;
 * limit_proc_gone keeps the CPU time of a process that is freed;
 * limit_result says which limit, if any, ended the sandbox.
 */
void limit_start(int64_t now);
int64_t limit_next(void);
void limit_expire(int64_t now);
void limit_proc_gone(const struct proc *p);
void limit_result(struct kern_result *res);

/* sched.c */
void sched_setrun(struct thread *td);
void sched_park(struct thread *td);
void sched_unpark(struct thread *td);
void sched_wakeup(struct thread *td);
void sched_console_ready(int fd);
void sched_wake_chan(const void *chan);
int64_t sched_next_deadline(void);
void sched_expire(int64_t now);
struct thread *sched_next_runnable(void);
void sched_forget(struct thread *td);

/* vfs/timerfd.c */
int64_t timerfd_next(void);
void timerfd_expire(int64_t now);

/* The earlier of two deadlines or times, where -1 is none. */
static inline int64_t
time_earliest(int64_t a, int64_t b)
{
	if (a < 0)
		return b;
	return b < 0 || a < b ? a : b;
}

/*
 * cputime.c: CPU-time accounting.
 *
 * cpu_count adds to td's counts and its process's.  cpu_proc_ns and
 * cpu_thread_ns give CPU time in ns, and with userp its user part.
 * cpu_check_at: the monotonic time at which a CPU clock with cpu_left ns
 * to go is worth looking at again.
 */
void cpu_count(struct thread *td, const struct kcount *k);
int64_t cpu_proc_ns(const struct proc *p, int64_t *userp);
int64_t cpu_thread_ns(const struct thread *td, int64_t *userp);
int64_t cpu_check_at(int64_t now, int64_t cpu_left);

/*
 * getrusage's figures for who (RUSAGE_SELF, RUSAGE_CHILDREN, VK_RUSAGE_BOTH
 * of p; RUSAGE_THREAD of td, a thread of p); cpu_rusage_out copies them
 * out as a struct rusage.  cpu_proc_exit keeps p's own as it exits (its
 * space still there); cpu_reap adds a waited-for child's to its parent's.
 */
#define VK_RUSAGE_BOTH (-2)   /* Linux's, for wait; not in libc */
void cpu_rusage(struct thread *td, struct proc *p, int who, struct kru *ru);
int cpu_rusage_out(struct thread *td, const struct kru *ru, uaddr_t u);
void cpu_proc_exit(struct proc *p);
void cpu_reap(struct proc *parent, struct proc *child);

/*
 * A CPU clock: a process's (tid 0) or one of its threads', and the
 * sample, as Linux encodes them in a clock id (CPUCLOCK_*).
 */
#define CPUCLOCK_PROF 0     /* user and system time */
#define CPUCLOCK_VIRT 1     /* user time */
#define CPUCLOCK_SCHED 2    /* run time, to the ns */
#define CPUCLOCK_PERTHREAD 4
struct cpuclock {
	int pid, tid, which;
};

/* Whether clk names a CPU clock, valid or not. */
bool cpuclock_is(int clk);
/*
 * Resolve clk for td: the fixed ids, and the ~id << 3 | sample that
 * clock_getcpuclockid and pthread_getcpuclockid make.  A thread clock
 * must be of td's process; a process clock may be any process's (a
 * zombie's too), and for clock_gettime (gettime) td's own tid names its
 * process, as Linux's pid_for_clock() has it.  Returns 0 or -EINVAL.
 */
int cpuclock_get(struct thread *td, int clk, bool gettime,
    struct cpuclock *cc);
/* Read a clock in ns: 0, or -ESRCH when its process or thread is gone. */
int cpuclock_read(const struct cpuclock *cc, int64_t *nsp);
int64_t cpuclock_res(const struct cpuclock *cc);

/*
 * The CPU timers of a process: ITIMER_VIRTUAL, ITIMER_PROF, RLIMIT_CPU,
 * RLIMIT_RTTIME.
 * cpu_timers_init disarms the itimers of a new or forked process, its
 * limits set;
 * cpu_timers_arm asks for a look at once, after any of them changed;
 * cpu_timers_check, when p->cpu_check has come, fires what ran out.
 */
void cpu_timers_init(struct proc *p);
void cpu_timers_arm(struct proc *p);
void cpu_timers_check(struct proc *p, int64_t now);
/* td blocks (or takes a real-time policy): its RLIMIT_RTTIME restarts. */
void cpu_rt_block(struct thread *td);

/* sys_timer.c */
int64_t timers_next(void);
void timers_expire(int64_t now);

/* POSIX timers (sys_ptimer.c): the earliest deadline, firing, deleting. */
int64_t ptimer_next(void);
void ptimer_expire(int64_t now);
void ptimer_drop_all(struct proc *p);

/*
 * sys_info.c: the sandbox's own host and domain names, as a UTS
 * namespace of its own holds them (uname, sethostname, setdomainname,
 * /proc/sys/kernel/{hostname,domainname}).  uts_name gives the current
 * one, NUL-terminated; uts_set_name makes the first len bytes of name
 * (at most UTS_NAME_MAX; a NUL among them ends it early) the new one.
 */
enum uts_which {
	UTS_NODENAME,
	UTS_DOMAINNAME,
};
#define UTS_NAME_MAX 64        /* __NEW_UTS_LEN */
const char *uts_name(enum uts_which w);
void uts_set_name(enum uts_which w, const char *name, size_t len);

/* sys_pidfd.c: the pid a pidfd names, or -EBADF. */
int pidfd_pid(struct thread *td, int fd);

/* sys_futex.c: wake up to n waiters of p's futex word at uaddr. */
long futex_wake_addr(struct proc *p, uint64_t uaddr, int n);
/* td is dying: the PI locks it holds go to their first waiters. */
void futex_exit(struct thread *td);
/*
 * td died holding the robust futex at uaddr (a PI one if pi; the list's
 * pending entry if pending): OWNER_DIED is set and a waiter woken, or for
 * a PI lock left to futex_exit, as Linux's handle_futex_death() does.
 */
void futex_robust_died(struct thread *td, uint64_t uaddr, bool pi,
    bool pending);

/* kern_sig.c */
extern struct thread *curthread;
long kern_sigtimedwait(struct thread *td, uint64_t set, uaddr_t uinfo,
    int64_t deadline);
/* td has no alternate signal stack (SS_DISABLE). */
void sig_altstack_off(struct thread *td);

/* syscall.c */
void syscall_enter(struct thread *td);
void syscall_finish(struct thread *td, long r);
long syscall_redispatch(struct thread *td);
/*
 * Make td's call run again when it resumes (back over the syscall
 * instruction, its number in rax again), or undo that: it returns r.
 */
void syscall_restart(struct thread *td);
void syscall_unrestart(struct thread *td, long r);
void syscall_trace_noreturn(struct thread *td, const char *name, int status);

/* vm_fault.c */
int vm_fault(struct thread *td, uint64_t addr, int *codep);

/*
 * kern_oom.c: the OOM killer.  oom_kill picks the process with the
 * highest badness and kills it, saying so on stderr and in the kernel's
 * log: true when that freed another process's memory (try again); false
 * when it was one that maps m, the fault's map, which now has SIGKILL
 * pending.  oom_score is /proc/PID/oom_score; oom_set_adj sets p's
 * oom_score_adj as written by the process by, with Linux's rules:
 * 0, -EINVAL out of [-1000, 1000], or -EACCES below the least a
 * privileged writer set without CAP_SYS_RESOURCE.
 */
bool oom_kill(const struct vm_map *m);
unsigned oom_score(const struct proc *p);
int oom_set_adj(struct proc *p, const struct proc *by, long adj);

/* sys_mm.c */
/*
 * The platform's other range (p->own_start, p->own_end) becomes the
 * guest's once a mapping call that would succeed natively there names
 * an address in it (Linux lets a program map anywhere in user space):
 * the platform gives it up in p's address space, and the map's
 * reservation goes.  Nothing happens when [start, start + len) misses
 * it, or when the platform keeps it (the caller's check of reserved
 * ranges then fails as before).  May block briefly.
 */
void kern_mm_own_claim(struct proc *p, uint64_t start, uint64_t len);
long kern_mmap(struct proc *p, uint64_t addr, uint64_t len, int prot,
    uint64_t flags);
/*
 * SysV shmat: map len bytes (page-rounded) of vn, a tmpfs file, shared
 * at addr (flags MAP_FIXED) or where mmap(2) would put them, writable
 * only if maywrite, its object watched by fn and arg (vm_map_watch()).
 * Returns the address or -errno.
 */
long kern_mmap_watched(struct proc *p, uint64_t addr, uint64_t len,
    int prot, uint64_t flags, struct vnode *vn, bool maywrite,
    void (*fn)(void *, int), void *arg);

/*
 * sys_mlock.c, for a new mapping of len bytes, which is locked when
 * asked (MAP_LOCKED) or by mlockall(MCL_FUTURE).  kern_mlock_new_may()
 * comes before it is made: 0, -EPERM when asked with a RLIMIT_MEMLOCK of
 * 0, -EAGAIN when it would take the locked total past that limit (root
 * is exempt), as Linux's do_mmap().  kern_mlock_new() comes after: it
 * locks [va, va + len) and fills it unless MCL_ONFAULT; the caller
 * flushes the space.
 */
int kern_mlock_new_may(struct proc *p, uint64_t len, bool asked);
void kern_mlock_new(struct proc *p, uint64_t va, uint64_t len, bool asked);
/* Whether p may lock len bytes more (Linux's mlock_future_ok()): -EAGAIN. */
int kern_mlock_grow_may(struct proc *p, uint64_t len);

/* exec.c: prepare checks everything that can fail without harm (the
 * file, its headers, its interpreter); commit builds the new image in
 * the process's (empty) map. */
struct exec_prep {
	struct vnode *vn, *ivn;
	struct vattr va;
	struct elf_info ei, iei;
	char *canon;
};
int exec_prepare(struct proc *p, const char *path, struct exec_prep *prep,
    const char **whyp);
int exec_commit(struct proc *p, struct exec_prep *prep, const char *path,
    char *const argv[], char *const envp[]);
void exec_prep_release(struct exec_prep *prep);
/* sys_exec.c: string vectors, and exec with "#!" scripts resolved. */
struct strvec {
	char **v;       /* NULL-terminated */
	size_t n, bytes;
};
void strvec_insert(struct strvec *sv, size_t at, const char *s);
void strvec_free(struct strvec *sv);
int kern_execve(struct thread *td, char *path, struct strvec *argv,
    struct strvec *envp, bool replace, const char **whyp);

/*
 * vfs/sys_poll.c: a guest relative timespec as a monotonic deadline
 * (-1 for a NULL pointer).  Returns 0, -EFAULT or -EINVAL.
 */
int ts_deadline(struct thread *td, uaddr_t uts, int64_t *deadline);
/* The time left until deadline as a timespec (or timeval) at u. */
int ts_left_out(struct thread *td, uaddr_t u, int64_t deadline, bool timeval);

/* vfs/sys_memfd.c: F_ADD_SEALS and F_GET_SEALS. */
long memfd_fcntl(struct file *fp, int cmd, uint64_t arg);

/* vfs/sys_open.c */
int proc_nofile(struct proc *p);
/* openat(2) of a kernel string, its lookup restricted by LOOKUP_*. */
long kern_openat(struct thread *td, int dirfd, const char *path,
    unsigned flags, uint32_t mode, unsigned lookup);

/* sys_proc.c */
void kern_exit_group(struct thread *td, int status);

/*
 * The command vkernel runs, whose end is the sandbox's: pid 2 under
 * vkernel's init, or pid 1 itself with --as-pid-1 (kern_boot.c).
 */
struct proc *kern_command(void);

#endif
