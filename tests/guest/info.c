/*
 * Verifies the process and system information calls: uname fields, the
 * pid/tid/uid/gid family and set_tid_address agree with each other, sysinfo
 * and sched_getaffinity describe a usable machine, getrandom gives fresh
 * bytes, and resource limits round-trip through setrlimit, getrlimit and
 * prlimit64 with Linux's checks.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>

#include "guest.h"

#ifndef GRND_NONBLOCK
#define GRND_NONBLOCK	0x0001
#define GRND_RANDOM	0x0002
#endif
#ifndef GRND_INSECURE
#define GRND_INSECURE	0x0004
#endif

/* Tells whether s is a NUL-terminated, non-empty string within len bytes. */
static bool
field_ok(const char *s, size_t len)
{
	return s[0] != '\0' && memchr(s, '\0', len) != NULL;
}

static void
test_uname(void)
{
	struct utsname u;

	memset(&u, 0xff, sizeof(u));
	if (!CHECK(syscall(SYS_uname, &u) == 0, "uname"))
		return;
	CHECK(field_ok(u.sysname, sizeof(u.sysname)), "sysname set");
	CHECK(field_ok(u.nodename, sizeof(u.nodename)), "nodename set");
	CHECK(field_ok(u.release, sizeof(u.release)), "release set");
	CHECK(field_ok(u.version, sizeof(u.version)), "version set");
	CHECK(field_ok(u.machine, sizeof(u.machine)), "machine set");
	/* domainname may be "(none)" but must be a terminated string. */
	CHECK(memchr(u.domainname, '\0', sizeof(u.domainname)) != NULL,
	    "domainname terminated");
	CHECK(strcmp(u.sysname, "Linux") == 0, "sysname \"%.65s\"", u.sysname);
	CHECK(strcmp(u.machine, "x86_64") == 0, "machine \"%.65s\"", u.machine);
	/* glibc refuses to run on a release it thinks too old: "N.N...". */
	CHECK(u.release[0] >= '1' && u.release[0] <= '9' &&
	    strchr(u.release, '.') != NULL, "release \"%.65s\" is N.N",
	    u.release);
}

static void
test_ids(void)
{
	static int tid_word;
	static uint64_t robust[3];
	long pid, tid, ppid;

	pid = syscall(SYS_getpid);
	tid = syscall(SYS_gettid);
	ppid = syscall(SYS_getppid);
	CHECK(pid > 0, "getpid %ld", pid);
	CHECK_EQ(tid, pid);
	/* 0 is right when the guest is the init of its own pid namespace. */
	CHECK(ppid >= 0 && ppid != pid, "getppid %ld", ppid);
	CHECK_EQ(syscall(SYS_getpid), pid);
	CHECK_EQ(getpid(), pid);

	/* Not a set-id program, so real and effective ids are the same. */
	CHECK_EQ(syscall(SYS_getuid), syscall(SYS_geteuid));
	CHECK_EQ(syscall(SYS_getgid), syscall(SYS_getegid));
	CHECK(syscall(SYS_getuid) >= 0, "getuid");
	CHECK_EQ(getuid(), syscall(SYS_getuid));
	CHECK_EQ(getgid(), syscall(SYS_getgid));

	/* set_tid_address returns the tid; the pointer is not checked. */
	CHECK_EQ(syscall(SYS_set_tid_address, &tid_word), tid);
	/* robust_list_head is three words; any other length is refused. */
	robust[0] = (uintptr_t)robust;
	CHECK_OK(syscall(SYS_set_robust_list, robust, sizeof(robust)));
	CHECK_ERR(syscall(SYS_set_robust_list, robust, sizeof(robust) + 8),
	    EINVAL);
}

