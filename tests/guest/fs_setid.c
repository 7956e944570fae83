/*
 * Verifies owners and set-id bits in a sticky world-writable directory, as
 * root and as users 1234 and 65534 (root drops to them in children): new
 * files, directories, FIFOs and symlinks belong to their maker, with the
 * set-id bits Linux lets it keep (mkdir(2) takes none); chmod(2) by a
 * non-owner is EPERM, and by the owner drops S_ISGID outside the file's
 * group; chown(2) takes the set-id bits away, even to the same ids; a
 * write, truncate or fallocate by anyone but root takes them away too;
 * open(O_CREAT|O_EXCL) with any mode gives the maker its descriptor, and
 * a create that fails (EEXIST through a dangling symlink, EACCES, EMFILE,
 * EISDIR) leaves no file behind; in a set-gid directory new files take
 * its group.
 *
 * usage: fs_setid                 in a scratch directory under /tmp, which
 *                                 is removed at the end (without root,
 *                                 only the caller's own uid runs)
 *        fs_setid DIR [OWNER]     in DIR (1777, e.g. a host bind), keeping
 *                                 the files for the caller to check; each
 *                                 is named "UID-..." after the uid that
 *                                 should own it, a create that failed would
 *                                 have made a "fail-..." name, and every
 *                                 entry is listed on stdout as "L name
 *                                 mode uid gid" (mode as stat -c %a says).
 *                                 OWNER: every file belongs to that uid
 *                                 whoever made it (vkernel run by a user
 *                                 that cannot give files away), and a file
 *                                 keeps set-id bits only if its maker is
 *                                 OWNER.  Without root, only the caller's
 *                                 own uid runs.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <fcntl.h>

#include "guest.h"
#include "fs_common.h"

#define SETID	(S_ISUID | S_ISGID)

static bool forced;		/* OWNER given */
static uid_t forced_owner;
static bool have_root;		/* the root phase ran: 1234's files exist */
static bool scratch_dir;	/* no DIR: a scratch directory */

/* The uid a file made by uid belongs to. */
static uid_t
owner_of(uid_t uid)
{
	return forced ? forced_owner : uid;
}

/* Whether a file uid makes may keep the set-id bits Linux gives it. */
static bool
keeps_setid(uid_t uid)
{
	return owner_of(uid) == uid;
}

/*
 * name_of(fmt, ...): a name in one of four rotating buffers, for a call
 * or two: the fifth call reuses the first buffer.
 */
static const char * __attribute__((format(printf, 1, 2)))
name_of(const char *fmt, ...)
{
	static char bufs[4][64];
	static int next;
	char *b = bufs[next++ % 4];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(bufs[0]), fmt, ap);
	va_end(ap);
	return b;
}

static struct stat
st_of(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		memset(&st, 0, sizeof(st));
	return st;
}

/* The permission and set-id bits of path, or -1 when it has none. */
static long
perm_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? (long)(st.st_mode & 07777) : -1;
}

/* The mode a file uid made with mode m has: m, set-id bits kept or not. */
static long
made_mode(uid_t uid, mode_t m)
{
	return keeps_setid(uid) ? (long)m : (long)(m & ~SETID);
}

/* Every set-id file's owner is who made it or chmod-ed it: never root. */
static void
check_owner(const char *path, uid_t maker)
{
	struct stat st = st_of(path);

	CHECK_EQ(st.st_uid, owner_of(maker));
	CHECK(!(st.st_mode & S_ISUID) || st.st_uid == maker,
	    "%s: set-uid %o owned by %u, made by %u", path,
	    (unsigned)st.st_mode, (unsigned)st.st_uid, (unsigned)maker);
}

/*
 * After u wrote or truncated path: its mode is kept when root did it, else
 * lost.  Root inside a vkernel that is not host root (a user namespace's)
 * may lose them too: the host takes them away itself.
 */
static void
check_written(const char *path, uid_t u, long kept, long lost)
{
	long m = perm_of(path);

	if (u != 0)
		CHECK_EQ(m, lost);
	else if (forced)
		CHECK(m == kept || m == lost, "%s: mode %lo", path, m);
	else
		CHECK_EQ(m, kept);
}

/* Makes path with O_CREAT|O_EXCL and mode; returns the fd or -1. */
static int
create(const char *path, int acc, mode_t mode)
{
	return (int)syscall(SYS_open, path, acc | O_CREAT | O_EXCL, mode);
}

static void
write_some(int fd)
{
	CHECK_EQ(syscall(SYS_write, fd, "#!/bin/sh\nid\n", 13), 13);
}

