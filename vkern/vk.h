/*
 * Common definitions for the machine-independent kernel.
 *
 * Everything in vkern/ speaks in guest terms: guest addresses are uaddr_t,
 * results are a value or a negative Linux errno, and nothing here calls the
 * host.  The host is reached only through the hooks in platform.h.
 */
#ifndef VK_VK_H
#define VK_VK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A guest virtual address.  A one-member struct so that it can never be
 * dereferenced or mixed with a host pointer by mistake.
 */
typedef struct {
	uint64_t va;
} uaddr_t;

#define UADDR(x) ((uaddr_t){ .va = (uint64_t)(x) })

#define VK_PAGE_SIZE  4096UL
#define VK_PAGE_MASK  (VK_PAGE_SIZE - 1)
#define VK_ROUND_UP(x, a)   (((x) + (a) - 1) & ~((uint64_t)(a) - 1))
#define VK_ROUND_DOWN(x, a) ((x) & ~((uint64_t)(a) - 1))
#define VK_PAGE_ALIGNED(x)  (((x) & VK_PAGE_MASK) == 0)
#define VK_NELEM(a)         (sizeof(a) / sizeof((a)[0]))
#define VK_MIN(a, b)        ((a) < (b) ? (a) : (b))
#define VK_MAX(a, b)        ((a) > (b) ? (a) : (b))
/* The struct of type t whose member m is at p. */
#define VK_CONTAINER_OF(p, t, m) ((t *)(void *)((char *)(p) - offsetof(t, m)))

/*
 * sec seconds plus frac (0 <= frac < 10^9 / unit) units of unit ns, in
 * ns, clamped to +-VK_NS_MAX (146 years from 1970): a guest's huge time
 * means "never", and a clock reading plus a clamped time cannot overflow.
 */
#define VK_NS_MAX (INT64_MAX / 2)

static inline int64_t
vk_ns(int64_t sec, int64_t frac, int64_t unit)
{
	if (sec >= VK_NS_MAX / 1000000000)
		return VK_NS_MAX;
	if (sec <= -VK_NS_MAX / 1000000000)
		return -VK_NS_MAX;
	return sec * 1000000000 + frac * unit;
}

/* True when r is an error return: [-4095, -1], as Linux's IS_ERR_VALUE. */
static inline bool
vk_is_err(long r)
{
	return r < 0 && r >= -4095;
}

_Noreturn void vk_panic(const char *file, int line, const char *what);
/* What vk_panic said, or "" when the kernel has not panicked. */
const char *vk_panic_message(void);

/*
 * Invariants a vkernel bug could break.  Always on.  Never used on a value
 * that comes from the guest: guest input is answered with an errno.
 */
#define VK_ASSERT(c)                                                        \
	do {                                                                 \
		if (!(c))                                                    \
			vk_panic(__FILE__, __LINE__, #c);                    \
	} while (0)

/* Diagnostics on the vkernel's own stderr, prefixed with "vkernel: ". */
void vk_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A diagnostic a guest can cause, as vk_log but rate-limited (a burst of
 * lines, then one per interval), so that no guest can flood stderr; the
 * number of lines dropped is told with the next one that gets through.
 */
void vk_log_guest(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *vk_xmalloc(size_t n);
void *vk_xcalloc(size_t n, size_t sz);
void *vk_xrealloc(void *p, size_t n);

#endif
