/*
 * A chain of nested directories far deeper than a path can be long:
 * nothing the kernel does with it may take stack in proportion to its
 * depth.  The chain is made one level at a time with mkdirat and openat
 * relative to the level above, as a hostile program would, and then:
 *
 *  - getcwd and readlink of /proc/self/cwd give the path while it fits
 *    in PATH_MAX, ERANGE for a buffer one byte short, ENAMETOOLONG once
 *    it does not fit, and the path again after climbing back up;
 *  - moving the top directory beneath its own bottom is EINVAL (the
 *    check walks every parent);
 *  - "remove": rmdir from the bottom up, as rm -rf does;
 *    "keep": leave it, close every descriptor and push it out of any
 *    name cache, so that releasing the chain and the exit free it;
 *    "walk": the chain is already there (made by "keep" through a
 *    read-write bind, say); walk down it and make a file at the bottom,
 *    which an overlay copies up through every level, then remove that.
 *
 * usage: fs_deep [-u] [DEPTH [remove|keep|walk [TOP]]]
 *   DEPTH defaults to 300000; TOP (default /tmp/vk-fs_deep.PID) is the
 *   top directory, made by the program except in "walk"; -u drops to uid
 *   and gid 65534 first when run as root.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>

#include "guest.h"

#define DEEP_PATH_MAX 4096

static char top[256];
static long depth = 300000;

/* getcwd(2) itself: glibc's getcwd(3) walks ".." when the kernel cannot. */
static long
raw_getcwd(char *buf, size_t size)
{
	return syscall(SYS_getcwd, buf, size);
}

/* The path of level i, or false when it does not fit in PATH_MAX. */
static bool
level_path(long i, char *buf)
{
	size_t n = strlen(top);

	if (n + 2 * (size_t)i >= DEEP_PATH_MAX)
		return false;
	memcpy(buf, top, n);
	for (long k = 0; k < i; k++) {
		buf[n++] = '/';
		buf[n++] = 'd';
	}
	buf[n] = '\0';
	return true;
}

/* Make the chain below top; returns the bottom level's descriptor. */
static int
build(void)
{
	int fd = CHECK_OK(open(top, O_RDONLY | O_DIRECTORY));

	for (long i = 1; fd >= 0 && i <= depth; i++) {
		int next;

		if (mkdirat(fd, "d", 0755) < 0 ||
		    (next = openat(fd, "d", O_RDONLY | O_DIRECTORY)) < 0) {
			CHECK(false, "level %ld of %ld", i, depth);
			close(fd);
			return -1;
		}
		close(fd);
		fd = next;
	}
	return fd;
}

/* Walk down an existing chain; returns the bottom level's descriptor. */
static int
descend(void)
{
	int fd = CHECK_OK(open(top, O_RDONLY | O_DIRECTORY));

	for (long i = 1; fd >= 0 && i <= depth; i++) {
		int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);

		close(fd);
		if (!CHECK(next >= 0, "walk down to level %ld", i))
			return -1;
		fd = next;
	}
	return fd;
}

/* Climb n levels from fd (closed); the directory there. */
static int
climb(int fd, long n)
{
	static char ups[3 * 1000 + 1];

	while (fd >= 0 && n > 0) {
		long k = n < 1000 ? n : 1000;
		int up;

		for (long j = 0; j < k; j++)
			memcpy(ups + 3 * j, "../", 3);
		ups[3 * k - 1] = '\0';
		up = openat(fd, ups, O_RDONLY | O_DIRECTORY);
		CHECK(up >= 0, "climb %ld levels", k);
		close(fd);
		fd = up;
		n -= k;
	}
	return fd;
}

/* cwd at level i: what getcwd and /proc/self/cwd say of it. */
static void
check_cwd(int fd, long i)
{
	char want[DEEP_PATH_MAX], got[DEEP_PATH_MAX + 1];
	bool fits = level_path(i, want);
	long n;

	if (CHECK_OK(fchdir(fd)) < 0)
		return;
	if (!fits) {
		CHECK_ERR(raw_getcwd(got, sizeof(got)), ENAMETOOLONG);
		CHECK_ERR(readlink("/proc/self/cwd", got, sizeof(got)),
		    ENAMETOOLONG);
		return;
	}
	n = CHECK_OK(raw_getcwd(got, sizeof(got)));
	CHECK(n == (long)strlen(want) + 1 && strcmp(got, want) == 0,
	    "getcwd at level %ld: %ld bytes", i, n);
	CHECK_ERR(raw_getcwd(got, strlen(want)), ERANGE);
	n = CHECK_OK(readlink("/proc/self/cwd", got, sizeof(got)));
	CHECK(n == (long)strlen(want) && memcmp(got, want, (size_t)n) == 0,
	    "/proc/self/cwd at level %ld", i);
}

