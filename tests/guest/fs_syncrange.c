/*
 * Verifies sync_file_range(2) as Linux: EBADF for a bad or O_PATH
 * descriptor, then EINVAL for unknown flags, a negative offset or length
 * and a range past the largest offset, then ESPIPE for pipes, sockets
 * and character devices; files, directories and memfds succeed.  And it
 * writes: stores to a shared mapping of a file in DIR (argv[1], /tmp by
 * default) are in the file seen through HOSTDIR (argv[2]), another view
 * of the same host directory, once sync_file_range returns.  As guest
 * root and as a user.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "guest.h"

#define P	GUEST_PAGE
#define ALL	(SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | \
	SYNC_FILE_RANGE_WAIT_AFTER)

static const char *dir = "/tmp", *hostdir;

static long
sfr(long fd, int64_t off, int64_t len, unsigned long flags)
{
	return syscall(SYS_sync_file_range, fd, off, len, flags);
}

static void
test_errors(void)
{
	long fd = CHECK_OK(open("/proc/self/exe", O_RDONLY));
	long opath = CHECK_OK(open("/proc/self/exe", O_PATH));
	long null = CHECK_OK(open("/dev/null", O_RDWR));
	int p[2], s[2];

	CHECK_ERR(sfr(-1, 0, 0, 0), EBADF);
	CHECK_ERR(sfr(-1, -1, 0, 8), EBADF);
	CHECK_ERR(sfr(opath, 0, 0, SYNC_FILE_RANGE_WRITE), EBADF);
	CHECK_ERR(sfr(fd, 0, 0, 8), EINVAL);
	CHECK_ERR(sfr(fd, 0, 0, ~0U), EINVAL);
	CHECK_ERR(sfr(fd, -1, 0, 0), EINVAL);
	CHECK_ERR(sfr(fd, 0, -1, SYNC_FILE_RANGE_WRITE), EINVAL);
	CHECK_ERR(sfr(fd, INT64_MAX, 1, 0), EINVAL);
	CHECK_ERR(sfr(fd, INT64_MAX - P, P + 1, 0), EINVAL);
	CHECK_OK(sfr(fd, INT64_MAX, 0, ALL));
	CHECK_OK(sfr(fd, INT64_MAX - P, P, ALL));
	CHECK_OK(sfr(fd, 0, 0, 0));
	CHECK_OK(pipe(p));
	CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, s));
	CHECK_ERR(sfr(p[0], 0, 0, 0), ESPIPE);
	CHECK_ERR(sfr(p[1], 0, 0, ALL), ESPIPE);
	CHECK_ERR(sfr(p[1], 0, 0, 8), EINVAL);
	CHECK_ERR(sfr(s[0], 0, 0, SYNC_FILE_RANGE_WRITE), ESPIPE);
	CHECK_ERR(sfr(null, 0, 0, SYNC_FILE_RANGE_WRITE), ESPIPE);
	close(p[0]);
	close(p[1]);
	close(s[0]);
	close(s[1]);
	close((int)null);
	close((int)opath);
	close((int)fd);
}

static void
test_kinds(void)
{
	long d = CHECK_OK(open(dir, O_RDONLY | O_DIRECTORY));
	long m = CHECK_OK(syscall(SYS_memfd_create, "sfr", 0));

	CHECK_OK(sfr(d, 0, 0, ALL));
	CHECK_OK(ftruncate((int)m, 4 * P));
	CHECK_OK(sfr(m, P, P, ALL));
	close((int)m);
	close((int)d);
}

/* Stores through a shared mapping reach the file itself. */
static void
test_writeback(void)
{
	char name[128], seen[128], buf[2 * P];
	struct timespec now;
	long fd, hfd;
	char *map;

	/* Sandboxes side by side have the same pids: the time tells apart. */
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(name, sizeof(name), "%s/vk_sfr.%d.%ld", dir, (int)getpid(),
	    now.tv_nsec);
	snprintf(seen, sizeof(seen), "%s/%s", hostdir != NULL ? hostdir : dir,
	    strrchr(name, '/') + 1);
	unlink(name);
	fd = CHECK_OK(open(name, O_RDWR | O_CREAT | O_EXCL, 0600));
	if (fd < 0)
		return;
	CHECK_OK(ftruncate((int)fd, 2 * P));
	map = mmap(NULL, 2 * P, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (!CHECK(map != MAP_FAILED, "mmap shared")) {
		close((int)fd);
		return;
	}
	memset(map, 'a', P);
	memset(map + P, 'b', P);
	CHECK_OK(sfr(fd, 0, 0, ALL));
	hfd = CHECK_OK(open(seen, O_RDONLY));
	CHECK_EQ(pread((int)hfd, buf, sizeof(buf), 0), (long)sizeof(buf));
	CHECK(buf[0] == 'a' && buf[P - 1] == 'a' && buf[P] == 'b' &&
	    buf[2 * P - 1] == 'b', "the stores are in the file: %c %c",
	    buf[0], buf[P]);
	/* A range of the second page only, and its write alone. */
	memset(map + P, 'c', P);
	CHECK_OK(sfr(fd, P, P, SYNC_FILE_RANGE_WRITE));
	CHECK_OK(sfr(fd, P, P, SYNC_FILE_RANGE_WAIT_AFTER));
	CHECK_EQ(pread((int)hfd, buf, sizeof(buf), 0), (long)sizeof(buf));
	CHECK(buf[0] == 'a' && buf[P] == 'c' && buf[2 * P - 1] == 'c',
	    "the range is in the file: %c %c", buf[0], buf[P]);
	close((int)hfd);
	munmap(map, 2 * P);
	close((int)fd);
	CHECK_OK(unlink(name));
}

static void
tests(void)
{
	test_errors();
	test_kinds();
	test_writeback();
}

int
main(int argc, char **argv)
{
	if (argc > 1)
		dir = argv[1];
	if (argc > 2)
		hostdir = argv[2];
	return guest_main_twice(tests);
}
