/*
 * Credentials: the get and set calls for user and group ids (real,
 * effective, saved, fs), supplementary groups and capabilities.
 *
 * The guest's ids start as the invoking user's.
 */
#include <errno.h>
#include <stdlib.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kmem.h"
#include "vkern/vm/copyio.h"

long
sys_getuid(struct thread *td, const struct sys_getuid_args *a)
{
	return td->proc->cred.uid;
}

long
sys_geteuid(struct thread *td, const struct sys_geteuid_args *a)
{
	return td->proc->cred.euid;
}

long
sys_getgid(struct thread *td, const struct sys_getgid_args *a)
{
	return td->proc->cred.gid;
}

long
sys_getegid(struct thread *td, const struct sys_getegid_args *a)
{
	return td->proc->cred.egid;
}

/*
 * Changing credentials, as credentials(7) and setresuid(2) describe:
 * root (euid 0) may set any id; anyone else may only set an id to one of
 * its real, effective or saved ids.  The fs ids follow the effective
 * ones.  -1 leaves an id unchanged.
 */
#define NOCHANGE ((uint32_t)-1)

static bool
id_allowed(const uint32_t cur[3], uint32_t id, bool privileged)
{
	return privileged || id == NOCHANGE || id == cur[0] || id == cur[1] ||
	    id == cur[2];
}

/*
 * Set the real, effective, saved and (to the effective) fs ids r, e, s
 * and fs of p to nr, ne, ns.  As Linux's commit_creds(), a process whose
 * effective or fs id changes becomes undumpable (fs.suid_dumpable 0):
 * it may hold what the old ids could read.
 */
static long
kern_setres(struct proc *p, uint32_t *r, uint32_t *e, uint32_t *s,
    uint32_t *fs, uint32_t nr, uint32_t ne, uint32_t ns)
{
	const uint32_t cur[3] = { *r, *e, *s };
	const uint32_t olde = *e, oldfs = *fs;
	bool privileged = p->cred.euid == 0;

	if (!id_allowed(cur, nr, privileged) || !id_allowed(cur, ne,
	    privileged) || !id_allowed(cur, ns, privileged))
		return -EPERM;
	if (nr != NOCHANGE)
		*r = nr;
	if (ne != NOCHANGE)
		*e = ne;
	if (ns != NOCHANGE)
		*s = ns;
	*fs = *e;
	if (*e != olde || *fs != oldfs)
		p->undumpable = true;
	return 0;
}

static long
setres_uid(struct thread *td, uint32_t nr, uint32_t ne, uint32_t ns)
{
	struct cred *c = &td->proc->cred;

	return kern_setres(td->proc, &c->uid, &c->euid, &c->suid, &c->fsuid,
	    nr, ne, ns);
}

static long
setres_gid(struct thread *td, uint32_t nr, uint32_t ne, uint32_t ns)
{
	struct cred *c = &td->proc->cred;

	return kern_setres(td->proc, &c->gid, &c->egid, &c->sgid, &c->fsgid,
	    nr, ne, ns);
}

long
sys_setresuid(struct thread *td, const struct sys_setresuid_args *a)
{
	return setres_uid(td, a->ruid, a->euid, a->suid);
}

long
sys_setresgid(struct thread *td, const struct sys_setresgid_args *a)
{
	return setres_gid(td, a->rgid, a->egid, a->sgid);
}

/* setreuid(2): a changed real id, or an effective one not equal to the
 * old real id, also sets the saved id to the new effective id. */
long
sys_setreuid(struct thread *td, const struct sys_setreuid_args *a)
{
	struct cred *c = &td->proc->cred;
	uint32_t ne = a->euid == NOCHANGE ? c->euid : a->euid;
	uint32_t ns = (a->ruid != NOCHANGE || ne != c->uid) ? ne : NOCHANGE;

	if (c->euid != 0 && a->ruid != NOCHANGE && a->ruid != c->uid &&
	    a->ruid != c->euid)
		return -EPERM;
	return setres_uid(td, a->ruid, a->euid, ns);
}

long
sys_setregid(struct thread *td, const struct sys_setregid_args *a)
{
	struct cred *c = &td->proc->cred;
	uint32_t ne = a->egid == NOCHANGE ? c->egid : a->egid;
	uint32_t ns = (a->rgid != NOCHANGE || ne != c->gid) ? ne : NOCHANGE;

	if (c->euid != 0 && a->rgid != NOCHANGE && a->rgid != c->gid &&
	    a->rgid != c->egid)
		return -EPERM;
	return setres_gid(td, a->rgid, a->egid, ns);
}

