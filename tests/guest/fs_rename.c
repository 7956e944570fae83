/*
 * Verifies rename(2), renameat(2) and renameat2(2) (RENAME_NOREPLACE,
 * RENAME_EXCHANGE), link(2)/linkat(2), and symlink(2) with readlink(2) and
 * readlinkat(2): what moves, what is replaced, and each refusal with the
 * errno Linux gives.  With the argument "nobody", as uid 65534.
 */
#include <sys/stat.h>

#include <fcntl.h>

#include "guest.h"
#include "fs_common.h"
#include "int_common.h"

/* musl 1.2.3 lacks them; the values are the Linux UAPI ones. */
#define FS_RENAME_NOREPLACE	(1U << 0)
#define FS_RENAME_EXCHANGE	(1U << 1)
#define FS_RENAME_BOGUS		(1U << 7)

static long
sys_renameat2(int olddir, const char *old, int newdir, const char *new,
    unsigned flags)
{
	return syscall(SYS_renameat2, olddir, old, newdir, new, flags);
}

/* Creates path holding text; false on failure. */
static bool
put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	return close(fd) == 0 && ok;
}

static void
test_rename_files(void)
{
	uint64_t ino;
	long dfd;

	CHECK(put_file("a", "A"), "create a");
	ino = ino_of("a");
	CHECK_OK(syscall(SYS_rename, "a", "b"));
	CHECK(gone("a"), "a is gone");
	CHECK(has_text("b", "A") && ino_of("b") == ino, "b is the old a");
	/* Onto an existing file: replaced, in one step. */
	CHECK(put_file("c", "C"), "create c");
	CHECK_OK(syscall(SYS_rename, "b", "c"));
	CHECK(gone("b"), "b is gone");
	CHECK(has_text("c", "A") && ino_of("c") == ino, "c is the old b");
	/* Onto itself, or a hard link of itself, nothing happens. */
	CHECK_OK(syscall(SYS_rename, "c", "c"));
	CHECK(has_text("c", "A"), "c survives rename onto itself");
	CHECK_OK(link("c", "c2"));
	CHECK_OK(syscall(SYS_rename, "c", "c2"));
	CHECK(ino_of("c") == ino && ino_of("c2") == ino,
	    "both hard links stay (rename(2))");

	/* renameat between two directories. */
	CHECK_OK(mkdir("rd", 0755));
	dfd = CHECK_OK(syscall(SYS_open, "rd", O_RDONLY | O_DIRECTORY, 0));
	if (dfd >= 0) {
		CHECK_OK(syscall(SYS_renameat, AT_FDCWD, "c2", (int)dfd,
		    "moved"));
		CHECK(ino_of("rd/moved") == ino && gone("c2"),
		    "c2 moved to rd/moved");
		CHECK_OK(syscall(SYS_renameat, (int)dfd, "moved", (int)dfd,
		    "m2"));
		CHECK(ino_of("rd/m2") == ino, "renamed inside rd");
		FS_CHECK_ERR(syscall(SYS_renameat, (int)dfd, "nope",
		    AT_FDCWD, "x"), ENOENT);
		close((int)dfd);
	}
	FS_CHECK_ERR(syscall(SYS_renameat, -1, "c", AT_FDCWD, "x"), EBADF);
	FS_CHECK_ERR(syscall(SYS_rename, "missing", "x"), ENOENT);
	FS_CHECK_ERR(syscall(SYS_rename, "c", "nodir/x"), ENOENT);
	FS_CHECK_ERR(syscall(SYS_rename, "c", "c/x"), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_rename, "c/", "x"), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_rename, "", "x"), ENOENT);
	/* A symlink is renamed as itself. */
	CHECK_OK(symlink("c", "sl"));
	CHECK_OK(syscall(SYS_rename, "sl", "sl2"));
	CHECK(has_text("sl2", "A") && ino_of("c") == ino,
	    "the link moved, its target did not");
}

