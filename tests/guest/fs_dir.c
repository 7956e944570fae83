/*
 * Verifies directories: getdents64(2) lists exactly the names made (and "."
 * and "..") with their types, also for 1000 entries read through a small
 * buffer; mkdir(2)/mkdirat(2), rmdir(2), unlink(2)/unlinkat(2),
 * chdir(2)/fchdir(2) and getcwd(2), each refusal with the errno Linux
 * gives; and removing entries while listing skips none of the others.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>

#include "guest.h"
#include "fs_common.h"

#define NMANY	1000

static long
sys_getdents64(int fd, void *buf, size_t len)
{
	return syscall(SYS_getdents64, fd, buf, len);
}

/* One name expected in a listing, and what the listing said about it. */
struct want {
	const char	*name;
	unsigned char	 type;
	uint64_t	 ino;
	int		 seen;
};

/*
 * Reads all of directory fd with getdents64 through a len-byte buffer,
 * counting each name of w[0..n) it meets; returns the number of entries,
 * or -1 if a call fails or returns a name not in w.
 */
static long
list_into(int fd, struct want *w, int n, size_t len)
{
	static uint64_t buf[4096];
	long total = 0, got;

	while ((got = sys_getdents64(fd, buf, len)) > 0) {
		if (!CHECK(got <= (long)len, "getdents64 returned %ld > %zu",
		    got, len))
			return -1;
		for (long off = 0; off < got;) {
			struct fs_dirent64 *d =
			    (struct fs_dirent64 *)((char *)buf + off);
			int i = 0;

			while (i < n && strcmp(w[i].name, d->d_name) != 0)
				i++;
			if (!CHECK(i < n, "unexpected name \"%s\"", d->d_name))
				return -1;
			w[i].seen++;
			CHECK(d->d_type == w[i].type, "d_type of %s is %d, "
			    "want %d", d->d_name, d->d_type, w[i].type);
			CHECK(w[i].ino == 0 || d->d_ino == w[i].ino,
			    "d_ino of %s", d->d_name);
			off += d->d_reclen;
			total++;
		}
	}
	CHECK_EQ(got, 0);
	return got == 0 ? total : -1;
}

static void
test_getdents_types(void)
{
	struct want w[] = {
		{ ".", DT_DIR, 0, 0 }, { "..", DT_DIR, 0, 0 },
		{ "a", DT_REG, 0, 0 }, { "sub", DT_DIR, 0, 0 },
		{ "lnk", DT_LNK, 0, 0 }, { "fifo", DT_FIFO, 0, 0 },
	};
	const int n = sizeof(w) / sizeof(w[0]);
	char buf[64];
	long fd, filefd;

	CHECK_OK(mkdir("small", 0755));
	CHECK(touch("small/a"), "create small/a");
	CHECK_OK(mkdir("small/sub", 0755));
	CHECK_OK(symlink("a", "small/lnk"));
	CHECK_OK(mknod("small/fifo", S_IFIFO | 0644, 0));
	w[0].ino = ino_of("small");
	w[1].ino = ino_of(".");
	w[2].ino = ino_of("small/a");
	w[3].ino = ino_of("small/sub");
	w[4].ino = ino_of("small/lnk");
	w[5].ino = ino_of("small/fifo");
	fd = CHECK_OK(syscall(SYS_open, "small", O_RDONLY | O_DIRECTORY, 0));
	if (fd < 0)
		return;
	/* Too small for even one entry. */
	FS_CHECK_ERR(sys_getdents64((int)fd, buf, 8), EINVAL);
	CHECK_EQ(list_into((int)fd, w, n, 4096), n);
	for (int i = 0; i < n; i++)
		CHECK(w[i].seen == 1, "%s listed %d times", w[i].name,
		    w[i].seen);
	/* At the end it stays at the end. */
	CHECK_EQ(sys_getdents64((int)fd, buf, sizeof(buf)), 0);
	close((int)fd);

	filefd = CHECK_OK(syscall(SYS_open, "small/a", O_RDONLY, 0));
	if (filefd >= 0) {
		FS_CHECK_ERR(sys_getdents64((int)filefd, buf, sizeof(buf)),
		    ENOTDIR);
		close((int)filefd);
	}
	FS_CHECK_ERR(sys_getdents64(-1, buf, sizeof(buf)), EBADF);
}

