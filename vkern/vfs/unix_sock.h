/*
 * Local sockets inside: what unix_sock.c (queues, data, options) and
 * unix_conn.c (names and connections) share.
 */
#ifndef VK_VFS_UNIX_SOCK_H
#define VK_VFS_UNIX_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vkern/vfs/socket.h"

#define SKB_OVERHEAD   512        /* what a message costs beyond its data */
#define SOCKBUF_DEF    212992     /* net.core.[rw]mem_default */
#define SOCKBUF_MAX    212992     /* net.core.[rw]mem_max */
#define SNDBUF_MIN     4608
#define RCVBUF_MIN     2304
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
	struct uaddr from;        /* the sender's name */
	uint8_t data[];
};

struct usock {
	int refs;
	int type;
	enum usock_state state;
	bool dead;                /* its file is closed */
	struct usock *peer;       /* referenced */
	struct skb *rq, **rq_tail;
	size_t rq_bytes;          /* queued data plus SKB_OVERHEAD each */
	int rq_count;
	int shut;                 /* SHUT_RCV, SHUT_SND */
	int error;                /* SO_ERROR, taken by the next call */
	int sndbuf, rcvbuf;
	int64_t sndtimeo, rcvtimeo;   /* ns; 0: none */
	bool passcred;
	uint32_t optflags;        /* 1 << SO_REUSEADDR and such: kept only */
	int priority, rcvlowat;   /* kept only */
	struct linger linger;     /* kept only */
	struct ucred cred;        /* the creator's, for write(2) */
	struct ucred peercred;    /* SO_PEERCRED */
	uint64_t ino;
	struct uaddr name;        /* .len == 0: unbound */
	struct vnode *vn;         /* the socket node of a path name */
	struct usock *bound_next; /* the bound sockets */
	int backlog;              /* a listener: its queue of connections */
	struct usock *acceptq, **acceptq_tail;
	int nacc;
	struct usock *acc_next;
	struct file *fp;          /* its open file, while it has one */
	int inflight;             /* references to fp in messages in queues */
	bool gc_alive;            /* unix_gc.c's mark */
	struct usock *all_next, **all_prev;   /* every socket */
};

extern struct usock *usock_all;

/* unix_sock.c */
void usock_wake(struct usock *so);
struct usock *usock_new(int type, const struct ucred *cred);
void usock_ref(struct usock *so);
void usock_rel(struct usock *so);
bool connection_based(const struct usock *so);
struct file *usock_file(struct usock *so, unsigned oflags);
void pair_up(struct usock *a, struct usock *b);
void usock_purge(struct usock *so);

/* unix_gc.c */
/* Count files going into (d = 1) or out of (d = -1) a queue. */
void usock_inflight(struct file *fp, int d);


/* unix_conn.c */
/* The socket bound to name ua, as connect and sendto find it. */
int find_bound(struct proc *p, const struct uaddr *ua, int type,
    struct usock **sop);
void unbind(struct usock *so);

#endif
