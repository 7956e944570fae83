/*
 * Advisory file locks (vfs_lock.c): fcntl's POSIX record and OFD locks,
 * and flock's.
 */
#ifndef VK_VFS_LOCK_H
#define VK_VFS_LOCK_H

#include "vkern/vk.h"

struct fdtable;
struct file;
struct thread;

/* F_GETLK, F_SETLK, F_SETLKW and their F_OFD_ twins; uarg: struct flock. */
long lf_fcntl(struct thread *td, struct file *fp, int cmd, uaddr_t uarg);
/* flock(2)'s operation op on fp. */
long lf_flock(struct thread *td, struct file *fp, int op);
/* fp's fd in t closes: t's POSIX locks on the file go. */
void lf_fd_close(const struct fdtable *t, struct file *fp);
/* fp's last reference goes: its OFD locks and flock go. */
void lf_file_close(struct file *fp);

#endif
