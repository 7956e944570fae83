/*
 * Sockets whose both ends live in vkernel, inside: what unix_sock.c
 * (queues, data, connections made), unix_conn.c (AF_UNIX names),
 * unix_gc.c and the loopback AF_INET/AF_INET6 sockets (inet_sock.c)
 * share.  Behind the socket layer (socket.h), a usock is a struct
 * socket; a family's own socket may in turn begin with a usock.
 */
#ifndef VK_VFS_UNIX_SOCK_H
#define VK_VFS_UNIX_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vkern/vfs/socket.h"

#define SKB_OVERHEAD   512        /* what a message costs beyond its data */
#define DGRAM_QLEN     10         /* net.unix.max_dgram_qlen */

#define SHUT_RCV 1
#define SHUT_SND 2

enum usock_state { US_UNCONNECTED, US_LISTENING, US_CONNECTED };

struct proc;
struct usock;

/* What differs between the families that share these sockets. */
struct usock_proto {
	const struct sock_ops *ops;
	size_t size;              /* of the family's socket */
	/*
	 * Where a datagram (to dest, or to where so is connected if dest is
	 * NULL) goes: 0, or -errno.  0 with *tp NULL: it is lost, as a
	 * datagram to where no one listens.
	 */
	int (*dgram_target)(struct proc *p, struct usock *so,
	    const struct sockname *dest, struct usock **tp);
	/* so goes: forget its name, if it has one. */
	void (*unbind)(struct usock *so);
	/* The name a message from so shows target; NULL: so->name. */
	void (*from)(const struct usock *so, const struct usock *target,
	    struct sockname *sn);
	bool tcp;       /* shutdown(SHUT_RD) is the reader's own affair */
	bool lossy;     /* a datagram that finds no room is lost */
};

struct skb {
	struct skb *next;
	size_t len, off;          /* data bytes; bytes a stream has read */
	struct ucred cred;        /* the sender's */
	struct file **fds;        /* SCM_RIGHTS (referenced), or NULL */
	int nfds;
	struct sockname from;     /* the sender's name */
	uint8_t data[];
};

struct usock {
	struct socket sk;         /* first: what the socket layer sees */
	const struct usock_proto *proto;
	int refs;
	enum usock_state state;
	bool dead;                /* its file is closed */
	bool abort;               /* closing resets the connection */
	bool rst;                 /* the connection was reset */
	struct usock *peer;       /* referenced */
	struct skb *rq, **rq_tail;
	size_t rq_bytes;          /* queued data plus SKB_OVERHEAD each */
	int rq_count;
	int shut;                 /* SHUT_RCV, SHUT_SND */
	bool passcred;
	struct ucred peercred;    /* SO_PEERCRED */
	struct sockname name;     /* .len == 0: unbound */
	struct vnode *vn;         /* the socket node of a path name */
	struct usock *bound_next; /* the bound sockets */
	int backlog;              /* a listener: its queue of connections */
	struct usock *acceptq, **acceptq_tail;
	int nacc;
	struct usock *acc_next;
	int inflight;             /* references to fp in messages in queues */
	bool gc_alive;            /* unix_gc.c's mark */
	struct usock *all_next, **all_prev;   /* every socket */
};

extern struct usock *usock_all;

/* unix_sock.c */
/* The local socket of a socket, or of an open file: NULL if none. */
struct usock *usock_of(struct file *fp);
struct usock *usk(struct socket *sk);
void usock_wake(struct usock *so);
struct usock *usock_new(const struct usock_proto *pr, int family, int type,
    int protocol, const struct ucred *cred);
void usock_ref(struct usock *so);
void usock_rel(struct usock *so);
bool connection_based(const struct usock *so);
void pair_up(struct usock *a, struct usock *b);
void usock_purge(struct usock *so);
/*
 * Connect stream so to listener lis: queue a new server end on it (over
 * its backlog if over), or -EAGAIN to wait on *chanp while it is full.
 */
int usock_join(struct usock *so, struct usock *lis, const struct ucred *cred,
    bool over, const void **chanp);
/* The ops a family may share as they are. */
long usock_send(struct proc *p, struct socket *sk, size_t len,
    sock_copy_fn fill, void *arg, const struct sockname *dest,
    struct scm *scm, int flags, const void **chanp);
long usock_recv(struct socket *sk, size_t len, sock_copy_fn drain,
    void *arg, int flags, int *flagsp, struct sockname *from,
    struct scm *scm);
short usock_poll(struct socket *sk);
long usock_nread(struct socket *sk);
long usock_nwrite(struct socket *sk);
void usock_release(struct socket *sk);

/* unix_gc.c */
/* Count files going into (d = 1) or out of (d = -1) a queue. */
void usock_inflight(struct file *fp, int d);


/* unix_conn.c */
/* A sockaddr_un from the guest, checked: -EINVAL, -EAFNOSUPPORT. */
int uaddr_check(struct sockname *ua);
/* The socket bound to name ua, as connect and sendto find it. */
int find_bound(struct proc *p, const struct sockname *ua, int type,
    struct usock **sop);
int unix_dgram_target(struct proc *p, struct usock *so,
    const struct sockname *dest, struct usock **tp);
void unix_unbind(struct usock *so);
extern const struct usock_proto unix_proto;
int usock_bind(struct proc *p, struct socket *sk, const struct sockname *ua);
int usock_listen(struct socket *sk, int backlog, const struct ucred *cred);
int usock_connect(struct proc *p, struct socket *sk,
    const struct sockname *ua, const struct ucred *cred, bool nonblock,
    const void **chanp);
long usock_accept(struct socket *sk, unsigned oflags, struct file **fpp);
int usock_shutdown(struct socket *sk, int how);
int usock_name(struct socket *sk, bool peer, struct sockname *ua);

#endif
