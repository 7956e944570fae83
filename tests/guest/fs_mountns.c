/*
 * Verifies mount namespaces as guest root: after unshare(CLONE_NEWNS)
 * or clone(CLONE_NEWNS) a process's mounts are its own (what it mounts
 * or unmounts is not seen by the others, and what they mount afterwards
 * is not seen by it), its table starts as a copy of its parent's, and
 * its namespace goes with its last process; CLONE_NEWNS with CLONE_FS is
 * EINVAL, and EPERM for an unprivileged user.  What a process mounts on
 * its own /proc directory goes when it is reaped.  Natively it runs in a
 * mount namespace of its own (private, so nothing reaches the host's
 * mounts).
 */
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "guest.h"

static char top[64], da[96], db[96];

static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Lines of /proc/self/mounts, and whether one has " path ". */
static int
mounts(const char *path, bool *found)
{
	static char buf[65536];
	char needle[128];
	long fd = open("/proc/self/mounts", O_RDONLY), n, got = 0;
	int lines = 0;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	for (long i = 0; i < got; i++)
		lines += buf[i] == '\n';
	snprintf(needle, sizeof(needle), " %s ", path != NULL ? path : "");
	if (found != NULL)
		*found = strstr(buf, needle) != NULL;
	return lines;
}

static void
put(const char *path)
{
	long fd = open(path, O_CREAT | O_WRONLY, 0644);

	CHECK(fd >= 0, "create %s", path);
	close(fd);
}

/*
 * A child in a namespace of its own mounts on da; the parent mounts on
 * db afterwards; each sees only its own.
 */
static void
test_unshare(void)
{
	int up[2], down[2], before = mounts(NULL, NULL);
	bool found;
	pid_t pid;

	if (pipe(up) < 0 || pipe(down) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		CHECK_OK(unshare(CLONE_NEWNS));
		CHECK_EQ(mounts(NULL, NULL), before);
		CHECK_OK(guest_mount("vkt", da, "tmpfs", 0, NULL));
		put(guest_join(da, "child"));
		guest_step(up[1]);
		guest_await(down[0]);
		CHECK(!exists(guest_join(db, "parent")),
		    "the parent's mount unseen");
		CHECK(mounts(db, &found) == before + 1 && !found,
		    "the parent's mount not in the child's table");
		CHECK(mounts(da, &found) == before + 1 && found,
		    "the child's mount in its table");
		_exit(guest_done() == 0 ? 0 : 1);
	}
	guest_await(up[0]);
	CHECK(!exists(guest_join(da, "child")), "the child's mount unseen");
	CHECK(mounts(da, &found) == before && !found,
	    "the child's mount not in the parent's table");
	CHECK_OK(guest_mount("vkt", db, "tmpfs", 0, NULL));
	put(guest_join(db, "parent"));
	guest_step(down[1]);
	CHECK(guest_child_ok(pid), "the child in its namespace");
	/* Its namespace went with it; the parent's is as it made it. */
	CHECK(!exists(guest_join(da, "child")), "the child's mount gone");
	CHECK_EQ(mounts(NULL, NULL), before + 1);
	CHECK_OK(umount2(db, 0));
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}

/* An unmount in a child's namespace leaves the parent's mount. */
static void
test_umount_copy(void)
{
	pid_t pid;

	if (CHECK_OK(guest_mount("vkt", da, "tmpfs", 0, NULL)) != 0)
		return;
	put(guest_join(da, "kept"));
	pid = fork();
	if (pid == 0) {
		CHECK_OK(unshare(CLONE_NEWNS));
		CHECK(exists(guest_join(da, "kept")),
		    "the copy shows the tmpfs");
		CHECK_OK(chdir(db));
		CHECK_OK(umount2(da, 0));
		CHECK(!exists(guest_join(da, "kept")), "unmounted in the copy");
		/* A move in the copy is the copy's. */
		CHECK_OK(guest_mount("vkt", da, "tmpfs", 0, NULL));
		CHECK_OK(guest_mount(da, db, NULL, MS_MOVE, NULL));
		_exit(guest_done() == 0 ? 0 : 1);
	}
	CHECK(guest_child_ok(pid), "the child's unmount");
	CHECK(exists(guest_join(da, "kept")), "the parent's mount stays");
	CHECK(!exists(guest_join(db, "kept")), "nothing moved in the parent's");
	CHECK_OK(umount2(da, 0));
}

/* clone(CLONE_NEWNS): a child born in a namespace of its own. */
static void
test_clone(void)
{
	pid_t pid;

	CHECK_ERR(syscall(SYS_clone, CLONE_NEWNS | CLONE_FS | SIGCHLD, 0, 0,
	    0, 0), EINVAL);
	pid = syscall(SYS_clone, CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		CHECK_OK(guest_mount("vkt", da, "tmpfs", 0, NULL));
		put(guest_join(da, "cloned"));
		_exit(guest_done() == 0 ? 0 : 1);
	}
	CHECK(pid > 0 && guest_child_ok(pid), "the cloned child");
	CHECK(!exists(guest_join(da, "cloned")), "its mount unseen");
}

/*
 * A mount on a process's /proc directory goes when the process is reaped
 * (Linux detaches it then), and with it what is mounted on that mount.
 */
static void
test_proc_pid(void)
{
	char path[64];
	bool found;
	int before = mounts(NULL, NULL);
	pid_t pid = fork();

	if (pid == 0) {
		snprintf(path, sizeof(path), "/proc/%d/task", getpid());
		CHECK_OK(guest_mount("vkt", "/proc/self/task", "tmpfs", 0,
		    NULL));
		CHECK_OK(mkdir("/proc/self/task/sub", 0755));
		CHECK_OK(guest_mount("vkt", "/proc/self/task/sub", "tmpfs", 0,
		    NULL));
		CHECK(mounts(path, &found) == before + 2 && found,
		    "the mount on %s listed", path);
		_exit(guest_done() == 0 ? 0 : 1);
	}
	CHECK(guest_child_ok(pid), "the child that mounted on its /proc");
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	CHECK(mounts(path, &found) == before && !found,
	    "the mounts on %s gone with it", path);
}

/* Without CAP_SYS_ADMIN: EPERM. */
static void
test_unprivileged(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		CHECK_ERR(unshare(CLONE_NEWNS), EPERM);
		CHECK_ERR(guest_mount("vkt", "/proc/self/task", "tmpfs", 0,
		    NULL), EPERM);
		CHECK_ERR(syscall(SYS_clone, CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0),
		    EPERM);
		_exit(guest_done() == 0 ? 0 : 1);
	}
	CHECK(guest_child_ok(pid), "unprivileged child");
}

int
main(void)
{
	if (geteuid() != 0) {
		printf("ok: fs_mountns (not root: nothing to check)\n");
		return 0;
	}
	/* Natively: a namespace of our own for all of it. */
	CHECK_OK(unshare(CLONE_NEWNS));
	CHECK_OK(guest_mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL));
	snprintf(top, sizeof(top), "/tmp/vkns.%d", getpid());
	snprintf(da, sizeof(da), "%s/a", top);
	snprintf(db, sizeof(db), "%s/b", top);
	CHECK_OK(mkdir(top, 0755));
	CHECK_OK(mkdir(da, 0755));
	CHECK_OK(mkdir(db, 0755));
	test_unshare();
	test_umount_copy();
	test_clone();
	test_proc_pid();
	test_unprivileged();
	rmdir(da);
	rmdir(db);
	rmdir(top);
	return guest_done();
}
