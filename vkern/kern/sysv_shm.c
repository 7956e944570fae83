/*
 * System V shared memory: shmget, shmat, shmdt, shmctl.
 *
 * A segment is a tmpfs file of its own, mounted nowhere (as a memfd), of
 * the segment's size: its pages are RAM file pages charged to --mem, and
 * shmat maps them shared, each when first touched (a segment costs what
 * is used of it, as Linux's shmem, whatever its size).  Each
 * attach is one watched map object (vm_map_watch()): fork gives the child
 * a copy, exec and exit let go of it with the rest of the map, so that
 * shm_nattch counts the maps that hold the segment, as Linux's counts
 * its mappings.  A segment removed while attached loses its key and is
 * marked SHM_DEST; it goes when its last attach does, and until then
 * its id still finds it (Linux lets such a segment be attached again).
 */
#include <errno.h>
#include <linux/ipc.h>
#include <linux/mman.h>
#include <linux/shm.h>
#include <sys/resource.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kern/sysv_ipc.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"
#include "vkern/vm/vm_map.h"

/* The kernel's own mode bits (include/linux/shm.h), shown by IPC_STAT. */
#define SHM_DEST   01000        /* removed: goes with its last attach */
#define SHM_LOCKED 02000        /* SHM_LOCK */

struct shm_seg {
	struct ipc_obj o;
	uint64_t size;
	struct vnode *vn;
	unsigned long nattch;
	int64_t atime, dtime;
	int cpid, lpid;
};

static struct ipc_ids shm_ids = { .last_idx = -1 };
static uint64_t shm_tot;        /* pages of every segment */

static uint64_t
shm_pages(uint64_t size)
{
	return VK_ROUND_UP(size, VK_PAGE_SIZE) / VK_PAGE_SIZE;
}

static struct shm_seg *
shm_lookup(int id)
{
	struct ipc_obj *o = ipc_lookup(&shm_ids, id);

	return o != NULL ? VK_CONTAINER_OF(o, struct shm_seg, o) : NULL;
}

static void
shm_destroy(struct shm_seg *s)
{
	ipc_remove(&shm_ids, &s->o);
	shm_tot -= shm_pages(s->size);
	vnode_rel(s->vn);
	kmem_free(s, sizeof(*s), KM_FS);
}

/* The pid of the process in a call now, for shm_lpid. */
static int
shm_curpid(int old)
{
	return curthread != NULL ? curthread->proc->pid : old;
}

/* A map took (+1) or let go of (-1) an attach of the segment arg. */
static void
shm_watch(void *arg, int delta)
{
	struct shm_seg *s = arg;

	if (delta > 0) {
		s->nattch++;
		return;
	}
	VK_ASSERT(s->nattch > 0);
	s->nattch--;
	s->dtime = ipc_now();
	s->lpid = shm_curpid(s->lpid);
	if (s->nattch == 0 && (s->o.mode & SHM_DEST))
		shm_destroy(s);
}

/* shmget's new segment, checked as Linux's newseg(). */
static long
shm_create(struct thread *td, int32_t key, int flg, uint64_t size)
{
	struct proc *p = td->proc;
	uint64_t pages = shm_pages(size);
	struct shm_seg *s;
	int r;

	if (size < SHMMIN || size > ipc_lim.shmmax)
		return -EINVAL;
	if (pages == 0 || shm_tot + pages < shm_tot ||
	    shm_tot + pages > ipc_lim.shmall)
		return -ENOSPC;
	if ((s = kmem_alloc(sizeof(*s), KM_ZERO | KM_FS)) == NULL)
		return -ENOMEM;
	if ((r = ipc_add(&shm_ids, &s->o, p, key, flg, ipc_lim.shmmni)) < 0) {
		kmem_free(s, sizeof(*s), KM_FS);
		return r;
	}
	/* Linux's shmem_kernel_file_setup(): EINVAL past MAX_LFS_FILESIZE. */
	if ((r = tmpfs_unlinked(0600, p->cred.euid, p->cred.egid, &s->vn)) < 0 ||
	    (r = vn_truncate(s->vn, size)) < 0) {
		if (s->vn != NULL)
			vnode_rel(s->vn);
		ipc_remove(&shm_ids, &s->o);
		kmem_free(s, sizeof(*s), KM_FS);
		return r == -EFBIG ? -EINVAL : r;
	}
	s->size = size;
	s->cpid = p->pid;
	shm_tot += pages;
	return s->o.id;
}

