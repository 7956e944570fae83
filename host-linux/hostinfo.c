/*
 * Host facts and services the kernel asks for: clocks, randomness, the
 * CPU count, uname strings, the kernel's own auxv, host files for exec,
 * and where diagnostics and --strace output go.  What can be read once is
 * read at start-up, before the lock-down.
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
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
static cpu_set_t guest_cpus;   /* the host CPUs the guest runs on */
static cpu_set_t host_cpus;    /* all the host lets vkernel use */
static int trace_fd = 2;
static int guest_log_fd = 2;   /* -1: --quiet */
/* The host kernel's CPU flags, " a b ... z ", or "" when unknown. */
static char host_flags[8192];
static char host_model[64];    /* its model name, or "" */
static uint32_t mxcsr_mask;    /* the MXCSR bits this CPU has */

/*
 * The guest's CPUs: want of the host CPUs vkernel may use, the one it
 * runs on first, so that one CPU (the default) is the one it is on.
 */
static int
pick_cpus(int want, struct vk_error **err)
{
	cpu_set_t set;
	int have, cur = sched_getcpu(), n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return vk_error_make(err, errno, "read the host's CPUs");
	host_cpus = set;
	have = CPU_COUNT(&set);
	if (want > have)
		return vk_error_make(err, EINVAL, "--cpus %d: the host lets "
		    "vkernel use %d", want, have);
	CPU_ZERO(&guest_cpus);
	if (cur >= 0 && CPU_ISSET(cur, &set)) {
		CPU_SET(cur, &guest_cpus);
		n++;
	}
	for (int c = 0; c < CPU_SETSIZE && n < want; c++) {
		if (CPU_ISSET(c, &set) && !CPU_ISSET(c, &guest_cpus)) {
			CPU_SET(c, &guest_cpus);
			n++;
		}
	}
	ncpus = n;
	return 0;
}

const cpu_set_t *
hostinfo_guest_cpus(void)
{
	return &guest_cpus;
}

const cpu_set_t *
hostinfo_host_cpus(void)
{
	return &host_cpus;
}

static int64_t
ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

/*
 * The host clocks' resolutions, read once at start-up: they do not change
 * while the host runs, and the lock-down has no clock_getres.  Indexed by
 * clock id (CLOCK_REALTIME to CLOCK_TAI); 1 ns for one the host lacks.
 */
static int64_t clock_res[CLOCK_TAI + 1];

/* The value of the first line of cpuinfo for key, into out; or "". */
static void
cpuinfo_value(const char *cpuinfo, const char *key, char *out,
    size_t size)
{
	const char *line = strstr(cpuinfo, key), *v, *nl;

	out[0] = '\0';
	if (line == NULL || (v = strstr(line, ": ")) == NULL ||
	    (nl = strchr(v, '\n')) == NULL)
		return;
	snprintf(out, size, "%.*s", (int)(nl - v - 2), v + 2);
}

/*
 * The first CPU's model name and flags in the host's /proc/cpuinfo.  A
 * kernel shows a CPUID bit only when it lets programs use the feature (a
 * hypervisor's kernel may leave FSGSBASE off), and a hypervisor may tell
 * its kernel a model name of its own: vkernel's cpuinfo says what the
 * host's does.
 */
static void
host_cpuinfo_init(void)
{
	char buf[sizeof(host_flags)];
	ssize_t n;
	int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	cpuinfo_value(buf, "\nmodel name\t", host_model, sizeof(host_model));
	cpuinfo_value(buf, "\nflags\t", host_flags + 1,
	    sizeof(host_flags) - 2);
	if (host_flags[1] != '\0') {
		host_flags[0] = ' ';
		strcat(host_flags, " ");
	}
}

static void
clock_res_init(void)
{
	struct timespec ts;

	for (int c = 0; c < (int)VK_NELEM(clock_res); c++)
		clock_res[c] = clock_getres(c, &ts) < 0 ? 1 : ts_ns(&ts);
}

