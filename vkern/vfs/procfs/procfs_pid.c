/*
 * procfs's per-process files: /proc/PID/... and /proc/PID/task/TID/...
 *
 * Formats are Linux's (fs/proc/array.c, task_mmu.c, fd.c, base.c), since
 * ps, top and pgrep parse them by position.  Each generator is called
 * with a live, non-exiting process (pseudofs checked it just before), and
 * reads only what that struct proc holds; it keeps nothing afterwards.
 * What the vkernel does not track (faults, context switches, pending
 * signals, supplementary groups) reads as 0 or empty.  Memory sizes come
 * from the vm map: RAM is allocated when memory is mapped, so the
 * resident size is every RAM-backed entry.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/procfs/procfs_impl.h"
#include "vkern/vfs/tty.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_notify.h"
#include "vkern/vk.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_ram.h"

/* PF_RANDOMIZE: what stat's flags show for an ordinary user task. */
#define PROCFS_PF_FLAGS 0x00400000u

/* Every capability up to CAP_LAST_CAP (40), as root holds them. */
#define PROCFS_CAP_FULL 0x1ffffffffffULL

/*
 * Linux's O_LARGEFILE, in f_flags on 64-bit for what open(2) opened
 * (force_o_largefile(); glibc defines 0), not for pipes, sockets and
 * the anonymous files.
 */
#define PROCFS_O_LARGEFILE 0100000u

/* The guest's SIG_DFL and SIG_IGN handler values. */
#define GUEST_SIG_DFL 0
#define GUEST_SIG_IGN 1

/* A corrupt argument range must not make the kernel copy gigabytes. */
#define PROCFS_ARGS_MAX (4UL << 20)

/* A process's memory from its vm map, in bytes (addresses for the rest). */
struct pid_vm {
	uint64_t size, rss, data, stk, exe, lck;
	uint64_t code_start, code_end;      /* the first executable entry */
	uint64_t data_start, data_end;      /* writable entries below brk */
	uint64_t stack_top;
};

static void
pid_vm_entry(const struct vm_map *m, const struct vm_entry *e,
    struct pid_vm *v)
{
	uint64_t len = e->end - e->start;

	if (e->flags & VME_STACK) {
		v->stk += len;
		v->stack_top = e->end;
	} else if (e->prot & PLAT_PROT_EXEC) {
		v->exe += len;
		if (v->code_start == 0) {
			v->code_start = e->start;
			v->code_end = e->end;
		}
	} else if (e->prot & PLAT_PROT_WRITE) {
		v->data += len;
		if (!(e->flags & VME_HEAP) && e->end <= m->brk_start) {
			if (v->data_start == 0)
				v->data_start = e->start;
			v->data_end = e->end;
		}
	}
}

static void
pid_vm_scan(const struct vm_map *m, struct pid_vm *v)
{
	*v = (struct pid_vm){ 0 };
	for (unsigned i = 0; i < m->n; i++) {
		const struct vm_entry *e = &m->ent[i];

		v->size += e->end - e->start;
		if (e->ramoff != VM_NORAM)
			v->rss += e->end - e->start;
		if (e->flags & VME_LOCKED)
			v->lck += e->end - e->start;
		if (!(e->flags & VME_RESERVED))
			pid_vm_entry(m, e, v);
	}
}

/* The thread a file speaks of: task/TID's, or the main thread's. */
static int
pid_tid(const struct pfs_ctx *c)
{
	if (c->arg != 0)
		return c->arg;
	return c->p->main != NULL ? c->p->main->tid : c->p->pid;
}

static uint64_t
pid_sigmask(const struct proc *p)
{
	return p->main != NULL ? p->main->sigmask : 0;
}

