/*
 * Verifies open_tree(2) and move_mount(2): a directory copied with
 * OPEN_TREE_CLONE is an O_PATH file that shows nowhere in mountinfo
 * until move_mount attaches it, where its files then are; a second
 * move_mount of the same file moves the attached mount, and one after
 * it was unmounted is EINVAL; a copy closed without attaching leaves
 * nothing behind; an open_tree without OPEN_TREE_CLONE is a plain O_PATH
 * file; bad flags, a from path that is no mount's root and a to path
 * that is no directory are EINVAL.  Copies are made and closed, attached
 * and unmounted, 20,000 times or as many as argv[1] says: under vkernel
 * the suite runs 200,000 in a --mem of 32 MiB too, which a copy left
 * behind by each round would fill.  As an unprivileged user (also when
 * not root natively) the copy and the move are EPERM, the plain
 * open_tree works.  Natively it runs in a mount namespace of its own
 * (private, so nothing reaches the host's mounts).
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "guest.h"

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x4
#endif

static long rounds = 20000;
static char base[64], src[96], sub[96], dst[96], dst2[96];

static int
open_tree_(int dfd, const char *path, unsigned flags)
{
	return (int)syscall(SYS_open_tree, dfd, path, flags);
}

static long
move_mount_(int fdfd, const char *from, int tdfd, const char *to,
    unsigned flags)
{
	return syscall(SYS_move_mount, fdfd, from, tdfd, to, flags);
}

/* A copy of dir's mount, attached on to. */
static long
attach(int fd, const char *to)
{
	return move_mount_(fd, "", AT_FDCWD, to, MOVE_MOUNT_F_EMPTY_PATH);
}

