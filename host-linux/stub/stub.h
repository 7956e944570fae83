/*
 * The stub's fixed layout, shared by the stub's assembly and the platform.
 *
 * A stub is a tiny static program without libc.  Its address space holds
 * its one code page at STUB_BASE, the batch page above it and the host's
 * vdso; everything below STUB_BASE (less the vdso) is the guest's.
 */
#ifndef VK_HOST_STUB_H
#define VK_HOST_STUB_H

#define STUB_BASE        0x7ffb00000000
#define STUB_SYSCALL1    (STUB_BASE + 0x100)   /* syscall; int3 */
#define STUB_BATCH       (STUB_BASE + 0x200)   /* run the batch page */
#define STUB_BATCH_PAGE  (STUB_BASE + 0x1000)  /* read-only, from the RAM file */
#define STUB_END         (STUB_BASE + 0x2000)

#define STUB_RAM_FD      3     /* the RAM file, in the stub */
#define STUB_EXE_FD      4     /* the stub's own image, until exec */

/* One batch entry: the syscall number and six arguments, 64 bytes. */
#define STUB_BATCH_ENTRY 64
#define STUB_BATCH_MAX   (4096 / STUB_BATCH_ENTRY)

#endif
