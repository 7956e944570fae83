/*
 * clone's CLONE_FILES, CLONE_FS and CLONE_SIGHAND for a child that is a
 * process of its own: with the flag, the fds it opens, closes or dup2s,
 * its chdir and umask, and its sigaction are its parent's too; without it
 * they are copies.  A CLONE_FILES child's POSIX locks belong to the table
 * it shares and outlive it until the parent closes the fd.  execve in a
 * CLONE_FILES child gets a table of its own first, so its close-on-exec
 * fds stay open in the parent.  clone3 refuses CLONE_SIGHAND with
 * CLONE_CLEAR_SIGHAND, and CLONE_CLEAR_SIGHAND alone resets the child's
 * handlers but keeps ignored signals ignored.  The new image of execve
 * has handled signals back at SIG_DFL, and ignored ones still ignored but
 * with no flags and an empty mask.  unshare(2) gives such a child copies
 * of the table and fs state it shared.
 *
 * Run with no arguments.  "exec-state FD" is the program the exec check
 * runs.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "guest.h"

#define STACK_SIZE (64 * 1024)

extern char **environ;

static char *self_path;
static char stack[STACK_SIZE] __attribute__((aligned(16)));
static volatile int child_fd;
static volatile int child_failed;

static pid_t
clone_vm(int (*fn)(void *), unsigned long flags, void *arg)
{
	return clone(fn, stack + STACK_SIZE, (int)flags | CLONE_VM | SIGCHLD,
	    arg);
}

static void
reap(pid_t pid, int want)
{
	int st = -1;

	CHECK(pid > 0, "clone");
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == want, "status %#x", st);
}

static bool
is_dev_null(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	    st.st_rdev == makedev(1, 3);
}

/* Opens /dev/null, closes a pipe's read end, dup2s over its write end. */
static int
files_main(void *arg)
{
	int *fds = arg;

	child_fd = open("/dev/null", O_RDONLY);
	if (child_fd < 0 || close(fds[0]) != 0 ||
	    dup2(child_fd, fds[1]) != fds[1])
		return 1;
	return 0;
}

static void
check_files(bool shared)
{
	int fds[2];

	CHECK_OK(pipe(fds));
	child_fd = -1;
	reap(clone_vm(files_main, shared ? CLONE_FILES : 0, fds), 0);
	CHECK(child_fd >= 0, "the child opened /dev/null");
	if (shared) {
		CHECK(is_dev_null(child_fd), "the child's fd %d is ours",
		    child_fd);
		CHECK_ERR(fcntl(fds[0], F_GETFD), EBADF);
		CHECK(is_dev_null(fds[1]), "dup2 replaced the write end");
		close(child_fd);
		close(fds[1]);
	} else {
		if (child_fd != fds[0] && child_fd != fds[1])
			CHECK_ERR(fcntl(child_fd, F_GETFD), EBADF);
		CHECK_EQ(fcntl(fds[0], F_GETFD), 0);
		CHECK_EQ(write(fds[1], "x", 1), 1);
		close(fds[0]);
		close(fds[1]);
	}
}

static int
fs_main(void *arg)
{
	(void)arg;
	umask(077);
	return chdir("/proc") == 0 ? 0 : 1;
}

static void
check_fs(bool shared)
{
	char cwd[256];
	char *old = getcwd(cwd, sizeof(cwd)) != NULL ? strdup(cwd) : NULL;
	mode_t mask = umask(022);

	CHECK(old != NULL, "getcwd");
	reap(clone_vm(fs_main, shared ? CLONE_FS : 0, NULL), 0);
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL, "getcwd");
	if (shared) {
		CHECK(strcmp(cwd, "/proc") == 0, "cwd %s", cwd);
		CHECK_EQ(umask(mask), 077);
		CHECK_OK(chdir(old));
	} else {
		CHECK(old != NULL && strcmp(cwd, old) == 0, "cwd %s", cwd);
		CHECK_EQ(umask(mask), 022);
	}
	free(old);
}

static void
on_usr1(int sig)
{
	(void)sig;
}

