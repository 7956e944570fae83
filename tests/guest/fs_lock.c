/*
 * Verifies advisory locks between processes: fcntl(2)'s POSIX record
 * locks (conflicts, F_GETLK's report, splitting and merging, ranges from
 * SEEK_CUR and SEEK_END, release on any close and at exit, F_SETLKW
 * waiting, EDEADLK, EINTR and SA_RESTART), OFD locks (owned by the open
 * file, conflicting with POSIX locks) and flock(2) (whole-file, shared by
 * dup and fork, apart from fcntl's locks), with each call's errors.
 */
#include <sys/file.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <stdint.h>

#include "fs_common.h"

static const char *const fname = "locked";

static long
lk(int fd, int cmd, short type, short whence, long start, long len)
{
	struct flock fl = { .l_type = type, .l_whence = whence,
	    .l_start = start, .l_len = len };

	return syscall(SYS_fcntl, fd, cmd, &fl);
}

/* What F_GETLK (or F_OFD_GETLK, as cmd) says of a type lock on a range. */
static struct flock
getlk(int fd, int cmd, short type, long start, long len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET,
	    .l_start = start, .l_len = len };

	CHECK_OK(syscall(SYS_fcntl, fd, cmd, &fl));
	return fl;
}

static int
open_file(int flags)
{
	return (int)CHECK_OK(open(fname, flags));
}

/*
 * A child that runs fn, then waits for a byte on go (when go >= 0) before
 * it exits; its checks count in its exit status, which reap() checks.
 */
static pid_t
child(void (*fn)(void *), void *arg, int go)
{
	pid_t pid = fork();
	char c;

	if (pid != 0) {
		CHECK(pid > 0, "fork");
		return pid;
	}
	guest_failures = 0;
	fn(arg);
	if (go >= 0)
		(void)read(go, &c, 1);
	_exit(guest_failures != 0);
}

static void
reap(pid_t pid)
{
	int st = -1;

	if (pid <= 0)
		return;
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d: status %#x",
	    (int)pid, st);
}

static void
send_byte(int fd)
{
	CHECK_EQ(write(fd, "x", 1), 1);
}

static void
wait_byte(int fd)
{
	char c;

	CHECK_EQ(read(fd, &c, 1), 1);
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --- POSIX record locks --- */

static void
see_parent_lock(void *arg)
{
	int fd = open_file(O_RDWR);
	struct flock fl;

	(void)arg;
	CHECK_ERR(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 10), EAGAIN);
	CHECK_ERR(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 9, 1), EAGAIN);
	CHECK_ERR(lk(fd, F_SETLK, F_RDLCK, SEEK_SET, 5, 0), EAGAIN);
	CHECK_OK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 10, 10));
	fl = getlk(fd, F_GETLK, F_WRLCK, 0, 100);
	CHECK_EQ(fl.l_type, F_WRLCK);
	CHECK_EQ(fl.l_whence, SEEK_SET);
	CHECK_EQ(fl.l_start, 0);
	CHECK_EQ(fl.l_len, 10);
	CHECK_EQ(fl.l_pid, getppid());
	fl = getlk(fd, F_OFD_GETLK, F_RDLCK, 3, 1);
	CHECK_EQ(fl.l_type, F_WRLCK);
	CHECK_EQ(fl.l_pid, getppid());
	/* Its own lock is no conflict. */
	CHECK_EQ(getlk(fd, F_GETLK, F_WRLCK, 10, 10).l_type, F_UNLCK);
	close(fd);
}

static void
test_conflict(void)
{
	int fd = open_file(O_RDWR);

	CHECK_OK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 10));
	CHECK_EQ(getlk(fd, F_GETLK, F_WRLCK, 0, 0).l_type, F_UNLCK);
	reap(child(see_parent_lock, NULL, -1));
	/* The child's lock on [10, 20) went with it. */
	CHECK_OK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 10, 10));
	CHECK_OK(lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	close(fd);
}

struct want {
	short type;
	long start, len;        /* asked */
	short got;
	long gstart, glen;      /* reported */
};