/* Bit n - 1 for each signal n that is ignored or that has a handler. */
static void
pid_sigsets(const struct proc *p, uint64_t *ignp, uint64_t *cgtp)
{
	*ignp = *cgtp = 0;
	for (int i = 0; i < VK_NSIG; i++) {
		uint64_t h = p->sighand->act[i].handler;

		if (h == GUEST_SIG_IGN)
			*ignp |= 1ULL << i;
		else if (h != GUEST_SIG_DFL)
			*cgtp |= 1ULL << i;
	}
}

/*
 * The state letter of the thread a file speaks of (the process's is its
 * main thread's), as Linux's: T once its process is stopped, whatever
 * the thread was doing (Linux wakes a sleeper to stop it); S while it
 * waits in a system call (a futex, wait4, a read with no data, a sleep);
 * R while it runs or may.  vkernel's init only sleeps.  No guest is
 * ever traced, so no thread is in a tracing stop (t).
 */
static char
pid_state(const struct pfs_ctx *c)
{
	const struct thread *td = c->arg != 0 ? proc_thread(c->p, c->arg) :
	    c->p->main;

	if (c->p->stopped)
		return 'T';
	if (c->p->kproc || td == NULL)
		return 'S';
	switch (td->state) {
	case TD_PARKED:
		return 'S';
	case TD_STOPPED:
		return 'T';
	case TD_DEAD:
		return 'Z';
	default:
		return 'R';
	}
}

static const char *
pid_state_name(char st)
{
	switch (st) {
	case 'R':
		return "running";
	case 'T':
		return "stopped";
	case 'Z':
		return "zombie";
	default:
		return "sleeping";
	}
}

/* Ticks from the boot to the process's start: stat's starttime. */
static uint64_t
pid_starttime(const struct proc *p)
{
	return procfs_ticks((int64_t)p->start_ns - pfs_boot_ns());
}

/* The 52 fields of proc(5)'s /proc/PID/stat, in do_task_stat()'s order. */
int
procfs_gen_pid_stat(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct proc *p = c->p;
	struct thread *td = c->arg != 0 ? proc_thread(p, c->arg) : NULL;
	int64_t user, cpu = td != NULL ? cpu_thread_ns(td, &user) :
	    cpu_proc_ns(p, &user);
	struct pid_vm v;
	uint64_t ign, cgt;

	pid_vm_scan(p->vm, &v);
	pid_sigsets(p, &ign, &cgt);
	/* 1-13: ids, the terminal and its foreground, flags, faults. */
	sbuf_printf(sb, "%d (%s) %c %d %d %d %llu %d %u 0 0 0 0 ", pid_tid(c),
	    p->comm, pid_state(c), p->ppid, p->pgid, p->sid,
	    (unsigned long long)(p->ctty != NULL ? p->ctty->rdev : 0),
	    p->ctty != NULL && p->ctty->pgrp != 0 ? p->ctty->pgrp : -1,
	    PROCFS_PF_FLAGS);
	/* 14-25: times, priority 20 and nice 0, threads, memory. */
	sbuf_printf(sb, "%llu %llu %llu %llu 20 0 %d 0 %llu %llu %llu %llu ",
	    (unsigned long long)procfs_ticks(user),
	    (unsigned long long)procfs_ticks(cpu - user),
	    (unsigned long long)procfs_ticks(p->cru.user),
	    (unsigned long long)procfs_ticks(p->cru.sys), p->nthreads,
	    (unsigned long long)pid_starttime(p),
	    (unsigned long long)v.size,
	    (unsigned long long)(v.rss / VK_PAGE_SIZE),
	    (unsigned long long)p->rlim[RLIMIT_RSS].cur);
	/* 26-39: layout, signal sets, exit signal SIGCHLD, CPU 0. */
	sbuf_printf(sb, "%llu %llu %llu 0 0 0 %llu %llu %llu 0 0 0 17 0 ",
	    (unsigned long long)v.code_start, (unsigned long long)v.code_end,
	    (unsigned long long)v.stack_top,
	    (unsigned long long)pid_sigmask(p), (unsigned long long)ign,
	    (unsigned long long)cgt);
	/* 40-52: scheduling, guest time, more layout, exit code. */
	sbuf_printf(sb, "0 0 0 0 0 %llu %llu %llu %llu %llu %llu %llu 0\n",
	    (unsigned long long)v.data_start, (unsigned long long)v.data_end,
	    (unsigned long long)p->vm->brk_start,
	    (unsigned long long)p->arg_start, (unsigned long long)p->arg_end,
	    (unsigned long long)p->env_start, (unsigned long long)p->env_end);
	return 0;
}