/* sysinfo's uptime and /proc/uptime's count from the same boot. */
static void
test_uptime(long uptime)
{
	char buf[64] = "";
	double up = -1;
	int fd = open("/proc/uptime", O_RDONLY);

	if (!CHECK(fd >= 0, "open /proc/uptime"))
		return;
	CHECK(read(fd, buf, sizeof(buf) - 1) > 0, "read /proc/uptime");
	close(fd);
	CHECK(sscanf(buf, "%lf", &up) == 1, "/proc/uptime: %s", buf);
	CHECK(up >= uptime - 1 && up <= uptime + 2,
	    "sysinfo uptime %ld, /proc/uptime %.2f", uptime, up);
}

static void
test_sysinfo(void)
{
	struct sysinfo si;

	memset(&si, 0, sizeof(si));
	if (!CHECK(syscall(SYS_sysinfo, &si) == 0, "sysinfo"))
		return;
	CHECK(si.mem_unit > 0, "mem_unit %u", si.mem_unit);
	CHECK(si.totalram > 0, "totalram %lu", si.totalram);
	CHECK(si.freeram <= si.totalram, "freeram %lu <= totalram %lu",
	    si.freeram, si.totalram);
	CHECK(si.freeswap <= si.totalswap, "freeswap <= totalswap");
	CHECK(si.procs >= 1, "procs %u", si.procs);
	/* At least 16 MiB, or this program could not be running. */
	CHECK((uint64_t)si.totalram * si.mem_unit >= (16u << 20),
	    "totalram %lu * %u bytes", si.totalram, si.mem_unit);
	test_uptime(si.uptime);
}

static void
test_affinity(void)
{
	unsigned long mask[16];
	unsigned long again[16];
	long n;
	int cpus = 0;

	memset(mask, 0, sizeof(mask));
	/* The raw call returns the size of the kernel's cpumask in bytes. */
	n = syscall(SYS_sched_getaffinity, 0, sizeof(mask), mask);
	if (!CHECK(n > 0, "sched_getaffinity"))
		return;
	CHECK(n <= (long)sizeof(mask) && n % sizeof(long) == 0,
	    "returned size %ld", n);
	for (size_t i = 0; i < sizeof(mask) / sizeof(mask[0]); i++)
		cpus += __builtin_popcountl(mask[i]);
	CHECK(cpus >= 1, "affinity mask has %d cpus", cpus);

	memset(again, 0, sizeof(again));
	CHECK_EQ(syscall(SYS_sched_getaffinity, syscall(SYS_getpid),
	    sizeof(again), again), n);
	CHECK(memcmp(mask, again, sizeof(mask)) == 0,
	    "pid 0 and getpid() have the same mask");

	/* Smaller than the kernel's mask, or not a multiple of a long. */
	CHECK_ERR(syscall(SYS_sched_getaffinity, 0, 1, mask), EINVAL);
	CHECK_ERR(syscall(SYS_sched_getaffinity, 0, sizeof(mask) - 1, mask),
	    EINVAL);

	CHECK_EQ(syscall(SYS_sched_yield), 0);
}

static void
test_getrandom(void)
{
	unsigned char a[32], b[32], big[4096];
	size_t zeros = 0;

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	CHECK_EQ(syscall(SYS_getrandom, a, sizeof(a), 0), sizeof(a));
	CHECK_EQ(syscall(SYS_getrandom, b, sizeof(b), GRND_NONBLOCK),
	    sizeof(b));
	/* 2^-256 odds of a false failure. */
	CHECK(memcmp(a, b, sizeof(a)) != 0, "two getrandom calls differ");

	CHECK_EQ(syscall(SYS_getrandom, big, sizeof(big), 0), sizeof(big));
	for (size_t i = 0; i < sizeof(big); i++)
		zeros += big[i] == 0;
	/* About 16 of 4096 bytes are zero; 200 would mean a broken source. */
	CHECK(zeros < 200, "%zu of 4096 random bytes are zero", zeros);

	CHECK_EQ(syscall(SYS_getrandom, a, 0, 0), 0);
	CHECK_ERR(syscall(SYS_getrandom, a, sizeof(a), 0x40), EINVAL);
	/* GRND_INSECURE and GRND_RANDOM exclude each other. */
	CHECK_ERR(syscall(SYS_getrandom, a, sizeof(a),
	    GRND_INSECURE | GRND_RANDOM), EINVAL);
}

