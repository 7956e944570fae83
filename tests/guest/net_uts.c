/*
 * The host and domain names: uname(2), sethostname(2) and setdomainname(2)
 * with Linux's order of checks (length EINVAL, then EPERM for all but
 * root, then EFAULT), and /proc/sys/kernel/{hostname,domainname}, which
 * read as uname says and which root may write.  Run as root and as uid
 * 65534.  Natively, root changes names only in a UTS namespace of its own
 * (unshare); inside vkernel, where unshare of a namespace is EINVAL, the
 * names are the sandbox's own.
 */
#include <fcntl.h>
#include <sched.h>
#include <sys/utsname.h>

#include "guest.h"

#define BAD_PTR ((void *)16)

static bool may_set;

/* The whole content of a small file, NUL-terminated; "" on error. */
static void
read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	long n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

static void
write_file(const char *path, const char *s)
{
	int fd = CHECK_OK(open(path, O_WRONLY | O_TRUNC));

	if (fd >= 0) {
		CHECK_EQ(write(fd, s, strlen(s)), (long)strlen(s));
		close(fd);
	}
}

static void
check_uname(const char *node, const char *domain)
{
	struct utsname u;
	char buf[128], want[80];

	if (!CHECK_OK(syscall(SYS_uname, &u)))
		return;
	CHECK(strcmp(u.nodename, node) == 0, "nodename '%s', want '%s'",
	    u.nodename, node);
	CHECK(strcmp(u.domainname, domain) == 0, "domainname '%s', want '%s'",
	    u.domainname, domain);
	snprintf(want, sizeof(want), "%s\n", node);
	read_file("/proc/sys/kernel/hostname", buf, sizeof(buf));
	CHECK(strcmp(buf, want) == 0, "/proc hostname '%s'", buf);
	snprintf(want, sizeof(want), "%s\n", domain);
	read_file("/proc/sys/kernel/domainname", buf, sizeof(buf));
	CHECK(strcmp(buf, want) == 0, "/proc domainname '%s'", buf);
}

/* What root may do; the names are put back as they were. */
static void
root_sets(void)
{
	char name[80], node[80], domain[80];
	struct utsname u;
	int st = -1;
	pid_t pid;

	CHECK_OK(syscall(SYS_uname, &u));
	snprintf(node, sizeof(node), "%s", u.nodename);
	snprintf(domain, sizeof(domain), "%s", u.domainname);
	/* Then the length, then the copy. */
	CHECK_ERR(syscall(SYS_sethostname, "x", 65), EINVAL);
	CHECK_ERR(syscall(SYS_sethostname, BAD_PTR, -1), EINVAL);
	CHECK_ERR(syscall(SYS_setdomainname, "x", 65), EINVAL);
	CHECK_ERR(syscall(SYS_setdomainname, BAD_PTR, 65), EINVAL);
	CHECK_ERR(syscall(SYS_sethostname, BAD_PTR, 3), EFAULT);
	CHECK_ERR(syscall(SYS_setdomainname, BAD_PTR, 3), EFAULT);
	CHECK_OK(syscall(SYS_sethostname, "guest-box.example", 9));
	check_uname("guest-box", domain);
	CHECK_OK(syscall(SYS_setdomainname, "dom", 3));
	check_uname("guest-box", "dom");
	/* Exactly 64 bytes, with no room for a NUL in the caller's. */
	memset(name, 'n', 64);
	CHECK_OK(syscall(SYS_sethostname, name, 64));
	name[64] = '\0';
	check_uname(name, "dom");
	/* len bytes, not a string: a NUL among them ends the name. */
	CHECK_OK(syscall(SYS_sethostname, "a\0bc", 4));
	check_uname("a", "dom");
	CHECK_OK(syscall(SYS_setdomainname, "", 0));
	check_uname("a", "");
	/* A write ends at its newline. */
	write_file("/proc/sys/kernel/hostname", "fromproc\nignored");
	write_file("/proc/sys/kernel/domainname", "d2\n");
	check_uname("fromproc", "d2");
	/* Another process sees the same names. */
	pid = fork();
	if (pid == 0) {
		CHECK_OK(syscall(SYS_sethostname, "child", 5));
		_exit(guest_failures != 0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && st == 0,
	    "child: %#x", st);
	check_uname("child", "d2");
	CHECK_OK(syscall(SYS_sethostname, node, strlen(node)));
	CHECK_OK(syscall(SYS_setdomainname, domain, strlen(domain)));
	check_uname(node, domain);
}

static void
tests(void)
{
	struct utsname u;

	CHECK_OK(syscall(SYS_uname, &u));
	CHECK(u.nodename[0] != '\0', "a node name");
	check_uname(u.nodename, u.domainname);
	if (geteuid() != 0) {
		/* The capability comes first: EPERM, not EINVAL nor EFAULT. */
		CHECK_ERR(syscall(SYS_sethostname, "x", 1), EPERM);
		CHECK_ERR(syscall(SYS_sethostname, "x", 65), EPERM);
		CHECK_ERR(syscall(SYS_sethostname, BAD_PTR, 3), EPERM);
		CHECK_ERR(syscall(SYS_setdomainname, "x", 1), EPERM);
		CHECK_ERR(syscall(SYS_setdomainname, BAD_PTR, -5), EPERM);
		CHECK_ERR(open("/proc/sys/kernel/hostname", O_WRONLY), EACCES);
		CHECK_ERR(open("/proc/sys/kernel/domainname", O_WRONLY),
		    EACCES);
		check_uname(u.nodename, u.domainname);
	} else if (may_set) {
		root_sets();
	}
}

int
main(void)
{
	/*
	 * Natively root changes names in a namespace of its own only; inside
	 * vkernel unshare(CLONE_NEWUTS) is EINVAL and the names are the
	 * sandbox's.
	 */
	if (geteuid() == 0)
		may_set = unshare(CLONE_NEWUTS) == 0 || errno == EINVAL;
	if (geteuid() == 0 && !may_set)
		guest_note("note: no UTS namespace: root's sets not tried");
	return guest_main_twice(tests);
}