/* Fills w with ".", ".." and the names "e0000".."e0999" as DT_REG. */
static void
many_names(struct want *w, char (*names)[8])
{
	w[0] = (struct want){ ".", DT_DIR, 0, 0 };
	w[1] = (struct want){ "..", DT_DIR, 0, 0 };
	for (int i = 0; i < NMANY; i++) {
		snprintf(names[i], sizeof(names[i]), "e%04d", i);
		w[i + 2] = (struct want){ names[i], DT_REG, 0, 0 };
	}
}

/* Counts the names of w[0..n) not seen exactly once, and resets them. */
static int
count_wrong(struct want *w, int n, int want)
{
	int wrong = 0;

	for (int i = 0; i < n; i++) {
		if (w[i].seen != want)
			wrong++;
		w[i].seen = 0;
	}
	return wrong;
}

static void
test_getdents_many(void)
{
	static char names[NMANY][8];
	static struct want w[NMANY + 2];
	char path[32];
	long fd;

	many_names(w, names);
	CHECK_OK(mkdir("many", 0755));
	for (int i = 0; i < NMANY; i++) {
		snprintf(path, sizeof(path), "many/e%04d", i);
		if (!CHECK(touch(path), "create %s", path))
			return;
	}
	fd = CHECK_OK(syscall(SYS_open, "many", O_RDONLY | O_DIRECTORY, 0));
	if (fd < 0)
		return;
	/* 64 bytes hold two entries at most: about 500 calls. */
	CHECK_EQ(list_into((int)fd, w, NMANY + 2, 64), NMANY + 2);
	CHECK_EQ(count_wrong(w, NMANY + 2, 1), 0);

	/* lseek to 0 starts over. */
	CHECK_EQ(lseek((int)fd, 0, SEEK_SET), 0);
	CHECK_EQ(list_into((int)fd, w, NMANY + 2, 32768), NMANY + 2);
	CHECK_EQ(count_wrong(w, NMANY + 2, 1), 0);

	/* Removed names are gone from the next listing. */
	for (int i = 0; i < NMANY; i += 2) {
		snprintf(path, sizeof(path), "many/e%04d", i);
		CHECK_OK(unlink(path));
	}
	CHECK_EQ(lseek((int)fd, 0, SEEK_SET), 0);
	CHECK_EQ(list_into((int)fd, w, NMANY + 2, 200), NMANY / 2 + 2);
	for (int i = 0; i < NMANY; i++)
		CHECK(w[i + 2].seen == i % 2, "%s listed %d times",
		    names[i], w[i + 2].seen);
	close((int)fd);
}

/*
 * Removing entries between calls, as "rm -r" and nftw(3) do, must not make
 * the listing skip the entries that remain: POSIX leaves it open only
 * whether the removed ones still show (readdir(3)).  Each name is unlinked
 * as soon as it is read, through a buffer of a few entries.
 */
