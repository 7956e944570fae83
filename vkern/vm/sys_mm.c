/*
 * Memory system calls: mmap, munmap, mprotect, mremap, madvise, brk.
 *
 * The handlers check the guest's arguments the way Linux's mm/mmap.c,
 * mm/mprotect.c, mm/mremap.c and mm/madvise.c do, and return the errno
 * those files return for each bad input; the map does the work.  Each call
 * ends with the stub's mappings brought up to date, so a host failure
 * becomes this call's error rather than a later crash.
 */
#include <errno.h>
#include <linux/mman.h>
#include <sys/resource.h>
#include <sys/mman.h>

#include "vkern/kern/kcov.h"
#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/overlay/overlay.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_ram.h"

#define PROT_VALID (PROT_READ | PROT_WRITE | PROT_EXEC)
#define MAP_32BIT_LO 0x40000000ULL
#define MAP_32BIT_HI 0x80000000ULL
#define MMAP_FILE_MAX ((uint64_t)INT64_MAX)   /* Linux's MAX_LFS_FILESIZE */

static long
vm_sync(struct proc *p, long r)
{
	int e;

	if (p->vm->space != NULL && (e = plat_space_flush(p->vm->space)) < 0)
		return e;
	return r;
}

/* Page-round a length, or 0 when it overflows. */
static uint64_t
len_round(uint64_t len)
{
	uint64_t r = VK_ROUND_UP(len, VK_PAGE_SIZE);

	return r < len ? 0 : r;
}

/*
 * Whether unmapping [start, end) keeps within vm.max_map_count: a hole
 * in a mapping makes one more, refused at the limit (Linux's
 * do_vmi_align_munmap()).
 */
static bool
mm_may_unmap(struct vm_map *m, uint64_t start, uint64_t end)
{
	return !vm_map_hole(m, start, end) ||
	    !vm_map_count_above(m, VM_MAX_MAP_COUNT - 1);
}

/* Pick the address of a new mapping that the guest did not fix. */
static int
mmap_place(struct vm_map *m, uint64_t hint, uint64_t len, uint64_t flags,
    uint64_t *vap)
{
	hint = VK_ROUND_DOWN(hint, VK_PAGE_SIZE);
	if (flags & MAP_32BIT)
		return vm_map_find_space(m, len, MAP_32BIT_LO, MAP_32BIT_HI,
		    vap);
	if (hint != 0 && hint >= m->min && vm_map_range_user(m, hint, len) &&
	    vm_map_range_free(m, hint, hint + len)) {
		*vap = hint;
		return 0;
	}
	return vm_map_find_space(m, len, m->min, m->mmap_base, vap);
}

/*
 * Whether data (private writable memory) of data bytes may grow by len
 * under RLIMIT_DATA, counted in whole pages.  As Linux, a soft limit of
 * 0 lets it grow to the hard limit.
 */
static bool
vm_data_fits(const struct proc *p, uint64_t data, uint64_t len)
{
	const struct rlim64 *dl = &p->rlim[RLIMIT_DATA];

	if (data + len <= VK_ROUND_DOWN(dl->cur, VK_PAGE_SIZE))
		return true;
	return dl->cur == 0 &&
	    data + len <= VK_ROUND_DOWN(dl->max, VK_PAGE_SIZE);
}

/*
 * Whether the process may grow by len bytes of prot and flags (Linux's
 * may_expand_vm()): RLIMIT_AS bounds all its memory, RLIMIT_DATA its
 * private writable memory; -ENOMEM beyond either.
 */
static int
vm_may_grow(struct proc *p, uint64_t len, int prot, unsigned flags)
{
	uint64_t as = VK_ROUND_DOWN(p->rlim[RLIMIT_AS].cur, VK_PAGE_SIZE);
	struct vm_usage u;

	vm_map_usage(p->vm, 0, UINT64_MAX, &u);
	if (len > as || u.total > as - len)
		return -ENOMEM;
	if (vm_map_is_data(prot, flags) && !vm_data_fits(p, u.data, len))
		return -ENOMEM;
	return 0;
}