/* Where an FXSAVE image (an XSAVE one's first part) keeps these. */
#define FXSAVE_MXCSR      24
#define FXSAVE_MXCSR_MASK 28

/* The CPU's own MXCSR_MASK, from an FXSAVE (0 there: the SSE2 default). */
static void
mxcsr_mask_init(void)
{
	static uint8_t img[512] __attribute__((aligned(16)));

	__builtin_ia32_fxsave64(img);
	memcpy(&mxcsr_mask, img + FXSAVE_MXCSR_MASK, sizeof(mxcsr_mask));
	if (mxcsr_mask == 0)
		mxcsr_mask = 0xffbf;
}

bool
hostinfo_mxcsr_ok(const void *img, size_t size)
{
	uint32_t mxcsr;

	if (size < FXSAVE_MXCSR + sizeof(mxcsr))
		return false;
	memcpy(&mxcsr, (const uint8_t *)img + FXSAVE_MXCSR, sizeof(mxcsr));
	return (mxcsr & ~mxcsr_mask) == 0;
}

int
hostinfo_init(int cpus, struct vk_error **err)
{
	struct rlimit rl;
	int r;

	if (uname(&host_uts) < 0)
		return vk_error_make(err, errno, "read the host's uname");
	if ((r = pick_cpus(cpus, err)) < 0)
		return r;
	clock_res_init();
	host_cpuinfo_init();
	mxcsr_mask_init();
	/* hostfs holds a host fd per live vnode: allow as many as we may. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return 0;
}

/* Open path to write what into, at *fdp. */
static int
out_open(const char *path, int flags, const char *what, int *fdp,
    struct vk_error **err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);

	if (fd < 0)
		return vk_error_make(err, errno, "open %s file '%s'", what,
		    path);
	*fdp = fd;
	return 0;
}

int
trace_open(const char *path, struct vk_error **err)
{
	return out_open(path, O_TRUNC, "strace", &trace_fd, err);
}

int
guest_log_open(const char *path, struct vk_error **err)
{
	return out_open(path, O_APPEND, "log", &guest_log_fd, err);
}

void
guest_log_quiet(void)
{
	guest_log_fd = -1;
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
	if (clockid < 0 || clockid >= (int)VK_NELEM(clock_res))
		return 1;
	return clock_res[clockid];
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

int
plat_cpu_barrier(void)
{
	/*
	 * The host's own global barrier: it waits until every CPU has been
	 * through a state ordering all memory accesses, which takes a grace
	 * period, but this is rare and the caller is stopped meanwhile.
	 */
	if (ncpus > 1 && syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0,
	    0) < 0)
		return -errno;
	return 0;
}

void
plat_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
	unsigned a = 0, b = 0, c = 0, d = 0;

	/* __get_cpuid_count refuses a leaf past the maximum of its range. */
	if (__get_cpuid_count(leaf, subleaf, &a, &b, &c, &d) == 0)
		a = b = c = d = 0;
	out[0] = a;
	out[1] = b;
	out[2] = c;
	out[3] = d;
}

int
plat_cpu_flag_shown(const char *name)
{
	char word[64];

	if (host_flags[0] == '\0')
		return -1;
	snprintf(word, sizeof(word), " %s ", name);
	return strstr(host_flags, word) != NULL;
}

const char *
plat_cpu_model_name(void)
{
	return host_model[0] != '\0' ? host_model : NULL;
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

void
host_write_all(int fd, const char *buf, size_t len)
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
	host_write_all(2, buf, len);
}

void
plat_guest_log_write(const char *buf, size_t len)
{
	if (guest_log_fd >= 0)
		host_write_all(guest_log_fd, buf, len);
}

void
plat_trace_write(const char *buf, size_t len)
{
	host_write_all(trace_fd, buf, len);
}

_Noreturn void
plat_abort(void)
{
	console_restore();
	crash_report(vk_panic_message());
	sandbox_ns_abort();
	abort();
}
