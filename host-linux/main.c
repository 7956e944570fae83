/*
 * vkernel's command line and start-up.
 *
 *   vkernel run [options] -- PROG [ARG...]
 *   vkernel policy
 *
 * Start-up does everything that needs the host's full powers first (the
 * RAM file, the stub image, reading the program), then locks the process
 * down and runs the guest.  Errors are one line on stderr and a non-zero
 * exit: 2 for a bad command line, 127 for a program that is not there,
 * 126 for one that cannot run, 1 for anything else; with --crash-dir,
 * CRASH_EXIT_STATUS when vkernel itself failed and wrote a report.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host-linux/host.h"
#include "seccomp-policy/policy.h"
#include "vkern/kern/kern.h"
#include "host-linux/plat_ops.h"
#include "host-linux/stubctl.h"
#include "vkern/platform.h"
#include "vkern/vfs/vfs_boot.h"

#define VK_VERSION "0.1.0"
#define DEFAULT_MEM (4ULL << 30)
#define MIN_MEM (16ULL << 20)
#define MAX_MEM (1ULL << 40)

extern char **environ;

#define MAX_MOUNTS 64

/* A size as tmpfs's size= takes it: bytes, or a percentage of --mem. */
struct fs_size {
	const char *arg;      /* as given, for messages */
	uint64_t bytes;
	bool pct;             /* bytes is a percentage */
};

struct mount_opt {
	const char *host;     /* NULL for a tmpfs */
	char *guest;
	bool rw;
	struct fs_size size;  /* a tmpfs's, as given */
	uint64_t pages;       /* that size in pages; 0: none */
	uint64_t nr_inodes;   /* a tmpfs's; 0: none */
};

