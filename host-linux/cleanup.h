/*
 * Automatic release of host resources on every return path, as crun does.
 * Initialize to NULL or -1; hand ownership away with steal_fd()/steal_ptr().
 */
#ifndef VK_HOST_CLEANUP_H
#define VK_HOST_CLEANUP_H

#include <stdlib.h>
#include <unistd.h>

static inline void
cleanup_free_fn(void *p)
{
	free(*(void **)p);
}

static inline void
cleanup_close_fn(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

#define cleanup_free  __attribute__((cleanup(cleanup_free_fn)))
#define cleanup_close __attribute__((cleanup(cleanup_close_fn)))

static inline int
steal_fd(int *fd)
{
	int r = *fd;

	*fd = -1;
	return r;
}

#endif
