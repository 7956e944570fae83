/*
 * Boot and the event loop.
 *
 * The kernel is one thread running one loop: resume every runnable guest
 * thread, wait for the platform's next event (or the earliest deadline of
 * a parked thread), handle it, repeat.  Handling an event never blocks:
 * whatever must wait is parked (sched.c).  The loop ends when the command
 * is gone; its wait status is the sandbox's.
 *
 * The command runs as pid 2 under an init of vkernel's, as bwrap's and
 * `docker run --init`'s: a process that reaps the orphans reparented to
 * it, passes SIGTERM, SIGINT and SIGHUP from the host on to the command,
 * and ends with it, so that a program that takes getppid() == 1 for "my
 * parent died" is right, and one that is no init need not act as one.
 * That init is no guest program but a process of the kernel's own, as a
 * Linux kernel thread is (proc_create_init): no stub to start, no code a
 * guest could see, trace or take over, nothing in the guest's files, and
 * it costs nothing while it waits.  Its work is done where the events
 * are: an orphan's end frees it at once (proc_notify_parent), a host
 * signal goes to the command (kern_hostsig), and the command's end ends
 * the loop.  --as-pid-1 runs the command itself as pid 1, as a container
 * runtime wants; it is then the sandbox's init, with init's protection
 * from signals (sig_send_dropped) and the orphans for its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/kmsg.h"
#include "vkern/kern/mqueue.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall.h"
#include "vkern/kern/sysv_ipc.h"
#include "vkern/kmem.h"
#include "vkern/net/net.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/socket.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/tty.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/vm_ram.h"

static struct kern_config config;
static struct proc *cmdproc;

void
kern_init(const struct kern_config *cfg)
{
	config = *cfg;
	(void)kern_boot_ns();
	if (config.pids == 0)
		config.pids = KERN_MAX_TASKS;
	file_max = config.fds > 0 ? config.fds : KERN_MAX_FILES;
	if (config.disk > 0)
		tmpfs_disk_max = config.disk / VK_PAGE_SIZE;
	vm_ram_init(plat_ram_size(), VK_MIN(cfg->mem, plat_ram_size()));
	if (cfg->net_host)
		netif_from_host();
	if (cfg->hostname != NULL)
		uts_set_name(UTS_NODENAME, cfg->hostname,
		    strlen(cfg->hostname));
	kmsg_reset();
}

const struct kern_config *
kern_cfg(void)
{
	return &config;
}

struct proc *
kern_command(void)
{
	return cmdproc;
}

/* The command starts where vkernel was started, when the guest has it. */
static void
start_cwd(struct proc *p)
{
	struct nameidata nd;

	if (config.cwd == NULL || vfs_lookup(p, AT_FDCWD, config.cwd,
	    LOOKUP_FOLLOW, &nd) < 0)
		return;
	if (nd.vp->type == VDIR) {
		vnode_rel(p->fs->cwd);
		p->fs->cwd = nd.vp;
		nd.vp = NULL;
		free(p->fs->cwd_path);
		p->fs->cwd_path = strdup(nd.path);
	}
	nd_release(&nd);
}

/*
 * A program name without a slash is looked for in the guest's PATH, as
 * execvp(3) does; the first executable regular file wins.
 */
