/*
 * Attacks on host files from inside: DIR is a host directory the driver
 * made, seen through the default root (the host's /, read-only under the
 * in-memory overlay), with DIR/ro bound on /ro read-only and DIR/rw bound
 * on /rw read-write.  The guest writes, renames, links and changes the
 * canary DIR/canary and creates in DIR/out (the overlay takes it all), is
 * refused every change under /ro (EROFS), and tries to leave /rw through
 * "..", symlinks to DIR/out (relative and absolute: followed in the
 * guest's tree, they reach the overlay, not the host), hard links and
 * renames across the mount (EXDEV), openat2's RESOLVE_BENEATH (EXDEV),
 * and a thread that swaps a symlink and a directory under a name while
 * another creates files through it.  The driver then checks on the host
 * that DIR/canary, DIR/ro and DIR/out are as they were.  Once as the user
 * it starts as, once more as uid 65534 (with names of its own).
 * Usage: esc_files DIR
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "../guest/guest.h"

#define NR_openat2	437
#define RESOLVE_BENEATH	0x08

struct open_how {
	uint64_t flags, mode, resolve;
};

static const char *dir;
static char tag[16];

static const char *
path(const char *fmt, const char *a)
{
	static char buf[4][512];
	static unsigned n;
	char *b = buf[n++ % 4];

	snprintf(b, sizeof(buf[0]), fmt, a, tag);
	return b;
}

static int
put(const char *p, const char *text, int flags)
{
	int fd = open(p, O_WRONLY | flags, 0666);

	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* The overlay takes every change to the host's tree; none reaches it. */
static void
default_root(void)
{
	const char *canary = path("%s/canary", dir);
	struct timeval tv[2] = { { 1, 0 }, { 1, 0 } };
	char buf[16] = "";
	int fd;

	CHECK_OK(put(canary, "changed", O_TRUNC));
	fd = open(canary, O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 7 &&
	    memcmp(buf, "changed", 7) == 0, "the overlay keeps the write");
	if (fd >= 0)
		close(fd);
	if (getuid() == 0) {
		CHECK_OK(chmod(canary, 04777));
		CHECK_OK(chown(canary, 65534, 65534));
		CHECK_OK(utimes(canary, tv));
		CHECK_OK(truncate(canary, 1 << 20));
	}
	CHECK_OK(put(path("%s/out/new%s", dir), "new", O_CREAT | O_EXCL));
	CHECK_OK(mkdir(path("%s/out/dir%s", dir), 0777));
	CHECK_OK(symlink("/etc/passwd", path("%s/out/sym%s", dir)));
	CHECK_OK(link(path("%s/out/new%s", dir), path("%s/out/hl%s", dir)));
	CHECK_OK(rename(canary, path("%s/out/moved%s", dir)));
	CHECK_OK(rename(path("%s/out/moved%s", dir), canary));
}

/* Nothing under a read-only bind changes. */
static void
ro_bind(void)
{
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };

	CHECK_ERR(open("/ro/f", O_WRONLY), EROFS);
	CHECK_ERR(open("/ro/f", O_RDWR | O_TRUNC), EROFS);
	CHECK_ERR(open(path("/ro/new%s%s", ""), O_CREAT | O_WRONLY, 0666),
	    EROFS);
	CHECK_ERR(mkdir("/ro/d", 0777), EROFS);
	CHECK_ERR(unlink("/ro/f"), EROFS);
	CHECK_ERR(rename("/ro/f", "/ro/g"), EROFS);
	CHECK_ERR(symlink("f", "/ro/s"), EROFS);
	CHECK_ERR(link("/ro/f", "/ro/l"), EROFS);
	CHECK_ERR(chmod("/ro/f", 04777), EROFS);
	CHECK_ERR(truncate("/ro/f", 0), EROFS);
	CHECK_ERR(utimensat(AT_FDCWD, "/ro/f", ts, 0), EROFS);
	CHECK_ERR(mknod("/ro/n", S_IFIFO | 0666, 0), EROFS);
	if (getuid() == 0)
		CHECK_ERR(chown("/ro/f", 65534, 65534), EROFS);
}

