/*
 * The RAM file's page allocator.
 *
 * Guest memory is carved out of the RAM file in extents: one contiguous run
 * of file offsets per mapping, so that a whole region can be mapped into a
 * stub with one call and its pages faulted in by the host.  The offset
 * space is larger than the memory limit (the file is sparse), so
 * fragmentation of offsets never turns into a false out-of-memory; what is
 * bounded is the number of bytes allocated, against --mem.
 */
#ifndef VK_VM_RAM_H
#define VK_VM_RAM_H

#include <stdint.h>

#define VM_NORAM UINT64_MAX

/*
 * Manage offsets [0, space) of the RAM file with at most limit bytes
 * allocated at once.  Both are page multiples.
 */
void vm_ram_init(uint64_t space, uint64_t limit);

/* Allocate len bytes (a page multiple).  Returns 0 or -ENOMEM. */
int vm_ram_alloc(uint64_t len, uint64_t *offp);

/*
 * Free a range allocated before (or part of one).  Its host pages go back
 * before memory is allocated again, and it reads zero when it is.
 */
void vm_ram_free(uint64_t off, uint64_t len);

/* Give the host back now what frees left for the next allocation. */
void vm_ram_flush(void);

/* Try to grow the extent ending at off + len in place by extra bytes. */
int vm_ram_extend(uint64_t off, uint64_t len, uint64_t extra);

/*
 * The kernel's own objects share the budget (kmem.c): charge len bytes,
 * or -ENOMEM when they do not fit beside what is allocated and charged.
 * A forced charge is taken even past the limit, for objects that cannot
 * be refused; the limit then refuses what comes next.
 */
int vm_ram_charge(uint64_t len);
void vm_ram_charge_force(uint64_t len);
void vm_ram_uncharge(uint64_t len);

/* Guest and file pages allocated, and kernel object bytes charged. */
uint64_t vm_ram_used(void);
uint64_t vm_ram_kmem(void);
uint64_t vm_ram_limit(void);

/*
 * vm.overcommit_memory, as Linux's (proc_sys_vm(5)): how anonymous
 * memory is charged against --mem, which holds in every mode for the
 * pages in use.  GUESS (the default) charges large and MAP_NORESERVE
 * private mappings when their pages are first touched (vm_anon.c) and
 * refuses one writable mapping larger than --mem; ALWAYS refuses none;
 * NEVER charges every mapping in full when it is made, as before
 * overcommit, and ignores MAP_NORESERVE.  Guest root may change it.
 */
#define VM_OVERCOMMIT_GUESS  0
#define VM_OVERCOMMIT_ALWAYS 1
#define VM_OVERCOMMIT_NEVER  2
int vm_overcommit(void);
void vm_overcommit_set(int mode);

/* Number of free extents: for tests of coalescing. */
unsigned vm_ram_nfree(void);

#endif
