/*
 * Workloads that run out of memory under a small --mem (tests/integration
 * /mem.sh runs them with --mem 64M), for the OOM killer:
 *
 *   cow     the parent fills 40 MiB and forks; the child writes every
 *           page, so copy-on-write needs 40 MiB more.  The child must
 *           die of SIGKILL, the parent's memory must be intact, and
 *           /dev/kmsg must say which process was killed: exit 0.
 *   adj     a child that raised its oom_score_adj to 1000 holds 8 MiB
 *           while the parent touches 48 MiB: the child, not the larger
 *           parent, must be killed, and the parent finish: exit 0.
 *   self    one process touches a sparse terabyte until it is killed.
 *   kread   the same, the kernel writing the pages (read from
 *           /dev/zero): killed too, never an EFAULT seen.
 *
 * With "nobody" after the mode the workload runs as uid 65534.  Each
 * runs below the sandbox's pid 1, which the killer spares.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "guest.h"

#define MiB	(1UL << 20)

static const int rw = PROT_READ | PROT_WRITE;

static char *
map(size_t len, int flags)
{
	char *p = mmap(NULL, len, rw, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1,
	    0);

	if (p == MAP_FAILED) {
		guest_note("mmap %zu: errno %d", len, errno);
		exit(2);
	}
	return p;
}

static void
fill(char *p, size_t len, char v)
{
	for (size_t i = 0; i < len; i += GUEST_PAGE)
		p[i] = v;
}

/* Whether /dev/kmsg has the OOM killer's record of pid. */
static bool
kmsg_says_killed(pid_t pid)
{
	char rec[512], want[64];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	bool found = false;
	ssize_t n;

	if (!CHECK(fd >= 0, "open /dev/kmsg"))
		return false;
	snprintf(want, sizeof(want), "Out of memory: Killed process %d (",
	    (int)pid);
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0) {
		rec[n] = '\0';
		if (strstr(rec, want) != NULL && strncmp(rec, "3,", 2) == 0)
			found = true;
	}
	CHECK(n < 0 && errno == EAGAIN, "the end of /dev/kmsg");
	close(fd);
	return found;
}

static int
cow(void)
{
	size_t len = 40 * MiB;
	char *p = map(len, 0);
	pid_t pid;
	int st;

	fill(p, len, 1);
	pid = fork();
	if (pid == 0) {
		fill(p, len, 2);
		_exit(3);
	}
	if (!CHECK(pid > 0, "fork"))
		return guest_done();
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	    "the child's status %#x", st);
	for (size_t i = 0; i < len; i += GUEST_PAGE)
		if (p[i] != 1)
			CHECK(false, "the parent's page %zu changed", i);
	CHECK(kmsg_says_killed(pid), "/dev/kmsg names the child %d", pid);
	return guest_done();
}

static int
adj(void)
{
	int pipefd[2], st;
	pid_t pid;
	char c;

	CHECK_OK(pipe(pipefd));
	pid = fork();
	if (pid == 0) {
		int fd = open("/proc/self/oom_score_adj", O_WRONLY);

		if (fd < 0 || write(fd, "1000", 4) != 4)
			_exit(4);
		fill(map(8 * MiB, 0), 8 * MiB, 1);
		(void)write(pipefd[1], "r", 1);
		pause();
		_exit(5);
	}
	if (!CHECK(pid > 0, "fork"))
		return guest_done();
	close(pipefd[1]);
	if (!CHECK_EQ(read(pipefd[0], &c, 1), 1))
		return guest_done();
	fill(map(48 * MiB, 0), 48 * MiB, 1);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	    "the child's status %#x", st);
	return guest_done();
}

static int
self(bool kernel)
{
	size_t len = 1UL << 40;
	char *p = map(len, MAP_NORESERVE);
	int fd = open("/dev/zero", O_RDONLY);

	for (size_t off = 0; off < len; off += MiB) {
		if (!kernel) {
			p[off] = 1;
		} else if (read(fd, p + off, GUEST_PAGE) != GUEST_PAGE) {
			guest_note("read into %zu: errno %d", off, errno);
			return 1;
		}
	}
	return 0;
}

static int
workload(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[2], "nobody") == 0 &&
	    (syscall(SYS_setresgid, 65534, 65534, 65534) < 0 ||
	    syscall(SYS_setresuid, 65534, 65534, 65534) < 0))
		return guest_skip("cannot switch to uid 65534");
	if (strcmp(argv[1], "cow") == 0)
		return cow();
	if (strcmp(argv[1], "adj") == 0)
		return adj();
	if (strcmp(argv[1], "self") == 0 || strcmp(argv[1], "kread") == 0)
		return self(strcmp(argv[1], "kread") == 0);
	return 2;
}

/*
 * As the sandbox's pid 1, which the OOM killer spares while anything
 * else is left, the workload runs in a child and its end is passed on:
 * 128 + N for signal N, as a shell's.
 */
int
main(int argc, char **argv)
{
	pid_t pid;
	int st;

	if (argc < 2)
		return 2;
	if (getpid() != 1)
		return workload(argc, argv);
	if ((pid = fork()) == 0)
		_exit(workload(argc, argv));
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 2;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}