static void
test_getdents_unlink(void)
{
	static char names[NMANY][8];
	static struct want w[NMANY + 2];
	static uint64_t buf[32];
	const int n = 300;
	char path[32];
	long fd, got;

	many_names(w, names);
	CHECK_OK(mkdir("del", 0755));
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "del/e%04d", i);
		if (!CHECK(touch(path), "create %s", path))
			return;
	}
	fd = CHECK_OK(syscall(SYS_open, "del", O_RDONLY | O_DIRECTORY, 0));
	if (fd < 0)
		return;
	while ((got = sys_getdents64((int)fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			struct fs_dirent64 *d =
			    (struct fs_dirent64 *)((char *)buf + off);
			int i = 0;

			off += d->d_reclen;
			while (i < n + 2 && strcmp(w[i].name, d->d_name) != 0)
				i++;
			if (!CHECK(i < n + 2, "unexpected name \"%s\"",
			    d->d_name))
				continue;
			w[i].seen++;
			if (i >= 2)
				CHECK_OK(syscall(SYS_unlinkat, (int)fd,
				    d->d_name, 0));
		}
	}
	CHECK_EQ(got, 0);
	close((int)fd);
	CHECK_EQ(count_wrong(w, n + 2, 1), 0);
	CHECK_OK(syscall(SYS_rmdir, "del"));
}

/*
 * A d_off from one call, given to lseek(2), resumes the listing right
 * after that entry (getdents64(2), "d_off").
 */
static void
test_getdents_resume(void)
{
	uint64_t buf[512];
	char second[256];
	struct fs_dirent64 *d;
	long fd, got;

	CHECK_OK(mkdir("resume", 0755));
	CHECK(touch("resume/x") && touch("resume/y") && touch("resume/z"),
	    "create resume/{x,y,z}");
	fd = CHECK_OK(syscall(SYS_open, "resume", O_RDONLY | O_DIRECTORY, 0));
	if (fd < 0)
		return;
	got = sys_getdents64((int)fd, buf, sizeof(buf));
	if (!CHECK(got > 0, "getdents64 of resume: %ld", got)) {
		close((int)fd);
		return;
	}
	d = (struct fs_dirent64 *)buf;
	CHECK(d->d_reclen < got, "more than one entry");
	snprintf(second, sizeof(second), "%s",
	    ((struct fs_dirent64 *)((char *)buf + d->d_reclen))->d_name);
	CHECK_EQ(lseek((int)fd, d->d_off, SEEK_SET), d->d_off);
	got = sys_getdents64((int)fd, buf, sizeof(buf));
	CHECK(got > 0 && strcmp(d->d_name, second) == 0,
	    "resumed at \"%s\", want \"%s\"", got > 0 ? d->d_name : "",
	    second);
	close((int)fd);
}

static void
test_mkdir(void)
{
	struct stat st;
	long dirfd;

	CHECK_OK(syscall(SYS_mkdir, "m", 0755));
	CHECK_OK(stat("m", &st));
	CHECK(S_ISDIR(st.st_mode), "m is a directory");
	FS_CHECK_ERR(syscall(SYS_mkdir, "m", 0755), EEXIST);
	CHECK(touch("mf"), "create mf");
	FS_CHECK_ERR(syscall(SYS_mkdir, "mf", 0755), EEXIST);
	CHECK_OK(symlink("nowhere", "mlink"));
	FS_CHECK_ERR(syscall(SYS_mkdir, "mlink", 0755), EEXIST);
	FS_CHECK_ERR(syscall(SYS_mkdir, "nodir/x", 0755), ENOENT);
	FS_CHECK_ERR(syscall(SYS_mkdir, "mf/x", 0755), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_mkdir, "", 0755), ENOENT);
	FS_CHECK_ERR(syscall(SYS_mkdir, ".", 0755), EEXIST);
	FS_CHECK_ERR(syscall(SYS_mkdir, "/", 0755), EEXIST);
	/* A trailing slash is fine for a directory to be. */
	CHECK_OK(syscall(SYS_mkdir, "m2/", 0755));
	CHECK_OK(stat("m2", &st));

	dirfd = CHECK_OK(syscall(SYS_open, "m", O_RDONLY | O_DIRECTORY, 0));
	if (dirfd >= 0) {
		CHECK_OK(syscall(SYS_mkdirat, (int)dirfd, "in", 0755));
		CHECK_OK(stat("m/in", &st));
		FS_CHECK_ERR(syscall(SYS_mkdirat, (int)dirfd, "in", 0755),
		    EEXIST);
		close((int)dirfd);
	}
	CHECK_OK(syscall(SYS_mkdirat, AT_FDCWD, "m3", 0755));
	FS_CHECK_ERR(syscall(SYS_mkdirat, -1, "m4", 0755), EBADF);
}

