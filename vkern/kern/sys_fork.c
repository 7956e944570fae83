/*
 * Making processes and threads: fork, vfork, clone, clone3, unshare, and
 * waiting for processes: wait4, waitid.
 *
 * A child is a new stub forked from the parent's, with the parent's
 * memory shared copy-on-write (vm_map_fork), its fds and signal actions.
 * With CLONE_VM (vfork, posix_spawn) the child is a host thread of the
 * parent's stub instead and uses the parent's map itself, until it execs
 * or exits.  A vfork parent waits until the child execs or exits.  An
 * exited child is a zombie until its parent waits for it; a parent
 * waiting parks on itself and every child's exit wakes it.  CLONE_FILES,
 * CLONE_FS and CLONE_SIGHAND make the child share the fd table, the root,
 * cwd and umask, and the signal actions.  CLONE_THREAD makes a thread of
 * the caller's process instead, which shares all of it.  XXX: a thread
 * without CLONE_FILES or CLONE_FS is refused.  CLONE_NEWNS gives the
 * child a copy of the mount table (guest root only, as CAP_SYS_ADMIN).
 */
#include <errno.h>
#include <limits.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <signal.h>
#include <string.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

#define CLONE_SUPPORTED (CLONE_VM | CLONE_VFORK | CLONE_PARENT_SETTID | \
    CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | CLONE_SETTLS | \
    CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_SYSVSEM | \
    CLONE_CLEAR_SIGHAND | CLONE_THREAD | CLONE_PARENT | CLONE_NEWNS)

struct clone_req {
	uint64_t flags;
	int exit_signal;
	uint64_t stack;        /* the child's rsp, or 0 */
	uint64_t tls;
	uaddr_t parent_tid, child_tid;
};

/* A vfork parent's wait: until the child exec'd or exited. */
static long
vfork_cont(struct thread *td)
{
	struct proc *c = proc_find((int)td->wait.arg[0]);

	if (c != NULL && !c->vfork_done)
		return -EPARKED;
	return (long)td->wait.arg[0];
}

/* The parts of a new thread or process clone's arguments set. */
static void
clone_setup(struct thread *nt, const struct clone_req *cr)
{
	if (cr->stack != 0)
		nt->ctx.regs.rsp = cr->stack;
	if (cr->flags & CLONE_SETTLS)
		nt->ctx.regs.fs_base = cr->tls;
	if (cr->flags & CLONE_CHILD_CLEARTID)
		nt->clear_child_tid = cr->child_tid.va;
}

static long
clone_thread(struct thread *td, const struct clone_req *cr)
{
	struct thread *nt;
	int r, tid;

	static bool told;

	/*
	 * The fd table and the root, cwd and umask belong to the process
	 * here, not to each thread: a thread cloned without CLONE_FILES or
	 * CLONE_FS shares them anyway (it sees its own copy on Linux, which
	 * matters only if one of them then changes its table or cwd).
	 * A vfork that makes a thread is not served.
	 */
	if ((cr->flags & CLONE_VFORK) || (~cr->flags & (CLONE_FILES |
	    CLONE_FS))) {
		if (!told)
			vk_log_guest("clone: threads share the process's fd "
			    "table and fs state, and vfork makes no thread");
		told = true;
		if (cr->flags & CLONE_VFORK)
			return -EINVAL;
	}
	if ((r = proc_thread_create(td, &nt)) < 0)
		return r;
	tid = nt->tid;
	arch_syscall_set_ret(&nt->ctx, 0);
	clone_setup(nt, cr);
	/* As Linux, a bad address here does not fail the clone. */
	if (cr->flags & CLONE_PARENT_SETTID)
		(void)copyout(td, &tid, cr->parent_tid, sizeof(tid));
	if (cr->flags & CLONE_CHILD_SETTID)
		(void)copyout(nt, &tid, cr->child_tid, sizeof(tid));
	sched_setrun(nt);
	return tid;
}

