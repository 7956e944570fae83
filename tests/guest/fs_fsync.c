/*
 * fsync(2) and fdatasync(2) by kind of file: a file system's files and
 * directories succeed; pipes, FIFOs, eventfds, timerfds, signalfds,
 * epoll and inotify fds, terminals, device nodes, /proc and namespace
 * files are EINVAL (they have no fsync); an O_PATH or closed fd is
 * EBADF.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "guest.h"

/* Both calls on fd give want (0 or an errno); closes fd. */
static void
sync_is(const char *what, int fd, int want)
{
	if (!CHECK(fd >= 0, "%s: open", what))
		return;
	if (want == 0) {
		CHECK(fsync(fd) == 0, "%s: fsync", what);
		CHECK(fdatasync(fd) == 0, "%s: fdatasync", what);
	} else {
		errno = 0;
		CHECK(fsync(fd) == -1 && errno == want, "%s: fsync: not %s",
		    what, guest_errno_name(want));
		errno = 0;
		CHECK(fdatasync(fd) == -1 && errno == want,
		    "%s: fdatasync: not %s", what, guest_errno_name(want));
	}
	close(fd);
}

int
main(void)
{
	char dir[] = "/tmp/fsyncXXXXXX", path[64], fifo[64];
	int p[2], fd;
	sigset_t set;

	if (!CHECK(mkdtemp(dir) != NULL, "mkdtemp"))
		return guest_done();
	snprintf(path, sizeof(path), "%s/f", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);

	fd = open(path, O_RDWR | O_CREAT, 0644);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1, "write");
	sync_is("a written file", fd, 0);
	sync_is("a file read-only", open(path, O_RDONLY), 0);
	sync_is("a directory", open(dir, O_RDONLY | O_DIRECTORY), 0);
	sync_is("/dev (a directory)", open("/dev", O_RDONLY), 0);
	sync_is("an O_PATH fd", open(path, O_PATH), EBADF);
	sync_is("a closed fd", dup(0) + 1000, EBADF);

	CHECK_OK(pipe(p));
	sync_is("a pipe's read end", p[0], EINVAL);
	sync_is("a pipe's write end", p[1], EINVAL);
	CHECK_OK(mkfifo(fifo, 0600));
	sync_is("a FIFO", open(fifo, O_RDWR), EINVAL);
	sync_is("an eventfd", eventfd(0, 0), EINVAL);
	sync_is("a timerfd", timerfd_create(CLOCK_MONOTONIC, 0), EINVAL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sync_is("a signalfd", signalfd(-1, &set, 0), EINVAL);
	sync_is("an epoll fd", epoll_create1(0), EINVAL);
	sync_is("an inotify fd", inotify_init1(0), EINVAL);
	sync_is("/dev/null", open("/dev/null", O_RDWR), EINVAL);
	sync_is("/dev/zero", open("/dev/zero", O_RDONLY), EINVAL);
	sync_is("/dev/ptmx", open("/dev/ptmx", O_RDWR | O_NOCTTY), EINVAL);
	sync_is("/proc/self/status", open("/proc/self/status", O_RDONLY),
	    EINVAL);
	sync_is("/proc", open("/proc", O_RDONLY), EINVAL);
	sync_is("/proc/self/ns/mnt", open("/proc/self/ns/mnt", O_RDONLY),
	    EINVAL);

	CHECK_OK(unlink(fifo));
	CHECK_OK(unlink(path));
	CHECK_OK(rmdir(dir));
	return guest_done();
}
