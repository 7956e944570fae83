/*
 * Verifies that stat(2), lstat(2), fstat(2), newfstatat(2) (with
 * AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH) and statx(2) agree on sizes, modes,
 * owners and inode numbers, that link counts follow link(2) and unlink(2)
 * and mkdir(2), that access(2) and faccessat(2) find files, and that
 * statfs(2) and fstatfs(2) answer, each refusal with the errno Linux gives.
 */
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include <fcntl.h>

#include "guest.h"
#include "fs_common.h"

/* struct statx as in include/uapi/linux/stat.h; musl 1.2.3 has none. */
struct fs_statx_time {
	int64_t		tv_sec;
	uint32_t	tv_nsec;
	int32_t		reserved;
};

struct fs_statx {
	uint32_t	mask;
	uint32_t	blksize;
	uint64_t	attributes;
	uint32_t	nlink;
	uint32_t	uid;
	uint32_t	gid;
	uint16_t	mode;
	uint16_t	spare0;
	uint64_t	ino;
	uint64_t	size;
	uint64_t	blocks;
	uint64_t	attributes_mask;
	struct fs_statx_time atime, btime, ctime, mtime;
	uint32_t	rdev_major;
	uint32_t	rdev_minor;
	uint32_t	dev_major;
	uint32_t	dev_minor;
	uint64_t	spare[14];
};
_Static_assert(sizeof(struct fs_statx) == 256, "struct statx is 256 bytes");
_Static_assert(offsetof(struct fs_statx, mtime) == 112, "stx_mtime");

#define FS_STATX_BASIC_STATS	0x7ffU
#define FS_STATX_BTIME		0x800U
#define FS_STATX_RESERVED	0x80000000U
#define FS_AT_STATX_FORCE_SYNC	0x2000
#define FS_AT_STATX_DONT_SYNC	0x4000

/* A flag newfstatat(2) does not know. */
#define FS_AT_BOGUS		0x40000000

static long
sys_statx(int dirfd, const char *path, int flags, unsigned mask,
    struct fs_statx *stx)
{
	memset(stx, 0xa5, sizeof(*stx));
	return syscall(SYS_statx, dirfd, path, flags, mask, stx);
}

static long
sys_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	memset(st, 0xa5, sizeof(*st));
	return syscall(SYS_newfstatat, dirfd, path, st, flags);
}

/* Tells whether two stat results describe the same unchanged file. */
static bool
same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_mode == b->st_mode && a->st_nlink == b->st_nlink &&
	    a->st_uid == b->st_uid && a->st_gid == b->st_gid &&
	    a->st_size == b->st_size && a->st_blksize == b->st_blksize &&
	    a->st_blocks == b->st_blocks &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Checks that statx result x says what stat result st says. */
#define CHECK_STATX_IS(x, st)						\
	do {								\
		CHECK_EQ((x)->mask & FS_STATX_BASIC_STATS,		\
		    FS_STATX_BASIC_STATS);				\
		CHECK_EQ((x)->ino, (st)->st_ino);			\
		CHECK_EQ((x)->mode, (st)->st_mode);			\
		CHECK_EQ((x)->nlink, (st)->st_nlink);			\
		CHECK_EQ((x)->uid, (st)->st_uid);			\
		CHECK_EQ((x)->gid, (st)->st_gid);			\
		CHECK_EQ((x)->size, (st)->st_size);			\
		CHECK_EQ((x)->blocks, (st)->st_blocks);			\
		CHECK_EQ((x)->blksize, (st)->st_blksize);		\
		CHECK_EQ((x)->dev_major, major((st)->st_dev));		\
		CHECK_EQ((x)->dev_minor, minor((st)->st_dev));		\
		CHECK_EQ((x)->mtime.tv_sec, (st)->st_mtim.tv_sec);	\
		CHECK_EQ((x)->mtime.tv_nsec, (st)->st_mtim.tv_nsec);	\
		CHECK_EQ((x)->ctime.tv_sec, (st)->st_ctim.tv_sec);	\
		CHECK_EQ((x)->atime.tv_sec, (st)->st_atim.tv_sec);	\
	} while (0)