/* Whether /proc/self/mountinfo has a mount at path. */
static bool
mounted_at(const char *path)
{
	static char buf[65536];
	char want[128];
	ssize_t n, got = 0;
	int fd = open("/proc/self/mountinfo", O_RDONLY);

	if (fd < 0)
		return false;
	while ((n = read(fd, buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	snprintf(want, sizeof(want), " %s ", path);
	return strstr(buf, want) != NULL;
}

static int
mountinfo_lines(void)
{
	char c;
	int n = 0, fd = open("/proc/self/mountinfo", O_RDONLY);

	while (fd >= 0 && read(fd, &c, 1) == 1)
		n += c == '\n';
	if (fd >= 0)
		close(fd);
	return n;
}

static bool
has_file(const char *dir, const char *name)
{
	struct stat st;

	return stat(guest_join(dir, name), &st) == 0;
}

static void
test_bind(void)
{
	int fd;

	fd = CHECK_OK(open_tree_(AT_FDCWD, src,
	    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
	if (fd < 0)
		return;
	CHECK((fcntl(fd, F_GETFL) & O_PATH) != 0, "the copy is O_PATH");
	CHECK(fcntl(fd, F_GETFD) == FD_CLOEXEC, "OPEN_TREE_CLOEXEC");
	CHECK(!mounted_at(dst) && !mounted_at(src), "detached: not shown");
	CHECK_OK(attach(fd, dst));
	CHECK(mounted_at(dst), "attached: shown at dst");
	CHECK(has_file(dst, "f"), "the directory's file through the bind");
	/* The same directory: what is made in one shows in the other. */
	close(open(guest_join(dst, "g"), O_CREAT | O_WRONLY, 0600));
	CHECK(has_file(src, "g"), "a file made through the bind");
	unlink(guest_join(src, "g"));
	/* Attached, the file names the mount: a second move moves it. */
	CHECK_OK(attach(fd, dst2));
	CHECK(mounted_at(dst2) && !mounted_at(dst), "moved to dst2");
	CHECK(has_file(dst2, "f") && !has_file(dst, "f"), "files moved");
	close(fd);
	CHECK(mounted_at(dst2), "attached, the mount outlives the file");
	CHECK_OK(guest_umount2(dst2, 0));
	CHECK(!has_file(dst2, "f"), "unmounted");

	/*
	 * Unmounted, its file has no mount to move: EINVAL.  (The file
	 * holds the mount: only MNT_DETACH takes it away while it is open.)
	 */
	fd = CHECK_OK(open_tree_(AT_FDCWD, src, OPEN_TREE_CLONE));
	if (fd < 0)
		return;
	CHECK_OK(attach(fd, dst));
	CHECK_ERR(guest_umount2(dst, 0), EBUSY);
	CHECK_OK(guest_umount2(dst, MNT_DETACH));
	CHECK_ERR(attach(fd, dst), EINVAL);
	CHECK(!mounted_at(dst), "not attached twice");
	close(fd);
}

static void
test_detached(void)
{
	int n = mountinfo_lines(), fd, fd2;

	CHECK_OK(guest_mount("vkt", sub, "tmpfs", 0, NULL));
	fd = CHECK_OK(open_tree_(AT_FDCWD, src,
	    OPEN_TREE_CLONE | AT_RECURSIVE));
	fd2 = CHECK_OK(open_tree_(AT_FDCWD, sub, OPEN_TREE_CLONE));
	CHECK_EQ(mountinfo_lines(), n + 1);
	close(fd);
	close(fd2);
	CHECK_OK(guest_umount2(sub, 0));
	CHECK_EQ(mountinfo_lines(), n);
	CHECK(!mounted_at(sub), "nothing left at sub");
}

static void
test_errors(void)
{
	char buf[4], file[128];
	int fd;

	snprintf(file, sizeof(file), "%s/f", src);
	CHECK_ERR(open_tree_(AT_FDCWD, src, 0x80000000u), EINVAL);
	CHECK_ERR(open_tree_(AT_FDCWD, src, AT_RECURSIVE), EINVAL);
	CHECK_ERR(open_tree_(AT_FDCWD, "/nonexistent/vkmapi",
	    OPEN_TREE_CLONE), ENOENT);
	CHECK_ERR(open_tree_(-5, "x", 0), EBADF);
	CHECK_ERR(open_tree_(AT_FDCWD, (const char *)8, 0), EFAULT);
	CHECK_ERR(move_mount_(AT_FDCWD, src, AT_FDCWD,
	    dst, 0x1000), EINVAL);
	/* src is no mount's root. */
	CHECK_ERR(move_mount_(AT_FDCWD, src, AT_FDCWD,
	    dst, 0), EINVAL);
	fd = CHECK_OK(open_tree_(AT_FDCWD, src, OPEN_TREE_CLONE));
	if (fd >= 0) {
		/* "" without MOVE_MOUNT_F_EMPTY_PATH names nothing. */
		CHECK_ERR(move_mount_(fd, "", AT_FDCWD,
		    dst, 0), ENOENT);
		CHECK_ERR(attach(fd, file), EINVAL);
		CHECK_ERR(move_mount_(fd, "", AT_FDCWD, (const char *)8,
		    MOVE_MOUNT_F_EMPTY_PATH), EFAULT);
		CHECK_ERR(read(fd, buf, 1), EBADF);
		close(fd);
	}
	CHECK(!mounted_at(dst), "nothing attached");
}

/* Copies made and dropped, attached and unmounted, rounds times. */
static void
test_rounds(void)
{
	long r;

	for (r = 0; r < rounds; r++) {
		int fd = open_tree_(AT_FDCWD, src, r % 2 == 0 ?
		    OPEN_TREE_CLONE | AT_RECURSIVE : OPEN_TREE_CLONE);

		if (fd < 0) {
			CHECK(false, "open_tree, round %ld", r);
			break;
		}
		if (r % 2 == 1 && attach(fd, dst) != 0) {
			CHECK(false, "attach, round %ld", r);
			close(fd);
			break;
		}
		close(fd);
		if (r % 2 == 1 && guest_umount2(dst, 0) != 0) {
			CHECK(false, "unmount, round %ld", r);
			break;
		}
	}
	CHECK_EQ(r, rounds);
}

/* A plain open_tree is anyone's; a copy or a move needs privilege. */
static void
test_unprivileged(const void *arg)
{
	int fd;

	(void)arg;
	fd = CHECK_OK(open_tree_(AT_FDCWD, src, OPEN_TREE_CLOEXEC));
	if (fd >= 0) {
		CHECK((fcntl(fd, F_GETFL) & O_PATH) != 0, "O_PATH");
		CHECK(fcntl(fd, F_GETFD) == FD_CLOEXEC, "OPEN_TREE_CLOEXEC");
		CHECK_ERR(move_mount_(fd, "", AT_FDCWD,
		    dst, MOVE_MOUNT_F_EMPTY_PATH), EPERM);
		close(fd);
	}
	CHECK_ERR(open_tree_(AT_FDCWD, src, OPEN_TREE_CLONE), EPERM);
	CHECK_ERR(open_tree_(AT_FDCWD, src, OPEN_TREE_CLONE | AT_RECURSIVE),
	    EPERM);
	CHECK_ERR(move_mount_(AT_FDCWD, "/proc", AT_FDCWD, src, 0), EPERM);
}

int
main(int argc, char **argv)
{
	int fd;

	if (argc > 1)
		rounds = atol(argv[1]);
	snprintf(base, sizeof(base), "/tmp/vkmapi.%d", getpid());
	snprintf(src, sizeof(src), "%s/src", base);
	snprintf(sub, sizeof(sub), "%s/src/sub", base);
	snprintf(dst, sizeof(dst), "%s/dst", base);
	snprintf(dst2, sizeof(dst2), "%s/dst2", base);
	CHECK_OK(mkdir(base, 0755));
	CHECK_OK(mkdir(src, 0755));
	CHECK_OK(mkdir(sub, 0755));
	CHECK_OK(mkdir(dst, 0755));
	CHECK_OK(mkdir(dst2, 0755));
	fd = CHECK_OK(open(guest_join(src, "f"), O_CREAT | O_WRONLY, 0644));
	close(fd);
	if (geteuid() != 0) {
		test_unprivileged(NULL);
	} else {
		/* Natively: a namespace of our own. */
		if (unshare(CLONE_NEWNS) == 0)
			CHECK_OK(guest_mount(NULL, "/", NULL,
			    MS_PRIVATE | MS_REC, NULL));
		test_bind();
		test_detached();
		test_errors();
		test_rounds();
		guest_as_nobody(test_unprivileged, NULL);
	}
	unlink(guest_join(src, "f"));
	rmdir(sub);
	rmdir(src);
	rmdir(dst);
	rmdir(dst2);
	rmdir(base);
	return guest_done();
}