static void
test_rename_dirs(void)
{
	uint64_t ino;

	CHECK_OK(mkdir("d", 0755));
	CHECK(put_file("d/in", "in"), "create d/in");
	CHECK_OK(mkdir("d/sub", 0755));
	CHECK_OK(mkdir("full", 0755));
	CHECK(put_file("full/x", "x"), "create full/x");
	CHECK_OK(mkdir("empty", 0755));
	CHECK(put_file("file", "f"), "create file");
	ino = ino_of("d");

	FS_CHECK_ERR(syscall(SYS_rename, "d", "full"), ENOTEMPTY);
	FS_CHECK_ERR(syscall(SYS_rename, "d", "d/sub/d"), EINVAL);
	FS_CHECK_ERR(syscall(SYS_rename, "d", "d/new"), EINVAL);
	FS_CHECK_ERR(syscall(SYS_rename, "file", "empty"), EISDIR);
	FS_CHECK_ERR(syscall(SYS_rename, "d", "file"), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_rename, ".", "x"), EBUSY);
	FS_CHECK_ERR(syscall(SYS_rename, "d", "."), EBUSY);
	CHECK(has_text("d/in", "in") && ino_of("d") == ino,
	    "refused renames leave d");

	/* Over an empty directory: replaced. */
	CHECK_OK(syscall(SYS_rename, "d", "empty"));
	CHECK(gone("d") && ino_of("empty") == ino, "d replaced empty");
	CHECK(has_text("empty/in", "in"), "its contents came along");
	/* Moved into another directory, its ".." follows. */
	CHECK_OK(syscall(SYS_rename, "empty", "full/moved"));
	CHECK(ino_of("full/moved/..") == ino_of("full"),
	    "the moved directory's .. is its new parent");
	CHECK(has_text("full/moved/in", "in"), "full/moved/in");
	/* A trailing slash is fine on directories. */
	CHECK_OK(syscall(SYS_rename, "full/moved/", "back/"));
	CHECK(ino_of("back") == ino, "renamed with trailing slashes");
}

static void
test_renameat2(void)
{
	uint64_t ip, iq;

	CHECK(put_file("p", "P"), "create p");
	CHECK(put_file("q", "Q"), "create q");
	ip = ino_of("p");
	iq = ino_of("q");

	/* RENAME_NOREPLACE: never over an existing name, even the same. */
	FS_CHECK_ERR(sys_renameat2(AT_FDCWD, "p", AT_FDCWD, "q",
	    FS_RENAME_NOREPLACE), EEXIST);
	CHECK(has_text("p", "P") && has_text("q", "Q"), "nothing moved");
	CHECK_OK(sys_renameat2(AT_FDCWD, "p", AT_FDCWD, "p2",
	    FS_RENAME_NOREPLACE));
	CHECK(gone("p") && ino_of("p2") == ip, "p moved to p2");
	CHECK_OK(sys_renameat2(AT_FDCWD, "p2", AT_FDCWD, "p", 0));

	/* RENAME_EXCHANGE swaps the two names atomically. */
	CHECK_OK(sys_renameat2(AT_FDCWD, "p", AT_FDCWD, "q",
	    FS_RENAME_EXCHANGE));
	CHECK(has_text("p", "Q") && has_text("q", "P"), "contents swapped");
	CHECK(ino_of("p") == iq && ino_of("q") == ip, "inodes swapped");
	/* A file and a directory can trade places too. */
	CHECK_OK(mkdir("xd", 0755));
	CHECK(put_file("xd/inside", "i"), "create xd/inside");
	CHECK_OK(sys_renameat2(AT_FDCWD, "p", AT_FDCWD, "xd",
	    FS_RENAME_EXCHANGE));
	CHECK(has_text("xd", "Q") && has_text("p/inside", "i"),
	    "file and directory swapped");
	FS_CHECK_ERR(sys_renameat2(AT_FDCWD, "q", AT_FDCWD, "missing",
	    FS_RENAME_EXCHANGE), ENOENT);
	FS_CHECK_ERR(sys_renameat2(AT_FDCWD, "missing", AT_FDCWD, "q",
	    FS_RENAME_EXCHANGE), ENOENT);

	/* The two flags exclude each other; unknown flags are refused. */
	FS_CHECK_ERR(sys_renameat2(AT_FDCWD, "q", AT_FDCWD, "xd",
	    FS_RENAME_NOREPLACE | FS_RENAME_EXCHANGE), EINVAL);
	FS_CHECK_ERR(sys_renameat2(AT_FDCWD, "q", AT_FDCWD, "q3",
	    FS_RENAME_BOGUS), EINVAL);
	CHECK(gone("q3") && has_text("q", "P"), "refused renames do nothing");
}

