/*
 * Local sockets: socketpair of each type, names (paths and abstract),
 * listen/connect/accept, datagrams between named sockets, passing
 * descriptors, credentials, shutdown and close as the peer sees them,
 * readiness, blocking across processes, timeouts and the errnos.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

static volatile sig_atomic_t got_sigpipe;

static void
on_sigpipe(int sig)
{
	(void)sig;
	got_sigpipe++;
}

static socklen_t
path_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	strcpy(sa->sun_path, path);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    strlen(path) + 1);
}

static socklen_t
abstract_addr(struct sockaddr_un *sa, const char *name)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path + 1, name, strlen(name));
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(name));
}

static short
revents(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

static void
test_stream_pair(void)
{
	char buf[64];
	int sv[2], v;
	socklen_t len = sizeof(v);

	CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	CHECK_EQ(revents(sv[0], POLLIN | POLLOUT), POLLOUT);
	CHECK_EQ(write(sv[0], "hello ", 6), 6);
	CHECK_EQ(send(sv[0], "world", 5, 0), 5);
	CHECK_EQ(revents(sv[1], POLLIN), POLLIN);
	CHECK_OK(ioctl(sv[1], FIONREAD, &v));
	CHECK_EQ(v, 11);
	/* A stream reads across writes; MSG_PEEK leaves the bytes. */
	CHECK_EQ(recv(sv[1], buf, 3, MSG_PEEK), 3);
	CHECK(memcmp(buf, "hel", 3) == 0, "peeked %.3s", buf);
	CHECK_EQ(read(sv[1], buf, sizeof(buf)), 11);
	CHECK(memcmp(buf, "hello world", 11) == 0, "read %.11s", buf);
	CHECK_EQ(recv(sv[1], buf, 1, MSG_DONTWAIT), -1);
	CHECK_EQ(errno, EAGAIN);
	CHECK_OK(getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &v, &len));
	CHECK_EQ(v, SOCK_STREAM);
	CHECK_OK(getsockopt(sv[0], SOL_SOCKET, SO_DOMAIN, &v, &len));
	CHECK_EQ(v, AF_UNIX);
	/* The other end goes: its data is read, then end of stream. */
	CHECK_EQ(write(sv[1], "bye", 3), 3);
	CHECK_OK(shutdown(sv[1], SHUT_WR));
	CHECK(revents(sv[0], POLLIN | POLLRDHUP) == (POLLIN | POLLRDHUP),
	    "shut down peer: POLLIN|POLLRDHUP");
	CHECK_EQ(read(sv[0], buf, sizeof(buf)), 3);
	CHECK_EQ(read(sv[0], buf, sizeof(buf)), 0);
	CHECK_EQ(write(sv[0], "x", 1), 1);   /* the other way still works */
	CHECK_EQ(read(sv[1], buf, 1), 1);
	close(sv[1]);
	CHECK(revents(sv[0], POLLIN) & POLLHUP, "closed peer: POLLHUP");
	CHECK_EQ(read(sv[0], buf, sizeof(buf)), 0);
	got_sigpipe = 0;
	CHECK_ERR(write(sv[0], "x", 1), EPIPE);
	CHECK_EQ(got_sigpipe, 1);
	CHECK_ERR(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE);
	CHECK_EQ(got_sigpipe, 1);
	close(sv[0]);

	/* Unread data at close: the peer gets ECONNRESET once, then EOF. */
	CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	CHECK_EQ(write(sv[0], "lost", 4), 4);
	close(sv[1]);
	CHECK_ERR(read(sv[0], buf, sizeof(buf)), ECONNRESET);
	CHECK_EQ(read(sv[0], buf, sizeof(buf)), 0);
	close(sv[0]);
}

