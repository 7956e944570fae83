/*
 * Verifies that a tmpfs mounted and unmounted 100,000 times on one
 * directory works on the last time as on the first: every other one is
 * taken away with MNT_DETACH while a file in it is open, which still
 * reads and writes after, until it is closed; none of it shows at the
 * mount point after.  As an unprivileged user (also when not root natively)
 * each mount and unmount is EPERM.  Natively it runs in a mount
 * namespace of its own (private, so nothing reaches the host's mounts).
 * Under vkernel the suite runs it in a --mem of 32 MiB too, which a
 * mount left behind by each round would fill long before the last
 * (tests/integration/mount_memory.py measures vkernel from the host).
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "guest.h"

#define ROUNDS 100000

static char dir[64];

/* A tmpfs on dir takes a file, which reads back what went in. */
static void
test_after(void)
{
	char buf[8] = "";
	int fd;

	if (CHECK_OK(guest_mount("vkt", dir, "tmpfs", 0, "size=64k")) != 0)
		return;
	fd = open(guest_join(dir, "f"), O_CREAT | O_EXCL | O_RDWR, 0600);
	CHECK(fd >= 0 && write(fd, "vk", 2) == 2 &&
	    pread(fd, buf, sizeof(buf), 0) == 2 && memcmp(buf, "vk", 2) == 0,
	    "a file in the tmpfs mounted after the rounds");
	if (fd >= 0)
		close(fd);
	CHECK_OK(guest_umount2(dir, 0));
}

static void
test_rounds(void)
{
	struct stat st;
	long r;

	for (r = 0; r < ROUNDS; r++) {
		int fd = -1;

		if (guest_mount("vkt", dir, "tmpfs", 0, NULL) != 0) {
			CHECK(false, "mount, round %ld", r);
			break;
		}
		if (r % 2 == 1 && (fd = open(guest_join(dir, "held"),
		    O_CREAT | O_RDWR, 0600)) < 0) {
			CHECK(false, "open in the tmpfs, round %ld", r);
			break;
		}
		if (guest_umount2(dir, fd >= 0 ? MNT_DETACH : 0) != 0) {
			CHECK(false, "umount2, round %ld", r);
			break;
		}
		if (fd < 0)
			continue;
		/* Detached, the file is still there for its holder. */
		if (write(fd, "x", 1) != 1 || pread(fd, &st, 1, 0) != 1) {
			CHECK(false, "the detached file, round %ld", r);
			break;
		}
		close(fd);
	}
	CHECK_EQ(r, ROUNDS);
	CHECK_ERR(stat(guest_join(dir, "held"), &st), ENOENT);
	test_after();
	CHECK_ERR(stat(guest_join(dir, "f"), &st), ENOENT);
}

static void
test_unprivileged(const void *arg)
{
	(void)arg;
	CHECK_ERR(guest_mount("vkt", dir, "tmpfs", 0, NULL), EPERM);
	CHECK_ERR(guest_umount2(dir, MNT_DETACH), EPERM);
	CHECK_ERR(guest_umount2("/proc", 0), EPERM);
}

int
main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/vkmany.%d", getpid());
	CHECK_OK(mkdir(dir, 0777));
	if (geteuid() != 0) {
		test_unprivileged(NULL);
		rmdir(dir);
		return guest_done();
	}
	/* Natively: a namespace of our own; vkernel has one table. */
	if (unshare(CLONE_NEWNS) == 0)
		CHECK_OK(guest_mount(NULL, "/", NULL, MS_PRIVATE | MS_REC,
		    NULL));
	test_rounds();
	guest_as_nobody(test_unprivileged, NULL);
	rmdir(dir);
	return guest_done();
}
