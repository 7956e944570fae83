/*
 * Guest processes and threads.
 *
 * A process holds an address space (a vm map and the platform space, its
 * stub, that mirrors it), signal actions, limits, credentials and files;
 * a thread owns a register context, a platform thread, its signal mask
 * and its pending signals.  The threads of a process share everything
 * else.  Processes made by clone with CLONE_VM share the address space
 * too: their threads are host threads of one stub.
 */
#ifndef VK_KERN_PROC_H
#define VK_KERN_PROC_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/arch.h"
#include "vkern/vfs/file.h"
#include "vkern/vk.h"
#include "vkern/vm/vm_map.h"

struct plat_space;
struct plat_thread;
struct sem_undo;
struct thread;
struct tty;

#define VK_NSIG     64
#define VK_RLIM_NLIMITS 16

/* Pending signals: standard ones once each, real-time ones queued. */
struct sigq {
	struct sigq *next;
	int signo;
	uint8_t info[128];
};

struct sigpend {
	uint64_t set;
	struct sigq *head;
	struct sigq **tailp;   /* the last one's next; unused when empty */
};

/* A syscall handler returns this to park the thread; see sched.h. */
#define EPARKED 600
/*
 * Or this, as Linux's ERESTARTSYS, to run the call again once the signal
 * it sent is handled: at once after a stop and SIGCONT, or after a
 * handler with SA_RESTART; EINTR after a handler without.
 */
#define ERESTARTSYS_ 601
/*
 * Or this, as BSD's EJUSTRETURN: the handler set every register itself
 * (rt_sigreturn), and rax is the guest's, whatever it holds, even one of
 * these numbers.
 */
#define EJUSTRETURN_ 602

