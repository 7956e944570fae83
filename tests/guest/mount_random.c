/*
 * Throws random mount(2) and umount2(2) calls at the kernel: file system
 * types, sources, targets and option strings drawn from valid names,
 * garbage, strings running to the end of a mapping, unmapped and
 * read-only pointers, with random flags, stacked and nested mounts, binds
 * of binds, open files and cwds inside, read-only binds, moves, lazy
 * unmounts, and mount namespaces (unshare, children that end with
 * theirs).  It checks only
 * that every mount it made can be taken away at the end and that the
 * mount table is back as it started; the point is that vkernel, run with
 * its sanitizers, survives it without a crash, an assertion or a leak.
 * Run inside vkernel only: natively its calls would reach the host's
 * mounts.
 *
 * usage: mount_random [ITERATIONS [SEED]]
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <sys/stat.h>

#include <stdlib.h>

#include "guest.h"
#include "rnd.h"

#define NFDS 8

static char *edge;              /* a page followed by an unmapped one */
static char *ro;                /* a read-only page */
static long fds[NFDS];

static const char *const dirs[] = { "/tmp/mr", "/tmp/mr/a", "/tmp/mr/b",
	"/tmp/mr/a/c", "/tmp/mr/b/d", "/tmp/mr/a/c/e", "/tmp/mr/../mr/b",
	"/proc", "/", "/tmp/mr/f", "/nonexistent", "", "/dev/mqueue" };

/* A string argument: a name, garbage, an edge, or a bad pointer. */
static const char *
rstr(const char *const *names, size_t n)
{
	switch (rnd() % 8) {
	case 0:
		return NULL;
	case 1:
		return (const char *)(uintptr_t)(rnd() % 2 ? 1 : rnd());
	case 2:
		/* No NUL before the unmapped page. */
		memset(edge, 'a', GUEST_PAGE);
		return edge + GUEST_PAGE - 1 - rnd() % 64;
	case 3:
		return ro;
	default:
		return names[rnd() % n];
	}
}

static const char *
rdata(void)
{
	static const char *const opts[] = { "size=1m", "size=0",
		"size=50%", "size=1000%", "size=99999999999999999999",
		"nr_inodes=3", "mode=1777", "mode=8", "uid=0,gid=0",
		"uid=4294967295", "size=12q", "size=,", ",,,", "=", "size",
		"size=1k,nr_inodes=1k,mode=700,uid=1,gid=2", "newinstance",
		"ptmxmode=666", "" };

	return rstr(opts, NELEM(opts));
}

static unsigned long
rflags(void)
{
	static const unsigned long f[] = { 0, MS_RDONLY, MS_NOSUID, MS_NODEV,
		MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE,
		MS_SHARED, MS_SLAVE, MS_UNBINDABLE, MS_SILENT, 1UL << 31,
		0xC0ED0000UL, MS_REMOUNT | MS_BIND | MS_RDONLY,
		MS_BIND | MS_REC, MS_REMOUNT | MS_BIND, MS_REMOUNT | MS_RDONLY,
		MS_MOVE, MS_SHARED | MS_REC, MS_UNBINDABLE | MS_REC };
	unsigned long v = 0;

	for (int i = rnd() % 3; i >= 0; i--)
		v |= f[rnd() % NELEM(f)];
	return rnd() % 16 == 0 ? rnd() : v;
}

static void child_steps(void);

static void
step(void)
{
	static const char *const types[] = { "tmpfs", "proc", "sysfs",
		"devpts", "mqueue", "ext4", "bind", "" };
	long *fd = &fds[rnd() % NFDS];
	char path[64];

	switch (rnd() % 8) {
	case 0:
	case 1:
		syscall(SYS_mount, rstr(dirs, NELEM(dirs)),
		    rstr(dirs, NELEM(dirs)), rstr(types, NELEM(types)),
		    rflags(), rdata());
		break;
	case 2:
		syscall(SYS_umount2, rstr(dirs, NELEM(dirs)),
		    rnd() % 8 == 0 ? rnd() : rnd() % 16);
		break;
	case 3:
		if (*fd >= 0)
			close(*fd);
		snprintf(path, sizeof(path), "%s/x%d",
		    dirs[rnd() % 6], (int)(rnd() % 3));
		*fd = open(path, O_CREAT | O_RDWR, 0644);
		break;
	case 4:
		if (chdir(dirs[rnd() % 7]) < 0 || rnd() % 2)
			(void)chdir("/");
		break;
	case 5:
		mkdir(dirs[rnd() % 7], 0755);
		break;
	case 6:
		/* A table of its own, the last one let go. */
		if (rnd() % 8 == 0)
			(void)syscall(SYS_unshare, rnd() % 4 ? CLONE_NEWNS :
			    rnd());
		break;
	default:
		/* A child that changes its own copy, then ends with it. */
		if (rnd() % 16 == 0)
			child_steps();
		break;
	}
}

static void
child_steps(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		(void)syscall(SYS_unshare, CLONE_NEWNS);
		for (int i = rnd() % 32; i > 0; i--)
			step();
		_exit(0);
	}
	if (pid > 0)
		(void)waitpid(pid, NULL, 0);
}

/* Unmount everything below /tmp/mr (and whatever else is new). */
static int
cleanup(long before)
{
	static char buf[65536];
	long n, fd;
	int left = 0;

	(void)chdir("/");
	for (int i = 0; i < NFDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (int i = 0; i < 4096; i++)
		if (syscall(SYS_umount2, "/tmp/mr", MNT_DETACH) < 0 &&
		    syscall(SYS_umount2, "/proc", MNT_DETACH) < 0)
			break;
	/* The stacked /proc went too: put the boot one back. */
	fd = open("/proc/self/mounts", O_RDONLY);
	if (fd < 0) {
		if (syscall(SYS_mount, "proc", "/proc", "proc", 0, NULL) < 0)
			return 1;
		fd = open("/proc/self/mounts", O_RDONLY);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (char *s = buf; (s = strchr(s, '\n')) != NULL; s++)
		left++;
	if (left > before)
		fprintf(stderr, "%d mounts before, %d after:\n%s", (int)before,
		    left, buf);
	return left > before;
}

int
main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 2000;
	static char buf[65536];
	long before = 0, fd, n;

	if (argc > 2)
		rnd_state ^= (uint64_t)atol(argv[2]) * 0x9e3779b97f4a7c15ULL;
	edge = mmap(NULL, 2 * GUEST_PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, GUEST_PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (edge == MAP_FAILED || ro == MAP_FAILED ||
	    munmap(edge + GUEST_PAGE, GUEST_PAGE) < 0)
		return 2;
	fd = open("/proc/self/mounts", O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	for (long i = 0; i < n; i++)
		before += buf[i] == '\n';
	close(fd);
	for (int i = 0; i < NFDS; i++)
		fds[i] = -1;
	mkdir("/tmp/mr", 0755);
	for (long i = 0; i < iters; i++)
		step();
	if (cleanup(before) != 0)
		return 1;
	printf("ok: mount_random (%ld calls)\n", iters);
	return 0;
}
