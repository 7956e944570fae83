/*
 * A FIFO opened for reading without blocking before any writer came:
 * poll and select wait for a writer (no POLLHUP, so no readable end of
 * file yet), as Linux's pipe_poll(); once a writer has opened and closed
 * again, the reader sees its data and then POLLHUP.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/select.h>
#include <sys/stat.h>

#include "guest.h"

int
main(void)
{
	char dir[] = "/tmp/fifopoll.XXXXXX", path[64], c;
	struct timeval tv = { 0, 0 };
	struct pollfd pfd;
	fd_set rd;
	int r, w;

	if (!CHECK(mkdtemp(dir) != NULL, "mkdtemp"))
		return guest_done();
	snprintf(path, sizeof(path), "%s/f", dir);
	CHECK_OK(mkfifo(path, 0600));
	r = (int)CHECK_OK(open(path, O_RDONLY | O_NONBLOCK));
	pfd = (struct pollfd){ .fd = r, .events = POLLIN };
	CHECK_EQ(poll(&pfd, 1, 0), 0);
	CHECK_EQ(pfd.revents, 0);
	FD_ZERO(&rd);
	FD_SET(r, &rd);
	CHECK_EQ(select(r + 1, &rd, NULL, NULL, &tv), 0);
	w = (int)CHECK_OK(open(path, O_WRONLY | O_NONBLOCK));
	CHECK_EQ(write(w, "x", 1), 1);
	CHECK_EQ(poll(&pfd, 1, 0), 1);
	CHECK_EQ(pfd.revents, POLLIN);
	close(w);
	CHECK_EQ(poll(&pfd, 1, 0), 1);
	CHECK_EQ(pfd.revents, POLLIN | POLLHUP);
	CHECK_EQ(read(r, &c, 1), 1);
	CHECK_EQ(poll(&pfd, 1, 0), 1);
	CHECK_EQ(pfd.revents, POLLHUP);
	CHECK_EQ(read(r, &c, 1), 0);
	close(r);
	unlink(path);
	rmdir(dir);
	return guest_done();
}