/* The name as proc_task_name() escapes it for status. */
static void
status_name(struct sbuf *sb, const char *comm)
{
	sbuf_printf(sb, "Name:\t");
	for (size_t i = 0; i < 16 && comm[i] != '\0'; i++) {
		if (comm[i] == '\n')
			sbuf_printf(sb, "\\n");
		else if (comm[i] == '\\')
			sbuf_printf(sb, "\\\\");
		else
			sbuf_append(sb, &comm[i], 1);
	}
	sbuf_printf(sb, "\n");
}

static void
status_ids(struct sbuf *sb, const struct pfs_ctx *c)
{
	const struct proc *p = c->p;
	const struct cred *cr = &p->cred;
	char st = pid_state(c);

	status_name(sb, p->comm);
	sbuf_printf(sb, "Umask:\t%04o\nState:\t%c (%s)\nTgid:\t%d\n"
	    "Ngid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n", p->fs->umask & 0777,
	    st, pid_state_name(st), p->pid, pid_tid(c),
	    p->ppid);
	sbuf_printf(sb, "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n",
	    cr->uid, cr->euid, cr->suid, cr->fsuid, cr->gid, cr->egid,
	    cr->sgid, cr->fsgid);
	/* Linux's fd tables start at 64 slots (NR_OPEN_DEFAULT). */
	sbuf_printf(sb, "FDSize:\t%d\nGroups:\t\nNStgid:\t%d\nNSpid:\t%d\n"
	    "NSpgid:\t%d\nNSsid:\t%d\n", VK_MAX(p->fdt->n, 64), p->pid,
	    pid_tid(c), p->pgid, p->sid);
}

static void
status_kb(struct sbuf *sb, const char *name, uint64_t bytes)
{
	sbuf_printf(sb, "%s:\t%8llu kB\n", name,
	    (unsigned long long)(bytes / 1024));
}

/* No peak is tracked: the peaks are the current sizes. */
static void
status_mem(struct sbuf *sb, const struct proc *p)
{
	struct pid_vm v;

	pid_vm_scan(p->vm, &v);
	status_kb(sb, "VmPeak", v.size);
	status_kb(sb, "VmSize", v.size);
	status_kb(sb, "VmLck", v.lck);
	status_kb(sb, "VmPin", 0);
	status_kb(sb, "VmHWM", v.rss);
	status_kb(sb, "VmRSS", v.rss);
	status_kb(sb, "RssAnon", v.rss);
	status_kb(sb, "RssFile", 0);
	status_kb(sb, "RssShmem", 0);
	status_kb(sb, "VmData", v.data);
	status_kb(sb, "VmStk", v.stk);
	status_kb(sb, "VmExe", v.exe);
	status_kb(sb, "VmLib", 0);
	status_kb(sb, "VmPTE", 0);
	status_kb(sb, "VmSwap", 0);
}

static void
status_sig(struct sbuf *sb, const struct proc *p)
{
	uint64_t ign, cgt;

	pid_sigsets(p, &ign, &cgt);
	sbuf_printf(sb, "Threads:\t%d\nSigQ:\t0/%llu\n"
	    "SigPnd:\t%016llx\nShdPnd:\t%016llx\nSigBlk:\t%016llx\n"
	    "SigIgn:\t%016llx\nSigCgt:\t%016llx\n",
	    p->nthreads, (unsigned long long)p->rlim[RLIMIT_SIGPENDING].cur,
	    0ULL, 0ULL,
	    (unsigned long long)pid_sigmask(p), (unsigned long long)ign,
	    (unsigned long long)cgt);
}

