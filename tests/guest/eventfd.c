/* eventfd: counter reads and writes, semaphore mode, blocking and poll. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

int
main(void)
{
	uint64_t v = 0;
	struct pollfd p;
	int fd, sfd;
	pid_t c;

	fd = (int)CHECK_OK(eventfd(3, EFD_NONBLOCK));
	p = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
	CHECK_EQ(poll(&p, 1, 0), 1);
	CHECK_EQ(p.revents, POLLIN | POLLOUT);
	CHECK_EQ(read(fd, &v, sizeof(v)), 8);
	CHECK_EQ(v, 3);
	CHECK_ERR(read(fd, &v, sizeof(v)), EAGAIN);
	CHECK_ERR(read(fd, &v, 4), EINVAL);
	v = 5;
	CHECK_EQ(write(fd, &v, sizeof(v)), 8);
	CHECK_EQ(write(fd, &v, sizeof(v)), 8);
	CHECK_EQ(read(fd, &v, sizeof(v)), 8);
	CHECK_EQ(v, 10);
	v = UINT64_MAX;
	CHECK_ERR(write(fd, &v, sizeof(v)), EINVAL);
	v = UINT64_MAX - 1;
	CHECK_EQ(write(fd, &v, sizeof(v)), 8);
	v = 1;
	CHECK_ERR(write(fd, &v, sizeof(v)), EAGAIN);
	close(fd);
	/* Semaphore mode hands out one at a time. */
	sfd = (int)CHECK_OK(eventfd(2, EFD_SEMAPHORE));
	CHECK_EQ(read(sfd, &v, sizeof(v)), 8);
	CHECK_EQ(v, 1);
	CHECK_EQ(read(sfd, &v, sizeof(v)), 8);
	CHECK_EQ(v, 1);
	/* A blocked read wakes when another process writes. */
	if ((c = fork()) == 0) {
		uint64_t one = 7;

		usleep(50000);
		_exit(write(sfd, &one, sizeof(one)) == 8 ? 0 : 1);
	}
	CHECK_EQ(read(sfd, &v, sizeof(v)), 8);
	CHECK_EQ(v, 1);
	CHECK_EQ(waitpid(c, NULL, 0), c);
	CHECK_ERR(eventfd(0, 0x12345), EINVAL);
	close(sfd);
	return guest_done();
}
