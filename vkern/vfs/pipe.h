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

bool file_is_pipe(const struct file *fp);
/* What a thread parks on to wait for the pipe to change. */
const void *pipe_chan(const struct file *fp);
long pipe_fcntl_size(struct file *fp, bool set, uint64_t arg);
long pipe_nread(struct file *fp);
/* Copy out what a read would get, leaving it in the pipe (tee). */
long pipe_peek(struct file *fp, void *buf, size_t len);

#endif
