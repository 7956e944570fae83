/*
 * The kernel the fuzz harnesses play guest programs against
 * (fuzz_kern.c), and the means to write programs in C.
 */
#ifndef VK_TESTS_FUZZ_KERN_H
#define VK_TESTS_FUZZ_KERN_H

#include <stddef.h>
#include <stdint.h>

struct thread;
struct vnode;

/* Boot the kernel and its file tree: once, before any run. */
void fz_boot(void);

/*
 * If set, called once each call has returned, with its thread and
 * result, before the next event: a harness looks at guest memory there.
 */
extern void (*fz_after_call)(struct thread *td, long r);

/* Run pid 1 on a program in fuzz_prog.h's encoding, to its end. */
void fz_run(const uint8_t *prog, size_t n);

/*
 * fuzz_tree.c.  The clock while the tree is built and put back: earlier
 * than any run's.
 */
#define FZ_TREE_TIME 1000000000LL

/* Build the tree and note the boot's mounts, once, at boot. */
void fz_tree_boot(void);

/*
 * Have the tree and the mounts as fuzz_prog.h's FZ_FILES and the boot
 * made them (fz_run ends so); fz_make may then add to the tree for the
 * next run.
 */
void fz_tree(void);

/* Abort unless every mount is where it was mounted. */
void fz_check_mounts(void);

/*
 * The file system type of a mount of the boot whose flags, propagation
 * type or read-only differ from the boot's, or NULL.
 */
const char *fz_mounts_diff(void);

/* What path leads to now, referenced, or NULL. */
struct vnode *fz_find(const char *path);

/* The names a readdir gave; free(name) when done. */
struct fz_names {
	char (*name)[256];
	size_t n, cap;
};

/* The names dir holds, but "." and "..". */
void fz_list(struct vnode *dir, struct fz_names *nm);

/*
 * fuzz_state.c: the kernel's state outside the tree and the mounts.
 * fz_state_boot notes it, once, after the boot; fz_state_reset puts it
 * back after a run; fz_state_diff names what differs from the boot's, or
 * gives NULL.
 */
void fz_state_boot(void);
void fz_state_reset(void);
const char *fz_state_diff(void);

/*
 * Make a file (or a directory, symlink, FIFO) as root, in place of what
 * the path names, and return it referenced.
 */
struct vnode *fz_make(const char *path, uint32_t mode, const char *target,
    const void *data, size_t len);

/* A program under construction. */
struct fz_prog {
	uint8_t b[16384];
	size_t n;
};

void fz_put(struct fz_prog *p, const void *b, size_t n);
/* A system call by the first running thread; its arguments follow. */
void fz_put_call(struct fz_prog *p, unsigned nr, unsigned flags);
/* An argument of eight raw bytes. */
void fz_put_raw(struct fz_prog *p, uint64_t v);
/* A path argument: the dictionary's entry for path. */
void fz_put_path(struct fz_prog *p, const char *path);

#endif