struct run_opts {
	uint64_t mem;
	int cpus;
	unsigned pids, fds;
	unsigned preserve_fds;
	int64_t timeout_ns, cpu_ns;
	uint64_t disk;
	struct fs_size upper_size;
	uint64_t upper_pages;           /* upper_size in pages; 0: none */
	bool strace, stats, quiet, as_pid_1;
	bool net_host;                  /* --net=host */
	enum sandbox_landlock landlock;
	enum sandbox_userns userns;
	const char *strace_path;
	const char *log_path;
	const char *crash_dir;
	const char *platform;           /* --platform, ptrace by default */
	const char *root;
	const char *hostname;
	struct mount_opt mounts[MAX_MOUNTS];
	int nmounts;
	char **argv;
};

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: vkernel run [OPTIONS] -- PROG [ARG...]\n"
	    "       vkernel policy [--net=host] [--platform=ptrace|systrap]\n"
	    "       vkernel --help | --version\n"
	    "\n"
	    "Run PROG, an x86-64 Linux program, inside a Linux kernel that "
	    "runs in\nuser space.\n"
	    "\n"
	    "run options:\n"
	    "  --mem SIZE         guest memory limit (default 4G; K, M, G "
	    "suffixes)\n"
	    "  --strace[=FILE]    show every guest system call (on stderr, "
	    "or in FILE)\n"
	    "  --stats            per-syscall counts and time at exit\n"
	    "  --log FILE         append what the guest makes vkernel say "
	    "(unsupported\n"
	    "                     calls and the like) to FILE, not stderr\n"
	    "  --quiet            do not say those things at all\n"
	    "  --as-pid-1         run PROG as pid 1, the sandbox's init "
	    "(default: as\n"
	    "                     pid 2 under vkernel's init, which reaps "
	    "orphans and\n"
	    "                     passes SIGTERM, SIGINT and SIGHUP on to "
	    "PROG)\n"
	    "  --crash-dir DIR    should vkernel itself fail, write a report "
	    "there (its\n"
	    "                     error, backtrace, each thread's last "
	    "system calls)\n"
	    "                     and exit 125\n"
	    "  --cpus N           host CPUs the guest runs on and sees "
	    "(default 1;\n"
	    "                     more run its threads in parallel, each "
	    "system call\n"
	    "                     dearer)\n"
	    "  --platform=ptrace|systrap  how guest code is run (default "
	    "ptrace;\n"
	    "                     systrap: syscalls without a ptrace stop, "
	    "with a CPU\n"
	    "                     of vkernel's own when the host has one to spare)\n"
	    "  --root DIR         the guest's / (default: the host's /, "
	    "read-only,\n"
	    "                     under an in-memory overlay)\n"
	    "  --bind HOST:GUEST[:ro|:rw]  a host directory at GUEST (rw "
	    "writes\n"
	    "                     through to the host; default ro)\n"
	    "  --tmpfs PATH[:size=SIZE][,nr_inodes=N]  an empty in-memory "
	    "file system\n"
	    "                     at PATH, of SIZE bytes (K, M, G, T "
	    "suffixes, or N%%\n"
	    "                     of --mem) and N files (default: bounded "
	    "by --mem)\n"
	    "  --overlay-size SIZE  the same bound on the data of the "
	    "in-memory\n"
	    "                     overlay on / (default: bounded by --mem)\n"
	    "  --hostname NAME    the guest's host name (default vkernel), "
	    "in uname,\n"
	    "                     /etc/hostname and /etc/hosts\n"
	    "  --preserve-fds N   pass host fds 3 to 2+N on to the guest "
	    "(as runc)\n"
	    "  --net=MODE         none (default): the guest's own loopback "
	    "only, no\n"
	    "                     host socket; host: every Internet socket "
	    "is a host\n"
	    "                     socket (127.0.0.1 is the host's)\n"
	    "  --landlock=MODE    auto (default): restrict vkernel's own "
	    "host file\n"
	    "                     access with Landlock where the host has "
	    "it;\n"
	    "                     required: fail without it; off\n"
	    "  --userns=MODE      auto (default): run vkernel in its own "
	    "user, pid\n"
	    "                     and mount namespaces where the host "
	    "allows it;\n"
	    "                     required: fail without them; off\n"
	    "\n"
	    "limits of the whole sandbox (each refuses or ends only what "
	    "goes past it):\n"
	    "  --pids N           processes plus threads at once (default "
	    "4096; each is\n"
	    "                     a host thread); beyond it fork and clone "
	    "give EAGAIN\n"
	    "  --fds N            descriptors a process may hold "
	    "(RLIMIT_NOFILE, soft\n"
	    "                     and hard; EMFILE) and open files in all "
	    "(ENFILE);\n"
	    "                     default 1024 soft, 4096 hard, 1048576 "
	    "files\n"
	    "  --timeout SECONDS  wall clock: then SIGTERM to every guest "
	    "process,\n"
	    "                     SIGKILL 2 s later, and exit status 124\n"
	    "  --cpu-time SECONDS guest CPU time in all, as RLIMIT_CPU: then "
	    "SIGXCPU to\n"
	    "                     every process, SIGKILL after one more CPU "
	    "second\n"
	    "  --disk SIZE        data of the in-memory overlay and tmpfs "
	    "mounts\n"
	    "                     together (ENOSPC; default: bounded by "
	    "--mem only)\n"
	    "\n"
	    "policy prints the host system calls vkernel keeps after it "
	    "locks itself\ndown (with --net=host: the host network's too).  "
	    "The exit status is the\nguest's, or 128+N when signal N killed "
	    "it.\n");
}

static _Noreturn void
bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "vkernel: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see 'vkernel --help')\n");
	exit(2);
}

/*
 * A number with an optional binary suffix (K, M, G, T; KiB, KB and K
 * alike), up to max; *endp is left at what follows.
 */
static int
parse_scaled(const char *s, uint64_t max, uint64_t *out, char **endp)
{
	unsigned shift = 0;
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || !isdigit((unsigned char)*s))
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end == 'i' || *end == 'B')
		end += *end == 'i' && end[1] == 'B' ? 2 : 1;
	if (v > (max >> shift))
		return -1;
	*out = v << shift;
	*endp = end;
	return 0;
}

/* A size in bytes (parse_scaled), rounded down to pages. */
static int
parse_size(const char *s, uint64_t *out)
{
	char *end;

	if (parse_scaled(s, UINT64_MAX, out, &end) < 0 || *end != '\0')
		return -1;
	*out &= ~(uint64_t)(VK_PAGE_SIZE - 1);
	return 0;
}

/*
 * A file system's size as tmpfs(5)'s size= takes it: bytes with a
 * suffix (rounded up to pages later), or N% of --mem; 0 is none.
 */
static int
parse_fs_size(const char *s, struct fs_size *out)
{
	char *end;

	out->arg = s;
	if (parse_scaled(s, MAX_MEM, &out->bytes, &end) < 0)
		return -1;
	out->pct = *end == '%' && end != s && end[-1] >= '0' &&
	    end[-1] <= '9';
	return *end == '\0' || (out->pct && end[1] == '\0') ? 0 : -1;
}

