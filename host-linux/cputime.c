/*
 * The host's CPU-time accounting of stub threads, read from /proc.
 *
 * Linux lets a process read the CPU clock of another whole process but
 * the thread clocks of its own threads only, so the kernel cannot ask the
 * host clock of one stub thread.  /proc/PID/task/TID/schedstat has that
 * thread's run time in ns, and the stat files split a thread's or a
 * process's time into user and system ticks.  What a read costs on this
 * kind of host (a loaded 2-CPU VM, bench: a pread loop against a spinning
 * child): a schedstat fd kept open ~2-3 us, a stat fd ~4.5 us, openat2 +
 * pread + close ~11 us, the host CPU clock of another process ~2-4 us.
 * So a thread keeps its schedstat fd open once it has been asked for,
 * a process total is its host clock, and the stat split is read only when
 * a user/system split is wanted.
 *
 * /proc is opened at start-up; each file beneath it is opened with the
 * openat2 the lock-down allows for hostfs.  Without /proc a thread's time
 * is its process's (see plat_thread_cputime).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host-linux/host.h"

static int proc_fd = -1;

int
cputime_init(void)
{
	proc_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	return proc_fd < 0 ? -errno : 0;
}

int
cputime_proc_fd(void)
{
	return proc_fd;
}

int
cputime_open(int pid, int tid, const char *file)
{
	char path[64];

	if (proc_fd < 0)
		return -ENOENT;
	if (tid != 0)
		snprintf(path, sizeof(path), "%d/task/%d/%s", pid, tid, file);
	else
		snprintf(path, sizeof(path), "%d/%s", pid, file);
	return host_openat2(proc_fd, path, O_RDONLY, 0);
}

/*
 * /proc/PID itself, which pidfd_send_signal takes for a pidfd, or -errno:
 * the vkernel signals its stubs through these.
 */
int
proc_pidfd(int pid)
{
	char name[16];

	if (proc_fd < 0)
		return -ENOENT;
	snprintf(name, sizeof(name), "%d", pid);
	return host_openat2(proc_fd, name, O_RDONLY | O_DIRECTORY, 0);
}

/* Read a whole /proc file from its start; returns its length or -1. */
static ssize_t
read_all(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

int64_t
cputime_sched_ns(int fd)
{
	char buf[128];
	long long ns;

	/* "run-ns wait-ns timeslices": the first is sum_exec_runtime. */
	if (read_all(fd, buf, sizeof(buf)) < 0 || sscanf(buf, "%lld", &ns) != 1)
		return -1;
	return ns;
}

int64_t
cputime_user_ns(int fd, int64_t total)
{
	char buf[1024], *s;
	unsigned long long ut, st;

	if (read_all(fd, buf, sizeof(buf)) < 0 ||
	    (s = strrchr(buf, ')')) == NULL ||
	    sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu "
	    "%llu", &ut, &st) != 2)
		return total;
	/*
	 * The ticks are sampled (an interrupt finds the thread in one mode
	 * or the other); their ratio applied to the exact total is what
	 * Linux itself reports (cputime_adjust): all user with no ticks yet.
	 */
	if (st == 0)
		return total;
	return (int64_t)((double)total * (double)ut / (double)(ut + st));
}
