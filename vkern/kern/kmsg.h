/*
 * The kernel's log, as /dev/kmsg shows it: records of one line each,
 * "PRIORITY,SEQUENCE,MICROSECONDS,-;TEXT\n" (Linux's
 * Documentation/ABI/testing/dev-kmsg), the last KMSG_RECORDS kept.  An
 * open /dev/kmsg reads one record a read(2), from the oldest kept on;
 * its offset is the sequence number of the next.
 */
#ifndef VK_KERN_KMSG_H
#define VK_KERN_KMSG_H

#include <stddef.h>
#include <stdint.h>

struct file;
struct vnode;

#define KMSG_ERR  3
#define KMSG_INFO 6
#define KMSG_USER 1    /* the facility of records written to /dev/kmsg */

/* Forget every record; times count from now (the sandbox's start). */
void kmsg_reset(void);

/* Append a kernel record of level (KMSG_ERR...), cut to its line. */
void kmsg_printf(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Open /dev/kmsg, whose node is vn (the file takes a reference). */
struct file *kmsg_open(struct vnode *vn, unsigned flags, const char *path);

#endif
