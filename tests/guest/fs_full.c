/*
 * Verifies a full tmpfs as Linux's behaves (tmpfs(5) size= and
 * nr_inodes=): writes stop at the size with ENOSPC, never ENOMEM, and so
 * do fallocate and a long symlink, which takes a page; creat, mkdir,
 * a short symlink, a hole made by ftruncate and a rewrite of data that
 * is there still work; statfs says the size, then no free blocks, and
 * the blocks come back with the file; with nr_inodes, the last node and
 * a hard link give ENOSPC.  As root and as uid 65534.
 *
 * Usage: fs_full [DIR SIZE [NR_INODES]]: DIR is a file system of SIZE
 * bytes (and NR_INODES inodes) that nothing else writes to.  Without
 * arguments it mounts a tmpfs of its own (size=1m,nr_inodes=64) in a
 * mount namespace, natively; where it may not, it says so and checks
 * nothing.
 */
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <fcntl.h>

#include "guest.h"

#define CHUNK (64 * 1024)

static const char *dir;
static unsigned long long size, nr_inodes;

static void
path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s.%d", dir, name, (int)getpid());
}

static void
statfs_dir(struct statfs *sf)
{
	memset(sf, 0, sizeof(*sf));
	CHECK_OK(statfs(dir, sf));
}

/*
 * Fill the file system, which has room bytes free, with one file;
 * returns its fd, left open.
 */
static int
fill(const char *path, unsigned long long room)
{
	static char chunk[CHUNK];
	unsigned long long done = 0;
	ssize_t n;
	int fd;

	memset(chunk, 'f', sizeof(chunk));
	fd = (int)CHECK_OK(open(path, O_RDWR | O_CREAT | O_EXCL, 0600));
	if (fd < 0)
		return -1;
	while ((n = write(fd, chunk, sizeof(chunk))) > 0)
		done += (unsigned long long)n;
	CHECK(n == -1 && errno == ENOSPC, "filling: write %zd, errno %s",
	    n, guest_errno_name(errno));
	CHECK_EQ(done, room);
	return fd;
}

/* What still works on a file system full of data, and what does not. */
static void
test_full_data(void)
{
	char path[256], other[256], dpath[256], slink[256], llink[256];
	char target[200];
	struct statfs sf;
	struct stat st;
	unsigned long long free0;
	int fd, fd2;

	statfs_dir(&sf);
	CHECK_EQ(sf.f_bsize, 4096);
	/* Not the file system asked for: filling it could take all night. */
	if (sf.f_blocks * sf.f_bsize != size) {
		CHECK(false, "%s: %llu blocks of %llu bytes, not %llu bytes",
		    dir, (unsigned long long)sf.f_blocks,
		    (unsigned long long)sf.f_bsize, size);
		return;
	}
	/* The overlay's upper layer holds vkernel's /etc/hosts already. */
	free0 = sf.f_bfree;
	CHECK(free0 > 0 && free0 + 4 >= sf.f_blocks, "%llu of %llu free",
	    free0, (unsigned long long)sf.f_blocks);
	CHECK_EQ(sf.f_bavail, sf.f_bfree);
	path_of(path, sizeof(path), "fill");
	if ((fd = fill(path, free0 * sf.f_bsize)) < 0)
		return;
	statfs_dir(&sf);
	CHECK_EQ(sf.f_bfree, 0);
	CHECK_EQ(sf.f_bavail, 0);
	CHECK_ERR(write(fd, "x", 1), ENOSPC);
	/* Bytes already there take no new block. */
	CHECK_EQ(pwrite(fd, "rewritten", 9, 0), 9);

	path_of(other, sizeof(other), "other");
	fd2 = (int)CHECK_OK(open(other, O_RDWR | O_CREAT | O_EXCL, 0600));
	CHECK_ERR(fallocate(fd2, 0, 0, 4096), ENOSPC);
	/* A hole is free: the file grows, its first byte does not fit. */
	CHECK_OK(ftruncate(fd2, 1 << 20));
	CHECK_OK(fstat(fd2, &st));
	CHECK_EQ(st.st_size, 1 << 20);
	CHECK_EQ(st.st_blocks, 0);
	CHECK_ERR(pwrite(fd2, "x", 1, 0), ENOSPC);
	close(fd2);

	path_of(dpath, sizeof(dpath), "dir");
	CHECK_OK(mkdir(dpath, 0755));
	path_of(slink, sizeof(slink), "short");
	CHECK_OK(symlink("short", slink));
	memset(target, 't', sizeof(target) - 1);
	target[sizeof(target) - 1] = '\0';
	path_of(llink, sizeof(llink), "long");
	CHECK_ERR(symlink(target, llink), ENOSPC);

	close(fd);
	CHECK_OK(unlink(path));
	CHECK_OK(unlink(other));
	CHECK_OK(unlink(slink));
	CHECK_OK(rmdir(dpath));
	statfs_dir(&sf);
	CHECK_EQ(sf.f_bfree, free0);
	/* The space is there again. */
	CHECK_OK(symlink(target, llink));
	CHECK_OK(unlink(llink));
}

