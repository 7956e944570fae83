#ifndef VK_VFS_CONSOLE_H
#define VK_VFS_CONSOLE_H

struct file;

extern const struct file_ops console_fileops;

/* An open file on host fd 0, 1 or 2, or NULL when the host has none. */
struct file *console_file(int hostfd);

/*
 * /dev/tty and /dev/console: the terminal among the host's fds 0-2, or
 * NULL when there is none (open gives ENXIO, as without a controlling
 * terminal).
 */
struct file *console_open_tty(unsigned flags, const char *path);

#endif
