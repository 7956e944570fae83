/*
 * "core dumped" means a core was written.  A child killed by SIGABRT,
 * SIGSEGV or SIGQUIT (each dumps core by default) reports WCOREDUMP in
 * wait(2) and CLD_DUMPED in waitid(2) exactly when a core file appeared
 * in its directory: never with RLIMIT_CORE 0, and with the limit raised
 * only where the kernel writes one (Linux with a plain core_pattern does;
 * vkernel writes none).  A killing signal that does not dump never says
 * so.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "guest.h"

/* Whether dir holds a file whose name starts with "core". */
static bool
has_core(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	if (d == NULL)
		return false;
	while ((e = readdir(d)) != NULL)
		found |= strncmp(e->d_name, "core", 4) == 0;
	closedir(d);
	return found;
}

/* Removes every file of dir. */
static void
empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
}

/*
 * Kills a child in dir with sig under RLIMIT_CORE lim, twice, and checks
 * that "core dumped" (wait4's WCOREDUMP, then waitid's CLD_DUMPED) is
 * said exactly when a core file appeared.  Whether it was said.
 */
static bool
check_kill(const char *dir, int sig, rlim_t lim)
{
	bool said = false, core;
	siginfo_t si;
	pid_t pid;
	int st;

	for (int way = 0; way < 2; way++) {
		empty_dir(dir);
		pid = fork();
		if (pid == 0) {
			struct rlimit r = { lim, RLIM_INFINITY };

			if (chdir(dir) != 0 || setrlimit(RLIMIT_CORE, &r) != 0)
				_exit(2);
			signal(sig, SIG_DFL);
			raise(sig);
			_exit(3);
		}
		if (!CHECK(pid > 0, "fork"))
			return said;
		if (way == 0) {
			CHECK_EQ(waitpid(pid, &st, 0), pid);
			CHECK(WIFSIGNALED(st) && WTERMSIG(st) == sig,
			    "status %#x", st);
			said = WCOREDUMP(st);
		} else {
			memset(&si, 0, sizeof(si));
			CHECK_OK(waitid(P_PID, (id_t)pid, &si, WEXITED));
			CHECK_EQ(si.si_status, sig);
			CHECK(si.si_code == CLD_DUMPED || si.si_code == CLD_KILLED,
			    "si_code %d", si.si_code);
			said = si.si_code == CLD_DUMPED;
		}
		core = has_core(dir);
		CHECK(said == core, "signal %d, RLIMIT_CORE %s, %s: \"core "
		    "dumped\" %d, a core file %d", sig, lim == 0 ? "0" :
		    "unlimited", way == 0 ? "wait4" : "waitid", said, core);
	}
	empty_dir(dir);
	return said;
}

int
main(void)
{
	static const int dumping[] = { SIGABRT, SIGSEGV, SIGQUIT };
	char dir[] = "/tmp/sig_core.XXXXXX", pattern[256] = "";
	bool plain;
	int fd;

	if (!CHECK(mkdtemp(dir) != NULL, "mkdtemp"))
		return guest_done();
	/* A piped or absolute pattern puts the core elsewhere, if at all. */
	if ((fd = open("/proc/sys/kernel/core_pattern", O_RDONLY)) >= 0) {
		CHECK(read(fd, pattern, sizeof(pattern) - 1) > 0,
		    "core_pattern");
		close(fd);
	}
	plain = pattern[0] != '|' && strchr(pattern, '/') == NULL &&
	    strchr(pattern, '%') == NULL;
	for (size_t i = 0; i < sizeof(dumping) / sizeof(dumping[0]); i++) {
		CHECK(!check_kill(dir, dumping[i], 0),
		    "signal %d said core dumped under RLIMIT_CORE 0",
		    dumping[i]);
		if (plain)
			check_kill(dir, dumping[i], RLIM_INFINITY);
	}
	/* SIGTERM kills without a core, whatever the limit. */
	CHECK(!check_kill(dir, SIGTERM, RLIM_INFINITY),
	    "SIGTERM said core dumped");
	rmdir(dir);
	return guest_done();
}
