/*
 * The kernel's own memory, charged to the sandbox.
 *
 * Every object a guest can make the kernel allocate (pipe buffers, socket
 * queues, file system names and inodes, epoll items, queued signals,
 * timers, map entries, processes...) is charged to the same budget as the
 * guest's pages, so that --mem bounds both, as a Linux memory cgroup
 * charges kernel memory with user pages.  An allocation that does not fit
 * fails, and its caller answers the guest with Linux's error there
 * (ENOMEM, ENOBUFS, EAGAIN, ENOSPC).
 *
 * The caller keeps the size it asked for and gives it back on free: the
 * charge is what malloc spends on that size, so that an object's charge
 * comes back exactly when it goes.
 */
#ifndef VK_KMEM_H
#define VK_KMEM_H

#include <stddef.h>
#include <stdint.h>

#define KM_ZERO  0x1    /* zero the memory, as calloc */
#define KM_FORCE 0x2    /* never refused: charged even past the limit */
#define KM_FS    0x4    /* a file system's: may outlive every process */

/*
 * Allocate n bytes charged to the sandbox.  Returns NULL when they do not
 * fit (never with KM_FORCE).  Free with kmem_free(p, n, flags), with the
 * same n and the same KM_FS bit.
 */
void *kmem_alloc(size_t n, int flags);

/*
 * Resize p (of oldn bytes, or NULL) to newn bytes.  Returns NULL and
 * leaves p as it was when newn does not fit.  KM_ZERO zeroes the bytes
 * past oldn.
 */
void *kmem_realloc(void *p, size_t oldn, size_t newn, int flags);

void kmem_free(void *p, size_t n, int flags);

/* A charged copy of s; kmem_strfree gives it back. */
char *kmem_strdup(const char *s, int flags);
void kmem_strfree(char *s, int flags);

/* What an allocation of n bytes is charged. */
size_t kmem_size(size_t n);

/*
 * Give the host back what the heap keeps of freed objects, when the
 * charge has come down far enough from its peak to be worth a walk.
 */
void kmem_trim(void);

/* Bytes charged now, for the file systems (KM_FS) or the rest (0). */
uint64_t kmem_charged(int flags);

/*
 * The sandbox is starting (kmem_mark) or over (kmem_check): every
 * process's objects are gone by then, so what is charged outside the file
 * systems must be what it was at the start.  kmem_check logs a leak, and
 * in test builds makes it fatal.
 */
void kmem_mark(void);
void kmem_check(void);

#endif