static int
sighand_main(void *arg)
{
	struct sigaction sa = { .sa_handler = on_usr1 };

	(void)arg;
	return sigaction(SIGUSR1, &sa, NULL) == 0 ? 0 : 1;
}

static void
check_sighand(bool shared)
{
	struct sigaction old;

	signal(SIGUSR1, SIG_DFL);
	reap(clone_vm(sighand_main, shared ? CLONE_SIGHAND : 0, NULL), 0);
	CHECK_OK(sigaction(SIGUSR1, NULL, &old));
	CHECK(old.sa_handler == (shared ? on_usr1 : SIG_DFL), "handler %p",
	    (void *)old.sa_handler);
	signal(SIGUSR1, SIG_DFL);
}

/* musl has no <linux/sched.h>: clone3's first fields, as in the UAPI. */
#define CLONE_CLEAR_SIGHAND_ 0x100000000ULL
#define NR_clone3 435

static long
clone3_flags(uint64_t flags)
{
	uint64_t ca[8] = { flags, 0, 0, 0, SIGCHLD };

	return syscall(NR_clone3, ca, sizeof(ca));
}

static void
check_clear_sighand(void)
{
	struct sigaction usr1, usr2;
	long pid;

	CHECK_ERR(clone3_flags(CLONE_VM | CLONE_SIGHAND |
	    CLONE_CLEAR_SIGHAND_), EINVAL);
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, SIG_IGN);
	pid = clone3_flags(CLONE_CLEAR_SIGHAND_);
	if (pid == 0) {
		if (sigaction(SIGUSR1, NULL, &usr1) != 0 ||
		    sigaction(SIGUSR2, NULL, &usr2) != 0)
			_exit(2);
		_exit(usr1.sa_handler == SIG_DFL &&
		    usr2.sa_handler == SIG_IGN ? 0 : 1);
	}
	reap((pid_t)pid, 0);
	CHECK_OK(sigaction(SIGUSR1, NULL, &usr1));
	CHECK(usr1.sa_handler == on_usr1, "the parent keeps its handler");
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}

static int
lock_main(void *arg)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
	    .l_len = 10 };

	return fcntl(*(int *)arg, F_SETLK, &fl) == 0 ? 0 : 1;
}

/* The lock type another process (a fork) would find on bytes 0-9 of fd. */
static int
lock_seen_by_other(int fd)
{
	pid_t pid = fork();
	int st = -1;

	if (pid == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
		    .l_len = 10 };

		if (fcntl(fd, F_GETLK, &fl) != 0)
			_exit(100);
		_exit(fl.l_type);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void
check_lock_owner(void)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
	    .l_len = 10 };
	int fd = (int)syscall(SYS_memfd_create, "locked", 0);
	int dup;

	if (!CHECK(fd >= 0, "memfd_create"))
		return;
	CHECK_OK(ftruncate(fd, 100));
	reap(clone_vm(lock_main, CLONE_FILES, &fd), 0);
	/* The lock is the table's: ours, though its setter is gone. */
	CHECK_OK(fcntl(fd, F_GETLK, &fl));
	CHECK_EQ(fl.l_type, F_UNLCK);
	CHECK_EQ(lock_seen_by_other(fd), F_WRLCK);
	dup = (int)CHECK_OK(fcntl(fd, F_DUPFD_CLOEXEC, 0));
	close(fd);
	CHECK_EQ(lock_seen_by_other(dup), F_UNLCK);
	close(dup);
}

static int
exec_main(void *arg)
{
	char num[16];
	char *argv[] = { self_path, "exec-state", num, NULL };

	snprintf(num, sizeof(num), "%d", *(int *)arg);
	execve(self_path, argv, environ);
	child_failed = 1;
	_exit(127);
}

/* The kernel's struct sigaction, whose flags and mask libc may rewrite. */
struct ksigaction {
	uint64_t handler, flags, restorer, mask;
};

