/*
 * Verifies a read-only bind (MS_REMOUNT | MS_BIND | MS_RDONLY): every
 * change through it is EROFS while the same files change through their
 * other mount, /proc/self/mountinfo and statfs say "ro" for it alone,
 * EBUSY while a file is open for writing through it, and back to rw;
 * a plain remount makes the file system read-only under every mount.
 * Then MS_MOVE: a mount moves with its submounts, cwd and open files
 * follow; EINVAL for no mount, "/", a shared parent, an unbindable tree
 * onto a shared mount and a bind of an unbindable mount; ELOOP into
 * itself.  ".." from a bind's root leads to its mount point's parent.
 * EPERM for an unprivileged user.  Natively it runs in a mount
 * namespace of its own (private, so nothing reaches the host's mounts).
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>

#include "guest.h"

static char top[64];
static char pa[96], pb[96], pc[96], pd[96];

/* The options field of path's line in /proc/self/mountinfo, or "". */
static const char *
mountinfo_opts(const char *path)
{
	static char buf[65536], opts[64];
	char needle[128], *s, *e;
	long fd = open("/proc/self/mountinfo", O_RDONLY), n, got = 0;

	opts[0] = '\0';
	if (fd < 0)
		return opts;
	while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	snprintf(needle, sizeof(needle), " %s ", path);
	/* The last line for path: the mount on top. */
	for (s = buf; (e = strstr(s, needle)) != NULL; s = e + 1)
		if (sscanf(e + strlen(needle), "%63s", opts) != 1)
			opts[0] = '\0';
	return opts;
}

static bool
has_word(const char *opts, const char *w)
{
	size_t n = strlen(w);

	for (const char *s = opts; (s = strstr(s, w)) != NULL; s += n)
		if ((s == opts || s[-1] == ',') && (s[n] == ',' ||
		    s[n] == '\0'))
			return true;
	return false;
}

static void
put(const char *path, const char *text)
{
	long fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	CHECK(fd >= 0, "create %s", path);
	if (fd >= 0) {
		CHECK_EQ(write(fd, text, strlen(text)), (long)strlen(text));
		close(fd);
	}
}

static bool
holds(const char *path, const char *text)
{
	char buf[64];
	long fd = open(path, O_RDONLY), n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return strcmp(buf, text) == 0;
}

/* Every kind of change through dir (a read-only mount) is EROFS. */
static void
check_erofs(const char *dir)
{
	struct timeval tv[2] = { { 1, 0 }, { 2, 0 } };
	struct statvfs sv;
	long fd;

	CHECK_ERR(open(guest_join(dir, "f"), O_WRONLY), EROFS);
	CHECK_ERR(open(guest_join(dir, "f"), O_RDWR | O_TRUNC), EROFS);
	CHECK_ERR(open(guest_join(dir, "new"), O_CREAT | O_WRONLY, 0644),
	    EROFS);
	CHECK_ERR(mkdir(guest_join(dir, "d"), 0755), EROFS);
	CHECK_ERR(unlink(guest_join(dir, "f")), EROFS);
	CHECK_ERR(rename(guest_join(dir, "f"), guest_join(dir, "g")), EROFS);
	CHECK_ERR(link(guest_join(dir, "f"), guest_join(dir, "g")), EROFS);
	CHECK_ERR(symlink("f", guest_join(dir, "l")), EROFS);
	CHECK_ERR(chmod(guest_join(dir, "f"), 0600), EROFS);
	CHECK_ERR(chown(guest_join(dir, "f"), 1, 1), EROFS);
	CHECK_ERR(truncate(guest_join(dir, "f"), 0), EROFS);
	CHECK_ERR(utimes(guest_join(dir, "f"), tv), EROFS);
	CHECK_ERR(access(guest_join(dir, "f"), W_OK), EROFS);
	CHECK_OK(access(guest_join(dir, "f"), R_OK));
	CHECK_OK(statvfs(dir, &sv));
	CHECK(sv.f_flag & ST_RDONLY, "statvfs of %s says read-only", dir);
	fd = open(guest_join(dir, "f"), O_RDONLY);
	CHECK(fd >= 0, "read-only open through %s", dir);
	CHECK_ERR(fchmod(fd, 0600), EROFS);
	close(fd);
}