/* Creating: modes, owners, set-id bits, and writes that drop them. */
static void
test_create(uid_t u)
{
	char s4777[64], s6755[64], s0[64];
	int fd;

	snprintf(s4777, sizeof(s4777), "%u-s4777", u);
	snprintf(s6755, sizeof(s6755), "%u-s6755", u);
	snprintf(s0, sizeof(s0), "%u-s0", u);
	/* The hole: a set-uid file of the maker's choosing, owned by root. */
	fd = CHECK_OK(create(s4777, O_RDWR, 04777));
	CHECK_EQ(perm_of(s4777), made_mode(u, 04777));
	check_owner(s4777, u);
	if (fd >= 0) {
		write_some(fd);
		/* Anyone but root writing takes set-uid away. */
		check_written(s4777, u, made_mode(u, 04777), 0777);
		close(fd);
	}
	/* Once EACCES after the host had made the file. */
	fd = CHECK_OK(create(s6755, O_WRONLY, 06755));
	if (fd >= 0)
		close(fd);
	CHECK_EQ(perm_of(s6755), made_mode(u, 06755));
	check_owner(s6755, u);
	/* Mode 0: the maker gets its descriptor all the same. */
	fd = CHECK_OK(create(s0, O_RDWR, 0));
	if (fd >= 0) {
		write_some(fd);
		close(fd);
	}
	CHECK_EQ(perm_of(s0), 0);
	check_owner(s0, u);

	/* mkdir(2) takes no set-id bits; chmod(2) of one's own does. */
	CHECK_OK(mkdir(name_of("%u-d", u), 06755));
	CHECK_EQ(perm_of(name_of("%u-d", u)), 0755);
	check_owner(name_of("%u-d", u), u);
	if (owner_of(u) == u) {
		CHECK_OK(chmod(name_of("%u-d", u), 02755));
		CHECK_EQ(perm_of(name_of("%u-d", u)), 02755);
	} else {
		FS_CHECK_ERR(chmod(name_of("%u-d", u), 02755), EPERM);
	}
	CHECK_OK(mknod(name_of("%u-p", u), S_IFIFO | 06666, 0));
	/* vkernel on a host before Linux 6.6 cannot chmod a FIFO it made. */
	CHECK(perm_of(name_of("%u-p", u)) == made_mode(u, 06666) ||
	    (!scratch_dir && perm_of(name_of("%u-p", u)) == 0666),
	    "%u-p: mode %lo", u, perm_of(name_of("%u-p", u)));
	check_owner(name_of("%u-p", u), u);
	CHECK_OK(symlink(s4777, name_of("%u-l", u)));
	check_owner(name_of("%u-l", u), u);
}

/* chmod and chown of one's own files, and what they do to set-id bits. */
static void
test_own(uid_t u, gid_t g)
{
	const char *f = name_of("%u-c", u);
	int fd;

	fd = CHECK_OK(create(f, O_RDWR, 0755));
	if (fd < 0)
		return;
	if (owner_of(u) != u) {
		FS_CHECK_ERR(syscall(SYS_fchmod, fd, 04755), EPERM);
		close(fd);
		return;
	}
	CHECK_OK(syscall(SYS_fchmod, fd, 06777));
	CHECK_EQ(perm_of(f), 06777);
	check_owner(f, u);
	write_some(fd);
	check_written(f, u, 06777, 0777);
	/* chown, to no new id at all, still takes them away. */
	CHECK_OK(syscall(SYS_fchmod, fd, 06755));
	CHECK_OK(syscall(SYS_fchown, fd, -1, -1));
	CHECK_EQ(perm_of(f), 0755);
	CHECK_OK(syscall(SYS_fchmod, fd, 06745));
	CHECK_OK(syscall(SYS_fchown, fd, u, g));
	/* S_ISGID without group-x marks locking: its group's may keep it. */
	CHECK_EQ(perm_of(f), 02745);
	if (u != 0) {
		FS_CHECK_ERR(syscall(SYS_fchown, fd, 0, -1), EPERM);
		FS_CHECK_ERR(syscall(SYS_fchown, fd, -1, 0), EPERM);
	}
	CHECK_OK(syscall(SYS_fchmod, fd, 04777));
	/* truncate(2) by anyone but root takes set-uid away too. */
	CHECK_OK(syscall(SYS_ftruncate, fd, 0));
	check_written(f, u, 04777, 0777);
	close(fd);
}

/*
 * Creates that fail leave nothing.  Each would have made a "fail-" name:
 * the caller checks none is there.
 */
