/*
 * Verifies inotify at umount2 as Linux: every watch on the unmounted file
 * system hears IN_UNMOUNT, then IN_IGNORED, and is gone; watches on other
 * file systems hear nothing, nor does anyone while a bind still shows the
 * file system; after umount2(MNT_DETACH) with a file still open there
 * they hear it at that file's last close; a file deleted there gives
 * IN_DELETE_SELF, then IN_IGNORED, only once its last name and its
 * last open file are gone (one of two hard links unlinked is IN_ATTRIB
 * alone).  The watches are a guest root's and an unprivileged user's.
 * Natively it runs in a mount namespace of its own.
 */
#include <poll.h>
#include <sched.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "guest.h"

static char dir[64], dir2[64];
static char evbuf[4096] __attribute__((aligned(8)));

/*
 * The masks wd got, in order, as "MASK,MASK," in hex, from the events
 * read into evbuf (n bytes).
 */
static const char *
masks_of(long n, int wd)
{
	static char out[256];
	size_t len = 0;

	out[0] = '\0';
	for (long off = 0; off < n; ) {
		const struct inotify_event *e = (const void *)(evbuf + off);

		if (e->wd == wd)
			len += (size_t)snprintf(out + len, sizeof(out) - len,
			    "%x,", e->mask);
		off += (long)sizeof(*e) + e->len;
	}
	return out;
}

/* Read what fd has queued into evbuf: its size, 0 if nothing. */
static long
drain(int fd)
{
	long n = read(fd, evbuf, sizeof(evbuf));

	return n < 0 && errno == EAGAIN ? 0 : n;
}

static void
path(char *buf, size_t size, const char *d, const char *name)
{
	snprintf(buf, size, "%s/%s", d, name);
}

/*
 * A tmpfs at dir with the file f in it, which a new instance watches for
 * mask as *wp: the instance, or -1.
 */
static int
mount_watched(char *f, size_t size, uint32_t mask, int *wp)
{
	int in = inotify_init1(IN_NONBLOCK);

	if (!CHECK(in >= 0, "inotify_init1") ||
	    CHECK_OK(mount("none", dir, "tmpfs", 0, NULL)) != 0)
		return -1;
	path(f, size, dir, "f");
	CHECK_OK(close((int)CHECK_OK(open(f, O_CREAT | O_WRONLY, 0644))));
	*wp = (int)CHECK_OK(inotify_add_watch(in, f, mask));
	return in;
}

/*
 * A tmpfs at dir, with a file f and a directory d, watched with the
 * tmpfs's root and dir2 (on the file system below) by instance in.
 */
static void
test_umount(bool detach)
{
	int in = inotify_init1(IN_NONBLOCK), wr, wf, wd, wo;
	char f[96], d[96];
	long n;

	if (!CHECK(in >= 0, "inotify_init1") ||
	    CHECK_OK(mount("none", dir, "tmpfs", 0, NULL)) != 0)
		return;
	path(f, sizeof(f), dir, "f");
	path(d, sizeof(d), dir, "d");
	CHECK_OK(close((int)CHECK_OK(open(f, O_CREAT | O_WRONLY, 0644))));
	CHECK_OK(mkdir(d, 0755));
	wr = (int)CHECK_OK(inotify_add_watch(in, dir, IN_CREATE));
	wf = (int)CHECK_OK(inotify_add_watch(in, f, IN_MODIFY));
	wd = (int)CHECK_OK(inotify_add_watch(in, d, IN_ALL_EVENTS));
	wo = (int)CHECK_OK(inotify_add_watch(in, dir2, IN_ALL_EVENTS));
	CHECK_EQ(drain(in), 0);
	CHECK_OK(umount2(dir, detach ? MNT_DETACH : 0));
	n = drain(in);
	/* IN_UNMOUNT | IN_ISDIR for a directory. */
	CHECK(strcmp(masks_of(n, wr), "40002000,8000,") == 0, "root: %s",
	    masks_of(n, wr));
	CHECK(strcmp(masks_of(n, wf), "2000,8000,") == 0, "file: %s",
	    masks_of(n, wf));
	CHECK(strcmp(masks_of(n, wd), "40002000,8000,") == 0, "dir: %s",
	    masks_of(n, wd));
	CHECK(strcmp(masks_of(n, wo), "") == 0, "below: %s", masks_of(n, wo));
	CHECK_EQ(n, 6 * (long)sizeof(struct inotify_event));
	CHECK_ERR(inotify_rm_watch(in, wf), EINVAL);
	CHECK_OK(inotify_rm_watch(in, wo));
	close(in);
}

/* MNT_DETACH while a file is open there: IN_UNMOUNT at its last close. */
static void
test_detach_busy(void)
{
	char f[96];
	int w, in = mount_watched(f, sizeof(f), IN_ATTRIB, &w), fd, dup;
	long n;

	if (in < 0)
		return;
	fd = (int)CHECK_OK(open(f, O_RDONLY));
	dup = (int)CHECK_OK(fcntl(fd, F_DUPFD_CLOEXEC, 0));
	CHECK_OK(umount2(dir, MNT_DETACH));
	CHECK_EQ(drain(in), 0);
	CHECK_OK(close(fd));
	CHECK_EQ(drain(in), 0);
	CHECK_OK(close(dup));
	n = drain(in);
	CHECK(strcmp(masks_of(n, w), "2000,8000,") == 0, "at close: %s",
	    masks_of(n, w));
	close(in);
}

