/*
 * Process and thread life cycle.
 *
 * A process comes into being with its stub (plat_space_create) and one
 * thread; its vm map covers the guest addresses the platform leaves it.
 * More threads are host threads of the same stub (plat_thread_create),
 * and so are those of a CLONE_VM child, which shares the map and the stub
 * (refs on the map count the processes) until it execs or exits.
 * proc_exit() takes a process down in one step: its threads leave every
 * queue, and the last process of an address space kills the stub and
 * gives its memory back to the RAM allocator.  The struct stays, as a
 * zombie, until its parent has read the status.  A thread that ends
 * alone is kept until the event that ended it is handled, since its
 * syscall still refers to it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <linux/futex.h>
#include <linux/sched.h>

#include "vkern/kern/kcov.h"
#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall.h"
#include "vkern/kern/sysv_ipc.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/console.h"
#include "vkern/vfs/tty.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"
#include "vkern/vm/vm_map.h"

#define VM_MIN_ADDR 0x10000ULL   /* Linux's default mmap_min_addr */

static int nextpid = 1;
static struct proc *allproc;
/* What an exited process keeps of its fd table and fs state: nothing. */
static struct fdtable fdt_gone = { .refs = 1 };
static struct fs_ctx fs_gone = { .refs = 1 };
static struct thread *deadthreads;   /* ended alone, to be freed */

struct proc *
proc_first(void)
{
	return allproc;
}