static void
test_create_fails(uid_t u)
{
	char target[64], dangling[64], emfile[64];
	struct rlimit rl, low;
	int fd;

	snprintf(target, sizeof(target), "fail-%u-target", u);
	snprintf(dangling, sizeof(dangling), "%u-dangling", u);
	snprintf(emfile, sizeof(emfile), "fail-%u-emfile", u);
	FS_CHECK_ERR(create(name_of("%u-s6755", u), O_RDWR, 06755), EEXIST);
	/* O_EXCL: a dangling symlink is not followed to make its target. */
	CHECK_OK(symlink(target, dangling));
	FS_CHECK_ERR(create(dangling, O_WRONLY, 04755), EEXIST);
	CHECK(gone(target), "%s made through %s", target, dangling);
	FS_CHECK_ERR(create(name_of("fail-%u-slash/", u), O_RDWR, 04755),
	    EISDIR);
	CHECK(gone(name_of("fail-%u-slash", u)), "fail-%u-slash made", u);
	if (have_root && u != 0) {
		FS_CHECK_ERR(create(name_of("0-locked/fail-%u", u), O_RDWR,
		    04755), EACCES);
		CHECK(gone(name_of("0-locked/fail-%u", u)), "0-locked/...");
	}
	/* No descriptor free: Linux takes one before it makes the file. */
	fd = (int)CHECK_OK(dup(0));
	if (fd < 0 || CHECK_OK(getrlimit(RLIMIT_NOFILE, &rl)) < 0)
		return;
	close(fd);
	low = rl;
	low.rlim_cur = (rlim_t)fd;
	CHECK_OK(setrlimit(RLIMIT_NOFILE, &low));
	FS_CHECK_ERR(create(emfile, O_RDWR, 04755), EMFILE);
	CHECK_OK(setrlimit(RLIMIT_NOFILE, &rl));
	CHECK(gone(emfile), "%s made by an open that gave EMFILE", emfile);
}

/* Root's own: it keeps set-id bits through writes, not through chown. */
static void
test_root(void)
{
	int fd;

	CHECK_OK(mkdir("0-locked", 0755));
	/* For 1234: a file of group 0, which 1234 is not in. */
	fd = CHECK_OK(create("1234-g0", O_RDWR, 0755));
	if (fd >= 0) {
		if (forced) {
			CHECK(syscall(SYS_fchown, fd, 1234, 0) == 0 ||
			    errno == EPERM || errno == EINVAL,
			    "fchown to 1234 by root");
		} else {
			CHECK_OK(syscall(SYS_fchown, fd, 1234, 0));
		}
		close(fd);
	}
	/* For 65534: a set-gid directory of group 1234, which it is not in. */
	CHECK_OK(mkdir("0-sgid", 0777));
	CHECK_OK(chmod("0-sgid", 02777));
	if (forced)
		(void)chown("0-sgid", -1, 1234);
	else
		CHECK_OK(chown("0-sgid", -1, 1234));
	/* chown by root takes them away too, even to the same owner. */
	CHECK_OK(chown("0-s6755", 0, 0));
	CHECK_EQ(perm_of("0-s6755"), 0755);
}

/* 1234 as the owner of a file of a group it is not in. */
static void
test_1234_group0(void)
{
	if (st_of("1234-g0").st_uid != 1234)
		return;
	/* Outside the file's group, chmod drops S_ISGID and says nothing. */
	CHECK_OK(chmod("1234-g0", 06755));
	CHECK_EQ(perm_of("1234-g0"), made_mode(1234, 04755));
	CHECK_OK(chmod("1234-g0", 0755));
	FS_CHECK_ERR(chown("1234-g0", -1, 1234 + 1), EPERM);
}

/* 1234 leaves files for 65534 to attack. */
static void
test_1234_bait(void)
{
	static const struct {
		const char *name;
		mode_t mode;
	} bait[] = {
		{ "1234-w6777", 06777 }, { "1234-t4777", 04777 },
		{ "1234-a4777", 04777 }, { "1234-g2767", 02767 },
	};

	for (size_t i = 0; i < sizeof(bait) / sizeof(bait[0]); i++) {
		int fd = CHECK_OK(create(bait[i].name, O_RDWR, 0));

		if (fd < 0)
			continue;
		if (keeps_setid(1234))
			CHECK_OK(syscall(SYS_fchmod, fd, bait[i].mode));
		else
			FS_CHECK_ERR(syscall(SYS_fchmod, fd, bait[i].mode),
			    EPERM);
		close(fd);
	}
}

/*
 * 65534 in a set-gid directory of another group: what it makes takes the
 * directory's group, a directory S_ISGID too, and a group-executable file
 * loses the S_ISGID its maker, outside that group, asked for.
 */
