/*
 * KCOV as Linux's Documentation/dev-tools/kcov.rst gives it: open
 * /sys/kernel/debug/kcov, KCOV_INIT_TRACE, a shared mapping of the area,
 * KCOV_ENABLE with KCOV_TRACE_PC, then each system call of this thread
 * leaves a count in word 0 and that many PCs after it: more than none,
 * fewer than the area holds, the same for the same call and different
 * for a different one; none after KCOV_DISABLE, none of another thread.
 * The errors of each step done out of order, and KCOV_TRACE_CMP's
 * ENOTSUPP, are Linux's.  A guest user may not open it (debugfs is
 * root's).  With the argument "absent": the file must not exist (a build
 * without -Dkcov); with "present" it must.  Without either, skips where
 * the kernel has no KCOV (natively, most often).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "guest.h"

/* The UAPI's, written out: musl's headers do not carry linux/kcov.h. */
#define KCOV_INIT_TRACE _IOR('c', 1, unsigned long)
#define KCOV_ENABLE _IO('c', 100)
#define KCOV_DISABLE _IO('c', 101)
#define KCOV_TRACE_PC 0
#define KCOV_TRACE_CMP 1

#define KCOV_PATH "/sys/kernel/debug/kcov"
#define COVER_SIZE (64 * 1024)      /* words */
#define ENOTSUPP 524                /* Linux's own, as KCOV gives it */
#define OTHER_CALLS 2000

static uint64_t *cover;
static uint64_t first[COVER_SIZE];
static int kcov_fd;

/* The PCs one raw system call leaves: their number, copied to pcs. */
static uint64_t
trace(long nr, uint64_t *pcs)
{
	uint64_t n;

	__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
	syscall(nr, 0, 0, 0);
	n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
	if (n < COVER_SIZE)
		memcpy(pcs, &cover[1], n * sizeof(*pcs));
	return n;
}

static bool
contains(const uint64_t *pcs, uint64_t n, uint64_t pc)
{
	for (uint64_t i = 0; i < n; i++)
		if (pcs[i] == pc)
			return true;
	return false;
}

static void
check_pcs(void)
{
	static uint64_t again[COVER_SIZE], other[COVER_SIZE];
	uint64_t n1, n2, n3;
	bool differ = false;

	n1 = trace(SYS_getppid, first);
	CHECK(n1 > 0 && n1 < COVER_SIZE, "getppid: %lu PCs", (unsigned long)n1);
	if (n1 == 0 || n1 >= COVER_SIZE)
		return;
	for (uint64_t i = 0; i < n1; i++)
		CHECK(first[i] != 0 && first[i] < (64UL << 20),
		    "PC %#lx is no offset in an executable",
		    (unsigned long)first[i]);
	/* The same call takes the same path. */
	n2 = trace(SYS_getppid, again);
	CHECK_EQ(n2, n1);
	CHECK(n2 == n1 && memcmp(first, again, n1 * 8) == 0,
	    "getppid twice: other PCs");
	/* Another call takes another. */
	n3 = trace(SYS_uname, other);
	CHECK(n3 > 0 && n3 < COVER_SIZE, "uname: %lu PCs", (unsigned long)n3);
	for (uint64_t i = 0; i < n3 && n3 < COVER_SIZE; i++)
		differ |= !contains(first, n1, other[i]);
	CHECK(differ, "uname covers nothing getppid did not");
}

static void *
other_thread(void *arg)
{
	(void)arg;
	/* Not its kcov to disable; and its calls are not traced. */
	CHECK_ERR(ioctl(kcov_fd, KCOV_DISABLE, 0), EINVAL);
	for (int i = 0; i < OTHER_CALLS; i++)
		syscall(SYS_getppid);
	return NULL;
}

