/*
 * The system files of /proc that programs read for facts about the
 * machine and themselves, checked for Linux's formats and for agreeing
 * with what the system calls say: /proc/self/limits against getrlimit,
 * /proc/cpuinfo against the CPUID instruction, kernel.random.boot_id
 * stable and kernel.random.uuid fresh, the /proc/sys/fs limits against
 * what fcntl(F_SETPIPE_SZ) allows.  The readers run as root and again as
 * an unprivileged user.
 */
#include <cpuid.h>
#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "guest.h"

/* The whole of a small file into buf, NUL-terminated; its length or -1. */
static long
slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t len = 0;
	long n;

	if (!CHECK(fd >= 0, "open %s", path))
		return -1;
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	CHECK(n == 0, "read %s", path);
	close(fd);
	buf[len] = '\0';
	return n == 0 ? (long)len : -1;
}

/* A file that holds one decimal number and a newline; the number or -1. */
static long long
read_number(const char *path)
{
	char buf[64], *end;
	long long v;

	if (slurp(path, buf, sizeof(buf)) < 0)
		return -1;
	v = strtoll(buf, &end, 10);
	if (!CHECK(end != buf && strcmp(end, "\n") == 0 && v >= 0,
	    "%s holds a number: \"%s\"", path, buf))
		return -1;
	return v;
}

/* "xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx\n", Linux's random UUID. */
static bool
uuid_ok(const char *s)
{
	for (int i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i]) ||
		    isupper((unsigned char)s[i]))
			return false;
	}
	return s[14] == '4' && strchr("89ab", s[19]) != NULL &&
	    strcmp(s + 36, "\n") == 0;
}

static void
test_random(void)
{
	const char *boot = "/proc/sys/kernel/random/boot_id";
	const char *uuid = "/proc/sys/kernel/random/uuid";
	char a[64], b[64];

	if (slurp(boot, a, sizeof(a)) > 0 && slurp(boot, b, sizeof(b)) > 0) {
		CHECK(uuid_ok(a), "boot_id \"%s\"", a);
		CHECK(strcmp(a, b) == 0, "boot_id stable: %s vs %s", a, b);
	}
	if (slurp(uuid, a, sizeof(a)) > 0 && slurp(uuid, b, sizeof(b)) > 0) {
		CHECK(uuid_ok(a) && uuid_ok(b), "uuid \"%s\"", a);
		CHECK(strcmp(a, b) != 0, "uuid fresh: %s twice", a);
	}
}

/* One value of a limits row: "unlimited" or a number. */
static bool
limit_value(const char *s, uint64_t *v)
{
	char *end;

	if (strncmp(s, "unlimited ", 10) == 0) {
		*v = RLIM_INFINITY;
		return true;
	}
	*v = strtoull(s, &end, 10);
	return end != s && *end == ' ';
}

/* Linux's table: 25, 20, 20 and 10 columns, one row per RLIMIT_*. */
static void
test_limits(void)
{
	static const char *const names[RLIM_NLIMITS] = {
		"Max cpu time", "Max file size", "Max data size",
		"Max stack size", "Max core file size", "Max resident set",
		"Max processes", "Max open files", "Max locked memory",
		"Max address space", "Max file locks", "Max pending signals",
		"Max msgqueue size", "Max nice priority",
		"Max realtime priority", "Max realtime timeout",
	};
	char buf[4096], *line, *save;
	struct rlimit rl;
	int row = -1;

	if (slurp("/proc/self/limits", buf, sizeof(buf)) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save), row++) {
		uint64_t cur, max;

		if (row < 0) {
			CHECK(strcmp(line, "Limit                     "
			    "Soft Limit           Hard Limit           "
			    "Units     ") == 0, "limits header \"%s\"", line);
			continue;
		}
		if (!CHECK(row < RLIM_NLIMITS, "limits row %d", row))
			break;
		CHECK(strncmp(line, names[row], strlen(names[row])) == 0 &&
		    strlen(line) >= 26 + 21 + 21, "limits row \"%s\"", line);
		if (strlen(line) < 26 + 21 + 21)
			continue;
		if (!CHECK(limit_value(line + 26, &cur) &&
		    limit_value(line + 26 + 21, &max), "limits \"%s\"", line))
			continue;
		if (CHECK_OK(getrlimit(row, &rl)) != -1) {
			CHECK(cur == rl.rlim_cur, "%s soft %llu, getrlimit %llu",
			    names[row], (unsigned long long)cur,
			    (unsigned long long)rl.rlim_cur);
			CHECK(max == rl.rlim_max, "%s hard %llu, getrlimit %llu",
			    names[row], (unsigned long long)max,
			    (unsigned long long)rl.rlim_max);
		}
	}
	CHECK_EQ(row, RLIM_NLIMITS);
}

/* A limit the process just set shows in its table (in a child: a hard
 * limit once lowered cannot be raised again without CAP_SYS_RESOURCE). */