static void
test_ro_bind(void)
{
	struct statvfs sv;
	long fd;

	put(guest_join(pa, "f"), "one");
	if (CHECK_OK(guest_mount(pa, pb, NULL, MS_BIND, NULL)) != 0)
		return;
	CHECK_OK(guest_mount(NULL, pb, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY,
	    NULL));
	CHECK(has_word(mountinfo_opts(pb), "ro"), "mountinfo: %s ro (%s)",
	    pb, mountinfo_opts(pb));
	check_erofs(pb);
	/* The file system itself and its other mount stay writable. */
	put(guest_join(pa, "f"), "two");
	CHECK(holds(guest_join(pb, "f"), "two"), "the bind shows the change");
	CHECK_OK(statvfs(pa, &sv));
	CHECK(!(sv.f_flag & ST_RDONLY), "statvfs of %s says writable", pa);
	CHECK_OK(access(guest_join(pa, "f"), W_OK));
	/* Back to read-write, then EBUSY while a writer is open. */
	CHECK_OK(guest_mount(NULL, pb, NULL, MS_REMOUNT | MS_BIND, NULL));
	CHECK(has_word(mountinfo_opts(pb), "rw"), "mountinfo: %s rw", pb);
	put(guest_join(pb, "f"), "three");
	CHECK(holds(guest_join(pa, "f"), "three"), "written through the bind");
	fd = open(guest_join(pb, "f"), O_WRONLY);
	CHECK(fd >= 0, "open for writing through %s", pb);
	CHECK_ERR(guest_mount(NULL, pb, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY,
	    NULL), EBUSY);
	close(fd);
	CHECK_OK(guest_mount(NULL, pb, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY,
	    NULL));
	CHECK_ERR(guest_mount(NULL, guest_join(pb, "f"), NULL,
	    MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), EINVAL);
	CHECK_OK(umount2(pb, 0));
}

/* A plain remount changes the file system: read-only under each mount. */
static void
test_ro_super(void)
{
	long fd;

	if (CHECK_OK(guest_mount("vkt", pc, "tmpfs", 0, NULL)) != 0)
		return;
	put(guest_join(pc, "f"), "x");
	CHECK_OK(guest_mount(pc, pd, NULL, MS_BIND, NULL));
	CHECK_OK(guest_mount(NULL, pd, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY,
	    NULL));
	CHECK_ERR(open(guest_join(pd, "f"), O_WRONLY), EROFS);
	CHECK_OK(access(guest_join(pc, "f"), W_OK));
	/* The file system has a writer, if not through the read-only bind. */
	fd = open(guest_join(pc, "f"), O_WRONLY);
	CHECK(fd >= 0, "open for writing through %s", pc);
	CHECK_ERR(guest_mount(NULL, pd, NULL, MS_REMOUNT | MS_RDONLY, NULL),
	    EBUSY);
	close(fd);
	CHECK_OK(guest_mount(NULL, pc, NULL, MS_REMOUNT | MS_RDONLY, NULL));
	CHECK_ERR(open(guest_join(pc, "f"), O_WRONLY), EROFS);
	CHECK_ERR(mkdir(guest_join(pc, "d"), 0755), EROFS);
	CHECK_OK(guest_mount(NULL, pc, NULL, MS_REMOUNT, NULL));
	CHECK_OK(mkdir(guest_join(pc, "d"), 0755));
	/* The bind's own read-only outlives the file system's. */
	CHECK_ERR(open(guest_join(pd, "f"), O_WRONLY), EROFS);
	CHECK_OK(umount2(pd, 0));
	CHECK_OK(umount2(pc, 0));
}

static void
test_move(void)
{
	char cwd[160], sub[128];
	struct stat st;
	long fd;

	if (CHECK_OK(guest_mount("vkt", pc, "tmpfs", 0, NULL)) != 0)
		return;
	put(guest_join(pc, "f"), "moved");
	snprintf(sub, sizeof(sub), "%s", guest_join(pc, "sub"));
	CHECK_OK(mkdir(sub, 0755));
	CHECK_OK(guest_mount("vkt", sub, "tmpfs", 0, NULL));
	put(guest_join(sub, "g"), "deep");
	CHECK_OK(chdir(sub));
	fd = open("g", O_RDONLY);
	CHECK(fd >= 0, "open in the submount");
	CHECK_OK(guest_mount(pc, pd, NULL, MS_MOVE, NULL));
	CHECK(holds(guest_join(pd, "f"), "moved"),
	    "the mount is at its new place");
	CHECK(holds(guest_join(pd, "sub/g"), "deep"), "with its submount");
	CHECK_ERR(stat(guest_join(pc, "f"), &st), ENOENT);
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL &&
	    strcmp(cwd, guest_join(pd, "sub")) == 0, "cwd follows: %s", cwd);
	CHECK(strcmp(mountinfo_opts(guest_join(pd, "sub")), "") != 0,
	    "mountinfo shows the submount moved");
	CHECK(strcmp(mountinfo_opts(sub), "") == 0, "nor at its old place");
	CHECK_OK(chdir("/"));
	/* The open file keeps the mount busy where it is now. */
	CHECK_ERR(umount2(guest_join(pd, "sub"), 0), EBUSY);
	close(fd);
	CHECK_ERR(guest_mount(pd, guest_join(pd, "sub"), NULL, MS_MOVE, NULL),
	    ELOOP);
	CHECK_ERR(guest_mount(pd, pd, NULL, MS_MOVE, NULL), ELOOP);
	CHECK_ERR(guest_mount(pa, pc, NULL, MS_MOVE, NULL), EINVAL);
	CHECK_ERR(guest_mount("/", pc, NULL, MS_MOVE, NULL), ELOOP);
	CHECK_ERR(guest_mount(NULL, pc, NULL, MS_MOVE, NULL), EINVAL);
	CHECK_ERR(guest_mount(guest_join(top, "none"), pc, NULL, MS_MOVE, NULL),
	    ENOENT);
	CHECK_OK(guest_mount(pd, pc, NULL, MS_MOVE, NULL));
	CHECK_OK(umount2(guest_join(pc, "sub"), 0));
	CHECK_OK(umount2(pc, 0));
}