/* n bits set, as Linux's "%*pb": hex digits, a comma every 32 bits. */
static void
status_cpumask(struct sbuf *sb, int n)
{
	n = VK_MAX(n, 1);
	for (int d = (n + 3) / 4 - 1; d >= 0; d--) {
		sbuf_printf(sb, "%x", (1 << VK_MIN(4, n - 4 * d)) - 1);
		if (d > 0 && d % 8 == 0)
			sbuf_printf(sb, ",");
	}
}

/*
 * Root's capabilities are all of them (the vkernel checks uid 0), others
 * have none; the bounding set is full for everyone, as Linux's default.
 */
static void
status_caps(struct sbuf *sb, const struct proc *p)
{
	unsigned long long caps = p->cred.euid == 0 ? PROCFS_CAP_FULL : 0;
	int n = VK_MAX(plat_ncpus(), 1);

	sbuf_printf(sb, "CapInh:\t%016llx\nCapPrm:\t%016llx\n"
	    "CapEff:\t%016llx\nCapBnd:\t%016llx\nCapAmb:\t%016llx\n"
	    "NoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n",
	    0ULL, caps, caps, PROCFS_CAP_FULL, 0ULL);
	sbuf_printf(sb, "Cpus_allowed:\t");
	status_cpumask(sb, n);
	if (n > 1)
		sbuf_printf(sb, "\nCpus_allowed_list:\t0-%d\n", n - 1);
	else
		sbuf_printf(sb, "\nCpus_allowed_list:\t0\n");
	sbuf_printf(sb, "Mems_allowed:\t1\nMems_allowed_list:\t0\n"
	    "voluntary_ctxt_switches:\t0\nnonvoluntary_ctxt_switches:\t0\n");
}

int
procfs_gen_pid_status(const struct pfs_ctx *c, struct sbuf *sb)
{
	status_ids(sb, c);
	status_mem(sb, c->p);
	status_sig(sb, c->p);
	status_caps(sb, c->p);
	return 0;
}

/* size resident shared text lib data dt, in pages (lib and dt are 0). */
int
procfs_gen_pid_statm(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct pid_vm v;

	pid_vm_scan(c->p->vm, &v);
	sbuf_printf(sb, "%llu %llu 0 %llu 0 %llu 0\n",
	    (unsigned long long)(v.size / VK_PAGE_SIZE),
	    (unsigned long long)(v.rss / VK_PAGE_SIZE),
	    (unsigned long long)(v.exe / VK_PAGE_SIZE),
	    (unsigned long long)((v.data + v.stk) / VK_PAGE_SIZE));
	return 0;
}

/*
 * The guest's bytes of [start, end), as they are now (the guest may have
 * rewritten its argv, which Linux shows too).  Stops at a hole.
 */
static void
pid_guest_bytes(struct proc *p, uint64_t start, uint64_t end,
    struct sbuf *sb)
{
	uint64_t n;
	void *hp;

	if (end <= start)
		return;
	end = start + VK_MIN(end - start, PROCFS_ARGS_MAX);
	for (uint64_t va = start; va < end; va += n) {
		if (vm_map_hostptr(p->vm, va, end - va, 0, &hp, &n) < 0 ||
		    n == 0)
			break;
		sbuf_append(sb, hp, (size_t)n);
	}
}

int
procfs_gen_pid_cmdline(const struct pfs_ctx *c, struct sbuf *sb)
{
	pid_guest_bytes(c->p, c->p->arg_start, c->p->arg_end, sb);
	return 0;
}

int
procfs_gen_pid_environ(const struct pfs_ctx *c, struct sbuf *sb)
{
	pid_guest_bytes(c->p, c->p->env_start, c->p->env_end, sb);
	return 0;
}

