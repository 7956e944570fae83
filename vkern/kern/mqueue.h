/*
 * POSIX message queues (mqueue.c): the limits of /proc/sys/fs/mqueue,
 * which guest root may change, and removal by name for the rest of the
 * kernel.
 */
#ifndef VK_KERN_MQUEUE_H
#define VK_KERN_MQUEUE_H

#include <stdint.h>

struct proc;

/* Linux's HARD_MSGMAX and HARD_MSGSIZEMAX: root's bounds. */
#define MQ_HARD_MSGMAX 65536
#define MQ_HARD_MSGSIZEMAX (16 * 1024 * 1024)

/* Linux's defaults; msg_max and msgsize_max bound unprivileged queues. */
struct mq_limits {
	uint64_t msg_max, msgsize_max, queues_max;
	uint64_t msg_default, msgsize_default;
};
extern struct mq_limits mq_lim;

/* mq_unlink(3) of name (no slash) by p: 0, -ENOENT or -EPERM. */
long kern_mq_unlink(struct proc *p, const char *name);

#endif