static long
kern_clone(struct thread *td, const struct clone_req *cr)
{
	struct mntns *ns = NULL;
	struct proc *c;
	int r, pid;

	if ((cr->flags & ~(uint64_t)(CLONE_SUPPORTED)) ||
	    ((cr->flags & CLONE_THREAD) && !(cr->flags & CLONE_SIGHAND)) ||
	    ((cr->flags & CLONE_SIGHAND) && !(cr->flags & CLONE_VM)) ||
	    ((cr->flags & CLONE_SIGHAND) && (cr->flags & CLONE_CLEAR_SIGHAND)))
		return -EINVAL;
	/*
	 * A namespace of the child's own is no namespace shared with its
	 * parent (Linux's copy_process(): EINVAL), and here a thread's fs
	 * state is its process's.
	 */
	if ((cr->flags & CLONE_NEWNS) && (cr->flags & (CLONE_FS |
	    CLONE_THREAD)))
		return -EINVAL;
	/* Checked before anything is made, so that no child is left. */
	if ((cr->flags & CLONE_SETTLS) && !arch_segbase_ok(cr->tls))
		return -EPERM;
	if ((cr->flags & CLONE_NEWNS) && td->proc->cred.euid != 0)
		return -EPERM;  /* CAP_SYS_ADMIN */
	/*
	 * Init makes no siblings of its own, which nobody would reap
	 * (Linux's copy_process() refuses CLONE_PARENT to any init).
	 */
	if ((cr->flags & CLONE_PARENT) && td->proc->pid == 1)
		return -EINVAL;
	if (cr->flags & CLONE_THREAD)
		return clone_thread(td, cr);
	if (cr->exit_signal < 0 || cr->exit_signal > VK_NSIG)
		return -EINVAL;
	/* The child's namespace first: its copy is what may not fit. */
	if ((cr->flags & CLONE_NEWNS) &&
	    (ns = mntns_dup(vfs_ns(td->proc))) == NULL)
		return -ENOMEM;
	if ((r = proc_fork(td, cr->flags, &c)) < 0) {
		if (ns != NULL)
			mntns_rel(ns);
		return r;
	}
	pid = c->pid;
	c->exit_signal = cr->exit_signal;
	/*
	 * A sibling: the caller's parent's child, which tells that parent of
	 * its end with the caller's own exit signal, as Linux's.
	 */
	if (cr->flags & CLONE_PARENT) {
		c->ppid = td->proc->ppid;
		c->exit_signal = td->proc->exit_signal;
	}
	if (cr->flags & CLONE_CLEAR_SIGHAND)
		sig_reset_handlers(c->sighand);
	if (ns != NULL)
		mntns_install(&c->fs->mntns, ns);
	clone_setup(c->main, cr);
	/*
	 * The child exists and its host stub has stopped, waiting for its
	 * first run: nothing may fail from here on, or the child would be
	 * left with no one to run it.  As Linux, a bad parent_tid is ignored.
	 */
	if (cr->flags & CLONE_PARENT_SETTID)
		(void)copyout(td, &pid, cr->parent_tid, sizeof(pid));
	if (cr->flags & CLONE_CHILD_SETTID)
		(void)copyout(c->main, &pid, cr->child_tid, sizeof(pid));
	sched_setrun(c->main);
	if (!(cr->flags & CLONE_VFORK))
		return pid;
	td->wait = (struct wait){ .cont = vfork_cont, .deadline = -1,
	    .console_fd = -1, .chan = c };
	td->wait.arg[0] = (uint64_t)pid;
	return -EPARKED;
}

long
sys_fork(struct thread *td, const struct sys_fork_args *a)
{
	struct clone_req cr = { .exit_signal = SIGCHLD };

	return kern_clone(td, &cr);
}

long
sys_vfork(struct thread *td, const struct sys_vfork_args *a)
{
	struct clone_req cr = { .flags = CLONE_VM | CLONE_VFORK,
	    .exit_signal = SIGCHLD };

	return kern_clone(td, &cr);
}

long
sys_clone(struct thread *td, const struct sys_clone_args *a)
{
	/*
	 * Old clone() takes its flags from the low 32 bits, as Linux, and
	 * ignores CLONE_DETACHED, which musl still passes.
	 */
	struct clone_req cr = {
		.flags = a->flags & ~(0xffULL | CLONE_DETACHED), .exit_signal = (int)(a->flags &
		0xff), .stack = a->stack.va, .tls = a->tls,
		.parent_tid = a->ptid, .child_tid = a->ctid,
	};

	return kern_clone(td, &cr);
}

long
sys_clone3(struct thread *td, const struct sys_clone3_args *a)
{
	struct clone_args ca;
	struct clone_req cr;
	int r;

	if (a->size < CLONE_ARGS_SIZE_VER0)
		return -EINVAL;
	if ((r = copyin_struct(td, a->args, &ca, sizeof(ca), a->size)) < 0)
		return r;
	if (ca.set_tid != 0 || ca.set_tid_size != 0 || ca.cgroup != 0 ||
	    (ca.flags & CLONE_PIDFD) || ca.exit_signal > VK_NSIG ||
	    ((ca.flags & (CLONE_THREAD | CLONE_PARENT)) &&
	    ca.exit_signal != 0) ||
	    (ca.stack == 0) != (ca.stack_size == 0) ||
	    ca.stack_size > ARCH_TASK_SIZE ||
	    ca.stack > ARCH_TASK_SIZE - ca.stack_size)
		return -EINVAL;
	cr = (struct clone_req){
		.flags = ca.flags, .exit_signal = (int)ca.exit_signal,
		.stack = ca.stack != 0 ? ca.stack + ca.stack_size : 0,
		.tls = ca.tls, .parent_tid = UADDR(ca.parent_tid),
		.child_tid = UADDR(ca.child_tid),
	};
	return kern_clone(td, &cr);
}

