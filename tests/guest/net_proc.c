/*
 * The network files of /proc: lo with 127.0.0.1's ::1 sibling in
 * /proc/net/dev and if_inet6, the headers of route, tcp, tcp6, udp, udp6
 * and unix exactly as Linux prints them, a listening and an abstract
 * local socket in /proc/net/unix, and net.ipv4.ip_local_port_range, which
 * root may set within Linux's bounds.  Run as root and as uid 65534;
 * natively root sets the range only in a network namespace of its own.
 * Only what holds on any host is checked: other interfaces may exist.
 */
#include <fcntl.h>
#include <sched.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "guest.h"

static char text[65536];

static const char *
read_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	size_t len = 0;
	long n = 0;

	if (!CHECK(fd >= 0, "open %s", path)) {
		text[0] = '\0';
		return text;
	}
	while (len < sizeof(text) - 1 &&
	    (n = read(fd, text + len, sizeof(text) - 1 - len)) > 0)
		len += (size_t)n;
	text[len] = '\0';
	close(fd);
	return text;
}

/* The first line of path must be want, padding and newline included. */
static void
check_header(const char *path, const char *want, size_t width)
{
	const char *t = read_file(path);
	const char *nl = strchr(t, '\n');
	size_t n = strlen(want);

	CHECK(strncmp(t, want, n) == 0, "%s header: '%.60s'", path, t);
	if (width > 0)
		CHECK(nl != NULL && (size_t)(nl - t) == width - 1,
		    "%s header %zd wide, want %zu", path,
		    nl != NULL ? nl - t : -1, width - 1);
}

/* A line of path that starts with local and has state st after remote. */
static void
check_inet_line(const char *path, const char *local, const char *remote,
    const char *st)
{
	char want[160];

	snprintf(want, sizeof(want), "%s %s %s ", local, remote, st);
	CHECK(strstr(read_file(path), want) != NULL, "%s has '%s'", path, want);
}

/* A TCP listener on 127.0.0.1 and a UDP socket on ::1 are listed. */
static void
check_inet(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 b = { .sin6_family = AF_INET6,
	    .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	socklen_t len = sizeof(a);
	int t = socket(AF_INET, SOCK_STREAM, 0);
	int u = socket(AF_INET6, SOCK_DGRAM, 0);
	char local[64];

	if (!CHECK(t >= 0 && u >= 0, "inet sockets"))
		return;
	CHECK_OK(bind(t, (struct sockaddr *)&a, sizeof(a)));
	CHECK_OK(listen(t, 3));
	CHECK_OK(getsockname(t, (struct sockaddr *)&a, &len));
	snprintf(local, sizeof(local), "0100007F:%04X", ntohs(a.sin_port));
	check_inet_line("/proc/net/tcp", local, "00000000:0000", "0A");
	len = sizeof(b);
	if (bind(u, (struct sockaddr *)&b, sizeof(b)) == 0 &&
	    CHECK_OK(getsockname(u, (struct sockaddr *)&b, &len)) == 0) {
		snprintf(local, sizeof(local), "0000000000000000000000000100"
		    "0000:%04X", ntohs(b.sin6_port));
		check_inet_line("/proc/net/udp6", local, "0000000000000000000"
		    "0000000000000:0000", "07");
	}
	close(t);
	close(u);
}

static void
check_unix(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[64], want[96];
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	int d = socket(AF_UNIX, SOCK_DGRAM, 0);
	socklen_t alen;

	snprintf(path, sizeof(path), "/tmp/net_proc.%d", getpid());
	unlink(path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	CHECK_OK(bind(l, (struct sockaddr *)&sa, sizeof(sa)));
	CHECK_OK(listen(l, 4));
	/* An abstract name with a NUL inside. */
	memset(sa.sun_path, 0, sizeof(sa.sun_path));
	alen = (socklen_t)snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
	    "net_proc%d", getpid());
	sa.sun_path[alen + 1] = '\0';
	memcpy(sa.sun_path + alen + 2, "z", 1);
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + alen + 3);
	CHECK_OK(bind(d, (struct sockaddr *)&sa, alen));
	read_file("/proc/net/unix");
	snprintf(want, sizeof(want), " 00010000 0001 01 ");
	CHECK(strstr(text, path) != NULL, "%s listed", path);
	if (strstr(text, path) != NULL) {
		const char *line = strstr(text, path);

		while (line > text && line[-1] != '\n')
			line--;
		CHECK(strstr(line, want) != NULL &&
		    strstr(line, want) < strstr(line, path),
		    "listening flags: %.80s", line);
	}
	snprintf(path, sizeof(path), " @net_proc%d@z\n", getpid());
	CHECK(strstr(text, path) != NULL, "abstract name '%s'", path);
	close(l);
	close(d);
	snprintf(path, sizeof(path), "/tmp/net_proc.%d", getpid());
	unlink(path);
}