/* While a bind shows the file system, its first mount's umount is quiet. */
static void
test_bind(void)
{
	char f[96];
	int w, in = mount_watched(f, sizeof(f), IN_ATTRIB, &w);
	long n;

	if (in < 0)
		return;
	if (CHECK_OK(mount(dir, dir2, NULL, MS_BIND, NULL)) == 0) {
		CHECK_OK(mount(NULL, dir2, NULL, MS_PRIVATE, NULL));
		CHECK_OK(umount2(dir, 0));
		CHECK_EQ(drain(in), 0);
		CHECK_OK(umount2(dir2, 0));
	} else {
		CHECK_OK(umount2(dir, 0));
	}
	n = drain(in);
	CHECK(strcmp(masks_of(n, w), "2000,8000,") == 0, "bound: %s",
	    masks_of(n, w));
	close(in);
}

/* The last link of a file goes: ATTRIB, DELETE_SELF, IGNORED. */
static void
test_delete(void)
{
	char f[96];
	int w, in = mount_watched(f, sizeof(f), IN_ALL_EVENTS, &w);
	long n;

	if (in < 0)
		return;
	CHECK_OK(unlink(f));
	n = drain(in);
	CHECK(strcmp(masks_of(n, w), "4,400,8000,") == 0, "deleted: %s",
	    masks_of(n, w));
	CHECK_OK(umount2(dir, 0));
	CHECK_EQ(drain(in), 0);
	close(in);
}

/*
 * One of two hard links goes: ATTRIB alone.  The last goes while the
 * file is open: ATTRIB; DELETE_SELF and IGNORED follow its last close.
 */
static void
test_delete_linked(void)
{
	char f[96], g[96];
	int w, in = mount_watched(f, sizeof(f), IN_ALL_EVENTS, &w), fd;
	long n;

	if (in < 0)
		return;
	path(g, sizeof(g), dir, "g");
	CHECK_OK(link(f, g));
	CHECK_OK(unlink(f));
	n = drain(in);
	CHECK(strcmp(masks_of(n, w), "4,") == 0, "linked: %s",
	    masks_of(n, w));
	fd = (int)CHECK_OK(open(g, O_RDONLY));
	CHECK_OK(unlink(g));
	n = drain(in);
	CHECK(strcmp(masks_of(n, w), "20,4,") == 0, "last, open: %s",
	    masks_of(n, w));
	CHECK_OK(close(fd));
	n = drain(in);
	CHECK(strcmp(masks_of(n, w), "10,400,8000,") == 0, "closed: %s",
	    masks_of(n, w));
	CHECK_OK(umount2(dir, 0));
	close(in);
}

/* An unprivileged user's watch hears of root's umount too. */
static void
test_user(void)
{
	int ready[2], go[2], st;
	char f[96], c;
	pid_t pid;

	if (CHECK_OK(mount("none", dir, "tmpfs", 0, "mode=1777")) != 0)
		return;
	path(f, sizeof(f), dir, "f");
	CHECK_OK(pipe(ready));
	CHECK_OK(pipe(go));
	if ((pid = fork()) == 0) {
		int in, w;
		long n;

		close(ready[0]);
		close(go[1]);
		if (setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		in = inotify_init1(IN_NONBLOCK);
		CHECK_OK(close((int)CHECK_OK(open(f, O_CREAT | O_WRONLY,
		    0644))));
		w = (int)CHECK_OK(inotify_add_watch(in, f, IN_OPEN));
		CHECK_EQ(write(ready[1], "r", 1), 1);
		CHECK_EQ(read(go[0], &c, 1), 1);
		n = drain(in);
		CHECK(strcmp(masks_of(n, w), "2000,8000,") == 0, "user: %s",
		    masks_of(n, w));
		_exit(guest_done() == 0 ? 0 : 1);
	}
	close(ready[1]);
	close(go[0]);
	CHECK_EQ(read(ready[0], &c, 1), 1);
	CHECK_OK(umount2(dir, 0));
	CHECK_EQ(write(go[1], "g", 1), 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "unprivileged child: %#x", st);
	close(ready[0]);
	close(go[1]);
}

int
main(void)
{
	if (geteuid() != 0) {
		printf("ok: fs_inotify_umount (not root: nothing to check)\n");
		return 0;
	}
	/* Natively: a namespace of our own; vkernel has one table. */
	if (unshare(CLONE_NEWNS) == 0)
		CHECK_OK(mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL));
	snprintf(dir, sizeof(dir), "/tmp/vkinum.%d", getpid());
	snprintf(dir2, sizeof(dir2), "/tmp/vkinum2.%d", getpid());
	CHECK_OK(mkdir(dir, 0755));
	CHECK_OK(mkdir(dir2, 0755));
	test_umount(false);
	test_umount(true);
	test_detach_busy();
	test_bind();
	test_delete();
	test_delete_linked();
	test_user();
	rmdir(dir);
	rmdir(dir2);
	return guest_done();
}
