/*
 * Unit tests of procfs and sysfs (vkern/vfs/procfs/) through their vnode
 * ops and through path lookup: /proc/self, the per-process files read
 * from hand-built processes (made with proc_create() on the fake
 * platform, then given memory, files and a name), the system files,
 * readdir and its cookies, pid name validation, the read-only rules, and
 * what a process that exits leaves behind.  Every test of the procfs
 * suite ends by unmounting, which asserts that no vnode was leaked.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/fake_platform.h"
#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/procfs/procfs.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_ram.h"

#define PG 4096ULL

static struct mount *mp;
static struct proc *p1;

static void
boot_kernel(void)
{
	struct kern_config cfg = { .mem = 64 << 20, .uid = 1000,
	    .gid = 100 };

	kern_init(&cfg);
}

/* A process as exec would leave it, as far as procfs looks. */
static struct proc *
mkproc(const char *comm)
{
	struct proc *p;

	cr_assert_eq(proc_create(&p), 0);
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	memcpy(p->main->comm, p->comm, sizeof(p->comm));
	free(p->exe);
	p->exe = strdup("/bin/testprog");
	return p;
}

static void
pfs_setup(void)
{
	boot_kernel();
	cr_assert_eq(procfs_mount(&mp), 0);
	p1 = mkproc("testprog");
	procfs_set_current(p1);
}

static void
procs_free_all(void)
{
	struct proc *p;

	while ((p = proc_first()) != NULL) {
		proc_exit(p, 0);
		proc_free(p);
	}
}

static void
pfs_teardown(void)
{
	procs_free_all();
	procfs_unmount(mp);
	cr_assert_eq(vm_ram_used(), 0, "%llu bytes of RAM left",
	    (unsigned long long)vm_ram_used());
}

TestSuite(procfs, .init = pfs_setup, .fini = pfs_teardown);

/* Look up a relative path below root one name at a time (no links). */
static int
walk(struct vnode *root, const char *path, struct vnode **vpp)
{
	char buf[256], *save = NULL;
	struct vnode *cur = root, *next;
	int r;

	vnode_ref(cur);
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *name = strtok_r(buf, "/", &save); name != NULL;
	    name = strtok_r(NULL, "/", &save)) {
		r = cur->ops->lookup(cur, name, &next);
		vnode_rel(cur);
		if (r < 0) {
			*vpp = NULL;
			return r;
		}
		cur = next;
	}
	*vpp = cur;
	return 0;
}

static struct vnode *
walk_ok(const char *path)
{
	struct vnode *vn;
	int r = walk(mp->root, path, &vn);

	cr_assert_eq(r, 0, "lookup %s: %d", path, r);
	return vn;
}

