/*
 * Throws random inotify calls at the kernel, mixed with the file changes
 * that raise events: instances made and closed (dup'd, forked), watches
 * added with any mask on files, directories, links and bad paths, removed
 * by real and nonsense wds, reads of every size into good, unmapped and
 * read-only buffers, FIONREAD and poll, while files in two directories
 * (a tmpfs's and the root's) are made, written, renamed, linked and
 * removed.  It checks that every call answers a result or an errno and
 * that the directories clean up; the point is that vkernel, run with its
 * sanitizers, survives it without a crash, an assertion or a leak.
 *
 * usage: fs_inotify_random [ITERATIONS [SEED]]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"
#include "rnd.h"

#define NFDS  8

static int fds[NFDS] = { -1, -1, -1, -1, -1, -1, -1, -1 };
static int wds[16];
static char dirs[2][64];
static char *ro;
static char buf[8192];

/* An fd: an instance, another kind of file, or nonsense. */
static int
rfd(void)
{
	switch (rnd() % 6) {
	case 0:
		/* Not 0 to 2: a read of the terminal would wait. */
		return rnd() % 2 ? (int)(rnd() % 40) + 3 : -(int)(rnd() % 3) - 1;
	case 1:
		return (int)rnd();
	default:
		return fds[rnd() % NFDS];
	}
}

/* A path in one of the directories, or a bad one. */
static const char *
rpath(char *p, size_t len)
{
	/*
	 * Nothing outside the directories, links included: natively it
	 * would be the host's.
	 */
	static const char *const names[] = { "a", "b", "d", "d/x", "l",
	    "d/../a", "gone", "nope/x" };

	switch (rnd() % 10) {
	case 0:
		return NULL;
	case 1:
		return (const char *)8;
	case 2:
		return ro;
	default:
		snprintf(p, len, "%s/%s", dirs[rnd() % 2],
		    names[rnd() % NELEM(names)]);
		return p;
	}
}

static uint32_t
rmask(void)
{
	static const uint64_t v[] = { 0, IN_ALL_EVENTS, IN_ONESHOT,
	    IN_MASK_ADD, IN_MASK_CREATE, IN_ONLYDIR, IN_DONT_FOLLOW,
	    IN_EXCL_UNLINK, IN_ISDIR, IN_IGNORED, IN_Q_OVERFLOW, IN_UNMOUNT,
	    0xffffffffULL, 0x80000000ULL };

	return (uint32_t)(pick(v, NELEM(v)) | pick(v, NELEM(v)) |
	    (rnd() & 0xfff));
}

static void
one_call(void)
{
	char p[128], q[128];
	struct pollfd pf;
	int r, fd, i = (int)(rnd() % NFDS), n;

	switch (rnd() % 16) {
	case 0:
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = (rnd() % 4 == 0) ? (int)syscall(SYS_inotify_init) :
		    inotify_init1((int)(rnd() % 3 == 0 ? rnd() :
		    rnd() & (IN_NONBLOCK | IN_CLOEXEC)));
		if (fds[i] >= 0)
			CHECK_OK(fcntl(fds[i], F_SETFL, O_NONBLOCK));
		break;
	case 1:
	case 2:
	case 3:
		r = inotify_add_watch(rfd(), rpath(p, sizeof(p)), rmask());
		CHECK(r >= 0 || errno != 0, "add_watch");
		if (r >= 0)
			wds[rnd() % NELEM(wds)] = r;
		break;
	case 4:
		r = inotify_rm_watch(rfd(), rnd() % 3 ? wds[rnd() %
		    NELEM(wds)] : (int)rnd());
		CHECK(r == 0 || errno == EINVAL || errno == EBADF, "rm_watch");
		break;
	case 5:
	case 6:
		fd = rfd();
		switch (rnd() % 4) {
		case 0:
			r = (int)read(fd, (void *)8, rnd() % 64);
			break;
		case 1:
			r = (int)read(fd, ro, rnd() % 8192);
			break;
		default:
			r = (int)read(fd, buf, rnd() % 2 ? sizeof(buf) :
			    rnd() % 64);
		}
		CHECK(r >= 0 || errno != 0, "read");
		break;
	case 7:
		fd = rfd();
		if (ioctl(fd, FIONREAD, rnd() % 3 ? (void *)&n :
		    (void *)ro) == 0)
			CHECK(n >= 0, "FIONREAD %d", n);
		pf = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
		(void)poll(&pf, 1, 0);
		break;
	case 8:
		fd = open(rpath(p, sizeof(p)), (int)(rnd() % 2 ? O_RDONLY :
		    O_WRONLY | O_CREAT | O_APPEND), 0644);
		if (fd >= 0) {
			(void)write(fd, "x", 1);
			(void)read(fd, buf, 4);
			close(fd);
		}
		break;
	case 9:
		(void)unlink(rpath(p, sizeof(p)));
		break;
	case 10:
		(void)rename(rpath(p, sizeof(p)), rpath(q, sizeof(q)));
		break;
	case 11:
		(void)link(rpath(p, sizeof(p)), rpath(q, sizeof(q)));
		break;
	case 12:
		if (rnd() % 2)
			(void)mkdir(rpath(p, sizeof(p)), 0755);
		else
			(void)rmdir(rpath(p, sizeof(p)));
		break;
	case 13:
		(void)chmod(rpath(p, sizeof(p)), 0644);
		(void)truncate(rpath(p, sizeof(p)), (off_t)(rnd() % 100));
		break;
	case 14:
		(void)symlink(rnd() % 2 ? "d" : "gone",
		    rpath(p, sizeof(p)));
		break;
	case 15:
		/* Instances shared with a child that changes files and goes. */
		if (rnd() % 8 == 0) {
			pid_t c = fork();

			if (c == 0) {
				for (int k = 0; k < 20; k++) {
					close(open(rpath(p, sizeof(p)),
					    O_CREAT | O_WRONLY, 0600));
					(void)unlink(rpath(p, sizeof(p)));
				}
				_exit(0);
			}
			if (c > 0)
				waitpid(c, NULL, 0);
		} else if (fds[i] >= 0) {
			fd = dup(fds[i]);
			close(fds[i]);
			fds[i] = fd;
		}
		break;
	}
}

/* Remove dir and what the calls left in it (renames nest directories). */
static int
clean(const char *dir)
{
	struct dirent *d;
	char p[512];
	DIR *dp;

	(void)chmod(dir, 0700);
	if ((dp = opendir(dir)) == NULL)
		return -1;
	while ((d = readdir(dp)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, d->d_name);
		if (unlink(p) < 0)
			(void)clean(p);
	}
	closedir(dp);
	return rmdir(dir);
}

int
main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 20000;

	if (argc > 2)
		rnd_state ^= (uint64_t)atoll(argv[2]) * 0x9e3779b97f4a7c15ULL;
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(ro != MAP_FAILED, "mmap"))
		return guest_done();
	snprintf(dirs[0], sizeof(dirs[0]), "/dev/shm/inrXXXXXX");
	snprintf(dirs[1], sizeof(dirs[1]), "/tmp/inrXXXXXX");
	if (!CHECK(mkdtemp(dirs[0]) && mkdtemp(dirs[1]), "mkdtemp"))
		return guest_done();
	for (long k = 0; k < iters; k++)
		one_call();
	for (int k = 0; k < NFDS; k++)
		if (fds[k] >= 0)
			close(fds[k]);
	CHECK_OK(clean(dirs[0]));
	CHECK_OK(clean(dirs[1]));
	return guest_done();
}