/* Every inode taken: new names fail, removing one makes room. */
static void
test_full_inodes(void)
{
	char path[256], dpath[256];
	unsigned long long made = 0, free0;
	struct statfs sf;
	int fd;

	statfs_dir(&sf);
	if (sf.f_files != nr_inodes) {
		CHECK(false, "%s: %llu inodes, not %llu", dir,
		    (unsigned long long)sf.f_files, nr_inodes);
		return;
	}
	/* The root is one. */
	CHECK_EQ(sf.f_ffree, nr_inodes - 1);
	free0 = sf.f_ffree;
	for (;; made++) {
		snprintf(path, sizeof(path), "%s/n%llu.%d", dir, made,
		    (int)getpid());
		if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0)
			break;
		close(fd);
	}
	CHECK(errno == ENOSPC, "creat %llu: %s", made,
	    guest_errno_name(errno));
	CHECK_EQ(made, free0);
	statfs_dir(&sf);
	CHECK_EQ(sf.f_ffree, 0);
	path_of(dpath, sizeof(dpath), "dir");
	CHECK_ERR(mkdir(dpath, 0755), ENOSPC);
	snprintf(path, sizeof(path), "%s/n0.%d", dir, (int)getpid());
	path_of(dpath, sizeof(dpath), "link");
	/* A hard link takes an inode too, as Linux's shmem_link(). */
	CHECK_ERR(link(path, dpath), ENOSPC);
	CHECK_OK(unlink(path));
	path_of(dpath, sizeof(dpath), "dir");
	CHECK_OK(mkdir(dpath, 0755));
	CHECK_OK(rmdir(dpath));
	for (unsigned long long i = 1; i < made; i++) {
		snprintf(path, sizeof(path), "%s/n%llu.%d", dir, i,
		    (int)getpid());
		CHECK_OK(unlink(path));
	}
	statfs_dir(&sf);
	CHECK_EQ(sf.f_ffree, free0);
}

static void
tests(void)
{
	test_full_data();
	if (nr_inodes > 0)
		test_full_inodes();
}

/* Write s to the file at path; the mount that needs it says if not. */
static void
write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd >= 0) {
		(void)!write(fd, s, strlen(s));
		close(fd);
	}
}

/*
 * A tmpfs of our own, natively: root may make a mount namespace, others
 * a user namespace first.  Returns whether DIR is one.
 */
static bool
own_tmpfs(char *tmpl)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (uid != 0) {
		if (unshare(CLONE_NEWUSER) < 0)
			return false;
		/* Root of the namespace, as the caller outside. */
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
		write_str("/proc/self/uid_map", map);
		write_str("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
		write_str("/proc/self/gid_map", map);
	}
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mkdtemp(tmpl) == NULL)
		return false;
	if (mount("tmpfs", tmpl, "tmpfs", 0,
	    "size=1m,nr_inodes=64,mode=1777") < 0) {
		rmdir(tmpl);
		return false;
	}
	return true;
}

int
main(int argc, char **argv)
{
	char tmpl[] = "/tmp/fs_full.XXXXXX";
	int r;

	if (argc >= 3) {
		dir = argv[1];
		size = strtoull(argv[2], NULL, 0);
		nr_inodes = argc > 3 ? strtoull(argv[3], NULL, 0) : 0;
		return guest_main_twice(tests);
	}
	if (!own_tmpfs(tmpl)) {
		guest_note("skip: no tmpfs of its own here (%s)",
		    strerror(errno));
		return 0;
	}
	dir = tmpl;
	size = 1 << 20;
	nr_inodes = 64;
	r = guest_main_twice(tests);
	umount(tmpl);
	rmdir(tmpl);
	return r;
}
