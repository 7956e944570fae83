/*
 * Verifies that a mount is on a directory in the mount that shows it,
 * not on the directory wherever it shows (and that directory is busy): a
 * mount below a private bind
 * is not seen below the bind's source, nor one below the source through
 * the bind; a mount on a bind of its own parent directory leaves the
 * parent as it was; a directory bound onto itself becomes a mount point
 * (the step before pivot_root(2)); MS_BIND alone leaves the source's
 * submounts out and MS_BIND | MS_REC copies them; under a shared mount a
 * bind of its root receives what is mounted and unmounted below it.
 * ".." from each comes back the way the path went.  Recursive binds of a
 * tree into itself make 8,192 mounts that /proc/self/mountinfo, read a
 * page at a time, lists, and one MNT_DETACH takes away.  Natively it
 * runs in a mount namespace of its own.
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "guest.h"

static char top[64];

static void
put(const char *path)
{
	long fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);

	CHECK(fd >= 0, "create %s", path);
	if (fd >= 0)
		close(fd);
}

static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static dev_t
dev_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_dev : (dev_t)-1;
}

/* A tmpfs on a/sub through the bind b is not on a/sub, and back. */
static void
test_below_bind(void)
{
	CHECK_OK(mkdir(guest_join(top, "a/sub"), 0755));
	put(guest_join(top, "a/sub/f"));
	if (CHECK_OK(guest_mount(guest_join(top, "a"), guest_join(top, "b"), NULL, MS_BIND, NULL)))
		return;
	CHECK(exists(guest_join(top, "b/sub/f")), "the bind shows the source");
	/* Its mount point is busy, though the bind's root is no fs root. */
	CHECK_ERR(rmdir(guest_join(top, "b")), EBUSY);
	CHECK_ERR(rename(guest_join(top, "b"), guest_join(top, "x")), EBUSY);
	CHECK_OK(guest_mount("vkt", guest_join(top, "b/sub"), "tmpfs", 0, NULL));
	CHECK(!exists(guest_join(top, "b/sub/f")), "the tmpfs hides b/sub/f");
	CHECK(exists(guest_join(top, "a/sub/f")), "a/sub is not the bind's mount point");
	CHECK(dev_of(guest_join(top, "a/sub")) == dev_of(top), "a/sub on top's fs");
	CHECK(dev_of(guest_join(top, "b/sub")) != dev_of(top), "b/sub on the tmpfs");
	CHECK(guest_same_inode(guest_join(top, "b/sub/.."), guest_join(top, "b")), "b/sub/.. is b");
	/* And the other way: a mount on the source stays out of the bind. */
	CHECK_OK(mkdir(guest_join(top, "a/other"), 0755));
	put(guest_join(top, "a/other/g"));
	CHECK_OK(guest_mount("vkt", guest_join(top, "a/other"), "tmpfs", 0, NULL));
	CHECK(exists(guest_join(top, "b/other/g")), "b/other is not a mount point");
	CHECK(!exists(guest_join(top, "a/other/g")), "a/other is one");
	CHECK_OK(umount2(guest_join(top, "a/other"), 0));
	CHECK_ERR(umount2(guest_join(top, "a/sub"), 0), EINVAL);
	CHECK_OK(umount2(guest_join(top, "b/sub"), 0));
	CHECK(exists(guest_join(top, "b/sub/f")), "unmounted, b/sub shows a/sub again");
	CHECK_OK(umount2(guest_join(top, "b"), 0));
}

/*
 * A bind of top on top/d and a tmpfs on that: top itself is unchanged,
 * top/d is the tmpfs, top/d/.. is top.
 */