static void
test_rmdir(void)
{
	struct stat st;

	CHECK_OK(mkdir("r", 0755));
	CHECK_OK(mkdir("r/full", 0755));
	CHECK(touch("r/full/f"), "create r/full/f");
	CHECK(touch("r/file"), "create r/file");
	CHECK_OK(mkdir("r/empty", 0755));
	CHECK_OK(symlink("empty", "r/elink"));

	FS_CHECK_ERR(syscall(SYS_rmdir, "r/full"), ENOTEMPTY);
	FS_CHECK_ERR(syscall(SYS_rmdir, "r/file"), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_rmdir, "r/elink"), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_rmdir, "r/missing"), ENOENT);
	FS_CHECK_ERR(syscall(SYS_rmdir, "r/file/x"), ENOTDIR);
	/* "." is refused as such (rmdir(2), EINVAL); ".." is not empty. */
	FS_CHECK_ERR(syscall(SYS_rmdir, "."), EINVAL);
	FS_CHECK_ERR(syscall(SYS_rmdir, "r/empty/."), EINVAL);
	FS_CHECK_ERR(syscall(SYS_rmdir, "r/empty/.."), ENOTEMPTY);
	CHECK_OK(syscall(SYS_rmdir, "r/empty"));
	FS_CHECK_ERR(stat("r/empty", &st), ENOENT);
	CHECK_OK(syscall(SYS_mkdir, "r/empty", 0755));
	CHECK_OK(syscall(SYS_rmdir, "r/empty/"));
	CHECK_OK(syscall(SYS_unlink, "r/full/f"));
	CHECK_OK(syscall(SYS_rmdir, "r/full"));
}

static void
test_unlink(void)
{
	struct stat st;
	long dirfd;

	CHECK_OK(mkdir("u", 0755));
	CHECK_OK(mkdir("u/d", 0755));
	CHECK(touch("u/f"), "create u/f");
	CHECK(touch("u/g"), "create u/g");
	CHECK_OK(symlink("f", "u/l"));
	CHECK_OK(symlink("d", "u/dl"));

	/* Linux says EISDIR where POSIX says EPERM (unlink(2)). */
	FS_CHECK_ERR(syscall(SYS_unlink, "u/d"), EISDIR);
	FS_CHECK_ERR(syscall(SYS_unlink, "u/missing"), ENOENT);
	FS_CHECK_ERR(syscall(SYS_unlink, "u/f/"), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_unlink, "u/f/x"), ENOTDIR);
	/* Unlinking a link removes the link, not what it names. */
	CHECK_OK(syscall(SYS_unlink, "u/l"));
	CHECK_OK(stat("u/f", &st));
	CHECK_OK(syscall(SYS_unlink, "u/dl"));
	CHECK_OK(stat("u/d", &st));
	CHECK_OK(syscall(SYS_unlink, "u/f"));
	FS_CHECK_ERR(stat("u/f", &st), ENOENT);

	dirfd = CHECK_OK(syscall(SYS_open, "u", O_RDONLY | O_DIRECTORY, 0));
	if (dirfd < 0)
		return;
	FS_CHECK_ERR(syscall(SYS_unlinkat, (int)dirfd, "d", 0), EISDIR);
	FS_CHECK_ERR(syscall(SYS_unlinkat, (int)dirfd, "g", AT_REMOVEDIR),
	    ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_unlinkat, (int)dirfd, "g", 0x1), EINVAL);
	CHECK_OK(syscall(SYS_unlinkat, (int)dirfd, "g", 0));
	CHECK_OK(syscall(SYS_unlinkat, (int)dirfd, "d", AT_REMOVEDIR));
	FS_CHECK_ERR(stat("u/d", &st), ENOENT);
	FS_CHECK_ERR(syscall(SYS_unlinkat, -1, "g", 0), EBADF);
	close((int)dirfd);
}

