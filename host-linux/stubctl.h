/*
 * Stub processes as both backends hold them: a stub is started, forked
 * and changed through ptrace on a thread vkernel holds stopped, and its
 * mappings are changed by batches run inside it (stubctl.c).  The ptrace
 * backend also runs the guest under ptrace (ptrace.c); the systrap
 * backend runs it in untraced threads under a seccomp filter
 * (systrap.c, systrap_msg.c).
 */
#ifndef VK_HOST_STUBCTL_H
#define VK_HOST_STUBCTL_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "host-linux/error.h"
#include "host-linux/stub/stub.h"
#include "vkern/platform.h"

struct systrap_area;

struct plat_thread {
	pid_t tid;
	struct plat_space *sp;
	void *cookie;
	struct arch_context *ctx;
	bool regs_valid;          /* the host's registers equal *ctx */
	bool interrupted;         /* interrupt sent, its stop not seen */
	bool held;                /* stopped, its stop seen, not resumed */
	bool retired;             /* the leader, kept stopped for stub calls */
	bool spare;               /* its guest thread ended: kept for reuse */
	int stale;                /* a fault signal the host holds for it */
				  /* that the kernel has already seen */
	int sched_fd;             /* its /proc schedstat once read, or -1 */
	int64_t cpu_base;         /* host CPU time it had when last reused */
	int64_t cpu_last;         /* the time last reported: never less */
	int64_t spun;             /* systrap: CPU time its handler spun while */
				  /* vkernel served it, not the guest's own */
	int64_t taken_at;         /* systrap: when its message was taken, */
				  /* while its handler may spin, or 0 */
	struct systrap_area *area;  /* systrap: its area, in vkernel */
	int aslot;                /* systrap: its index in the stub */
	int ramslot;              /* systrap: its slot of the RAM file */
	int signo;                /* systrap: the message taken: signal, */
	uint64_t info, uc, fpstate;  /* and its frame, as stub addresses */
	uint64_t fs_base, gs_base;  /* systrap: the guest's, as last set */
	bool fast;                /* systrap: held at a patched site, no frame */
	bool regs_part;           /* systrap: *ctx lacks fast_load_rest's */
	bool ending;              /* systrap: sent to its end, area kept */
	bool lost;                /* systrap: ended on its own, reported */
	bool on_lent;             /* systrap: may run on vkernel's CPU */
	uint64_t fast_rip, fast_rax;  /* systrap: the last such answer */
	struct plat_thread *hnext;
	struct plat_thread *snext;  /* the space's threads */
	struct plat_thread *gnext;  /* systrap: every guest thread */
};

struct plat_space {
	pid_t pid;
	unsigned slot;
	uint64_t (*batch)[8];     /* the control page, as batch entries */
	unsigned nbatch;
	int error;                /* a failed batch not yet reported */
	struct arch_regs tmpl;    /* the stub's own registers */
	struct plat_thread *main;  /* the host's thread group leader */
	struct plat_thread *threads;
	pid_t spawned;            /* the child of an injected fork or clone */
	int stat_fd;              /* its /proc stat once read, or -1 */
	int pidfd;                /* its /proc/PID: what signals it, or -1 */
	unsigned nspare;          /* threads kept for reuse */
	uint64_t areas[STUB_AREA_MAX / 64];  /* systrap: areas in use, a bit */
					     /* each */
	int64_t spun;             /* systrap: its threads' spun, gone ones too */
	int64_t cpu_last;         /* the time last reported: never less */
	bool dead;                /* systrap: the stub is gone */
	struct patch_sites *patch;  /* systrap: its patched sites, or NULL */
};

/* Set-up common to both backends; before any stub. */
int stubctl_init(struct vk_error **err);
/* Give every stub started from now on fd as its STUB_BELL_FD. */
void stubctl_set_bell(int fd);
/*
 * Start every stub from now on on cpus (kept by the caller), not on the
 * guest's CPUs.
 */
void stubctl_set_cpus(const cpu_set_t *cpus);


/*
 * The next stop or exit of a traced stub thread: its tid with *stp, 0
 * when nohang and there is none, or -1 with errno.
 */
pid_t stub_next_stop(bool nohang, int *stp);

