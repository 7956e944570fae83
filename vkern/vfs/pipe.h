#ifndef VK_VFS_PIPE_H
#define VK_VFS_PIPE_H

#include <stdbool.h>
#include <stdint.h>

struct file;
struct thread;
struct vnode;

/*
 * Open FIFO vn: the fd, -ENXIO (a non-blocking writer with no reader),
 * or -EPARKED until a peer opens the other end.
 */
long fifo_open(struct thread *td, struct vnode *vn, unsigned flags,
    const char *path);

/*
 * The FIFO vnode a /proc/PID/fd link to pipe file fp leads to
 * (referenced): the pipe's own for a FIFO, one made now for a pipe from
 * pipe2.  Returns 0.
 */
int pipe_vnode(struct file *fp, struct vnode **vpp);

/* st_dev of pipes, as Linux's pipefs has its own. */
#define PIPEFS_DEV 0x0c

#define PIPE_PACKET_MAX 4096    /* PIPE_BUF: an O_DIRECT packet's most */
/* F_SETPIPE_SZ's most (/proc/sys/fs/pipe-max-size). */
#define PIPE_MAX_SIZE   1048576

bool file_is_pipe(const struct file *fp);
/* Whether a write (or read) of fp moves packets, one per call. */
bool pipe_packets(struct file *fp, bool write);
/* What a thread parks on to wait for the pipe to change. */
const void *pipe_chan(const struct file *fp);
long pipe_fcntl_size(struct file *fp, bool set, uint32_t arg);
long pipe_nread(struct file *fp);
/* Copy out what a read would get, leaving it in the pipe (tee). */
long pipe_peek(struct file *fp, void *buf, size_t len);

#endif