/* setuid(2): root sets all three; others only the effective id. */
long
sys_setuid(struct thread *td, const struct sys_setuid_args *a)
{
	if (td->proc->cred.euid == 0)
		return setres_uid(td, a->uid, a->uid, a->uid);
	return setres_uid(td, NOCHANGE, a->uid, NOCHANGE);
}

long
sys_setgid(struct thread *td, const struct sys_setgid_args *a)
{
	if (td->proc->cred.euid == 0)
		return setres_gid(td, a->gid, a->gid, a->gid);
	return setres_gid(td, NOCHANGE, a->gid, NOCHANGE);
}

static long
getres_out(struct thread *td, uaddr_t ur, uaddr_t ue, uaddr_t us,
    uint32_t r, uint32_t e, uint32_t s)
{
	int err;

	if ((err = copyout(td, &r, ur, 4)) < 0 ||
	    (err = copyout(td, &e, ue, 4)) < 0)
		return err;
	return copyout(td, &s, us, 4);
}

long
sys_getresuid(struct thread *td, const struct sys_getresuid_args *a)
{
	const struct cred *c = &td->proc->cred;

	return getres_out(td, a->ruid, a->euid, a->suid, c->uid, c->euid,
	    c->suid);
}

long
sys_getresgid(struct thread *td, const struct sys_getresgid_args *a)
{
	const struct cred *c = &td->proc->cred;

	return getres_out(td, a->rgid, a->egid, a->sgid, c->gid, c->egid,
	    c->sgid);
}

/* setfsuid(2): returns the old id; a refused change changes nothing. */
long
sys_setfsuid(struct thread *td, const struct sys_setfsuid_args *a)
{
	struct cred *c = &td->proc->cred;
	uint32_t old = c->fsuid;
	const uint32_t cur[3] = { c->uid, c->euid, c->suid };

	if (id_allowed(cur, a->uid, c->euid == 0) || a->uid == c->fsuid)
		c->fsuid = a->uid;
	if (c->fsuid != old)
		td->proc->undumpable = true;
	return old;
}

long
sys_setfsgid(struct thread *td, const struct sys_setfsgid_args *a)
{
	struct cred *c = &td->proc->cred;
	uint32_t old = c->fsgid;
	const uint32_t cur[3] = { c->gid, c->egid, c->sgid };

	if (id_allowed(cur, a->gid, c->euid == 0) || a->gid == c->fsgid)
		c->fsgid = a->gid;
	if (c->fsgid != old)
		td->proc->undumpable = true;
	return old;
}

#define NGROUPS_MAX_ 65536

static int
gid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Sort g[0..n) in place, a heapsort: not qsort(3), whose glibc version asks
 * the host for its memory size (sysinfo), which the lock-down forbids.
 */
static void
gids_sort(uint32_t *g, size_t n)
{
	for (size_t end = n, start = n / 2; end > 1;) {
		size_t root, child;
		uint32_t t;

		if (start > 0) {
			start--;
		} else {
			end--;
			t = g[0];
			g[0] = g[end];
			g[end] = t;
		}
		for (root = start; (child = 2 * root + 1) < end; root = child) {
			if (child + 1 < end && g[child + 1] > g[child])
				child++;
			if (g[root] >= g[child])
				break;
			t = g[root];
			g[root] = g[child];
			g[child] = t;
		}
	}
}

/* A binary search: setgroups keeps the list sorted, as Linux does. */
bool
proc_in_groups(const struct proc *p, uint32_t gid)
{
	return p->ngroups > 0 && bsearch(&gid, p->groups, (size_t)p->ngroups,
	    sizeof(gid), gid_cmp) != NULL;
}

bool
proc_in_group(const struct proc *p, uint32_t gid)
{
	return gid == p->cred.fsgid || proc_in_groups(p, gid);
}

long
sys_getgroups(struct thread *td, const struct sys_getgroups_args *a)
{
	struct proc *p = td->proc;
	int r;

	if (a->size < 0)
		return -EINVAL;
	if (a->size == 0)
		return p->ngroups;
	if (a->size < p->ngroups)
		return -EINVAL;
	if ((r = copyout(td, p->groups, a->list, (size_t)p->ngroups * 4)) < 0)
		return r;
	return p->ngroups;
}

