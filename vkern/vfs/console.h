#ifndef VK_VFS_CONSOLE_H
#define VK_VFS_CONSOLE_H

struct file;

extern const struct file_ops console_fileops;

/* An open file on host fd 0, 1 or 2, or NULL when the host has none. */
struct file *console_file(int hostfd);

#endif
