/*
 * Verifies file attributes as stat(2) reports them: umask(2) on created
 * modes, chmod(2)/fchmod(2)/fchmodat(2), chown(2)/fchown(2)/lchown(2) to
 * our own ids, utimensat(2) with UTIME_NOW, UTIME_OMIT and explicit times,
 * utime(2),
 * mtime updates on write, and mknod(2) of a FIFO, each refusal with the
 * errno Linux gives.
 */
#include <sys/stat.h>

#include <fcntl.h>

#include "guest.h"
#include "fs_common.h"

/* The permission and set-id bits of a mode. */
#define PERM(m)		((m) & 07777)

static long
sys_utimensat(int dirfd, const char *path, const struct timespec *ts,
    int flags)
{
	return syscall(SYS_utimensat, dirfd, path, ts, flags);
}

/* The st_mode lstat(2) reports for path, or 0. */
static mode_t
mode_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? st.st_mode : 0;
}

static void
test_umask(void)
{
	long fd;

	CHECK_EQ(syscall(SYS_umask, 077), 022);
	CHECK_EQ(syscall(SYS_umask, 077), 077);
	fd = CHECK_OK(syscall(SYS_open, "u1", O_WRONLY | O_CREAT, 0666));
	if (fd >= 0)
		close((int)fd);
	CHECK_EQ(mode_of("u1"), S_IFREG | 0600);
	CHECK_OK(mkdir("u2", 0777));
	CHECK_EQ(mode_of("u2"), S_IFDIR | 0700);
	CHECK_OK(mknod("u3", S_IFIFO | 0666, 0));
	CHECK_EQ(mode_of("u3"), S_IFIFO | 0600);
	/* A symlink's mode is always 0777. */
	CHECK_OK(symlink("u1", "u4"));
	CHECK_EQ(mode_of("u4"), S_IFLNK | 0777);

	/* umask 0 passes the mode through; only the low 9 bits are kept. */
	CHECK_EQ(syscall(SYS_umask, 0), 077);
	fd = CHECK_OK(syscall(SYS_creat, "u5", 0777));
	if (fd >= 0)
		close((int)fd);
	CHECK_EQ(mode_of("u5"), S_IFREG | 0777);
	CHECK_EQ(syscall(SYS_umask, 0777 | 07000), 0);
	CHECK_EQ(syscall(SYS_umask, 022), 0777);
	fd = CHECK_OK(syscall(SYS_open, "u6", O_WRONLY | O_CREAT, 0777));
	if (fd >= 0)
		close((int)fd);
	CHECK_EQ(mode_of("u6"), S_IFREG | 0755);
	/* O_CREAT of an existing file leaves its mode. */
	fd = CHECK_OK(syscall(SYS_open, "u1", O_WRONLY | O_CREAT, 0777));
	if (fd >= 0)
		close((int)fd);
	CHECK_EQ(mode_of("u1"), S_IFREG | 0600);
}

static void
test_chmod(void)
{
	struct stat st;
	long fd, dfd;

	CHECK(touch("m"), "create m");
	CHECK_OK(mkdir("md", 0755));
	CHECK_OK(symlink("m", "ml"));
	CHECK_OK(syscall(SYS_chmod, "m", 0600));
	CHECK_EQ(mode_of("m"), S_IFREG | 0600);
	/* The set-id and sticky bits are kept; the type bits ignored. */
	CHECK_OK(syscall(SYS_chmod, "m", 04755));
	CHECK_EQ(mode_of("m"), S_IFREG | 04755);
	CHECK_OK(syscall(SYS_chmod, "m", S_IFDIR | 0640));
	CHECK_EQ(mode_of("m"), S_IFREG | 0640);
	CHECK_OK(syscall(SYS_chmod, "md", 01777));
	CHECK_EQ(mode_of("md"), S_IFDIR | 01777);
	CHECK_OK(syscall(SYS_chmod, "m", 0));
	CHECK_EQ(mode_of("m"), S_IFREG);
	/* chmod follows a symlink; the link keeps 0777. */
	CHECK_OK(syscall(SYS_chmod, "ml", 0604));
	CHECK_EQ(mode_of("m"), S_IFREG | 0604);
	CHECK_EQ(mode_of("ml"), S_IFLNK | 0777);

	fd = CHECK_OK(syscall(SYS_open, "m", O_RDONLY, 0));
	if (fd >= 0) {
		CHECK_OK(syscall(SYS_fchmod, (int)fd, 0640));
		CHECK_OK(fstat((int)fd, &st));
		CHECK_EQ(st.st_mode, S_IFREG | 0640);
		close((int)fd);
	}
	CHECK_OK(syscall(SYS_fchmodat, AT_FDCWD, "m", 0444));
	CHECK_EQ(mode_of("m"), S_IFREG | 0444);
	dfd = CHECK_OK(syscall(SYS_open, ".", O_RDONLY | O_DIRECTORY, 0));
	if (dfd >= 0) {
		CHECK_OK(syscall(SYS_fchmodat, (int)dfd, "m", 0644));
		CHECK_EQ(mode_of("m"), S_IFREG | 0644);
		close((int)dfd);
	}
	FS_CHECK_ERR(syscall(SYS_chmod, "missing", 0644), ENOENT);
	FS_CHECK_ERR(syscall(SYS_chmod, "m/x", 0644), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_fchmod, -1, 0644), EBADF);
	FS_CHECK_ERR(syscall(SYS_fchmodat, -1, "m", 0644), EBADF);
}