static void
test_limits_follow(void)
{
	struct rlimit rl = { 77, 99 };
	char buf[4096];

	if (CHECK_OK(setrlimit(RLIMIT_CORE, &rl)) == -1)
		return;
	if (slurp("/proc/self/limits", buf, sizeof(buf)) > 0)
		CHECK(strstr(buf, "\nMax core file size        77"
		    "                   99                   bytes") != NULL,
		    "limits after setrlimit:\n%s", buf);
	test_limits();
}

/* Every line "ID:CONTROLLERS:PATH", one of them the v2 hierarchy's. */
static void
test_cgroup(void)
{
	char buf[4096], *line, *save;
	bool v2 = false;

	if (slurp("/proc/self/cgroup", buf, sizeof(buf)) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		const char *c1 = strchr(line, ':');
		const char *c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;

		CHECK(c1 != NULL && c1 > line && c2 != NULL && c2[1] == '/',
		    "cgroup line \"%s\"", line);
		v2 |= strncmp(line, "0::/", 4) == 0;
	}
	CHECK(v2, "a cgroup v2 line");
}

static void
test_kernel(void)
{
	char buf[256];
	long long threads = read_number("/proc/sys/kernel/threads-max");

	CHECK(threads > 0, "threads-max %lld", threads);
	CHECK(read_number("/proc/sys/kernel/tainted") >= 0, "tainted");
	/* uname -v, the kernel's build number first. */
	if (slurp("/proc/sys/kernel/version", buf, sizeof(buf)) > 0)
		CHECK(buf[0] == '#' && buf[strlen(buf) - 1] == '\n',
		    "version \"%s\"", buf);
	if (slurp("/proc/sys/kernel/core_pattern", buf, sizeof(buf)) > 0)
		CHECK(strlen(buf) > 1 && buf[strlen(buf) - 1] == '\n',
		    "core_pattern \"%s\"", buf);
	if (slurp("/proc/partitions", buf, sizeof(buf)) > 0)
		CHECK(strncmp(buf, "major minor  #blocks  name\n\n", 28) == 0,
		    "partitions \"%s\"", buf);
}

static void
test_fs(void)
{
	long long pmax = read_number("/proc/sys/fs/pipe-max-size");
	int p[2];

	CHECK(read_number("/proc/sys/fs/file-max") > 0, "file-max");
	CHECK(read_number("/proc/sys/fs/pipe-user-pages-soft") >= 0,
	    "pipe-user-pages-soft");
	CHECK(read_number("/proc/sys/fs/lease-break-time") >= 0,
	    "lease-break-time");
	/* pipe-max-size is a size F_SETPIPE_SZ grants anyone. */
	if (CHECK(pmax >= 4096, "pipe-max-size %lld", pmax) &&
	    CHECK_OK(pipe(p)) == 0) {
		CHECK_EQ(fcntl(p[0], F_SETPIPE_SZ, (int)pmax), pmax);
		close(p[0]);
		close(p[1]);
	}
}

/*
 * Names of some CPUID bits in Linux's spelling: leaf, register (0 eax
 * ... 3 edx), bit.  A program choosing its code path reads these.
 */
static const struct {
	const char *name;
	unsigned leaf, reg, bit;
} cpu_bits[] = {
	{ "fpu", 1, 3, 0 }, { "tsc", 1, 3, 4 }, { "cx8", 1, 3, 8 },
	{ "cmov", 1, 3, 15 }, { "mmx", 1, 3, 23 }, { "sse", 1, 3, 25 },
	{ "sse2", 1, 3, 26 }, { "pni", 1, 2, 0 }, { "pclmulqdq", 1, 2, 1 },
	{ "ssse3", 1, 2, 9 }, { "fma", 1, 2, 12 }, { "cx16", 1, 2, 13 },
	{ "sse4_1", 1, 2, 19 }, { "sse4_2", 1, 2, 20 }, { "movbe", 1, 2, 22 },
	{ "popcnt", 1, 2, 23 }, { "aes", 1, 2, 25 }, { "xsave", 1, 2, 26 },
	{ "avx", 1, 2, 28 }, { "f16c", 1, 2, 29 }, { "rdrand", 1, 2, 30 },
	{ "bmi1", 7, 1, 3 }, { "avx2", 7, 1, 5 }, { "bmi2", 7, 1, 8 },
	{ "erms", 7, 1, 9 }, { "avx512f", 7, 1, 16 }, { "rdseed", 7, 1, 18 },
	{ "adx", 7, 1, 19 }, { "sha_ni", 7, 1, 29 }, { "avx512bw", 7, 1, 30 },
	{ "vaes", 7, 2, 9 }, { "vpclmulqdq", 7, 2, 10 }, { "fsrm", 7, 3, 4 },
	{ "syscall", 0x80000001, 3, 11 }, { "nx", 0x80000001, 3, 20 },
	{ "lm", 0x80000001, 3, 29 }, { "lahf_lm", 0x80000001, 2, 0 },
	{ "abm", 0x80000001, 2, 5 },
};

