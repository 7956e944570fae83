/*
 * Verifies /proc/PID/ns and setns(2) as guest root: every link reads
 * "KIND:[INODE]", two processes in one namespace see the same inode and
 * stat(2) through the link shows it; a process that unshared its mount
 * namespace has another mnt inode, and a third process joins that
 * namespace with setns of the link's descriptor (and of a pidfd), sees
 * its mounts and starts at its root.  setns answers EINVAL for a
 * descriptor that is no namespace or of another kind than nstype, for a
 * mount namespace while the caller has other threads, and for the user
 * namespace the caller is in; EBADF for a bad descriptor; EPERM for an
 * unprivileged user, who reads the links of its own processes all the
 * same.  Natively it runs in a mount namespace of its own (private, so
 * nothing reaches the host's mounts).
 */
#include <pthread.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "guest.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80
#endif

static const struct {
	const char *name, *kind;
	int type;
} links[] = {
	{ "cgroup", "cgroup", CLONE_NEWCGROUP },
	{ "ipc", "ipc", CLONE_NEWIPC },
	{ "mnt", "mnt", CLONE_NEWNS },
	{ "net", "net", CLONE_NEWNET },
	{ "pid", "pid", CLONE_NEWPID },
	{ "pid_for_children", "pid", CLONE_NEWPID },
	{ "time", "time", CLONE_NEWTIME },
	{ "time_for_children", "time", CLONE_NEWTIME },
	{ "user", "user", CLONE_NEWUSER },
	{ "uts", "uts", CLONE_NEWUTS },
};

static char top[64], dir[96], file[128];

/* The inode link pid/ns/name names ("KIND:[INODE]"), or 0. */
static unsigned long long
ns_ino(int pid, const char *name, const char *kind)
{
	char path[64], buf[64], want[32];
	unsigned long long ino;
	long n;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, name);
	if ((n = readlink(path, buf, sizeof(buf) - 1)) < 0)
		return 0;
	buf[n] = '\0';
	snprintf(want, sizeof(want), "%s:[%%llu]", kind);
	return sscanf(buf, want, &ino) == 1 ? ino : 0;
}

