/*
 * Set-up errors: one line, what failed, on what, why.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host-linux/error.h"

int
vk_error_make(struct vk_error **err, int errnum, const char *fmt, ...)
{
	struct vk_error *e = calloc(1, sizeof(*e));
	va_list ap;

	if (e == NULL)
		abort();
	e->errnum = errnum;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	*err = e;
	return errnum > 0 ? -errnum : -1;
}

void
vk_error_print(struct vk_error *err)
{
	if (err->errnum > 0)
		fprintf(stderr, "vkernel: %s: %s\n", err->msg,
		    strerror(err->errnum));
	else
		fprintf(stderr, "vkernel: %s\n", err->msg);
	free(err);
}