static void
test_chown(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	struct stat st;
	long fd;

	CHECK(touch("o"), "create o");
	CHECK_OK(symlink("o", "ol"));
	CHECK_OK(syscall(SYS_chown, "o", uid, gid));
	CHECK_OK(syscall(SYS_chown, "o", -1, -1));
	CHECK_OK(syscall(SYS_chown, "o", uid, -1));
	CHECK_OK(syscall(SYS_lchown, "ol", uid, gid));
	CHECK_OK(syscall(SYS_fchownat, AT_FDCWD, "ol", uid, gid,
	    AT_SYMLINK_NOFOLLOW));
	CHECK_OK(lstat("ol", &st));
	CHECK(st.st_uid == uid && st.st_gid == gid, "ol owned by %d:%d",
	    (int)uid, (int)gid);
	fd = CHECK_OK(syscall(SYS_open, "o", O_RDONLY, 0));
	if (fd >= 0) {
		CHECK_OK(syscall(SYS_fchown, (int)fd, uid, gid));
		CHECK_OK(fstat((int)fd, &st));
		CHECK(st.st_uid == uid && st.st_gid == gid,
		    "o owned by %d:%d", (int)uid, (int)gid);
		close((int)fd);
	}
	/*
	 * chown clears set-user-ID on a file, even when the owner stays
	 * (chown(2)): which is why tar and cp -p chown before they chmod.
	 */
	CHECK_OK(syscall(SYS_chmod, "o", 04755));
	CHECK_OK(syscall(SYS_chown, "o", uid, gid));
	CHECK_EQ(mode_of("o"), S_IFREG | 0755);

	FS_CHECK_ERR(syscall(SYS_chown, "missing", uid, gid), ENOENT);
	FS_CHECK_ERR(syscall(SYS_lchown, "missing", uid, gid), ENOENT);
	FS_CHECK_ERR(syscall(SYS_fchown, -1, uid, gid), EBADF);
	FS_CHECK_ERR(syscall(SYS_fchownat, AT_FDCWD, "o", uid, gid, 0x1),
	    EINVAL);
}

/* Tells whether t is within [lo - 1s, hi + 1s]: file times are coarse. */
static bool
near(const struct timespec *t, time_t lo, time_t hi)
{
	return t->tv_sec >= lo - 1 && t->tv_sec <= hi + 1;
}

