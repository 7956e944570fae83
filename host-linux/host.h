/*
 * The platform's own internal interfaces, between its files.
 */
#ifndef VK_HOST_HOST_H
#define VK_HOST_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host-linux/error.h"

struct host_config {
	uint64_t mem;
	const char *trace_path;   /* NULL: stderr */
	bool trace;
};

/* ramfile.c */
int ram_init(uint64_t guest_space, struct vk_error **err);
int ram_fd(void);
/* The platform's control pages, after the guest's part of the file. */
void *ram_ctl_page(unsigned slot, uint64_t *offp);
#define RAM_CTL_SLOTS 256

/* ptrace.c */
int ptrace_init(struct vk_error **err);

/*
 * console.c: remember the host terminal's settings (before the lock-down)
 * and put them back, which exit does by itself.
 */
void console_init(void);
void console_restore(void);

/* hostinfo.c */
int hostinfo_init(struct vk_error **err);
int trace_open(const char *path, struct vk_error **err);

/* lockdown.c */
int lockdown_install(struct vk_error **err);

#endif
