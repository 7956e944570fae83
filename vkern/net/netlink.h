/*
 * Netlink requests as the kernel side answers them, apart from any
 * socket: a pure function from the bytes a guest sent to the datagrams it
 * will read back, so that the unit tests can drive it directly.
 *
 * NETLINK_ROUTE (netlink_route.c) answers RTM_GETLINK, RTM_GETADDR and
 * RTM_GETROUTE from the tables of net.h, as dumps (NLM_F_DUMP: every
 * match, then NLMSG_DONE) or single gets, and every other request as
 * Linux's rtnetlink does for a kernel that cannot change its network:
 * NLMSG_ERROR with the errno, or an ack when NLM_F_ACK asks for one.
 */
#ifndef VK_NET_NETLINK_H
#define VK_NET_NETLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The most one reply datagram holds: Linux's NLMSG_GOODSIZE on 4 KiB
 * pages, so that a reader with a page-sized buffer (glibc's) never
 * gets one cut.
 */
#define NL_GOODSIZE 3776

/* Who sent the request. */
struct nl_sender {
	uint32_t portid;         /* its socket's port id: the replies' pid */
	bool admin;              /* may change the network (CAP_NET_ADMIN) */
	bool cap_ack;            /* NETLINK_CAP_ACK: errors leave out the request */
	uint32_t uid;            /* its socket's owner, as RTA_UID shows it */
};

/*
 * Take one reply datagram of len bytes (len <= NL_GOODSIZE): 0, or
 * -errno to stop (the rest of the request is then dropped).
 */
typedef int (*nl_emit_fn)(void *arg, const void *dgram, size_t len);

/*
 * Answer the messages in buf[0..len) (kernel memory, 4-byte aligned), a
 * datagram sent to the kernel on a NETLINK_ROUTE socket, one after
 * another, as Linux's netlink_rcv_skb(): a message whose length is short
 * or runs past the end stops the walk silently; replies go to emit in
 * order.  Returns 0 or emit's error.
 */
int nlroute_input(const void *buf, size_t len, const struct nl_sender *who,
    nl_emit_fn emit, void *arg);

/*
 * The same for NETLINK_SOCK_DIAG (netlink_diag.c): SOCK_DIAG_BY_FAMILY
 * dumps and gets of the inet (TCP, UDP) and local sockets that exist, as
 * ss asks for them.
 */
int nldiag_input(const void *buf, size_t len, const struct nl_sender *who,
    nl_emit_fn emit, void *arg);

/*
 * netlink_sock.c, for the kernel's own messages to a socket (mq_notify's
 * SIGEV_THREAD).  nl_check: whether fp is a netlink socket (0), no socket
 * (-ENOTSOCK) or another kind (-EINVAL), as Linux's
 * netlink_getsockbyfilp().  nl_post: queue a datagram from the kernel
 * (port id 0) on the netlink socket fp: 0, or -ENOBUFS when it does not
 * fit in the receive buffer.
 */
struct file;
int nl_check(struct file *fp);
int nl_post(struct file *fp, const void *data, size_t len);

#endif
