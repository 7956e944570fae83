/*
 * KCOV for guests: /sys/kernel/debug/kcov with Linux's ABI
 * (Documentation/dev-tools/kcov.rst), so that a coverage-guided fuzzer
 * running as a guest is guided by vkernel's own coverage.
 *
 * A build made with -Dkcov=true compiles vkern/ with
 * -fsanitize-coverage=trace-pc: every basic block calls
 * __sanitizer_cov_trace_pc() (kcov_pc.c, not instrumented itself), which
 * appends the block's address to the area of the thread whose system call
 * is running, if that thread enabled KCOV.  The addresses are offsets in
 * the vkernel executable (as Linux's are without the KASLR offset), the
 * same from run to run, which addr2line -e vkernel turns into lines.
 * Without -Dkcov the file does not exist.
 *
 * As on Linux: an open gives a kcov of its own; KCOV_INIT_TRACE sets the
 * area's size in 64-bit words and makes it; the guest maps it
 * MAP_SHARED, size * 8 bytes at offset 0; KCOV_ENABLE with KCOV_TRACE_PC
 * binds it to the calling thread, until KCOV_DISABLE from that thread or
 * its exit.  Word 0 of the area counts the PCs that follow it.
 * KCOV_TRACE_CMP and KCOV_REMOTE_ENABLE give ENOTSUPP, as Linux does for
 * a mode its build lacks.
 */
#ifndef VK_KERN_KCOV_H
#define VK_KERN_KCOV_H

#include <stdbool.h>
#include <stdint.h>

struct file;
struct thread;
struct vnode;

enum kcov_mode { KCOV_OFF, KCOV_READY, KCOV_ON };

struct kcov {
	int refs;               /* its file's, and an enabled thread's */
	enum kcov_mode mode;
	uint64_t size;          /* the area, in words */
	volatile uint64_t **pages;   /* the kernel's view of each area page */
	struct vnode *vn;       /* the area: a tmpfs file the guest maps */
	struct thread *td;      /* the thread it is enabled for */
};

#define KCOV_WORDS_PER_PAGE 512

/* Whether this build collects coverage (-Dkcov=true). */
extern const bool kcov_built;

/* The kcov of the thread whose system call runs now, or NULL. */
extern struct kcov *kcov_active;

/* Whether vn is /sys/kernel/debug/kcov (sysfs.c). */
bool sysfs_is_kcov(const struct vnode *vn);

/* A new kcov file opened with flags; NULL and *errp on failure. */
struct file *kcov_open(unsigned flags, const char *path, int *errp);
bool kcov_is_file(const struct file *fp);
/* The KCOV_* ioctls of fp, a kcov file, by td. */
long kcov_ioctl(struct thread *td, struct file *fp, unsigned cmd,
    uint64_t arg);
/*
 * Whether fp may be mapped len bytes at off: 0 for any file but a kcov
 * one, which takes only its whole area at 0 (else -EINVAL).
 */
int kcov_mmap_check(const struct file *fp, uint64_t len, uint64_t off);
/* td is going: what it enabled ends. */
void kcov_thread_exit(struct thread *td);

#endif
