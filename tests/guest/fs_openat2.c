/*
 * openat2: the open_how checks, and each RESOLVE_* restriction on a small
 * tree in /tmp: d/sub/f, d/rel -> sub/f, d/up -> ../x, d/abs -> /etc,
 * d/abs_in -> /sub/f (inside d when d is the root), x.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest.h"

/* The UAPI's, written out: musl's headers do not carry linux/openat2.h. */
struct open_how {
	uint64_t flags, mode, resolve;
};
#define RESOLVE_NO_XDEV        0x01
#define RESOLVE_NO_MAGICLINKS  0x02
#define RESOLVE_NO_SYMLINKS    0x04
#define RESOLVE_BENEATH        0x08
#define RESOLVE_IN_ROOT        0x10
#define RESOLVE_CACHED         0x20
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

static long
openat2_(int dirfd, const char *path, uint64_t flags, uint64_t resolve)
{
	struct open_how how = { .flags = flags, .resolve = resolve };
	long r;
	int tries = 0;

	/*
	 * openat2(2): with RESOLVE_BENEATH or RESOLVE_IN_ROOT, a ".." may give
	 * EAGAIN when a rename or mount anywhere on the system raced it; the
	 * caller is to retry.  The host's other tests do both, so a native run
	 * sees it.  So may RESOLVE_CACHED, whose cached walk cannot trust what
	 * it saw then (an O_CREAT with it gives EAGAIN every time).
	 */
	do
		r = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	while (r < 0 && errno == EAGAIN && (resolve & (RESOLVE_BENEATH |
	    RESOLVE_IN_ROOT | RESOLVE_CACHED)) != 0 && ++tries < 1000);
	return r;
}