static void
check_wants(void *arg)
{
	const struct want *w = arg;
	int fd = open_file(O_RDONLY);

	for (; w->type != 0; w++) {
		struct flock fl = getlk(fd, F_GETLK, w->type, w->start, w->len);

		CHECK(fl.l_type == w->got && (w->got == F_UNLCK ||
		    (fl.l_start == w->gstart && fl.l_len == w->glen)),
		    "getlk %d [%ld +%ld]: got %d [%ld +%ld], want %d "
		    "[%ld +%ld]", w->type, w->start, w->len, fl.l_type,
		    (long)fl.l_start, (long)fl.l_len, w->got, w->gstart,
		    w->glen);
	}
	close(fd);
}

static void
test_split_merge(void)
{
	int fd = open_file(O_RDWR);
	const struct want split[] = {
		{ F_WRLCK, 0, 0, F_WRLCK, 0, 40 },
		{ F_WRLCK, 40, 20, F_UNLCK, 0, 0 },
		{ F_WRLCK, 50, 0, F_WRLCK, 60, 40 },
		{ F_RDLCK, 95, 10, F_WRLCK, 60, 40 },
		{ 0, 0, 0, 0, 0, 0 },
	};
	const struct want convert[] = {
		{ F_RDLCK, 0, 0, F_WRLCK, 0, 40 },
		{ F_RDLCK, 60, 0, F_WRLCK, 70, 30 },
		{ F_WRLCK, 60, 10, F_RDLCK, 60, 10 },
		{ 0, 0, 0, 0, 0, 0 },
	};
	const struct want merged[] = {
		{ F_RDLCK, 0, 0, F_WRLCK, 0, 30 },
		{ F_WRLCK, 30, 0, F_UNLCK, 0, 0 },
		{ 0, 0, 0, 0, 0, 0 },
	};

	CHECK_OK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 100));
	CHECK_OK(lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 40, 20));
	reap(child(check_wants, (void *)split, -1));
	CHECK_OK(lk(fd, F_SETLK, F_RDLCK, SEEK_SET, 60, 10));
	reap(child(check_wants, (void *)convert, -1));
	CHECK_OK(lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	CHECK_OK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 10));
	CHECK_OK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 20, 10));
	CHECK_OK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 10, 10));
	reap(child(check_wants, (void *)merged, -1));
	CHECK_OK(lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	close(fd);
}

static void
test_range(void)
{
	int fd = open_file(O_RDWR);
	const struct want ranges[] = {
		{ F_WRLCK, 0, 0, F_WRLCK, 20, 10 },
		{ F_WRLCK, 30, 0, F_WRLCK, 40, 5 },
		{ F_WRLCK, 45, 0, F_WRLCK, 99, 1 },
		{ 0, 0, 0, 0, 0, 0 },
	};

	CHECK_EQ(lseek(fd, 50, SEEK_SET), 50);
	CHECK_OK(lk(fd, F_SETLK, F_WRLCK, SEEK_CUR, -10, 5));
	CHECK_OK(lk(fd, F_SETLK, F_WRLCK, SEEK_END, -1, 1));
	/* A negative length ends the range just before l_start. */
	CHECK_OK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 30, -10));
	reap(child(check_wants, (void *)ranges, -1));

	FS_CHECK_ERR(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, -1, 1), EINVAL);
	FS_CHECK_ERR(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 5, -10), EINVAL);
	FS_CHECK_ERR(lk(fd, F_SETLK, F_WRLCK, SEEK_CUR, -60, 1), EINVAL);
	FS_CHECK_ERR(lk(fd, F_SETLK, F_WRLCK, 7, 0, 1), EINVAL);
	FS_CHECK_ERR(lk(fd, F_SETLK, 9, SEEK_SET, 0, 1), EINVAL);
	FS_CHECK_ERR(lk(fd, F_GETLK, F_UNLCK, SEEK_SET, 0, 1), EINVAL);
	FS_CHECK_ERR(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, INT64_MAX, 2),
	    EOVERFLOW);
	FS_CHECK_ERR(syscall(SYS_fcntl, fd, F_SETLK, (void *)8), EFAULT);
	FS_CHECK_ERR(syscall(SYS_fcntl, fd, F_GETLK, (void *)8), EFAULT);
	CHECK_OK(lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	close(fd);
}