static void
test_utimensat(void)
{
	struct timespec ts[2], before, after;
	struct stat st, lst;
	long fd;

	CHECK(touch("t"), "create t");
	CHECK_OK(symlink("t", "tl"));
	/* Explicit times are kept to the nanosecond. */
	ts[0] = (struct timespec){ 1000000000, 123456789 };
	ts[1] = (struct timespec){ 1500000000, 987654321 };
	CHECK_OK(sys_utimensat(AT_FDCWD, "t", ts, 0));
	CHECK_OK(stat("t", &st));
	CHECK_EQ(st.st_atim.tv_sec, 1000000000);
	CHECK_EQ(st.st_atim.tv_nsec, 123456789);
	CHECK_EQ(st.st_mtim.tv_sec, 1500000000);
	CHECK_EQ(st.st_mtim.tv_nsec, 987654321);

	/* UTIME_OMIT leaves a time, UTIME_NOW takes the clock. */
	clock_gettime(CLOCK_REALTIME, &before);
	ts[0] = (struct timespec){ 0, UTIME_OMIT };
	ts[1] = (struct timespec){ 0, UTIME_NOW };
	CHECK_OK(sys_utimensat(AT_FDCWD, "t", ts, 0));
	clock_gettime(CLOCK_REALTIME, &after);
	CHECK_OK(stat("t", &st));
	CHECK_EQ(st.st_atim.tv_sec, 1000000000);
	CHECK_EQ(st.st_atim.tv_nsec, 123456789);
	CHECK(near(&st.st_mtim, before.tv_sec, after.tv_sec),
	    "UTIME_NOW mtime %ld, now %ld", (long)st.st_mtim.tv_sec,
	    (long)after.tv_sec);
	CHECK(near(&st.st_ctim, before.tv_sec, after.tv_sec),
	    "the change time is now too");
	ts[0] = (struct timespec){ 5, UTIME_OMIT };
	ts[1] = (struct timespec){ 5, UTIME_OMIT };
	CHECK_OK(sys_utimensat(AT_FDCWD, "t", ts, 0));
	CHECK_OK(stat("t", &lst));
	CHECK(lst.st_mtim.tv_sec == st.st_mtim.tv_sec &&
	    lst.st_mtim.tv_nsec == st.st_mtim.tv_nsec &&
	    lst.st_atim.tv_sec == 1000000000, "UTIME_OMIT twice changes "
	    "nothing");

	/* NULL times, on an fd: both to now. */
	fd = CHECK_OK(syscall(SYS_open, "t", O_RDONLY, 0));
	if (fd >= 0) {
		CHECK_OK(sys_utimensat((int)fd, NULL, NULL, 0));
		clock_gettime(CLOCK_REALTIME, &after);
		CHECK_OK(fstat((int)fd, &st));
		CHECK(near(&st.st_atim, before.tv_sec, after.tv_sec) &&
		    near(&st.st_mtim, before.tv_sec, after.tv_sec),
		    "utimensat(fd, NULL, NULL) sets both to now");
		close((int)fd);
	}

	/* AT_SYMLINK_NOFOLLOW sets the link's own times. */
	ts[0] = (struct timespec){ 2000000000, 0 };
	ts[1] = (struct timespec){ 2000000001, 0 };
	CHECK_OK(sys_utimensat(AT_FDCWD, "tl", ts, AT_SYMLINK_NOFOLLOW));
	CHECK_OK(lstat("tl", &lst));
	CHECK_OK(stat("t", &st));
	CHECK_EQ(lst.st_mtim.tv_sec, 2000000001);
	CHECK(st.st_mtim.tv_sec != 2000000001, "the target is untouched");

	ts[0] = (struct timespec){ 0, 1000000000 };
	ts[1] = (struct timespec){ 0, 0 };
	FS_CHECK_ERR(sys_utimensat(AT_FDCWD, "t", ts, 0), EINVAL);
	ts[0] = (struct timespec){ 0, -1 };
	FS_CHECK_ERR(sys_utimensat(AT_FDCWD, "t", ts, 0), EINVAL);
	FS_CHECK_ERR(sys_utimensat(AT_FDCWD, "t", NULL, 0x1), EINVAL);
	FS_CHECK_ERR(sys_utimensat(AT_FDCWD, "missing", NULL, 0), ENOENT);
	FS_CHECK_ERR(sys_utimensat(-1, NULL, NULL, 0), EBADF);
}

/* utime(2): whole seconds, the nanoseconds cleared; NULL for now. */
static void
test_utime(void)
{
	const int64_t times[2] = { 1000000000, 1500000000 };
	struct timespec before, after;
	struct stat st;

	CHECK(touch("u"), "create u");
	CHECK_OK(syscall(SYS_utime, "u", times));
	CHECK_OK(stat("u", &st));
	CHECK(st.st_atim.tv_sec == 1000000000 && st.st_atim.tv_nsec == 0 &&
	    st.st_mtim.tv_sec == 1500000000 && st.st_mtim.tv_nsec == 0,
	    "utime times %ld %ld", (long)st.st_atim.tv_sec,
	    (long)st.st_mtim.tv_sec);
	clock_gettime(CLOCK_REALTIME, &before);
	CHECK_OK(syscall(SYS_utime, "u", NULL));
	clock_gettime(CLOCK_REALTIME, &after);
	CHECK_OK(stat("u", &st));
	CHECK(near(&st.st_atim, before.tv_sec, after.tv_sec) &&
	    near(&st.st_mtim, before.tv_sec, after.tv_sec),
	    "utime(NULL) sets both to now");
	FS_CHECK_ERR(syscall(SYS_utime, "u", (void *)8), EFAULT);
	FS_CHECK_ERR(syscall(SYS_utime, "missing", times), ENOENT);
}

