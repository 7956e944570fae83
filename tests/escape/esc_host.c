/*
 * Attacks on host processes, sockets and devices from inside.  HOSTPID is
 * a host process of vkernel's own host user and VKPID vkernel's host pid:
 * neither is a guest pid, so their /proc entries (root, cwd, exe, mem,
 * fd) do not exist, and signals, ptrace, pidfds, process_vm_readv,
 * prlimit64, scheduling and priority calls aimed at them find no process
 * (ESRCH); pid 1 is the guest's own init, whose root is the guest's.
 * SOCK is a host AF_UNIX socket's path and ABSTRACT a host socket's
 * abstract name, both listening: the path shows through the default root
 * as a socket file, but no connection reaches either (ECONNREFUSED, as
 * for a socket file no one in this kernel listens on).  Device nodes: an
 * unprivileged user may make none (EPERM); root's are nodes in the
 * overlay, and opening one of the host's memory or disk numbers reaches
 * no host device (ENXIO, or nothing read).  The driver checks that the
 * host process lives and the listeners saw nothing.  Once as the user it
 * starts as, once more as uid 65534.
 * Usage: esc_host HOSTPID VKPID SOCK ABSTRACT
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "../guest/guest.h"

#define NR_pidfd_open		434
#define NR_pidfd_send_signal	424

static long hostpids[2];
static const char *sock_path, *abstract;

static void
proc_entries(void)
{
	static const char *const what[] = { "root", "cwd", "exe", "mem", "fd" };
	char p[64], buf[256];

	for (unsigned i = 0; i < 2; i++) {
		if (hostpids[i] < 300)
			continue;	/* might be a guest pid too */
		for (unsigned j = 0; j < 5; j++) {
			snprintf(p, sizeof(p), "/proc/%ld/%s", hostpids[i],
			    what[j]);
			CHECK_ERR(open(p, O_RDONLY), ENOENT);
			CHECK_ERR(readlink(p, buf, sizeof(buf)), ENOENT);
		}
		snprintf(p, sizeof(p), "/proc/%ld/root/etc", hostpids[i]);
		CHECK_ERR(open(p, O_RDONLY | O_DIRECTORY), ENOENT);
	}
	memset(buf, 0, sizeof(buf));
	CHECK(readlink("/proc/1/root", buf, sizeof(buf)) == 1 &&
	    buf[0] == '/', "/proc/1/root is the guest's /: '%s'", buf);
}

static void
signals_ptrace(void)
{
	struct rlimit rl = { 1, 1 };
	struct iovec local, remote;
	uint64_t mask = 1;
	char b[8];

	local = (struct iovec){ b, sizeof(b) };
	remote = (struct iovec){ (void *)0x400000, sizeof(b) };
	for (unsigned i = 0; i < 2; i++) {
		long pid = hostpids[i];

		if (pid < 300)
			continue;
		CHECK_ERR(syscall(SYS_kill, pid, SIGKILL), ESRCH);
		CHECK_ERR(syscall(SYS_kill, -pid, SIGKILL), ESRCH);
		CHECK_ERR(syscall(SYS_tgkill, pid, pid, SIGKILL), ESRCH);
		CHECK_ERR(syscall(SYS_tkill, pid, SIGKILL), ESRCH);
		CHECK_ERR(syscall(NR_pidfd_open, pid, 0), ESRCH);
		CHECK_ERR(syscall(SYS_prlimit64, pid, RLIMIT_NOFILE, &rl,
		    NULL), ESRCH);
		CHECK_ERR(syscall(SYS_sched_setaffinity, pid, sizeof(mask),
		    &mask), ESRCH);
		CHECK_ERR(syscall(SYS_setpriority, PRIO_PROCESS, pid, 19),
		    ESRCH);
		CHECK_ERR(syscall(SYS_ioprio_set, 1, pid, 0), ESRCH);
		CHECK_ERR(syscall(SYS_setpgid, pid, pid), ESRCH);
		errno = 0;
		CHECK(syscall(SYS_process_vm_readv, pid, &local, 1, &remote, 1,
		    0) == -1 && (errno == ESRCH || errno == ENOSYS),
		    "process_vm_readv of host pid %ld", pid);
		errno = 0;
		CHECK(syscall(SYS_ptrace, PTRACE_ATTACH, pid, 0, 0) == -1 &&
		    (errno == ESRCH || errno == EPERM || errno == ENOSYS),
		    "ptrace attach to host pid %ld", pid);
		errno = 0;
		CHECK(syscall(SYS_ptrace, PTRACE_SEIZE, pid, 0, 0) == -1 &&
		    (errno == ESRCH || errno == EPERM || errno == ENOSYS),
		    "ptrace seize of host pid %ld", pid);
	}
}

