/*
 * Copying between the kernel and guest memory.
 *
 * The only way the kernel touches guest memory.  Each call translates
 * through the process's vm map to the RAM file and copies; it returns 0 or
 * -EFAULT (a hole, a protection that forbids the access, an address beyond
 * the guest's space or a range that wraps), and copyinstr also
 * -ENAMETOOLONG.  Copy once into a local, then validate the local: another
 * guest thread may change the memory in between.
 */
#ifndef VK_VM_COPYIO_H
#define VK_VM_COPYIO_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "vkern/vk.h"

struct thread;
struct vm_map;

int copyin(struct thread *td, uaddr_t src, void *dst, size_t len);
int copyout(struct thread *td, const void *src, uaddr_t dst, size_t len);

/* Copy a NUL-terminated string of at most size bytes with its NUL. */
long copyinstr(struct thread *td, uaddr_t src, char *dst, size_t size);

/* The most one read or write moves, as Linux's MAX_RW_COUNT. */
#define MAX_RW_COUNT (INT_MAX & ~(int)VK_PAGE_MASK)

/* A guest struct iovec. */
struct kiovec {
	uint64_t base, len;
};

/*
 * Copy in a versioned struct of usize bytes (clone_args, open_how) into
 * dst of ksize, as Linux's copy_struct_from_user: what the guest's is
 * short of is zero, and what it has beyond ksize must be zero, else
 * -E2BIG; -E2BIG too past a page.  Too small a usize is the caller's.
 */
int copyin_struct(struct thread *td, uaddr_t src, void *dst, size_t ksize,
    size_t usize);

/*
 * Copy in n iovecs and check them: -EINVAL for a negative length,
 * -EFAULT for a range past the user address space; lengths are cut so
 * that their sum, in *totalp, is MAX_RW_COUNT at most.  The callers
 * bound n, each with its own errno.
 */
int copyin_iov(struct thread *td, uaddr_t uiov, size_t n, struct kiovec *iov,
    uint64_t *totalp);

/*
 * One aligned 32-bit guest word that other guest threads change at the
 * same moment (a futex word).  The RAM file is shared with them, so each
 * access is a single atomic instruction on it, never a copy: fetch_u32
 * reads the word; cas_u32 stores nv if the word still holds *cur, else
 * puts what it holds in *cur and returns -EAGAIN; xop_u32 applies op
 * with arg and gives the old value.  Return 0, -EAGAIN or -EFAULT (a
 * hole, a protection that forbids the access, a misaligned address).
 */
enum uword_op { UWORD_XCHG, UWORD_ADD, UWORD_OR, UWORD_AND, UWORD_XOR };
int fetch_u32(struct thread *td, uaddr_t va, uint32_t *vp);
int cas_u32(struct thread *td, uaddr_t va, uint32_t *cur, uint32_t nv);
int xop_u32(struct thread *td, uaddr_t va, enum uword_op op, uint32_t arg,
    uint32_t *oldp);

/* The same on a map, ignoring protections: for exec and the loader. */
int vm_copyout_map(struct vm_map *m, const void *src, uint64_t dst,
    size_t len);

/* kern_text_replace (platform.h) on a map. */
int vm_text_replace(struct vm_map *m, uint64_t va, const void *old,
    const void *new, size_t len);

/*
 * Walk [va, va + len) as host spans: fn is called with each contiguous
 * piece of RAM; it returns how many bytes it used (less stops the walk) or
 * -errno.  Returns the total used, or the first error (-EFAULT for a bad
 * address before anything was used).
 */
long vm_uio(struct thread *td, uaddr_t va, size_t len, int need,
    long (*fn)(void *arg, void *hp, size_t n), void *arg);

#endif