/* The pid table of traced threads. */
void thash_del(struct plat_thread *pt);
struct plat_thread *thash_find(pid_t tid);

bool sig_from_cpu(int sig, const siginfo_t *si);
int thread_take_fault(struct plat_thread *pt, siginfo_t *si);
int stub_wait(pid_t tid, int *stp);
int getregs(pid_t tid, struct arch_regs *r);
int setregs(pid_t tid, const struct arch_regs *r);

/*
 * Run stub code on pt, held stopped: from r->rip to the int3 that ends
 * it, r loaded and read back.  The thread's registers must be loaded
 * again before guest code runs on it.
 */
int stub_call(struct plat_thread *pt, struct arch_regs *r);
long stub_syscall(struct plat_thread *pt, long nr, uint64_t a0, uint64_t a1,
    uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5);
/* --stats: the mapping batches run, their calls and time, on stderr. */
void stub_stats_print(void);

/* Map the batch page of control slot ctloff, in pt's stub. */
int stub_map_batch(struct plat_thread *pt, uint64_t ctloff);

void thread_reap(pid_t tid);
void stub_kill(struct plat_space *sp);
void stub_reap(struct plat_space *sp);
void thread_exit_now(struct plat_thread *pt, const struct arch_regs *tmpl,
    long nr);

/*
 * A new stub with its one thread (sp->main, held at its first stop,
 * known to the event loop): the host stack gone, the batch page mapped.
 * Returns 0 or -errno.  May block briefly.
 */
int stub_space_new(struct plat_space **spp, struct plat_space_info *info);
/*
 * A copy of from's stub (from held stopped) by an injected fork, its
 * one thread sp->main held and known to the event loop.  setup, when not
 * NULL, maps the child's batch page at ctloff itself (with whatever
 * else it does at the child's first stop) and returns 0 or -errno.
 * Returns 0 or -errno.  May block briefly.
 */
int stub_space_fork(struct plat_thread *from, struct plat_space **spp,
    int (*setup)(struct plat_space *sp, uint64_t ctloff, void *arg),
    void *arg);
/* Kill the stub and free sp with every thread it has. */
void stub_space_free(struct plat_space *sp);

/*
 * Start pt's life in sp, held; a traced one known to the event loop.
 * And its end.
 */
void thread_link(struct plat_space *sp, struct plat_thread *pt, bool traced);
void thread_unlink(struct plat_thread *pt);
void thread_free(struct plat_thread *pt);
/* A thread of sp the kernel holds stopped, to run stub code in; or NULL. */
struct plat_thread *held_thread(struct plat_space *sp);

void stub_space_map(struct plat_space *sp, uint64_t va, uint64_t len,
    int prot, uint64_t ramoff);
void stub_space_unmap(struct plat_space *sp, uint64_t va, uint64_t len);
void stub_space_protect(struct plat_space *sp, uint64_t va, uint64_t len,
    int prot);
int stub_space_flush(struct plat_space *sp);
int64_t stub_space_cputime(struct plat_space *sp, int64_t *userp);
int64_t stub_thread_cputime(struct plat_thread *pt, int64_t *userp);
/* A reused thread's CPU time counts from zero again. */
void stub_thread_cputime_reset(struct plat_thread *pt);

/*
 * event.c: catch SIGCHLD and the host's signals to vkernel; before any
 * stub.
 */
int event_init(struct vk_error **err);
/* A signal the host sent vkernel itself, noted by its handler, or 0. */
int host_sig_take(void);
/*
 * A blocking host call that such a signal ends (-EINTR), even one that
 * came after the last host_sig_take and before the call slept.
 */
long host_sig_call(long nr, long a1, long a2, long a3, long a4, long a5);
/* Whether the event loop watches a console fd or host socket. */
bool event_any_watched(void);
/*
 * Sleep until a child changes state, a watched fd or host socket is
 * ready, bell_fd (when >= 0) is readable, or deadline; with nowait only
 * look.  Returns 1 with *ev filled, 0 to look at the stubs again, or
 * -errno.
 */
int event_wait_slow(struct plat_event *ev, int64_t deadline, int bell_fd,
    bool nowait);
/*
 * Whether SIGCHLD came since the last call (true at first): a stub
 * thread may have stopped or ended.
 */
bool event_child_take(void);

#endif