/* A size in pages, a percentage made bytes of mem: -1 past MAX_MEM. */
static int
fs_size_pages(const struct fs_size *sz, uint64_t mem, uint64_t *pages)
{
	uint64_t bytes = sz->bytes;

	/* Linux takes more than 100%; the bound of all sizes here holds. */
	if (sz->pct) {
		if (bytes > 100 * (MAX_MEM / mem))
			return -1;
		bytes = mem / 100 * bytes;
	}
	*pages = VK_ROUND_UP(bytes, VK_PAGE_SIZE) / VK_PAGE_SIZE;
	return 0;
}

/* A count from 1 to max. */
static int
parse_count(const char *s, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 1 || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * Seconds, as timeout(1) takes them (a fraction allowed), from a
 * millisecond to about 31 years, in ns.
 */
static int
parse_seconds(const char *s, int64_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= 0.001) ||
	    v > 1e9)
		return -1;
	*out = (int64_t)(v * 1e9);
	return 0;
}

_Static_assert(SANDBOX_LANDLOCK_AUTO == 0 && SANDBOX_LANDLOCK_REQUIRED == 1 &&
    SANDBOX_LANDLOCK_OFF == 2 && SANDBOX_USERNS_AUTO == 0 &&
    SANDBOX_USERNS_REQUIRED == 1 && SANDBOX_USERNS_OFF == 2,
    "parse_mode's order");

/* --landlock's or --userns's MODE: auto 0, required 1, off 2. */
static int
parse_mode(const char *opt, const char *arg)
{
	static const char *const modes[] = { "auto", "required", "off" };
	char fmt[80];

	for (int i = 0; i < 3; i++)
		if (strcmp(arg, modes[i]) == 0)
			return i;
	snprintf(fmt, sizeof(fmt), "%s must be auto, required or off, "
	    "not '%%s'", opt);
	bad_usage(fmt, arg);
}

#define SIZE_HELP "a size up to 1T with K, M, G or T, N%% of --mem, " \
    "or 0 for none"

/* --tmpfs PATH[:size=SIZE][,nr_inodes=N], as tmpfs(5)'s options. */
static void
parse_tmpfs(struct mount_opt *m, char *arg)
{
	char *opts = strchr(arg, ':'), *opt;

	if (arg[0] != '/')
		bad_usage("--tmpfs wants an absolute path, not '%s'", arg);
	*m = (struct mount_opt){ .guest = arg, .rw = true };
	if (opts == NULL)
		return;
	*opts++ = '\0';
	while ((opt = strsep(&opts, ",")) != NULL) {
		char *end;

		if (strncmp(opt, "size=", 5) == 0) {
			if (parse_fs_size(opt + 5, &m->size) < 0)
				bad_usage("invalid --tmpfs size '%s' ("
				    SIZE_HELP ")", opt + 5);
		} else if (strncmp(opt, "nr_inodes=", 10) == 0) {
			if (parse_scaled(opt + 10, 1ULL << 32, &m->nr_inodes,
			    &end) < 0 || *end != '\0')
				bad_usage("invalid --tmpfs nr_inodes '%s' (a "
				    "count up to 4G, or 0 for none)", opt + 10);
		} else {
			bad_usage("unknown --tmpfs option '%s' (size=, "
			    "nr_inodes=)", opt);
		}
	}
}

/* --bind HOST:GUEST[:ro|:rw] or --tmpfs PATH[:OPTIONS]. */
static void
parse_mount(struct run_opts *o, bool bind, char *arg)
{
	struct mount_opt *m = &o->mounts[o->nmounts];
	char *guest, *mode;

	if (o->nmounts == MAX_MOUNTS)
		bad_usage("too many mounts (at most %s)", "64");
	if (!bind) {
		parse_tmpfs(m, arg);
		o->nmounts++;
		return;
	}
	guest = strchr(arg, ':');
	if (guest == NULL || guest == arg || guest[1] != '/')
		bad_usage("--bind wants HOST:GUEST[:ro|:rw], not '%s'", arg);
	*guest++ = '\0';
	mode = strchr(guest, ':');
	if (mode != NULL) {
		*mode++ = '\0';
		if (strcmp(mode, "ro") != 0 && strcmp(mode, "rw") != 0)
			bad_usage("--bind mode must be ro or rw, not '%s'", mode);
	}
	*m = (struct mount_opt){ .host = arg, .guest = guest,
	    .rw = mode != NULL && strcmp(mode, "rw") == 0 };
	o->nmounts++;
}

