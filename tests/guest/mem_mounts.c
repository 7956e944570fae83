/*
 * Mounts that a program keeps alive, or lets go, as the kernel's memory
 * sees them (tests/integration/mount_memory.py measures vkernel from the
 * host while these run under --mem).  An unprivileged user only sees
 * EPERM for its first mount.
 *
 * "mem_mounts loop N": a tmpfs mounted and unmounted N times on one
 * directory, every other one with MNT_DETACH while a file in it is open
 * (closed after): every round must work, however many there are.
 *
 * "mem_mounts proc N": N children in turn, each with a tmpfs on its own
 * /proc/self/task holding a file of PROC_FILE bytes, which goes when
 * the child is reaped (Linux detaches it then): N of them must fit in a
 * --mem that holds far fewer at once.
 *
 * "mem_mounts hold": a tmpfs mounted, a file in it opened and kept, the
 * tmpfs detached (MNT_DETACH), again and again: the rounds must end on
 * ENOMEM (ENOSPC when it is the new file that does not fit, as Linux's
 * tmpfs, or EMFILE or ENFILE for the descriptors) rather than go on for
 * good.  Once the files are closed the same must be had again, which
 * says the detached mounts were given back.
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "guest.h"

/* More rounds than any --mem of a test holds. */
#define HOLD_MAX 1000000
#define PROC_FILE (256 * 1024)

static char dir[64];

static void
loop(long n)
{
	long r;

	for (r = 0; r < n; r++) {
		int fd = -1;

		if (guest_mount("vkt", dir, "tmpfs", 0, NULL) != 0)
			break;
		if (r % 2 == 1 && (fd = open(guest_join(dir, "held"),
		    O_CREAT | O_RDWR, 0600)) < 0)
			break;
		if (guest_umount2(dir, fd >= 0 ? MNT_DETACH : 0) != 0)
			break;
		if (fd >= 0)
			close(fd);
	}
	CHECK(r == n, "round %ld of %ld", r, n);
}

/* The child's part of a proc round: 0, or the errno that stopped it. */
static int
proc_child(void)
{
	static char data[PROC_FILE];
	int fd;

	if (guest_mount("vkt", "/proc/self/task", "tmpfs", 0, NULL) != 0 ||
	    (fd = open("/proc/self/task/f", O_CREAT | O_WRONLY, 0600)) < 0)
		return errno;
	memset(data, 'p', sizeof(data));
	if (write(fd, data, sizeof(data)) != (ssize_t)sizeof(data))
		return errno != 0 ? errno : EIO;
	close(fd);
	return 0;
}

static void
proc_rounds(long n)
{
	int st = 0;
	long r;

	for (r = 0; r < n; r++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(proc_child());
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			break;
	}
	CHECK(r == n, "round %ld of %ld: child status %#x (errno %s)", r, n,
	    st, guest_errno_name(WIFEXITED(st) ? WEXITSTATUS(st) : 0));
}

/* Rounds until one fails; the descriptors held are in fds. */
static long
hold(int *fds, int *err)
{
	long n;

	for (n = 0; n < HOLD_MAX; n++) {
		*err = 0;
		if (guest_mount("vkt", dir, "tmpfs", 0, NULL) != 0) {
			*err = errno;
			break;
		}
		fds[n] = open(guest_join(dir, "held"), O_CREAT | O_RDWR, 0600);
		if (fds[n] < 0)
			*err = errno;
		CHECK_OK(guest_umount2(dir, MNT_DETACH));
		if (fds[n] < 0)
			break;
	}
	for (long i = 0; i < n; i++)
		close(fds[i]);
	return n;
}

static void
test_hold(void)
{
	struct rlimit rl = { HOLD_MAX + 16, HOLD_MAX + 16 };
	int *fds = calloc(HOLD_MAX, sizeof(*fds)), err, err2;
	long n, n2;

	if (!CHECK(fds != NULL, "calloc"))
		return;
	/* Root may have as many descriptors as fs.nr_open allows. */
	CHECK_OK(setrlimit(RLIMIT_NOFILE, &rl));
	n = hold(fds, &err);
	guest_note("hold: %ld mounts held, then %s", n,
	    guest_errno_name(err));
	CHECK(err == ENOMEM || err == ENOSPC || err == EMFILE ||
	    err == ENFILE,
	    "held %ld, then errno %s", n, guest_errno_name(err));
	CHECK(n >= 1000, "only %ld mounts held", n);
	n2 = hold(fds, &err2);
	guest_note("hold again: %ld mounts held, then %s", n2,
	    guest_errno_name(err2));
	CHECK(err2 == err && n2 >= n - n / 10, "held %ld then %s, before "
	    "%ld then %s", n2, guest_errno_name(err2), n,
	    guest_errno_name(err));
	free(fds);
}

int
main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "hold") != 0 && argc < 3)) {
		fprintf(stderr, "usage: mem_mounts loop N | proc N | hold\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "/tmp/vkmemmnt.%d", getpid());
	CHECK_OK(mkdir(dir, 0755));
	if (geteuid() != 0) {
		CHECK_ERR(guest_mount("vkt", dir, "tmpfs", 0, NULL), EPERM);
		rmdir(dir);
		return guest_done();
	}
	/* Natively: a namespace of our own; vkernel has one table. */
	if (unshare(CLONE_NEWNS) == 0)
		CHECK_OK(guest_mount(NULL, "/", NULL, MS_PRIVATE | MS_REC,
		    NULL));
	if (strcmp(argv[1], "loop") == 0)
		loop(atol(argv[2]));
	else if (strcmp(argv[1], "proc") == 0)
		proc_rounds(atol(argv[2]));
	else
		test_hold();
	rmdir(dir);
	return guest_done();
}