/* Creates name with len bytes of 'x' and the given mode; false on failure. */
static bool
put_sized(const char *name, size_t len, mode_t mode)
{
	static char buf[4096];
	int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, mode);
	bool ok = fd >= 0 && len <= sizeof(buf);

	memset(buf, 'x', sizeof(buf));
	if (ok)
		ok = write(fd, buf, len) == (ssize_t)len;
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	return ok;
}

/* The link count stat(2) reports for path, or -1. */
static long
nlink_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_nlink : -1;
}

static void
test_stat_agree(void)
{
	struct stat st[6];
	struct fs_statx stx;
	long fd, dirfd;

	CHECK(put_sized("f", 1234, 0640), "create f");
	fd = CHECK_OK(syscall(SYS_open, "f", O_RDONLY, 0));
	dirfd = CHECK_OK(syscall(SYS_open, ".", O_RDONLY | O_DIRECTORY, 0));
	if (fd < 0 || dirfd < 0)
		return;
	CHECK_OK(syscall(SYS_stat, "f", &st[0]));
	CHECK_EQ(st[0].st_mode, S_IFREG | 0640);
	CHECK_EQ(st[0].st_nlink, 1);
	CHECK_EQ(st[0].st_size, 1234);
	CHECK_EQ(st[0].st_uid, getuid());
	CHECK_EQ(st[0].st_gid, getgid());
	CHECK(st[0].st_blksize > 0, "st_blksize %ld", (long)st[0].st_blksize);
	/* Written, not sparse: at least its size in 512-byte blocks. */
	CHECK(st[0].st_blocks * 512 >= st[0].st_size, "st_blocks %ld",
	    (long)st[0].st_blocks);

	CHECK_OK(syscall(SYS_lstat, "f", &st[1]));
	CHECK_OK(syscall(SYS_fstat, (int)fd, &st[2]));
	CHECK_OK(sys_fstatat(AT_FDCWD, "f", &st[3], 0));
	CHECK_OK(sys_fstatat((int)fd, "", &st[4], AT_EMPTY_PATH));
	CHECK_OK(sys_fstatat((int)dirfd, "f", &st[5], AT_SYMLINK_NOFOLLOW));
	for (int i = 1; i < 6; i++)
		CHECK(same_stat(&st[0], &st[i]), "stat result %d agrees", i);

	CHECK_OK(sys_statx(AT_FDCWD, "f", 0, FS_STATX_BASIC_STATS, &stx));
	CHECK_STATX_IS(&stx, &st[0]);
	CHECK_OK(sys_statx((int)fd, "", AT_EMPTY_PATH, FS_STATX_BASIC_STATS,
	    &stx));
	CHECK_STATX_IS(&stx, &st[0]);
	CHECK_OK(sys_statx((int)dirfd, "f", 0, FS_STATX_BASIC_STATS, &stx));
	CHECK_EQ(stx.ino, st[0].st_ino);

	FS_CHECK_ERR(syscall(SYS_stat, "missing", &st[1]), ENOENT);
	FS_CHECK_ERR(syscall(SYS_stat, "f/x", &st[1]), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_lstat, "", &st[1]), ENOENT);
	FS_CHECK_ERR(syscall(SYS_fstat, -1, &st[1]), EBADF);
	FS_CHECK_ERR(sys_fstatat(AT_FDCWD, "", &st[1], 0), ENOENT);
	FS_CHECK_ERR(sys_fstatat(-1, "f", &st[1], 0), EBADF);
	FS_CHECK_ERR(sys_fstatat(AT_FDCWD, "f", &st[1], FS_AT_BOGUS), EINVAL);
	FS_CHECK_ERR(sys_statx(AT_FDCWD, "", 0, FS_STATX_BASIC_STATS, &stx),
	    ENOENT);
	FS_CHECK_ERR(sys_statx(AT_FDCWD, "missing", 0, FS_STATX_BASIC_STATS,
	    &stx), ENOENT);
	FS_CHECK_ERR(sys_statx(AT_FDCWD, "f", 0, FS_STATX_RESERVED, &stx),
	    EINVAL);
	FS_CHECK_ERR(sys_statx(AT_FDCWD, "f", FS_AT_STATX_FORCE_SYNC |
	    FS_AT_STATX_DONT_SYNC, FS_STATX_BASIC_STATS, &stx), EINVAL);
	close((int)fd);
	close((int)dirfd);
}