static void
test_badf(void)
{
	int ro = open_file(O_RDONLY), wo = open_file(O_WRONLY);
	int path = open_file(O_PATH);

	FS_CHECK_ERR(lk(ro, F_SETLK, F_WRLCK, SEEK_SET, 0, 1), EBADF);
	FS_CHECK_ERR(lk(ro, F_OFD_SETLK, F_WRLCK, SEEK_SET, 0, 1), EBADF);
	CHECK_OK(lk(ro, F_SETLK, F_RDLCK, SEEK_SET, 0, 1));
	CHECK_OK(lk(ro, F_SETLK, F_UNLCK, SEEK_SET, 0, 1));
	FS_CHECK_ERR(lk(wo, F_SETLK, F_RDLCK, SEEK_SET, 0, 1), EBADF);
	CHECK_OK(lk(wo, F_SETLK, F_WRLCK, SEEK_SET, 0, 1));
	CHECK_OK(lk(wo, F_SETLK, F_UNLCK, SEEK_SET, 0, 1));
	/* Asking costs no access. */
	CHECK_EQ(getlk(ro, F_GETLK, F_WRLCK, 0, 0).l_type, F_UNLCK);
	FS_CHECK_ERR(lk(999, F_SETLK, F_WRLCK, SEEK_SET, 0, 1), EBADF);
	/* An O_PATH fd answers to fd-level commands only. */
	FS_CHECK_ERR(lk(path, F_GETLK, F_WRLCK, SEEK_SET, 0, 1), EBADF);
	FS_CHECK_ERR(syscall(SYS_fcntl, path, F_SETFL, 0), EBADF);
	FS_CHECK_ERR(syscall(SYS_fcntl, path, F_GETOWN, 0), EBADF);
	CHECK_EQ(syscall(SYS_fcntl, path, F_GETFL, 0) & O_PATH, O_PATH);
	CHECK_OK(syscall(SYS_fcntl, path, F_SETFD, FD_CLOEXEC));
	FS_CHECK_ERR(flock(path, LOCK_EX), EBADF);
	close(ro);
	close(wo);
	close(path);
}

/* Holds a write lock on byte 0 until told to go. */
static void
hold_byte0(void *arg)
{
	const int *pipes = arg;
	int fd = open_file(O_RDWR);

	CHECK_OK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 1));
	send_byte(pipes[1]);
}

static void
test_release(void)
{
	int fd1 = open_file(O_RDWR), fd2 = open_file(O_RDONLY), fd3;
	int ready[2], go[2];
	pid_t pid;
	const struct want none[] = {
		{ F_WRLCK, 0, 0, F_UNLCK, 0, 0 },
		{ 0, 0, 0, 0, 0, 0 },
	};

	/* Closing any fd of the file drops the process's locks on it. */
	CHECK_OK(lk(fd1, F_SETLK, F_WRLCK, SEEK_SET, 0, 10));
	close(fd2);
	reap(child(check_wants, (void *)none, -1));
	/* So does dup2() over one. */
	CHECK_OK(lk(fd1, F_SETLK, F_WRLCK, SEEK_SET, 0, 10));
	fd3 = open_file(O_RDONLY);
	CHECK_OK(dup2(0, fd3));
	reap(child(check_wants, (void *)none, -1));
	close(fd3);

	/* And exit: the holder's lock lasts exactly as long as it does. */
	if (CHECK_OK(pipe(ready)) != 0 || CHECK_OK(pipe(go)) != 0)
		return;
	pid = child(hold_byte0, ready, go[0]);
	wait_byte(ready[0]);
	FS_CHECK_ERR(lk(fd1, F_SETLK, F_WRLCK, SEEK_SET, 0, 1), EAGAIN);
	send_byte(go[1]);
	reap(pid);
	CHECK_OK(lk(fd1, F_SETLK, F_WRLCK, SEEK_SET, 0, 1));
	close(fd1);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}

