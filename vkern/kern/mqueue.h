/*
 * POSIX message queues (mqueue.c): the limits of /proc/sys/fs/mqueue,
 * which guest root may change, and removal by name for the rest of the
 * kernel.
 */
#ifndef VK_KERN_MQUEUE_H
#define VK_KERN_MQUEUE_H

#include <stddef.h>
#include <stdint.h>

struct file;
struct mqueue;
struct proc;
struct vattr;

/* Linux's HARD_MSGMAX and HARD_MSGSIZEMAX: root's bounds. */
#define MQ_HARD_MSGMAX 65536
#define MQ_HARD_MSGSIZEMAX (16 * 1024 * 1024)

/* Linux's defaults; msg_max and msgsize_max bound unprivileged queues. */
struct mq_limits {
	uint64_t msg_max, msgsize_max, queues_max;
	uint64_t msg_default, msgsize_default;
};
extern struct mq_limits mq_lim;

/*
 * The sandbox is gone: so are the queues' names, as an IPC namespace's
 * queues go with it; a queue still held goes with its last holder.
 */
void mq_gone(void);

/* mq_unlink(3) of name (no slash) by p: 0, -ENOENT or -EPERM. */
long kern_mq_unlink(struct proc *p, const char *name);

/*
 * For the mqueue file system.  mq_get() finds a queue by name and holds
 * it (as an open descriptor does) until mq_put(); mq_nth() gives the
 * queue after the first n, unheld, or NULL past the last.
 */
struct mqueue *mq_get(const char *name);
void mq_put(struct mqueue *q);
struct mqueue *mq_nth(uint64_t n);
const char *mq_name(const struct mqueue *q);
uint64_t mq_ino(const struct mqueue *q);
/* Its file's attributes; nlink 0 once its name is gone. */
void mq_getattr(const struct mqueue *q, struct vattr *va);
/* Change what mask says (VA_MODE, VA_UID, VA_GID, times), checked. */
void mq_setattr(struct mqueue *q, const struct vattr *va, unsigned mask);
/* What its file reads as from off: the QSIZE line.  Returns the count. */
long mq_status(struct mqueue *q, void *buf, size_t len, uint64_t off);
/*
 * A new queue of the default attributes for p, as mq_open(name,
 * O_CREAT | O_EXCL, mode) would make (EEXIST, ENOSPC, EMFILE, ENOMEM),
 * held for the caller too.
 */
long kern_mq_create(struct proc *p, const char *name, unsigned mode,
    struct mqueue **qp);
/* The queue's name goes (mq_unlink, permission checked already). */
void mq_unname(struct mqueue *q);
/* Make fp, opened on a queue's file, the queue's descriptor. */
void mq_file_attach(struct file *fp, struct mqueue *q);

#endif
