/*
 * Verifies that supplementary groups count wherever Linux asks whether
 * the caller is in a file's group (in_group_p()): the group bits of the
 * mode for open(2) and access(2), the groups an owner may chown(2) its
 * file to, whether chmod(2) keeps the set-gid bit, and whether a file
 * made in a set-gid directory keeps it.  Root makes files
 * of uid 1234 and group 4321, then children of uid 65534 read them with
 * and without 4321 among their groups.
 *
 *   fs_groups [BASE]     all of it in a new directory in BASE (/tmp)
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <grp.h>
#include <stdio.h>

#include "guest.h"
#include "fs_common.h"

#define OWNER	1234
#define USER	65534
#define GROUP	4321	/* the files' group */
#define OTHER	4322	/* a group the user is never in */
#define USER_GID 5000	/* the user's own gid: neither of the above */

static bool
make_file(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, "data", 4) == 4;
	return close(fd) == 0 && chown(path, uid, gid) == 0 &&
	    chmod(path, mode) == 0 && ok;
}

static int
open_close(const char *path)
{
	int fd = open(path, O_RDONLY);

	return fd < 0 ? -1 : close(fd);
}

static mode_t
mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

/*
 * What the user makes in "sgid", a set-gid directory of GROUP, takes its
 * group; an executable keeps set-gid only when the user is in the group,
 * a directory always gets it.
 */
static void
make_in_sgid(const char *name, bool member)
{
	char path[64], dir[64];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "sgid/%s", name);
	snprintf(dir, sizeof(dir), "sgid/%s.d", name);
	umask(0);
	fd = CHECK_OK(open(path, O_WRONLY | O_CREAT | O_EXCL, 02755));
	if (fd >= 0)
		close(fd);
	if (CHECK_OK(stat(path, &st)) == 0)
		CHECK(st.st_gid == GROUP && (st.st_mode & 07777) ==
		    (member ? 02755U : 0755U), "%s: gid %u mode %#o", path,
		    (unsigned)st.st_gid, (unsigned)st.st_mode & 07777);
	CHECK_OK(mkdir(dir, 0755));
	if (CHECK_OK(stat(dir, &st)) == 0)
		CHECK(st.st_gid == GROUP && (st.st_mode & 07777) == 02755,
		    "%s: gid %u mode %#o", dir, (unsigned)st.st_gid,
		    (unsigned)st.st_mode & 07777);
}

/* The user with GROUP among its groups (GROUP and OTHER are not its gid). */
static void
in_group(void)
{
	gid_t g[64];

	CHECK(getgroups(64, g) == 1 && g[0] == GROUP, "getgroups");
	CHECK_OK(open_close("g040"));
	CHECK_OK(access("g040", R_OK));
	CHECK_OK(faccessat(AT_FDCWD, "g040", R_OK, AT_EACCESS));
	FS_CHECK_ERR(open_close("g400"), EACCES);
	FS_CHECK_ERR(access("g400", R_OK), EACCES);
	FS_CHECK_ERR(open_close("o040"), EACCES);
	/* The group's bits, not the others', even where those allow more. */
	FS_CHECK_ERR(open_close("g004"), EACCES);
	if (CHECK_OK(chdir("gdir")) == 0)
		CHECK_OK(chdir(".."));

	/* An owner gives its file to a group of its own, not to another. */
	CHECK_OK(chown("mine", (uid_t)-1, GROUP));
	FS_CHECK_ERR(chown("mine", (uid_t)-1, OTHER), EPERM);
	CHECK_OK(chmod("mine", 02750));
	CHECK(mode_of("mine") == 02750, "set-gid kept in group %d: %#o",
	    GROUP, (unsigned)mode_of("mine"));
	CHECK_OK(chmod("mine.other", 02750));
	CHECK(mode_of("mine.other") == 0750, "set-gid dropped: %#o",
	    (unsigned)mode_of("mine.other"));
	make_in_sgid("member", true);
}

