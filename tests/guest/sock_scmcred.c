/*
 * SCM_CREDENTIALS a receiver with SO_PASSCRED gets when the sender gave
 * none: the sender's pid and real ids when it sent, not those it had
 * when the socket was made.  Root makes the sockets and drops to 65534
 * before it sends (by sendmsg and by write, on each socket type), so a
 * receiver that trusts the credentials must not see uid 0; claiming
 * root's ids then fails with EPERM.
 */
#include <errno.h>
#include <grp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "guest.h"

#define UNPRIV 65534

/* One message on fd with credentials that must be ours. */
static void
recv_creds(int fd, const char *how)
{
	char buf[8], ctl[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	struct ucred cr;

	CHECK_EQ(recvmsg(fd, &m, MSG_DONTWAIT), 1);
	c = CMSG_FIRSTHDR(&m);
	CHECK(c != NULL && c->cmsg_level == SOL_SOCKET &&
	    c->cmsg_type == SCM_CREDENTIALS, "%s: SCM_CREDENTIALS came", how);
	if (c == NULL)
		return;
	memcpy(&cr, CMSG_DATA(c), sizeof(cr));
	CHECK(cr.pid == getpid() && cr.uid == getuid() &&
	    cr.gid == getgid(), "%s: got pid %d uid %u gid %u, are %d %u %u",
	    how, (int)cr.pid, cr.uid, cr.gid, (int)getpid(), getuid(),
	    getgid());
}

int
main(void)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	char ctl[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { "x", 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct ucred root = { getpid(), 0, 0 };
	struct cmsghdr *c;
	int sv[3][2], on = 1;

	for (int i = 0; i < 3; i++) {
		CHECK_OK(socketpair(AF_UNIX, types[i], 0, sv[i]));
		CHECK_OK(setsockopt(sv[i][1], SOL_SOCKET, SO_PASSCRED, &on,
		    sizeof(on)));
	}
	if (geteuid() == 0) {
		CHECK_OK(setgroups(0, NULL));
		CHECK_OK(setresgid(UNPRIV, UNPRIV, UNPRIV));
		CHECK_OK(setresuid(UNPRIV, UNPRIV, UNPRIV));
	}
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(sendmsg(sv[i][0], &m, 0), 1);
		recv_creds(sv[i][1], "sendmsg");
		CHECK_EQ(write(sv[i][0], "y", 1), 1);
		recv_creds(sv[i][1], "write");
	}
	/* Root's ids are not ours to claim. */
	m.msg_control = ctl;
	m.msg_controllen = sizeof(ctl);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(root));
	memcpy(CMSG_DATA(c), &root, sizeof(root));
	CHECK_ERR(sendmsg(sv[1][0], &m, 0), EPERM);
	return guest_done();
}