static void
test_65534_sgid_dir(void)
{
	struct stat st;
	int fd;

	if (st_of("0-sgid").st_gid != 1234)
		return;
	fd = CHECK_OK(create("0-sgid/65534-f", O_RDWR, 02755));
	if (fd >= 0)
		close(fd);
	st = st_of("0-sgid/65534-f");
	CHECK_EQ(st.st_gid, 1234);
	CHECK_EQ(st.st_mode & 07777, 0755);
	CHECK_OK(mkdir("0-sgid/65534-d", 0755));
	st = st_of("0-sgid/65534-d");
	CHECK_EQ(st.st_gid, 1234);
	CHECK_EQ(st.st_mode & 07777, 02755);
}

/* Opens path for writing and writes (or with falloc, allocates) in it. */
static void
write_path(const char *path, bool falloc)
{
	int fd = (int)CHECK_OK(syscall(SYS_open, path, O_WRONLY));

	if (fd < 0)
		return;
	if (falloc)
		CHECK_OK(syscall(SYS_fallocate, fd, 0, 0, 4096));
	else
		write_some(fd);
	close(fd);
}

/* 65534 on 1234's files: no chmod, no chown; writing takes set-id away. */
static void
test_65534_attack(void)
{
	if (!keeps_setid(1234))
		return;
	FS_CHECK_ERR(chmod("1234-w6777", 06777), EPERM);
	FS_CHECK_ERR(chown("1234-w6777", 65534, -1), EPERM);
	FS_CHECK_ERR(chown("1234-w6777", -1, -1), EPERM);
	CHECK_EQ(perm_of("1234-w6777"), 06777);
	write_path("1234-w6777", false);
	CHECK_EQ(perm_of("1234-w6777"), 0777);
	CHECK_OK(truncate("1234-t4777", 1));
	CHECK_EQ(perm_of("1234-t4777"), 0777);
	write_path("1234-a4777", true);
	CHECK_EQ(perm_of("1234-a4777"), 0777);
	/* A locking S_ISGID goes when the writer is not in the group. */
	write_path("1234-g2767", false);
	CHECK_EQ(perm_of("1234-g2767"), 0767);
	check_owner("1234-g2767", 1234);
}

static void
run_user(uid_t u, gid_t g)
{
	test_create(u);
	test_own(u, g);
	test_create_fails(u);
	if (have_root && u == 1234) {
		test_1234_group0();
		test_1234_bait();
	}
	if (have_root && u == 65534) {
		test_65534_attack();
		test_65534_sgid_dir();
	}
}

/* Runs run_user() as u:g in a child; its failures are counted there. */
static void
as_user(uid_t u, gid_t g)
{
	int status = 0;
	pid_t pid = fork();

	if (!CHECK(pid >= 0, "fork"))
		return;
	if (pid == 0) {
		guest_failures = 0;
		if (syscall(SYS_setgroups, 0, NULL) < 0 ||
		    syscall(SYS_setresgid, g, g, g) < 0 ||
		    syscall(SYS_setresuid, u, u, u) < 0)
			_exit(3);
		run_user(u, g);
		_exit(guest_failures != 0 ? 1 : 0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "checks as %u: status %#x", (unsigned)u, status);
}

/* Lists the directory's entries as "L name mode uid gid". */
static void
list_dir(void)
{
	DIR *d = opendir(".");
	struct dirent *e;

	if (!CHECK(d != NULL, "opendir"))
		return;
	while ((e = readdir(d)) != NULL) {
		struct stat st = st_of(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		guest_note("L %s %o %u %u", e->d_name,
		    (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
		    (unsigned)st.st_gid);
	}
	closedir(d);
}

int
main(int argc, char **argv)
{
	scratch_dir = argc < 2;
	if (argc > 2) {
		forced = true;
		forced_owner = (uid_t)strtoul(argv[2], NULL, 10);
	}
	if (scratch_dir ? !CHECK(scratch_enter(), "scratch dir") ||
	    CHECK_OK(chmod(".", 01777)) < 0 : CHECK_OK(chdir(argv[1])) < 0)
		return guest_done();
	umask(0);
	if (geteuid() == 0) {
		have_root = true;
		run_user(0, 0);
		test_root();
		as_user(1234, 1234);
		as_user(65534, 65534);
	} else {
		run_user(geteuid(), getegid());
	}
	if (scratch_dir)
		CHECK(scratch_leave(), "remove %s", scratch);
	else
		list_dir();
	return guest_done();
}