static void
test_on_bind_of_parent(void)
{
	CHECK_OK(mkdir(guest_join(top, "d"), 0755));
	put(guest_join(top, "marker"));
	if (CHECK_OK(guest_mount(top, guest_join(top, "d"), NULL, MS_BIND, NULL)))
		return;
	CHECK(exists(guest_join(top, "d/marker")), "the bind shows top");
	CHECK(exists(guest_join(top, "d/d")), "and top/d, as a directory");
	CHECK_OK(guest_mount("vkt", guest_join(top, "d"), "tmpfs", 0, NULL));
	CHECK(exists(guest_join(top, "marker")), "top is still top");
	CHECK(exists(guest_join(top, "d")), "top/d is still there");
	CHECK(!exists(guest_join(top, "d/marker")), "top/d is the new tmpfs");
	CHECK(dev_of(guest_join(top, "d")) != dev_of(top), "on another fs");
	CHECK(guest_same_inode(guest_join(top, "d/.."), top), "top/d/.. is top");
	CHECK_OK(umount2(guest_join(top, "d"), 0));
	CHECK(exists(guest_join(top, "d/marker")), "the bind again");
	CHECK_OK(umount2(guest_join(top, "d"), 0));
	CHECK(!exists(guest_join(top, "d/marker")), "and the plain directory");
	CHECK_OK(unlink(guest_join(top, "marker")));
}

/* A directory bound onto itself: a mount point of its own. */
static void
test_self_bind(void)
{
	CHECK_OK(mkdir(guest_join(top, "x"), 0755));
	put(guest_join(top, "x/f"));
	if (CHECK_OK(guest_mount(guest_join(top, "x"), guest_join(top, "x"), NULL, MS_BIND, NULL)))
		return;
	CHECK(exists(guest_join(top, "x/f")), "x shows its files");
	CHECK(guest_same_inode(guest_join(top, "x/.."), top), "x/.. is top");
	CHECK_OK(guest_mount(guest_join(top, "x"), guest_join(top, "x"), NULL, MS_BIND, NULL));
	CHECK_OK(guest_mount("vkt", guest_join(top, "x"), "tmpfs", 0, NULL));
	CHECK(!exists(guest_join(top, "x/f")), "a tmpfs on it hides it");
	CHECK(guest_same_inode(guest_join(top, "x/.."), top), "x/.. is still top");
	CHECK_OK(umount2(guest_join(top, "x"), 0));
	CHECK_OK(umount2(guest_join(top, "x"), 0));
	CHECK(exists(guest_join(top, "x/f")), "the first bind");
	CHECK_OK(umount2(guest_join(top, "x"), 0));
	CHECK_ERR(umount2(guest_join(top, "x"), 0), EINVAL);
	CHECK(exists(guest_join(top, "x/f")), "x itself");
}

/* MS_BIND leaves the submounts out; MS_REC copies them. */
static void
test_rec(void)
{
	CHECK_OK(mkdir(guest_join(top, "r"), 0755));
	CHECK_OK(mkdir(guest_join(top, "r/m"), 0755));
	CHECK_OK(mkdir(guest_join(top, "s"), 0755));
	CHECK_OK(mkdir(guest_join(top, "t"), 0755));
	if (CHECK_OK(guest_mount("vkt", guest_join(top, "r/m"), "tmpfs", 0, NULL)))
		return;
	put(guest_join(top, "r/m/in"));
	CHECK_OK(guest_mount(guest_join(top, "r"), guest_join(top, "s"), NULL, MS_BIND, NULL));
	CHECK(!exists(guest_join(top, "s/m/in")), "MS_BIND: s/m is the directory");
	CHECK_OK(guest_mount(guest_join(top, "r"), guest_join(top, "t"), NULL, MS_BIND | MS_REC,
	    NULL));
	CHECK(exists(guest_join(top, "t/m/in")), "MS_REC: t/m is the tmpfs");
	CHECK(guest_same_inode(guest_join(top, "t/m"), guest_join(top, "r/m")), "the same tmpfs");
	CHECK(guest_same_inode(guest_join(top, "t/m/.."), guest_join(top, "t")), "t/m/.. is t");
	/* The copy is a mount of its own: it goes alone. */
	CHECK_OK(umount2(guest_join(top, "t/m"), 0));
	CHECK(exists(guest_join(top, "r/m/in")), "the source's stays");
	CHECK_OK(umount2(guest_join(top, "t"), 0));
	CHECK_OK(umount2(guest_join(top, "s"), 0));
	CHECK_OK(umount2(guest_join(top, "r/m"), 0));
}