static void
test_packets(void)
{
	char buf[64];
	int sv[2], v;

	CHECK_OK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv));
	CHECK_EQ(fcntl(sv[0], F_GETFD), FD_CLOEXEC);
	CHECK_EQ(send(sv[0], "one", 3, 0), 3);
	CHECK_EQ(send(sv[0], "two!", 4, 0), 4);
	CHECK_OK(ioctl(sv[1], FIONREAD, &v));
	CHECK_EQ(v, 3);
	/* One datagram per read; what does not fit is lost. */
	CHECK_EQ(recv(sv[1], buf, 2, 0), 2);
	CHECK_EQ(recv(sv[1], buf, 2, MSG_TRUNC | MSG_PEEK), 4);
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), 0), 4);
	CHECK(memcmp(buf, "two!", 4) == 0, "second datagram %.4s", buf);
	CHECK_EQ(send(sv[0], "", 0, 0), 0);
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), 0), 0);
	close(sv[0]);
	close(sv[1]);

	CHECK_OK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv));
	CHECK_EQ(send(sv[0], "abcdef", 6, 0), 6);
	CHECK_EQ(send(sv[0], "gh", 2, 0), 2);
	{
		struct iovec iov = { buf, 4 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

		CHECK_EQ(recvmsg(sv[1], &m, 0), 4);
		CHECK(m.msg_flags & MSG_TRUNC, "a cut packet: MSG_TRUNC");
	}
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), 0), 2);
	close(sv[0]);
	CHECK_EQ(recv(sv[1], buf, sizeof(buf), 0), 0);
	close(sv[1]);
}

static void
test_pass_fds(void)
{
	char buf[16], ctl[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { buf, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	int sv[2], p[2], fds[2];
	struct ucred cr;
	socklen_t len = sizeof(cr);

	CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	CHECK_OK(pipe(p));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(c), p, sizeof(p));
	buf[0] = 'F';
	CHECK_EQ(sendmsg(sv[0], &m, 0), 1);
	close(p[0]);
	close(p[1]);
	memset(ctl, 0, sizeof(ctl));
	m.msg_controllen = sizeof(ctl);
	buf[0] = 0;
	CHECK_EQ(recvmsg(sv[1], &m, MSG_CMSG_CLOEXEC), 1);
	CHECK_EQ(buf[0], 'F');
	c = CMSG_FIRSTHDR(&m);
	CHECK(c != NULL && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(2 * sizeof(int)), "SCM_RIGHTS came");
	if (c != NULL) {
		memcpy(fds, CMSG_DATA(c), sizeof(fds));
		CHECK_EQ(fcntl(fds[0], F_GETFD), FD_CLOEXEC);
		/* The two ends are the same pipe. */
		CHECK_EQ(write(fds[1], "via", 3), 3);
		CHECK_EQ(read(fds[0], buf, sizeof(buf)), 3);
		close(fds[0]);
		close(fds[1]);
	}
	/* Bad descriptors in SCM_RIGHTS, and no room for the files. */
	c = CMSG_FIRSTHDR(&m);
	m.msg_controllen = sizeof(ctl);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	fds[0] = 999;
	memcpy(CMSG_DATA(c), fds, sizeof(int));
	CHECK_ERR(sendmsg(sv[0], &m, 0), EBADF);
	memcpy(CMSG_DATA(c), &sv[0], sizeof(int));
	CHECK_EQ(sendmsg(sv[0], &m, 0), 1);
	m.msg_controllen = 0;
	m.msg_control = NULL;
	CHECK_EQ(recvmsg(sv[1], &m, 0), 1);
	CHECK(m.msg_flags & MSG_CTRUNC, "no room for the file: MSG_CTRUNC");
	CHECK_OK(getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &cr, &len));
	CHECK_EQ(cr.pid, getpid());
	CHECK_EQ(cr.uid, geteuid());
	CHECK_EQ(cr.gid, getegid());
	close(sv[0]);
	close(sv[1]);
}

static void
test_credentials(void)
{
	char buf[8], ctl[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	struct ucred cr;
	int sv[2], on = 1;

	CHECK_OK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	CHECK_OK(setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)));
	CHECK_EQ(send(sv[0], "c", 1, 0), 1);
	CHECK_EQ(recvmsg(sv[1], &m, 0), 1);
	c = CMSG_FIRSTHDR(&m);
	CHECK(c != NULL && c->cmsg_type == SCM_CREDENTIALS,
	    "SO_PASSCRED: SCM_CREDENTIALS came");
	if (c != NULL) {
		memcpy(&cr, CMSG_DATA(c), sizeof(cr));
		CHECK_EQ(cr.pid, getpid());
		CHECK_EQ(cr.uid, geteuid());
	}
	close(sv[0]);
	close(sv[1]);
}

