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

#include "vkern/platform.h"
#include "vkern/vk.h"

void
vk_log(const char *fmt, ...)
{
	char b[512];
	va_list ap;
	int n;

	n = snprintf(b, sizeof(b), "vkernel: ");
	va_start(ap, fmt);
	n += vsnprintf(b + n, sizeof(b) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(b) - 2)
		n = (int)sizeof(b) - 2;
	b[n++] = '\n';
	plat_log_write(b, (size_t)n);
}

_Noreturn void
vk_panic(const char *file, int line, const char *what)
{
	vk_log("panic: %s:%d: assertion failed: %s", file, line, what);
	plat_abort();
}

static void *
vk_nonnull(void *p)
{
	if (p == NULL) {
		vk_log("out of memory");
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