static void
test_link_counts(void)
{
	struct stat a, b;
	char buf[16];
	long fd;

	CHECK(put_sized("n", 10, 0644), "create n");
	fd = CHECK_OK(syscall(SYS_open, "n", O_RDONLY, 0));
	if (fd < 0)
		return;
	CHECK_OK(syscall(SYS_link, "n", "n2"));
	CHECK_OK(syscall(SYS_link, "n2", "n3"));
	CHECK_OK(stat("n", &a));
	CHECK_OK(stat("n3", &b));
	CHECK_EQ(a.st_nlink, 3);
	CHECK_EQ(b.st_ino, a.st_ino);
	CHECK_EQ(b.st_dev, a.st_dev);
	CHECK(same_stat(&a, &b), "a hard link stats as its file");
	CHECK_OK(syscall(SYS_unlink, "n2"));
	CHECK_OK(fstat((int)fd, &a));
	CHECK_EQ(a.st_nlink, 2);
	CHECK_OK(syscall(SYS_unlink, "n3"));
	CHECK_EQ(nlink_of("n"), 1);
	/* Unlinked while open: nlink 0, and the data is still there. */
	CHECK_OK(syscall(SYS_unlink, "n"));
	CHECK_OK(fstat((int)fd, &a));
	CHECK_EQ(a.st_nlink, 0);
	CHECK_EQ(a.st_size, 10);
	CHECK_EQ(pread((int)fd, buf, sizeof(buf), 0), 10);
	FS_CHECK_ERR(stat("n", &b), ENOENT);
	close((int)fd);
}

static void
test_symlink_stat(void)
{
	struct stat l, t, st;
	struct fs_statx stx;

	CHECK(put_sized("t", 10, 0600), "create t");
	CHECK_OK(symlink("t", "s"));
	CHECK_OK(syscall(SYS_lstat, "s", &l));
	CHECK(S_ISLNK(l.st_mode), "lstat sees a symlink");
	CHECK_EQ(l.st_mode & 07777, 0777);
	/* A symlink's size is the length of its target, without a NUL. */
	CHECK_EQ(l.st_size, 1);
	CHECK_OK(syscall(SYS_stat, "t", &t));
	CHECK_OK(syscall(SYS_stat, "s", &st));
	CHECK(same_stat(&st, &t), "stat follows the link to t");
	CHECK(l.st_ino != t.st_ino, "the link has its own inode");

	CHECK_OK(sys_fstatat(AT_FDCWD, "s", &st, AT_SYMLINK_NOFOLLOW));
	CHECK(same_stat(&st, &l), "AT_SYMLINK_NOFOLLOW is lstat");
	CHECK_OK(sys_fstatat(AT_FDCWD, "s", &st, 0));
	CHECK(same_stat(&st, &t), "newfstatat follows the link");
	CHECK_OK(sys_statx(AT_FDCWD, "s", AT_SYMLINK_NOFOLLOW,
	    FS_STATX_BASIC_STATS, &stx));
	CHECK_STATX_IS(&stx, &l);
	CHECK_OK(sys_statx(AT_FDCWD, "s", 0, FS_STATX_BASIC_STATS, &stx));
	CHECK_STATX_IS(&stx, &t);

	CHECK_OK(symlink("nowhere", "dangling"));
	FS_CHECK_ERR(syscall(SYS_stat, "dangling", &st), ENOENT);
	CHECK_OK(syscall(SYS_lstat, "dangling", &st));
	CHECK_EQ(st.st_size, 7);
}