/*
 * From the bottom (fd), climb to the last level whose path fits and the
 * one below it, and check the cwd at both; then at the bottom.  Returns
 * the bottom's descriptor again.
 */
static int
check_paths(int bottom)
{
	long fit = (long)(DEEP_PATH_MAX - 1 - strlen(top)) / 2;
	int fd;

	check_cwd(bottom, depth);
	if (fit + 1 > depth)
		return bottom;
	fd = climb(dup(bottom), depth - fit - 1);
	if (fd >= 0)
		check_cwd(fd, fit + 1);
	fd = climb(fd, 1);
	if (fd >= 0)
		check_cwd(fd, fit);
	close(fd);
	CHECK_OK(chdir("/"));
	return bottom;
}

/* rename(2) of the top beneath its own bottom: EINVAL, not a cycle. */
static void
check_rename_into_self(int bottom)
{
	CHECK_ERR(renameat(AT_FDCWD, top, bottom, "x"), EINVAL);
}

/* rmdir from the bottom up; closes bottom. */
static void
remove_chain(int bottom)
{
	int fd = bottom;

	for (long i = depth; fd >= 0 && i > 0; i--) {
		int up = openat(fd, "..", O_RDONLY | O_DIRECTORY);

		if (!CHECK(up >= 0 && unlinkat(up, "d", AT_REMOVEDIR) == 0,
		    "remove level %ld", i)) {
			close(up);
			break;
		}
		close(fd);
		fd = up;
	}
	close(fd);
	CHECK_OK(rmdir(top));
}

/*
 * Look up more names than a name cache keeps, so that one that holds a
 * level of the chain lets go of it.
 */
static void
flush_names(void)
{
	struct stat st;
	char name[300];

	for (int i = 0; i < 8192; i++) {
		snprintf(name, sizeof(name), "%s.absent%d", top, i);
		CHECK_ERR(stat(name, &st), ENOENT);
	}
}

/* A file at the bottom of an existing chain, then removed again. */
static void
walk_and_write(void)
{
	int fd = descend(), f;

	if (fd < 0)
		return;
	f = CHECK_OK(openat(fd, "f", O_WRONLY | O_CREAT | O_EXCL, 0644));
	CHECK_EQ(write(f, "x", 1), 1);
	close(f);
	CHECK_OK(unlinkat(fd, "f", 0));
	CHECK_OK(mkdirat(fd, "e", 0755));
	CHECK_OK(unlinkat(fd, "e", AT_REMOVEDIR));
	close(fd);
}

static void
drop_root(void)
{
	if (getuid() != 0)
		return;
	CHECK_OK(setgroups(0, NULL));
	CHECK_OK(setresgid(65534, 65534, 65534));
	CHECK_OK(setresuid(65534, 65534, 65534));
}

int
main(int argc, char **argv)
{
	const char *mode = "remove";
	int bottom;

	if (argc > 1 && strcmp(argv[1], "-u") == 0) {
		drop_root();
		argc--;
		argv++;
	}
	if (argc > 1)
		depth = strtol(argv[1], NULL, 10);
	if (argc > 2)
		mode = argv[2];
	if (argc > 3)
		snprintf(top, sizeof(top), "%s", argv[3]);
	else
		snprintf(top, sizeof(top), "/tmp/vk-fs_deep.%d", getpid());
	if (strcmp(mode, "walk") == 0) {
		walk_and_write();
		return guest_done();
	}
	if (CHECK_OK(mkdir(top, 0755)) < 0 || (bottom = build()) < 0)
		return guest_done();
	bottom = check_paths(bottom);
	check_rename_into_self(bottom);
	if (strcmp(mode, "keep") == 0) {
		close(bottom);
		flush_names();
	} else {
		remove_chain(bottom);
	}
	return guest_done();
}