/* getcwd(2) itself: returns the length with the NUL, or -1. */
static long
sys_getcwd(char *buf, size_t len)
{
	return syscall(SYS_getcwd, buf, len);
}

/* Tells whether getcwd(2) says want. */
static bool
cwd_is(const char *want)
{
	char buf[4096];
	long n = sys_getcwd(buf, sizeof(buf));

	return n == (long)strlen(want) + 1 && strcmp(buf, want) == 0;
}

static void
test_cwd(void)
{
	char want[sizeof(scratch) + 16], buf[4096];
	size_t len = strlen(scratch);
	long top, filefd;

	CHECK(cwd_is(scratch), "getcwd is %s", scratch);
	CHECK_OK(mkdir("c", 0755));
	CHECK_OK(mkdir("c/d", 0755));
	CHECK(touch("c/f"), "create c/f");
	CHECK_OK(symlink("c/d", "cl"));
	top = CHECK_OK(syscall(SYS_open, ".", O_RDONLY | O_DIRECTORY, 0));
	filefd = CHECK_OK(syscall(SYS_open, "c/f", O_RDONLY, 0));
	if (top < 0 || filefd < 0)
		return;

	CHECK_OK(syscall(SYS_chdir, "c"));
	snprintf(want, sizeof(want), "%s/c", scratch);
	CHECK(cwd_is(want), "getcwd is %s", want);
	CHECK_OK(syscall(SYS_chdir, ".."));
	CHECK(cwd_is(scratch), "back in %s", scratch);
	/* getcwd names the directory, not the link used to get there. */
	CHECK_OK(syscall(SYS_chdir, "cl"));
	snprintf(want, sizeof(want), "%s/c/d", scratch);
	CHECK(cwd_is(want), "getcwd is %s", want);
	CHECK_OK(syscall(SYS_fchdir, (int)top));
	CHECK(cwd_is(scratch), "fchdir back to %s", scratch);

	FS_CHECK_ERR(syscall(SYS_chdir, "c/f"), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_chdir, "missing"), ENOENT);
	FS_CHECK_ERR(syscall(SYS_chdir, ""), ENOENT);
	FS_CHECK_ERR(syscall(SYS_fchdir, (int)filefd), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_fchdir, -1), EBADF);
	CHECK(cwd_is(scratch), "failed chdirs stay in %s", scratch);

	/* The buffer must hold the path and its NUL. */
	FS_CHECK_ERR(sys_getcwd(buf, 1), ERANGE);
	FS_CHECK_ERR(sys_getcwd(buf, len), ERANGE);
	CHECK_EQ(sys_getcwd(buf, len + 1), len + 1);

	/* A removed cwd has no name left (getcwd(2), ENOENT). */
	CHECK_OK(syscall(SYS_chdir, "c/d"));
	CHECK_OK(syscall(SYS_rmdir, "../d"));
	FS_CHECK_ERR(sys_getcwd(buf, sizeof(buf)), ENOENT);
	CHECK_OK(syscall(SYS_fchdir, (int)top));
	CHECK(cwd_is(scratch), "fchdir back to %s", scratch);
	close((int)top);
	close((int)filefd);
}

int
main(void)
{
	if (!CHECK(scratch_enter(), "make scratch directory %s", scratch))
		return guest_done();
	test_getdents_types();
	test_getdents_many();
	test_getdents_unlink();
	test_getdents_resume();
	test_mkdir();
	test_rmdir();
	test_unlink();
	test_cwd();
	CHECK(scratch_leave(), "remove scratch directory %s", scratch);
	return guest_done();
}
