/*
 * The platform's space, thread and event calls, handed to the backend
 * --platform chose.  One indirect call each: next to a host context
 * switch per guest stop, it costs nothing measurable.
 */
#include <errno.h>
#include <string.h>

#include "host-linux/plat_ops.h"
#include "vkern/vk.h"

static const struct plat_ops *const backends[] = {
	&ptrace_ops,
	&systrap_ops,
};

static const struct plat_ops *ops = &ptrace_ops;

static const struct plat_ops *
plat_ops_find(const char *name)
{
	for (unsigned i = 0; i < VK_NELEM(backends); i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}

bool
plat_ops_known(const char *name)
{
	return plat_ops_find(name) != NULL;
}

int
plat_ops_init(const char *name, struct vk_error **err)
{
	if ((ops = plat_ops_find(name)) == NULL) {
		ops = &ptrace_ops;
		return vk_error_make(err, 0, "unknown platform '%s'", name);
	}
	return ops->init(err);
}

const char *
plat_ops_name(void)
{
	return ops->name;
}

int
plat_space_create(void *cookie, struct arch_context *ctx,
    struct plat_space **spp, struct plat_thread **ptp,
    struct plat_space_info *info)
{
	return ops->space_create(cookie, ctx, spp, ptp, info);
}

int
plat_space_fork(struct plat_thread *from, void *cookie,
    struct arch_context *ctx, struct plat_space **spp,
    struct plat_thread **ptp)
{
	return ops->space_fork(from, cookie, ctx, spp, ptp);
}

void
plat_space_destroy(struct plat_space *sp)
{
	ops->space_destroy(sp);
}

void
plat_space_map(struct plat_space *sp, uint64_t va, uint64_t len, int prot,
    uint64_t ramoff)
{
	ops->space_map(sp, va, len, prot, ramoff);
}

void
plat_space_unmap(struct plat_space *sp, uint64_t va, uint64_t len)
{
	ops->space_unmap(sp, va, len);
}

void
plat_space_protect(struct plat_space *sp, uint64_t va, uint64_t len,
    int prot)
{
	ops->space_protect(sp, va, len, prot);
}

int
plat_space_flush(struct plat_space *sp)
{
	return ops->space_flush(sp);
}

int
plat_space_own_release(struct plat_space *sp)
{
	return ops->space_own_release != NULL ? ops->space_own_release(sp) :
	    -ENOSYS;
}

int
plat_space_own_reclaim(struct plat_space *sp)
{
	return ops->space_own_reclaim != NULL ? ops->space_own_reclaim(sp) :
	    -ENOSYS;
}

int64_t
plat_space_cputime(struct plat_space *sp, int64_t *userp)
{
	return ops->space_cputime(sp, userp);
}

int
plat_thread_create(struct plat_thread *from, void *cookie,
    struct arch_context *ctx, struct plat_thread **ptp)
{
	return ops->thread_create(from, cookie, ctx, ptp);
}

void
plat_thread_destroy(struct plat_thread *pt)
{
	ops->thread_destroy(pt);
}

int
plat_thread_run(struct plat_thread *pt)
{
	return ops->thread_run(pt);
}

void
plat_thread_regs_load(struct plat_thread *pt)
{
	if (ops->thread_regs_load != NULL)
		ops->thread_regs_load(pt);
}

long
plat_thread_fpu_get(struct plat_thread *pt, void *buf, size_t size)
{
	return ops->thread_fpu_get(pt, buf, size);
}

int
plat_thread_fpu_set(struct plat_thread *pt, const void *buf, size_t size)
{
	return ops->thread_fpu_set(pt, buf, size);
}

void
plat_thread_yield(struct plat_thread *pt)
{
	ops->thread_yield(pt);
}

void
plat_thread_interrupt(struct plat_thread *pt)
{
	ops->thread_interrupt(pt);
}

int64_t
plat_thread_cputime(struct plat_thread *pt, int64_t *userp)
{
	return ops->thread_cputime(pt, userp);
}

int
plat_event_wait(struct plat_event *ev, int64_t deadline_ns)
{
	return ops->event_wait(ev, deadline_ns);
}
