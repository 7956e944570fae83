/*
 * The backends behind vkern/platform.h's spaces, threads and events: one
 * ops table each, chosen once at start-up by --platform.  The plat_*
 * calls of those families go through the table (plat_ops.c); every entry
 * keeps the contract platform.h gives the call of the same name.
 */
#ifndef VK_HOST_PLAT_OPS_H
#define VK_HOST_PLAT_OPS_H

#include <stdbool.h>

#include "host-linux/error.h"
#include "vkern/platform.h"

struct plat_ops {
	const char *name;
	/* Before the first space, before the lock-down. */
	int (*init)(struct vk_error **err);
	int (*space_create)(void *cookie, struct arch_context *ctx,
	    struct plat_space **spp, struct plat_thread **ptp,
	    struct plat_space_info *info);
	int (*space_fork)(struct plat_thread *from, void *cookie,
	    struct arch_context *ctx, struct plat_space **spp,
	    struct plat_thread **ptp);
	void (*space_destroy)(struct plat_space *sp);
	void (*space_map)(struct plat_space *sp, uint64_t va, uint64_t len,
	    int prot, uint64_t ramoff);
	void (*space_unmap)(struct plat_space *sp, uint64_t va, uint64_t len);
	void (*space_protect)(struct plat_space *sp, uint64_t va,
	    uint64_t len, int prot);
	int (*space_flush)(struct plat_space *sp);
	/* NULL for a backend that never has an own range. */
	int (*space_own_release)(struct plat_space *sp);
	int (*space_own_reclaim)(struct plat_space *sp);
	int64_t (*space_cputime)(struct plat_space *sp, int64_t *userp);
	int (*thread_create)(struct plat_thread *from, void *cookie,
	    struct arch_context *ctx, struct plat_thread **ptp);
	void (*thread_destroy)(struct plat_thread *pt);
	int (*thread_run)(struct plat_thread *pt);
	/* NULL for a backend whose stops always load every register. */
	void (*thread_regs_load)(struct plat_thread *pt);
	long (*thread_fpu_get)(struct plat_thread *pt, void *buf, size_t size);
	int (*thread_fpu_set)(struct plat_thread *pt, const void *buf,
	    size_t size);
	void (*thread_yield)(struct plat_thread *pt);
	void (*thread_interrupt)(struct plat_thread *pt);
	int64_t (*thread_cputime)(struct plat_thread *pt, int64_t *userp);
	int (*event_wait)(struct plat_event *ev, int64_t deadline_ns);
};

extern const struct plat_ops ptrace_ops;
extern const struct plat_ops systrap_ops;

/* Whether there is a backend called name. */
bool plat_ops_known(const char *name);

/* Choose the backend called name and initialise it. */
int plat_ops_init(const char *name, struct vk_error **err);

/* The backend chosen, for --stats. */
const char *plat_ops_name(void);

#endif