/* An existing segment must be as large as asked for. */
static int
shm_more(struct ipc_obj *o, uint64_t size)
{
	return VK_CONTAINER_OF(o, struct shm_seg, o)->size < size ?
	    -EINVAL : 0;
}

static const struct ipc_ops shm_ops = { .create = shm_create,
	.more = shm_more };

long
sys_shmget(struct thread *td, const struct sys_shmget_args *a)
{
	return ipc_get(&shm_ids, &shm_ops, td, a->key, a->flg, a->size);
}

/* The attach address shmat asks for: 0 for anywhere, or -EINVAL. */
static int
shmat_addr(uint64_t addr, int flg, uint64_t *vap)
{
	*vap = addr;
	if (addr == 0)
		return (flg & SHM_REMAP) ? -EINVAL : 0;
	if (addr & VK_PAGE_MASK) {
		if (!(flg & SHM_RND))
			return -EINVAL;
		*vap = VK_ROUND_DOWN(addr, VK_PAGE_SIZE);   /* SHMLBA */
		if (*vap == 0 && (flg & SHM_REMAP))
			return -EINVAL;
	}
	return 0;
}

long
sys_shmat(struct thread *td, const struct sys_shmat_args *a)
{
	struct proc *p = td->proc;
	int prot = PROT_READ, acc = IPC_MAY_READ, flg = a->flg;
	uint64_t va, len;
	struct shm_seg *s;
	long r;

	if (a->id < 0)
		return -EINVAL;
	if ((r = shmat_addr(a->addr.va, flg, &va)) < 0)
		return r;
	if (!(flg & SHM_RDONLY)) {
		prot |= PROT_WRITE;
		acc |= IPC_MAY_WRITE;
	}
	if (flg & SHM_EXEC) {
		prot |= PROT_EXEC;
		acc |= IPC_MAY_EXEC;
	}
	if ((s = shm_lookup(a->id)) == NULL)
		return -EINVAL;
	if (!ipc_may(p, &s->o, acc))
		return -EACCES;
	len = VK_ROUND_UP(s->size, VK_PAGE_SIZE);
	if (va != 0)
		kern_mm_own_claim(p, va, len);
	/* Without SHM_REMAP the range must be free (do_shmat()). */
	if (va != 0 && !(flg & SHM_REMAP) && (va + len < va ||
	    !vm_map_range_user(p->vm, va, len) ||
	    !vm_map_range_free(p->vm, va, va + len)))
		return -EINVAL;
	r = kern_mmap_watched(p, va, len, prot, va != 0 ? MAP_FIXED : 0,
	    s->vn, !(flg & SHM_RDONLY), shm_watch, s);
	if (vk_is_err(r))
		return r;
	s->atime = ipc_now();
	s->lpid = p->pid;
	return r;
}

/* Whether e maps segment s at the offset addr starts it from. */
static bool
shmdt_entry(const struct vm_entry *e, const struct shm_seg *s, uint64_t addr)
{
	return e->obj != NULL && e->obj->watch == shm_watch &&
	    (s == NULL || e->obj->watch_arg == s) &&
	    e->foff == e->start - addr;
}

/*
 * Unmap the attach that starts at addr: every entry of its segment from
 * there, within the segment's size, as Linux's shmdt() unmaps its
 * mappings (those moved or cut away by munmap stay).
 */
long
sys_shmdt(struct thread *td, const struct sys_shmdt_args *a)
{
	struct vm_map *m = td->proc->vm;
	uint64_t addr = a->addr.va, end;
	struct vm_entry *e;
	struct shm_seg *s;

	if (addr & VK_PAGE_MASK)
		return -EINVAL;
	e = vm_map_lookup(m, addr);
	if (e == NULL || e->start != addr || !shmdt_entry(e, NULL, addr))
		return -EINVAL;
	s = e->obj->watch_arg;
	end = addr + VK_ROUND_UP(s->size, VK_PAGE_SIZE);
	s->lpid = td->proc->pid;
	/*
	 * s may go with its last entry: from then on the walk compares the
	 * pointer and never reads it.  Removing a whole entry moves the
	 * next one into its place.
	 */
	for (unsigned i = 0; i < m->n && m->ent[i].start < end; ) {
		e = &m->ent[i];
		if (e->start >= addr && e->end <= end &&
		    shmdt_entry(e, s, addr))
			vm_map_remove(m, e->start, e->end);
		else
			i++;
	}
	return m->space != NULL ? plat_space_flush(m->space) : 0;
}