static void
test_write_times(void)
{
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	struct timespec now;
	struct stat st;
	long fd;

	CHECK(touch("w"), "create w");
	CHECK_OK(sys_utimensat(AT_FDCWD, "w", old, 0));
	fd = CHECK_OK(syscall(SYS_open, "w", O_WRONLY, 0));
	if (fd < 0)
		return;
	/* A write and a truncate both move mtime and ctime to now. */
	CHECK_EQ(write((int)fd, "x", 1), 1);
	clock_gettime(CLOCK_REALTIME, &now);
	CHECK_OK(fstat((int)fd, &st));
	CHECK(near(&st.st_mtim, now.tv_sec, now.tv_sec),
	    "write sets mtime to now: %ld", (long)st.st_mtim.tv_sec);
	CHECK_EQ(st.st_atim.tv_sec, 1000000000);
	CHECK_OK(sys_utimensat(AT_FDCWD, "w", old, 0));
	CHECK_OK(syscall(SYS_ftruncate, (int)fd, 0L));
	CHECK_OK(fstat((int)fd, &st));
	CHECK(near(&st.st_mtim, now.tv_sec, now.tv_sec),
	    "ftruncate sets mtime to now: %ld", (long)st.st_mtim.tv_sec);
	close((int)fd);
}

static void
test_mknod_fifo(void)
{
	struct stat st;
	long dfd;

	CHECK_OK(syscall(SYS_mknod, "p", S_IFIFO | 0644, 0));
	CHECK_OK(stat("p", &st));
	CHECK(S_ISFIFO(st.st_mode), "p is a FIFO");
	CHECK_EQ(PERM(st.st_mode), 0644);
	CHECK_EQ(st.st_size, 0);
	CHECK_EQ(st.st_nlink, 1);
	FS_CHECK_ERR(syscall(SYS_mknod, "p", S_IFIFO | 0644, 0), EEXIST);
	FS_CHECK_ERR(syscall(SYS_mknod, "nodir/p", S_IFIFO | 0644, 0),
	    ENOENT);
	dfd = CHECK_OK(syscall(SYS_open, ".", O_RDONLY | O_DIRECTORY, 0));
	if (dfd >= 0) {
		CHECK_OK(syscall(SYS_mknodat, (int)dfd, "p2", S_IFIFO | 0600,
		    0));
		CHECK_EQ(mode_of("p2"), S_IFIFO | 0600);
		close((int)dfd);
	}
	/* A type of 0 or S_IFREG makes a regular file (mknod(2)). */
	CHECK_OK(syscall(SYS_mknod, "r0", 0644, 0));
	CHECK_EQ(mode_of("r0"), S_IFREG | 0644);
	CHECK_OK(syscall(SYS_mknod, "r1", S_IFREG | 0600, 0));
	CHECK_EQ(mode_of("r1"), S_IFREG | 0600);
	/* Directories come from mkdir(2) only (fs/namei.c, may_mknod). */
	FS_CHECK_ERR(syscall(SYS_mknod, "dd", S_IFDIR | 0755, 0), EPERM);
	FS_CHECK_ERR(syscall(SYS_mknod, "bad", 0170000 | 0644, 0), EINVAL);
	CHECK_OK(syscall(SYS_unlink, "p"));
	FS_CHECK_ERR(stat("p", &st), ENOENT);
}

int
main(void)
{
	if (!CHECK(scratch_enter(), "make scratch directory %s", scratch))
		return guest_done();
	test_umask();
	test_chmod();
	test_chown();
	test_utimensat();
	test_utime();
	test_write_times();
	test_mknod_fifo();
	CHECK(scratch_leave(), "remove scratch directory %s", scratch);
	return guest_done();
}
