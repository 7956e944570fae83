/*
 * vmsplice(2) as Linux: user pages into a pipe's write end (a copy here;
 * SPLICE_F_GIFT accepted) and from a pipe's read end into user memory,
 * in iovec order; EBADF for a closed descriptor and for one that is not
 * a pipe, but 0 for nothing to move; EINVAL for unknown flags and for
 * more than IOV_MAX segments; EFAULT for a bad iovec array or buffer;
 * EAGAIN with SPLICE_F_NONBLOCK on an empty or full pipe; 0 at the end
 * of a pipe without writers; EPIPE without readers.  And the splice and
 * tee refusals of bad combinations.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "guest.h"

#ifndef IOV_MAX
#define IOV_MAX	1024
#endif

static long
raw_vmsplice(int fd, const void *iov, unsigned long n, unsigned flags)
{
	return syscall(SYS_vmsplice, fd, iov, n, flags);
}

static void
test_to_and_from_pipe(void)
{
	char a[] = "hello ", b[] = "world", out1[4], out2[16];
	struct iovec in[2] = { { a, 6 }, { b, 5 } };
	struct iovec out[2] = { { out1, 4 }, { out2, sizeof(out2) } };
	int p[2];

	CHECK_OK(pipe(p));
	CHECK_EQ(raw_vmsplice(p[1], in, 2, 0), 11);
	/*
	 * Linux's pipe keeps the pages themselves, vkernel's a copy: the
	 * buffers are left alone until read back.
	 */
	CHECK_EQ(raw_vmsplice(p[1], in, 1, SPLICE_F_GIFT), 6);
	memset(out2, 0, sizeof(out2));
	CHECK_EQ(raw_vmsplice(p[0], out, 2, 0), 17);
	CHECK(memcmp(out1, "hell", 4) == 0 && memcmp(out2, "o worldhello ",
	    13) == 0, "vmsplice read back: %.4s%.13s", out1, out2);
	/* Empty, writers left: EAGAIN without blocking. */
	CHECK_ERR(raw_vmsplice(p[0], out, 2, SPLICE_F_NONBLOCK), EAGAIN);
	/* Nothing to move: 0 at once. */
	CHECK_EQ(raw_vmsplice(p[0], out, 0, 0), 0);
	close(p[1]);
	CHECK_EQ(raw_vmsplice(p[0], out, 2, 0), 0);
	close(p[0]);
}

static void
test_full_and_broken(void)
{
	static char big[65536 * 2];
	struct iovec v = { big, sizeof(big) };
	int p[2];
	long n;

	CHECK_OK(pipe(p));
	n = raw_vmsplice(p[1], &v, 1, SPLICE_F_NONBLOCK);
	CHECK(n > 0 && n <= 65536, "fills the pipe: %ld", n);
	CHECK_ERR(raw_vmsplice(p[1], &v, 1, SPLICE_F_NONBLOCK), EAGAIN);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	CHECK_ERR(raw_vmsplice(p[1], &v, 1, 0), EPIPE);
	signal(SIGPIPE, SIG_DFL);
	close(p[1]);
}

static void
test_refusals(void)
{
	char buf[8] = "x", path[] = "/tmp/vk-vmsplice.XXXXXX";
	struct iovec v = { buf, 1 }, many[IOV_MAX + 1];
	struct iovec bad = { (void *)16, 1 };
	int p[2], fd;

	CHECK_OK(pipe(p));
	fd = (int)CHECK_OK(mkstemp(path));
	unlink(path);
	for (int i = 0; i <= IOV_MAX; i++)
		many[i] = v;
	CHECK_ERR(raw_vmsplice(p[1], &v, 1, 0x100), EINVAL);
	CHECK_ERR(raw_vmsplice(-1, &v, 1, 0), EBADF);
	CHECK_ERR(raw_vmsplice(1000, &v, 1, 0), EBADF);
	/* Not a pipe: EBADF, but only once there is something to move. */
	CHECK_ERR(raw_vmsplice(fd, &v, 1, 0), EBADF);
	CHECK_EQ(raw_vmsplice(fd, &v, 0, 0), 0);
	CHECK_ERR(raw_vmsplice(fd, many, IOV_MAX + 1, 0), EINVAL);
	CHECK_ERR(raw_vmsplice(p[1], many, IOV_MAX + 1, 0), EINVAL);
	CHECK_ERR(raw_vmsplice(p[1], (void *)16, 1, 0), EFAULT);
	CHECK_ERR(raw_vmsplice(p[1], &bad, 1, 0), EFAULT);
	CHECK_EQ(write(p[1], "abc", 3), 3);
	CHECK_ERR(raw_vmsplice(p[0], &bad, 1, 0), EFAULT);
	/* The bytes a bad buffer did not take are still there. */
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 3);
	/* splice and tee: bad descriptors, no pipe, a pipe to itself. */
	CHECK_ERR(splice(-1, NULL, p[1], NULL, 1, 0), EBADF);
	CHECK_ERR(splice(p[0], NULL, -1, NULL, 1, 0), EBADF);
	CHECK_ERR(splice(fd, NULL, fd, NULL, 1, 0), EINVAL);
	CHECK_ERR(splice(p[0], NULL, p[1], NULL, 1, 0x100), EINVAL);
	CHECK_ERR(splice(p[1], NULL, fd, NULL, 1, 0), EBADF);
	CHECK_ERR(tee(p[0], p[1], 1, 0), EINVAL);
	CHECK_ERR(tee(p[0], fd, 1, 0), EINVAL);
	CHECK_ERR(tee(-1, p[1], 1, 0), EBADF);
	close(fd);
	close(p[0]);
	close(p[1]);
}

static void
tests(void)
{
	test_to_and_from_pipe();
	test_full_and_broken();
	test_refusals();
}

int
main(void)
{
	return guest_main_twice(tests);
}