/* Ways out of the read-write bind lead into the guest's tree, or fail. */
static void
rw_bind(void)
{
	struct open_how how = { O_CREAT | O_WRONLY, 0666, RESOLVE_BENEATH };
	int fd;

	CHECK_OK(put(path("/rw/f%s%s", ""), "rw", O_CREAT | O_TRUNC));
	CHECK_OK(symlink("../out", path("/rw/rel%s%s", "")));
	CHECK_OK(symlink(path("%s/out", dir), path("/rw/abs%s%s", "")));
	/* Followed in the guest's tree: /out does not exist there, and
	 * DIR/out is the overlay's. */
	CHECK_ERR(put(path("/rw/rel%s/x%s", tag), "x", O_CREAT), ENOENT);
	CHECK_OK(put(path("/rw/abs%s/x%s", tag), "x", O_CREAT));
	CHECK_OK(put(path("/rw/..%s/out/dots%s", dir), "x", O_CREAT));
	CHECK_ERR(link(path("/rw/f%s%s", ""), path("%s/out/hl2%s", dir)),
	    EXDEV);
	CHECK_ERR(rename(path("/rw/f%s%s", ""), path("%s/out/mv%s", dir)),
	    EXDEV);
	CHECK_ERR(link("/ro/f", path("/rw/hl%s%s", "")), EXDEV);
	fd = open("/rw", O_DIRECTORY | O_RDONLY);
	CHECK(fd >= 0, "open /rw");
	CHECK_ERR(syscall(NR_openat2, fd, path("../%s/out/o2%s", dir + 1),
	    &how, sizeof(how)), EXDEV);
	CHECK_ERR(syscall(NR_openat2, fd, path("rel%s/o2%s", tag), &how,
	    sizeof(how)), EXDEV);
	if (fd >= 0)
		close(fd);
}

static volatile bool racing;
static char race_dir[512], race_sym[512];

/* Swaps a directory and a symlink to DIR/out under one name. */
static void *
swapper(void *arg)
{
	(void)arg;
	while (racing)
		syscall(SYS_renameat2, AT_FDCWD, race_dir, AT_FDCWD, race_sym,
		    2 /* RENAME_EXCHANGE */);
	return NULL;
}

static void
rw_race(bool relative)
{
	const char *how = relative ? "rel" : "abs";
	char target[512], file[600];
	struct timespec t0, t;
	pthread_t th;
	int n = 0;

	snprintf(race_dir, sizeof(race_dir), "/rw/race%s%s", how, tag);
	snprintf(race_sym, sizeof(race_sym), "/rw/racesym%s%s", how, tag);
	snprintf(target, sizeof(target), relative ? "../out" : "%s/out", dir);
	snprintf(file, sizeof(file), "%s/f", race_dir);
	CHECK_OK(mkdir(race_dir, 0777));
	CHECK_OK(symlink(target, race_sym));
	racing = true;
	if (!CHECK(pthread_create(&th, NULL, swapper, NULL) == 0, "thread"))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int fd = open(file, O_CREAT | O_WRONLY | O_NOFOLLOW, 0666);

		if (fd >= 0) {
			close(fd);
			unlink(file);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (++n < 20000 && t.tv_sec - t0.tv_sec < 1);
	racing = false;
	pthread_join(th, NULL);
}

static void
all_tests(void)
{
	static int pass;

	/* Names of each pass's own: both may run as the same user. */
	snprintf(tag, sizeof(tag), ".%d", pass++);
	default_root();
	ro_bind();
	rw_bind();
	rw_race(true);
	rw_race(false);
}

int
main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	dir = argv[1];
	return guest_main_twice(all_tests);
}