/* --- waiting --- */

static bool
wait_match(const struct proc *self, const struct proc *c, int idtype,
    int id)
{
	if (c->ppid != self->pid)
		return false;
	switch (idtype) {
	case P_ALL:
		return true;
	case P_PID:
		return c->pid == id;
	case P_PGID:
		return c->pgid == (id == 0 ? self->pgid : id);
	}
	return false;
}

enum wait_what { WAIT_EXITED, WAIT_STOPPED, WAIT_CONTINUED };

/*
 * Find a child to report: a zombie, or with stopped (WUNTRACED,
 * WSTOPPED) or continued (WCONTINUED) a child that changed so and was
 * not reported yet.  Else -EAGAIN when some child matches, -ECHILD when
 * none does.
 */
static long
wait_find(struct proc *self, int idtype, int id, bool exited, bool stopped,
    bool continued, struct proc **zp, enum wait_what *whatp)
{
	bool any = false;

	for (struct proc *c = proc_first(); c != NULL; c = c->next) {
		if (!wait_match(self, c, idtype, id))
			continue;
		any = true;
		*zp = c;
		if (exited && c->exiting && !c->reaped_by_host) {
			*whatp = WAIT_EXITED;
			return 0;
		}
		if (stopped && !c->exiting && c->stopped && c->stop_report) {
			*whatp = WAIT_STOPPED;
			return 0;
		}
		if (continued && !c->exiting && c->cont_report) {
			*whatp = WAIT_CONTINUED;
			return 0;
		}
	}
	return any ? -EAGAIN : -ECHILD;
}

/* What wait reports of child z: its own usage and its children's. */
static int
wait_rusage(struct thread *td, struct proc *z, uaddr_t u)
{
	struct kru ru;

	cpu_rusage(NULL, z, VK_RUSAGE_BOTH, &ru);
	return cpu_rusage_out(td, &ru, u);
}

/* An exited child waited for: its usage becomes td's children's. */
static void
wait_reap(struct thread *td, struct proc *z)
{
	cpu_reap(td->proc, z);
	proc_free(z);
}

static long
wait_park(struct thread *td)
{
	td->wait = (struct wait){ .cont = syscall_redispatch, .deadline = -1,
	    .console_fd = -1, .chan = td->proc };
	return -EPARKED;
}

long
sys_wait4(struct thread *td, const struct sys_wait4_args *a)
{
	unsigned valid = WNOHANG | WUNTRACED | WCONTINUED | __WALL |
	    __WCLONE | __WNOTHREAD;
	int idtype = a->pid == -1 ? P_ALL : a->pid > 0 ? P_PID : P_PGID;
	enum wait_what what;
	struct proc *z;
	long r;
	int id, pid, st;

	if (a->options & ~valid)
		return -EINVAL;
	/* No group has the id -INT_MIN, which an int cannot hold. */
	if (a->pid == INT_MIN)
		return -ESRCH;
	id = a->pid < -1 ? -a->pid : a->pid > 0 ? a->pid : 0;
	r = wait_find(td->proc, idtype, id, true, a->options & WUNTRACED,
	    a->options & WCONTINUED, &z, &what);
	if (r == -EAGAIN)
		return (a->options & WNOHANG) ? 0 : wait_park(td);
	if (r < 0)
		return r;
	pid = z->pid;
	st = what == WAIT_EXITED ? z->exit_status : what == WAIT_STOPPED ?
	    (z->stopsig << 8) | 0x7f : 0xffff;
	if (what == WAIT_STOPPED)
		z->stop_report = false;
	if (what == WAIT_CONTINUED)
		z->cont_report = false;
	if (a->status.va != 0 && copyout(td, &st, a->status, sizeof(st)) < 0)
		return -EFAULT;
	if (a->rusage.va != 0 && wait_rusage(td, z, a->rusage) < 0)
		return -EFAULT;
	if (what == WAIT_EXITED)
		wait_reap(td, z);
	return pid;
}