/* Whether the space-separated list holds word. */
static bool
has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *s = list; (s = strstr(s, word)) != NULL; s += n)
		if ((s == list || s[-1] == ' ') && (s[n] == ' ' ||
		    s[n] == '\n' || s[n] == '\0'))
			return true;
	return false;
}

/* The value after "key\t...: " on the first line that starts with key. */
static const char *
cpuinfo_field(const char *text, const char *key, char *out, size_t size)
{
	for (const char *l = text; l != NULL && *l != '\0';
	    l = strchr(l, '\n') != NULL ? strchr(l, '\n') + 1 : NULL) {
		const char *colon = strchr(l, ':');
		size_t n = strlen(key);

		if (strncmp(l, key, n) != 0 || (l[n] != '\t' && l[n] != ' ') ||
		    colon == NULL)
			continue;
		colon += colon[1] == ' ' ? 2 : 1;
		n = strcspn(colon, "\n");
		snprintf(out, size, "%.*s", (int)(n < size - 1 ? n : size - 1), colon);
		return out;
	}
	return NULL;
}

static void
test_cpuinfo(void)
{
	static char text[1 << 16];
	char vendor[13] = "", flags[4096], val[128];
	unsigned r[4], sig, family, model;

	if (slurp("/proc/cpuinfo", text, sizeof(text)) <= 0)
		return;
	__cpuid(0, r[0], r[1], r[2], r[3]);
	memcpy(vendor, &r[1], 4);
	memcpy(vendor + 4, &r[3], 4);
	memcpy(vendor + 8, &r[2], 4);
	__cpuid(1, sig, r[1], r[2], r[3]);
	family = (sig >> 8) & 0xf;
	if (family == 0xf)
		family += (sig >> 20) & 0xff;
	model = (sig >> 4) & 0xf;
	if (family >= 6)
		model |= (sig >> 12) & 0xf0;
	CHECK(strncmp(text, "processor\t: 0\n", 14) == 0, "cpuinfo starts "
	    "with processor 0");
	if (CHECK(cpuinfo_field(text, "vendor_id", val, sizeof(val)) != NULL,
	    "vendor_id"))
		CHECK(strcmp(val, vendor) == 0, "vendor %s, CPUID %s", val,
		    vendor);
	if (CHECK(cpuinfo_field(text, "cpu family", val, sizeof(val)) != NULL,
	    "cpu family"))
		CHECK_EQ(atoi(val), family);
	if (CHECK(cpuinfo_field(text, "model", val, sizeof(val)) != NULL,
	    "model"))
		CHECK_EQ(atoi(val), model);
	if (CHECK(cpuinfo_field(text, "stepping", val, sizeof(val)) != NULL,
	    "stepping"))
		CHECK_EQ(atoi(val), sig & 0xf);
	CHECK(cpuinfo_field(text, "model name", val, sizeof(val)) != NULL &&
	    val[0] != '\0' && val[0] != ' ', "model name \"%s\"", val);
	if (!CHECK(cpuinfo_field(text, "flags", flags, sizeof(flags)) != NULL,
	    "flags"))
		return;
	/* x86-64 itself: a CPU without these runs no guest. */
	CHECK(has_word(flags, "sse2") && has_word(flags, "lm"), "flags %s",
	    flags);
	for (size_t i = 0; i < sizeof(cpu_bits) / sizeof(cpu_bits[0]); i++) {
		unsigned max = __get_cpuid_max(cpu_bits[i].leaf & 0x80000000,
		    NULL);
		bool set = false;

		if (cpu_bits[i].leaf <= max) {
			__cpuid_count(cpu_bits[i].leaf, 0, r[0], r[1], r[2],
			    r[3]);
			set = (r[cpu_bits[i].reg] >> cpu_bits[i].bit & 1) != 0;
		}
		CHECK(set || !has_word(flags, cpu_bits[i].name),
		    "flag %s shown, not in CPUID", cpu_bits[i].name);
	}
}

static void
test_all(void)
{
	test_random();
	test_limits();
	test_cgroup();
	test_kernel();
	test_fs();
	test_cpuinfo();
}

/* fn in a child process, as an unprivileged user if drop. */
static void
in_child(void (*fn)(void), bool drop, const char *what)
{
	pid_t pid = CHECK_OK(fork());
	int st;

	if (pid == 0) {
		guest_failures = 0;
		if (drop && (setgroups(0, NULL) < 0 ||
		    setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0))
			_exit(2);
		fn();
		_exit(guest_failures == 0 ? 0 : 1);
	}
	if (pid > 0 && CHECK_OK(waitpid(pid, &st, 0)) == pid)
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "%s: status %#x", what, st);
}

int
main(void)
{
	test_all();
	in_child(test_limits_follow, false, "setrlimit then limits");
	/* The same files read by an unprivileged user, whom only root can
	 * become. */
	if (getuid() == 0) {
		in_child(test_all, true, "unprivileged reader");
		in_child(test_limits_follow, true, "unprivileged setrlimit");
	}
	return guest_done();
}
