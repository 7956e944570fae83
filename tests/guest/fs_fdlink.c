/*
 * Verifies /proc/self/fd/N and /dev/fd/N as Linux's magic links: readlink
 * gives pipe:[INO], socket:[INO], anon_inode:[eventfd] or the path, with
 * the inode fstat(2) gives; open(2) of the link opens the file again (a
 * new reader or writer of the same pipe, a new offset on the same file)
 * with the file's permissions, ENXIO for a socket, ENXIO or EACCES for
 * an anonymous inode; another process's links follow the ptrace access
 * rule; /proc/self/fdinfo/N shows pos, flags and mnt_id.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/eventfd.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdlib.h>

#include "guest.h"

/* What readlink(2) gives for fd of process pid (0: self), or "". */
static const char *
fd_link(int pid, int fd, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	else
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	n = readlink(path, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static int
fd_open(const char *dir, int fd, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "%s/%d", dir, fd);
	return open(path, flags);
}

/* The link names the kind and the inode, as fstat(2) and stat(2) do. */
static void
check_name(int fd, const char *kind)
{
	char want[64], buf[256], path[64];
	struct stat fs, ls;

	CHECK_OK(fstat(fd, &fs));
	snprintf(want, sizeof(want), "%s:[%llu]", kind,
	    (unsigned long long)fs.st_ino);
	CHECK(strcmp(fd_link(0, fd, buf, sizeof(buf)), want) == 0,
	    "fd %d links to '%s', not '%s'", fd, buf, want);
	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	CHECK(stat(path, &ls) == 0 && ls.st_ino == fs.st_ino &&
	    ls.st_mode == fs.st_mode && ls.st_dev == fs.st_dev,
	    "stat of %s is the file's", path);
}

static void
test_pipe(void)
{
	int p[2], r2, w2;
	char buf[16];

	if (!CHECK(pipe(p) == 0, "pipe"))
		return;
	check_name(p[0], "pipe");
	check_name(p[1], "pipe");
	/* A reader and a writer of the same pipe, through either end. */
	r2 = fd_open("/dev/fd", p[1], O_RDONLY);
	w2 = fd_open("/proc/self/fd", p[0], O_WRONLY | O_CREAT | O_TRUNC);
	CHECK(r2 >= 0 && w2 >= 0, "reopen the pipe: %d %d", r2, w2);
	CHECK(write(p[1], "ab", 2) == 2 && read(r2, buf, 2) == 2 &&
	    memcmp(buf, "ab", 2) == 0, "the new reader reads the pipe");
	CHECK(write(w2, "cd", 2) == 2 && read(p[0], buf, 2) == 2 &&
	    memcmp(buf, "cd", 2) == 0, "the new writer writes the pipe");
	check_name(r2, "pipe");
	/* The new writer keeps the pipe open once the first one closes. */
	close(p[1]);
	CHECK(fcntl(r2, F_SETFL, O_NONBLOCK) == 0 && read(r2, buf, 1) == -1 &&
	    errno == EAGAIN, "a writer is left");
	close(w2);
	CHECK(read(r2, buf, 1) == 0, "end of file with no writer left");
	close(r2);
	close(p[0]);
}

static void
test_socket_and_anon(void)
{
	int sv[2], efd;
	char buf[64];

	if (CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair")) {
		check_name(sv[0], "socket");
		CHECK_ERR(fd_open("/proc/self/fd", sv[0], O_RDWR), ENXIO);
		close(sv[0]);
		close(sv[1]);
	}
	efd = eventfd(0, 0);
	if (!CHECK(efd >= 0, "eventfd"))
		return;
	CHECK(strcmp(fd_link(0, efd, buf, sizeof(buf)),
	    "anon_inode:[eventfd]") == 0, "eventfd links to '%s'", buf);
	/* The anonymous inode is root's, mode 0600, and opens as nothing. */
	CHECK_ERR(fd_open("/dev/fd", efd, O_RDONLY),
	    geteuid() == 0 ? ENXIO : EACCES);
	close(efd);
}

/* A file opened again: its own offset, and the file's permissions. */
static void
test_file(void)
{
	char path[] = "/tmp/fdlinkXXXXXX", buf[256], want[64];
	int fd = mkstemp(path), ro, rw;
	struct stat st;

	if (!CHECK(fd >= 0, "mkstemp"))
		return;
	CHECK(write(fd, "hello", 5) == 5, "write");
	close(fd);
	ro = open(path, O_RDONLY);
	CHECK(strcmp(fd_link(0, ro, buf, sizeof(buf)), path) == 0,
	    "a file links to its path, not '%s'", buf);
	CHECK(lseek(ro, 3, SEEK_SET) == 3, "lseek");
	rw = fd_open("/dev/fd", ro, O_RDWR);
	CHECK(rw >= 0 && read(rw, buf, 5) == 5 && memcmp(buf, "hello", 5) == 0,
	    "the new file reads from its own offset");
	CHECK(fstat(rw, &st) == 0 && st.st_size == 5, "fstat");
	close(rw);
	CHECK_OK(chmod(path, 0444));
	rw = fd_open("/proc/self/fd", ro, O_WRONLY);
	if (geteuid() == 0)
		CHECK(rw >= 0, "root reopens a read-only file for writing");
	else
		CHECK(rw == -1 && errno == EACCES,
		    "a read-only file reopens for writing: %d", rw);
	if (rw >= 0)
		close(rw);
	/* An unlinked file still opens through its link, which says so. */
	CHECK_OK(unlink(path));
	snprintf(want, sizeof(want), "%s (deleted)", path);
	CHECK(strcmp(fd_link(0, ro, buf, sizeof(buf)), want) == 0,
	    "an unlinked file links to '%s'", buf);
	rw = fd_open("/proc/self/fd", ro, O_RDONLY);
	CHECK(rw >= 0 && read(rw, buf, 2) == 2, "open of an unlinked file");
	if (rw >= 0)
		close(rw);
	close(ro);
}

static void
test_dir_and_names(void)
{
	char buf[256], path[64];
	int d = open("/proc/self", O_RDONLY | O_DIRECTORY);
	struct stat st;

	snprintf(path, sizeof(path), "/dev/fd/%d/status", d);
	CHECK(d >= 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode),
	    "a path goes on through a directory's link");
	close(d);
	CHECK(readlink("/dev/fd", buf, sizeof(buf)) == 13 &&
	    memcmp(buf, "/proc/self/fd", 13) == 0, "/dev/fd");
	CHECK(readlink("/dev/stdin", buf, sizeof(buf)) == 15 &&
	    memcmp(buf, "/proc/self/fd/0", 15) == 0, "/dev/stdin");
	CHECK(readlink("/dev/stderr", buf, sizeof(buf)) == 15 &&
	    memcmp(buf, "/proc/self/fd/2", 15) == 0, "/dev/stderr");
}

