/*
 * /proc/PID/oom_score_adj and oom_score with Linux's rules
 * (proc(5), __set_oom_adj()):
 *
 *  - the value is a number in [-1000, 1000] as kstrtoint() reads it
 *    (base 0, a sign, blanks around it); anything else is EINVAL, or
 *    ERANGE past an int, and changes nothing;
 *  - lowering it below the least value a holder of CAP_SYS_RESOURCE set
 *    (0 at first) is EACCES for anyone without that capability; root's
 *    write sets that least value anew;
 *  - fork inherits both; oom_score is a number in [0, 2000], 0 at -1000;
 *  - only the owner (or root) may open another process's file to write.
 *
 * With CAP_SYS_RESOURCE (root's, unless a container took it away) it
 * checks the privileged writer's rules, then a child that drops to uid
 * 65534 checks an unprivileged writer's below the least value it set;
 * without, it checks the latter from 0.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "guest.h"

/* The number in path, or -9999. */
static long
read_num(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -9999;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 1 || buf[n - 1] != '\n')
		return -9999;
	return strtol(buf, NULL, 10);
}

#define ADJ	"/proc/self/oom_score_adj"
#define SCORE	"/proc/self/oom_score"

static void
check_syntax(void)
{
	long before = read_num(ADJ);
	static const char *bad[] = { "1001", "-1001", "abc", "5x", "1 2",
	    "0x3e9" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(guest_write_file(ADJ, bad[i]) == EINVAL, "write '%s'",
		    bad[i]);
	/* A number past an int is ERANGE, as kstrtoint() says. */
	CHECK_EQ(guest_write_file(ADJ, "99999999999"), ERANGE);
	CHECK_EQ(read_num(ADJ), before);
	/* Any base kstrtoint() reads, and a sign. */
	CHECK_EQ(guest_write_file(ADJ, "0x10"), 0);
	CHECK_EQ(read_num(ADJ), 16);
	CHECK_EQ(guest_write_file(ADJ, "+010"), 0);
	CHECK_EQ(read_num(ADJ), 8);
	CHECK_EQ(guest_write_file(ADJ, " 700\n"), 0);
	CHECK_EQ(read_num(ADJ), 700);
	CHECK_EQ(guest_write_file(ADJ, "1000"), 0);
	CHECK_EQ(read_num(ADJ), 1000);
	CHECK(read_num(SCORE) >= 0 && read_num(SCORE) <= 2000,
	    "oom_score %ld", read_num(SCORE));
}

/* An unprivileged writer whose least value is min. */
static void
check_unprivileged(long min)
{
	char text[32];
	struct stat st;

	check_syntax();
	snprintf(text, sizeof(text), "%ld", min - 1);
	CHECK_EQ(guest_write_file(ADJ, text), EACCES);
	CHECK_EQ(read_num(ADJ), 1000);
	snprintf(text, sizeof(text), "%ld", min);
	CHECK_EQ(guest_write_file(ADJ, text), 0);
	CHECK_EQ(read_num(ADJ), min);
	CHECK_EQ(guest_write_file(ADJ, "-1000"), EACCES);
	/* Another user's files are not its to write. */
	if (stat("/proc/1", &st) == 0 && st.st_uid != geteuid())
		CHECK_EQ(guest_write_file("/proc/1/oom_score_adj", "0"), EACCES);
}

/* Whether the caller holds CAP_SYS_RESOURCE: /proc/self/status says. */
static bool
cap_sys_resource(void)
{
	char buf[4096], *cap;
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if ((cap = strstr(buf, "CapEff:")) == NULL)
		return false;
	return (strtoull(cap + 7, NULL, 16) >> 24) & 1;
}

static void
check_root(void)
{
	pid_t pid;
	int st;

	check_syntax();
	CHECK_EQ(guest_write_file(ADJ, "-1000"), 0);
	CHECK_EQ(read_num(ADJ), -1000);
	CHECK_EQ(read_num(SCORE), 0);
	/* Root's write is the least value an unprivileged one may set. */
	CHECK_EQ(guest_write_file(ADJ, "-500"), 0);
	pid = fork();
	if (pid == 0) {
		guest_failures = 0;
		CHECK_EQ(read_num(ADJ), -500);
		if (syscall(SYS_setresgid, 65534, 65534, 65534) < 0 ||
		    syscall(SYS_setresuid, 65534, 65534, 65534) < 0)
			_exit(77);
		check_unprivileged(-500);
		_exit(guest_failures == 0 ? 0 : 1);
	}
	CHECK(pid > 0, "fork");
	if (pid > 0 && CHECK_EQ(waitpid(pid, &st, 0), pid))
		CHECK(WIFEXITED(st) && (WEXITSTATUS(st) == 0 ||
		    WEXITSTATUS(st) == 77), "as uid 65534: status %#x", st);
	CHECK_EQ(guest_write_file(ADJ, "0"), 0);
}

int
main(void)
{
	if (cap_sys_resource())
		check_root();
	else
		check_unprivileged(0);
	return guest_done();
}