static void
start_path(struct proc *p, const char *name, char *const envp[], char *out,
    size_t size)
{
	const char *path = "/usr/local/bin:/usr/bin:/bin";
	struct nameidata nd;

	snprintf(out, size, "%s", name);
	if (strchr(name, '/') != NULL || name[0] == '\0')
		return;
	for (size_t i = 0; envp[i] != NULL; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			path = envp[i] + 5;
	for (const char *s = path; ; s = strchr(s, ':') + 1) {
		size_t n = strcspn(s, ":");

		snprintf(out, size, "%.*s%s%s", (int)n, s, n > 0 ? "/" : "",
		    name);
		if (vfs_lookup(p, AT_FDCWD, out, LOOKUP_FOLLOW, &nd) == 0) {
			bool ok = nd.vp->type == VREG &&
			    vfs_access(p, nd.vp, 1, false) == 0;

			nd_release(&nd);
			if (ok)
				return;
		}
		if (s[n] == '\0')
			break;
	}
	snprintf(out, size, "%s", name);
}

/* Undo what kern_start made: p, then init if there is one. */
static void
kern_start_undo(struct proc *p, struct proc *init)
{
	if (p != NULL) {
		proc_exit(p, 0);
		proc_free(p);
	}
	if (init != NULL) {
		proc_exit(init, 0);
		proc_free(init);
	}
}

int
kern_start(const char *name, char *const argv[], char *const envp[],
    const char **whyp)
{
	struct strvec av = { 0 }, ev = { 0 };
	char path[VK_PATH_MAX];
	struct proc *init = NULL, *p;
	int r;

	*whyp = NULL;
	kmem_mark();
	if (!config.as_pid_1 && (r = proc_create_init(&init)) < 0)
		return r;
	if ((r = proc_create(&p)) < 0) {
		kern_start_undo(NULL, init);
		return r;
	}
	if (init != NULL)
		p->ppid = init->pid;
	start_cwd(p);
	start_path(p, name, envp, path, sizeof(path));
	for (size_t i = 0; argv[i] != NULL; i++)
		strvec_insert(&av, av.n, argv[i]);
	for (size_t i = 0; envp[i] != NULL; i++)
		strvec_insert(&ev, ev.n, envp[i]);
	r = kern_execve(p->main, path, &av, &ev, false, whyp);
	strvec_free(&av);
	strvec_free(&ev);
	if (r < 0) {
		kern_start_undo(p, init);
		return r;
	}
	cmdproc = p;
	sched_setrun(p->main);
	return 0;
}

/*
 * A synchronous signal the guest caused: forced, as Linux's force_sig,
 * with the CPU exception a handler finds in its frame.
 */
static void
sig_fault(struct thread *td, int signo, int code, uint64_t addr)
{
	uint8_t info[128];

	switch (signo) {
	case SIGSEGV:
	case SIGBUS:
		/* A general protection fault (SI_KERNEL) has no address. */
		td->fault_trapno = code == SI_KERNEL ? 13 : 14;
		td->fault_cr2 = code == SI_KERNEL ? 0 : addr;
		break;
	case SIGFPE:
		td->fault_trapno = 0;
		td->fault_cr2 = 0;
		break;
	case SIGILL:
		td->fault_trapno = 6;
		td->fault_cr2 = 0;
		break;
	default:
		td->fault_trapno = 3;
		td->fault_cr2 = 0;
	}
	td->fault_err = 0;
	sig_info_fault(info, signo, code, addr);
	sig_post(td, signo, info, SIGPOST_FORCE | SIGPOST_THREAD);
	sched_setrun(td);
}

/*
 * A signal the host sent vkernel: SIGINT, SIGQUIT, SIGTSTP and SIGWINCH
 * are the terminal's (its keys, a resize) and go to the guest terminal's
 * foreground group, or to the command's group when there is no terminal;
 * SIGTERM and SIGHUP go to the command, as init passes them on (or as
 * the kernel's own to a command that is pid 1); a second SIGTERM ends the
 * sandbox at once.
 */
static void
kern_hostsig(int sig)
{
	static int nterm;
	uint8_t info[128];
	int pgid = tty_fg_pgrp();

	sig_info_user(info, sig, SI_KERNEL, 0, 0);
	if (sig == SIGTERM && ++nterm > 1) {
		proc_kill_sig(cmdproc, SIGKILL);
		return;
	}
	if (sig == SIGTERM || sig == SIGHUP) {
		sig_post(cmdproc->main, sig, info, 0);
		return;
	}
	sig_post_pgrp(pgid < 0 ? cmdproc->pgid : pgid, sig, info);
}

/*
 * The kernel's time serving a thread's syscall or fault is the guest's
 * system time (cputime.c); td lives until the event is handled.
 */
static void
kern_handle(const struct plat_event *ev)
{
	struct thread *td = ev->cookie;
	struct kcount kc = { .ktime = plat_clock_ns(CLOCK_MONOTONIC) };
	int code;

	curthread = td;
	switch (ev->kind) {
	case PLAT_EV_SYSCALL:
		td->last_fault = 0;
		if (arch_syscall_gate_ok(&td->ctx))
			syscall_enter(td);
		else
			sig_fault(td, SIGSEGV, SI_KERNEL, 0);
		break;
	case PLAT_EV_FAULT:
		if (ev->code == SI_KERNEL)
			sig_fault(td, ev->signo, SI_KERNEL, 0);
		else if (vm_fault(td, ev->addr, &code) == 0) {
			kc.minflt = 1;
			sched_setrun(td);
		} else if (code < 0)   /* vm_fault's way of saying SIGBUS */
			sig_fault(td, SIGBUS, -code, ev->addr);
		else
			sig_fault(td, ev->signo == SIGBUS ? SIGBUS : SIGSEGV,
			    code, ev->addr);
		if (kern_cfg()->stats)
			kern_stats_fault(plat_clock_ns(CLOCK_MONOTONIC) -
			    kc.ktime, kc.minflt == 0);
		break;
	case PLAT_EV_TRAP:
		sig_fault(td, ev->signo, ev->code, ev->addr);
		break;
	case PLAT_EV_GONE:
		proc_kill_sig(td->proc, SIGKILL);
		break;
	case PLAT_EV_CONSOLE:
		sched_console_ready(ev->fd);
		break;
	case PLAT_EV_NET:
		hostnet_ready(ev->fd);
		break;
	case PLAT_EV_HOSTSIG:
		curthread = NULL;
		kern_hostsig(ev->signo);
		break;
	case PLAT_EV_STOPPED:
		/* Stopped for a signal: deliver it, then go on. */
		if (td->state == TD_ONCPU)
			sched_setrun(td);
		break;
	case PLAT_EV_TIMEOUT:
	case PLAT_EV_NONE:
		return;
	}
	if (ev->kind == PLAT_EV_SYSCALL || ev->kind == PLAT_EV_FAULT) {
		kc.ktime = plat_clock_ns(CLOCK_MONOTONIC) - kc.ktime;
		cpu_count(td, &kc);
	}
}

/* The earliest time anything waits for: -1 is none. */
static int64_t
kern_next_deadline(void)
{
	return time_earliest(time_earliest(sched_next_deadline(),
	    timers_next()), limit_next());
}

struct kern_result
kern_run(void)
{
	struct kern_result res = { 0 };
	struct plat_event ev;
	struct thread *td;

	VK_ASSERT(cmdproc != NULL);
	limit_start(plat_clock_ns(CLOCK_MONOTONIC));
	while (!cmdproc->exiting) {
		int64_t deadline;

		while ((td = sched_next_runnable()) != NULL) {
			td->state = TD_ONCPU;
			if (!sig_deliver(td))
				continue;
			if (plat_thread_run(td->pt) < 0)
				proc_kill_sig(td->proc, SIGKILL);
		}
		if (cmdproc->exiting)
			break;
		deadline = kern_next_deadline();
		/* The host gets freed memory back before the kernel sleeps. */
		vm_ram_flush();
		kmem_trim();
		if (plat_event_wait(&ev, deadline) < 0)
			break;
		kern_handle(&ev);
		curthread = NULL;
		proc_reap_orphans();
		if (kern_next_deadline() >= 0) {
			int64_t now = plat_clock_ns(CLOCK_MONOTONIC);

			timers_expire(now);
			sched_expire(now);
			limit_expire(now);
		}
	}
	res.status = cmdproc->exit_status;
	limit_result(&res);
	/* The command is gone: so are init, the sandbox and all in it. */
	for (struct proc *p = proc_first(); p != NULL; p = p->next)
		proc_exit(p, SIGKILL);
	while (proc_first() != NULL)
		proc_free(proc_first());
	usock_gc();
	proc_reap_orphans();
	ipc_gone();
	mq_gone();
	sysring_gone_free();
	kmem_check();
	cmdproc = NULL;
	return res;
}
