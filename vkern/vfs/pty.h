/*
 * Pseudo-terminals: /dev/ptmx makes a pair, its master the open file and
 * its slave /dev/pts/N on devpts (devpts/devpts.c), a terminal with the
 * line discipline of ldisc.c between the two.
 */
#ifndef VK_VFS_PTY_H
#define VK_VFS_PTY_H

#include <stdbool.h>
#include <stdint.h>

#include "vkern/vfs/devfs/devfs.h"

struct file;
struct proc;
struct thread;
struct tty;
struct vnode;

/* Linux's /proc/sys/kernel/pty/max: the pairs there may be at once. */
#define PTY_MAX 4096

/* The unix98 slaves' major device number. */
#define PTY_SLAVE_MAJOR 136

/* A slave's node in devpts: what chmod and chown change. */
struct pty_node {
	struct devfs_attr a;
	struct vnode *vnode;    /* while referenced, else NULL */
};

struct pty;

/*
 * Open /dev/ptmx (vn, referenced again for the file): a new pair whose
 * slave p owns.  Returns the master's file, or NULL with *errp (-ENOSPC
 * past PTY_MAX, -ENOMEM).
 */
struct file *pty_open_master(struct proc *p, struct vnode *vn,
    unsigned flags, const char *path, int *errp);

/*
 * Open the slave of pair pt through vn (referenced again for the file),
 * or through its devpts node when vn is NULL.  A session leader without
 * a terminal gets it unless flags has O_NOCTTY.  NULL with *errp: -EIO
 * while locked or after the master closed, -EBUSY with TIOCEXCL set.
 */
struct file *pty_open_slave(struct proc *p, struct pty *pt, struct vnode *vn,
    unsigned flags, int *errp);

/* The live pair of index i (its master open), or NULL. */
struct pty *pty_get(unsigned i);
/* The lowest index >= i of a live pair, or PTY_MAX. */
unsigned pty_next(unsigned i);
unsigned pty_index(const struct pty *pt);
struct pty_node *pty_node(struct pty *pt);
/* A devpts vnode holds its pair. */
void pty_ref(struct pty *pt);
void pty_rel(struct pty *pt);

/* The slave's terminal when fp is a slave, else NULL. */
struct tty *pty_slave_tty(const struct file *fp);

/* /dev/tty for a process whose terminal is t, a pty slave's. */
struct file *pty_open_ctty(struct proc *p, struct tty *t, unsigned flags,
    int *errp);

/* Whether fp is a pty master or slave. */
bool pty_is_file(const struct file *fp);

/*
 * Whether a read of fp must be made in one piece, not span by span: a
 * canonical slave's (one line) and a packet master's (one status byte).
 */
bool pty_reads_whole(const struct file *fp);

/* A read of fp that has to wait: parked, with VTIME's timeout. */
long pty_read_wait(struct thread *td, struct file *fp);

/* A terminal request on a pty master or slave. */
long pty_ioctl(struct thread *td, struct file *fp, unsigned cmd,
    uint64_t arg);

#endif
