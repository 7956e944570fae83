/*
 * What the process tests read of /proc: a whole small file, and the state
 * letter of a stat file, as ps and test harnesses read them.
 */
#ifndef PROC_COMMON_H
#define PROC_COMMON_H

#include <fcntl.h>

#include "guest.h"

/* The first size - 1 bytes of path, NUL-terminated; false if unreadable. */
static inline bool
proc_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* The state letter in the stat file at path (after the name), or 0. */
static inline char
proc_stat_state(const char *path)
{
	char buf[512], *p;

	if (!proc_read_file(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' ? p[2] : 0;
}

#endif