int
procfs_gen_pid_comm(const struct pfs_ctx *c, struct sbuf *sb)
{
	sbuf_printf(sb, "%.*s\n", (int)sizeof(c->p->comm), c->p->comm);
	return 0;
}

int
procfs_gen_tid_comm(const struct pfs_ctx *c, struct sbuf *sb)
{
	const struct thread *td = proc_thread(c->p, c->arg);
	const char *comm = td != NULL ? td->comm : c->p->comm;

	sbuf_printf(sb, "%.*s\n", (int)sizeof(c->p->comm), comm);
	return 0;
}

/*
 * A write to a comm file names the thread, as PR_SET_NAME does, but only
 * from within its own process (EINVAL from any other, as Linux's
 * comm_write); its first 15 bytes are taken as they are, a newline too.
 */
static long
comm_write(const struct pfs_ctx *c, struct thread *td, const char *buf,
    size_t len)
{
	if (curthread == NULL || curthread->proc != c->p)
		return -EINVAL;
	if (td == NULL)
		return -ESRCH;
	thread_set_comm(td, buf, len);
	return (long)len;
}

long
procfs_write_pid_comm(const struct pfs_ctx *c, const char *buf, size_t len)
{
	return comm_write(c, c->p->main, buf, len);
}

long
procfs_write_tid_comm(const struct pfs_ctx *c, const char *buf, size_t len)
{
	return comm_write(c, proc_thread(c->p, c->arg), buf, len);
}

int
procfs_gen_pid_oom_score(const struct pfs_ctx *c, struct sbuf *sb)
{
	sbuf_printf(sb, "%u\n", oom_score(c->p));
	return 0;
}

int
procfs_gen_pid_oom_adj(const struct pfs_ctx *c, struct sbuf *sb)
{
	sbuf_printf(sb, "%d\n", c->p->oom_score_adj);
	return 0;
}

/* The number written, as kstrtoint() reads it (procfs_parse_int). */
long
procfs_write_pid_oom_adj(const struct pfs_ctx *c, const char *buf,
    size_t len)
{
	long v;
	int r;

	if (curthread == NULL)
		return -EINVAL;
	if ((r = procfs_parse_int(buf, len, &v)) < 0 ||
	    (r = oom_set_adj(c->p, curthread->proc, v)) < 0)
		return r;
	return (long)len;
}

/*
 * One line in show_map_vma()'s layout: offset, device and inode are 0
 * (nothing is file-backed yet), and a name starts at column 73, after
 * the prefix padded to 72 and a space.
 */
static void
maps_line(struct sbuf *sb, uint64_t start, uint64_t end, int prot,
    bool shared, const char *name)
{
	size_t line = sb->len, w;

	sbuf_printf(sb, "%08llx-%08llx %c%c%c%c 00000000 00:00 0 ",
	    (unsigned long long)start, (unsigned long long)end,
	    (prot & PLAT_PROT_READ) ? 'r' : '-',
	    (prot & PLAT_PROT_WRITE) ? 'w' : '-',
	    (prot & PLAT_PROT_EXEC) ? 'x' : '-', shared ? 's' : 'p');
	w = sb->len - line;
	if (name != NULL)
		sbuf_printf(sb, "%*s %s", w < 72 ? (int)(72 - w) : 0, "", name);
	sbuf_printf(sb, "\n");
}

/*
 * The platform's range holds the host's vvar pages below the vdso's ELF
 * header (p->vdso_base) and the vdso from there; shown as Linux shows
 * them, whatever the guest may do with them (nothing).
 */
static void
maps_reserved(struct sbuf *sb, const struct vm_entry *e, uint64_t vdso)
{
	uint64_t mid = vdso > e->start && vdso < e->end ? vdso : e->start;

	if (mid > e->start)
		maps_line(sb, e->start, mid, PLAT_PROT_READ, false, "[vvar]");
	maps_line(sb, mid, e->end, PLAT_PROT_READ | PLAT_PROT_EXEC, false,
	    "[vdso]");
}

