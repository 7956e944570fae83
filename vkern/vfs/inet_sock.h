/*
 * AF_INET and AF_INET6 sockets on the guest's own loopback, inside: what
 * inet_sock.c (the family, data, options) and inet_conn.c (addresses,
 * ports, connections) share.
 *
 * Both ends of every connection and datagram live in vkernel, so an
 * inet socket is a local socket (unix_sock.h's usock: its queues, flow
 * control, accept queue and wake-ups) with Internet names: TCP is a
 * stream usock, UDP a lossy datagram one.  Addresses are kept in IPv6
 * form, an IPv4 one as v4-mapped (::ffff:a.b.c.d), so that one table of
 * bound ports serves both families and IPV6_V6ONLY.  Only 127.0.0.0/8,
 * ::1 and the wildcards are local: anything else has no route.
 */
#ifndef VK_VFS_INET_SOCK_H
#define VK_VFS_INET_SOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#include "vkern/vfs/unix_sock.h"

/* The kept options (inet_sock.c's table): their slots. */
#define INET_NOPTS 40
/* Groups a socket may join, per family: IP_MAX_MEMBERSHIPS. */
#define INET_MC_MAX 20

struct isock {
	struct usock u;           /* first: a local socket */
	struct in6_addr laddr;    /* its address: v4 as v4-mapped */
	struct in6_addr paddr;    /* its peer's, while connected */
	struct in6_addr src;      /* the source of the datagram being sent */
	uint16_t lport, pport;    /* host order; lport 0: unbound */
	bool bound;               /* on the list of bound sockets */
	bool autobound;           /* its port was picked, not asked for */
	bool connected;           /* paddr and pport are its peer's */
	bool connecting;          /* a non-blocking connect is not told done */
	bool refused;             /* a non-blocking connect found no one */
	bool shut_wr;             /* shutdown(SHUT_WR) was called */
	bool v6only;              /* IPV6_V6ONLY */
	int opt[INET_NOPTS];
	struct isock *bound_next;
	struct {                  /* the groups joined (inet_mcast.c) */
		int family, ifindex;
		uint8_t group[16];
	} mc[2 * INET_MC_MAX];
	int nmc;
	uint32_t mc_addr;         /* IP_MULTICAST_IF's address */
	int mc_index;             /* and interface */
	int mc6_index;            /* IPV6_MULTICAST_IF */
	struct {                  /* urgent data received (inet_urg.c) */
		bool mark;        /* a mark is in the stream, left bytes on */
		bool valid;       /* its byte is there for MSG_OOB */
		bool skipped;     /* its byte left the queue already */
		uint8_t byte;
		size_t left;
	} urg;
};

/*
 * net.ipv4.ip_local_port_range: where a port is picked (first <= last,
 * within 1..65535, or no port is picked at all).
 */
extern int inet_port_range[2];

struct isock *isk(struct socket *sk);

/* inet_conn.c */
int inet_bind(struct proc *p, struct socket *sk, const struct sockname *sn);
int inet_listen(struct socket *sk, int backlog, const struct ucred *cred);
int inet_connect(struct proc *p, struct socket *sk,
    const struct sockname *sn, const struct ucred *cred, bool nonblock,
    const void **chanp);
int inet_name(struct socket *sk, bool peer, struct sockname *sn);
int inet_dgram_target(struct proc *p, struct usock *so,
    const struct sockname *dest, struct usock **tp);
void inet_unbind(struct usock *so);
void inet_from(const struct usock *so, const struct usock *target,
    struct sockname *sn);

/*
 * inet_sock.c: the protocol of a socket(2) of base type type (0 taken as
 * TCP's or UDP's): 0, or the errno Linux gives (raw sockets: EPERM
 * without privilege, else there are none).
 */
int inet_proto(int type, int *protocol, const struct ucred *cred);

/*
 * inet_urg.c: TCP's urgent byte.  urg_sent: is sent its peer data with
 * MSG_OOB, whose last byte is urgent.  The rest serve the socket ops of
 * a connected stream: recv with MSG_OOB and without, poll (given what
 * the local socket reports), FIONREAD, and ioctl (SIOCATMARK).
 */
void urg_sent(struct isock *is);
long urg_recv_oob(struct isock *is, size_t len, sock_copy_fn drain,
    void *arg, int flags, int *flagsp);
long urg_recv(struct isock *is, size_t len, sock_copy_fn drain, void *arg,
    int flags, int *flagsp, struct scm *scm);
short urg_poll(struct isock *is, short r);
long urg_nread(struct isock *is);
long inet_ioctl(struct thread *td, struct socket *sk, unsigned cmd,
    uint64_t arg);

/*
 * inet_mcast.c: the multicast options at set and getsockopt; 1 for one
 * they are not.
 */
int mcast_setopt(struct isock *is, int level, int name, const void *val,
    socklen_t len);
int mcast_getopt(struct isock *is, int level, int name, void *val,
    socklen_t *len);

/* inet_sock.c: an accepted socket takes its listener's options. */
void inet_inherit(struct isock *is, const struct isock *lis);

#endif