long
sys_setgroups(struct thread *td, const struct sys_setgroups_args *a)
{
	struct proc *p = td->proc;
	uint32_t *g;
	int r;

	if (p->cred.euid != 0)
		return -EPERM;   /* CAP_SETGID */
	if (a->size < 0 || a->size > NGROUPS_MAX_)
		return -EINVAL;
	if ((g = kmem_alloc(proc_groups_size(a->size), 0)) == NULL)
		return -ENOMEM;
	if ((r = copyin(td, a->list, g, (size_t)a->size * 4)) < 0) {
		kmem_free(g, proc_groups_size(a->size), 0);
		return r;
	}
	gids_sort(g, (size_t)a->size);
	kmem_free(p->groups, proc_groups_size(p->ngroups), 0);
	p->groups = g;
	p->ngroups = a->size;
	return 0;
}

/* --- capabilities: a guest has all of them as root, none otherwise --- */

#define CAP_V1 0x19980330U
#define CAP_V2 0x20071026U
#define CAP_V3 0x20080522U

struct cap_header {
	uint32_t version;
	int pid;
};

struct cap_data {
	uint32_t effective, permitted, inheritable;
};

static int
cap_header_in(struct thread *td, uaddr_t uh, struct cap_header *h,
    int *ndata)
{
	int r;

	if ((r = copyin(td, uh, h, sizeof(*h))) < 0)
		return r;
	if (h->version != CAP_V1 && h->version != CAP_V2 &&
	    h->version != CAP_V3) {
		/* Tell the caller which version we speak, as Linux does. */
		h->version = CAP_V3;
		(void)copyout(td, h, uh, sizeof(*h));
		return -EINVAL;
	}
	*ndata = h->version == CAP_V1 ? 1 : 2;
	return h->pid < 0 ? -EINVAL : 0;
}

long
sys_capget(struct thread *td, const struct sys_capget_args *a)
{
	struct cap_header h;
	struct cap_data d[2];
	struct thread *t;
	uint32_t all;
	int n, r;

	if ((r = cap_header_in(td, a->header, &h, &n)) < 0)
		return r;
	if (a->data.va == 0)
		return 0;
	/* Any thread's capabilities may be read: those of its euid. */
	if ((t = h.pid == 0 ? td : thread_find(h.pid)) == NULL)
		return -ESRCH;
	all = t->proc->cred.euid == 0 ? 0xffffffffU : 0;
	d[0] = (struct cap_data){ all, all, 0 };
	d[1] = (struct cap_data){ all & 0x1ff, all & 0x1ff, 0 };
	return copyout(td, d, a->data, (size_t)n * sizeof(d[0]));
}

/* capset: a guest may keep or drop what it has; it may never gain. */
long
sys_capset(struct thread *td, const struct sys_capset_args *a)
{
	struct cap_header h;
	struct cap_data d[2];
	int n, r;

	if ((r = cap_header_in(td, a->header, &h, &n)) < 0)
		return r;
	/* Only the caller's own, as Linux without file capabilities. */
	if (h.pid != 0 && h.pid != td->tid)
		return -EPERM;
	if ((r = copyin(td, a->data, d, (size_t)n * sizeof(d[0]))) < 0)
		return r;
	if (td->proc->cred.euid != 0 && (d[0].permitted || d[0].effective ||
	    (n == 2 && (d[1].permitted || d[1].effective))))
		return -EPERM;
	/* XXX: dropped capabilities are not remembered yet (#4). */
	return 0;
}

/*
 * Linux's ptrace_may_access(q, PTRACE_MODE_READ_*): p's fs ids (fscreds,
 * which guard another process's /proc fd, exe and cwd links) or real ids
 * (get_robust_list) must be each of q's real, effective and saved ids,
 * and q dumpable; CAP_SYS_PTRACE (root's) passes both.
 */
bool
proc_may_trace(const struct proc *p, const struct proc *q, bool fscreds)
{
	const struct cred *c = &p->cred, *t = &q->cred;
	uint32_t uid = fscreds ? c->fsuid : c->uid;
	uint32_t gid = fscreds ? c->fsgid : c->gid;

	if (p == q || c->euid == 0)
		return true;
	return uid == t->uid && uid == t->euid && uid == t->suid &&
	    gid == t->gid && gid == t->egid && gid == t->sgid &&
	    !q->undumpable;
}