struct proc *
proc_find(int pid)
{
	for (struct proc *p = allproc; p != NULL; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static void
proc_link(struct proc *p)
{
	struct proc **pp = &allproc;

	while (*pp != NULL)
		pp = &(*pp)->next;
	*pp = p;
}

static void
proc_unlink(struct proc *p)
{
	for (struct proc **pp = &allproc; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			return;
		}
	}
}

static void
proc_default_limits(struct proc *p)
{
	for (int i = 0; i < VK_RLIM_NLIMITS; i++)
		p->rlim[i] = (struct rlim64){ RLIM64_INFINITY, RLIM64_INFINITY };
	p->rlim[RLIMIT_STACK] = (struct rlim64){ 8 << 20, RLIM64_INFINITY };
	p->rlim[RLIMIT_CORE] = (struct rlim64){ 0, RLIM64_INFINITY };
	p->rlim[RLIMIT_NOFILE] = kern_cfg()->fds > 0 ?
	    (struct rlim64){ kern_cfg()->fds, kern_cfg()->fds } :
	    (struct rlim64){ 1024, 4096 };
	p->rlim[RLIMIT_NPROC] = (struct rlim64){ 4096, 4096 };
	p->rlim[RLIMIT_MEMLOCK] = (struct rlim64){ 8 << 20, 8 << 20 };
	p->rlim[RLIMIT_SIGPENDING] = (struct rlim64){ 4096, 4096 };
	p->rlim[RLIMIT_MSGQUEUE] = (struct rlim64){ 819200, 819200 };
	p->rlim[RLIMIT_NICE] = (struct rlim64){ 0, 0 };
	p->rlim[RLIMIT_RTPRIO] = (struct rlim64){ 0, 0 };
}

/* A first process's root, working directory, umask and signal actions. */
static void
proc_init_fs(struct proc *p)
{
	p->fs = vk_xcalloc(1, sizeof(*p->fs));
	p->fs->refs = 1;
	p->fs->root = vfs_root();
	if (p->fs->root != NULL) {
		vnode_ref(p->fs->root);
		vnode_ref(p->fs->root);
	}
	p->fs->cwd = p->fs->root;
	p->fs->cwd_path = strdup("/");
	p->fs->umask = 022;
	p->sighand = vk_xcalloc(1, sizeof(*p->sighand));
	p->sighand->refs = 1;
}

/* The command's files: the console as fds 0-2, and the host fds passed on
 * after them (--preserve-fds). */
static void
proc_init_files(struct proc *p)
{
	int nfds = (int)VK_MAX(kern_cfg()->console_fds, 3U);

	p->fdt = fdt_alloc();
	for (int fd = 0; fd < nfds; fd++) {
		struct file *fp = console_file(fd);

		if (fp == NULL)
			continue;
		/* The first session has the console for its terminal. */
		if (tty_file(fp))
			tty_set_ctty(tty_of(fp), p);
		fd_install(p->fdt, fd, fp, false, nfds);
	}
	proc_init_fs(p);
	tty_name_console(p);
}

struct thread *
thread_find(int tid)
{
	struct thread *td = NULL;

	for (struct proc *p = allproc; p != NULL && td == NULL; p = p->next)
		td = proc_thread(p, tid);
	return td;
}

/* p's thread tid, or NULL. */
struct thread *
proc_thread(struct proc *p, int tid)
{
	for (struct thread *td = p->threads; td != NULL; td = td->tnext)
		if (td->tid == tid)
			return td;
	return NULL;
}

void
thread_set_comm(struct thread *td, const char *name, size_t len)
{
	struct proc *p = td->proc;

	memset(td->comm, 0, sizeof(td->comm));
	memcpy(td->comm, name, VK_MIN(len, sizeof(td->comm) - 1));
	if (td == p->main)
		memcpy(p->comm, td->comm, sizeof(p->comm));
}

/* A new thread of p, or NULL when the sandbox's memory is full. */
static struct thread *
thread_alloc(struct proc *p)
{
	struct thread *td = kmem_alloc(sizeof(*td), KM_ZERO);

	if (td == NULL)
		return NULL;
	if (kern_cfg()->sysring &&
	    (td->ring = kmem_alloc(sizeof(*td->ring), KM_ZERO)) == NULL) {
		kmem_free(td, sizeof(*td), 0);
		return NULL;
	}
	td->proc = p;
	td->state = TD_ONCPU;
	td->wait.console_fd = -1;
	return td;
}

static void
thread_link(struct proc *p, struct thread *td)
{
	td->tnext = p->threads;
	p->threads = td;
	p->nthreads++;
	if (p->main == NULL)
		p->main = td;
}

#define ROBUST_LIST_LIMIT 2048

/*
 * The robust list (set_robust_list): every lock the thread still holds
 * is marked, as Linux's exit_robust_list() does, with a bound on the walk
 * so that a looped list cannot hold the kernel.  Bit 0 of the pointer to
 * an entry says that the entry's lock is a PI one.
 */
static void
robust_release(struct thread *td)
{
	struct { uint64_t next; int64_t off; uint64_t pending; } head;
	uint64_t e, pend;
	bool pi;

	if (td->robust_list == 0 || copyin(td, UADDR(td->robust_list), &head,
	    sizeof(head)) < 0)
		return;
	pend = head.pending & ~1ULL;
	e = head.next & ~1ULL;
	pi = head.next & 1;
	for (int n = 0; e != td->robust_list && n < ROBUST_LIST_LIMIT; n++) {
		uint64_t next;

		if (e == 0 || copyin(td, UADDR(e), &next, sizeof(next)) < 0)
			break;
		if (e != pend)
			futex_robust_died(td, e + (uint64_t)head.off, pi,
			    false);
		e = next & ~1ULL;
		pi = next & 1;
	}
	if (pend != 0)
		futex_robust_died(td, pend + (uint64_t)head.off,
		    head.pending & 1, true);
}

/*
 * td is dying: its robust futexes are marked and the PI locks it holds
 * handed on, once (the list is forgotten), while its memory is still
 * there.
 */
static void
thread_release_futexes(struct thread *td)
{
	robust_release(td);
	td->robust_list = 0;
	futex_exit(td);
}

/*
 * The word set_tid_address named is zeroed and its futex woken, for the
 * threads that go on using td's memory (Linux's mm_release).
 */
static void
thread_clear_tid(struct thread *td)
{
	uint32_t zero = 0;

	if (td->clear_child_tid != 0 && copyout(td, &zero,
	    UADDR(td->clear_child_tid), sizeof(zero)) == 0)
		futex_wake_addr(td->proc, td->clear_child_tid, 1);
}

/*
 * Stop td for good: its wait is cancelled, its futexes released and it
 * leaves every queue.
 */
static void
thread_kill(struct thread *td)
{
	if (td->state == TD_PARKED && td->wait.cancel != NULL)
		td->wait.cancel(td);
	thread_release_futexes(td);
	sched_forget(td);
	td->state = TD_DEAD;
}

/*
 * End td while its process lives on: its host thread goes, and td leaves
 * the process for the dead list.
 */
static void
thread_end(struct thread *td)
{
	struct proc *p = td->proc;
	struct thread **pp;

	thread_kill(td);
	plat_thread_destroy(td->pt);
	td->pt = NULL;
	for (pp = &p->threads; *pp != NULL; pp = &(*pp)->tnext) {
		if (*pp == td) {
			*pp = td->tnext;
			break;
		}
	}
	p->nthreads--;
	if (p->main == td)
		p->main = p->threads;
	td->tnext = deadthreads;
	deadthreads = td;
}

static void
thread_free(struct thread *td)
{
	sig_flush(&td->pending);
	kcov_thread_exit(td);
	if (td->ring != NULL)
		sysring_keep(td->tid, td->ring);
	kmem_free(td, sizeof(*td), 0);
	/* Its /proc/PID/task/TID is gone: what was mounted there goes. */
	vfs_umount_gone();
}

static struct vm_map *
vm_alloc(struct plat_space *sp, uint64_t min, uint64_t max)
{
	/* Never refused: its entries are what a guest can make many of. */
	struct vm_map *m = kmem_alloc(sizeof(*m), KM_FORCE);

	vm_map_init(m, sp, min, max);
	return m;
}

/*
 * p leaves its address space.  Its host threads end; the last process
 * to leave kills the stub, and the map's memory goes.
 */
static void
proc_vm_rel(struct proc *p)
{
	struct vm_map *m = p->vm;

	p->vm = NULL;
	for (struct thread *td = p->threads; td != NULL; td = td->tnext) {
		if (m->refs > 1)
			plat_thread_destroy(td->pt);
		td->pt = NULL;
	}
	if (--m->refs > 0)
		return;
	if (m->space != NULL)
		plat_space_destroy(m->space);
	vm_map_destroy(m);
	kmem_free(m, sizeof(*m), 0);
}

int
proc_vm_unshare(struct thread *td)
{
	struct proc *p = td->proc;
	struct plat_thread *old = td->pt;
	struct vm_map *m = p->vm;
	struct plat_space *sp;
	int r;

	if (m->refs == 1)
		return 0;
	plat_thread_regs_load(td->pt);   /* the new stub's thread gets them */
	/* The others keep the memory: its tid word is cleared for them. */
	thread_clear_tid(td);
	/*
	 * Once the kernel is locked down a new stub can only be forked from
	 * one that runs; the copy's host mappings of the shared memory go.
	 */
	if ((r = plat_space_fork(old, td, &td->ctx, &sp, &td->pt)) < 0)
		return r;
	vm_map_unmap_host(m, sp);
	p->vm = vm_alloc(sp, m->min, m->max);
	plat_thread_destroy(old);
	m->refs--;
	return 0;
}

/*
 * What a process that nobody forked starts with: the next pid (1 in a new
 * sandbox), a session and group of its own, the guest's credentials and
 * the default limits.
 */
static void
proc_first_setup(struct proc *p, struct thread *td)
{
	const struct kern_config *cfg = kern_cfg();

	/* A sandbox whose processes are all gone starts again from pid 1. */
	if (allproc == NULL)
		nextpid = 1;
	thread_link(p, td);
	p->pid = td->tid = nextpid++;
	p->pgid = p->sid = p->pid;
	p->ppid = 0;
	p->cred = (struct cred){
		cfg->uid, cfg->uid, cfg->uid, cfg->uid,
		cfg->gid, cfg->gid, cfg->gid, cfg->gid,
	};
	proc_default_limits(p);
	p->start_ns = (uint64_t)plat_clock_ns(1);
	p->itimer_deadline = -1;
	cpu_timers_init(p);
}

int
proc_create(struct proc **pp)
{
	struct proc *p = kmem_alloc(sizeof(*p), KM_ZERO);
	struct thread *td = p != NULL ? thread_alloc(p) : NULL;
	struct plat_space_info info = { 0 };
	struct plat_space *sp;
	int r = -ENOMEM;

	if (td == NULL || (r = plat_space_create(td, &td->ctx, &sp, &td->pt,
	    &info)) < 0) {
		if (td != NULL)
			thread_free(td);
		kmem_free(p, sizeof(*p), 0);
		return r;
	}
	proc_first_setup(p, td);
	proc_init_files(p);
	p->vm = vm_alloc(sp, VM_MIN_ADDR,
	    VK_MIN(info.reserved_start, ARCH_TASK_SIZE));
	p->vdso_base = info.vdso_base;
	if (info.vdso_end > info.vdso_start && info.vdso_start < p->vm->max) {
		p->vdso_start = info.vdso_start;
		p->vdso_end = VK_MIN(info.vdso_end, p->vm->max);
		vm_map_reserve(p->vm, p->vdso_start, p->vdso_end);
	}
	if (info.own_end > info.own_start && info.own_end <= p->vm->max &&
	    vm_map_reserve(p->vm, info.own_start, info.own_end) == 0) {
		p->own_start = info.own_start;
		p->own_end = info.own_end;
	}
	proc_link(p);
	*pp = p;
	return 0;
}

/*
 * vkernel's init is a process of the kernel's own, as a Linux kernel
 * thread is: no stub, no guest code, an empty address space (no
 * platform space behind it), no files, no handlers.  Its one thread
 * sleeps for ever and is on no queue.  What init does, reaping orphans
 * and passing the host's signals to the command, the kernel does for it
 * (proc_notify_parent, kern_hostsig); from inside the sandbox it takes no
 * signal at all, as a Linux init without handlers takes none
 * (sig_send_dropped), and the kernel sends it none (sig_post).
 */
int
proc_create_init(struct proc **pp)
{
	struct proc *p = kmem_alloc(sizeof(*p), KM_ZERO);
	struct thread *td = p != NULL ? thread_alloc(p) : NULL;

	if (td == NULL) {
		kmem_free(p, sizeof(*p), 0);
		return -ENOMEM;
	}
	/* It makes no calls: no ring of them for a crash report. */
	kmem_free(td->ring, sizeof(*td->ring), 0);
	td->ring = NULL;
	proc_first_setup(p, td);
	p->kproc = true;
	td->state = TD_PARKED;
	td->wait.deadline = -1;
	thread_set_comm(td, "vkernel-init", 12);
	p->fdt = fdt_alloc();
	proc_init_fs(p);
	p->vm = vm_alloc(NULL, VM_MIN_ADDR, VM_MIN_ADDR);
	proc_link(p);
	*pp = p;
	return 0;
}

/* Tell the parent: SIGCHLD (or the clone exit signal) and a wake-up. */
static void
proc_notify_parent(struct proc *p, int status)
{
	struct proc *pp = proc_find(p->ppid);
	uint8_t info[128];
	int code, st;

	/*
	 * No one waits for an orphan whose parent is gone, and vkernel's
	 * init reaps its children as they end; but the command's status the
	 * kernel takes as the sandbox's (kern_run).
	 */
	if (pp == NULL || pp->exiting || pp->kproc) {
		p->reaped_by_host = p != kern_command();
		return;
	}
	if (pp->sighand->act[SIGCHLD - 1].handler == (uint64_t)(uintptr_t)SIG_IGN ||
	    (pp->sighand->act[SIGCHLD - 1].flags & SA_NOCLDWAIT))
		p->reaped_by_host = true;
	code = (status & 0x7f) == 0 ? CLD_EXITED :
	    (status & 0x80) ? CLD_DUMPED : CLD_KILLED;
	st = (status & 0x7f) == 0 ? (status >> 8) & 0xff : status & 0x7f;
	/* Wake a waiting parent first: its wait4 completes, then SIGCHLD. */
	sched_wake_chan(pp);
	if (p->exit_signal > 0) {
		sig_info_user(info, p->exit_signal, code, p->pid, p->cred.uid);
		memcpy(info + 24, &st, 4);
		sig_post(pp->main, p->exit_signal, info, 0);
	}
}

/*
 * Children of an exiting process go to its nearest living ancestor that
 * is a subreaper (PR_SET_CHILD_SUBREAPER), or else to init, as Linux's
 * find_new_reaper() does.
 */
static int
proc_new_parent(const struct proc *p)
{
	for (struct proc *a = proc_find(p->ppid); a != NULL && a->pid != 1;
	    a = proc_find(a->ppid))
		if (a->subreaper && !a->exiting)
			return a->pid;
	return 1;
}

/*
 * Hand p's children to their new parent; send each its pdeathsig.  An
 * orphan's exit signal becomes SIGCHLD, as on Linux: the one its parent
 * chose for it (any signal clone() takes) would otherwise kill its new
 * parent, init or a subreaper, when it ends.
 */
static void
proc_reparent(struct proc *p)
{
	int np = proc_new_parent(p);
	uint8_t info[128];

	for (struct proc *c = proc_first(); c != NULL; c = c->next) {
		if (c->ppid != p->pid)
			continue;
		c->ppid = np;
		c->exit_signal = SIGCHLD;
		if (c->exiting) {
			sched_wake_chan(proc_find(np));
		} else if (c->pdeathsig > 0) {
			sig_info_user(info, c->pdeathsig, SI_USER, p->pid,
			    p->cred.uid);
			sig_post(c->main, c->pdeathsig, info, 0);
		}
	}
}

static struct fs_ctx *
fs_ctx_copy(const struct fs_ctx *fs)
{
	struct fs_ctx *c = vk_xcalloc(1, sizeof(*c));

	c->refs = 1;
	c->root = fs->root;
	c->cwd = fs->cwd;
	vnode_ref(c->root);
	vnode_ref(c->cwd);
	c->cwd_path = strdup(fs->cwd_path);
	c->umask = fs->umask;
	if ((c->mntns = fs->mntns) != NULL)
		mntns_ref(c->mntns);
	return c;
}

static void
fs_ctx_rel(struct fs_ctx *fs)
{
	if (--fs->refs > 0)
		return;
	if (fs->root != NULL) {
		vnode_rel(fs->root);
		vnode_rel(fs->cwd);
	}
	if (fs->mntns != NULL)
		mntns_rel(fs->mntns);
	free(fs->cwd_path);
	free(fs);
}

static struct sighand *
sighand_copy(const struct sighand *sh)
{
	struct sighand *c = vk_xcalloc(1, sizeof(*c));

	c->refs = 1;
	memcpy(c->act, sh->act, sizeof(c->act));
	return c;
}

static void
sighand_rel(struct sighand *sh)
{
	if (--sh->refs == 0)
		free(sh);
}

void
proc_unshare_sighand(struct proc *p)
{
	struct sighand *sh = p->sighand;

	if (sh->refs > 1) {
		p->sighand = sighand_copy(sh);
		sighand_rel(sh);
	}
}

void
proc_unshare_files(struct proc *p)
{
	struct fdtable *t = p->fdt;

	if (t->refs > 1) {
		p->fdt = fdt_copy(t);
		fdt_rel(t);
	}
}

void
proc_unshare_fs(struct proc *p)
{
	struct fs_ctx *fs = p->fs;

	if (fs->refs > 1) {
		p->fs = fs_ctx_copy(fs);
		fs_ctx_rel(fs);
	}
}

void
proc_exit(struct proc *p, int status)
{
	if (p->exiting)
		return;
	p->exiting = true;
	p->exit_status = status;
	tty_proc_exit(p);
	for (struct thread *td = p->threads; td != NULL; td = td->tnext) {
		thread_kill(td);
		if (p->vm->refs > 1)
			thread_clear_tid(td);
	}
	fdt_rel(p->fdt);
	p->fdt = &fdt_gone;
	ptimer_drop_all(p);
	sem_exit(p);
	cpu_proc_exit(p);
	fs_ctx_rel(p->fs);
	p->fs = &fs_gone;
	proc_vm_rel(p);
	proc_set_text(p, NULL);
	p->vfork_done = true;
	sched_wake_chan(p);
	poll_wake();   /* pidfds poll readable now */
	proc_reparent(p);
	proc_notify_parent(p, status);
}

void
proc_reap_orphans(void)
{
	struct proc *p, *next;

	while (deadthreads != NULL) {
		struct thread *td = deadthreads;

		deadthreads = td->tnext;
		thread_free(td);
	}
	for (p = proc_first(); p != NULL; p = next) {
		next = p->next;
		if (p->exiting && p->reaped_by_host && p->pid != 1)
			proc_free(p);
	}
}

/* The fd table, fs state and signal actions c shares or copies of p's. */
static void
proc_share(struct proc *c, struct proc *p, uint64_t flags)
{
	if (flags & CLONE_FILES) {
		c->fdt = p->fdt;
		fdt_ref(c->fdt);
	} else {
		c->fdt = fdt_copy(p->fdt);
	}
	if (flags & CLONE_FS) {
		c->fs = p->fs;
		c->fs->refs++;
	} else {
		c->fs = fs_ctx_copy(p->fs);
	}
	if (flags & CLONE_SIGHAND) {
		c->sighand = p->sighand;
		c->sighand->refs++;
	} else {
		c->sighand = sighand_copy(p->sighand);
	}
}

static void
proc_copy_state(struct proc *c, const struct proc *p)
{
	c->ppid = p->pid;
	c->pgid = p->pgid;
	c->sid = p->sid;
	c->ctty = p->ctty;
	c->cred = p->cred;
	if (p->ngroups > 0) {
		c->groups = kmem_alloc(proc_groups_size(p->ngroups),
		    KM_FORCE);
		memcpy(c->groups, p->groups, (size_t)p->ngroups * 4);
		c->ngroups = p->ngroups;
	}
	memcpy(c->rlim, p->rlim, sizeof(c->rlim));
	c->keepcaps = p->keepcaps;
	c->thp_disable = p->thp_disable;
	c->mce_kill = p->mce_kill;
	c->oom_score_adj = p->oom_score_adj;
	c->oom_score_adj_min = p->oom_score_adj_min;
	memcpy(c->comm, p->comm, sizeof(c->comm));
	c->exe = strdup(p->exe != NULL ? p->exe : "");
	proc_set_text(c, p->text);
	c->vdso_base = p->vdso_base;
	c->vdso_start = p->vdso_start;
	c->vdso_end = p->vdso_end;
	c->own_start = p->own_start;
	c->own_end = p->own_end;
	c->arg_start = p->arg_start;
	c->arg_end = p->arg_end;
	c->env_start = p->env_start;
	c->env_end = p->env_end;
	c->undumpable = p->undumpable;
	c->nice = p->nice;
	c->personality = p->personality;
	c->membarrier_reg = p->membarrier_reg;
	c->no_new_privs = p->no_new_privs;
	c->itimer_deadline = -1;
	cpu_timers_init(c);
	c->start_ns = (uint64_t)plat_clock_ns(1);
	c->exit_signal = SIGCHLD;
}

/*
 * The memory of c, td's child, whose one thread is ct: td's address space
 * itself, or a copy-on-write copy of it in a stub forked from td's.
 */
static int
proc_fork_vm(struct thread *td, struct proc *c, struct thread *ct,
    bool share_vm)
{
	struct vm_map *m = td->proc->vm;
	uint64_t hot[] = { td->ctx.regs.rsp, td->ctx.regs.fs_base };
	struct plat_space *sp;
	bool alone;
	int r;

	if (share_vm) {
		if ((r = plat_thread_create(td->pt, ct, &ct->ctx,
		    &ct->pt)) < 0)
			return r;
		m->refs++;
		c->vm = m;
		return 0;
	}
	/*
	 * The copies fork makes at once are of memory that nothing else
	 * may write meanwhile: only when td's thread alone runs in m.
	 */
	alone = td->proc->nthreads == 1 && m->refs == 1;
	c->vm = vm_alloc(NULL, m->min, m->max);
	if ((r = vm_map_fork(m, c->vm, hot, alone ? VK_NELEM(hot) : 0)) < 0 ||
	    (r = plat_space_fork(td->pt, ct, &ct->ctx, &sp, &ct->pt)) < 0) {
		vm_map_destroy(c->vm);
		kmem_free(c->vm, sizeof(*c->vm), 0);
		return r;
	}
	vm_map_fork_attach(c->vm, sp);
	return 0;
}

/* What a new thread takes from the one that makes it, fork or clone. */
static void
thread_inherit(struct thread *nt, const struct thread *td)
{
	nt->sigmask = td->sigmask;
	nt->sched_policy = td->sched_policy;
	nt->sched_prio = td->sched_prio;
	nt->timerslack_ns = td->timerslack_ns;
	nt->ioprio = td->ioprio;
	memcpy(nt->comm, td->comm, sizeof(nt->comm));
}

/*
 * Whether p may make one more task, process or thread: -EAGAIN when the
 * sandbox holds --pids of them (each a host thread), or when p's
 * real user holds RLIMIT_NPROC and is not privileged (Linux's
 * copy_process(): real uid 0, CAP_SYS_RESOURCE or CAP_SYS_ADMIN, which
 * are root's here).  A zombie counts until it is reaped, as in Linux.
 */
static int
proc_task_room(const struct proc *p)
{
	uint64_t all = 0, mine = 0;

	for (const struct proc *q = allproc; q != NULL; q = q->next) {
		uint64_t n = q->nthreads > 0 ? (uint64_t)q->nthreads : 1;

		all += n;
		if (q->cred.uid == p->cred.uid)
			mine += n;
	}
	if (all >= kern_cfg()->pids)
		return -EAGAIN;
	if (mine >= p->rlim[RLIMIT_NPROC].cur && p->cred.uid != 0 &&
	    p->cred.euid != 0)
		return -EAGAIN;
	return 0;
}

int
proc_fork(struct thread *td, uint64_t flags, struct proc **cp)
{
	struct proc *p = td->proc;
	struct proc *c;
	struct thread *ct;
	int r;

	if ((r = proc_task_room(p)) < 0)
		return r;
	/* fork(2): ENOMEM when the kernel's structures cannot be had. */
	c = kmem_alloc(sizeof(*c), KM_ZERO);
	ct = c != NULL ? thread_alloc(c) : NULL;
	if (ct == NULL) {
		kmem_free(c, sizeof(*c), 0);
		return -ENOMEM;
	}
	plat_thread_regs_load(td->pt);
	ct->ctx = td->ctx;
	thread_inherit(ct, td);
	ct->altstack_sp = td->altstack_sp;
	ct->altstack_size = td->altstack_size;
	ct->altstack_flags = td->altstack_flags;
	if ((r = proc_fork_vm(td, c, ct, (flags & CLONE_VM) != 0)) < 0) {
		thread_free(ct);
		kmem_free(c, sizeof(*c), 0);
		return r;
	}
	thread_link(c, ct);
	c->pid = ct->tid = nextpid++;
	proc_copy_state(c, p);
	memcpy(c->comm, td->comm, sizeof(c->comm));   /* the forking thread's */
	proc_share(c, p, flags);
	arch_syscall_set_ret(&ct->ctx, 0);
	ct->ctx.dirty |= ARCH_DIRTY_ALL;
	proc_link(c);
	*cp = c;
	return 0;
}

void
proc_set_text(struct proc *p, struct vnode *vn)
{
	if (vn != NULL)
		vnode_hold_text(vn);
	if (p->text != NULL)
		vnode_put_text(p->text);
	p->text = vn;
}

void
proc_free(struct proc *p)
{
	VK_ASSERT(p->exiting);
	limit_proc_gone(p);
	proc_unlink(p);
	sig_flush(&p->pending);
	while (p->threads != NULL) {
		struct thread *td = p->threads;

		p->threads = td->tnext;
		thread_free(td);
	}
	free(p->exe);
	sighand_rel(p->sighand);
	kmem_free(p->groups, proc_groups_size(p->ngroups), 0);
	kmem_free(p, sizeof(*p), 0);
	vfs_umount_gone();
}

bool
pgrp_orphaned(int pgid)
{
	for (struct proc *p = proc_first(); p != NULL; p = p->next) {
		struct proc *pp;

		if (p->pgid != pgid || p->exiting ||
		    (pp = proc_find(p->ppid)) == NULL)
			continue;
		if (pp->pgid != pgid && pp->sid == p->sid)
			return false;
	}
	return true;
}

/*
 * The end of p by signal signo.  Linux marks the status "core dumped"
 * (0x80) only when it wrote a core file; vkernel writes none, so even a
 * signal whose default is to dump core, with RLIMIT_CORE above 0, ends
 * the process as any other killing signal does.
 */
void
proc_kill_sig(struct proc *p, int signo)
{
	proc_exit(p, signo);
}

/* --- threads --- */

int
proc_thread_create(struct thread *td, struct thread **ntp)
{
	struct proc *p = td->proc;
	struct thread *nt;
	int r;

	if ((r = proc_task_room(p)) < 0)
		return r;
	if ((nt = thread_alloc(p)) == NULL)
		return -ENOMEM;
	plat_thread_regs_load(td->pt);
	nt->ctx = td->ctx;
	if ((r = plat_thread_create(td->pt, nt, &nt->ctx, &nt->pt)) < 0) {
		thread_free(nt);
		return r;
	}
	nt->ctx.dirty |= ARCH_DIRTY_ALL;
	thread_inherit(nt, td);
	sig_altstack_off(nt);
	nt->tid = nextpid++;
	thread_link(p, nt);
	*ntp = nt;
	return 0;
}

void
proc_thread_exit(struct thread *td)
{
	thread_release_futexes(td);
	thread_clear_tid(td);
	thread_end(td);
}

void
proc_single_thread(struct thread *td)
{
	struct proc *p = td->proc;
	struct thread *t, *next;

	for (t = p->threads; t != NULL; t = next) {
		next = t->tnext;
		if (t != td)
			thread_end(t);
	}
	p->main = td;
	td->tid = p->pid;
}
