/*
 * Verifies capget(2) and capset(2) on other threads: capget reads any
 * live thread's sets (its parent's, a child's that dropped root), a pid
 * that names no thread gives ESRCH and a negative one EINVAL; capset on
 * any thread but the caller gives EPERM.  The child parts need root.
 */
#include <sys/wait.h>

#include "guest.h"

/* <linux/capability.h>'s, which musl's include path lacks. */
#define CAP_VERSION_3	0x20080522

struct cap_header {
	uint32_t version;
	int pid;
};

struct cap_data {
	uint32_t effective, permitted, inheritable;
};

static long
cap_get(int pid, struct cap_data *d)
{
	struct cap_header h = { CAP_VERSION_3, pid };

	return syscall(SYS_capget, &h, d);
}

static long
cap_set(int pid, const struct cap_data *d)
{
	struct cap_header h = { CAP_VERSION_3, pid };

	return syscall(SYS_capset, &h, d);
}

/* A child that drops root and waits until its parent has looked. */
static pid_t
unprivileged_child(int *release)
{
	int ready[2], go[2];
	char c;
	pid_t pid;

	if (pipe(ready) < 0 || pipe(go) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		if (setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		(void)!write(ready[1], "r", 1);
		/* The parent closing its end ends the wait. */
		_exit(read(go[0], &c, 1) == 0 ? 0 : 3);
	}
	close(ready[1]);
	close(go[0]);
	if (pid < 0 || read(ready[0], &c, 1) != 1)
		return -1;
	close(ready[0]);
	*release = go[1];
	return pid;
}

int
main(void)
{
	struct cap_data mine[2], d[2];
	int release = -1, status = -1;
	pid_t pid;

	CHECK_OK(cap_get(0, mine));
	CHECK_OK(cap_get(getpid(), d));
	CHECK(memcmp(d, mine, sizeof(d)) == 0, "own pid: the same sets");
	CHECK_OK(cap_get(getppid(), d));
	CHECK_ERR(cap_get(0x3fffffff, d), ESRCH);
	CHECK_ERR(cap_get(-1, d), EINVAL);
	CHECK_ERR(cap_set(0x3fffffff, mine), EPERM);
	CHECK_OK(cap_set(0, mine));
	if (geteuid() != 0)
		return guest_done();

	pid = unprivileged_child(&release);
	if (!CHECK(pid > 0, "child"))
		return guest_done();
	if (CHECK_OK(cap_get(pid, d)) == 0)
		CHECK(d[0].effective == 0 && d[0].permitted == 0 &&
		    d[1].effective == 0, "uid 65534 holds none: %#x %#x",
		    d[0].effective, d[0].permitted);
	CHECK_ERR(cap_set(pid, d), EPERM);
	CHECK(mine[0].effective != 0, "root holds some: %#x",
	    mine[0].effective);
	close(release);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0, "child status %#x", status);
	return guest_done();
}