/* The file systems' sizes in pages, once --mem is known. */
static void
fs_sizes_resolve(struct run_opts *o)
{
	if (fs_size_pages(&o->upper_size, o->mem, &o->upper_pages) < 0)
		bad_usage("invalid --overlay-size '%s' (over 1T)",
		    o->upper_size.arg);
	for (int i = 0; i < o->nmounts; i++)
		if (fs_size_pages(&o->mounts[i].size, o->mem,
		    &o->mounts[i].pages) < 0)
			bad_usage("invalid --tmpfs size '%s' (over 1T)",
			    o->mounts[i].size.arg);
}

/* --platform's value: a platform there is, or a usage error. */
static const char *
parse_platform(const char *name)
{
	if (!plat_ops_known(name))
		bad_usage("unknown platform '%s' (there are ptrace and systrap)",
		    name);
	return name;
}

/* Whether --platform chose systrap (NULL: the default, ptrace). */
static bool
platform_systrap(const char *name)
{
	return name != NULL && strcmp(name, "systrap") == 0;
}

/* --net's MODE: none false, host true. */
static bool
parse_net(const char *mode)
{
	if (strcmp(mode, "host") == 0)
		return true;
	if (strcmp(mode, "none") != 0)
		bad_usage("invalid --net '%s' (none or host)", mode);
	return false;
}

/*
 * A name that fits uname's nodename and reads as one word in
 * /etc/hosts: what RFC 1123 allows, and '_', which hosts files take.
 */
static bool
valid_hostname(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > UTS_NAME_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789-_.") == n;
}

/*
 * --preserve-fds N, as runc and crun take it: host fds 3 to 2 + N go to
 * the guest's first process as they are.  Each must be open now, before
 * vkernel opens anything that could take a closed one's place.
 */