static void
check_order(int fd)
{
	CHECK_ERR(ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC), EINVAL);
	CHECK_ERR(mmap(NULL, COVER_SIZE * 8, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0), EINVAL);
	CHECK_ERR(ioctl(fd, KCOV_INIT_TRACE, 1), EINVAL);
	CHECK_ERR(ioctl(fd, KCOV_INIT_TRACE, 0x10000000UL), EINVAL);
	CHECK_OK(ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE));
	CHECK_ERR(ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE), EBUSY);
	CHECK_ERR(mmap(NULL, COVER_SIZE * 8 - 4096, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0), EINVAL);
	CHECK_ERR(mmap(NULL, COVER_SIZE * 8, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 4096), EINVAL);
	CHECK_ERR(ioctl(fd, KCOV_DISABLE, 0), EINVAL);
	CHECK_ERR(ioctl(fd, KCOV_ENABLE, KCOV_TRACE_CMP), ENOTSUPP);
	CHECK_ERR(ioctl(fd, KCOV_ENABLE, 7), EINVAL);
	CHECK_ERR(ioctl(fd, _IO('c', 99), 0), ENOTTY);
	CHECK_ERR(read(fd, first, 8), EINVAL);
}

/* A guest user is refused, as debugfs is root's on Linux. */
static void
check_user(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		_exit(open(KCOV_PATH, O_RDWR) < 0 && errno == EACCES ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "a guest user opened " KCOV_PATH);
}

int
main(int argc, char **argv)
{
	pthread_t t;
	uint64_t n;
	int second;

	if (argc > 1 && strcmp(argv[1], "absent") == 0) {
		/* debugfs is root's alone (0700): others meet EACCES first. */
		CHECK_ERR(open(KCOV_PATH, O_RDWR), geteuid() == 0 ? ENOENT :
		    EACCES);
		return guest_done();
	}
	kcov_fd = open(KCOV_PATH, O_RDWR);
	if (kcov_fd < 0 && argc > 1 && strcmp(argv[1], "present") == 0)
		CHECK(false, "open " KCOV_PATH);
	if (kcov_fd < 0)
		return argc > 1 ? guest_done() :
		    guest_skip("no KCOV here (errno %d)", errno);
	check_order(kcov_fd);
	cover = mmap(NULL, COVER_SIZE * 8, PROT_READ | PROT_WRITE, MAP_SHARED,
	    kcov_fd, 0);
	if (!CHECK(cover != MAP_FAILED, "mmap of the area"))
		return guest_done();
	CHECK_OK(ioctl(kcov_fd, KCOV_ENABLE, KCOV_TRACE_PC));
	/* Enabled is no longer ready; a thread has one kcov at a time. */
	CHECK_ERR(ioctl(kcov_fd, KCOV_ENABLE, KCOV_TRACE_PC), EINVAL);
	second = open(KCOV_PATH, O_RDWR);
	CHECK_OK(ioctl(second, KCOV_INIT_TRACE, COVER_SIZE));
	CHECK_ERR(ioctl(second, KCOV_ENABLE, KCOV_TRACE_PC), EBUSY);
	close(second);
	check_pcs();

	/*
	 * Another thread's calls leave nothing: what comes is this one's
	 * creating and joining it, less than half its getppids would.
	 */
	n = trace(SYS_getppid, first);
	__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
	if (CHECK(pthread_create(&t, NULL, other_thread, NULL) == 0, "thread"))
		pthread_join(t, NULL);
	CHECK(cover[0] < OTHER_CALLS * n / 2, "%lu PCs while another thread "
	    "made %d calls of %lu", (unsigned long)cover[0], OTHER_CALLS,
	    (unsigned long)n);

	CHECK_ERR(ioctl(kcov_fd, KCOV_DISABLE, 1), EINVAL);
	CHECK_OK(ioctl(kcov_fd, KCOV_DISABLE, 0));
	n = trace(SYS_getppid, first);
	CHECK_EQ(n, 0);
	/* Enabled again, and the file closed: it goes on until disabled. */
	CHECK_OK(ioctl(kcov_fd, KCOV_ENABLE, KCOV_TRACE_PC));
	close(kcov_fd);
	CHECK(trace(SYS_getppid, first) > 0, "nothing traced after close");
	check_user();
	return guest_done();
}
