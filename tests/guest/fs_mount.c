/*
 * Verifies mount(2) and umount2(2) as guest root: tmpfs with size= and
 * mode=, proc, binds, noexec, /proc/self/mounts, EBUSY while a file or
 * cwd is inside, MNT_DETACH, and the errnos for unknown file systems,
 * options, flags, bad pointers and non-mount points; then EPERM for an
 * unprivileged user.  Natively it runs in a mount namespace of its own
 * (private, so nothing reaches the host's mounts).
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "guest.h"

static char dir[64], dir2[64];

/* Whether /proc/self/mounts has a line with path and word. */
static bool
in_mounts(const char *path, const char *word)
{
	static char buf[65536];
	char needle[128];
	long fd = open("/proc/self/mounts", O_RDONLY), n, got = 0;

	if (fd < 0)
		return false;
	while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	snprintf(needle, sizeof(needle), " %s %s", path, word);
	return strstr(buf, needle) != NULL;
}

static void
test_tmpfs(void)
{
	struct statfs sf;
	struct stat st;
	char file[96];
	long fd;

	if (CHECK_OK(guest_mount("vktest", dir, "tmpfs", MS_NOSUID,
	    "size=1m,mode=0700")) != 0)
		return;
	CHECK(in_mounts(dir, "tmpfs rw,nosuid"), "mounts shows %s", dir);
	CHECK_OK(stat(dir, &st));
	CHECK_EQ(st.st_mode & 07777, 0700);
	CHECK_OK(statfs(dir, &sf));
	CHECK_EQ(sf.f_type, 0x01021994);
	CHECK_EQ(sf.f_blocks * sf.f_bsize, 1 << 20);
	snprintf(file, sizeof(file), "%s/f", dir);
	fd = open(file, O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0, "create in the tmpfs");
	CHECK_ERR(guest_umount2(dir, 0), EBUSY);
	close(fd);
	CHECK_OK(chdir(dir));
	CHECK_ERR(guest_umount2(dir, 0), EBUSY);
	CHECK_OK(chdir("/"));
	CHECK_ERR(guest_umount2(file, 0), EINVAL);
	CHECK_OK(guest_umount2(dir, 0));
	CHECK(!in_mounts(dir, "tmpfs"), "gone from mounts");
	CHECK_ERR(stat(file, &st), ENOENT);
	CHECK_ERR(guest_umount2(dir, 0), EINVAL);
	/* A lazy unmount leaves an open file working. */
	CHECK_OK(guest_mount("none", dir, "tmpfs", 0, NULL));
	fd = open(file, O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0, "create in the tmpfs");
	CHECK_OK(guest_umount2(dir, MNT_DETACH));
	CHECK_EQ(write(fd, "x", 1), 1);
	close(fd);
	CHECK_ERR(stat(file, &st), ENOENT);
}

static void
test_errors(void)
{
	char file[96];
	long fd;

	CHECK_ERR(guest_mount("x", dir, "nosuchfs", 0, NULL), ENODEV);
	CHECK_ERR(guest_mount("x", dir, "tmpfs", 0, "bogus=1"), EINVAL);
	CHECK_ERR(guest_mount("x", dir, "tmpfs", 0, "size=12q"), EINVAL);
	CHECK_ERR(guest_mount("x", dir, "tmpfs", 0, "mode=9"), EINVAL);
	CHECK_ERR(guest_mount("x", dir, (char *)1, 0, NULL), EFAULT);
	CHECK_ERR(guest_mount("x", (char *)1, "tmpfs", 0, NULL), EFAULT);
	CHECK_ERR(guest_mount("x", "/tmp/vkmnt-missing/x", "tmpfs", 0, NULL),
	    ENOENT);
	snprintf(file, sizeof(file), "%s/file", dir2);
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0, "create %s", file);
	close(fd);
	CHECK_ERR(guest_mount("x", file, "tmpfs", 0, NULL), ENOTDIR);
	CHECK_OK(unlink(file));
	CHECK_ERR(guest_mount("x", dir, "tmpfs", MS_NOUSER, NULL), EINVAL);
	CHECK_ERR(guest_umount2(dir, 0x100), EINVAL);
	CHECK_ERR(guest_umount2((char *)1, 0), EFAULT);
	CHECK_ERR(guest_mount(NULL, dir, NULL, MS_PRIVATE, NULL), EINVAL);
}