/*
 * A line for each mapping, as Linux's for each vma: the entries that
 * continue one another (vm_entry_continues()) are one line; s marks a
 * shared one.
 * XXX: entries of the ELF image are unnamed: the map keeps no file.
 */
int
procfs_gen_pid_maps(const struct pfs_ctx *c, struct sbuf *sb)
{
	const struct vm_map *m = c->p->vm;

	for (unsigned i = 0; i < m->n; i++) {
		const struct vm_entry *e = &m->ent[i];
		const char *name = NULL;
		uint64_t end = e->end;

		/* The platform's other range is no more shown than its stub. */
		if (e->flags & VME_RESERVED) {
			if (e->start != c->p->own_start)
				maps_reserved(sb, e, c->p->vdso_base);
			continue;
		}
		if (e->flags & VME_HEAP)
			name = "[heap]";
		else if (e->flags & VME_STACK)
			name = "[stack]";
		/* Linux backs shared anonymous memory with a /dev/zero. */
		else if ((e->flags & VME_SHARED) &&
		    (e->obj == NULL || e->obj->vn == NULL))
			name = "/dev/zero (deleted)";
		for (; i + 1 < m->n && vm_entry_continues(&m->ent[i],
		    &m->ent[i + 1]); i++)
			end = m->ent[i + 1].end;
		maps_line(sb, e->start, end, e->prot,
		    (e->flags & VME_SHARED) != 0, name);
	}
	return 0;
}

int
procfs_gen_pid_exe(const struct pfs_ctx *c, struct sbuf *sb)
{
	int r;

	if ((r = procfs_may_read(c->p)) < 0)
		return r;
	if (c->p->exe == NULL || c->p->exe[0] == '\0')
		return -ENOENT;
	if (vfs_path_deep(c->p->exe))
		return -ENAMETOOLONG;
	sbuf_printf(sb, "%s", c->p->exe);
	return 0;
}

int
procfs_gen_pid_cwd(const struct pfs_ctx *c, struct sbuf *sb)
{
	int r;

	if ((r = procfs_may_read(c->p)) < 0)
		return r;
	if (c->p->fs->cwd_path == NULL || c->p->fs->cwd_path[0] == '\0')
		return -ENOENT;
	if (vfs_path_deep(c->p->fs->cwd_path))
		return -ENAMETOOLONG;
	sbuf_printf(sb, "%s", c->p->fs->cwd_path);
	return 0;
}

/*
 * The path the file was opened by, or the name Linux gives a file of
 * its internal file systems (pipe:[INO], socket:[INO],
 * anon_inode:[eventfd]), which each kind sets when it makes the file.
 * A file without one gets a name in the style of Linux's anonymous
 * inodes, because an empty target would read as a missing file.  A
 * file no name is left to has " (deleted)" after it, as Linux's d_path()
 * (a memfd's name says so already).
 */
int
procfs_gen_fd_link(const struct pfs_ctx *c, struct sbuf *sb)
{
	static const char deleted[] = " (deleted)";
	struct file *fp = fd_get(c->p->fdt, c->arg);
	struct vattr va;
	size_t n;
	int r;

	if (fp == NULL)
		return -ENOENT;
	if ((r = procfs_may_read(c->p)) < 0)
		return r;
	if (fp->path != NULL && vfs_path_deep(fp->path))
		return -ENAMETOOLONG;
	if (fp->path == NULL || fp->path[0] == '\0') {
		sbuf_printf(sb, "anon_inode:[file]");
		return 0;
	}
	sbuf_printf(sb, "%s", fp->path);
	n = strlen(fp->path);
	if (fp->vn != NULL && fp->vn->ops->getattr(fp->vn, &va) == 0 &&
	    va.nlink == 0 && (n < sizeof(deleted) - 1 ||
	    strcmp(fp->path + n - (sizeof(deleted) - 1), deleted) != 0))
		sbuf_printf(sb, "%s", deleted);
	return 0;
}