static void
test_link(void)
{
	struct stat st;
	long dfd;

	CHECK(put_file("t", "T"), "create t");
	CHECK_OK(mkdir("ld", 0755));
	CHECK_OK(symlink("t", "tl"));
	CHECK_OK(syscall(SYS_link, "t", "t2"));
	CHECK(ino_of("t2") == ino_of("t"), "t2 is t");
	CHECK_OK(stat("t", &st));
	CHECK_EQ(st.st_nlink, 2);
	FS_CHECK_ERR(syscall(SYS_link, "t", "t2"), EEXIST);
	FS_CHECK_ERR(syscall(SYS_link, "t", "ld"), EEXIST);
	/* No hard links to directories (link(2), EPERM). */
	FS_CHECK_ERR(syscall(SYS_link, "ld", "ld2"), EPERM);
	FS_CHECK_ERR(syscall(SYS_link, "missing", "x"), ENOENT);
	FS_CHECK_ERR(syscall(SYS_link, "t", "nodir/x"), ENOENT);
	FS_CHECK_ERR(syscall(SYS_link, "t/x", "x"), ENOTDIR);
	FS_CHECK_ERR(syscall(SYS_link, "t", "x/"), ENOENT);

	/* link(2) does not follow a symlink; linkat does when asked. */
	CHECK_OK(syscall(SYS_link, "tl", "tl2"));
	CHECK(ino_of("tl2") == ino_of("tl"), "link of a symlink is the link");
	CHECK_OK(syscall(SYS_linkat, AT_FDCWD, "tl", AT_FDCWD, "tl3", 0));
	CHECK(ino_of("tl3") == ino_of("tl"), "linkat 0 does not follow");
	CHECK_OK(syscall(SYS_linkat, AT_FDCWD, "tl", AT_FDCWD, "tl4",
	    AT_SYMLINK_FOLLOW));
	CHECK(ino_of("tl4") == ino_of("t"), "AT_SYMLINK_FOLLOW follows");
	dfd = CHECK_OK(syscall(SYS_open, "ld", O_RDONLY | O_DIRECTORY, 0));
	if (dfd >= 0) {
		CHECK_OK(syscall(SYS_linkat, AT_FDCWD, "t", (int)dfd, "t5",
		    0));
		CHECK(ino_of("ld/t5") == ino_of("t"), "ld/t5 is t");
		CHECK_OK(stat("t", &st));
		CHECK_EQ(st.st_nlink, 4);
		close((int)dfd);
	}
	FS_CHECK_ERR(syscall(SYS_linkat, AT_FDCWD, "t", AT_FDCWD, "t6",
	    0x1), EINVAL);
	FS_CHECK_ERR(syscall(SYS_linkat, -1, "t", AT_FDCWD, "t6", 0), EBADF);
}