static void
test_rlimits(void)
{
	struct rlimit orig, lim, got;
	struct rlimit old;

	if (!CHECK(syscall(SYS_getrlimit, RLIMIT_NOFILE, &orig) == 0,
	    "getrlimit NOFILE"))
		return;
	CHECK(orig.rlim_cur <= orig.rlim_max, "soft <= hard");
	CHECK(orig.rlim_cur >= 3, "room for fds 0-2: %lu",
	    (unsigned long)orig.rlim_cur);

	/* Lower the soft limit and read it back both ways. */
	lim.rlim_cur = orig.rlim_cur > 64 ? 64 : orig.rlim_cur;
	lim.rlim_max = orig.rlim_max;
	CHECK_OK(syscall(SYS_setrlimit, RLIMIT_NOFILE, &lim));
	memset(&got, 0, sizeof(got));
	CHECK_OK(syscall(SYS_getrlimit, RLIMIT_NOFILE, &got));
	CHECK_EQ(got.rlim_cur, lim.rlim_cur);
	CHECK_EQ(got.rlim_max, lim.rlim_max);
	memset(&got, 0, sizeof(got));
	CHECK_OK(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &got));
	CHECK_EQ(got.rlim_cur, lim.rlim_cur);

	/* prlimit64 sets and returns the previous value in one call. */
	memset(&old, 0, sizeof(old));
	CHECK_OK(syscall(SYS_prlimit64, syscall(SYS_getpid), RLIMIT_NOFILE,
	    &orig, &old));
	CHECK_EQ(old.rlim_cur, lim.rlim_cur);
	CHECK_OK(syscall(SYS_getrlimit, RLIMIT_NOFILE, &got));
	CHECK_EQ(got.rlim_cur, orig.rlim_cur);

	/* Soft above hard is refused, and nothing changes. */
	if (orig.rlim_max != RLIM_INFINITY) {
		lim.rlim_cur = orig.rlim_max + 1;
		lim.rlim_max = orig.rlim_max;
		CHECK_ERR(syscall(SYS_setrlimit, RLIMIT_NOFILE, &lim), EINVAL);
		CHECK_ERR(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &lim, NULL),
		    EINVAL);
		CHECK_OK(syscall(SYS_getrlimit, RLIMIT_NOFILE, &got));
		CHECK_EQ(got.rlim_cur, orig.rlim_cur);
	}

	/* An unknown resource. */
	CHECK_ERR(syscall(SYS_getrlimit, 99, &got), EINVAL);
	CHECK_ERR(syscall(SYS_prlimit64, 0, 99, NULL, &got), EINVAL);

	/* Lowering a hard limit is always allowed; RLIMIT_CORE harms nobody. */
	CHECK_OK(syscall(SYS_getrlimit, RLIMIT_CORE, &orig));
	lim.rlim_cur = 0;
	lim.rlim_max = 0;
	CHECK_OK(syscall(SYS_setrlimit, RLIMIT_CORE, &lim));
	CHECK_OK(syscall(SYS_getrlimit, RLIMIT_CORE, &got));
	CHECK_EQ(got.rlim_cur, 0);
	CHECK_EQ(got.rlim_max, 0);

	CHECK_OK(syscall(SYS_getrlimit, RLIMIT_STACK, &got));
	CHECK(got.rlim_cur > 0, "RLIMIT_STACK soft %lu",
	    (unsigned long)got.rlim_cur);
}

int
main(void)
{
	test_uname();
	test_ids();
	test_sysinfo();
	test_affinity();
	test_getrandom();
	test_rlimits();
	return guest_done();
}