/* The whole content, read chunk bytes at a time. */
static char *
slurp(struct vnode *vn, size_t chunk, size_t *lenp)
{
	size_t cap = 1 << 16, len = 0;
	char *b = malloc(cap);
	long r;

	while ((r = vn->ops->read(vn, b + len, chunk, len)) > 0) {
		len += (size_t)r;
		cr_assert_lt(len + chunk, cap, "file too big for the test");
	}
	cr_assert_eq(r, 0, "read: %ld", r);
	b[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return b;
}

static char *
cat(const char *path)
{
	struct vnode *vn = walk_ok(path);
	char *s = slurp(vn, 4096, NULL);

	vnode_rel(vn);
	return s;
}

static char *
link_of(const char *path)
{
	static char buf[256];
	struct vnode *vn = walk_ok(path);
	long n = vn->ops->readlink(vn, buf, sizeof(buf) - 1);

	cr_assert_geq(n, 0, "readlink %s: %ld", path, n);
	buf[n] = '\0';
	vnode_rel(vn);
	return buf;
}

static int
count_lines(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

struct dlist {
	char names[64][32];
	uint64_t cookies[64];
	enum vtype types[64];
	int n, max;             /* max: stop after so many (0: never) */
};

static int
dl_add(void *arg, const char *name, size_t len, uint64_t ino,
    enum vtype type, uint64_t next)
{
	struct dlist *d = arg;

	if (d->max != 0 && d->n >= d->max)
		return 1;
	cr_assert_lt(d->n, 64);
	snprintf(d->names[d->n], sizeof(d->names[0]), "%.*s", (int)len, name);
	d->types[d->n] = type;
	d->cookies[d->n++] = next;
	return 0;
}

static int
dl_find(const struct dlist *d, const char *name)
{
	for (int i = 0; i < d->n; i++)
		if (strcmp(d->names[i], name) == 0)
			return i;
	return -1;
}

static void
list_dir(const char *path, struct dlist *d)
{
	struct vnode *vn = walk_ok(path);

	memset(d, 0, sizeof(*d));
	cr_assert_eq(vn->ops->readdir(vn, 0, dl_add, d), 0);
	vnode_rel(vn);
}

/* Copy bytes into a process's memory, as exec's stack builder would. */
static void
guest_put(struct proc *p, uint64_t va, const void *src, size_t n)
{
	uint64_t got;
	void *hp;

	cr_assert_eq(vm_map_hostptr(p->vm, va, n, 0, &hp, &got), 0);
	cr_assert_eq(got, n);
	memcpy(hp, src, n);
}

/* --- /proc/self --- */

Test(procfs, self_names_the_current_process)
{
	struct proc *p2 = mkproc("other");

	cr_assert_str_eq(link_of("self"), "1");
	cr_assert_str_eq(link_of("thread-self"), "1/task/1");
	procfs_set_current(p2);
	cr_assert_str_eq(link_of("self"), "2");
	cr_assert_str_eq(link_of("thread-self"), "2/task/2");
}

Test(procfs, self_falls_back_to_first_process)
{
	struct proc *p2 = mkproc("other");

	procfs_set_current(NULL);
	cr_assert_str_eq(link_of("self"), "1");
	/* A current process that exits is forgotten, not dereferenced. */
	procfs_set_current(p2);
	proc_exit(p2, 0);
	proc_free(p2);
	cr_assert_str_eq(link_of("self"), "1");
}

Test(procfs, self_without_processes_is_enoent)
{
	struct vnode *vn = walk_ok("self");
	char buf[16];

	procs_free_all();
	cr_assert_eq(vn->ops->readlink(vn, buf, sizeof(buf)), -ENOENT);
	vnode_rel(vn);
}

/* --- per-process files --- */

Test(procfs, status_has_name_ids_and_state)
{
	char *s = cat("1/status");

	cr_assert_not_null(strstr(s, "Name:\ttestprog\n"), "%s", s);
	cr_assert_not_null(strstr(s, "\nState:\tR (running)\n"));
	cr_assert_not_null(strstr(s, "\nTgid:\t1\n"));
	cr_assert_not_null(strstr(s, "\nPid:\t1\n"));
	cr_assert_not_null(strstr(s, "\nPPid:\t0\n"));
	cr_assert_not_null(strstr(s, "\nUid:\t1000\t1000\t1000\t1000\n"));
	cr_assert_not_null(strstr(s, "\nGid:\t100\t100\t100\t100\n"));
	cr_assert_not_null(strstr(s, "\nThreads:\t1\n"));
	cr_assert_not_null(strstr(s, "\nCapEff:\t0000000000000000\n"));
	cr_assert_not_null(strstr(s, "\nCpus_allowed_list:\t0\n"));
	free(s);
}

/* A thread waiting in a system call sleeps; runnable, it runs. */
Test(procfs, status_of_another_process_is_sleeping)
{
	struct proc *o = mkproc("other");
	char *s;

	o->main->state = TD_PARKED;
	s = cat("2/status");
	cr_assert_not_null(strstr(s, "Name:\tother\n"));
	cr_assert_not_null(strstr(s, "\nState:\tS (sleeping)\n"));
	free(s);
	s = cat("2/task/2/stat");
	cr_assert_eq(strncmp(s, "2 (other) S ", 12), 0, "%s", s);
	free(s);
	o->main->state = TD_RUNNABLE;
	s = cat("2/stat");
	cr_assert_eq(strncmp(s, "2 (other) R ", 12), 0, "%s", s);
	free(s);
}

/* A stopped process's threads are all T, whatever each was doing. */
Test(procfs, stat_of_a_stopped_process_is_t)
{
	struct proc *o = mkproc("other");
	char *s;

	o->main->state = TD_PARKED;
	o->stopped = true;
	s = cat("2/stat");
	cr_assert_eq(strncmp(s, "2 (other) T ", 12), 0, "%s", s);
	free(s);
	s = cat("2/status");
	cr_assert_not_null(strstr(s, "\nState:\tT (stopped)\n"), "%s", s);
	free(s);
	o->stopped = false;
}

Test(procfs, status_shows_signal_sets_and_root_caps)
{
	char *s;

	p1->cred.euid = 0;
	p1->sighand->act[SIGINT - 1].handler = 1;       /* SIG_IGN */
	p1->sighand->act[SIGTERM - 1].handler = 0x401000;
	p1->main->sigmask = 1ULL << (SIGUSR1 - 1);
	s = cat("1/status");
	cr_assert_not_null(strstr(s, "\nSigBlk:\t0000000000000200\n"), "%s", s);
	cr_assert_not_null(strstr(s, "\nSigIgn:\t0000000000000002\n"));
	cr_assert_not_null(strstr(s, "\nSigCgt:\t0000000000004000\n"));
	cr_assert_not_null(strstr(s, "\nCapEff:\t000001ffffffffff\n"));
	free(s);
}

Test(procfs, stat_has_52_fields)
{
	char *s = cat("1/stat"), *rp = strrchr(s, ')'), *save = NULL;
	unsigned long long v[64];
	int n = 2;

	cr_assert_eq(strncmp(s, "1 (testprog) R ", 15), 0, "%s", s);
	cr_assert_not_null(rp);
	for (char *t = strtok_r(rp + 1, " \n", &save); t != NULL;
	    t = strtok_r(NULL, " \n", &save)) {
		cr_assert_lt(n, 64);
		v[n++] = strtoull(t, NULL, 10);
	}
	cr_assert_eq(n, 52, "%d fields", n);
	/* Field k is v[k - 1]: num_threads, utime, exit_signal. */
	cr_assert_eq(v[19], 1);
	cr_assert_eq(v[13],
	    (unsigned long long)plat_space_cputime(p1->vm->space, NULL) / 10000000);
	cr_assert_eq(v[37], 17);
	free(s);
}

Test(procfs, maps_has_one_line_per_entry)
{
	struct vm_map *m = p1->vm;
	char *s, *l;

	cr_assert_eq(vm_map_anon(m, 0x400000, 2 * PG, PLAT_PROT_READ |
	    PLAT_PROT_EXEC, 0), 0);
	cr_assert_eq(vm_map_anon(m, 0x600000, PG, PLAT_PROT_READ |
	    PLAT_PROT_WRITE, VME_HEAP), 0);
	cr_assert_eq(vm_map_anon(m, 0x7ff000000000, 4 * PG, PLAT_PROT_READ |
	    PLAT_PROT_WRITE, VME_STACK), 0);
	s = cat("1/maps");
	cr_assert_eq(count_lines(s), 3, "%s", s);
	cr_assert_eq(strncmp(s, "00400000-00402000 r-xp 00000000 00:00 0 \n",
	    41), 0, "%s", s);
	l = strstr(s, "00600000-00601000 rw-p");
	cr_assert_not_null(l);
	/* Names start at column 73, as in Linux. */
	cr_assert_eq(strncmp(l + 73, "[heap]\n", 7), 0, "%s", l);
	l = strstr(s, "7ff000000000-7ff000004000 rw-p");
	cr_assert_not_null(l);
	cr_assert_eq(strncmp(l + 73, "[stack]\n", 8), 0, "%s", l);
	free(s);
}

Test(procfs, maps_splits_reserved_range_into_vvar_and_vdso)
{
	char *s;

	cr_assert_eq(vm_map_reserve(p1->vm, 0x7ffff7fc0000,
	    0x7ffff7fc6000), 0);
	p1->vdso_base = 0x7ffff7fc4000;
	s = cat("1/maps");
	cr_assert_eq(count_lines(s), 2, "%s", s);
	cr_assert_not_null(strstr(s, "7ffff7fc0000-7ffff7fc4000 r--p"));
	cr_assert_not_null(strstr(s, "[vvar]\n"));
	cr_assert_not_null(strstr(s, "7ffff7fc4000-7ffff7fc6000 r-xp"));
	cr_assert_not_null(strstr(s, "[vdso]\n"));
	free(s);
}

Test(procfs, statm_and_vm_sizes_follow_the_map)
{
	char *s;
	unsigned long long size, rss;

	cr_assert_eq(vm_map_anon(p1->vm, 0x400000, 3 * PG, PLAT_PROT_READ,
	    0), 0);
	cr_assert_eq(vm_map_anon(p1->vm, 0x800000, 5 * PG, 0, 0), 0);
	s = cat("1/statm");
	cr_assert_eq(sscanf(s, "%llu %llu", &size, &rss), 2);
	cr_assert_eq(size, 8);
	cr_assert_eq(rss, 3, "PROT_NONE holds no RAM: %s", s);
	free(s);
	s = cat("1/status");
	cr_assert_not_null(strstr(s, "\nVmSize:\t      32 kB\n"), "%s", s);
	cr_assert_not_null(strstr(s, "\nVmRSS:\t      12 kB\n"));
	free(s);
}

Test(procfs, cmdline_and_environ_are_the_guest_bytes)
{
	static const char args[] = "ls\0-l\0/tmp", env[] = "HOME=/\0A=b";
	uint64_t base = 0x7ff000000000;
	size_t n;
	char *s;
	struct vnode *vn;

	cr_assert_eq(vm_map_anon(p1->vm, base, PG, PLAT_PROT_READ |
	    PLAT_PROT_WRITE, VME_STACK), 0);
	guest_put(p1, base + 100, args, sizeof(args));
	guest_put(p1, base + 200, env, sizeof(env));
	p1->arg_start = base + 100;
	p1->arg_end = base + 100 + sizeof(args);
	p1->env_start = base + 200;
	p1->env_end = base + 200 + sizeof(env);
	vn = walk_ok("1/cmdline");
	s = slurp(vn, 3, &n);
	vnode_rel(vn);
	cr_assert_eq(n, sizeof(args));
	cr_assert_eq(memcmp(s, args, n), 0);
	free(s);
	vn = walk_ok("1/environ");
	s = slurp(vn, 4096, &n);
	vnode_rel(vn);
	cr_assert_eq(n, sizeof(env));
	cr_assert_eq(memcmp(s, env, n), 0);
	free(s);
}

Test(procfs, cmdline_of_unmapped_range_is_empty)
{
	char *s;

	p1->arg_start = 0x12340000;
	p1->arg_end = 0x12350000;
	s = cat("1/cmdline");
	cr_assert_str_eq(s, "");
	free(s);
}

Test(procfs, comm_exe_cwd_and_root)
{
	char *s = cat("1/comm");

	cr_assert_str_eq(s, "testprog\n");
	free(s);
	cr_assert_str_eq(link_of("1/exe"), "/bin/testprog");
	cr_assert_str_eq(link_of("1/cwd"), "/");
	cr_assert_str_eq(link_of("1/root"), "/");
}

Test(procfs, exe_without_program_is_enoent)
{
	struct vnode *vn = walk_ok("1/exe");
	char buf[16];

	free(p1->exe);
	p1->exe = NULL;
	cr_assert_eq(vn->ops->readlink(vn, buf, sizeof(buf)), -ENOENT);
	vnode_rel(vn);
}

Test(procfs, fd_lists_open_fds_as_links)
{
	struct dlist d;
	struct file *fp;
	struct vnode *vn, *ns;
	struct vattr va;

	fd_install(p1->fdt, 0, file_alloc(&vn_fileops, NULL, O_RDONLY,
	    "/etc/passwd"), false, 64);
	fd_install(p1->fdt, 3, file_alloc(&vn_fileops, NULL, O_WRONLY,
	    "/tmp/log"), true, 64);
	list_dir("1/fd", &d);
	cr_assert_eq(d.n, 4);
	cr_assert_str_eq(d.names[0], ".");
	cr_assert_str_eq(d.names[1], "..");
	cr_assert_str_eq(d.names[2], "0");
	cr_assert_str_eq(d.names[3], "3");
	cr_assert_eq(d.types[3], VLNK);
	cr_assert_str_eq(link_of("1/fd/0"), "/etc/passwd");
	cr_assert_str_eq(link_of("1/fd/3"), "/tmp/log");
	cr_assert_eq(walk(mp->root, "1/fd/1", &vn), -ENOENT);
	vn = walk_ok("1/fd/3");
	cr_assert_eq(vn->ops->getattr(vn, &va), 0);
	cr_assert_eq(va.mode, S_IFLNK | 0300, "mode %o", va.mode);
	cr_assert_eq(procfs_link_follow(vn, p1, &fp, &ns), 0);
	cr_assert_eq(fp, fd_get(p1->fdt, 3));
	cr_assert_null(ns);
	vnode_rel(vn);
}

Test(procfs, ns_links_lead_to_the_namespaces)
{
	struct vnode *vn, *ns;
	struct file *fp;
	struct vattr va;

	cr_assert_str_eq(link_of("1/ns/mnt"), "mnt:[4026531841]");
	cr_assert_str_eq(link_of("1/ns/pid_for_children"), "pid:[4026531836]");
	vn = walk_ok("1/ns/uts");
	cr_assert_eq(procfs_link_follow(vn, p1, &fp, &ns), 0);
	cr_assert_null(fp);
	cr_assert_not_null(ns);
	cr_assert_eq(ns->ops->getattr(ns, &va), 0);
	cr_assert_eq(va.ino, 4026531838ULL);
	cr_assert_eq(va.mode, S_IFREG | 0444, "mode %o", va.mode);
	vnode_rel(ns);
	vnode_rel(vn);
}

Test(procfs, fdinfo_shows_offset_and_flags)
{
	struct file *fp = file_alloc(&vn_fileops, NULL, O_RDWR | O_APPEND,
	    "/tmp/x");
	char *s;

	fp->off = 1234;
	fd_install(p1->fdt, 5, fp, true, 64);
	s = cat("1/fdinfo/5");
	cr_assert_eq(strncmp(s, "pos:\t1234\nflags:\t02102002\nmnt_id:\t",
	    34), 0, "%s", s);
	cr_assert_not_null(strstr(s, "\nino:\t0\n"));
	free(s);
}

Test(procfs, fd_of_closed_file_goes_away)
{
	struct file *fp;
	struct vnode *vn, *ns;
	char buf[32];

	fd_install(p1->fdt, 4, file_alloc(&vn_fileops, NULL, O_RDONLY,
	    "/a"), false, 64);
	vn = walk_ok("1/fd/4");
	fd_close(p1->fdt, 4);
	cr_assert_eq(vn->ops->readlink(vn, buf, sizeof(buf)), -ENOENT);
	cr_assert_eq(procfs_link_follow(vn, p1, &fp, &ns), -ENOENT);
	cr_assert_null(fp);
	vnode_rel(vn);
}

Test(procfs, task_holds_the_main_thread)
{
	struct dlist d;
	char *s;

	list_dir("1/task", &d);
	cr_assert_eq(d.n, 3);
	cr_assert_str_eq(d.names[2], "1");
	cr_assert_eq(d.types[2], VDIR);
	s = cat("1/task/1/status");
	cr_assert_not_null(strstr(s, "\nPid:\t1\n"));
	free(s);
	s = cat("1/task/1/comm");
	cr_assert_str_eq(s, "testprog\n");
	free(s);
	s = cat("1/task/1/stat");
	cr_assert_eq(strncmp(s, "1 (testprog) R ", 15), 0);
	free(s);
	cr_assert_str_eq(link_of("thread-self"), "1/task/1");
}

Test(procfs, pid_dir_lists_its_files)
{
	static const char *const want[] = {
		"stat", "status", "statm", "cmdline", "environ", "comm",
		"maps", "exe", "cwd", "root", "fd", "fdinfo", "mounts",
		"mountinfo", "oom_score", "oom_score_adj", "task", "limits",
		"cgroup", "ns",
	};
	struct dlist d;

	list_dir("1", &d);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_assert_geq(dl_find(&d, want[i]), 0, "no %s", want[i]);
	cr_assert_eq(d.n, 2 + sizeof(want) / sizeof(want[0]));
}

/* --- the root directory --- */

Test(procfs, readdir_root_lists_processes_and_files)
{
	struct dlist d;

	mkproc("other");
	list_dir("", &d);
	cr_assert_str_eq(d.names[0], ".");
	cr_assert_str_eq(d.names[1], "..");
	cr_assert_geq(dl_find(&d, "self"), 0);
	cr_assert_geq(dl_find(&d, "meminfo"), 0);
	cr_assert_geq(dl_find(&d, "sys"), 0);
	cr_assert_eq(d.types[dl_find(&d, "1")], VDIR);
	cr_assert_gt(dl_find(&d, "2"), dl_find(&d, "1"));
}

/* One entry per call, each resumed from the last one's cookie. */
Test(procfs, readdir_cookies_resume)
{
	struct dlist all, one;
	uint64_t cookie = 0;
	int n = 0;

	mkproc("other");
	list_dir("", &all);
	for (;;) {
		memset(&one, 0, sizeof(one));
		one.max = 1;
		cr_assert_eq(mp->root->ops->readdir(mp->root, cookie, dl_add,
		    &one), 0);
		if (one.n == 0)
			break;
		cr_assert_lt(n, all.n);
		cr_assert_str_eq(one.names[0], all.names[n]);
		cookie = one.cookies[0];
		n++;
	}
	cr_assert_eq(n, all.n);
}

Test(procfs, readdir_of_huge_cookie_is_empty)
{
	struct dlist d = { 0 };

	cr_assert_eq(mp->root->ops->readdir(mp->root, UINT64_MAX - 1, dl_add,
	    &d), 0);
	cr_assert_eq(d.n, 0);
}

Test(procfs, readdir_skips_exited_process)
{
	struct proc *p2 = mkproc("other");
	struct dlist d;

	proc_exit(p2, 0);
	list_dir("", &d);
	cr_assert_geq(dl_find(&d, "1"), 0);
	cr_assert_lt(dl_find(&d, "2"), 0);
}

struct namecase {
	char name[24];
};

ParameterizedTestParameters(procfs, bad_pid_names_are_enoent)
{
	static struct namecase cases[] = {
		{ "0001" }, { "01" }, { "1x" }, { "x1" }, { "" }, { "-1" },
		{ "+1" }, { "0" }, { "2" }, { "99999999999999999999" },
		{ " 1" }, { "nosuch" },
	};

	return cr_make_param_array(struct namecase, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct namecase *c, procfs, bad_pid_names_are_enoent)
{
	struct vnode *vn = NULL;

	cr_assert_eq(mp->root->ops->lookup(mp->root, c->name, &vn), -ENOENT,
	    "lookup '%s'", c->name);
	cr_assert_null(vn);
}

Test(procfs, bad_fd_names_are_enoent)
{
	struct vnode *vn;

	fd_install(p1->fdt, 1, file_alloc(&vn_fileops, NULL, O_RDONLY,
	    "/a"), false, 64);
	cr_assert_eq(walk(mp->root, "1/fd/01", &vn), -ENOENT);
	cr_assert_eq(walk(mp->root, "1/fd/1a", &vn), -ENOENT);
	cr_assert_eq(walk(mp->root, "1/fd/2", &vn), -ENOENT);
	cr_assert_eq(walk(mp->root, "1/fdinfo/7", &vn), -ENOENT);
	cr_assert_eq(walk(mp->root, "1/task/2", &vn), -ENOENT);
	cr_assert_eq(walk(mp->root, "1/nosuch", &vn), -ENOENT);
	cr_assert_eq(walk(mp->root, "meminfo/x", &vn), -ENOTDIR);
}

Test(procfs, one_vnode_per_file)
{
	struct vnode *a = walk_ok("meminfo"), *b = walk_ok("meminfo");
	struct vnode *c = walk_ok("1/task/1/.."), *d = walk_ok("1/task");
	struct vnode *e = walk_ok("1/fd/.."), *f = walk_ok("1");

	cr_assert_eq(a, b);
	cr_assert_eq(c, d);
	cr_assert_eq(e, f);
	cr_assert_neq(a, f);
	vnode_rel(a);
	vnode_rel(b);
	vnode_rel(c);
	vnode_rel(d);
	vnode_rel(e);
	vnode_rel(f);
}

Test(procfs, getattr_modes_and_owners)
{
	static const struct {
		const char *path;
		uint32_t mode, uid;
	} rows[] = {
		{ "", S_IFDIR | 0555, 0 },
		{ "meminfo", S_IFREG | 0444, 0 },
		{ "self", S_IFLNK | 0777, 0 },
		{ "1", S_IFDIR | 0555, 1000 },
		{ "1/status", S_IFREG | 0444, 1000 },
		{ "1/environ", S_IFREG | 0400, 1000 },
		{ "1/fd", S_IFDIR | 0500, 1000 },
		{ "1/exe", S_IFLNK | 0777, 1000 },
		{ "sys/kernel", S_IFDIR | 0555, 0 },
	};
	uint64_t inos[16];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct vnode *vn = walk_ok(rows[i].path);
		struct vattr va;

		cr_assert_eq(vn->ops->getattr(vn, &va), 0);
		cr_assert_eq(va.mode, rows[i].mode, "%s: %o", rows[i].path,
		    va.mode);
		cr_assert_eq(va.uid, rows[i].uid, "%s", rows[i].path);
		cr_assert_eq(va.size, 0);
		cr_assert_eq(va.dev, mp->dev);
		inos[i] = va.ino;
		for (size_t j = 0; j < i; j++)
			cr_assert_neq(inos[j], va.ino, "%s", rows[i].path);
		vnode_rel(vn);
	}
}

Test(procfs, root_nlink_counts_process_dirs)
{
	struct vattr va1, va2;

	cr_assert_eq(mp->root->ops->getattr(mp->root, &va1), 0);
	mkproc("other");
	cr_assert_eq(mp->root->ops->getattr(mp->root, &va2), 0);
	cr_assert_eq(va2.nlink, va1.nlink + 1);
}

/* --- nothing can change --- */

Test(procfs, modifications_fail)
{
	struct vnode *root = mp->root, *vn = walk_ok("meminfo");
	struct vnode *st = walk_ok("1/status"), *out = NULL;
	struct vattr va = { .mode = 0777 };

	cr_assert_eq(vn->ops->write(vn, "x", 1, 0), -EIO);
	cr_assert_eq(st->ops->write(st, "x", 1, 0), -EINVAL);
	cr_assert_eq(root->ops->write(root, "x", 1, 0), -EISDIR);
	cr_assert_eq(root->ops->create(root, "new", S_IFREG | 0644, 0, NULL,
	    0, 0, &out), -EPERM);
	cr_assert_null(out);
	cr_assert_eq(root->ops->create(root, "d", S_IFDIR | 0755, 0, NULL,
	    0, 0, &out), -EPERM);
	cr_assert_eq(root->ops->remove(root, "meminfo", false), -EPERM);
	cr_assert_eq(root->ops->remove(root, "1", true), -EPERM);
	cr_assert_eq(root->ops->remove(root, "nosuch", false), -ENOENT);
	cr_assert_eq(root->ops->rename(root, "meminfo", root, "x", 0),
	    -EPERM);
	cr_assert_eq(root->ops->link(root, "x", vn), -EPERM);
	cr_assert_eq(vn->ops->setattr(vn, &va, VA_MODE), -EPERM);
	cr_assert_eq(vn->ops->setattr(vn, &va, VA_SIZE | VA_MODE), -EPERM);
	/* open(O_TRUNC) of a proc file truncates nothing, and works. */
	cr_assert_eq(vn->ops->setattr(vn, &va, VA_SIZE), 0);
	vnode_rel(st);
	st = walk_ok("1/oom_score_adj");
	cr_assert_eq(st->ops->setattr(st, &va, VA_SIZE), 0);
	cr_assert_eq(st->ops->setattr(st, &va, VA_MODE), -EPERM);
	vnode_rel(vn);
	vnode_rel(st);
}

/* The names are the sandbox's; a write ends at a newline, 64 at most. */
Test(procfs, hostname_write_sets_uname_name)
{
	struct vnode *vn = walk_ok("sys/kernel/hostname");
	char buf[128], big[100];
	long n;

	cr_assert_eq(vn->ops->write(vn, "box\nrest", 8, 0), 8);
	cr_assert_str_eq(uts_name(UTS_NODENAME), "box");
	n = vn->ops->read(vn, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	cr_assert_str_eq(buf, "box\n");
	memset(big, 'a', sizeof(big));
	cr_assert_eq(vn->ops->write(vn, big, sizeof(big), 0), sizeof(big));
	cr_assert_eq(strlen(uts_name(UTS_NODENAME)), UTS_NAME_MAX);
	uts_set_name(UTS_NODENAME, "vkernel", 7);
	vnode_rel(vn);
	vn = walk_ok("sys/kernel/domainname");
	n = vn->ops->read(vn, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	cr_assert_str_eq(buf, "(none)\n");
	vnode_rel(vn);
}

Test(procfs, wrong_type_ops_fail)
{
	struct vnode *self = walk_ok("self"), *mi = walk_ok("meminfo");
	struct dlist d = { 0 };
	char buf[8];

	cr_assert_eq(mp->root->ops->read(mp->root, buf, sizeof(buf), 0),
	    -EISDIR);
	cr_assert_eq(self->ops->read(self, buf, sizeof(buf), 0), -EINVAL);
	cr_assert_eq(mi->ops->readlink(mi, buf, sizeof(buf)), -EINVAL);
	cr_assert_eq(mi->ops->readdir(mi, 0, dl_add, &d), -ENOTDIR);
	vnode_rel(self);
	vnode_rel(mi);
}

/* --- a process that exits --- */

Test(procfs, exited_process_files_fail_gracefully)
{
	struct proc *p2 = mkproc("other");
	struct vnode *st = walk_ok("2/status"), *dir = walk_ok("2");
	struct vnode *vn;
	struct vattr va;
	char buf[64];

	proc_exit(p2, 0);
	cr_assert_eq(st->ops->read(st, buf, sizeof(buf), 0), -ESRCH);
	cr_assert_eq(st->ops->getattr(st, &va), -ENOENT);
	cr_assert_eq(dir->ops->lookup(dir, "status", &vn), -ENOENT);
	cr_assert_eq(mp->root->ops->lookup(mp->root, "2", &vn), -ENOENT);
	proc_free(p2);
	cr_assert_eq(st->ops->read(st, buf, sizeof(buf), 0), -ESRCH);
	cr_assert_eq(dir->ops->readdir(dir, 0, dl_add, &(struct dlist){ 0 }),
	    -ENOENT);
	vnode_rel(st);
	vnode_rel(dir);
}

/* --- system files --- */

Test(procfs, meminfo_total_is_the_ram_limit)
{
	char *s = cat("meminfo"), want[64];

	snprintf(want, sizeof(want), "MemTotal:       %8llu kB\n",
	    (unsigned long long)(vm_ram_limit() / 1024));
	cr_assert_eq(strncmp(s, want, strlen(want)), 0, "%s", s);
	cr_assert_not_null(strstr(s, "\nMemFree:        "));
	cr_assert_not_null(strstr(s, "\nMemAvailable:   "));
	cr_assert_not_null(strstr(s, "\nSwapTotal:             0 kB\n"));
	cr_assert_not_null(strstr(s, "\nHugePages_Total:       0\n"));
	free(s);
}

Test(procfs, meminfo_free_drops_with_use)
{
	unsigned long long f1, f2;
	char *s = cat("meminfo");

	cr_assert_eq(sscanf(strstr(s, "MemFree:"), "MemFree: %llu", &f1), 1);
	free(s);
	cr_assert_eq(vm_map_anon(p1->vm, 0x400000, 256 * PG, PLAT_PROT_READ,
	    0), 0);
	s = cat("meminfo");
	cr_assert_eq(sscanf(strstr(s, "MemFree:"), "MemFree: %llu", &f2), 1);
	/* The pages, and (charged too) a little for the map's entries. */
	cr_assert(f1 - f2 >= 1024 && f1 - f2 <= 1024 + 4, "%llu", f1 - f2);
	free(s);
}

Test(procfs, partial_reads_assemble_the_whole)
{
	struct vnode *vn = walk_ok("cpuinfo");
	size_t n1, n2;
	char *a = slurp(vn, 1, &n1), *b = slurp(vn, 4096, &n2), buf[8];

	cr_assert_eq(n1, n2);
	cr_assert_eq(memcmp(a, b, n1), 0);
	cr_assert_eq(vn->ops->read(vn, buf, sizeof(buf), n1), 0);
	cr_assert_eq(vn->ops->read(vn, buf, sizeof(buf), UINT64_MAX), 0);
	free(a);
	free(b);
	vnode_rel(vn);
}

Test(procfs, cpuinfo_has_a_block_per_cpu)
{
	char *s = cat("cpuinfo");
	int n = 0;

	for (char *t = s; (t = strstr(t, "processor\t: ")) != NULL; t++)
		n++;
	cr_assert_eq(n, plat_ncpus());
	/*
	 * The fake CPU's identity and flags, in Linux's order and names, less
	 * fsgsbase, which the fake host's kernel does not show.
	 */
	cr_assert_not_null(strstr(s, "\nvendor_id\t: GenuineIntel\n"
	    "cpu family\t: 6\nmodel\t\t: 158\nmodel name\t: unknown\n"
	    "stepping\t: 10\n"), "%s", s);
	cr_assert_not_null(strstr(s, "\nflags\t\t: fpu sse2 lm avx avx2\n"),
	    "%s", s);
	free(s);
}

Test(procfs, stat_uptime_and_loadavg)
{
	char *s;
	double up, idle;
	int run, total, last;

	mkproc("other");
	s = cat("stat");
	cr_assert_eq(strncmp(s, "cpu  ", 5), 0, "%s", s);
	cr_assert_not_null(strstr(s, "\ncpu0 "));
	cr_assert_not_null(strstr(s, "\nbtime "));
	cr_assert_not_null(strstr(s, "\nprocesses 2\n"));
	free(s);
	s = cat("uptime");
	cr_assert_eq(sscanf(s, "%lf %lf", &up, &idle), 2, "%s", s);
	cr_assert_geq(up, 0);
	cr_assert_geq(idle, 0);
	free(s);
	s = cat("loadavg");
	cr_assert_eq(sscanf(s, "0.00 0.00 0.00 %d/%d %d", &run, &total,
	    &last), 3, "%s", s);
	cr_assert_eq(total, 2);
	cr_assert_eq(last, 2);
	free(s);
}

Test(procfs, fixed_files)
{
	static const struct {
		const char *path, *text;
	} rows[] = {
		{ "sys/kernel/hostname", "vkernel\n" },
		{ "sys/kernel/ostype", "Linux\n" },
		{ "sys/kernel/osrelease", "6.1.0-vkernel-fake\n" },
		{ "sys/kernel/pid_max", "4194304\n" },
		{ "sys/vm/overcommit_memory", "0\n" },
		{ "sys/fs/nr_open", "1048576\n" },
		{ "version", "Linux version 6.1.0-vkernel-fake (vkernel) "
		    "#1 SMP PREEMPT_DYNAMIC fake\n" },
	};
	char *s;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		s = cat(rows[i].path);
		cr_assert_str_eq(s, rows[i].text, "%s", rows[i].path);
		free(s);
	}
	s = cat("filesystems");
	cr_assert_not_null(strstr(s, "nodev\tproc\n"));
	free(s);
	cr_assert_str_eq(link_of("mounts"), "self/mounts");
}

Test(procfs, mounts_without_mount_table_are_empty)
{
	char *s = cat("1/mounts");

	cr_assert_str_eq(s, "");
	free(s);
}

/* --- sysfs --- */

Test(sysfs, cpu_lists, .init = boot_kernel)
{
	struct mount *sm;
	struct vnode *vn;
	char *s;

	cr_assert_eq(sysfs_mount(&sm), 0);
	cr_assert_str_eq(sm->fstype, "sysfs");
	for (int i = 0; i < 3; i++) {
		static const char *const f[] = { "online", "possible",
		    "present" };
		char path[64];

		snprintf(path, sizeof(path), "devices/system/cpu/%s", f[i]);
		cr_assert_eq(walk(sm->root, path, &vn), 0, "%s", path);
		s = slurp(vn, 4096, NULL);
		cr_assert_str_eq(s, "0\n");
		free(s);
		vnode_rel(vn);
	}
	/* cpuN for each CPU; the boot CPU has no online file, as on x86. */
	cr_assert_eq(walk(sm->root, "devices/system/cpu/cpu0", &vn), 0);
	cr_assert_eq(vn->type, VDIR);
	vnode_rel(vn);
	cr_assert_eq(walk(sm->root, "devices/system/cpu/cpu0/online", &vn),
	    -ENOENT);
	cr_assert_eq(walk(sm->root, "devices/system/cpu/cpu1", &vn), -ENOENT);
	cr_assert_eq(walk(sm->root, "devices/system/cpu/cpu00", &vn),
	    -ENOENT);
	cr_assert_eq(walk(sm->root, "devices/system/cpu/cpu-1", &vn),
	    -ENOENT);
	sysfs_unmount(sm);
}

/* --- through path lookup, mounted on /proc of a tmpfs root --- */

static struct mount *tm;

/*
 * The mount table has no way back, so this suite leaves its mounts in
 * place when the test process ends; only the processes are freed.
 */
static void
vfs_setup(void)
{
	struct vnode *dir;

	boot_kernel();
	cr_assert_eq(tmpfs_mount(false, 0755, 0, 0, &tm), 0);
	cr_assert_eq(vfs_mount(vfs_ns(NULL), tm, NULL, "/"), 0);
	cr_assert_eq(tm->root->ops->create(tm->root, "proc", S_IFDIR | 0555,
	    0, NULL, 0, 0, &dir), 0);
	cr_assert_eq(procfs_mount(&mp), 0);
	cr_assert_eq(vfs_mount(vfs_ns(NULL), mp, dir, "/proc"), 0);
	vnode_rel(dir);
	p1 = mkproc("testprog");
	procfs_set_current(p1);
}

TestSuite(procfs_vfs, .init = vfs_setup, .fini = procs_free_all);

static struct vnode *
lookup_ok(const char *path, char *canon)
{
	struct nameidata nd;
	struct vnode *vn;
	int r = vfs_lookup(p1, AT_FDCWD, path, LOOKUP_FOLLOW, &nd);

	cr_assert_eq(r, 0, "lookup %s: %d", path, r);
	vn = nd.vp;
	if (canon != NULL)
		strcpy(canon, nd.path);
	nd.vp = NULL;
	nd_release(&nd);
	return vn;
}

Test(procfs_vfs, self_resolves_to_the_callers_directory)
{
	char canon[VK_PATH_MAX];
	struct vnode *a = lookup_ok("/proc/self/status", canon);
	struct vnode *b = lookup_ok("/proc/1/status", NULL);

	cr_assert_eq(a, b);
	cr_assert_str_eq(canon, "/proc/1/status");
	vnode_rel(a);
	vnode_rel(b);
	a = lookup_ok("/proc/thread-self/comm", canon);
	cr_assert_str_eq(canon, "/proc/1/task/1/comm");
	vnode_rel(a);
}

Test(procfs_vfs, links_lead_back_into_the_tree)
{
	struct vnode *vn = lookup_ok("/proc/self/cwd", NULL);

	cr_assert_eq(vn, tm->root);
	vnode_rel(vn);
	vn = lookup_ok("/proc/self/root/proc/self/task/1/..", NULL);
	cr_assert_eq(vn->type, VDIR);
	vnode_rel(vn);
	vn = lookup_ok("/proc/mounts", NULL);
	cr_assert_eq(vn->type, VREG);
	vnode_rel(vn);
}

Test(procfs_vfs, mounts_and_mountinfo_list_the_table)
{
	struct vnode *vn = lookup_ok("/proc/self/mounts", NULL);
	char *s = slurp(vn, 4096, NULL);

	vnode_rel(vn);
	cr_assert_str_eq(s, "tmpfs / tmpfs rw,relatime 0 0\n"
	    "proc /proc proc rw,relatime 0 0\n");
	free(s);
	vn = lookup_ok("/proc/1/mountinfo", NULL);
	s = slurp(vn, 4096, NULL);
	vnode_rel(vn);
	cr_assert_eq(count_lines(s), 2, "%s", s);
	cr_assert_eq(strncmp(s, "21 20 0:", 8), 0, "%s", s);
	cr_assert_not_null(strstr(s, " / / rw,relatime - tmpfs tmpfs rw\n"));
	cr_assert_not_null(strstr(s, "\n22 21 0:"));
	cr_assert_not_null(strstr(s, " / /proc rw,relatime - proc proc rw\n"));
	free(s);
}

Test(procfs_vfs, fdinfo_names_the_mount_and_inode)
{
	struct vnode *vn = lookup_ok("/proc", NULL);
	struct vattr va;
	char *s, want[64];

	cr_assert_eq(vn->ops->getattr(vn, &va), 0);
	fd_install(p1->fdt, 3, file_alloc(&vn_fileops, vn, O_RDONLY,
	    "/proc"), false, 64);
	vn = lookup_ok("/proc/self/fdinfo/3", NULL);
	s = slurp(vn, 4096, NULL);
	vnode_rel(vn);
	snprintf(want, sizeof(want), "\nmnt_id:\t22\nino:\t%llu\n",
	    (unsigned long long)va.ino);
	cr_assert_not_null(strstr(s, want), "%s", s);
	free(s);
	cr_assert_str_eq(link_of("1/fd/3"), "/proc");
}
