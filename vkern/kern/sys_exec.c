/*
 * execve, execveat: replace the process's image.
 *
 * Everything that can fail harmlessly is checked first, while the old
 * image is intact: the arguments (E2BIG, EFAULT), the file and its
 * interpreter (ENOENT, EACCES, ENOEXEC), "#!" scripts (up to four
 * nested, then ELOOP).  Past that point the old address space is dropped
 * from the stub and the map (or, shared with a CLONE_VM parent, left to
 * it for a new stub), close-on-exec fds are closed and caught signals
 * reset; a failure after it kills the process, as Linux does.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/namei.h"
#include "vkern/vm/copyio.h"

#define ARG_MAX_BYTES   (2 * 1024 * 1024)  /* a quarter of an 8 MiB stack */
#define MAX_ARG_STRLEN  (32 * 4096)
#define MAX_ARGS        0x7fffffff
#define SCRIPT_DEPTH    4

void
strvec_free(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

void
strvec_insert(struct strvec *sv, size_t at, const char *s)
{
	if (sv->v == NULL)
		sv->v = vk_xcalloc(1, sizeof(*sv->v));
	sv->v = vk_xrealloc(sv->v, (sv->n + 2) * sizeof(*sv->v));
	memmove(&sv->v[at + 1], &sv->v[at], (sv->n + 1 - at) * sizeof(*sv->v));
	sv->v[at] = strdup(s);
	sv->n++;
	sv->bytes += strlen(s) + 1 + sizeof(char *);
}

/* Copy in a NULL-terminated array of guest strings. */
static long
strvec_in(struct thread *td, uaddr_t uv, struct strvec *sv)
{
	char *buf = vk_xmalloc(MAX_ARG_STRLEN);
	long r = 0;

	sv->v = vk_xcalloc(1, sizeof(*sv->v));
	for (size_t i = 0; uv.va != 0; i++) {
		uint64_t up;

		if ((r = copyin(td, UADDR(uv.va + i * 8), &up, 8)) < 0)
			break;
		if (up == 0)
			break;
		if (i >= MAX_ARGS) {
			r = -E2BIG;
			break;
		}
		r = copyinstr(td, UADDR(up), buf, MAX_ARG_STRLEN);
		if (r == -ENAMETOOLONG)
			r = -E2BIG;
		if (r < 0)
			break;
		strvec_insert(sv, sv->n, buf);
		if (sv->bytes > ARG_MAX_BYTES) {
			r = -E2BIG;
			break;
		}
		r = 0;
	}
	free(buf);
	return r;
}

/*
 * If path is a "#!" script, rewrite argv to run its interpreter:
 * interp [arg] path argv[1...].  Returns 1 when it was one, 0 if not.
 */
static int
exec_script(struct proc *p, char *path, size_t size, struct strvec *argv)
{
	char line[256], *s, *interp, *arg = NULL;
	struct nameidata nd;
	long n;

	if (vfs_lookup(p, AT_FDCWD, path, LOOKUP_FOLLOW, &nd) < 0)
		return 0;
	n = nd.vp->type == VREG && nd.vp->ops->read != NULL ?
	    nd.vp->ops->read(nd.vp, line, sizeof(line) - 1, 0) : 0;
	nd_release(&nd);
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return 0;
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	for (s = line + 2; *s == ' ' || *s == '\t'; s++)
		;
	interp = s;
	s += strcspn(s, " \t");
	if (*s != '\0') {
		*s++ = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		/* Linux passes the rest of the line as one argument. */
		for (char *e = s + strlen(s); e > s && (e[-1] == ' ' ||
		    e[-1] == '\t'); e--)
			e[-1] = '\0';
		if (*s != '\0')
			arg = s;
	}
	if (*interp == '\0')
		return -ENOEXEC;
	if (argv->n > 0) {
		free(argv->v[0]);
		argv->v[0] = strdup(path);
	} else {
		strvec_insert(argv, 0, path);
	}
	if (arg != NULL)
		strvec_insert(argv, 0, arg);
	strvec_insert(argv, 0, interp);
	snprintf(path, size, "%s", interp);
	return 1;
}

/* Drop the old image: host mappings, the map's entries, and state. */
static void
exec_flush_old(struct proc *p)
{
	struct vm_map *m = p->vm;
	uint64_t min = m->min, max = m->max;

	VK_ASSERT(m->refs == 1);
	vm_map_unmap_host(m, m->space);
	vm_map_destroy(m);
	vm_map_init(m, m->space, min, max);
	if (p->vdso_start < p->vdso_end)
		vm_map_reserve(m, p->vdso_start, p->vdso_end);
	/* The platform may take its range back, given up in the old one. */
	if (p->own_start < p->own_end &&
	    plat_space_own_reclaim(m->space) == 0)
		vm_map_reserve(m, p->own_start, p->own_end);
	/* As Linux, the new image shares neither fds nor signal actions. */
	proc_unshare_files(p);
	fd_close_on_exec(p->fdt);
	ptimer_drop_all(p);
	proc_unshare_sighand(p);
	sig_reset_handlers(p->sighand);
	p->membarrier_reg = 0;
	/* Dumpable again unless its ids still differ (Linux's exec). */
	p->undumpable = p->cred.uid != p->cred.euid ||
	    p->cred.gid != p->cred.egid;
	p->main->robust_list = 0;
	p->main->clear_child_tid = 0;
}

int
kern_execve(struct thread *td, char *path, struct strvec *argv,
    struct strvec *envp, bool replace, const char **whyp)
{
	struct proc *p = td->proc;
	struct exec_prep prep;
	int r, depth;

	for (depth = 0; (r = exec_script(p, path, VK_PATH_MAX, argv)) == 1;
	    depth++)
		if (depth == SCRIPT_DEPTH)
			return -ELOOP;
	if (r < 0)
		return r;
	if (argv->bytes + envp->bytes > ARG_MAX_BYTES)
		return -E2BIG;
	if ((r = exec_prepare(p, path, &prep, whyp)) < 0)
		return r;
	if (replace) {
		/* A CLONE_VM child leaves the memory to its parent. */
		if ((r = proc_vm_unshare(td)) < 0) {
			exec_prep_release(&prep);
			return r;
		}
		/* Past the point of no return: the other threads go. */
		proc_single_thread(td);
		exec_flush_old(p);
		/* Its stack was the old image's (execve(2)). */
		sig_altstack_off(td);
	}
	r = exec_commit(p, &prep, path, argv->v, envp->v);
	exec_prep_release(&prep);
	if (r < 0 && replace)
		proc_kill_sig(p, SIGSEGV);
	/* A vfork parent may go on once the child has its own image. */
	p->vfork_done = true;
	sched_wake_chan(p);
	return r;
}

/*
 * execveat: a path relative to dirfd becomes the absolute path below the
 * directory's canonical one; AT_EMPTY_PATH runs the file dirfd is.
 */
static long
execveat_path(struct thread *td, int dirfd, char *path, unsigned flags)
{
	struct file *fp;
	char *joined;

	if (dirfd == AT_FDCWD || path[0] == '/')
		return 0;
	if ((fp = fd_get(td->proc->fdt, dirfd)) == NULL)
		return -EBADF;
	if (path[0] == '\0' && !(flags & AT_EMPTY_PATH))
		return -ENOENT;
	if (path[0] != '\0' && (fp->vn == NULL || fp->vn->type != VDIR))
		return -ENOTDIR;
	/* The path is looked up again, so it must be one that can be. */
	if (vfs_path_deep(fp->path))
		return -ENAMETOOLONG;
	joined = vk_xmalloc(VK_PATH_MAX);
	if (path[0] == '\0')
		snprintf(joined, VK_PATH_MAX, "%s", fp->path);
	else
		snprintf(joined, VK_PATH_MAX, "%s/%s", fp->path, path);
	snprintf(path, VK_PATH_MAX, "%s", joined);
	free(joined);
	return 0;
}

static long
execve_user(struct thread *td, int dirfd, uaddr_t upath, uaddr_t uargv,
    uaddr_t uenvp, unsigned flags)
{
	struct strvec argv = { 0 }, envp = { 0 };
	char *path = vk_xmalloc(VK_PATH_MAX);
	const char *why;
	long r;

	if (flags & ~(unsigned)(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		r = -EINVAL;
	else if ((r = copyinstr(td, upath, path, VK_PATH_MAX)) < 0)
		;
	else if ((r = execveat_path(td, dirfd, path, flags)) < 0)
		;
	else if ((r = strvec_in(td, uargv, &argv)) == 0 &&
	    (r = strvec_in(td, uenvp, &envp)) == 0) {
		/*
		 * No argv at all: the program gets argc 1 and an empty
		 * argv[0], as from Linux 5.18, which code that takes argv[1]
		 * for the first argument expects.
		 */
		if (argv.n == 0)
			strvec_insert(&argv, 0, "");
		r = kern_execve(td, path, &argv, &envp, true, &why);
	}
	strvec_free(&argv);
	strvec_free(&envp);
	free(path);
	return r;
}

long
sys_execve(struct thread *td, const struct sys_execve_args *a)
{
	return execve_user(td, AT_FDCWD, a->path, a->argv, a->envp, 0);
}

long
sys_execveat(struct thread *td, const struct sys_execveat_args *a)
{
	return execve_user(td, a->dirfd, a->path, a->argv, a->envp,
	    (unsigned)a->flags);
}