/* Writes s to the range file; returns the write's result (errno set). */
static long
write_range(const char *s)
{
	int fd = open("/proc/sys/net/ipv4/ip_local_port_range", O_WRONLY);
	long n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n;
}

static void
set_range(void)
{
	static const char *const bad[] = {
		"50000 40000", "1023 2000", "0 10", "abc", "40000 70000",
		"4294967297 50000", "70000",
	};
	int lo, hi;

	CHECK_EQ(write_range("40000 50000\n"), 12);
	CHECK(strcmp(read_file("/proc/sys/net/ipv4/ip_local_port_range"),
	    "40000\t50000\n") == 0, "range now '%s'", text);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_ERR(write_range(bad[i]), EINVAL);
	CHECK(sscanf(read_file("/proc/sys/net/ipv4/ip_local_port_range"),
	    "%d %d", &lo, &hi) == 2 && lo == 40000 && hi == 50000,
	    "range kept: '%s'", text);
	/* One number is the low end alone. */
	CHECK_EQ(write_range("45000"), 5);
	CHECK(strcmp(read_file("/proc/sys/net/ipv4/ip_local_port_range"),
	    "45000\t50000\n") == 0, "range now '%s'", text);
	CHECK_EQ(write_range("32768 60999"), 11);
}

static void
tests(void)
{
	int lo = 0, hi = 0;

	read_file("/proc/net/dev");
	CHECK(strncmp(text, "Inter-|   Receive", 17) == 0, "dev: '%.40s'", text);
	CHECK(strstr(text, "\n    lo:") != NULL, "lo in /proc/net/dev");
	read_file("/proc/net/if_inet6");
	CHECK(strstr(text, "00000000000000000000000000000001 01 80 10 80"
	    "       lo\n") != NULL, "::1 on lo: '%s'", text);
	check_header("/proc/net/route", "Iface\tDestination\tGateway \tFlags\t"
	    "RefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT", 128);
	check_header("/proc/net/tcp", "  sl  local_address rem_address   st "
	    "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode", 150);
	check_header("/proc/net/udp", "   sl  local_address rem_address   st "
	    "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref "
	    "pointer drops", 128);
	check_header("/proc/net/tcp6", "  sl  local_address                   "
	    "      remote_address                        st tx_queue rx_queue "
	    "tr tm->when retrnsmt   uid  timeout inode\n", 0);
	check_header("/proc/net/udp6", "  sl  local_address                   "
	    "      remote_address                        st tx_queue rx_queue "
	    "tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n", 0);
	check_header("/proc/net/unix", "Num       RefCount Protocol Flags    "
	    "Type St Inode Path\n", 0);
	check_unix();
	check_inet();
	CHECK(sscanf(read_file("/proc/sys/net/ipv4/ip_local_port_range"),
	    "%d %d", &lo, &hi) == 2 && lo >= 1024 && lo <= hi && hi <= 65535,
	    "port range '%s'", text);
	if (geteuid() != 0)
		CHECK_ERR(open("/proc/sys/net/ipv4/ip_local_port_range",
		    O_WRONLY), EACCES);
}

int
main(void)
{
	/*
	 * Natively, root sets the range in a child's network namespace; in
	 * vkernel unshare(CLONE_NEWNET) is EINVAL and the setting is the
	 * sandbox's.  The rest runs where the program started.
	 */
	if (geteuid() == 0) {
		pid_t pid = fork();
		int st = -1;

		if (pid == 0) {
			if (unshare(CLONE_NEWNET) == 0 || errno == EINVAL)
				set_range();
			_exit(guest_failures != 0);
		}
		CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && st == 0,
		    "range setter: %#x", st);
	}
	return guest_main_twice(tests);
}
