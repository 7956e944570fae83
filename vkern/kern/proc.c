/*
 * Process and thread life cycle.
 *
 * A process comes into being with its stub (plat_space_create) and one
 * thread; its vm map covers the guest addresses the platform leaves it.
 * proc_exit() takes it down in one step: the stub is killed, its threads
 * leave every queue and its memory goes back to the RAM allocator.  The
 * struct stays, as a zombie, until its parent (for now the kernel) has
 * read the status.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/platform.h"
#include "vkern/vfs/console.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/vm_map.h"

#define VM_MIN_ADDR 0x10000ULL   /* Linux's default mmap_min_addr */

static int nextpid = 1;
static struct proc *allproc;

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
	p->rlim[RLIMIT_NOFILE] = (struct rlim64){ 1024, 4096 };
	p->rlim[RLIMIT_NPROC] = (struct rlim64){ 4096, 4096 };
	p->rlim[RLIMIT_MEMLOCK] = (struct rlim64){ 8 << 20, 8 << 20 };
	p->rlim[RLIMIT_SIGPENDING] = (struct rlim64){ 4096, 4096 };
	p->rlim[RLIMIT_MSGQUEUE] = (struct rlim64){ 819200, 819200 };
	p->rlim[RLIMIT_NICE] = (struct rlim64){ 0, 0 };
	p->rlim[RLIMIT_RTPRIO] = (struct rlim64){ 0, 0 };
}

/* The first process's files: the console as fds 0-2, the VFS's root. */
static void
proc_init_files(struct proc *p)
{
	for (int fd = 0; fd < 3; fd++) {
		struct file *fp = console_file(fd);

		if (fp != NULL)
			fd_install(&p->fdt, fd, fp, false, 3);
	}
	p->root = vfs_root();
	if (p->root != NULL) {
		vnode_ref(p->root);
		vnode_ref(p->root);
	}
	p->cwd = p->root;
	p->cwd_path = strdup("/");
	p->umask = 022;
}

int
proc_create(struct proc **pp)
{
	struct proc *p = vk_xcalloc(1, sizeof(*p));
	struct thread *td = vk_xcalloc(1, sizeof(*td));
	const struct kern_config *cfg = kern_cfg();
	struct plat_space_info info;
	int r;

	td->proc = p;
	td->state = TD_ONCPU;
	td->wait.console_fd = -1;
	if ((r = plat_space_create(td, &td->ctx, &p->space, &td->pt,
	    &info)) < 0) {
		free(td);
		free(p);
		return r;
	}
	p->main = td;
	p->pid = td->tid = nextpid++;
	p->pgid = p->sid = p->pid;
	p->ppid = 0;
	p->cred = (struct cred){
		cfg->uid, cfg->uid, cfg->uid, cfg->uid,
		cfg->gid, cfg->gid, cfg->gid, cfg->gid,
	};
	proc_init_files(p);
	proc_default_limits(p);
	p->start_ns = (uint64_t)plat_clock_ns(1);
	p->itimer_deadline = -1;
	vm_map_init(&p->vm, p->space, VM_MIN_ADDR,
	    VK_MIN(info.reserved_start, ARCH_TASK_SIZE));
	p->vdso_base = info.vdso_base;
	if (info.vdso_end > info.vdso_start && info.vdso_start < p->vm.max) {
		p->vdso_start = info.vdso_start;
		p->vdso_end = VK_MIN(info.vdso_end, p->vm.max);
		vm_map_reserve(&p->vm, p->vdso_start, p->vdso_end);
	}
	proc_link(p);
	*pp = p;
	return 0;
}

void
proc_exit(struct proc *p, int status)
{
	struct thread *td = p->main;

	if (p->exiting)
		return;
	p->exiting = true;
	p->exit_status = status;
	sched_forget(td);
	td->state = TD_DEAD;
	fd_close_all(&p->fdt);
	if (p->root != NULL) {
		vnode_rel(p->root);
		vnode_rel(p->cwd);
		p->root = p->cwd = NULL;
	}
	plat_space_destroy(p->space);
	p->space = NULL;
	p->vm.space = NULL;
	vm_map_destroy(&p->vm);
}

void
proc_free(struct proc *p)
{
	VK_ASSERT(p->exiting);
	proc_unlink(p);
	free(p->main);
	free(p->exe);
	free(p->cwd_path);
	free(p->groups);
	free(p);
}

void
proc_kill_sig(struct proc *p, int signo, bool core)
{
	proc_exit(p, signo | (core ? 0x80 : 0));
}
