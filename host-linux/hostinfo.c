/*
 * Host facts and services the kernel asks for: clocks, randomness, the
 * CPU count, uname strings, the kernel's own auxv, host files for exec,
 * and where diagnostics and --strace output go.  What can be read once is
 * read at start-up, before the lock-down.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "host-linux/cleanup.h"
#include "host-linux/host.h"
#include "vkern/platform.h"

static struct utsname host_uts;
static int ncpus = 1;
static int trace_fd = 2;

int
hostinfo_init(struct vk_error **err)
{
	struct rlimit rl;
	cpu_set_t set;

	if (uname(&host_uts) < 0)
		return vk_error_make(err, errno, "read the host's uname");
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		ncpus = CPU_COUNT(&set);
	/* hostfs holds a host fd per live vnode: allow as many as we may. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return 0;
}

int
trace_open(const char *path, struct vk_error **err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return vk_error_make(err, errno, "open strace file '%s'", path);
	trace_fd = fd;
	return 0;
}

static int64_t
ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

int64_t
plat_clock_ns(int clockid)
{
	struct timespec ts;

	return clock_gettime(clockid, &ts) < 0 ? 0 : ts_ns(&ts);
}

int64_t
plat_clock_res_ns(int clockid)
{
	struct timespec ts;

	return clock_getres(clockid, &ts) < 0 ? 1 : ts_ns(&ts);
}

void
plat_random(void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			vk_log("getrandom: errno %d", errno);
			plat_abort();
		}
		p += n;
		len -= (size_t)n;
	}
}

uint64_t
plat_host_auxv(unsigned long type)
{
	return getauxval(type);
}

int
plat_ncpus(void)
{
	return ncpus;
}

const char *
plat_os_release(void)
{
	return host_uts.release;
}

const char *
plat_os_version(void)
{
	return host_uts.version;
}

/* --- output --- */

static void
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

void
plat_log_write(const char *buf, size_t len)
{
	write_all(2, buf, len);
}

void
plat_trace_write(const char *buf, size_t len)
{
	write_all(trace_fd, buf, len);
}

_Noreturn void
plat_abort(void)
{
	console_restore();
	abort();
}