static void
test_listen_connect(const char *path)
{
	struct sockaddr_un sa, got;
	socklen_t len = path_addr(&sa, path), glen = sizeof(got);
	int lis, c, s, c2;
	char buf[8];
	struct stat st;

	unlink(path);
	lis = (int)CHECK_OK(socket(AF_UNIX, SOCK_STREAM, 0));
	CHECK_ERR(listen(lis, 5), EINVAL);   /* not bound */
	CHECK_OK(bind(lis, (struct sockaddr *)&sa, len));
	CHECK_OK(stat(path, &st));
	CHECK(S_ISSOCK(st.st_mode), "bind made a socket node");
	CHECK_OK(getsockname(lis, (struct sockaddr *)&got, &glen));
	CHECK_EQ(glen, len);
	CHECK(strcmp(got.sun_path, path) == 0, "getsockname: %s",
	    got.sun_path);
	c = (int)CHECK_OK(socket(AF_UNIX, SOCK_STREAM, 0));
	CHECK_ERR(connect(c, (struct sockaddr *)&sa, len), ECONNREFUSED);
	CHECK_OK(listen(lis, 5));
	CHECK_EQ(revents(lis, POLLIN), 0);
	CHECK_OK(connect(c, (struct sockaddr *)&sa, len));
	CHECK_ERR(connect(c, (struct sockaddr *)&sa, len), EISCONN);
	CHECK_EQ(revents(lis, POLLIN), POLLIN);
	/* Data sent before accept waits for the accepted end. */
	CHECK_EQ(write(c, "early", 5), 5);
	glen = sizeof(got);
	s = (int)CHECK_OK(accept4(lis, (struct sockaddr *)&got, &glen,
	    SOCK_NONBLOCK));
	CHECK_EQ(glen, sizeof(sa_family_t));   /* the client has no name */
	CHECK(fcntl(s, F_GETFL) & O_NONBLOCK, "accept4 SOCK_NONBLOCK");
	CHECK_EQ(read(s, buf, sizeof(buf)), 5);
	glen = sizeof(got);
	CHECK_OK(getpeername(c, (struct sockaddr *)&got, &glen));
	CHECK(strcmp(got.sun_path, path) == 0, "getpeername: %s",
	    got.sun_path);
	CHECK_ERR(read(s, buf, 1), EAGAIN);
	/* A client gone before accept still has its (empty) name reported. */
	c2 = (int)CHECK_OK(socket(AF_UNIX, SOCK_STREAM, 0));
	CHECK_OK(connect(c2, (struct sockaddr *)&sa, len));
	close(c2);
	memset(&got, 0xa5, sizeof(got));
	glen = sizeof(got);
	c2 = (int)CHECK_OK(accept(lis, (struct sockaddr *)&got, &glen));
	CHECK_EQ(glen, sizeof(sa_family_t));
	CHECK_EQ(got.sun_family, AF_UNIX);
	close(c2);
	/* A second listener on the name is refused; a new one after unlink. */
	c2 = (int)CHECK_OK(socket(AF_UNIX, SOCK_STREAM, 0));
	CHECK_ERR(bind(c2, (struct sockaddr *)&sa, len), EADDRINUSE);
	close(c2);
	c2 = (int)CHECK_OK(socket(AF_UNIX, SOCK_DGRAM, 0));
	CHECK_ERR(connect(c2, (struct sockaddr *)&sa, len), EPROTOTYPE);
	close(c2);
	close(lis);
	c2 = (int)CHECK_OK(socket(AF_UNIX, SOCK_STREAM, 0));
	CHECK_ERR(connect(c2, (struct sockaddr *)&sa, len), ECONNREFUSED);
	close(c2);
	CHECK_OK(unlink(path));
	close(s);
	close(c);
}

/* A server in the parent, a client in a child that is sent a file. */
static void
test_across_fork(void)
{
	struct sockaddr_un sa;
	socklen_t len = abstract_addr(&sa, "vk-sock-test");
	int lis, s, st;
	char buf[32];
	pid_t pid;

	lis = (int)CHECK_OK(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
	CHECK_OK(bind(lis, (struct sockaddr *)&sa, len));
	CHECK_OK(listen(lis, 1));
	if ((pid = fork()) == 0) {
		int c = (int)socket(AF_UNIX, SOCK_STREAM, 0);
		struct ucred cr;
		socklen_t cl = sizeof(cr);
		size_t n = 1 << 20, sent;
		char *big = malloc(n);

		if (connect(c, (struct sockaddr *)&sa, len) < 0)
			_exit(2);
		if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0 ||
		    cr.pid != getppid())
			_exit(3);
		memset(big, 'b', n);
		/* A blocking stream write is whole. */
		sent = (size_t)write(c, big, n);
		_exit(sent == n ? 0 : 4);
	}
	s = (int)CHECK_OK(accept(lis, NULL, NULL));
	{
		struct ucred cr;
		socklen_t cl = sizeof(cr);
		size_t got = 0;
		ssize_t k;

		CHECK_OK(getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &cl));
		CHECK_EQ(cr.pid, pid);
		/* MSG_WAITALL waits for the whole buffer. */
		CHECK_EQ(recv(s, buf, sizeof(buf), MSG_WAITALL), sizeof(buf));
		got = sizeof(buf);
		while ((k = read(s, buf, sizeof(buf))) > 0)
			got += (size_t)k;
		CHECK_EQ(got, 1 << 20);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "client status %#x", st);
	close(s);
	close(lis);
}