/* The same user without GROUP: the others' bits. */
static void
not_in_group(void)
{
	CHECK(getgroups(0, NULL) == 0, "no groups");
	FS_CHECK_ERR(open_close("g040"), EACCES);
	FS_CHECK_ERR(access("g040", R_OK), EACCES);
	FS_CHECK_ERR(open_close("g400"), EACCES);
	CHECK_OK(open_close("g004"));
	FS_CHECK_ERR(chdir("gdir"), EACCES);
	FS_CHECK_ERR(chown("mine.other", (uid_t)-1, GROUP), EPERM);
	CHECK_OK(chmod("mine", 02750));
	CHECK(mode_of("mine") == 0750, "set-gid dropped: %#o",
	    (unsigned)mode_of("mine"));
	make_in_sgid("stranger", false);
}

/* Runs fn as USER with gid USER_GID and groups (n of them) in a child. */
static void
as_user(const gid_t *groups, size_t n, void (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setgroups(n, groups) < 0 ||
		    setresgid(USER_GID, USER_GID, USER_GID) < 0 ||
		    setresuid(USER, USER, USER) < 0)
			_exit(2);
		fn();
		_exit(guest_failures != 0 ? 1 : 0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "checks with %zu groups (status %#x)", n, pid > 0 ? status : -1);
}

/*
 * The most groups Linux takes (NGROUPS_MAX), given in a scrambled order,
 * come back sorted, and each one counts: the kernel sorts them itself,
 * without a host call its lock-down forbids.
 */
static void
many_groups(void)
{
	enum { N = 65536 };
	static gid_t g[N], got[N];
	bool sorted = true;

	for (unsigned i = 0; i < N; i++)
		g[i] = (gid_t)((i * 40503u) % N) + 100000;
	if (CHECK_OK(setgroups(N, g)) == -1)
		return;
	CHECK(getgroups(N, got) == N, "getgroups of %d", N);
	for (unsigned i = 0; i < N; i++)
		sorted = sorted && got[i] == 100000 + i;
	CHECK(sorted, "%d groups sorted", N);
	CHECK(setgroups(N + 1, g) == -1 && errno == EINVAL,
	    "one group past NGROUPS_MAX: EINVAL");
	CHECK_OK(setgroups(0, NULL));
}

int
main(int argc, char **argv)
{
	/* Out of order: setgroups sorts, getgroups answers sorted. */
	gid_t groups[] = { 7, GROUP, 3 };
	gid_t got[3];

	/*
	 * Only root may set supplementary groups and make the other users'
	 * files whose access they decide: without it nothing here runs.
	 */
	if (geteuid() != 0)
		return guest_skip("needs root, to become other users");
	if (!CHECK(scratch_enter_in(argc > 1 ? argv[1] : "/tmp"),
	    "scratch directory") || CHECK_OK(chmod(".", 0755)) == -1)
		return guest_done();
	CHECK(make_file("g040", 0040, OWNER, GROUP), "make g040");
	CHECK(make_file("g400", 0400, OWNER, GROUP), "make g400");
	CHECK(make_file("o040", 0040, OWNER, OTHER), "make o040");
	CHECK(make_file("g004", 0004, OWNER, GROUP), "make g004");
	CHECK(make_file("mine", 0640, USER, USER_GID), "make mine");
	CHECK(make_file("mine.other", 0640, USER, OTHER), "make mine.other");
	CHECK_OK(mkdir("gdir", 0700));
	CHECK_OK(chown("gdir", OWNER, GROUP));
	CHECK_OK(chmod("gdir", 0010));
	CHECK_OK(mkdir("sgid", 0700));
	CHECK_OK(chown("sgid", OWNER, GROUP));
	CHECK_OK(chmod("sgid", 02777));
	/* mkdir's own set-gid bit is ignored outside a set-gid directory. */
	CHECK_OK(mkdir("plain", 02755));
	CHECK(mode_of("plain") == 0755, "mkdir 02755: %#o",
	    (unsigned)mode_of("plain"));

	CHECK_OK(setgroups(3, groups));
	CHECK(getgroups(3, got) == 3 && got[0] == 3 && got[1] == 7 &&
	    got[2] == GROUP, "getgroups sorted: %u %u %u", got[0], got[1],
	    got[2]);
	as_user((const gid_t[]){ GROUP }, 1, in_group);
	as_user(NULL, 0, not_in_group);
	CHECK_OK(setgroups(0, NULL));
	many_groups();
	CHECK(scratch_leave(), "root removes everything");
	return guest_done();
}
