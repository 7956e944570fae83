/*
 * vkernel's own namespaces, entered first thing in `vkernel run`.
 *
 * The process started on the command line (the outer one) makes the
 * vkernel as its child in a new user, pid and mount namespace, writes the
 * child's uid and gid maps (only a process in the parent user namespace
 * may map more than its own ids), and then only waits: it passes the
 * signals other host processes send it on to the vkernel and ends as the
 * vkernel ends.  The vkernel is pid 1 of its pid namespace, so that no
 * host process but its own stubs is there for a signal to reach, and its
 * stubs, its children, are in it too.
 *
 * The maps.  An unprivileged caller's own uid and gid, each to itself:
 * the vkernel acts on host files as before, and the guest sees the same
 * ids.  As root, every uid and gid to itself: the vkernel stays uid 0 and
 * keeps, in its own user namespace, the file powers hostfs acts with for
 * a guest root (sandbox.c), which reach every file since every owner is
 * mapped; but a capability in a user namespace counts only for objects
 * of that namespace and below, so every power over the host's processes,
 * mounts, network and devices is gone, and the lock-down keeps the calls
 * that would reach them away anyway.  What stays of kuid 0 is the owner's
 * part of a file's mode, which the file powers cover already.
 *
 * The mount namespace.  /proc is mounted anew, so that its pids are the
 * pid namespace's, as ptrace and wait give them (where the host refuses,
 * vkernel goes on with fewer namespaces).  Once hostfs has opened
 * its roots, cputime /proc and --strace its file, the vkernel's root
 * becomes an empty read-only tmpfs (sandbox_ns_chroot), stacked over the
 * old root, so that no name resolves to a host file any more: every host
 * file after that is reached beneath a descriptor opened before.
 *
 * Where the host refuses a user namespace (a container without them, a
 * policy that forbids them) --userns=auto runs without: as root with a pid
 * and a mount namespace still, otherwise in the host's, as --stats says.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host-linux/cleanup.h"
#include "host-linux/host.h"
#include "vkern/vk.h"

static enum sandbox_ns ns_have;
static const char *ns_why = "";
static bool ns_host_root;
static pid_t ns_inner;
static int ns_ready = -1;     /* the vkernel's end of ready */

enum sandbox_ns
sandbox_ns(const char **why)
{
	if (why != NULL)
		*why = ns_why;
	return ns_have;
}

bool
sandbox_ns_host_root(void)
{
	return ns_host_root;
}

static int
map_write(pid_t pid, const char *file, const char *text)
{
	char path[64];
	cleanup_close int fd = -1;
	size_t len = strlen(text);

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		return -errno;
	return 0;
}

/* The child's uid and gid maps: see the top of the file. */
static int
maps_write(pid_t pid)
{
	char line[64];
	int r;

	if (ns_host_root) {
		if ((r = map_write(pid, "uid_map", "0 0 4294967295\n")) < 0)
			return r;
		return map_write(pid, "gid_map", "0 0 4294967295\n");
	}
	snprintf(line, sizeof(line), "%u %u 1\n", geteuid(), geteuid());
	if ((r = map_write(pid, "uid_map", line)) < 0)
		return r;
	/* Without it an unprivileged writer may map no gid. */
	if ((r = map_write(pid, "setgroups", "deny\n")) < 0)
		return r;
	snprintf(line, sizeof(line), "%u %u 1\n", getegid(), getegid());
	return map_write(pid, "gid_map", line);
}

/*
 * The outer process: signals sent by other host processes go on to the
 * vkernel (the terminal's own, sent to the whole foreground group, reach
 * it by themselves); other signals end the outer process as before, and
 * the vkernel with it (its parent-death signal).
 */
static const int outer_sigs[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGTSTP, SIGUSR1,
};

static void
outer_forward(int sig, siginfo_t *si, void *uc)
{
	if (si->si_code != SI_KERNEL)
		kill(ns_inner, sig);
}

/*
 * Wait for the vkernel and end as it did.  Returns only when it ended
 * before its set-up was done (inner_setup says on ready).  As pid 1 of
 * its pid namespace the vkernel cannot die of a SIGABRT of its own (the
 * host ignores it; abort(3) then ends it with SIGSEGV): a vkernel that
 * panics says so on ready, and its end is taken for SIGABRT.
 */
static void
outer_wait(int ready)
{
	struct sigaction sa = {
		.sa_sigaction = outer_forward,
		.sa_flags = SA_SIGINFO | SA_RESTART,
	};
	sigset_t set;
	int st, sig;
	char c;

	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < VK_NELEM(outer_sigs); i++)
		sigaction(outer_sigs[i], &sa, NULL);
	while (waitpid(ns_inner, &st, 0) < 0)
		if (errno != EINTR)
			_exit(1);
	if (read(ready, &c, 1) != 1) {
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = 0;
		for (unsigned i = 0; i < VK_NELEM(outer_sigs); i++)
			sigaction(outer_sigs[i], &sa, NULL);
		return;
	}
	if (read(ready, &c, 1) == 1)
		st = SIGABRT;    /* the status of a death by SIGABRT */
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	/* Die as the vkernel did, without a core file of our own. */
	sig = WTERMSIG(st);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);
}