static void
test_datagrams(const char *path)
{
	struct sockaddr_un sa, from;
	socklen_t len = path_addr(&sa, path), flen = sizeof(from);
	struct sockaddr_un ca;
	socklen_t clen = abstract_addr(&ca, "vk-dgram-client");
	int srv, cli;
	char buf[16];

	unlink(path);
	srv = (int)CHECK_OK(socket(AF_UNIX, SOCK_DGRAM, 0));
	CHECK_OK(bind(srv, (struct sockaddr *)&sa, len));
	cli = (int)CHECK_OK(socket(AF_UNIX, SOCK_DGRAM, 0));
	CHECK_ERR(send(cli, "x", 1, 0), ENOTCONN);
	CHECK_EQ(sendto(cli, "anon", 4, 0, (struct sockaddr *)&sa, len), 4);
	CHECK_EQ(recvfrom(srv, buf, sizeof(buf), 0, (struct sockaddr *)&from,
	    &flen), 4);
	CHECK_EQ(flen, 0);   /* an unbound sender has no name */
	CHECK_OK(bind(cli, (struct sockaddr *)&ca, clen));
	CHECK_OK(connect(cli, (struct sockaddr *)&sa, len));
	CHECK_EQ(send(cli, "named", 5, 0), 5);
	flen = sizeof(from);
	CHECK_EQ(recvfrom(srv, buf, sizeof(buf), 0, (struct sockaddr *)&from,
	    &flen), 5);
	CHECK_EQ(flen, clen);
	CHECK(memcmp(from.sun_path + 1, "vk-dgram-client", 15) == 0,
	    "the sender's abstract name");
	CHECK_EQ(sendto(srv, "back", 4, 0, (struct sockaddr *)&from, flen),
	    4);
	CHECK_EQ(recv(cli, buf, sizeof(buf), 0), 4);
	close(srv);
	CHECK_ERR(send(cli, "x", 1, 0), ECONNREFUSED);
	close(cli);
	unlink(path);
}

static void
on_alarm(int sig)
{
	(void)sig;
}

/* A signal ends a blocking stream write with the count it wrote. */
static void
test_interrupted_send(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, 50000 } };
	size_t n = 4 << 20;
	char *buf = calloc(1, n);
	long r;
	int sv[2];

	sigaction(SIGALRM, &sa, NULL);
	CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	CHECK_OK(setitimer(ITIMER_REAL, &it, NULL));
	r = write(sv[0], buf, n);
	CHECK(r > 0 && (size_t)r < n, "interrupted send wrote %ld", r);
	close(sv[0]);
	close(sv[1]);
	free(buf);
}