static void
test_bind_proc(void)
{
	char file[96];
	struct stat st;
	long fd;

	snprintf(file, sizeof(file), "%s/seen", dir2);
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0, "create %s", file);
	close(fd);
	if (CHECK_OK(guest_mount(dir2, dir, NULL, MS_BIND, NULL)) == 0) {
		snprintf(file, sizeof(file), "%s/seen", dir);
		CHECK_OK(stat(file, &st));
		CHECK_OK(guest_mount(NULL, dir, NULL, MS_PRIVATE, NULL));
		CHECK_OK(guest_umount2(dir, 0));
		CHECK_ERR(stat(file, &st), ENOENT);
	}
	if (CHECK_OK(guest_mount("proc", dir, "proc", 0, NULL)) == 0) {
		snprintf(file, sizeof(file), "%s/self/status", dir);
		CHECK_OK(stat(file, &st));
		CHECK(in_mounts(dir, "proc"), "proc in mounts");
		CHECK_OK(guest_umount2(dir, 0));
	}
}

/* A copy of this program on a noexec tmpfs does not run. */
static void
test_noexec(void)
{
	static char buf[1 << 16];
	char file[96];
	char *argv[] = { file, NULL };
	long in, out, n;

	if (CHECK_OK(guest_mount("none", dir, "tmpfs", MS_NOEXEC, NULL)) != 0)
		return;
	CHECK(in_mounts(dir, "tmpfs rw,noexec"), "noexec in mounts");
	snprintf(file, sizeof(file), "%s/prog", dir);
	in = open("/proc/self/exe", O_RDONLY);
	out = open(file, O_CREAT | O_WRONLY, 0755);
	CHECK(in >= 0 && out >= 0, "copy the program");
	while ((n = read(in, buf, sizeof(buf))) > 0)
		CHECK_EQ(write(out, buf, n), n);
	close(in);
	close(out);
	CHECK_ERR(execve(file, argv, NULL), EACCES);
	CHECK_OK(guest_umount2(dir, 0));
}

/* Without CAP_SYS_ADMIN: EPERM, once the target is found. */
static void
test_unprivileged(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		CHECK_ERR(guest_mount("none", dir, "tmpfs", 0, NULL), EPERM);
		CHECK_ERR(guest_mount(dir2, dir, NULL, MS_BIND, NULL), EPERM);
		CHECK_ERR(guest_umount2("/proc", 0), EPERM);
		CHECK_ERR(guest_umount2("/tmp/vkmnt-missing", 0), ENOENT);
		_exit(guest_done() == 0 ? 0 : 1);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "unprivileged child");
}

int
main(void)
{
	if (geteuid() != 0) {
		printf("ok: fs_mount (not root: nothing to check)\n");
		return 0;
	}
	/* Natively: a namespace of our own; vkernel has one table. */
	if (unshare(CLONE_NEWNS) == 0)
		CHECK_OK(guest_mount(NULL, "/", NULL, MS_PRIVATE | MS_REC,
		    NULL));
	snprintf(dir, sizeof(dir), "/tmp/vkmnt.%d", getpid());
	snprintf(dir2, sizeof(dir2), "/tmp/vkmnt2.%d", getpid());
	CHECK_OK(mkdir(dir, 0755));
	CHECK_OK(mkdir(dir2, 0755));
	test_tmpfs();
	test_errors();
	test_bind_proc();
	test_noexec();
	test_unprivileged();
	{
		char f[96];

		snprintf(f, sizeof(f), "%s/seen", dir2);
		unlink(f);
	}
	rmdir(dir);
	rmdir(dir2);
	return guest_done();
}
