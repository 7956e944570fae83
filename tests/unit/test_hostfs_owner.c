/*
 * Unit tests for the owners of the files hostfs makes on the host: the
 * uid and gid the guest's call gives when the vkernel may give files away
 * (root), its own when it may not (a child that dropped to 65534), and
 * set-id bits only on a file whose host owner is the uid asked for.
 * Every owner is checked with the host's own lstat.  Needs root: skipped
 * otherwise.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tests/unit/fake_platform.h"
#include "vkern/vfs/hostfs/hostfs.h"
#include "vkern/vfs/vfs.h"

static char dir[64];
static struct mount *mp;

static void
dir_make(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to give files away and drop to 65534");
	strcpy(dir, "/tmp/vk-hostown-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chmod(dir, 01777), 0);
	cr_assert_eq(hostfs_mount(dir, false, &mp), 0);
}

static int
remove_one(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void
dir_remove(void)
{
	if (dir[0] == '\0')
		return;
	hostfs_unmount(mp);
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(hostfs_owner, .init = dir_make, .fini = dir_remove);

/* Make name in the root, as uid:gid asked, and release it. */
static int
make(const char *name, uint32_t mode, uint32_t uid, uint32_t gid)
{
	struct vnode *root = mp->root, *vn = NULL;
	int r = root->ops->create(root, name, mode, 0,
	    S_ISLNK(mode) ? "target" : NULL, uid, gid, &vn);

	if (r == 0)
		vnode_rel(vn);
	return r;
}

/* The host's lstat of name: its owner, group and mode must be these. */
static void
host_is(const char *name, uint32_t uid, uint32_t gid, uint32_t mode)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert_eq(lstat(path, &st), 0, "%s: %s", name, strerror(errno));
	cr_assert_eq(st.st_uid, uid, "%s uid %u", name, st.st_uid);
	cr_assert_eq(st.st_gid, gid, "%s gid %u", name, st.st_gid);
	cr_assert_eq(st.st_mode, mode, "%s mode %o", name, st.st_mode);
}

Test(hostfs_owner, root_gives_each_type_to_the_guest_ids)
{
	cr_assert_eq(make("f", S_IFREG | 06755, 1234, 1234), 0);
	host_is("f", 1234, 1234, S_IFREG | 06755);
	cr_assert_eq(make("d", S_IFDIR | 02755, 1234, 4321), 0);
	host_is("d", 1234, 4321, S_IFDIR | 02755);
	cr_assert_eq(make("p", S_IFIFO | 04640, 65534, 65534), 0);
	host_is("p", 65534, 65534, S_IFIFO | 04640);
	cr_assert_eq(make("l", S_IFLNK | 0777, 1234, 1234), 0);
	host_is("l", 1234, 1234, S_IFLNK | 0777);
	cr_assert_eq(make("r", S_IFREG | 04700, 0, 0), 0);
	host_is("r", 0, 0, S_IFREG | 04700);
}

/*
 * A vkernel that is not root cannot give a file away (EPERM): the file is
 * its own, and keeps no set-id bit the guest asked for under another id.
 */
Test(hostfs_owner, unprivileged_keeps_its_own_and_no_setid)
{
	pid_t pid = fork();
	int status;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		_exit(make("f", S_IFREG | 06755, 1234, 1234) != 0 ||
		    make("g", S_IFREG | 02755, 65534, 1234) != 0 ||
		    make("d", S_IFDIR | 02755, 1234, 1234) != 0 ||
		    make("own", S_IFREG | 06755, 65534, 65534) != 0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "status %#x", status);
	host_is("f", 65534, 65534, S_IFREG | 0755);
	host_is("g", 65534, 65534, S_IFREG | 0755);
	host_is("d", 65534, 65534, S_IFDIR | 0755);
	host_is("own", 65534, 65534, S_IFREG | 06755);
}