/* Propagation's rules: a shared parent, an unbindable mount. */
static void
test_propagation(void)
{
	char sub[128];

	if (CHECK_OK(guest_mount("vkt", pc, "tmpfs", 0, NULL)) != 0)
		return;
	snprintf(sub, sizeof(sub), "%s", guest_join(pc, "sub"));
	CHECK_OK(mkdir(sub, 0755));
	CHECK_OK(guest_mount("vkt", sub, "tmpfs", 0, NULL));
	CHECK_OK(guest_mount(NULL, pc, NULL, MS_SHARED, NULL));
	CHECK_ERR(guest_mount(sub, pd, NULL, MS_MOVE, NULL), EINVAL);
	CHECK_OK(guest_mount(NULL, pc, NULL, MS_PRIVATE, NULL));
	CHECK_OK(guest_mount(NULL, sub, NULL, MS_UNBINDABLE, NULL));
	CHECK_ERR(guest_mount(sub, pd, NULL, MS_BIND, NULL), EINVAL);
	CHECK_OK(guest_mount(sub, pd, NULL, MS_MOVE, NULL));
	/* An unbindable tree does not go onto a shared mount. */
	CHECK_OK(guest_mount(NULL, pc, NULL, MS_SHARED, NULL));
	CHECK_ERR(guest_mount(pd, sub, NULL, MS_MOVE, NULL), EINVAL);
	CHECK_OK(umount2(pd, 0));
	CHECK_OK(guest_mount(NULL, pc, NULL, MS_PRIVATE, NULL));
	CHECK_OK(umount2(pc, 0));
}

/*
 * ".." from a mount's root goes where the path came from: the bind's
 * mount point's parent, not its source's; and from a mount on the
 * source, the source's parent, not the bind's.
 */
static void
test_dotdot(void)
{
	char deep[128], up[160];

	snprintf(deep, sizeof(deep), "%s", guest_join(pa, "deep"));
	CHECK_OK(mkdir(deep, 0755));
	if (CHECK_OK(guest_mount(deep, pb, NULL, MS_BIND, NULL)) != 0)
		return;
	snprintf(up, sizeof(up), "%s/..", pb);
	CHECK(guest_same_inode(up, top), "%s is %s", up, top);
	CHECK_OK(guest_mount("vkt", deep, "tmpfs", 0, NULL));
	snprintf(up, sizeof(up), "%s/..", deep);
	CHECK(guest_same_inode(up, pa), "%s is %s", up, pa);
	CHECK_OK(umount2(deep, 0));
	CHECK_OK(umount2(pb, 0));
	CHECK_OK(rmdir(deep));
}

/* Without CAP_SYS_ADMIN: EPERM. */
static void
test_unprivileged(void)
{
	pid_t pid;
	int st;

	CHECK_OK(guest_mount(pa, pb, NULL, MS_BIND, NULL));
	pid = fork();
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		CHECK_ERR(guest_mount(NULL, pb, NULL,
		    MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), EPERM);
		CHECK_ERR(guest_mount(pb, pd, NULL, MS_MOVE, NULL), EPERM);
		_exit(guest_done() == 0 ? 0 : 1);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "unprivileged child");
	CHECK(has_word(mountinfo_opts(pb), "rw"), "still rw");
	CHECK_OK(umount2(pb, 0));
}

int
main(void)
{
	if (geteuid() != 0) {
		printf("ok: fs_mount_bind (not root: nothing to check)\n");
		return 0;
	}
	/* Natively: a namespace of our own. */
	if (unshare(CLONE_NEWNS) == 0)
		CHECK_OK(guest_mount(NULL, "/", NULL, MS_PRIVATE | MS_REC,
		    NULL));
	snprintf(top, sizeof(top), "/tmp/vkmb.%d", getpid());
	snprintf(pa, sizeof(pa), "%s/a", top);
	snprintf(pb, sizeof(pb), "%s/b", top);
	snprintf(pc, sizeof(pc), "%s/c", top);
	snprintf(pd, sizeof(pd), "%s/d", top);
	CHECK_OK(mkdir(top, 0755));
	/* A tmpfs of its own, so that nothing is left behind natively. */
	CHECK_OK(guest_mount("vkt", top, "tmpfs", 0, NULL));
	CHECK_OK(mkdir(pa, 0755));
	CHECK_OK(mkdir(pb, 0755));
	CHECK_OK(mkdir(pc, 0755));
	CHECK_OK(mkdir(pd, 0755));
	test_ro_bind();
	test_ro_super();
	test_move();
	test_propagation();
	test_dotdot();
	test_unprivileged();
	CHECK_OK(umount2(top, MNT_DETACH));
	rmdir(top);
	return guest_done();
}