/* The open file is the one path names (same inode). */
static bool
same_file(long fd, const char *path)
{
	struct stat a, b;

	if (fd < 0 || fstat((int)fd, &a) < 0 || stat(path, &b) < 0)
		return false;
	close((int)fd);
	return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

static void
test_how(int dfd)
{
	struct open_how how = { .flags = O_RDONLY };
	uint8_t big[sizeof(how) + 8] = { 0 };

	CHECK_ERR(syscall(SYS_openat2, dfd, "sub", &how, sizeof(how) - 1),
	    EINVAL);
	memcpy(big, &how, sizeof(how));
	CHECK_OK(syscall(SYS_openat2, dfd, "sub", big, sizeof(big)));
	big[sizeof(how)] = 1;
	CHECK_ERR(syscall(SYS_openat2, dfd, "sub", big, sizeof(big)), E2BIG);
	how.resolve = 0x1000;
	CHECK_ERR(syscall(SYS_openat2, dfd, "sub", &how, sizeof(how)),
	    EINVAL);
	CHECK_ERR(openat2_(dfd, "sub", O_RDONLY, RESOLVE_BENEATH |
	    RESOLVE_IN_ROOT), EINVAL);
	how = (struct open_how){ .flags = O_RDONLY, .mode = 0644 };
	CHECK_ERR(syscall(SYS_openat2, dfd, "sub", &how, sizeof(how)),
	    EINVAL);
	CHECK_ERR(openat2_(dfd, "new", O_CREAT | O_WRONLY, RESOLVE_CACHED),
	    EAGAIN);
	CHECK(same_file(openat2_(dfd, "sub/f", O_RDONLY, RESOLVE_CACHED),
	    "sub/f"), "RESOLVE_CACHED opens what is there");
	CHECK_ERR(syscall(SYS_openat2, dfd, "sub", (void *)16, sizeof(how)),
	    EFAULT);
}

static void
test_beneath(int dfd)
{
	CHECK(same_file(openat2_(dfd, "sub/f", O_RDONLY, RESOLVE_BENEATH),
	    "sub/f"), "beneath: a path inside");
	CHECK(same_file(openat2_(dfd, "sub/../sub/./f", O_RDONLY,
	    RESOLVE_BENEATH), "sub/f"), "beneath: .. that stays inside");
	CHECK(same_file(openat2_(dfd, "rel", O_RDONLY, RESOLVE_BENEATH),
	    "sub/f"), "beneath: a relative link inside");
	CHECK_ERR(openat2_(dfd, "..", O_RDONLY, RESOLVE_BENEATH), EXDEV);
	CHECK_ERR(openat2_(dfd, "sub/../../x", O_RDONLY, RESOLVE_BENEATH),
	    EXDEV);
	CHECK_ERR(openat2_(dfd, "up", O_RDONLY, RESOLVE_BENEATH), EXDEV);
	CHECK_ERR(openat2_(dfd, "abs", O_RDONLY, RESOLVE_BENEATH), EXDEV);
	CHECK_ERR(openat2_(dfd, "/etc", O_RDONLY, RESOLVE_BENEATH), EXDEV);
	/* Without the restriction, the same paths open. */
	CHECK(same_file(openat2_(dfd, "up", O_RDONLY, 0), "../x"),
	    "no restriction: up opens x");
}

static void
test_in_root(int dfd)
{
	CHECK(same_file(openat2_(dfd, "/sub/f", O_RDONLY, RESOLVE_IN_ROOT),
	    "sub/f"), "in root: an absolute path from dirfd");
	CHECK(same_file(openat2_(dfd, "abs_in", O_RDONLY, RESOLVE_IN_ROOT),
	    "sub/f"), "in root: an absolute link from dirfd");
	CHECK(same_file(openat2_(dfd, "../../sub/f", O_RDONLY,
	    RESOLVE_IN_ROOT), "sub/f"), "in root: .. stops at dirfd");
	CHECK_ERR(openat2_(dfd, "up", O_RDONLY, RESOLVE_IN_ROOT), ENOENT);
	CHECK_ERR(openat2_(dfd, "abs", O_RDONLY | O_DIRECTORY,
	    RESOLVE_IN_ROOT), ENOENT);
}

static void
test_links_and_mounts(int dfd)
{
	char fdlink[64];
	int pfd;

	CHECK_ERR(openat2_(dfd, "rel", O_RDONLY, RESOLVE_NO_SYMLINKS), ELOOP);
	CHECK_OK(close((int)CHECK_OK(openat2_(dfd, "rel", O_PATH | O_NOFOLLOW,
	    RESOLVE_NO_SYMLINKS))));
	CHECK(same_file(openat2_(dfd, "sub/f", O_RDONLY, RESOLVE_NO_SYMLINKS),
	    "sub/f"), "no symlinks: a path without any");
	pfd = (int)CHECK_OK(openat(dfd, "sub/f", O_RDONLY));
	snprintf(fdlink, sizeof(fdlink), "/proc/self/fd/%d", pfd);
	CHECK(same_file(openat2_(AT_FDCWD, fdlink, O_RDONLY, 0), "sub/f"),
	    "a magic link opens its file");
	CHECK_ERR(openat2_(AT_FDCWD, fdlink, O_RDONLY, RESOLVE_NO_MAGICLINKS),
	    ELOOP);
	/* /proc/self itself is an ordinary symlink. */
	CHECK_OK(close((int)CHECK_OK(openat2_(AT_FDCWD, "/proc/self/status",
	    O_RDONLY, RESOLVE_NO_MAGICLINKS))));
	close(pfd);
	/* /proc is a mount of its own. */
	CHECK_ERR(openat2_(AT_FDCWD, "/proc/self/status", O_RDONLY,
	    RESOLVE_NO_XDEV), EXDEV);
	CHECK(same_file(openat2_(dfd, "sub/f", O_RDONLY, RESOLVE_NO_XDEV),
	    "sub/f"), "no xdev: a path on one mount");
}

int
main(void)
{
	char top[64], d[80], path[128];
	int dfd;

	snprintf(top, sizeof(top), "/tmp/vk-openat2-%d", (int)getpid());
	snprintf(d, sizeof(d), "%s/d", top);
	CHECK_OK(mkdir(top, 0755));
	CHECK_OK(mkdir(d, 0755));
	snprintf(path, sizeof(path), "%s/sub", d);
	CHECK_OK(mkdir(path, 0755));
	snprintf(path, sizeof(path), "%s/sub/f", d);
	close((int)CHECK_OK(open(path, O_CREAT | O_WRONLY, 0644)));
	snprintf(path, sizeof(path), "%s/x", top);
	close((int)CHECK_OK(open(path, O_CREAT | O_WRONLY, 0644)));
	CHECK_OK(chdir(d));
	CHECK_OK(symlink("sub/f", "rel"));
	CHECK_OK(symlink("../x", "up"));
	CHECK_OK(symlink("/etc", "abs"));
	CHECK_OK(symlink("/sub/f", "abs_in"));
	dfd = (int)CHECK_OK(open(".", O_RDONLY | O_DIRECTORY));
	test_how(dfd);
	test_beneath(dfd);
	test_in_root(dfd);
	test_links_and_mounts(dfd);
	close(dfd);
	unlink("rel");
	unlink("up");
	unlink("abs");
	unlink("abs_in");
	unlink("sub/f");
	rmdir("sub");
	unlink("../x");
	CHECK_OK(chdir("/"));
	rmdir(d);
	rmdir(top);
	return guest_done();
}