static void
parse_preserve_fds(struct run_opts *o, const char *arg)
{
	long n = 0;

	if (strcmp(arg, "0") != 0 && parse_count(arg, 1024, &n) < 0)
		bad_usage("invalid --preserve-fds count '%s' (0 to 1024)",
		    arg);
	o->preserve_fds = (unsigned)n;
	for (int fd = 3; fd < 3 + (int)n; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			bad_usage("--preserve-fds %s: a host fd it passes on "
			    "is not open", arg);
}

static void
parse_run(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
		{ "mem", required_argument, NULL, 'm' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "strace", optional_argument, NULL, 's' },
		{ "stats", no_argument, NULL, 'S' },
		{ "platform", required_argument, NULL, 'p' },
		{ "root", required_argument, NULL, 'r' },
		{ "bind", required_argument, NULL, 'b' },
		{ "tmpfs", required_argument, NULL, 't' },
		{ "pids", required_argument, NULL, 'P' },
		{ "fds", required_argument, NULL, 'F' },
		{ "timeout", required_argument, NULL, 'W' },
		{ "cpu-time", required_argument, NULL, 'C' },
		{ "disk", required_argument, NULL, 'D' },
		{ "overlay-size", required_argument, NULL, 'O' },
		{ "landlock", required_argument, NULL, 'L' },
		{ "userns", required_argument, NULL, 'U' },
		{ "crash-dir", required_argument, NULL, 'K' },
		{ "log", required_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "as-pid-1", no_argument, NULL, 'I' },
		{ "hostname", required_argument, NULL, 'H' },
		{ "preserve-fds", required_argument, NULL, 'X' },
		{ "net", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long n;
	int c;

	o->mem = DEFAULT_MEM;
	o->cpus = 1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (parse_size(optarg, &o->mem) < 0 ||
			    o->mem < MIN_MEM || o->mem > MAX_MEM)
				bad_usage("invalid --mem size '%s' (16M to 1T)",
				    optarg);
			break;
		case 'c':
			if (parse_count(optarg, 1024, &n) < 0)
				bad_usage("invalid --cpus count '%s' (1 to "
				    "1024)", optarg);
			o->cpus = (int)n;
			break;
		case 'P':
			if (parse_count(optarg, 1 << 22, &n) < 0)
				bad_usage("invalid --pids count '%s' (1 to "
				    "4194304)", optarg);
			o->pids = (unsigned)n;
			break;
		case 'F':
			if (parse_count(optarg, 1 << 20, &n) < 0)
				bad_usage("invalid --fds count '%s' (1 to "
				    "1048576)", optarg);
			o->fds = (unsigned)n;
			break;
		case 'X':
			parse_preserve_fds(o, optarg);
			break;
		case 'W':
			if (parse_seconds(optarg, &o->timeout_ns) < 0)
				bad_usage("invalid --timeout '%s' (0.001 to 1e9 "
				    "seconds)", optarg);
			break;
		case 'C':
			if (parse_seconds(optarg, &o->cpu_ns) < 0)
				bad_usage("invalid --cpu-time '%s' (0.001 to 1e9 "
				    "seconds)", optarg);
			break;
		case 'D':
			if (parse_size(optarg, &o->disk) < 0 ||
			    o->disk < VK_PAGE_SIZE || o->disk > MAX_MEM)
				bad_usage("invalid --disk size '%s' (4K to 1T)",
				    optarg);
			break;
		case 'O':
			if (parse_fs_size(optarg, &o->upper_size) < 0)
				bad_usage("invalid --overlay-size '%s' ("
				    SIZE_HELP ")", optarg);
			break;
		case 's':
			o->strace = true;
			o->strace_path = optarg;
			break;
		case 'S':
			o->stats = true;
			break;
		case 'K':
			o->crash_dir = optarg;
			break;
		case 'l':
			o->log_path = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'I':
			o->as_pid_1 = true;
			break;
		case 'L':
			o->landlock = (enum sandbox_landlock)parse_mode(
			    "--landlock", optarg);
			break;
		case 'U':
			o->userns = (enum sandbox_userns)parse_mode("--userns",
			    optarg);
			break;
		case 'p':
			o->platform = parse_platform(optarg);
			break;
		case 'r':
			o->root = optarg;
			break;
		case 'H':
			if (!valid_hostname(optarg))
				bad_usage("invalid --hostname '%s' (1 to 64 "
				    "letters, digits, '-', '_' and '.')",
				    optarg);
			o->hostname = optarg;
			break;
		case 'N':
			o->net_host = parse_net(optarg);
			break;
		case 'b':
		case 't':
			parse_mount(o, c == 'b', optarg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		bad_usage("%s", "run: no program given");
	o->argv = &argv[optind];
	fs_sizes_resolve(o);
}

static void
print_rule(const struct policy_rule *r, const struct policy_eq *also,
    unsigned nalso)
{
	if (r->op == POLICY_EQ)
		printf("%-16s arg%u == %#lx  %s\n", r->name, r->arg,
		    (unsigned long)r->value, r->why);
	else if (r->op == POLICY_SELF)
		printf("%-16s arg%u == vkernel's pid  %s\n", r->name, r->arg,
		    r->why);
	else if (r->op == POLICY_MASK0)
		printf("%-16s arg%u & %#lx == 0  %s\n", r->name, r->arg,
		    (unsigned long)r->value, r->why);
	else
		printf("%-16s %s\n", r->name, r->why);
	for (unsigned j = 0; j < nalso; j++)
		printf("%-16s   and arg%u == %#lx\n", "", also[j].arg,
		    (unsigned long)also[j].value);
}

/* vkernel policy [--net=host] [--platform=ptrace|systrap] */
static int
print_policy(int argc, char **argv)
{
	bool net_host = false, systrap = false;

	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--net=", 6) == 0) {
			net_host = parse_net(argv[i] + 6);
		} else if (strncmp(argv[i], "--platform=", 11) == 0) {
			systrap = platform_systrap(
			    parse_platform(argv[i] + 11));
		} else {
			bad_usage("policy: unknown option '%s'", argv[i]);
		}
	}
	for (unsigned i = 0; i < policy_nrules; i++)
		print_rule(&policy_rules[i], NULL, 0);
	for (unsigned i = 0; systrap && i < policy_systrap_nrules; i++)
		print_rule(&policy_systrap_rules[i], NULL, 0);
	for (unsigned i = 0; net_host && i < policy_net_nrules; i++)
		print_rule(&policy_net_rules[i].r, policy_net_rules[i].also,
		    policy_net_rules[i].nalso);
	return 0;
}

/* The guest's file tree: its root, /dev, then the mounts asked for. */
static int
boot_files(const struct run_opts *o, struct vk_error **err)
{
	const char *root = o->root != NULL ? o->root : "/";
	int r;

	if ((r = vfs_boot_root(root, true)) < 0)
		return vk_error_make(err, -r, "--root %s", root);
	if ((r = vfs_boot_root_size(o->upper_pages)) < 0)
		return vk_error_make(err, -r, "--overlay-size");
	if ((r = vfs_boot_names(uts_name(UTS_NODENAME))) < 0)
		return vk_error_make(err, -r, "write /etc/hosts");
	if ((r = vfs_boot_std()) < 0)
		return vk_error_make(err, -r, "mount /dev");
	for (int i = 0; i < o->nmounts; i++) {
		const struct mount_opt *m = &o->mounts[i];

		if (m->host == NULL)
			r = vfs_boot_tmpfs(m->guest, m->pages, m->nr_inodes);
		else
			r = vfs_boot_bind(m->host, m->guest, m->rw);
		if (r < 0 && m->host != NULL)
			return vk_error_make(err, -r, "--bind %s:%s", m->host,
			    m->guest);
		if (r < 0)
			return vk_error_make(err, -r, "--tmpfs %s", m->guest);
	}
	return 0;
}

/*
 * Whether each host directory boot_files opened is written through: the
 * root layer never (an overlay takes its changes), then the binds.
 */
static unsigned
host_roots_rw(const struct run_opts *o, bool *rw)
{
	unsigned n = 0;

	rw[n++] = false;
	for (int i = 0; i < o->nmounts; i++)
		if (o->mounts[i].host != NULL)
			rw[n++] = o->mounts[i].rw;
	return n;
}

/* Everything that needs the host's full powers, then the lock-down. */
static int
boot(const struct run_opts *o, struct vk_error **err)
{
	char cwd[4096];
	struct kern_config cfg = {
		.mem = o->mem,
		.strace = o->strace,
		.stats = o->stats,
		.sysring = o->crash_dir != NULL,
		.uid = getuid(),
		.gid = getgid(),
		.cwd = getcwd(cwd, sizeof(cwd)),
		.pids = o->pids,
		.fds = o->fds,
		.timeout_ns = o->timeout_ns,
		.cpu_ns = o->cpu_ns,
		.disk = o->disk,
		.as_pid_1 = o->as_pid_1,
		.hostname = o->hostname,
		.net_host = o->net_host,
		.console_fds = 3 + o->preserve_fds,
	};
	bool rw[MAX_MOUNTS + 1];
	const char *why;
	int r;

	/*
	 * Offsets beyond --mem keep fragmentation from looking like OOM; a
	 * control page for each process --pids allows; systrap's areas, one
	 * for each guest thread.
	 */
	if ((r = ram_init(VK_MAX(4 * o->mem, 64ULL << 30), o->pids > 0 ?
	    o->pids : KERN_MAX_TASKS, platform_systrap(o->platform) ?
	    KERN_MAX_TASKS : 0,
	    err)) < 0 ||
	    (r = hostinfo_init(o->cpus, err)) < 0 ||
	    (r = plat_ops_init(o->platform != NULL ? o->platform :
	    "ptrace", err)) < 0)
		return r;
	if (o->strace_path != NULL && (r = trace_open(o->strace_path, err)) < 0)
		return r;
	if (o->quiet)
		guest_log_quiet();
	else if (o->log_path != NULL &&
	    (r = guest_log_open(o->log_path, err)) < 0)
		return r;
	if (o->crash_dir != NULL && (r = crash_init(o->crash_dir, o->argv,
	    err)) < 0)
		return r;
	signal(SIGPIPE, SIG_IGN);
	console_init(3 + o->preserve_fds);
	kern_init(&cfg);
	if ((r = boot_files(o, err)) < 0)
		return r;
	if ((r = kern_start(o->argv[0], o->argv, environ, &why)) < 0) {
		/* As a shell: 127 for a missing program, 126 for the rest. */
		if (why != NULL)
			vk_error_make(err, 0, "cannot run '%s': %s",
			    o->argv[0], why);
		else
			vk_error_make(err, -r, "cannot run '%s'", o->argv[0]);
		(*err)->exitcode = r == -ENOENT ? 127 : 126;
		return r;
	}
	if ((r = sandbox_harden(o->landlock, rw, host_roots_rw(o, rw),
	    o->net_host, err)) < 0)
		return r;
	return lockdown_install(o->net_host, platform_systrap(o->platform),
	    err);
}

#ifdef VK_TEST_HOOKS
/*
 * VKERNEL_TEST_FORBIDDEN=1: once locked down, make a host call the policy
 * does not allow; =attach, =seize or =traceme: a ptrace request it does
 * not allow (towards init); =kill: kill, which pidfd_send_signal replaced
 * (of no process); =inet: the TCP socket --net=host makes (allowed only
 * with it); =raw, =packet, =blocking: sockets --net=host never makes (a
 * raw one, a packet one, and a TCP one that would block).  The test
 * expects the vkernel to die of SIGSYS here; =panic: a vkernel panic,
 * which must end it by SIGABRT.
 */
static void
test_forbidden_call(void)
{
	const char *v = getenv("VKERNEL_TEST_FORBIDDEN");

	if (v == NULL)
		return;
	if (strcmp(v, "1") == 0)
		(void)socket(AF_UNIX, SOCK_STREAM, 0);
	else if (strcmp(v, "attach") == 0)
		(void)ptrace(PTRACE_ATTACH, 1, 0, 0);
	else if (strcmp(v, "seize") == 0)
		(void)ptrace(PTRACE_SEIZE, 1, 0, 0);
	else if (strcmp(v, "traceme") == 0)
		(void)ptrace(PTRACE_TRACEME, 0, 0, 0);
	else if (strcmp(v, "kill") == 0)
		(void)kill(INT_MAX, SIGKILL);    /* no such process */
	else if (strcmp(v, "inet") == 0)
		close(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0));
	else if (strcmp(v, "raw") == 0)
		(void)socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    IPPROTO_ICMP);
	else if (strcmp(v, "packet") == 0)
		(void)socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
	else if (strcmp(v, "blocking") == 0)
		(void)socket(AF_INET, SOCK_STREAM, 0);
	else if (strcmp(v, "panic") == 0)
		plat_abort();
}

