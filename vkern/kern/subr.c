/*
 * Small services every part of the kernel uses: logging, allocation that
 * cannot fail, and the panic behind VK_ASSERT.
 *
 * Allocation failure in the kernel's own heap aborts, as in crun's
 * xmalloc: what a guest makes the kernel allocate is charged to --mem
 * first (kmem.h), so running out here is a vkernel bug or a host in
 * trouble.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vkern/platform.h"
#include "vkern/vk.h"

/* As Linux's printk_ratelimit: 10 lines, then at most 10 each 5 s. */
#define LOG_BURST       10
#define LOG_INTERVAL_NS (5 * 1000000000LL)

static void __attribute__((format(printf, 2, 0)))
log_v(bool guest, const char *fmt, va_list ap)
{
	char b[512];
	int n;

	n = snprintf(b, sizeof(b), "vkernel: ");
	n += vsnprintf(b + n, sizeof(b) - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof(b) - 2)
		n = (int)sizeof(b) - 2;
	b[n++] = '\n';
	if (guest)
		plat_guest_log_write(b, (size_t)n);
	else
		plat_log_write(b, (size_t)n);
}

void
vk_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(false, fmt, ap);
	va_end(ap);
}

void
vk_log_guest(const char *fmt, ...)
{
	static int64_t begin;
	static unsigned printed;
	static unsigned long dropped;
	int64_t now = plat_clock_ns(CLOCK_MONOTONIC);
	char b[64];
	va_list ap;

	if (printed == 0 || now - begin >= LOG_INTERVAL_NS) {
		begin = now;
		printed = 0;
	}
	if (printed >= LOG_BURST) {
		dropped++;
		return;
	}
	printed++;
	if (dropped > 0) {
		plat_guest_log_write(b, (size_t)snprintf(b, sizeof(b),
		    "vkernel: %lu guest-caused messages not shown\n",
		    dropped));
		dropped = 0;
	}
	va_start(ap, fmt);
	log_v(true, fmt, ap);
	va_end(ap);
}

/* Why the kernel gave up, for the platform's crash report. */
static char panic_msg[512];

const char *
vk_panic_message(void)
{
	return panic_msg;
}

_Noreturn void
vk_panic(const char *file, int line, const char *what)
{
	snprintf(panic_msg, sizeof(panic_msg),
	    "panic: %s:%d: assertion failed: %s", file, line, what);
	vk_log("%s", panic_msg);
	plat_abort();
}

static void *
vk_nonnull(void *p)
{
	if (p == NULL) {
		snprintf(panic_msg, sizeof(panic_msg), "out of memory");
		vk_log("%s", panic_msg);
		plat_abort();
	}
	return p;
}

void *
vk_xmalloc(size_t n)
{
	return vk_nonnull(malloc(n));
}

void *
vk_xcalloc(size_t n, size_t sz)
{
	return vk_nonnull(calloc(n, sz));
}

void *
vk_xrealloc(void *p, size_t n)
{
	return vk_nonnull(realloc(p, n));
}
