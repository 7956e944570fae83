/*
 * Local (AF_UNIX) sockets inside: what unix_sock.c (queues, data,
 * options), unix_conn.c (names and connections) and unix_gc.c share.
 * Behind the socket layer (socket.h), a usock is a struct socket.
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
	int refs;
	enum usock_state state;
	bool dead;                /* its file is closed */
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
struct usock *usock_new(int type, const struct ucred *cred);
void usock_ref(struct usock *so);
void usock_rel(struct usock *so);
bool connection_based(const struct usock *so);
void pair_up(struct usock *a, struct usock *b);
void usock_purge(struct usock *so);

/* unix_gc.c */
/* Count files going into (d = 1) or out of (d = -1) a queue. */
void usock_inflight(struct file *fp, int d);


/* unix_conn.c */
/* A sockaddr_un from the guest, checked: -EINVAL, -EAFNOSUPPORT. */
int uaddr_check(struct sockname *ua);
/* The socket bound to name ua, as connect and sendto find it. */
int find_bound(struct proc *p, const struct sockname *ua, int type,
    struct usock **sop);
void unbind(struct usock *so);
int usock_bind(struct proc *p, struct socket *sk, const struct sockname *ua);
int usock_listen(struct socket *sk, int backlog, const struct ucred *cred);
int usock_connect(struct proc *p, struct socket *sk,
    const struct sockname *ua, const struct ucred *cred, bool nonblock,
    const void **chanp);
long usock_accept(struct socket *sk, unsigned oflags, struct file **fpp);
int usock_shutdown(struct socket *sk, int how);
int usock_name(struct socket *sk, bool peer, struct sockname *ua);

#endif