long
sys_waitid(struct thread *td, const struct sys_waitid_args *a)
{
	unsigned valid = WNOHANG | WEXITED | WSTOPPED | WCONTINUED |
	    WNOWAIT | __WALL | __WCLONE | __WNOTHREAD;
	uint8_t info[128];
	enum wait_what what;
	struct proc *z;
	int code, st;
	long r;

	int idtype = a->idtype, id = a->id;

	if ((a->options & ~valid) ||
	    !(a->options & (WEXITED | WSTOPPED | WCONTINUED)))
		return -EINVAL;
	/* A pid is positive; a group (0: the caller's), a pidfd not negative. */
	if ((idtype == P_PID && id <= 0) ||
	    ((idtype == P_PGID || idtype == P_PIDFD) && id < 0))
		return -EINVAL;
	if (idtype != P_ALL && idtype != P_PID && idtype != P_PGID &&
	    idtype != P_PIDFD)
		return -EINVAL;
	if (idtype == P_PIDFD) {
		if ((id = pidfd_pid(td, a->id)) < 0)
			return id;
		idtype = P_PID;
	}
	r = wait_find(td->proc, idtype, id, a->options & WEXITED,
	    a->options & WSTOPPED, a->options & WCONTINUED, &z, &what);
	if (r == -EAGAIN) {
		if (!(a->options & WNOHANG))
			return wait_park(td);
		memset(info, 0, sizeof(info));
		return a->info.va != 0 ? copyout(td, info, a->info, 128) : 0;
	}
	if (r < 0)
		return r;
	st = z->exit_status;
	if (what == WAIT_STOPPED) {
		code = CLD_STOPPED;
		st = z->stopsig;
	} else if (what == WAIT_CONTINUED) {
		code = CLD_CONTINUED;
		st = SIGCONT;
	} else {
		code = (st & 0x7f) == 0 ? CLD_EXITED : (st & 0x80) ?
		    CLD_DUMPED : CLD_KILLED;
		st = (st & 0x7f) == 0 ? (st >> 8) & 0xff : st & 0x7f;
	}
	sig_info_user(info, SIGCHLD, code, z->pid, z->cred.uid);
	memcpy(info + 24, &st, 4);
	if (a->info.va != 0 && copyout(td, info, a->info, 128) < 0)
		return -EFAULT;
	if (a->rusage.va != 0 && wait_rusage(td, z, a->rusage) < 0)
		return -EFAULT;
	if (!(a->options & WNOWAIT)) {
		if (what == WAIT_EXITED)
			wait_reap(td, z);
		else if (what == WAIT_STOPPED)
			z->stop_report = false;
		else
			z->cont_report = false;
	}
	return 0;
}

/* Every flag unshare(2) knows, as Linux's check_unshare_flags(). */
#define UNSHARE_VALID (CLONE_THREAD | CLONE_FS | CLONE_NEWNS | \
    CLONE_SIGHAND | CLONE_VM | CLONE_FILES | CLONE_SYSVSEM | \
    CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUSER | \
    CLONE_NEWPID | CLONE_NEWCGROUP | CLONE_NEWTIME)
#define UNSHARE_NS (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | \
    CLONE_NEWNET | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWCGROUP | \
    CLONE_NEWTIME)

/*
 * unshare: the fd table, and the root, cwd and umask, become the
 * caller's own; the thread group, signal actions and memory can only
 * "be unshared" when there is nothing to unshare, as Linux's
 * check_unshare_flags() has it.  CLONE_NEWNS (which implies CLONE_FS)
 * gives the caller a copy of the mount table, for guest root only
 * (EPERM, as without CAP_SYS_ADMIN); the other namespaces are EINVAL,
 * as on a kernel built without them.  XXX: the fd table and fs state
 * are the process's here, not each thread's, so a process with several
 * threads cannot take a private copy for one of them: EINVAL.
 */
long
sys_unshare(struct thread *td, const struct sys_unshare_args *a)
{
	struct proc *p = td->proc;
	struct mntns *ns = NULL;
	uint64_t flags = a->flags;

	if (flags & ~(uint64_t)UNSHARE_VALID)
		return -EINVAL;
	if (flags & (UNSHARE_NS & ~(uint64_t)CLONE_NEWNS))
		return -EINVAL;
	/* What Linux's ksys_unshare() implies. */
	if (flags & CLONE_NEWNS)
		flags |= CLONE_FS;
	if (flags & CLONE_VM)
		flags |= CLONE_SIGHAND;
	if (flags & CLONE_SIGHAND)
		flags |= CLONE_THREAD;
	if ((flags & (CLONE_THREAD | CLONE_FS | CLONE_FILES)) &&
	    p->nthreads > 1)
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && p->sighand->refs > 1)
		return -EINVAL;
	if ((flags & CLONE_VM) && p->vm->refs > 1)
		return -EINVAL;
	if ((flags & CLONE_NEWNS) && p->cred.euid != 0)
		return -EPERM;  /* CAP_SYS_ADMIN */
	/* The copy that can fail first: ENOMEM leaves nothing unshared. */
	if ((flags & CLONE_NEWNS) && (ns = mntns_dup(vfs_ns(p))) == NULL)
		return -ENOMEM;
	if (flags & CLONE_FILES)
		proc_unshare_files(p);
	if (flags & CLONE_FS)
		proc_unshare_fs(p);
	if (flags & CLONE_NEWNS)
		mntns_install(&p->fs->mntns, ns);
	return 0;
}