struct holder {
	int ready, done;        /* write ends the holder reports on */
	int cmd;                /* how it locks: F_SETLK or 0 for flock */
	long hold_ms;
};

/* Takes the lock, reports it, holds it hold_ms, says so, lets it go. */
static void
hold_then_release(void *arg)
{
	const struct holder *h = arg;
	int fd = open_file(O_RDWR);

	if (h->cmd != 0)
		CHECK_OK(lk(fd, h->cmd, F_WRLCK, SEEK_SET, 0, 1));
	else
		CHECK_OK(flock(fd, LOCK_EX));
	send_byte(h->ready);
	sleep_ms(h->hold_ms);
	send_byte(h->done);
	close(fd);
}

/*
 * The lock through fd (by cmd, or flock when cmd is 0) waits until a
 * child that holds it lets it go.
 */
static void
check_waits(int fd, int cmd)
{
	int ready[2], done[2];
	struct holder h;
	int64_t t0;
	char c;
	pid_t pid;

	if (CHECK_OK(pipe(ready)) != 0 || CHECK_OK(pipe2(done, O_NONBLOCK)) != 0)
		return;
	h = (struct holder){ ready[1], done[1], cmd == 0 ? 0 : F_SETLK, 150 };
	pid = child(hold_then_release, &h, -1);
	wait_byte(ready[0]);
	t0 = now_ms();
	if (cmd != 0)
		CHECK_OK(lk(fd, cmd, F_WRLCK, SEEK_SET, 0, 1));
	else
		CHECK_OK(flock(fd, LOCK_EX));
	CHECK(now_ms() - t0 >= 100, "waited only %lld ms",
	    (long long)(now_ms() - t0));
	CHECK_EQ(read(done[0], &c, 1), 1);
	reap(pid);
	close(ready[0]);
	close(ready[1]);
	close(done[0]);
	close(done[1]);
}

static void
test_setlkw(void)
{
	int fd = open_file(O_RDWR);

	check_waits(fd, F_SETLKW);
	CHECK_OK(lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	check_waits(fd, F_OFD_SETLKW);
	CHECK_OK(lk(fd, F_OFD_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	close(fd);
}

/* Locks byte 1, then waits for byte 0, which its parent holds. */
static void
wait_for_byte0(void *arg)
{
	const int *ready = arg;
	int fd = open_file(O_RDWR);

	CHECK_OK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 1, 1));
	send_byte(*ready);
	CHECK_OK(lk(fd, F_SETLKW, F_WRLCK, SEEK_SET, 0, 1));
	close(fd);
}

static void
test_deadlock(void)
{
	int fd = open_file(O_RDWR), ready[2];
	pid_t pid;

	if (CHECK_OK(pipe(ready)) != 0)
		return;
	CHECK_OK(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 1));
	pid = child(wait_for_byte0, &ready[1], -1);
	wait_byte(ready[0]);
	sleep_ms(100);
	FS_CHECK_ERR(lk(fd, F_SETLKW, F_WRLCK, SEEK_SET, 1, 1), EDEADLK);
	CHECK_OK(lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 1));
	reap(pid);
	close(fd);
	close(ready[0]);
	close(ready[1]);
}

static void
on_alarm(int sig)
{
	(void)sig;
}

/* A wait for a lock a child holds, with a SIGALRM handler (flags). */
static long
wait_interrupted(int cmd, int flags, long hold_ms)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = flags };
	struct itimerval it = { .it_value = { 0, 50000 } };
	int fd = open_file(O_RDWR), ready[2], done[2];
	struct holder h;
	long r;
	pid_t pid;

	if (CHECK_OK(pipe(ready)) != 0 || CHECK_OK(pipe(done)) != 0)
		return 0;
	h = (struct holder){ ready[1], done[1], cmd == 0 ? 0 : F_SETLK,
	    hold_ms };
	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(SIGALRM, &sa, NULL));
	pid = child(hold_then_release, &h, -1);
	wait_byte(ready[0]);
	CHECK_OK(setitimer(ITIMER_REAL, &it, NULL));
	errno = 0;
	r = cmd != 0 ? lk(fd, cmd, F_WRLCK, SEEK_SET, 0, 1) : flock(fd,
	    LOCK_EX);
	if (r < 0)
		r = -errno;
	wait_byte(done[0]);
	reap(pid);
	close(fd);
	close(ready[0]);
	close(ready[1]);
	close(done[0]);
	close(done[1]);
	signal(SIGALRM, SIG_DFL);
	return r;
}