static void
test_timeout_and_errors(void)
{
	struct timeval tv = { 0, 50000 }, got;
	socklen_t len = sizeof(got);
	struct sockaddr_un sa;
	struct timespec t0, t1;
	int sv[2], fd, v;
	char c;

	CHECK_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	CHECK_OK(setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	CHECK_OK(getsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &got, &len));
	/* Linux keeps it in clock ticks: it may come back rounded up. */
	CHECK(got.tv_sec == 0 && got.tv_usec >= 50000 && got.tv_usec <= 60000,
	    "SO_RCVTIMEO back: %ld us", (long)got.tv_usec);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_ERR(read(sv[0], &c, 1), EAGAIN);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK((t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec -
	    t0.tv_nsec >= 40000000L, "SO_RCVTIMEO waited");
	tv.tv_usec = 1000000;
	CHECK_ERR(setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)),
	    EDOM);
	v = 1;
	CHECK_ERR(setsockopt(sv[0], SOL_SOCKET, 9999, &v, sizeof(v)),
	    ENOPROTOOPT);
	/* Options that change nothing here are still kept. */
	CHECK_OK(setsockopt(sv[0], SOL_SOCKET, SO_REUSEADDR, &v, sizeof(v)));
	len = sizeof(v);
	v = 0;
	CHECK_OK(getsockopt(sv[0], SOL_SOCKET, SO_REUSEADDR, &v, &len));
	CHECK_EQ(v, 1);
	CHECK_OK(getsockopt(sv[0], SOL_SOCKET, SO_KEEPALIVE, &v, &len));
	CHECK_EQ(v, 0);
	v = 1;
	CHECK_ERR(setsockopt(sv[0], 6 /* IPPROTO_TCP */, 1, &v, sizeof(v)), EOPNOTSUPP);
	CHECK_ERR(listen(sv[0], 1), EINVAL);
	CHECK_ERR(accept(sv[0], NULL, NULL), EINVAL);
	CHECK_ERR(lseek(sv[0], 0, SEEK_SET), ESPIPE);
	close(sv[0]);
	close(sv[1]);

	CHECK_ERR(socket(AF_UNIX, 6, 0), ESOCKTNOSUPPORT);
	CHECK_ERR(socket(AF_UNIX, SOCK_STREAM, 5), EPROTONOSUPPORT);
	CHECK_ERR(socket(AF_UNIX, SOCK_STREAM | 0x1000, 0), EINVAL);
	fd = (int)CHECK_OK(socket(AF_UNIX, SOCK_DGRAM, 0));
	CHECK_ERR(listen(fd, 1), EOPNOTSUPP);
	CHECK_ERR(getpeername(fd, (struct sockaddr *)&sa, &len), ENOTCONN);
	len = 1;
	CHECK_ERR(bind(fd, (struct sockaddr *)&sa, len), EINVAL);
	sa.sun_family = AF_INET;
	CHECK_ERR(bind(fd, (struct sockaddr *)&sa, 8), EINVAL);
	/* Binding the family alone picks a free abstract name. */
	sa.sun_family = AF_UNIX;
	CHECK_OK(bind(fd, (struct sockaddr *)&sa, sizeof(sa_family_t)));
	len = sizeof(sa);
	CHECK_OK(getsockname(fd, (struct sockaddr *)&sa, &len));
	CHECK_EQ(len, offsetof(struct sockaddr_un, sun_path) + 6);
	CHECK_EQ(sa.sun_path[0], 0);
	close(fd);
	path_addr(&sa, "/tmp/vk-no-such-socket");
	fd = (int)CHECK_OK(socket(AF_UNIX, SOCK_STREAM, 0));
	CHECK_ERR(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), ENOENT);
	CHECK_ERR(send(fd, "x", 1, 0), ENOTCONN);
	CHECK_ERR(shutdown(fd, 7), EINVAL);
	CHECK_ERR(recv(fd, &c, 1, 0), EINVAL);
	close(fd);
	fd = (int)CHECK_OK(open("/dev/null", O_RDONLY));
	CHECK_ERR(send(fd, "x", 1, 0), ENOTSOCK);
	CHECK_ERR(getsockname(fd, (struct sockaddr *)&sa, &len), ENOTSOCK);
	close(fd);
	CHECK_ERR(send(999, "x", 1, 0), EBADF);
	CHECK_ERR(socket(200, SOCK_STREAM, 0), EAFNOSUPPORT);
	CHECK_ERR(syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0,
	    (void *)16), EFAULT);
	fd = (int)CHECK_OK(socket(AF_UNIX, SOCK_DGRAM, 0));
	CHECK_ERR(syscall(SYS_recvmsg, fd, (void *)16, 0), EFAULT);
	/* A datagram's bytes are taken before its target is looked for. */
	CHECK_ERR(syscall(SYS_sendto, fd, (void *)16, 1, 0, NULL, 0), EFAULT);
	CHECK_ERR(send(fd, "x", 1, 0), ENOTCONN);
	close(fd);
}

int
main(void)
{
	char path[64], dpath[64];

	signal(SIGPIPE, on_sigpipe);
	snprintf(path, sizeof(path), "/tmp/vk-sock-%d", (int)getpid());
	snprintf(dpath, sizeof(dpath), "/tmp/vk-dgram-%d", (int)getpid());
	test_stream_pair();
	test_packets();
	test_pass_fds();
	test_credentials();
	test_listen_connect(path);
	test_across_fork();
	test_datagrams(dpath);
	test_interrupted_send();
	test_timeout_and_errors();
	return guest_done();
}