static void
shm_fill(const struct ipc_obj *o, void *out)
{
	const struct shm_seg *s = VK_CONTAINER_OF(o, struct shm_seg, o);
	struct shmid64_ds *ds = out;

	*ds = (struct shmid64_ds){ .shm_segsz = s->size,
	    .shm_atime = s->atime, .shm_dtime = s->dtime,
	    .shm_ctime = s->o.ctime, .shm_cpid = s->cpid,
	    .shm_lpid = s->lpid, .shm_nattch = s->nattch };
	ipc_perm_get(o, &ds->shm_perm);
}

/* No process is left to be attached: a segment goes at once. */
static void
shm_gone(struct ipc_obj *o)
{
	struct shm_seg *s = VK_CONTAINER_OF(o, struct shm_seg, o);

	VK_ASSERT(s->nattch == 0);
	shm_destroy(s);
}

const struct ipc_family shm_family = { .ids = &shm_ids,
	.dslen = sizeof(struct shmid64_ds), .fill = shm_fill,
	.stat_any = SHM_STAT_ANY, .destroy = shm_gone };

static long
shmctl_info(struct thread *td, int cmd, uaddr_t buf)
{
	struct shminfo64 si = { .shmmax = ipc_lim.shmmax, .shmmin = SHMMIN,
	    .shmmni = ipc_lim.shmmni, .shmseg = ipc_lim.shmmni,
	    .shmall = ipc_lim.shmall };
	struct shm_info su = { .used_ids = (int)shm_ids.in_use,
	    .shm_tot = shm_tot, .shm_rss = shm_tot };
	int r;

	if (cmd == IPC_INFO)
		r = copyout(td, &si, buf, sizeof(si));
	else
		r = copyout(td, &su, buf, sizeof(su));
	if (r < 0)
		return -EFAULT;
	return VK_MAX(ipc_max_idx(&shm_ids), 0);
}

/*
 * IPC_SET, IPC_RMID, SHM_LOCK and SHM_UNLOCK, on a segment the caller
 * owns (ipc_owned()).
 * SHM_LOCK only marks the segment, whose pages never leave RAM anyway;
 * without CAP_IPC_LOCK it needs a RLIMIT_MEMLOCK that holds it.
 */
static long
shmctl_change(struct thread *td, struct shm_seg *s, int cmd,
    const struct shmid64_ds *in)
{
	struct proc *p = td->proc;

	switch (cmd) {
	case IPC_SET:
		return ipc_perm_set(&s->o, &in->shm_perm);
	case IPC_RMID:
		if (s->nattch == 0) {
			shm_destroy(s);
			return 0;
		}
		s->o.mode |= SHM_DEST;
		s->o.key = IPC_PRIVATE;
		return 0;
	case SHM_LOCK:
		if (p->cred.euid != 0 && (p->rlim[RLIMIT_MEMLOCK].cur == 0 ||
		    p->rlim[RLIMIT_MEMLOCK].cur < s->size))
			return p->rlim[RLIMIT_MEMLOCK].cur == 0 ? -EPERM :
			    -ENOMEM;
		s->o.mode |= SHM_LOCKED;
		return 0;
	default:
		s->o.mode &= ~(uint32_t)SHM_LOCKED;
		return 0;
	}
}

long
sys_shmctl(struct thread *td, const struct sys_shmctl_args *a)
{
	struct shmid64_ds in;
	struct ipc_obj *o;
	int r;

	if (a->cmd < 0 || a->id < 0)
		return -EINVAL;
	switch (a->cmd) {
	case IPC_INFO:
	case SHM_INFO:
		return shmctl_info(td, a->cmd, a->buf);
	case IPC_STAT:
	case SHM_STAT:
	case SHM_STAT_ANY:
		return ipc_stat(td, &shm_family, a->id, a->cmd, a->buf);
	case IPC_SET:
		if (copyin(td, a->buf, &in, sizeof(in)) < 0)
			return -EFAULT;
		break;
	case IPC_RMID:
	case SHM_LOCK:
	case SHM_UNLOCK:
		break;
	default:
		return -EINVAL;
	}
	if ((o = ipc_owned(&shm_ids, td->proc, a->id, &r)) == NULL)
		return r;
	return shmctl_change(td, VK_CONTAINER_OF(o, struct shm_seg, o), a->cmd,
	    &in);
}