void
kern_mm_own_claim(struct proc *p, uint64_t start, uint64_t len)
{
	struct vm_map *m = p->vm;
	uint64_t end = start + len;

	if (p->own_start >= p->own_end || end < start ||
	    end <= p->own_start || start >= p->own_end || m->space == NULL ||
	    !vm_map_range_has(m, p->own_start, p->own_end, VME_RESERVED))
		return;
	if (plat_space_own_release(m->space) == 0)
		vm_map_remove(m, p->own_start, p->own_end);
}

/*
 * Choose (or clear, for MAP_FIXED) the range a new mapping of prot goes
 * in.  The limits count what a MAP_FIXED mapping replaces as freed.
 */
static long
mmap_range(struct proc *p, uint64_t addr, uint64_t len, int prot,
    uint64_t flags, uint64_t *vap)
{
	unsigned vflags = (flags & MAP_TYPE) == MAP_PRIVATE ? 0 : VME_SHARED;
	struct vm_map *m = p->vm;
	struct vm_usage in = { 0, 0, 0, 0 };
	uint64_t va;
	int r;

	if (len == 0 || vm_map_count_above(m, VM_MAX_MAP_COUNT))
		return -ENOMEM;
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (!VK_PAGE_ALIGNED(addr))
			return -EINVAL;
		if (addr < m->min || !vm_map_range_user(m, addr, len))
			return -ENOMEM;
		kern_mm_own_claim(p, addr, len);
		if (vm_map_range_has(m, addr, addr + len, VME_RESERVED))
			return -ENOMEM;
		if (!vm_map_range_free(m, addr, addr + len) &&
		    !(flags & MAP_FIXED))
			return -EEXIST;
		if (!mm_may_unmap(m, addr, addr + len))
			return -ENOMEM;
		vm_map_usage(m, addr, addr + len, &in);
		va = addr;
	} else if ((r = mmap_place(m, addr, len, flags, &va)) < 0) {
		return r;
	}
	if ((r = vm_may_grow(p, len - in.total, prot, vflags)) < 0)
		return r;
	if (in.total != 0)
		vm_map_remove(m, va, va + len);
	*vap = va;
	return 0;
}

/*
 * Whether anonymous memory of len bytes may be made, as Linux's
 * __vm_enough_memory() judges what a mapping commits: a mapping made
 * with MAP_NORESERVE, or not writable, commits nothing; the heuristic
 * refuses one larger than all the memory there is (--mem, and no swap);
 * the strict mode's check is the charge itself, made at once.
 */
static bool
mmap_commit_ok(uint64_t len, int prot, bool noreserve)
{
	if (!(prot & PLAT_PROT_WRITE) || noreserve ||
	    vm_overcommit() != VM_OVERCOMMIT_GUESS)
		return true;
	return len <= vm_ram_limit();
}

long
kern_mmap(struct proc *p, uint64_t addr, uint64_t len, int prot,
    uint64_t flags)
{
	unsigned vflags = (flags & MAP_TYPE) == MAP_PRIVATE ? 0 : VME_SHARED;
	bool noreserve = (flags & MAP_NORESERVE) != 0;
	bool lazy = vm_anon_lazy(len_round(len), vflags, noreserve);
	uint64_t va;
	long r;

	if (!mmap_commit_ok(len_round(len), prot, noreserve))
		return -ENOMEM;
	if ((r = mmap_range(p, addr, len_round(len), prot, flags, &va)) < 0)
		return r;
	if (lazy)
		r = vm_map_anon_lazy(p->vm, va, len_round(len), prot, vflags);
	else
		r = vm_map_anon(p->vm, va, len_round(len), prot, vflags);
	if (r < 0)
		return vm_sync(p, r);
	return vm_sync(p, (long)va);
}