/*
 * The vkernel's side, once its maps are written: a private mount tree
 * with a /proc of its pid namespace, whose pids are ptrace's and wait's
 * (cputime's files, the stubs' pidfds).  Without them it ends without a
 * word on ready, and the outer process tries with fewer namespaces.
 */
static void
inner_setup(int ready)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    NULL) < 0 || write(ready, "r", 1) != 1)
		_exit(1);
	ns_ready = ready;
}

void
sandbox_ns_abort(void)
{
	if (ns_ready >= 0)
		(void)write(ns_ready, "a", 1);
}

/* Make the vkernel with flags; returns in it, 1 when the host refused. */
static int
ns_clone(unsigned long flags, struct vk_error **err)
{
	int go[2], ready[2], r = 0;
	pid_t pid;
	char c;

	if (pipe2(go, O_CLOEXEC) < 0)
		return vk_error_make(err, errno, "sandbox: pipe");
	if (pipe2(ready, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return vk_error_make(err, errno, "sandbox: pipe");
	}
	pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
	if (pid == 0) {
		close(go[1]);
		close(ready[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		close(go[0]);
		inner_setup(ready[1]);
		return 0;
	}
	close(go[0]);
	close(ready[1]);
	/* Without its go the child dies of the pipe's end. */
	if (pid < 0)
		r = errno;
	else if ((flags & CLONE_NEWUSER) && (r = -maps_write(pid)) != 0)
		;
	else if (write(go[1], "g", 1) != 1)
		r = errno;
	close(go[1]);
	if (r == 0) {
		ns_inner = pid;
		outer_wait(ready[0]);
		r = -1;
	} else if (pid > 0) {
		waitpid(pid, NULL, 0);
	}
	close(ready[0]);
	ns_why = r < 0 ? "no /proc of its own" : strerror(r);
	return 1;
}

int
sandbox_ns_enter(enum sandbox_userns mode, struct vk_error **err)
{
	int r;

	ns_host_root = geteuid() == 0;
	if (mode == SANDBOX_USERNS_OFF) {
		ns_why = "--userns=off";
		return 0;
	}
	r = ns_clone(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS, err);
	if (r == 0) {
		ns_have = SANDBOX_NS_USER;
		return 0;
	}
	if (r < 0)
		return r;
	if (mode == SANDBOX_USERNS_REQUIRED)
		return vk_error_make(err, 0, "--userns=required: the host "
		    "gives no user namespace (%s)", ns_why);
	/* As root, the other two need no user namespace. */
	if (ns_host_root && (r = ns_clone(CLONE_NEWPID | CLONE_NEWNS,
	    err)) == 0) {
		ns_have = SANDBOX_NS_PID_MOUNT;
		return 0;
	}
	return r < 0 ? r : 0;
}

/*
 * A stub, between fork and exec: as root in its own user namespace the
 * vkernel makes its stubs an unprivileged host user, so that a stub holds
 * no owner's right to root's files or processes.  The vkernel, kuid 0,
 * then reaches them through CAP_KILL and CAP_SYS_NICE in its own user
 * namespace, which hold over nothing but its stubs.  Without a user
 * namespace the stubs stay the vkernel's uid, which is then the only one
 * it may signal.
 */
int
sandbox_ns_stub_creds(void)
{
	if (ns_have != SANDBOX_NS_USER || !ns_host_root)
		return 0;
	if (setgroups(0, NULL) < 0 ||
	    setresgid(SANDBOX_STUB_ID, SANDBOX_STUB_ID, SANDBOX_STUB_ID) < 0 ||
	    setresuid(SANDBOX_STUB_ID, SANDBOX_STUB_ID, SANDBOX_STUB_ID) < 0)
		return -errno;
	/*
	 * The change of uid made it not dumpable, which would leave its
	 * PTRACE_SEIZE to CAP_SYS_PTRACE in the host's user namespace
	 * until its exec makes it dumpable again.
	 */
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0 ? -errno : 0;
}

/*
 * The empty root: a tmpfs mounted over the old root and made the root
 * and cwd, read-only.  A sanitizer build's runtime reads /proc/self, so
 * there it holds /proc.
 */
int
sandbox_ns_chroot(struct vk_error **err)
{
	cleanup_close int fs = -1, mnt = -1;
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };

	if (ns_have == SANDBOX_NS_NONE)
		return 0;
	if ((fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC)) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "size", "4k",
	    0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "555",
	    0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    (mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)) < 0 ||
	    syscall(SYS_move_mount, mnt, "", AT_FDCWD, "/",
	    MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return vk_error_make(err, errno, "sandbox: mount the empty "
		    "root");
#ifdef VK_SANITIZE
	{
		cleanup_close int proc = (int)syscall(SYS_open_tree, AT_FDCWD,
		    "/proc", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);

		if (proc < 0 || mkdirat(mnt, "proc", 0555) < 0 ||
		    syscall(SYS_move_mount, proc, "", mnt, "proc",
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
			return vk_error_make(err, errno, "sandbox: /proc for "
			    "the sanitizer");
	}
#endif
	if (syscall(SYS_mount_setattr, mnt, "", AT_EMPTY_PATH, &ro,
	    sizeof(ro)) < 0 || fchdir(mnt) < 0 || chroot(".") < 0 ||
	    chdir("/") < 0)
		return vk_error_make(err, errno, "sandbox: enter the empty "
		    "root");
	return 0;
}