/*
 * VKERNEL_TEST_OPEN=r:PATH or w:PATH: once locked down, open PATH as a
 * taken-over vkernel could (openat2 with no RESOLVE_ flags, from the cwd,
 * or a relative PATH from the guest's root layer, where ".." leaves it)
 * and say on stderr what came of it.
 */
static void
test_open(void)
{
	const char *v = getenv("VKERNEL_TEST_OPEN");
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC };
	const int *roots;
	int fd, dir = AT_FDCWD;

	if (v == NULL || (v[0] != 'r' && v[0] != 'w') || v[1] != ':')
		return;
	if (v[0] == 'w')
		how.flags = O_WRONLY | O_CLOEXEC;
	if (v[2] != '/' && hostfs_root_fds(&roots) > 0)
		dir = roots[0];
	fd = (int)syscall(SYS_openat2, dir, v + 2, &how, sizeof(how));
	fprintf(stderr, "vkernel-test: open %s: %s\n", v,
	    fd < 0 ? strerror(errno) : "opened");
	if (fd >= 0)
		close(fd);
}

static void
test_said(const char *what, long r)
{
	fprintf(stderr, "vkernel-test: %s: %s\n", what,
	    r < 0 ? strerror(errno) : "done");
}

/*
 * VKERNEL_TEST_TAKEOVER=PID:DIR: once locked down, act as a taken-over
 * vkernel would with the calls the lock-down leaves, against host
 * objects: the host process PID, and files made in the host directory
 * DIR by absolute path and by ".." out of the root layer.  Each outcome
 * is one line on stderr.
 */