/*
 * A private mapping of a file, or a shared one of a host file open
 * read-only (flags VME_NOWRITE), which nobody in the sandbox can change
 * under it: the page cache's pages where it serves the file and the
 * access, else a copy made at mmap time (vm_file.c).  Pages wholly past
 * the end of the file raise SIGBUS, as Linux's.
 */
static long
mmap_file_copy(struct thread *td, const struct sys_mmap_args *a,
    struct file *fp, unsigned vflags)
{
	struct proc *p = td->proc;
	int prot = (int)(a->prot & PROT_VALID);
	uint64_t len = len_round(a->len), va;
	int r;

	if ((r = mmap_range(p, a->addr.va, len, prot, a->flags, &va)) < 0)
		return r;
	r = vm_pcache_map(p->vm, va, len, prot, fp->vn, (uint64_t)a->off);
	if (r == -ENOTSUP)
		r = vm_map_file_private(p->vm, va, len, prot, fp->vn,
		    (uint64_t)a->off);
	if (r < 0)
		return vm_sync(p, r);
	if (vflags != 0)
		vm_map_add_flags(p->vm, va, va + len, vflags);
	return vm_sync(p, (long)va);
}

/*
 * Whether MAP_SHARED of vn maps the file's own pages: those of tmpfs,
 * and the map cache of a host file on a read-write mount.  A file that
 * nothing in the sandbox can change gets a copy.
 */
static bool
mmap_shares_pages(const struct vnode *vn)
{
	return vn != NULL && vn->ops->getpage != NULL &&
	    (tmpfs_is_tmpfs(vn) || !vn->mount->rdonly);
}

/*
 * MAP_SHARED of a file: tmpfs files (memfds, /dev/shm, the overlay's
 * upper layer) and host files on read-write mounts map their pages,
 * which every mapping shares and which are the file's for read() and
 * write(); other files map a copy.  A mapping of a read-only fd may
 * never be made writable, nor may one of a file sealed against writes
 * (a writable one is EPERM, as Linux's memfd_check_seals_mmap() says).
 */
static long
mmap_file_shared(struct thread *td, const struct sys_mmap_args *a,
    struct file *fp)
{
	struct proc *p = td->proc;
	bool wr = (a->prot & PROT_WRITE) != 0, maywrite;
	struct vnode *vn = overlay_upper(fp->vn, wr);
	uint64_t len = len_round(a->len), va;
	long r;

	if (wr && !file_writable(fp))
		return -EACCES;
	if (!mmap_shares_pages(vn))
		return mmap_file_copy(td, a, fp, VME_NOWRITE);
	if (wr && tmpfs_write_sealed(vn))
		return -EPERM;
	maywrite = file_writable(fp) && !tmpfs_write_sealed(vn);
	if ((r = mmap_range(p, a->addr.va, len, (int)(a->prot & PROT_VALID),
	    a->flags, &va)) < 0)
		return r;
	r = vm_map_file_shared(p->vm, va, len, (int)(a->prot & PROT_VALID),
	    vn, (uint64_t)a->off, maywrite);
	if (r == 0 && !maywrite)
		vm_map_add_flags(p->vm, va, va + len, VME_NOWRITE);
	return vm_sync(p, r < 0 ? r : (long)va);
}

long
kern_mmap_watched(struct proc *p, uint64_t addr, uint64_t len, int prot,
    uint64_t flags, struct vnode *vn, bool maywrite,
    void (*fn)(void *, int), void *arg)
{
	uint64_t va;
	long r;

	if ((len = len_round(len)) == 0)
		return -EINVAL;
	if ((r = kern_mlock_new_may(p, len, false)) < 0)
		return r;
	if ((r = mmap_range(p, addr, len, prot, flags | MAP_SHARED, &va)) < 0)
		return r;
	if ((r = vm_map_file_shared_lazy(p->vm, va, len, prot, vn,
	    maywrite)) < 0)
		return vm_sync(p, r);
	if (!maywrite)
		vm_map_add_flags(p->vm, va, va + len, VME_NOWRITE);
	vm_map_watch(p->vm, va, fn, arg);
	kern_mlock_new(p, va, len, false);
	return vm_sync(p, (long)va);
}