/* The file's attributes for its inode number; zeros when unknown. */
static void
fdinfo_attr(struct file *fp, struct vattr *va)
{
	*va = (struct vattr){ 0 };
	if (fp->vn != NULL && fp->vn->ops->getattr != NULL)
		fp->vn->ops->getattr(fp->vn, va);
	else if (fp->vn == NULL && fp->ops != &vn_fileops &&
	    fp->ops->stat != NULL)
		fp->ops->stat(fp, va);
}

/*
 * As fs/proc/fd.c's seq_show: close-on-exec is the fd's, not the file's.
 * XXX: Linux refuses another process's fdinfo at open (EACCES, by the
 * ptrace rule); here the read does.
 */
int
procfs_gen_fdinfo(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct fdtable *t = c->p->fdt;
	struct file *fp = fd_get(t, c->arg);
	struct vattr va;
	unsigned flags;
	int r;

	if (fp == NULL)
		return -ENOENT;
	if ((r = procfs_may_read(c->p)) < 0)
		return r;
	fdinfo_attr(fp, &va);
	flags = (fp->flags & ~(unsigned)O_CLOEXEC) |
	    (fd_cloexec(t, c->arg) ? (unsigned)O_CLOEXEC : 0);
	if (fp->vn != NULL || fp->ops == &vn_fileops)
		flags |= PROCFS_O_LARGEFILE;
	sbuf_printf(sb, "pos:\t%llu\nflags:\t0%o\nmnt_id:\t%d\nino:\t%lu\n",
	    (unsigned long long)fp->off, flags,
	    procfs_mount_id(fp->vn != NULL ? fp->vn->mount : NULL),
	    (unsigned long)va.ino);
	if (inotify_is_file(fp))
		inotify_fdinfo(fp, sb);
	return 0;
}

/* Linux's table of the process's resource limits, in RLIMIT_* order. */
int
procfs_gen_pid_limits(const struct pfs_ctx *c, struct sbuf *sb)
{
	static const struct {
		const char *name, *unit;
	} rows[] = {
		{ "Max cpu time", "seconds" }, { "Max file size", "bytes" },
		{ "Max data size", "bytes" }, { "Max stack size", "bytes" },
		{ "Max core file size", "bytes" },
		{ "Max resident set", "bytes" },
		{ "Max processes", "processes" },
		{ "Max open files", "files" },
		{ "Max locked memory", "bytes" },
		{ "Max address space", "bytes" },
		{ "Max file locks", "locks" },
		{ "Max pending signals", "signals" },
		{ "Max msgqueue size", "bytes" },
		{ "Max nice priority", NULL },
		{ "Max realtime priority", NULL },
		{ "Max realtime timeout", "us" },
	};
	_Static_assert(VK_NELEM(rows) == VK_RLIM_NLIMITS, "a row a limit");

	sbuf_printf(sb, "%-25s %-20s %-20s %-10s\n", "Limit", "Soft Limit",
	    "Hard Limit", "Units");
	for (size_t i = 0; i < VK_NELEM(rows); i++) {
		const struct rlim64 *r = &c->p->rlim[i];
		uint64_t v[2] = { r->cur, r->max };

		sbuf_printf(sb, "%-25s ", rows[i].name);
		for (int j = 0; j < 2; j++) {
			if (v[j] == RLIM64_INFINITY)
				sbuf_printf(sb, "%-20s ", "unlimited");
			else
				sbuf_printf(sb, "%-20llu ",
				    (unsigned long long)v[j]);
		}
		if (rows[i].unit != NULL)
			sbuf_printf(sb, "%-10s", rows[i].unit);
		sbuf_printf(sb, "\n");
	}
	return 0;
}