static void
test_dir_nlink(void)
{
	struct stat st;
	long top = nlink_of(".");

	/*
	 * A directory has 2 links ("name" and its "."), plus one for the
	 * ".." of each subdirectory: so on tmpfs and ext4, not on btrfs.
	 */
	CHECK_OK(syscall(SYS_mkdir, "d", 0755));
	CHECK_OK(stat("d", &st));
	CHECK_EQ(st.st_mode, S_IFDIR | 0755);
	CHECK_EQ(st.st_nlink, 2);
	CHECK_EQ(nlink_of("."), top + 1);
	CHECK_OK(syscall(SYS_mkdir, "d/e", 0755));
	CHECK_OK(syscall(SYS_mkdir, "d/e2", 0755));
	CHECK_EQ(nlink_of("d"), 4);
	CHECK(put_sized("d/file", 1, 0644), "create d/file");
	CHECK_EQ(nlink_of("d"), 4);
	CHECK_OK(syscall(SYS_rmdir, "d/e"));
	CHECK_EQ(nlink_of("d"), 3);
	CHECK_OK(syscall(SYS_rename, "d/e2", "e2"));
	CHECK_EQ(nlink_of("d"), 2);
	CHECK_EQ(nlink_of("."), top + 2);
}

static void
test_access(void)
{
	long dirfd, filefd;

	CHECK(put_sized("a", 1, 0644), "create a");
	CHECK_OK(syscall(SYS_mkdir, "ad", 0755));
	CHECK_OK(symlink("gone", "adangling"));
	CHECK_OK(syscall(SYS_access, "a", F_OK));
	CHECK_OK(syscall(SYS_access, "a", R_OK | W_OK));
	CHECK_OK(syscall(SYS_access, "ad", R_OK | W_OK | X_OK));
	FS_CHECK_ERR(syscall(SYS_access, "missing", F_OK), ENOENT);
	FS_CHECK_ERR(syscall(SYS_access, "adangling", F_OK), ENOENT);
	FS_CHECK_ERR(syscall(SYS_access, "a/x", F_OK), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_access, "a", 8), EINVAL);

	dirfd = CHECK_OK(syscall(SYS_open, "ad", O_RDONLY | O_DIRECTORY, 0));
	filefd = CHECK_OK(syscall(SYS_open, "a", O_RDONLY, 0));
	if (dirfd < 0 || filefd < 0)
		return;
	CHECK(put_sized("ad/in", 1, 0644), "create ad/in");
	CHECK_OK(syscall(SYS_faccessat, AT_FDCWD, "a", R_OK));
	CHECK_OK(syscall(SYS_faccessat, (int)dirfd, "in", F_OK));
	FS_CHECK_ERR(syscall(SYS_faccessat, (int)dirfd, "a", F_OK), ENOENT);
	FS_CHECK_ERR(syscall(SYS_faccessat, (int)filefd, "x", F_OK), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_faccessat, -1, "in", F_OK), EBADF);
	FS_CHECK_ERR(syscall(SYS_faccessat, AT_FDCWD, "a", 8), EINVAL);
	close((int)dirfd);
	close((int)filefd);
}

static void
test_statfs(void)
{
	struct statfs a, b;
	long fd;

	CHECK_OK(syscall(SYS_statfs, ".", &a));
	fd = CHECK_OK(syscall(SYS_open, ".", O_RDONLY | O_DIRECTORY, 0));
	if (fd >= 0) {
		CHECK_OK(syscall(SYS_fstatfs, (int)fd, &b));
		CHECK_EQ(b.f_type, a.f_type);
		CHECK_EQ(b.f_namelen, a.f_namelen);
		close((int)fd);
	}
	/* NAME_MAX on tmpfs, ext4, xfs, btrfs and overlayfs alike. */
	CHECK_EQ(a.f_namelen, 255);
	CHECK(a.f_bsize > 0, "f_bsize %ld", (long)a.f_bsize);
	CHECK_OK(syscall(SYS_statfs, "/", &b));
	FS_CHECK_ERR(syscall(SYS_statfs, "missing", &a), ENOENT);
	FS_CHECK_ERR(syscall(SYS_fstatfs, -1, &a), EBADF);
	FS_CHECK_ERR(syscall(SYS_statfs, "/", (void *)8), EFAULT);
}

