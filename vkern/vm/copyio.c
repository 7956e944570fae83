/*
 * copyin/copyout: guest memory through the kernel's own page tables.
 *
 * A copy walks the vm map one entry at a time and moves bytes between the
 * RAM file mapping and the kernel buffer with memcpy.  There is no host
 * system call on this path.  A fault half-way leaves what was copied so
 * far, as Linux's copy_to_user does, and reports -EFAULT.  A process
 * that has exited has no map left, and every copy faults.
 */
#include <errno.h>
#include <string.h>

#include "vkern/kern/proc.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"
#include "vkern/vm/vm_map.h"
#include "vkern/vm/vm_ram.h"

static int
span_check(uint64_t va, size_t len, uint64_t max)
{
	if (va + len < va || va + len > max)
		return -EFAULT;
	return 0;
}

static int
copy_map(struct vm_map *m, uint64_t va, void *kbuf, size_t len, int need,
    bool out)
{
	char *k = kbuf;

	if (m == NULL || span_check(va, len, m->max) < 0)
		return -EFAULT;
	while (len > 0) {
		void *hp;
		uint64_t n;

		if (vm_map_hostptr(m, va, len, need, &hp, &n) < 0)
			return -EFAULT;
		if (out)
			memcpy(hp, k, n);
		else
			memcpy(k, hp, n);
		k += n;
		va += n;
		len -= n;
	}
	return 0;
}

int
copyin(struct thread *td, uaddr_t src, void *dst, size_t len)
{
	return copy_map(td->proc->vm, src.va, dst, len, PLAT_PROT_READ,
	    false);
}

int
copyout(struct thread *td, const void *src, uaddr_t dst, size_t len)
{
	return copy_map(td->proc->vm, dst.va, (void *)src, len,
	    PLAT_PROT_WRITE, true);
}

/* The host address of td's aligned word at va, for one atomic access. */
static int
uword(struct thread *td, uaddr_t va, int need, uint32_t **wp)
{
	struct vm_map *m = td->proc->vm;
	void *hp;
	uint64_t n;

	if (m == NULL || (va.va & 3) != 0 || span_check(va.va, 4, m->max) < 0 ||
	    vm_map_hostptr(m, va.va, 4, need, &hp, &n) < 0)
		return -EFAULT;
	*wp = hp;
	return 0;
}

int
fetch_u32(struct thread *td, uaddr_t va, uint32_t *vp)
{
	uint32_t *w;
	int r;

	if ((r = uword(td, va, PLAT_PROT_READ, &w)) < 0)
		return r;
	*vp = __atomic_load_n(w, __ATOMIC_SEQ_CST);
	return 0;
}

int
cas_u32(struct thread *td, uaddr_t va, uint32_t *cur, uint32_t nv)
{
	uint32_t *w;
	int r;

	if ((r = uword(td, va, PLAT_PROT_READ | PLAT_PROT_WRITE, &w)) < 0)
		return r;
	if (!__atomic_compare_exchange_n(w, cur, nv, false, __ATOMIC_SEQ_CST,
	    __ATOMIC_SEQ_CST))
		return -EAGAIN;
	return 0;
}

int
xop_u32(struct thread *td, uaddr_t va, enum uword_op op, uint32_t arg,
    uint32_t *oldp)
{
	uint32_t *w;
	int r;

	if ((r = uword(td, va, PLAT_PROT_READ | PLAT_PROT_WRITE, &w)) < 0)
		return r;
	switch (op) {
	case UWORD_XCHG:
		*oldp = __atomic_exchange_n(w, arg, __ATOMIC_SEQ_CST);
		break;
	case UWORD_ADD:
		*oldp = __atomic_fetch_add(w, arg, __ATOMIC_SEQ_CST);
		break;
	case UWORD_OR:
		*oldp = __atomic_fetch_or(w, arg, __ATOMIC_SEQ_CST);
		break;
	case UWORD_AND:
		*oldp = __atomic_fetch_and(w, arg, __ATOMIC_SEQ_CST);
		break;
	case UWORD_XOR:
		*oldp = __atomic_fetch_xor(w, arg, __ATOMIC_SEQ_CST);
		break;
	}
	return 0;
}

int
vm_copyout_map(struct vm_map *m, const void *src, uint64_t dst, size_t len)
{
	return copy_map(m, dst, (void *)src, len, 0, true);
}

