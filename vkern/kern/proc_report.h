#ifndef VK_KERN_PROC_REPORT_H
#define VK_KERN_PROC_REPORT_H

#include <stddef.h>

/*
 * Hands emit one line per guest thread (one per process without threads:
 * a zombie, vkernel's init): ids, name, scheduler state, what a parked
 * thread waits for (its continuation and channel, as addresses) and its
 * pending and blocked signals.  Only reads kernel state.
 */
typedef void proc_report_fn(void *arg, const char *line, size_t len);
void proc_report(proc_report_fn *emit, void *arg);

#endif
