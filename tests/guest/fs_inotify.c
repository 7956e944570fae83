/*
 * inotify: each event kind, rename cookies, IN_ONESHOT, IN_MASK_ADD and
 * IN_MASK_CREATE, merging, overflow, read(2)'s sizes, FIONREAD, poll,
 * epoll and select, and the errors, on /dev/shm (a tmpfs) and on /tmp
 * and /var/tmp (the overlay root's inside vkernel).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

static char evbuf[1 << 16] __attribute__((aligned(8)));

/*
 * Read what is queued and check it against want: events as "WD:MASK:NAME"
 * separated by spaces, MASK in hex; the cookies of MOVED_FROM and MOVED_TO
 * must pair up.
 */
static void
expect(int fd, const char *want, int line)
{
	char got[4096] = "";
	size_t off = 0;
	uint32_t cookie = 0;
	long n;
	int len = 0;

	n = read(fd, evbuf, sizeof(evbuf));
	if (n < 0 && errno == EAGAIN)
		n = 0;
	while (off < (size_t)n) {
		struct inotify_event *e = (void *)(evbuf + off);

		len += snprintf(got + len, sizeof(got) - (size_t)len,
		    "%s%d:%x:%s", len > 0 ? " " : "", e->wd, e->mask,
		    e->len > 0 ? e->name : "");
		if (e->mask & IN_MOVED_FROM)
			cookie = e->cookie;
		if (e->mask & IN_MOVED_TO)
			CHECK(cookie != 0 && e->cookie == cookie,
			    "line %d: cookie %u then %u", line, cookie,
			    e->cookie);
		off += sizeof(*e) + e->len;
	}
	CHECK(strcmp(got, want) == 0, "line %d: got \"%s\" want \"%s\"", line,
	    got, want);
}

#define EXPECT(fd, ...) do {						\
	char w_[1024];							\
	snprintf(w_, sizeof(w_), __VA_ARGS__);				\
	expect(fd, w_, __LINE__);					\
} while (0)

static void
put(const char *path, const char *s)
{
	int fd = (int)CHECK_OK(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644));

	CHECK_EQ(write(fd, s, strlen(s)), (long)strlen(s));
	close(fd);
}