static void
test_symlink_readlink(void)
{
	static char target[4097];
	char buf[64];
	long dfd;

	CHECK_OK(syscall(SYS_symlink, "some/where", "s"));
	memset(buf, '#', sizeof(buf));
	/* No NUL is added, and the length is returned. */
	CHECK_EQ(syscall(SYS_readlink, "s", buf, sizeof(buf)), 10);
	CHECK(memcmp(buf, "some/where#", 11) == 0, "readlink gives the "
	    "target without a NUL");
	/* A short buffer gets what fits. */
	CHECK_EQ(syscall(SYS_readlink, "s", buf, 4), 4);
	CHECK(memcmp(buf, "some", 4) == 0, "a short readlink is cut");
	FS_CHECK_ERR(syscall(SYS_readlink, "s", buf, 0), EINVAL);
	FS_CHECK_ERR(syscall(SYS_readlink, "missing", buf, sizeof(buf)),
	    ENOENT);
	CHECK(put_file("reg", "r"), "create reg");
	FS_CHECK_ERR(syscall(SYS_readlink, "reg", buf, sizeof(buf)), EINVAL);
	FS_CHECK_ERR(syscall(SYS_readlink, ".", buf, sizeof(buf)), EINVAL);
	FS_CHECK_ERR(syscall(SYS_readlink, "reg/x", buf, sizeof(buf)),
	    ENOTDIR);

	FS_CHECK_ERR(syscall(SYS_symlink, "x", "s"), EEXIST);
	FS_CHECK_ERR(syscall(SYS_symlink, "x", "reg"), EEXIST);
	FS_CHECK_ERR(syscall(SYS_symlink, "", "empty"), ENOENT);
	FS_CHECK_ERR(syscall(SYS_symlink, "x", "nodir/s"), ENOENT);
	/* The target is only text: ".." and missing names are fine. */
	CHECK_OK(syscall(SYS_symlink, "../../no/such", "odd"));
	CHECK_EQ(syscall(SYS_readlink, "odd", buf, sizeof(buf)), 13);

	/* A 4095-byte target fits, 4096 bytes do not. */
	memset(target, 'a', sizeof(target) - 1);
	target[4095] = '\0';
	CHECK_OK(syscall(SYS_symlink, target, "long"));
	CHECK_EQ(syscall(SYS_readlink, "long", target, 4096), 4095);
	memset(target, 'a', sizeof(target) - 1);
	target[4096] = '\0';
	FS_CHECK_ERR(syscall(SYS_symlink, target, "toolong"), ENAMETOOLONG);

	CHECK_OK(mkdir("sd", 0755));
	dfd = CHECK_OK(syscall(SYS_open, "sd", O_RDONLY | O_DIRECTORY, 0));
	if (dfd < 0)
		return;
	CHECK_OK(syscall(SYS_symlinkat, "../s", (int)dfd, "rel"));
	CHECK_EQ(syscall(SYS_readlinkat, (int)dfd, "rel", buf, sizeof(buf)),
	    4);
	CHECK(memcmp(buf, "../s", 4) == 0, "readlinkat sd/rel");
	CHECK_EQ(syscall(SYS_readlinkat, AT_FDCWD, "sd/rel", buf,
	    sizeof(buf)), 4);
	FS_CHECK_ERR(syscall(SYS_readlinkat, (int)dfd, "s", buf,
	    sizeof(buf)), ENOENT);
	FS_CHECK_ERR(syscall(SYS_readlinkat, -1, "rel", buf, sizeof(buf)),
	    EBADF);
	FS_CHECK_ERR(syscall(SYS_symlinkat, "x", -1, "y"), EBADF);
	close((int)dfd);
}

/*
 * A mount point never moves and nothing moves onto one: EBUSY, once the
 * caller may write both directories (EACCES before that).
 */
static void
test_rename_mountpoint(void)
{
	int busy = geteuid() == 0 ? EBUSY : EACCES;

	CHECK_ERR(rename("/proc", "/proc.moved"), busy);
	CHECK_ERR(sys_renameat2(AT_FDCWD, "/proc", AT_FDCWD, "/sys",
	    FS_RENAME_EXCHANGE), busy);
	CHECK_ERR(sys_renameat2(AT_FDCWD, "/sys", AT_FDCWD, "/proc",
	    FS_RENAME_EXCHANGE), busy);
	CHECK(access("/proc/self", F_OK) == 0, "/proc still there");
}

int
main(int argc, char **argv)
{
	int r;

	if ((r = int_drop_if_asked(argc, argv)) != 0)
		return r;
	if (!CHECK(scratch_enter(), "make scratch directory %s", scratch))
		return guest_done();
	test_rename_files();
	test_rename_dirs();
	test_renameat2();
	test_link();
	test_symlink_readlink();
	test_rename_mountpoint();
	CHECK(scratch_leave(), "remove scratch directory %s", scratch);
	return guest_done();
}