static int
unix_connect(const char *name, bool abstract_name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd, r, e;

	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    strlen(name) + (abstract_name ? 1 : 0));
	memcpy(sa.sun_path + (abstract_name ? 1 : 0), name, strlen(name));
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
		return -1;
	r = connect(fd, (struct sockaddr *)&sa, len);
	e = errno;
	close(fd);
	errno = e;
	return r;
}

static void
host_sockets(void)
{
	struct stat st;
	int fd;

	CHECK(stat(sock_path, &st) == 0 && S_ISSOCK(st.st_mode),
	    "the host's socket file shows through the root");
	CHECK_ERR(unix_connect(sock_path, false), ECONNREFUSED);
	CHECK_ERR(unix_connect(abstract, true), ECONNREFUSED);
	/* A datagram to either reaches no one either. */
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (CHECK(fd >= 0, "socket")) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		strncpy(sa.sun_path, sock_path, sizeof(sa.sun_path) - 1);
		CHECK(sendto(fd, "x", 1, 0, (struct sockaddr *)&sa,
		    sizeof(sa)) == -1, "datagram to the host's socket");
		close(fd);
	}
}

/* A node of a host device reads nothing of the host's. */
static void
device_node(const char *p, mode_t type, unsigned maj, unsigned min)
{
	char buf[64];
	int fd;

	unlink(p);
	if (getuid() != 0) {
		CHECK_ERR(mknod(p, type | 0666, makedev(maj, min)), EPERM);
		return;
	}
	if (!CHECK(mknod(p, type | 0666, makedev(maj, min)) == 0,
	    "mknod %s", p))
		return;
	fd = open(p, O_RDWR);
	if (fd < 0) {
		CHECK(errno == ENXIO || errno == ENODEV || errno == EACCES ||
		    errno == EPERM, "open %s: errno %d", p, errno);
		return;
	}
	CHECK(read(fd, buf, sizeof(buf)) <= 0, "%s reads data", p);
	close(fd);
}

/*
 * The records /dev/kmsg holds, each of which must be the one kmsg()
 * writes; how many there are.
 */
static int
kmsg_records(void)
{
	char buf[512];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK), n = 0;
	ssize_t len;

	if (!CHECK(fd >= 0, "open /dev/kmsg"))
		return -1;
	while ((len = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[len] = '\0';
		CHECK(strncmp(buf, "8,", 2) == 0 &&
		    strstr(buf, ";esc-kmsg\n") != NULL, "record '%s'", buf);
		n++;
	}
	CHECK(len < 0 && errno == EAGAIN, "the end of /dev/kmsg");
	close(fd);
	return n;
}

/*
 * /dev/kmsg is vkernel's own log, never the host's, which always holds
 * records: here there are only those written in the sandbox, by root
 * (the node is 0644), each with the user's facility (8 for "<0>"),
 * never the kernel's.
 */
static void
kmsg(void)
{
	int n = kmsg_records(), fd = open("/dev/kmsg", O_WRONLY);

	if (geteuid() != 0) {
		CHECK(fd < 0 && errno == EACCES, "uid %d writes /dev/kmsg",
		    (int)geteuid());
		return;
	}
	if (!CHECK(fd >= 0, "open /dev/kmsg to write"))
		return;
	CHECK_EQ(write(fd, "<0>esc-kmsg", 11), 11);
	close(fd);
	CHECK_EQ(kmsg_records(), n + 1);
}

static void
devices(void)
{
	static const char *const hostdev[] = {
		"/dev/mem", "/dev/kmem", "/dev/port", "/dev/sda", "/dev/vda",
		"/dev/nvme0n1", "/dev/tty0",
	};
	int fd;

	device_node("/tmp/esc-mem", S_IFCHR, 1, 1);
	device_node("/tmp/esc-port", S_IFCHR, 1, 4);
	device_node("/tmp/esc-sda", S_IFBLK, 8, 0);
	device_node("/tmp/esc-vda", S_IFBLK, 253, 0);
	for (unsigned i = 0; i < sizeof(hostdev) / sizeof(hostdev[0]); i++) {
		fd = open(hostdev[i], O_RDONLY);
		CHECK(fd < 0, "%s opens", hostdev[i]);
		if (fd >= 0)
			close(fd);
	}
}

static void
all_tests(void)
{
	proc_entries();
	signals_ptrace();
	host_sockets();
	devices();
	kmsg();
}

int
main(int argc, char **argv)
{
	if (argc != 5)
		return 2;
	hostpids[0] = atol(argv[1]);
	hostpids[1] = atol(argv[2]);
	sock_path = argv[3];
	abstract = argv[4];
	return guest_main_twice(all_tests);
}