static long
mmap_file(struct thread *td, const struct sys_mmap_args *a, uint64_t type)
{
	struct file *fp = fd_get(td->proc->fdt, a->fd);
	int r;

	if (fp == NULL)
		return -EBADF;
	if (fp->vn == NULL || fp->vn->type != VREG || fp->vn->ops->read == NULL)
		return -ENODEV;
	/* As Linux's file_mmap_ok(): the range must lie within an off_t. */
	if (len_round(a->len) > MMAP_FILE_MAX ||
	    (uint64_t)a->off > MMAP_FILE_MAX - len_round(a->len))
		return -EOVERFLOW;
	if (!file_readable(fp))
		return -EACCES;
	if ((r = kcov_mmap_check(fp, a->len, (uint64_t)a->off)) < 0)
		return r;
	if (type != MAP_PRIVATE)
		return mmap_file_shared(td, a, fp);
	return mmap_file_copy(td, a, fp, 0);
}

long
sys_mmap(struct thread *td, const struct sys_mmap_args *a)
{
	uint64_t type = a->flags & MAP_TYPE;
	bool anon = (a->flags & MAP_ANONYMOUS) != 0;
	long r;

	/* As Linux: the descriptor first, and no validated anonymous map. */
	if (!anon && fd_get(td->proc->fdt, a->fd) == NULL)
		return -EBADF;
	if (a->len == 0)
		return -EINVAL;
	if (type != MAP_PRIVATE && type != MAP_SHARED &&
	    (type != MAP_SHARED_VALIDATE || anon))
		return -EINVAL;
	if (a->off & VK_PAGE_MASK)
		return -EINVAL;
	if (a->prot & ~(PROT_VALID | PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	if ((r = kern_mlock_new_may(td->proc, len_round(a->len),
	    (a->flags & MAP_LOCKED) != 0)) < 0)
		return r;
	if (!anon)
		r = mmap_file(td, a, type);
	else
		r = kern_mmap(td->proc, a->addr.va, a->len, (int)(a->prot &
		    PROT_VALID), a->flags);
	if (vk_is_err(r))
		return r;
	kern_mlock_new(td->proc, (uint64_t)r, len_round(a->len),
	    (a->flags & MAP_LOCKED) != 0);
	return vm_sync(td->proc, r);
}

/* Unmap [start, start + len), len page-rounded, with munmap's checks. */
static long
munmap_range(struct proc *p, uint64_t start, uint64_t len)
{
	struct vm_map *m = p->vm;

	if (!VK_PAGE_ALIGNED(start) || len == 0)
		return -EINVAL;
	if (!vm_map_range_user(m, start, len))
		return -EINVAL;
	kern_mm_own_claim(p, start, len);
	if (vm_map_range_has(m, start, start + len, VME_RESERVED))
		return -EINVAL;
	/* munmap(2): ENOMEM when a split needs what is not there. */
	if (!mm_may_unmap(m, start, start + len) ||
	    vm_map_room(m, vm_map_splits(m, start, start + len)) < 0)
		return -ENOMEM;
	vm_map_remove(m, start, start + len);
	return vm_sync(p, 0);
}

long
sys_munmap(struct thread *td, const struct sys_munmap_args *a)
{
	if (a->len == 0)
		return -EINVAL;
	return munmap_range(td->proc, a->addr.va, len_round(a->len));
}

/*
 * Shared mappings are the file's own pages: a tmpfs file has nothing to
 * write back, a host file's map cache is written to the host file.
 * MS_ASYNC writes too, at once: the host file is where the data must
 * land, and nothing would write it later; MS_SYNC also waits for the
 * host's disk, as fdatasync(2).  The checks are Linux's.
 */
long
sys_msync(struct thread *td, const struct sys_msync_args *a)
{
	uint64_t start = a->addr.va, end = start + len_round(a->len);
	struct vm_map *m = td->proc->vm;
	struct vnode *last = NULL;
	int r = 0;

	if (!VK_PAGE_ALIGNED(start) || (a->flags & ~(unsigned long)(MS_ASYNC |
	    MS_INVALIDATE | MS_SYNC)) || ((a->flags & MS_ASYNC) &&
	    (a->flags & MS_SYNC)))
		return -EINVAL;
	if (end < start)
		return -ENOMEM;
	if (end == start)
		return 0;
	if (!vm_map_range_mapped(m, start, end))
		return -ENOMEM;
	for (uint64_t va = start; va < end && r == 0; ) {
		struct vm_entry *e = vm_map_lookup(m, va);
		struct vnode *vn = e->obj != NULL ? e->obj->vn : NULL;

		if (vn != NULL && vn != last && vn->ops->fsync != NULL)
			r = vn->ops->fsync(vn, (a->flags & MS_SYNC) ?
			    VFS_SYNC_DATA : VFS_SYNC_CACHE);
		last = vn;
		va = e->end;
	}
	return r;
}

/* mprotect(2) does not cut a mapping that has the protection already. */
static bool
mprotect_same(const struct vm_entry *e, int prot)
{
	return e->prot == prot;
}

long
sys_mprotect(struct thread *td, const struct sys_mprotect_args *a)
{
	struct vm_map *m = td->proc->vm;
	uint64_t start = a->addr.va, len = len_round(a->len);
	struct vm_usage all, in;

	if (!VK_PAGE_ALIGNED(start))
		return -EINVAL;
	if (a->prot & ~(PROT_VALID | PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	if ((a->prot & PROT_GROWSDOWN) && (a->prot & PROT_GROWSUP))
		return -EINVAL;
	if (a->len == 0)
		return 0;
	if (len == 0 || !vm_map_range_user(m, start, len) ||
	    vm_map_range_has(m, start, start + len, VME_RESERVED))
		return -ENOMEM;
	/* Private memory made writable becomes data (mprotect_fixup()). */
	if (a->prot & PROT_WRITE) {
		vm_map_usage(m, 0, UINT64_MAX, &all);
		vm_map_usage(m, start, start + len, &in);
		if (!vm_data_fits(td->proc, all.data, in.priv - in.data))
			return -ENOMEM;
	}
	if (!vm_map_may_cut(m, start, start + len, mprotect_same,
	    (int)(a->prot & PROT_VALID)))
		return -ENOMEM;
	return vm_sync(td->proc, vm_map_protect(m, start, start + len,
	    (int)(a->prot & PROT_VALID)));
}

/* mremap's checks on its flags and lengths, as mm/mremap.c makes them. */
static int
mremap_check(const struct vm_map *m, const struct sys_mremap_args *a,
    uint64_t oldlen, uint64_t newlen)
{
	uint64_t f = a->flags;

	if (f & ~(uint64_t)(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP))
		return -EINVAL;
	if ((f & (MREMAP_FIXED | MREMAP_DONTUNMAP)) && !(f & MREMAP_MAYMOVE))
		return -EINVAL;
	/* DONTUNMAP always moves, and never resizes on the way. */
	if ((f & MREMAP_DONTUNMAP) && oldlen != newlen)
		return -EINVAL;
	if (!VK_PAGE_ALIGNED(a->old.va))
		return -EINVAL;
	if (newlen == 0 || oldlen == 0 || newlen > m->max)
		return -EINVAL;
	return 0;
}

/*
 * The new address of a move: the place MREMAP_FIXED names, or the hint
 * MREMAP_DONTUNMAP takes, which Linux checks as strictly (aligned, below
 * the top, clear of the old range) though it may go elsewhere.
 */
static int
mremap_check_new(struct proc *p, const struct sys_mremap_args *a,
    uint64_t oldlen, uint64_t newlen)
{
	const struct vm_map *m = p->vm;
	uint64_t old = a->old.va, dst = a->newaddr.va;

	if (!VK_PAGE_ALIGNED(dst) || !vm_map_range_user(m, dst, newlen))
		return -EINVAL;
	if (dst < old + oldlen && old < dst + newlen)
		return -EINVAL;
	if (!(a->flags & MREMAP_FIXED))
		return 0;
	if (dst >= m->min)
		kern_mm_own_claim(p, dst, newlen);
	if (dst < m->min || vm_map_range_has(m, dst, dst + newlen,
	    VME_RESERVED))
		return -EINVAL;
	return 0;
}

/*
 * Move [old, old + oldlen), which one entry holds, to dst, resized to
 * newlen.  keep_old (MREMAP_DONTUNMAP): the old range stays mapped with
 * its protection, reading zero, as Linux leaves a private anonymous one.
 */
static long
mremap_move(struct proc *p, uint64_t old, uint64_t oldlen, uint64_t dst,
    uint64_t newlen, bool keep_old)
{
	struct vm_entry *e = vm_map_lookup(p->vm, old);
	unsigned flags = e->flags & ~(unsigned)(VME_STACK | VME_COW);
	int prot = e->prot, r;

	if ((r = vm_map_move(p->vm, old, oldlen, dst, newlen)) < 0)
		return vm_sync(p, r);
	if (keep_old)
		r = vm_map_anon(p->vm, old, oldlen, prot, flags);
	return vm_sync(p, r < 0 ? r : (long)dst);
}

long
sys_mremap(struct thread *td, const struct sys_mremap_args *a)
{
	struct proc *p = td->proc;
	struct vm_map *m = p->vm;
	uint64_t old = a->old.va, oldlen = len_round(a->oldlen);
	uint64_t newlen = len_round(a->newlen), dst = a->newaddr.va;
	struct vm_entry *e;
	unsigned eflags;
	bool in_place;
	int prot, r;

	if ((r = mremap_check(m, a, oldlen, newlen)) < 0)
		return r;
	if ((a->flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) &&
	    (r = mremap_check_new(p, a, oldlen, newlen)) < 0)
		return r;
	if ((e = vm_map_lookup(m, old)) == NULL || (e->flags & VME_RESERVED))
		return -EFAULT;
	/* Kept apart: making room at dst below moves the map's entries. */
	prot = e->prot;
	eflags = e->flags;
	/*
	 * Staying put at the same size does nothing; shrinking in place
	 * unmaps the tail as munmap(2) would, across entries too.
	 */
	if (!(a->flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) &&
	    newlen <= oldlen) {
		if (newlen < oldlen && (r = (int)munmap_range(p, old + newlen,
		    oldlen - newlen)) < 0)
			return r;
		return (long)old;
	}
	if (!vm_map_range_user(m, old, oldlen) ||
	    !vm_map_range_one(m, old, old + oldlen))
		return -EFAULT;
	/* A locked mapping grows locked (Linux's resize_is_valid()). */
	if ((eflags & VME_LOCKED) && newlen > oldlen &&
	    (r = kern_mlock_grow_may(p, newlen - oldlen)) < 0)
		return r;
	in_place = !(a->flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) &&
	    vm_map_range_user(m, old, newlen) &&
	    vm_map_range_free(m, old + oldlen, old + newlen);
	/* A move may make three more mappings (Linux's move_vma()). */
	if (!in_place && (a->flags & MREMAP_MAYMOVE) &&
	    vm_map_count_above(m, VM_MAX_MAP_COUNT - 4))
		return -ENOMEM;
	if (a->flags & MREMAP_FIXED) {
		vm_map_remove(m, dst, dst + newlen);
	} else if (a->flags & MREMAP_DONTUNMAP) {
		if ((r = mmap_place(m, dst, newlen, 0, &dst)) < 0)
			return r;
	} else if (in_place) {
		dst = old;
	} else if (!(a->flags & MREMAP_MAYMOVE)) {
		return -ENOMEM;
	} else if ((r = vm_map_find_space(m, newlen, m->min, m->mmap_base,
	    &dst)) < 0) {
		return r;
	}
	/*
	 * The growth (a move may shrink too), and all of the copy that
	 * DONTUNMAP leaves behind.
	 */
	if ((r = vm_may_grow(p, (newlen > oldlen ? newlen - oldlen : 0) +
	    ((a->flags & MREMAP_DONTUNMAP) ? oldlen : 0), prot, eflags)) < 0)
		return r;
	return mremap_move(p, old, oldlen, dst, newlen,
	    (a->flags & MREMAP_DONTUNMAP) != 0);
}

long
sys_madvise(struct thread *td, const struct sys_madvise_args *a)
{
	struct vm_map *m = td->proc->vm;
	uint64_t start = a->addr.va, len = len_round(a->len);
	int r;

	if (!VK_PAGE_ALIGNED(start))
		return -EINVAL;
	switch (a->advice) {
	case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL:
	case MADV_WILLNEED: case MADV_DONTNEED: case MADV_FREE:
	case MADV_DONTFORK: case MADV_DOFORK: case MADV_MERGEABLE:
	case MADV_UNMERGEABLE: case MADV_HUGEPAGE: case MADV_NOHUGEPAGE:
	case MADV_DONTDUMP: case MADV_DODUMP: case MADV_WIPEONFORK:
	case MADV_KEEPONFORK: case MADV_COLD: case MADV_PAGEOUT:
	case MADV_POPULATE_READ: case MADV_POPULATE_WRITE:
		break;
	default:
		return -EINVAL;
	}
	if (a->len == 0)
		return 0;
	if (len == 0 || start + len < start)
		return -EINVAL;
	if ((a->advice == MADV_DONTNEED || a->advice == MADV_FREE) &&
	    (r = vm_map_discard(m, start, start + len)) < 0)
		return r;
	if (!vm_map_range_mapped(m, start, start + len))
		return -ENOMEM;
	return 0;
}

long
sys_brk(struct thread *td, const struct sys_brk_args *a)
{
	struct vm_map *m = td->proc->vm;
	uint64_t want = a->addr.va;
	uint64_t oldtop = VK_ROUND_UP(m->brk_cur, VK_PAGE_SIZE);
	uint64_t newtop = VK_ROUND_UP(want, VK_PAGE_SIZE);

	/* Linux answers every failure with the unchanged break. */
	if (want < m->brk_start || newtop < want || newtop > m->mmap_base)
		return (long)m->brk_cur;
	if (newtop < oldtop) {
		vm_map_remove(m, newtop, oldtop);
	} else if (newtop > oldtop) {
		if (!vm_map_range_free(m, oldtop, newtop) ||
		    vm_map_count_above(m, VM_MAX_MAP_COUNT) ||
		    kern_mlock_new_may(td->proc, newtop - oldtop, false) < 0 ||
		    vm_may_grow(td->proc, newtop - oldtop, PLAT_PROT_READ |
		    PLAT_PROT_WRITE, VME_HEAP) < 0 ||
		    vm_map_anon(m, oldtop, newtop - oldtop,
		    PLAT_PROT_READ | PLAT_PROT_WRITE, VME_HEAP) < 0)
			return (long)m->brk_cur;
		kern_mlock_new(td->proc, oldtop, newtop - oldtop, false);
		if (vm_sync(td->proc, 0) < 0)
			return (long)m->brk_cur;
	}
	m->brk_cur = want;
	return vm_sync(td->proc, (long)want);
}