/* The guest's view of a signal action (struct k_sigaction). */
struct sigact {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

/* Signal actions, shared by the processes clone made with CLONE_SIGHAND. */
struct sighand {
	int refs;
	struct sigact act[VK_NSIG];
};

/*
 * Root, working directory and umask, shared by the processes clone made
 * with CLONE_FS.  An exited process's has no root nor cwd.
 */
struct fs_ctx {
	int refs;
	struct vnode *root, *cwd;     /* referenced */
	char *cwd_path;               /* canonical, below root */
	uint32_t umask;
	struct mntns *mntns;          /* referenced; NULL: boot's */
};

struct rlim64 {
	uint64_t cur, max;
};

/* What the kernel counts for getrusage, per thread and per process. */
struct kcount {
	int64_t ktime;		/* ns the kernel spent serving it */
	uint64_t minflt;	/* page faults the kernel served */
	uint64_t nvcsw;		/* syscalls that had to wait */
};

/* getrusage's figures: ns, bytes and counts. */
struct kru {
	int64_t user, sys;
	uint64_t maxrss;
	uint64_t minflt, nvcsw;
};

/* ITIMER_VIRTUAL's or ITIMER_PROF's: on the process's CPU clock. */
struct cpu_itimer {
	int64_t value;		/* CPU ns it fires at, or -1: disarmed */
	int64_t interval;
};

struct cred {
	uint32_t uid, euid, suid, fsuid;
	uint32_t gid, egid, sgid, fsgid;
};

enum thread_state {
	TD_RUNNABLE,	/* on the run queue: to be resumed */
	TD_ONCPU,	/* running on the host until its next stop */
	TD_PARKED,	/* waiting for an event or a deadline */
	TD_STOPPED,	/* its process is stopped (SIGSTOP): not resumed */
	TD_DEAD,
};

/*
 * Why a parked thread waits, and what finishes its syscall when it wakes:
 * cont() runs again and returns the result, or -EPARKED to go on waiting.
 */
struct wait {
	long (*cont)(struct thread *td);
	void (*cancel)(struct thread *td);  /* a signal ends the wait early */
	int64_t deadline;	/* CLOCK_MONOTONIC ns, or -1; 0 once woken */
	int64_t timeout;	/* a socket wait's own end, kept across that */
	int console_fd;		/* console fd to wait for readability, or -1 */
	const void *chan;	/* a kernel object whose change wakes it */
	int restart;		/* WAIT_RESTART_*: run again after a handler */
	uint64_t arg[6];	/* the handler's own state */
	long done;		/* bytes moved so far: what a signal returns; */
				/* or the -errno a cancel hook sets for it */
	bool done_set;		/* done is the result even when 0 */
};

/*
 * When a call a signal handler interrupted runs again instead of failing
 * with EINTR: never (0) unless its continuation is syscall_redispatch and
 * the handler has SA_RESTART; after an SA_RESTART handler (Linux's
 * ERESTARTSYS); after any handler (ERESTARTNOINTR).
 */
#define WAIT_RESTART_SA		1
#define WAIT_RESTART_ALWAYS	2

struct thread {
	int tid;
	struct proc *proc;
	struct arch_context ctx;
	struct plat_thread *pt;
	enum thread_state state;
	struct wait wait;
	uint64_t clear_child_tid;
	uint64_t robust_list, robust_len;
	uint64_t sigmask;
	int sched_policy, sched_prio;   /* as set, reported back */
	int64_t rt_base;                /* CPU ns when it last blocked, */
					/* for RLIMIT_RTTIME */
	uint64_t timerslack_ns;         /* PR_SET_TIMERSLACK's, 0: default */
	uint16_t ioprio;                /* ioprio_set's, 0: none set */
	char comm[16];                  /* its name (PR_SET_NAME) */
	struct sigpend pending;     /* directed at this thread */
	uint64_t saved_mask;        /* rt_sigsuspend's mask to restore */
	bool has_saved_mask;
	bool restarting;            /* its syscall returned -ERESTARTSYS_ */
	uint64_t altstack_sp, altstack_size;
	int altstack_flags;
	size_t fpu_size;            /* of the XSAVE image in signal frames */
	uint64_t fault_trapno, fault_err, fault_cr2;  /* the last fault */
	struct thread *runq_next;
	struct thread *park_next;
	struct thread *tnext;       /* the process's threads, or the dead */
	/* Fault bookkeeping: the last address refaulted, to catch loops. */
	uint64_t last_fault;
	struct kcount kc;
	struct sysring *ring;       /* its last calls, with --crash-dir */
	struct kcov *kcov;          /* the KCOV it enabled (kcov.h) */
};

struct proc {
	int pid, ppid, pgid, sid;
	struct vm_map *vm;            /* shared (CLONE_VM); NULL once exited */
	uint64_t vdso_base, vdso_start, vdso_end;
	uint64_t own_start, own_end;   /* the platform's other range */
	struct thread *main;          /* the leader, or once it is gone the */
				      /* thread that speaks for the process */
	struct thread *threads;       /* all live threads, main among them */
	int nthreads;
	struct sighand *sighand;      /* shared (CLONE_SIGHAND) */
	struct sigpend pending;       /* directed at the process */
	int nqueued;                  /* real-time signals queued, all told */
	int64_t itimer_deadline, itimer_interval;   /* ITIMER_REAL, ns */
	struct cpu_itimer itimer_cpu[2];  /* ITIMER_VIRTUAL, ITIMER_PROF */
	int64_t cpu_check;	/* monotonic ns to look at them, or -1 */
	struct kcount kc;             /* all its threads', gone ones too */
	uint64_t maxrss;              /* the largest resident size seen */
	struct kru exit_ru;           /* its own, as it exited */
	struct kru cru;               /* its waited-for descendants' */
	struct ptimer *ptimers;     /* timer_create's (sys_ptimer.c) */
	struct sem_undo *semundo;   /* SEM_UNDO's adjustments (sysv_sem.c) */
	struct rlim64 rlim[VK_RLIM_NLIMITS];
	struct cred cred;
	uint32_t *groups;             /* supplementary groups, sorted */
	int ngroups;
	struct fdtable *fdt;          /* shared (CLONE_FILES) */
	struct fs_ctx *fs;            /* shared (CLONE_FS) */
	bool kproc;                   /* vkernel's init: no guest code */
	bool exiting;
	bool reaped_by_host;          /* no parent will wait: free at once */
	bool vfork_done;              /* a vfork child exec'd or exited */
	int exit_signal;              /* sent to the parent at exit */
	bool undumpable, no_new_privs;
	bool keepcaps, thp_disable;   /* prctl's, kept and reported */
	int mce_kill;                 /* PR_MCE_KILL's policy + 1; 0: default */
	bool subreaper;               /* PR_SET_CHILD_SUBREAPER */
	int nice;
	unsigned long personality;
	unsigned membarrier_reg;      /* membarrier's REGISTER_* commands */
	bool stopped;                 /* by a stop signal, until SIGCONT */
	int stopsig;
	bool stop_report, cont_report;   /* for wait's WUNTRACED, WCONTINUED */
	int pdeathsig;
	struct tty *ctty;             /* its controlling terminal, or NULL */
	short oom_score_adj;          /* /proc/PID/oom_score_adj */
	short oom_score_adj_min;      /* the least a privileged writer set */
	bool oom_killed;              /* the OOM killer's, dying */
	int exit_status;	/* a wait(2) status */
	char comm[16];                /* the leader thread's name */
	char *exe;                    /* the canonical path of the program */
	struct vnode *text;           /* the program, while its image runs */
	uint64_t start_ns;
	/* Where exec put argv's and envp's strings, for /proc/PID/cmdline. */
	uint64_t arg_start, arg_end, env_start, env_end;
	struct proc *next;            /* the process table */
};

/* The bytes p->groups takes for n groups (charged, kmem.h). */
static inline size_t
proc_groups_size(int n)
{
	return ((size_t)n + 1) * sizeof(uint32_t);
}

/* The live processes (zombies included), in pid order. */
struct proc *proc_first(void);
struct proc *proc_find(int pid);

/* Create process pid with one thread and its platform space. */
int proc_create(struct proc **pp);

/*
 * Create vkernel's init, pid 1 of a new sandbox: a process of the
 * kernel's own with no platform space (see proc.c).  Returns 0 with *pp
 * set, or -ENOMEM.
 */
int proc_create_init(struct proc **pp);

/* End a process: kill its stub, free its memory.  status is a wait status. */
void proc_exit(struct proc *p, int status);

/* The program p's image runs from now: vn (may be NULL), held as text. */
void proc_set_text(struct proc *p, struct vnode *vn);

/* Free what proc_exit left (the struct itself). */
void proc_free(struct proc *p);

/* sys_cred.c: whether gid is p's fs group or one of its groups. */
bool proc_in_group(const struct proc *p, uint32_t gid);
/* Whether gid is one of p's supplementary groups (access(2) with real ids). */
bool proc_in_groups(const struct proc *p, uint32_t gid);
/*
 * Whether p may look into q as a tracer: with p's fs ids
 * (PTRACE_MODE_READ_FSCREDS: q's open files) or its real ones.
 */
bool proc_may_trace(const struct proc *p, const struct proc *q, bool fscreds);

/* The live thread tid, of any process, or NULL. */
struct thread *thread_find(int tid);
struct thread *proc_thread(struct proc *p, int tid);

/*
 * Name td (PR_SET_NAME, a write to its comm file): the first len bytes
 * of name, at most 15, whatever they are.  The process is known by its
 * leader's name.
 */
void thread_set_comm(struct thread *td, const char *name, size_t len);

/*
 * A new thread of td's process (clone with CLONE_THREAD): td's registers,
 * signal mask and no alternate stack.  Returns 0 with *ntp set (not yet
 * runnable), or -EAGAIN.
 */
int proc_thread_create(struct thread *td, struct thread **ntp);

/*
 * End td alone (exit(2) while other threads live): clear_child_tid and
 * the robust list are handled; td is freed once the event is handled.
 */
void proc_thread_exit(struct thread *td);

/* Leave td the only thread of its process, with the leader's tid (exec). */
void proc_single_thread(struct thread *td);

/*
 * fork: a copy of td's process with one thread whose registers are td's.
 * Its memory is a copy-on-write copy of the parent's, or with CLONE_VM in
 * flags the parent's own address space, its thread a host thread of the
 * parent's stub.  CLONE_FILES, CLONE_FS and CLONE_SIGHAND share the fd
 * table, the fs state and the signal actions instead of copying them.
 * Returns 0 with *cp set, or -EAGAIN / -ENOMEM.  The child's thread is
 * not yet runnable and its host thread waits for its first run: the caller
 * must make it runnable whatever else happens, as with proc_thread_create.
 */
int proc_fork(struct thread *td, uint64_t flags, struct proc **cp);

/*
 * Give p its own copy of a shared fd table, of a shared root, cwd and
 * umask, or of shared signal actions.
 */
void proc_unshare_files(struct proc *p);
void proc_unshare_fs(struct proc *p);
void proc_unshare_sighand(struct proc *p);

/*
 * Give td's process an address space of its own (a stub forked from the
 * shared one, with td as its thread and no guest memory, and an empty
 * map) if it shares one: exec of a CLONE_VM child.  Its other threads
 * stay in the old stub until they end.  Returns 0, or -errno (-EAGAIN)
 * with nothing changed.
 */
int proc_vm_unshare(struct thread *td);

/* Free the zombies nobody will wait for. */
void proc_reap_orphans(void);

/* Terminate the process because of signal signo (a default action). */
void proc_kill_sig(struct proc *p, int signo);

/*
 * Whether group pgid is orphaned: no member has a parent in another
 * group of the same session, so no shell is there to continue it.
 */
bool pgrp_orphaned(int pgid);

/* kern_sig.c */
#define SIGBIT(s) (1ULL << ((s) - 1))
#define VK_SA_RESTORER 0x04000000   /* x86-64's, not in libc's headers */
/* The largest XSAVE image a signal frame holds (AMX needs ~11 KiB). */
#define VK_FPU_MAX 32768
#define SIG_UNBLOCKABLE (SIGBIT(9) | SIGBIT(19))

/*
 * Whether from may send sig (0..64) to to: 0, -EINVAL for the signal
 * number or -EPERM, checked once the target is found, as Linux.
 */
int sig_may_send(const struct proc *from, const struct proc *to, int sig);
/* kill(2)'s permission for a sender of real uid uid and effective euid. */
bool sig_uids_may_send(uint32_t uid, uint32_t euid, const struct proc *to);
/*
 * Whether a signal that from may send to to goes nowhere, the call
 * succeeding all the same: signal 0, which only checks, and what
 * pid_namespaces(7) keeps from init (pid 1).
 */
bool sig_send_dropped(const struct proc *from, const struct proc *to,
    int sig);

/* A siginfo for a signal sent by a process (SI_USER, SI_TKILL). */
void sig_info_user(uint8_t info[128], int signo, int code, int pid,
    uint32_t uid);
/* A siginfo for a fault at addr. */
void sig_info_fault(uint8_t info[128], int signo, int code, uint64_t addr);

/*
 * Make signo pending for td (SIGPOST_THREAD) or its process.
 * SIGPOST_FORCE: a synchronous fault that cannot be blocked or ignored
 * (it is unblocked and reset if it was).  A thread parked in a syscall is
 * interrupted, one running is stopped to take it.  Returns 0, or -EAGAIN
 * for a real-time signal a process queued past RLIMIT_SIGPENDING, or
 * with the sandbox's memory full.
 */
#define SIGPOST_FORCE  0x1
#define SIGPOST_THREAD 0x2
int sig_post(struct thread *td, int signo, const uint8_t info[128],
    unsigned how);

/* Post signo to every live process of group pgid. */
void sig_post_pgrp(int pgid, int signo, const uint8_t info[128]);

/* Take the lowest pending signal of td (or its process) in set. */
bool sig_dequeue(struct thread *td, uint64_t set, int *signop,
    uint8_t info[128]);

/* Signals pending for td, directed at it or its process. */
uint64_t sig_pending_set(const struct thread *td);

/*
 * td just parked: a signal that came while it ran (and so was meant to
 * stop it) takes effect now, interrupting or stopping as sig_post would.
 */
void sig_recheck(struct thread *td);

/* Setting SIG_IGN (or an ignoring default) drops what is pending. */
void sig_discard(struct proc *p, int signo);

/* Free queued signals (at exit). */
void sig_flush(struct sigpend *sp);

/*
 * The siginfo, still queued to p or one of its threads, of POSIX timer
 * timerid's signal signo; NULL when it has been taken.
 */
uint8_t *sig_timer_queued(struct proc *p, int signo, int timerid);


/*
 * Handlers back to SIG_DFL, as exec and CLONE_CLEAR_SIGHAND leave them:
 * ignored signals stay ignored, and no action keeps its flags or mask.
 */
void sig_reset_handlers(struct sighand *sh);

/*
 * Before td runs: deliver its pending signals (take default actions or
 * build a handler's frame).  Returns false when the process is gone.
 */
bool sig_deliver(struct thread *td);

#endif