static void
test_takeover(void)
{
	const char *v = getenv("VKERNEL_TEST_TAKEOVER");
	struct open_how how = { .flags = O_RDWR | O_CREAT | O_CLOEXEC,
		.mode = 04755 };
	char path[4096], up[4096];
	const int *roots;
	cpu_set_t cpus;
	long pid;
	char *dir;
	int fd;

	if (v == NULL || (pid = strtol(v, &dir, 10)) <= 0 || *dir != ':' ||
	    hostfs_root_fds(&roots) == 0)
		return;
	dir++;
	snprintf(path, sizeof(path), "%s/abs", dir);
	test_said("openat2 abs", syscall(SYS_openat2, AT_FDCWD, path, &how,
	    sizeof(how)));
	snprintf(up, sizeof(up), "../../../../../../../../../..%s/up", dir);
	test_said("openat2 up", syscall(SYS_openat2, roots[0], up, &how,
	    sizeof(how)));
	snprintf(path, sizeof(path), "%s/dir", dir);
	test_said("mkdirat abs", mkdirat(AT_FDCWD, path, 0777));
	snprintf(path, sizeof(path), "%s/link", dir);
	test_said("symlinkat abs", symlinkat("/", AT_FDCWD, path));
	snprintf(path, sizeof(path), "%s/victim", dir);
	test_said("unlinkat abs", unlinkat(AT_FDCWD, path, 0));
	test_said("fchownat abs", fchownat(AT_FDCWD, path, 0, 0,
	    AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	test_said("sched_setaffinity pid", sched_setaffinity((pid_t)pid,
	    sizeof(cpus), &cpus));
	/* kill is not allowed: a signal needs a pidfd from its /proc. */
	fd = proc_pidfd((int)pid);
	if (fd < 0)
		errno = -fd;
	test_said("open /proc/pid", fd);
	if (fd >= 0)
		test_said("pidfd_send_signal pid", syscall(
		    SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0));
}
#endif

/* --stats: the namespaces vkernel runs in, and why not more. */
static void
stats_ns_print(void)
{
	const char *why;

	switch (sandbox_ns(&why)) {
	case SANDBOX_NS_USER:
		fprintf(stderr, "namespaces: user, pid, mount\n");
		break;
	case SANDBOX_NS_PID_MOUNT:
		fprintf(stderr, "namespaces: pid, mount (no user namespace: "
		    "%s)\n", why);
		break;
	default:
		fprintf(stderr, "namespaces: the host's (%s)\n", why);
		break;
	}
}

static int
run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	struct vk_error *err = NULL;
	struct kern_result res;
	int r, sig;

	parse_run(argc, argv, &o);
	if ((r = sandbox_ns_enter(o.userns, &err)) < 0 ||
	    (r = boot(&o, &err)) < 0) {
		int status = err->exitcode != 0 ? err->exitcode : 1;

		vk_error_print(err);
		return status;
	}
#ifdef VK_TEST_HOOKS
	test_forbidden_call();
	test_open();
	test_takeover();
#endif
	res = kern_run();
	if (o.stats) {
		kern_stats_print();
		stub_stats_print();
		if (sandbox_landlock_abi() > 0)
			fprintf(stderr, "landlock: ABI %d\n",
			    sandbox_landlock_abi());
		else
			fprintf(stderr, "landlock: not applied\n");
		stats_ns_print();
		fprintf(stderr, "platform: %s\n", plat_ops_name());
	}
	if (res.limit == KERN_LIMIT_TIMEOUT)
		fprintf(stderr, "vkernel: --timeout ran out: guest ended with "
		    "SIGTERM%s\n", res.limit_killed ? ", then SIGKILL" : "");
	else if (res.limit == KERN_LIMIT_CPU)
		fprintf(stderr, "vkernel: --cpu-time ran out: guest sent "
		    "SIGXCPU%s\n", res.limit_killed ? ", then SIGKILL" : "");
	/* As timeout(1), however the guest ended. */
	if (res.limit == KERN_LIMIT_TIMEOUT)
		return 124;
	if (WIFEXITED(res.status))
		return WEXITSTATUS(res.status);
	sig = WTERMSIG(res.status);
	fprintf(stderr, "vkernel: guest terminated by SIG%s (%s)%s\n",
	    sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", strsignal(sig),
	    WCOREDUMP(res.status) ? ", core dumped" : "");
	return 128 + sig;
}

/*
 * fds 0-2 must be taken before anything is opened: were one closed, the
 * RAM file or a host directory could land there and become the guest's
 * console.  The guest does not get the /dev/null that holds the place:
 * its fd is closed, as the host's was.
 */
static void
fill_std_fds(void)
{
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		if (open("/dev/null", O_RDWR) != fd)
			exit(1);
		console_closed(fd);
	}
}

int
main(int argc, char **argv)
{
	fill_std_fds();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("vkernel %s\n", VK_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "run") == 0)
		return run(argc - 1, argv + 1);
	if (strcmp(argv[1], "policy") == 0)
		return print_policy(argc - 1, argv + 1);
	bad_usage("unknown command '%s'", argv[1]);
}