/* What the exec'd image checks: fd closed, signal actions reset. */
static int
exec_state(int fd)
{
	struct ksigaction usr1, usr2;

	if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
		return 1;
	if (syscall(SYS_rt_sigaction, SIGUSR1, NULL, &usr1, 8) != 0 ||
	    syscall(SYS_rt_sigaction, SIGUSR2, NULL, &usr2, 8) != 0)
		return 2;
	if (usr1.handler != (uintptr_t)SIG_DFL || usr1.flags || usr1.mask)
		return 3;
	if (usr2.handler != (uintptr_t)SIG_IGN || usr2.flags || usr2.mask)
		return 4;
	return 0;
}

static void
check_exec_unshares(void)
{
	int fd = (int)CHECK_OK(open("/dev/null", O_RDONLY | O_CLOEXEC));
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };

	sigaddset(&sa.sa_mask, SIGINT);
	CHECK_OK(sigaction(SIGUSR1, &sa, NULL));
	sa.sa_handler = SIG_IGN;
	CHECK_OK(sigaction(SIGUSR2, &sa, NULL));
	child_failed = 0;
	reap(clone_vm(exec_main, CLONE_FILES | CLONE_VFORK, &fd), 0);
	CHECK_EQ(child_failed, 0);
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
	CHECK(is_dev_null(fd), "the close-on-exec fd is still ours");
	close(fd);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}

/* A CLONE_FILES and CLONE_FS child that unshares both, then changes them. */
static int
unshare_main(void *arg)
{
	int *fds = arg;

	if (syscall(SYS_unshare, CLONE_FILES | CLONE_FS) != 0)
		return 1;
	/* Its memory is the parent's: not its own to unshare. */
	if (syscall(SYS_unshare, CLONE_VM) != -1 || errno != EINVAL)
		return 2;
	if (close(fds[0]) != 0 || chdir("/proc") != 0)
		return 3;
	return 0;
}

static void *
idle_main(void *arg)
{
	volatile int *stop = arg;

	while (!*stop)
		usleep(1000);
	return NULL;
}

/*
 * unshare(2): a child sharing the fd table and fs state takes copies of
 * its own; bits it does not know are EINVAL; the thread group, signal
 * actions and memory unshare only when nothing shares them, so not with
 * a second thread running.
 */
static void
check_unshare(void)
{
	char cwd[256], *old = getcwd(cwd, sizeof(cwd)) != NULL ?
	    strdup(cwd) : NULL;
	volatile int stop = 0;
	pthread_t t;
	int fds[2];

	CHECK_OK(syscall(SYS_unshare, 0));
	CHECK_ERR(syscall(SYS_unshare, CLONE_PARENT), EINVAL);
	CHECK_OK(syscall(SYS_unshare, CLONE_THREAD | CLONE_SIGHAND | CLONE_VM));
	CHECK_OK(pipe(fds));
	reap(clone_vm(unshare_main, CLONE_FILES | CLONE_FS, fds), 0);
	CHECK_EQ(fcntl(fds[0], F_GETFD), 0);
	CHECK(old != NULL && getcwd(cwd, sizeof(cwd)) != NULL &&
	    strcmp(cwd, old) == 0, "cwd %s, was %s", cwd, old);
	close(fds[0]);
	close(fds[1]);
	free(old);
	if (CHECK_EQ(pthread_create(&t, NULL, idle_main, (void *)&stop), 0)) {
		CHECK_ERR(syscall(SYS_unshare, CLONE_VM), EINVAL);
		CHECK_ERR(syscall(SYS_unshare, CLONE_SIGHAND), EINVAL);
		CHECK_ERR(syscall(SYS_unshare, CLONE_THREAD), EINVAL);
		stop = 1;
		pthread_join(t, NULL);
	}
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "exec-state") == 0)
		return exec_state(atoi(argv[2]));
	self_path = argv[0];
	check_files(true);
	check_files(false);
	check_fs(true);
	check_fs(false);
	check_sighand(true);
	check_sighand(false);
	check_clear_sighand();
	check_lock_owner();
	check_exec_unshares();
	check_unshare();
	return guest_done();
}
