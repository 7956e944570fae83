/*
 * epoll items belong to (file, fd) pairs and live while the file does
 * (epoll(7), Q&A 6): an accept/close loop closes a watched descriptor and
 * gets the same number back for a new file, which the kernel may put where
 * the old one was.  The new file must add (never EEXIST), and epoll_wait
 * must report the live items only, each with its own data.  A file still
 * open through a dup or in a child keeps its item, and its events come;
 * when the last descriptor anywhere goes, the item goes with it.
 *
 * usage: epoll_reuse [-u]   (-u: as uid and gid 65534, when run as root)
 */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <grp.h>

#include "guest.h"

#define ROUNDS 1000

/*
 * A new file of kind k: *fd is the end to watch, *peer the descriptor
 * that makes it readable (for an eventfd, a dup of *fd).
 */
static bool
make(int k, int *fd, int *peer)
{
	int p[2];

	switch (k % 3) {
	case 0:
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, p) < 0)
			return false;
		break;
	case 1:
		if (pipe(p) < 0)
			return false;
		break;
	default:
		if ((p[0] = eventfd(0, 0)) < 0)
			return false;
		p[1] = dup(p[0]);
	}
	*fd = p[0];
	*peer = p[1];
	return true;
}

static void
poke(int peer)
{
	uint64_t one = 1;

	CHECK_EQ(write(peer, &one, sizeof(one)), sizeof(one));
}

static void
unmake(int fd, int peer)
{
	close(fd);
	close(peer);
}

/* epoll_wait must report exactly one event, with data want. */
static void
check_one(int ep, uint64_t want, int round)
{
	struct epoll_event out[4];
	int n = epoll_wait(ep, out, 4, 0);

	CHECK(n == 1 && out[0].data.u64 == want && out[0].events == EPOLLIN,
	    "round %d: %d events, data %llu, want %llu", round, n,
	    n > 0 ? (unsigned long long)out[0].data.u64 : 0ULL,
	    (unsigned long long)want);
}

static void
check_none(int ep, int round)
{
	struct epoll_event out[4];
	int n = epoll_wait(ep, out, 4, 0);

	CHECK(n == 0, "round %d: %d stale events, data %llu", round, n,
	    n > 0 ? (unsigned long long)out[0].data.u64 : 0ULL);
}

/*
 * Close a watched file and make a new one at the same number: the old
 * item is gone, the new file is not watched until it is added, and then
 * it adds.
 */
static void
check_reuse(int ep)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd, peer, nfd, npeer;

	for (int r = 0; r < ROUNDS; r++) {
		if (!CHECK(make(r, &fd, &peer), "make %d", r))
			return;
		ev.data.u64 = 1000000 + (uint64_t)r;
		CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
		poke(peer);
		check_one(ep, ev.data.u64, r);
		unmake(fd, peer);
		check_none(ep, r);
		if (!CHECK(make(r, &nfd, &npeer), "make %d again", r))
			return;
		CHECK_EQ(nfd, fd);
		poke(npeer);
		check_none(ep, r);
		ev.data.u64 = 2000000 + (uint64_t)r;
		CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, nfd, &ev));
		check_one(ep, ev.data.u64, r);
		CHECK_OK(epoll_ctl(ep, EPOLL_CTL_DEL, nfd, NULL));
		unmake(nfd, npeer);
	}
}

/*
 * Close one of two dups: the item stays and reports.  The other number
 * is a pair of its own.  Closing the last dup ends both.
 */
static void
check_dup(int ep)
{
	struct epoll_event ev = { .events = EPOLLIN }, out[4];
	int fd, peer, d, n;

	for (int r = 0; r < ROUNDS; r++) {
		if (!CHECK(make(r, &fd, &peer), "make %d", r))
			return;
		d = (int)CHECK_OK(dup(fd));
		ev.data.u64 = 3000000 + (uint64_t)r;
		CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
		CHECK_OK(close(fd));
		poke(peer);
		check_one(ep, ev.data.u64, r);
		CHECK_ERR(epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL), EBADF);
		CHECK_ERR(epoll_ctl(ep, EPOLL_CTL_MOD, d, &ev), ENOENT);
		ev.data.u64 = 4000000 + (uint64_t)r;
		CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, d, &ev));
		n = epoll_wait(ep, out, 4, 0);
		CHECK(n == 2 && out[0].data.u64 + out[1].data.u64 ==
		    7000000 + 2 * (uint64_t)r, "round %d: %d events", r, n);
		unmake(d, peer);
		check_none(ep, r);
	}
}

/*
 * A child holds the file after the parent closed it: the parent's item
 * stays and reports until the child exits, then it goes.
 */
static void
check_fork(int ep, int rounds)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd, peer, go[2], st;
	pid_t k;
	char c;

	for (int r = 0; r < rounds; r++) {
		if (!CHECK(make(r, &fd, &peer), "make %d", r) ||
		    CHECK_OK(pipe(go)) < 0)
			return;
		ev.data.u64 = 5000000 + (uint64_t)r;
		CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
		if ((k = fork()) == 0) {
			close(go[1]);
			(void)!read(go[0], &c, 1);
			_exit(0);
		}
		close(go[0]);
		close(fd);
		poke(peer);
		close(peer);
		check_one(ep, ev.data.u64, r);
		close(go[1]);
		CHECK_EQ(waitpid(k, &st, 0), k);
		CHECK_EQ(st, 0);
		check_none(ep, r);
	}
}

int
main(int argc, char **argv)
{
	int ep;

	if (argc > 1 && strcmp(argv[1], "-u") == 0 && getuid() == 0) {
		CHECK_OK(setgroups(0, NULL));
		CHECK_OK(setresgid(65534, 65534, 65534));
		CHECK_OK(setresuid(65534, 65534, 65534));
	}
	ep = (int)CHECK_OK(epoll_create1(EPOLL_CLOEXEC));

	check_reuse(ep);
	check_dup(ep);
	check_fork(ep, ROUNDS / 10);
	close(ep);
	return guest_done();
}