int
copyin_iov(struct thread *td, uaddr_t uiov, size_t n, struct kiovec *iov,
    uint64_t *totalp)
{
	uint64_t total = 0;
	int r;

	if ((r = copyin(td, uiov, iov, n * sizeof(*iov))) < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if ((int64_t)iov[i].len < 0)
			return -EINVAL;
	/*
	 * As Linux: a range past the user address space is EFAULT, and the
	 * lengths are cut so that they add up to MAX_RW_COUNT at most.
	 */
	for (size_t i = 0; i < n; i++) {
		if (iov[i].len > ARCH_TASK_SIZE ||
		    iov[i].base > ARCH_TASK_SIZE - iov[i].len)
			return -EFAULT;
		iov[i].len = VK_MIN(iov[i].len, MAX_RW_COUNT - total);
		total += iov[i].len;
	}
	*totalp = total;
	return 0;
}

int
copyin_struct(struct thread *td, uaddr_t src, void *dst, size_t ksize,
    size_t usize)
{
	uint8_t extra[64];
	int r;

	if (usize > VK_PAGE_SIZE)
		return -E2BIG;
	memset(dst, 0, ksize);
	if ((r = copyin(td, src, dst, VK_MIN(ksize, usize))) < 0)
		return r;
	for (size_t off = ksize; off < usize; off += sizeof(extra)) {
		size_t n = VK_MIN(sizeof(extra), usize - off);

		if ((r = copyin(td, UADDR(src.va + off), extra, n)) < 0)
			return r;
		for (size_t i = 0; i < n; i++)
			if (extra[i] != 0)
				return -E2BIG;
	}
	return 0;
}

long
copyinstr(struct thread *td, uaddr_t src, char *dst, size_t size)
{
	struct vm_map *m = td->proc->vm;
	uint64_t va = src.va;
	size_t done = 0;

	if (m == NULL)
		return -EFAULT;
	while (done < size) {
		void *hp;
		uint64_t n;
		char *nul;

		if (va >= m->max ||
		    vm_map_hostptr(m, va, size - done, PLAT_PROT_READ, &hp,
		    &n) < 0)
			return -EFAULT;
		nul = memchr(hp, '\0', n);
		if (nul != NULL) {
			memcpy(dst + done, hp, (size_t)(nul - (char *)hp) + 1);
			return (long)(done + (size_t)(nul - (char *)hp));
		}
		memcpy(dst + done, hp, n);
		done += n;
		va += n;
	}
	return -ENAMETOOLONG;
}

long
vm_uio(struct thread *td, uaddr_t va, size_t len, int need,
    long (*fn)(void *arg, void *hp, size_t n), void *arg)
{
	struct vm_map *m = td->proc->vm;
	uint64_t a = va.va;
	long total = 0;

	if (m == NULL || span_check(a, len, m->max) < 0)
		return -EFAULT;
	while (len > 0) {
		void *hp;
		uint64_t n;
		long r;

		if (vm_map_hostptr(m, a, len, need, &hp, &n) < 0)
			return total > 0 ? total : -EFAULT;
		r = fn(arg, hp, n);
		if (r < 0)
			return total > 0 ? total : r;
		total += r;
		if ((uint64_t)r < n)
			break;
		a += n;
		len -= n;
	}
	return total;
}

int
vm_text_replace(struct vm_map *m, uint64_t va, const void *old,
    const void *new, size_t len)
{
	struct vm_entry *e;
	char *hp;
	int r;

	if (m == NULL || len == 0 || va >= m->max ||
	    len > VK_PAGE_SIZE - (va & VK_PAGE_MASK))
		return -EFAULT;
	e = vm_map_lookup(m, va);
	if (e == NULL || (e->flags & (VME_RESERVED | VME_SHARED)) ||
	    e->ramoff == VM_NORAM ||
	    (e->prot & (PLAT_PROT_EXEC | PLAT_PROT_WRITE)) != PLAT_PROT_EXEC)
		return -EFAULT;
	hp = (char *)plat_ram_base() + e->ramoff + (va - e->start);
	if (memcmp(hp, old, len) != 0)
		return -EAGAIN;
	if (new == NULL)
		return 0;
	if (e->obj != NULL) {
		/* Shared with a file's cache or a fork: a copy of its own. */
		if (!(e->flags & VME_COW))
			return -EFAULT;
		if ((r = vm_map_cow(m, va)) < 0)
			return r;
		e = vm_map_lookup(m, va);
		hp = (char *)plat_ram_base() + e->ramoff + (va - e->start);
	}
	memcpy(hp, new, len);
	return 0;
}

int
kern_text_replace(void *cookie, uint64_t va, const void *old,
    const void *new, size_t len)
{
	struct thread *td = cookie;

	return vm_text_replace(td->proc->vm, va, old, new, len);
}