/* A bind of a shared mount's root is its peer: it receives. */
static void
test_shared_peer(void)
{
	CHECK_OK(mkdir(guest_join(top, "p"), 0755));
	CHECK_OK(mkdir(guest_join(top, "q"), 0755));
	if (CHECK_OK(guest_mount("vkt", guest_join(top, "p"), "tmpfs", 0, NULL)))
		return;
	CHECK_OK(mkdir(guest_join(top, "p/sub"), 0755));
	CHECK_OK(guest_mount(NULL, guest_join(top, "p"), NULL, MS_SHARED, NULL));
	CHECK_OK(guest_mount(guest_join(top, "p"), guest_join(top, "q"), NULL, MS_BIND, NULL));
	CHECK_OK(guest_mount("vkt", guest_join(top, "p/sub"), "tmpfs", 0, NULL));
	put(guest_join(top, "p/sub/new"));
	CHECK(exists(guest_join(top, "q/sub/new")), "the peer got the mount");
	CHECK_OK(umount2(guest_join(top, "p/sub"), 0));
	CHECK(!exists(guest_join(top, "q/sub/new")), "and its unmount");
	CHECK_ERR(umount2(guest_join(top, "q/sub"), 0), EINVAL);
	CHECK_OK(umount2(guest_join(top, "q"), 0));
	CHECK_OK(umount2(guest_join(top, "p"), 0));
}

/* Lines of /proc/self/mountinfo that name a path below top/m. */
static long
count_below_m(void)
{
	static char buf[4096];
	char needle[96], tail[96] = "";
	long fd = open("/proc/self/mountinfo", O_RDONLY), n, count = 0;
	size_t k;

	if (fd < 0)
		return -1;
	snprintf(needle, sizeof(needle), " %s/m", top);
	k = strlen(needle);
	/* Read in pages, as stdio does; a match may span two of them. */
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		char joined[sizeof(tail) + sizeof(buf)];

		buf[n] = '\0';
		snprintf(joined, sizeof(joined), "%s%s", tail, buf);
		for (char *p = joined; (p = strstr(p, needle)) != NULL;
		    p += k)
			if (p[k] == ' ' || p[k] == '/')
				count++;
		n = (long)strlen(joined);
		snprintf(tail, sizeof(tail), "%s",
		    joined + (n > (long)k ? n - (long)k : 0));
	}
	close(fd);
	return count;
}

/*
 * A recursive bind of a tree onto a directory of its own doubles it:
 * 13 of them make 8,192 mounts, all in mountinfo, all gone at one
 * MNT_DETACH of the first.
 */
static void
test_many(void)
{
	int i;

	CHECK_OK(mkdir(guest_join(top, "m"), 0755));
	if (CHECK_OK(guest_mount("vkt", guest_join(top, "m"), "tmpfs", 0,
	    NULL)))
		return;
	CHECK_OK(mkdir(guest_join(top, "m/s"), 0755));
	for (i = 0; i < 13; i++)
		if (CHECK_OK(guest_mount(guest_join(top, "m"),
		    guest_join(top, "m/s"), NULL, MS_BIND | MS_REC, NULL)))
			break;
	CHECK_EQ(count_below_m(), 8192L);
	CHECK(exists(guest_join(top, "m/s/s/s/s/s/s/s/s/s/s/s/s/s")),
	    "the deepest copy");
	CHECK_OK(umount2(guest_join(top, "m"), MNT_DETACH));
	CHECK_EQ(count_below_m(), 0L);
}

int
main(void)
{
	if (geteuid() != 0) {
		printf("ok: fs_mount_place (not root: nothing to check)\n");
		return 0;
	}
	/* Natively: a namespace of our own. */
	if (unshare(CLONE_NEWNS) == 0)
		CHECK_OK(guest_mount(NULL, "/", NULL, MS_PRIVATE | MS_REC,
		    NULL));
	snprintf(top, sizeof(top), "/tmp/vkmp.%d", getpid());
	CHECK_OK(mkdir(top, 0755));
	/* A tmpfs of its own, so that nothing is left behind natively. */
	CHECK_OK(guest_mount("vkt", top, "tmpfs", 0, NULL));
	CHECK_OK(mkdir(guest_join(top, "a"), 0755));
	CHECK_OK(mkdir(guest_join(top, "b"), 0755));
	test_below_bind();
	test_on_bind_of_parent();
	test_self_bind();
	test_rec();
	test_shared_peer();
	test_many();
	CHECK_OK(umount2(top, MNT_DETACH));
	rmdir(top);
	return guest_done();
}