/* Whether /proc/self/fdinfo/FD starts with want. */
static bool
fdinfo_starts(int fd, const char *want)
{
	char path[64], buf[256];
	int f;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY);
	n = f >= 0 ? read(f, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = '\0';
	if (f >= 0)
		close(f);
	return CHECK(strncmp(buf, want, strlen(want)) == 0,
	    "fdinfo of %d: '%s'", fd, buf);
}

static void
test_fdinfo(void)
{
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC), p[2];
	char buf[8];

	CHECK(fd >= 0 && read(fd, buf, 7) == 7, "read");
	fdinfo_starts(fd, "pos:\t7\nflags:\t02100000\nmnt_id:\t");
	close(fd);
	/* A pipe's end is no file open(2) opened: no O_LARGEFILE. */
	if (!CHECK(pipe2(p, O_NONBLOCK) == 0, "pipe2"))
		return;
	fdinfo_starts(p[1], "pos:\t0\nflags:\t04001\nmnt_id:\t");
	close(p[0]);
	close(p[1]);
}

/*
 * Another process's links, as ptrace_may_access(PTRACE_MODE_READ_FSCREDS)
 * allows: a dumpable process of the same ids, or anyone for root.
 */
/* Reading another process's fdinfo: its bytes, or -1 with errno. */
static ssize_t
peer_fdinfo(int pid, int fd)
{
	char path[64], buf[128];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	if ((f = open(path, O_RDONLY)) < 0)
		return -1;
	n = read(f, buf, sizeof(buf));
	close(f);
	return n;
}

static void
try_peer(int pid, int fd, bool allowed)
{
	char buf[64];
	pid_t c = fork();
	int st = -1, f;
	ssize_t info;

	if (c == 0) {
		fd_link(pid, fd, buf, sizeof(buf));
		snprintf(buf + 32, 32, "/proc/%d/fd/%d", pid, fd);
		f = open(buf + 32, O_RDONLY);
		if (allowed)
			_exit(strncmp(buf, "pipe:[", 6) == 0 && f >= 0 &&
			    peer_fdinfo(pid, fd) > 0 ? 0 : 1);
		if (buf[0] != '\0' || f != -1 || errno != EACCES)
			_exit(2);
		info = peer_fdinfo(pid, fd);
		_exit(info == -1 && errno == EACCES ? 0 : 3);
	}
	CHECK(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "pid %d's fd %d, allowed %d: status %#x",
	    pid, fd, allowed, st);
}

static void
test_peer(void)
{
	int p[2];

	if (!CHECK(pipe(p) == 0, "pipe"))
		return;
	CHECK_OK(prctl(PR_SET_DUMPABLE, 1));
	try_peer(getpid(), p[0], true);
	CHECK_OK(prctl(PR_SET_DUMPABLE, 0));
	try_peer(getpid(), p[0], geteuid() == 0);
	CHECK_OK(prctl(PR_SET_DUMPABLE, 1));
	close(p[0]);
	close(p[1]);
}

/* A process whose saved uid is root's is not another user's to read. */
static void
test_peer_suid(void)
{
	pid_t a;
	int st = -1;

	if (geteuid() != 0)
		return;
	a = fork();
	if (a == 0) {
		int p[2];

		if (pipe(p) != 0 || setresgid(65534, 65534, 65534) != 0 ||
		    setresuid(65534, 65534, 0) != 0 ||
		    prctl(PR_SET_DUMPABLE, 1) != 0)
			_exit(3);
		a = fork();
		if (a == 0) {
			char buf[64];
			int f;

			if (setresuid(65534, 65534, 65534) != 0)
				_exit(3);
			fd_link(getppid(), p[0], buf, sizeof(buf));
			snprintf(buf + 32, 32, "/proc/%d/fd/%d", getppid(),
			    p[0]);
			f = open(buf + 32, O_RDONLY);
			_exit(buf[0] == '\0' && f == -1 && errno == EACCES ?
			    0 : 1);
		}
		_exit(a > 0 && waitpid(a, &st, 0) == a && WIFEXITED(st) ?
		    WEXITSTATUS(st) : 4);
	}
	CHECK(a > 0 && waitpid(a, &st, 0) == a && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "saved uid 0: status %#x", st);
}

static void
tests(void)
{
	test_pipe();
	test_socket_and_anon();
	test_file();
	test_dir_and_names();
	test_fdinfo();
	test_peer();
	test_peer_suid();
}

int
main(void)
{
	return guest_main_twice(tests);
}