/* Every link: its text, stat through it, lstat of it, a child's. */
static void
test_links(void)
{
	int pid = getpid();
	int child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		unsigned long long ino = ns_ino(pid, links[i].name,
		    links[i].kind);
		char path[64];
		struct stat st, lst;

		CHECK(ino != 0, "%s reads %s:[N]", links[i].name,
		    links[i].kind);
		snprintf(path, sizeof(path), "/proc/self/ns/%s", links[i].name);
		CHECK_OK(stat(path, &st));
		CHECK_EQ(st.st_ino, ino);
		CHECK(S_ISREG(st.st_mode), "%s: a regular file", path);
		CHECK_OK(lstat(path, &lst));
		CHECK(S_ISLNK(lst.st_mode), "%s: a link", path);
		CHECK_EQ(ns_ino(child, links[i].name, links[i].kind), ino);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

static void *
idle(void *arg)
{
	pause();
	return arg;
}

/* Without CAP_SYS_ADMIN: EPERM, for the descriptor *arg. */
static void
unprivileged(const void *arg)
{
	int fd = *(const int *)arg;

	CHECK_ERR(setns(fd, CLONE_NEWNS), EPERM);
	CHECK_ERR(setns(fd, 0), EPERM);
}

/*
 * setns into b's mount namespace (by its ns link, or its pidfd when
 * pidfd is set), from a child: its mounts seen, its root the cwd.
 */
static bool
join(int b, unsigned long long bino, bool pidfd)
{
	char path[64];
	pid_t pid;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", b);
	pid = fork();
	if (pid == 0) {
		int fd = pidfd ? (int)syscall(SYS_pidfd_open, b, 0) :
		    open(path, O_RDONLY);
		char cwd[16];

		CHECK(fd >= 0, "open %s", pidfd ? "pidfd" : path);
		CHECK(access(file, F_OK) != 0, "not seen before");
		CHECK_OK(chdir(top));
		if (!pidfd)
			CHECK_ERR(setns(fd, CLONE_NEWUTS), EINVAL);
		CHECK_OK(setns(fd, pidfd ? CLONE_NEWNS : 0));
		CHECK_EQ(ns_ino(getpid(), "mnt", "mnt"), bino);
		CHECK_OK(access(file, F_OK));
		CHECK(getcwd(cwd, sizeof(cwd)) != NULL &&
		    strcmp(cwd, "/") == 0, "cwd at the root");
		_exit(guest_done() == 0 ? 0 : 1);
	}
	return guest_child_ok(pid);
}

/* A process in a namespace of its own, joined by others. */
static void
test_setns(void)
{
	unsigned long long mine = ns_ino(getpid(), "mnt", "mnt");
	char path[64], c = 0;
	int up[2], down[2], fd;
	pid_t b, pid;

	if (pipe(up) < 0 || pipe(down) < 0)
		return;
	b = fork();
	if (b == 0) {
		if (unshare(CLONE_NEWNS) < 0 ||
		    guest_mount("vkt", dir, "tmpfs", 0, NULL) < 0 ||
		    (fd = open(file, O_CREAT | O_WRONLY, 0644)) < 0)
			_exit(2);
		close(fd);
		if (write(up[1], &c, 1) != 1 || read(down[0], &c, 1) != 1)
			_exit(3);
		_exit(0);
	}
	CHECK(read(up[0], &c, 1) == 1, "the unshared child ready");
	unsigned long long bino = ns_ino(b, "mnt", "mnt");
	CHECK(bino != 0 && bino != mine, "its own mnt inode: %llu, %llu",
	    bino, mine);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", b);
	struct stat st;
	CHECK_OK(stat(path, &st));
	CHECK_EQ(st.st_ino, bino);
	CHECK(join(b, bino, false), "setns by the link");
	CHECK(join(b, bino, true), "setns by a pidfd");

	/* Threads, an unprivileged user, the wrong descriptors. */
	pid = fork();
	if (pid == 0) {
		pthread_t t;
		int fd = open(path, O_RDONLY);
		int user = open("/proc/self/ns/user", O_RDONLY);

		CHECK_ERR(setns(-1, 0), EBADF);
		CHECK_ERR(setns(up[0], 0), EINVAL);
		CHECK_ERR(setns(user, 0), EINVAL);
		CHECK_ERR(setns(user, CLONE_NEWUSER), EINVAL);
		CHECK(pthread_create(&t, NULL, idle, NULL) == 0, "thread");
		CHECK_ERR(setns(fd, CLONE_NEWNS), EINVAL);
		_exit(guest_done() == 0 ? 0 : 1);
	}
	CHECK(guest_child_ok(pid), "threaded child");
	if ((fd = CHECK_OK(open(path, O_RDONLY))) >= 0) {
		guest_as_nobody(unprivileged, &fd);
		close(fd);
	}
	CHECK(write(down[1], &c, 1) == 1, "let the child go");
	CHECK(guest_child_ok(b), "the unshared child");
	CHECK(access(file, F_OK) != 0, "its mount never seen here");
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}

int
main(void)
{
	if (geteuid() != 0) {
		int fd = open("/proc/self/ns/mnt", O_RDONLY);

		/* An ordinary user: the links, and EPERM. */
		test_links();
		CHECK(fd >= 0, "open its own ns/mnt");
		unprivileged(&fd);
		return guest_done();
	}
	/* Natively: a namespace of our own for all of it. */
	CHECK_OK(unshare(CLONE_NEWNS));
	CHECK_OK(guest_mount(NULL, "/", NULL, MS_PRIVATE | MS_REC,
	    NULL));
	snprintf(top, sizeof(top), "/tmp/vksetns.%d", getpid());
	snprintf(dir, sizeof(dir), "%s/d", top);
	snprintf(file, sizeof(file), "%s/in-b", dir);
	CHECK_OK(mkdir(top, 0755));
	CHECK_OK(mkdir(dir, 0755));
	test_links();
	test_setns();
	rmdir(dir);
	rmdir(top);
	return guest_done();
}