static void
test_eintr(void)
{
	CHECK_EQ(wait_interrupted(F_SETLKW, 0, 300), -EINTR);
	CHECK_EQ(wait_interrupted(F_OFD_SETLKW, 0, 300), -EINTR);
	CHECK_EQ(wait_interrupted(0, 0, 300), -EINTR);
	/* SA_RESTART: the wait goes on after the handler, to the lock. */
	CHECK_EQ(wait_interrupted(F_SETLKW, SA_RESTART, 200), 0);
	CHECK_EQ(wait_interrupted(0, SA_RESTART, 200), 0);
}

/* --- OFD locks --- */

static void
ofd_in_child(void *arg)
{
	int fd = *(const int *)arg, own = open_file(O_RDWR);

	/* The inherited open file owns the lock, so it may change it. */
	CHECK_OK(lk(fd, F_OFD_SETLK, F_WRLCK, SEEK_SET, 0, 20));
	FS_CHECK_ERR(lk(own, F_OFD_SETLK, F_WRLCK, SEEK_SET, 15, 1), EAGAIN);
	CHECK_OK(lk(fd, F_OFD_SETLK, F_WRLCK, SEEK_SET, 0, 10));
	CHECK_OK(lk(fd, F_OFD_SETLK, F_UNLCK, SEEK_SET, 10, 10));
	close(own);
}

static void
test_ofd(void)
{
	int fd1 = open_file(O_RDWR), fd2 = open_file(O_RDWR), fd3, d;
	struct flock fl;

	CHECK_OK(lk(fd1, F_OFD_SETLK, F_WRLCK, SEEK_SET, 0, 10));
	/* Two open files of one process are two owners. */
	FS_CHECK_ERR(lk(fd2, F_OFD_SETLK, F_WRLCK, SEEK_SET, 5, 1), EAGAIN);
	FS_CHECK_ERR(lk(fd2, F_SETLK, F_RDLCK, SEEK_SET, 5, 1), EAGAIN);
	fl = getlk(fd2, F_OFD_GETLK, F_WRLCK, 0, 0);
	CHECK_EQ(fl.l_type, F_WRLCK);
	CHECK_EQ(fl.l_len, 10);
	CHECK_EQ(fl.l_pid, -1);
	CHECK_EQ(getlk(fd2, F_GETLK, F_WRLCK, 0, 0).l_pid, -1);
	CHECK_EQ(getlk(fd1, F_OFD_GETLK, F_WRLCK, 0, 0).l_type, F_UNLCK);
	{
		struct flock bad = { .l_type = F_WRLCK, .l_pid = 1 };

		FS_CHECK_ERR(syscall(SYS_fcntl, fd1, F_OFD_SETLK, &bad),
		    EINVAL);
		FS_CHECK_ERR(syscall(SYS_fcntl, fd1, F_OFD_GETLK, &bad),
		    EINVAL);
	}
	/* A POSIX lock of the process blocks an OFD lock too. */
	CHECK_OK(lk(fd2, F_SETLK, F_WRLCK, SEEK_SET, 50, 1));
	FS_CHECK_ERR(lk(fd1, F_OFD_SETLK, F_WRLCK, SEEK_SET, 50, 1), EAGAIN);
	CHECK_OK(lk(fd2, F_SETLK, F_UNLCK, SEEK_SET, 50, 1));

	/* Closing another fd of the file keeps it; the last close ends it. */
	close(fd2);
	fd3 = open_file(O_RDWR);
	FS_CHECK_ERR(lk(fd3, F_OFD_SETLK, F_WRLCK, SEEK_SET, 0, 1), EAGAIN);
	d = (int)CHECK_OK(dup(fd1));
	reap(child(ofd_in_child, &fd1, -1));
	fl = getlk(fd3, F_OFD_GETLK, F_WRLCK, 0, 0);
	CHECK_EQ(fl.l_type, F_WRLCK);
	CHECK_EQ(fl.l_start, 0);
	CHECK_EQ(fl.l_len, 10);
	close(fd1);
	FS_CHECK_ERR(lk(fd3, F_OFD_SETLK, F_WRLCK, SEEK_SET, 0, 1), EAGAIN);
	close(d);
	CHECK_OK(lk(fd3, F_OFD_SETLK, F_WRLCK, SEEK_SET, 0, 1));
	close(fd3);
}

