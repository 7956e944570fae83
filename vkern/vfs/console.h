#ifndef VK_VFS_CONSOLE_H
#define VK_VFS_CONSOLE_H

#include <stdbool.h>

struct file;
struct vattr;

extern const struct file_ops console_fileops;

/*
 * An open file on host fd hostfd (0, 1, 2, or one --preserve-fds passes
 * in), as the host opened it, or NULL when the host has none.
 */
struct file *console_file(int hostfd);

/* What fstat() of host fd hostfd says. */
int console_getattr(int hostfd, struct vattr *va);

/*
 * A new open file on host fd hostfd, as open(2) of /proc/PID/fd/N makes
 * of a console file: flags are open's (FILE_FLAGS), and may ask only for
 * what the host fd allows (-EACCES).  NULL with *errp set on failure.
 */
struct file *console_reopen(int hostfd, unsigned flags, const char *path,
    int *errp);

/*
 * Whether console file fp keeps its own offset (one console_reopen made
 * on a host file), which lseek(2) then moves, not the host fd's.
 */
bool console_own_offset(const struct file *fp);

/*
 * /dev/tty and /dev/console: the terminal among the host's fds 0-2, or
 * NULL when there is none (open gives ENXIO, as without a controlling
 * terminal).
 */
struct file *console_open_tty(unsigned flags, const char *path);

#endif
