/*
 * benchfile.h - the scratch file the tmpfs benchmarks write and read: a
 * new file of FILE_SIZE bytes in CHUNK pieces, made with O_EXCL so an
 * existing file is never clobbered, and unlinked on every way out.
 */
#ifndef BENCHFILE_H
#define BENCHFILE_H

#include "bench.h"

#include <fcntl.h>
#include <unistd.h>

#define CHUNK		(64 * 1024)
#define FILE_SIZE	(64LL << 20)
#define CHUNKS		(FILE_SIZE / CHUNK)

static char buf[CHUNK] __attribute__((aligned(4096)));
static char path[4096];

static void __attribute__((noreturn))
die_unlink(const char *what)
{
	int e = errno;

	unlink(path);
	errno = e;
	bench_die(what);
}

/* Makes DIR/NAME.PID, read-write: its descriptor (the program dies else). */
static int
benchfile_create(const char *dir, const char *name)
{
	int fd;

	snprintf(path, sizeof(path), "%s/%s.%ld", dir, name, (long)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		bench_die(path);
	return fd;
}

#endif