/* Every event kind under dir, watched as a directory and file by file. */
static void
events(const char *base)
{
	char dir[256], f[300], g[300], sub[300];
	int in, dw, fw, sw, fd;
	char c;

	snprintf(dir, sizeof(dir), "%s/inoXXXXXX", base);
	if (!CHECK(mkdtemp(dir) != NULL, "mkdtemp %s", dir))
		return;
	snprintf(f, sizeof(f), "%s/f", dir);
	snprintf(g, sizeof(g), "%s/g", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	in = (int)CHECK_OK(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
	CHECK_EQ(fcntl(in, F_GETFD), FD_CLOEXEC);
	CHECK_EQ(fcntl(in, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	dw = (int)CHECK_OK(inotify_add_watch(in, dir, IN_ALL_EVENTS));

	/* creat + write + close: CREATE, OPEN, MODIFY, CLOSE_WRITE. */
	put(f, "hello");
	EXPECT(in, "%d:100:f %d:20:f %d:2:f %d:8:f", dw, dw, dw, dw);
	fw = (int)CHECK_OK(inotify_add_watch(in, f, IN_ALL_EVENTS));
	CHECK(fw != dw, "a file's own wd");
	/* The same file again: the same wd. */
	CHECK_EQ(inotify_add_watch(in, f, IN_ALL_EVENTS), fw);

	/* Reading: OPEN, ACCESS, CLOSE_NOWRITE, to the dir then the file. */
	fd = (int)CHECK_OK(open(f, O_RDONLY));
	CHECK_EQ(read(fd, &c, 1), 1);
	close(fd);
	EXPECT(in, "%d:20:f %d:20: %d:1:f %d:1: %d:10:f %d:10:", dw, fw, dw,
	    fw, dw, fw);

	/* chmod: ATTRIB; truncate: MODIFY. */
	CHECK_OK(chmod(f, 0600));
	CHECK_OK(truncate(f, 1));
	EXPECT(in, "%d:4:f %d:4: %d:2:f %d:2:", dw, fw, dw, fw);

	/* Events of two watches alternate: none merge. */
	fd = (int)CHECK_OK(open(f, O_WRONLY));
	CHECK_EQ(write(fd, "a", 1), 1);
	CHECK_EQ(write(fd, "b", 1), 1);
	CHECK_EQ(write(fd, "c", 1), 1);
	close(fd);
	CHECK_OK(inotify_rm_watch(in, dw));
	EXPECT(in, "%d:20:f %d:20: %d:2:f %d:2: %d:2:f %d:2: %d:2:f %d:2: "
	    "%d:8:f %d:8: %d:8000:", dw, fw, dw, fw, dw, fw, dw, fw, dw, fw,
	    dw);
	CHECK_ERR(inotify_rm_watch(in, dw), EINVAL);
	dw = (int)CHECK_OK(inotify_add_watch(in, dir, IN_ALL_EVENTS));

	/* rename: MOVED_FROM and MOVED_TO with one cookie, MOVE_SELF. */
	CHECK_OK(rename(f, g));
	EXPECT(in, "%d:40:f %d:80:g %d:800:", dw, dw, fw);
	/* link: ATTRIB, CREATE; unlink of one name: ATTRIB, DELETE. */
	CHECK_OK(link(g, f));
	EXPECT(in, "%d:4: %d:100:f", fw, dw);
	CHECK_OK(unlink(f));
	EXPECT(in, "%d:4: %d:200:f", fw, dw);
	/* The last name: DELETE_SELF and IGNORED, then DELETE. */
	CHECK_OK(unlink(g));
	EXPECT(in, "%d:4: %d:400: %d:8000: %d:200:g", fw, fw, fw, dw);

	/* Directories carry IN_ISDIR. */
	CHECK_OK(mkdir(sub, 0755));
	sw = (int)CHECK_OK(inotify_add_watch(in, sub, IN_DELETE_SELF |
	    IN_ONLYDIR));
	CHECK_OK(rmdir(sub));
	EXPECT(in, "%d:40000100:sub %d:400: %d:8000: %d:40000200:sub", dw,
	    sw, sw, dw);

	/* IN_ONESHOT: one event, then IGNORED. */
	fw = 0;
	put(f, "");
	fw = (int)CHECK_OK(inotify_add_watch(in, f, IN_OPEN | IN_ONESHOT));
	CHECK_OK(inotify_rm_watch(in, dw));
	EXPECT(in, "%d:100:f %d:20:f %d:8:f %d:8000:", dw, dw, dw, dw);
	close((int)CHECK_OK(open(f, O_RDONLY)));
	close((int)CHECK_OK(open(f, O_RDONLY)));
	EXPECT(in, "%d:20: %d:8000:", fw, fw);
	CHECK_ERR(inotify_rm_watch(in, fw), EINVAL);

	/* IN_MASK_ADD adds to the mask; IN_MASK_CREATE refuses a second. */
	fw = (int)CHECK_OK(inotify_add_watch(in, f, IN_OPEN));
	CHECK_EQ(inotify_add_watch(in, f, IN_CLOSE_NOWRITE | IN_MASK_ADD),
	    fw);
	CHECK_ERR(inotify_add_watch(in, f, IN_OPEN | IN_MASK_CREATE),
	    EEXIST);
	close((int)CHECK_OK(open(f, O_RDONLY)));
	EXPECT(in, "%d:20: %d:10:", fw, fw);
	/* Without IN_MASK_ADD the mask is replaced. */
	CHECK_EQ(inotify_add_watch(in, f, IN_CLOSE_NOWRITE), fw);
	close((int)CHECK_OK(open(f, O_RDONLY)));
	EXPECT(in, "%d:10:", fw);
	/* Identical events in a row merge into one. */
	CHECK_EQ(inotify_add_watch(in, f, IN_MODIFY), fw);
	fd = (int)CHECK_OK(open(f, O_WRONLY));
	CHECK_EQ(write(fd, "a", 1), 1);
	CHECK_EQ(write(fd, "b", 1), 1);
	CHECK_EQ(pwrite(fd, "c", 1, 5), 1);
	close(fd);
	EXPECT(in, "%d:2:", fw);
	CHECK_OK(unlink(f));
	EXPECT(in, "%d:8000:", fw);
	CHECK_OK(rmdir(dir));
	close(in);
}

/* read(2)'s sizes, FIONREAD, overflow, blocking, readiness. */
static void
queue(void)
{
	char dir[] = "/tmp/inoqXXXXXX", f[64];
	struct epoll_event ev = { .events = EPOLLIN };
	struct timeval tv = { 0 };
	struct pollfd p;
	fd_set rs;
	int in, ep, wd, n, i, limit = 0;
	FILE *lf;
	pid_t c;

	if (!CHECK(mkdtemp(dir) != NULL, "mkdtemp"))
		return;
	in = (int)CHECK_OK(inotify_init());
	wd = (int)CHECK_OK(inotify_add_watch(in, dir, IN_CREATE | IN_DELETE));
	p = (struct pollfd){ .fd = in, .events = POLLIN };
	CHECK_EQ(poll(&p, 1, 0), 0);
	ep = (int)CHECK_OK(epoll_create1(0));
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, in, &ev));
	CHECK_EQ(epoll_wait(ep, &ev, 1, 0), 0);
	snprintf(f, sizeof(f), "%s/abc", dir);
	/* A blocked read wakes when another process makes a file. */
	if ((c = fork()) == 0) {
		usleep(50000);
		_exit(mknod(f, S_IFREG | 0644, 0) == 0 ? 0 : 1);
	}
	CHECK_EQ(poll(&p, 1, 5000), 1);
	CHECK_EQ(p.revents, POLLIN);
	CHECK_EQ(epoll_wait(ep, &ev, 1, 0), 1);
	FD_ZERO(&rs);
	FD_SET(in, &rs);
	CHECK_EQ(select(in + 1, &rs, NULL, NULL, &tv), 1);
	CHECK_OK(ioctl(in, FIONREAD, &n));
	CHECK_EQ(n, (long)sizeof(struct inotify_event) + 16);
	/* Too small a buffer for the next event: EINVAL, and it stays. */
	CHECK_ERR(read(in, evbuf, sizeof(struct inotify_event)), EINVAL);
	CHECK_ERR(read(in, evbuf, sizeof(struct inotify_event) + 15),
	    EINVAL);
	CHECK_EQ(read(in, evbuf, sizeof(struct inotify_event) + 16),
	    (long)sizeof(struct inotify_event) + 16);
	CHECK_EQ(((struct inotify_event *)evbuf)->len, 16);
	CHECK_EQ(((struct inotify_event *)evbuf)->wd, wd);
	CHECK(strcmp(((struct inotify_event *)evbuf)->name, "abc") == 0,
	    "name");
	CHECK_EQ(waitpid(c, NULL, 0), c);
	if ((c = fork()) == 0) {
		usleep(50000);
		_exit(unlink(f) == 0 ? 0 : 1);
	}
	CHECK_EQ(read(in, evbuf, sizeof(evbuf)),
	    (long)sizeof(struct inotify_event) + 16);
	CHECK_EQ(((struct inotify_event *)evbuf)->mask, IN_DELETE);
	CHECK_EQ(waitpid(c, NULL, 0), c);

	/* Past max_queued_events: one IN_Q_OVERFLOW. */
	if ((lf = fopen("/proc/sys/fs/inotify/max_queued_events", "r"))) {
		CHECK_EQ(fscanf(lf, "%d", &limit), 1);
		fclose(lf);
	}
	CHECK(limit > 0 && limit <= 16384, "max_queued_events %d", limit);
	for (i = 0; i < limit / 2 + 1 && limit <= 16384; i++) {
		CHECK_OK(mknod(f, S_IFREG | 0644, 0));
		CHECK_OK(unlink(f));
	}
	CHECK_OK(ioctl(in, FIONREAD, &n));
	CHECK_EQ(n, (long)(sizeof(struct inotify_event) + 16) * limit +
	    (long)sizeof(struct inotify_event));
	n = 0;
	for (;;) {
		struct inotify_event *e = (void *)evbuf;
		long got = read(in, evbuf, sizeof(struct inotify_event) + 16);

		if (got <= 0)
			break;
		if (e->mask == IN_Q_OVERFLOW) {
			CHECK_EQ(e->wd, -1);
			CHECK_EQ(n, limit);
			break;
		}
		n++;
		p.revents = 0;
		if (n == limit)
			CHECK_EQ(poll(&p, 1, 0), 1);
	}
	CHECK_EQ(n, limit);
	CHECK_OK(fcntl(in, F_SETFL, O_NONBLOCK));
	CHECK_ERR(read(in, evbuf, sizeof(evbuf)), EAGAIN);
	CHECK_OK(rmdir(dir));
	close(ep);
	close(in);
}

static void
errors(void)
{
	char dir[] = "/tmp/inoeXXXXXX", f[64];
	int in, efd, i, n = 0, limit = 0;
	int *fds;
	FILE *lf;

	CHECK_ERR(inotify_init1(0x1234), EINVAL);
	CHECK_ERR(inotify_init1(O_RDWR), EINVAL);
	in = (int)CHECK_OK(inotify_init1(0));
	CHECK_ERR(inotify_add_watch(in, "/tmp", 0), EINVAL);
	CHECK_ERR(inotify_add_watch(in, "/tmp", IN_OPEN | IN_MASK_ADD |
	    IN_MASK_CREATE), EINVAL);
	CHECK_ERR(inotify_add_watch(-1, "/tmp", IN_OPEN), EBADF);
	CHECK_ERR(inotify_add_watch(999, "/tmp", IN_OPEN), EBADF);
	efd = (int)CHECK_OK(open("/tmp", O_RDONLY));
	CHECK_ERR(inotify_add_watch(efd, "/tmp", IN_OPEN), EINVAL);
	CHECK_ERR(inotify_rm_watch(efd, 1), EINVAL);
	CHECK_ERR(inotify_rm_watch(-1, 1), EBADF);
	close(efd);
	CHECK_ERR(inotify_add_watch(in, "/no/such/dir/x", IN_OPEN), ENOENT);
	CHECK_ERR(inotify_add_watch(in, (char *)8, IN_OPEN), EFAULT);
	CHECK_ERR(inotify_add_watch(in, "/proc/self/exe", IN_OPEN |
	    IN_ONLYDIR), ENOTDIR);
	CHECK_ERR(inotify_rm_watch(in, 12345), EINVAL);
	CHECK_ERR(inotify_rm_watch(in, -1), EINVAL);
	CHECK_ERR(write(in, "x", 1), EBADF);
	/* IN_DONT_FOLLOW watches the link itself. */
	if (CHECK(mkdtemp(dir) != NULL, "mkdtemp")) {
		snprintf(f, sizeof(f), "%s/l", dir);
		CHECK_OK(symlink("/tmp", f));
		CHECK_ERR(inotify_add_watch(in, f, IN_OPEN | IN_ONLYDIR |
		    IN_DONT_FOLLOW), ENOTDIR);
		CHECK_OK(inotify_add_watch(in, f, IN_OPEN | IN_ONLYDIR));
		CHECK_OK(unlink(f));
		/* Read permission is needed, except for root. */
		snprintf(f, sizeof(f), "%s/s", dir);
		put(f, "");
		CHECK_OK(chmod(f, 0));
		if (geteuid() != 0)
			CHECK_ERR(inotify_add_watch(in, f, IN_OPEN), EACCES);
		CHECK_OK(unlink(f));
		CHECK_OK(rmdir(dir));
	}
	close(in);
	/* max_user_instances: EMFILE (or the fd limit's, natively). */
	if ((lf = fopen("/proc/sys/fs/inotify/max_user_instances", "r"))) {
		CHECK_EQ(fscanf(lf, "%d", &limit), 1);
		fclose(lf);
	}
	CHECK(limit > 0, "max_user_instances %d", limit);
	if ((fds = calloc((size_t)limit + 1, sizeof(*fds))) == NULL)
		return;
	for (i = 0; i <= limit; i++) {
		fds[i] = inotify_init();
		if (fds[i] < 0) {
			CHECK_EQ(errno, EMFILE);
			break;
		}
		n++;
	}
	CHECK(n <= limit, "instances are limited (%d)", n);
	while (n > 0)
		close(fds[--n]);
	free(fds);
}

int
main(void)
{
	events("/dev/shm");
	events("/tmp");
	events("/var/tmp");
	queue();
	errors();
	/* The same as an unprivileged user: read permission counts. */
	if (geteuid() == 0) {
		pid_t c = fork();
		int st = -1;

		if (c == 0) {
			if (setgroups(0, NULL) < 0 || setresgid(65534, 65534,
			    65534) < 0 || setresuid(65534, 65534, 65534) < 0)
				_exit(2);
			events("/dev/shm");
			errors();
			_exit(guest_failures > 0);
		}
		CHECK_EQ(waitpid(c, &st, 0), c);
		CHECK_EQ(st, 0);
	}
	return guest_done();
}