/* Each kind of file system answers with the f_type Linux gives it. */
static void
test_statfs_types(void)
{
	struct statfs sf;
	int p[2];
	long fd;

	if (CHECK_OK(syscall(SYS_statfs, "/proc", &sf)) == 0) {
		CHECK_EQ(sf.f_type, 0x9fa0);            /* PROC_SUPER_MAGIC */
		CHECK_EQ(sf.f_blocks, 0);
	}
	if (CHECK_OK(syscall(SYS_statfs, "/sys", &sf)) == 0)
		CHECK_EQ(sf.f_type, 0x62656572);        /* SYSFS_MAGIC */
	if (CHECK_OK(syscall(SYS_statfs, "/dev/shm", &sf)) == 0) {
		CHECK_EQ(sf.f_type, 0x01021994);        /* TMPFS_MAGIC */
		CHECK(sf.f_bfree <= sf.f_blocks, "bfree %ld of %ld",
		    (long)sf.f_bfree, (long)sf.f_blocks);
	}
	if (CHECK_OK(pipe(p)) == 0) {
		if (CHECK_OK(syscall(SYS_fstatfs, p[0], &sf)) == 0)
			CHECK_EQ(sf.f_type, 0x50495045);    /* PIPEFS_MAGIC */
		close(p[0]);
		close(p[1]);
	}
	fd = CHECK_OK(syscall(SYS_eventfd2, 0, 0));
	if (fd >= 0) {
		if (CHECK_OK(syscall(SYS_fstatfs, (int)fd, &sf)) == 0)
			CHECK_EQ(sf.f_type, 0x09041934);    /* ANON_INODE_FS */
		close((int)fd);
	}
}

/*
 * Birth times: a file made now was born now (tmpfs and ext4 keep one);
 * procfs keeps none, so statx leaves STATX_BTIME out of its mask.
 */
static void
test_btime(void)
{
	struct fs_statx stx;
	struct timespec t0, t1;

	CHECK_OK(clock_gettime(CLOCK_REALTIME, &t0));
	CHECK(touch("born"), "make born");
	CHECK_OK(clock_gettime(CLOCK_REALTIME, &t1));
	CHECK_OK(sys_statx(AT_FDCWD, "born", 0, FS_STATX_BASIC_STATS |
	    FS_STATX_BTIME, &stx));
	if (CHECK(stx.mask & FS_STATX_BTIME, "no birth time: mask %#x",
	    stx.mask))
		CHECK(stx.btime.tv_sec >= t0.tv_sec - 1 &&
		    stx.btime.tv_sec <= t1.tv_sec + 1, "born at %lld, made "
		    "at %lld", (long long)stx.btime.tv_sec,
		    (long long)t0.tv_sec);
	CHECK_OK(sys_statx(AT_FDCWD, "/proc/self/status", 0,
	    FS_STATX_BASIC_STATS | FS_STATX_BTIME, &stx));
	CHECK_EQ(stx.mask & FS_STATX_BTIME, 0);
}

int
main(void)
{
	if (!CHECK(scratch_enter(), "make scratch directory %s", scratch))
		return guest_done();
	test_stat_agree();
	test_link_counts();
	test_symlink_stat();
	test_dir_nlink();
	test_access();
	test_statfs();
	test_statfs_types();
	test_btime();
	CHECK(scratch_leave(), "remove scratch directory %s", scratch);
	return guest_done();
}