/* --- flock --- */

static void
flock_in_child(void *arg)
{
	int fd = *(const int *)arg;

	/* The child's copy of the open file holds the parent's lock. */
	CHECK_OK(flock(fd, LOCK_EX | LOCK_NB));
	CHECK_OK(flock(fd, LOCK_UN));
}

static void
test_flock(void)
{
	int fd1 = open_file(O_RDONLY), fd2 = open_file(O_RDONLY), d;

	CHECK_OK(flock(fd1, LOCK_EX));
	CHECK_OK(flock(fd1, LOCK_EX | LOCK_NB));
	FS_CHECK_ERR(flock(fd2, LOCK_EX | LOCK_NB), EWOULDBLOCK);
	FS_CHECK_ERR(flock(fd2, LOCK_SH | LOCK_NB), EWOULDBLOCK);
	/* Apart from fcntl's locks. */
	CHECK_OK(lk(fd2, F_SETLK, F_RDLCK, SEEK_SET, 0, 0));
	CHECK_OK(lk(fd2, F_SETLK, F_UNLCK, SEEK_SET, 0, 0));
	CHECK_OK(flock(fd1, LOCK_SH));
	CHECK_OK(flock(fd2, LOCK_SH | LOCK_NB));
	/* A failed change to exclusive gives up the shared lock too. */
	FS_CHECK_ERR(flock(fd1, LOCK_EX | LOCK_NB), EWOULDBLOCK);
	CHECK_OK(flock(fd2, LOCK_EX | LOCK_NB));
	CHECK_OK(flock(fd2, LOCK_UN));

	/* dup() and fork() share the open file's lock. */
	CHECK_OK(flock(fd1, LOCK_EX));
	d = (int)CHECK_OK(dup(fd1));
	CHECK_OK(flock(d, LOCK_UN));
	CHECK_OK(flock(fd2, LOCK_EX | LOCK_NB));
	CHECK_OK(flock(fd2, LOCK_UN));
	CHECK_OK(flock(fd1, LOCK_EX));
	reap(child(flock_in_child, &fd1, -1));
	CHECK_OK(flock(fd2, LOCK_EX | LOCK_NB));
	CHECK_OK(flock(fd2, LOCK_UN));

	/* The last close lets it go. */
	CHECK_OK(flock(fd1, LOCK_EX));
	close(fd1);
	FS_CHECK_ERR(flock(fd2, LOCK_EX | LOCK_NB), EWOULDBLOCK);
	close(d);
	CHECK_OK(flock(fd2, LOCK_EX | LOCK_NB));
	CHECK_OK(flock(fd2, LOCK_UN));

	FS_CHECK_ERR(flock(fd2, 0), EINVAL);
	FS_CHECK_ERR(flock(fd2, LOCK_SH | LOCK_EX), EINVAL);
	FS_CHECK_ERR(flock(fd2, LOCK_NB), EINVAL);
	FS_CHECK_ERR(flock(999, LOCK_EX), EBADF);
	check_waits(fd2, 0);
	close(fd2);
}

int
main(void)
{
	int fd;

	if (!CHECK(scratch_enter(), "scratch dir"))
		return guest_done();
	fd = (int)CHECK_OK(open(fname, O_RDWR | O_CREAT | O_TRUNC, 0644));
	CHECK_OK(ftruncate(fd, 100));
	close(fd);
	test_conflict();
	test_split_merge();
	test_range();
	test_badf();
	test_release();
	test_setlkw();
	test_deadlock();
	test_eintr();
	test_ofd();
	test_flock();
	scratch_leave();
	return guest_done();
}
