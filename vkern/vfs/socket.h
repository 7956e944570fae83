/*
 * The socket layer: what every socket has, and the operations each
 * family supplies (as BSD's domain and protosw).
 *
 * sys_socket.c serves the calls: it checks what is family-independent,
 * copies names, data and control messages in and out of guest memory,
 * and hands the rest to the socket's sock_ops; socket.c makes the open
 * file, keeps the SOL_SOCKET options every socket has, and serves read,
 * write, poll, close and the common ioctls through the same ops.  The
 * families deal only in kernel buffers, open files and struct sockname.
 *
 * How a family plugs in:
 *  - it embeds struct socket as the FIRST member of its own socket, and
 *    casts back from the struct socket * its ops are given;
 *  - it defines one const struct sock_ops per kind of socket it makes
 *    (an op it leaves NULL answers as the comment on it says) and one
 *    const struct sock_family whose create (and pair) make sockets with
 *    sock_init() and turn them into files with sock_file();
 *  - it adds its sock_family to the families[] table in socket.c, by
 *    address family number; socket(2) on a family not there is
 *    EAFNOSUPPORT.
 *
 * A call that would wait returns -EAGAIN and says what to wait on
 * (*chanp; by default the socket itself); the caller parks the thread on
 * it and runs the call again when woken.  Whoever changes a socket's
 * readiness wakes it: sock_wake().
 */
#ifndef VK_VFS_SOCKET_H
#define VK_VFS_SOCKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

struct file;
struct proc;
struct thread;
struct socket;

#define SCM_MAX_FDS 253   /* SCM_MAX_FD: descriptors in one message */

/* A socket address of any family, as the guest gave it or will get it. */
struct sockname {
	union {
		struct sockaddr sa;
		struct sockaddr_un sun;
		struct sockaddr_in sin;
		struct sockaddr_in6 sin6;
		char raw[sizeof(struct sockaddr_storage) + 1];  /* + a NUL */
	};
	socklen_t len;    /* bytes that count */
};

/*
 * Moves n bytes between a message and where the caller keeps them: into
 * kbuf for a send, out of kbuf for a receive.  0 or -EFAULT.
 */
typedef int (*sock_copy_fn)(void *arg, void *kbuf, size_t n);

/* What travels beside the data: passed files and the sender's ids. */
struct scm {
	struct file *fds[SCM_MAX_FDS];   /* referenced */
	int nfds;
	struct ucred cred;
	bool has_cred;
};

/*
 * What a message carries unless its sender says otherwise: no files, and
 * the sender's pid and real ids as it sends (Linux's scm_send), not the
 * socket's, which may be from before the sender dropped its privileges.
 */
void scm_init(struct scm *scm, const struct proc *p);
void scm_release(struct scm *scm);

/*
 * The operations of one kind of socket.  Every op gets the socket the
 * family made; names have been copied in (at most the family's
 * addrlen_max bytes) but not checked.
 */
struct sock_ops {
	int (*bind)(struct proc *p, struct socket *so,
	    const struct sockname *sn);
	/* NULL: -EOPNOTSUPP. */
	int (*listen)(struct socket *so, int backlog,
	    const struct ucred *cred);
	/*
	 * 0, -EAGAIN to wait on *chanp and try again (only when the caller
	 * may wait: nonblock says it may not), or -errno.
	 */
	int (*connect)(struct proc *p, struct socket *so,
	    const struct sockname *sn, const struct ucred *cred,
	    bool nonblock, const void **chanp);
	/* The next connection as a new file: 0, -EAGAIN, -errno.  NULL:
	 * -EOPNOTSUPP. */
	long (*accept)(struct socket *so, unsigned oflags, struct file **fpp);
	/* how as the guest gave it: -EINVAL unless SHUT_RD/WR/RDWR. */
	int (*shutdown)(struct socket *so, int how);
	/* The socket's name, or its peer's (-ENOTCONN without one). */
	int (*name)(struct socket *so, bool peer, struct sockname *sn);
	/*
	 * Send len bytes, taken by fill (to dest, if not NULL): the count
	 * sent (a stream may send part), -EAGAIN when there is no room (wait
	 * on *chanp), -EPIPE (the caller raises SIGPIPE), or -errno.  On
	 * success the socket takes over scm's files.  p (to look dest up)
	 * may be NULL without dest.
	 */
	long (*send)(struct proc *p, struct socket *so, size_t len,
	    sock_copy_fn fill, void *arg, const struct sockname *dest,
	    struct scm *scm, int flags, const void **chanp);
	/*
	 * Receive up to len bytes, given to drain: the count (a datagram's
	 * whole length with MSG_TRUNC), 0 at end of stream, -EAGAIN with
	 * nothing there (wait on the socket).  *flagsp gets MSG_TRUNC for a
	 * cut datagram; from, if not NULL, the sender's name; scm the files
	 * and ids that came with it (the caller installs or releases them).
	 */
	long (*recv)(struct socket *so, size_t len, sock_copy_fn drain,
	    void *arg, int flags, int *flagsp, struct sockname *from,
	    struct scm *scm);
	/*
	 * Options the common SOL_SOCKET ones (socket.c) do not cover, at any
	 * level; -ENOPROTOOPT for an unknown one.  NULL: -ENOPROTOOPT at
	 * SOL_SOCKET, -EOPNOTSUPP at any other level.  *len/len is at most
	 * SOCK_OPTMAX.
	 */
	int (*getopt)(struct socket *so, int level, int name, void *val,
	    socklen_t *len);
	int (*setopt)(struct socket *so, int level, int name,
	    const void *val, socklen_t len);
	/*
	 * A SOL_SOCKET option socket.c keeps was set: the family may pass
	 * it on (a socket held elsewhere), 0 or -errno.  NULL: nothing.
	 */
	int (*setopt_common)(struct socket *so, int name, const void *val,
	    socklen_t len);
	/*
	 * socket.c is about to read a SOL_SOCKET option it keeps: the
	 * family brings so->error up to date.  NULL: it always is.
	 */
	void (*sync)(struct socket *so);
	/* FIONREAD and TIOCOUTQ: bytes to read, bytes sent and unread. */
	long (*nread)(struct socket *so);
	long (*nwrite)(struct socket *so);
	/*
	 * Any other ioctl, with the guest's argument: -ENOTTY for one it
	 * does not know.  NULL: -ENOTTY.
	 */
	long (*ioctl)(struct thread *td, struct socket *so, unsigned cmd,
	    uint64_t arg);
	/*
	 * Bytes sent that the peer has not taken in yet, for SO_LINGER's
	 * close to wait for (0 when there is no point: nothing sent, or the
	 * close resets the connection).  NULL: never any.
	 */
	long (*unsent)(struct socket *so);
	/* Readiness now, as poll(2)'s revents. */
	short (*poll)(struct socket *so);
	/* Its file is closed: the family drops the file's reference. */
	void (*release)(struct socket *so);
};

#define SOCK_OPTMAX 256   /* the longest option value a socket handles */

/*
 * What every socket has.  The family embeds it first in its own socket
 * and sets it up with sock_init(); socket.c serves SO_TYPE, SO_DOMAIN,
 * SO_PROTOCOL, SO_ERROR, SO_SNDBUF, SO_RCVBUF, the timeouts and the
 * flags kept here.
 */
struct socket {
	const struct sock_ops *ops;
	int family, type, protocol;
	int error;                /* SO_ERROR, taken by the next call */
	int sndbuf, rcvbuf;
	int64_t sndtimeo, rcvtimeo;   /* ns; 0: none */
	uint32_t optflags;        /* 1 << SO_REUSEADDR and such */
	int priority, rcvlowat;
	struct linger linger;
	struct ucred cred;        /* the creator's, for stat and write(2) */
	uint64_t ino;
	struct file *fp;          /* its open file, while it has one */
};

#define SOCKBUF_DEF    212992     /* net.core.[rw]mem_default */
#define SOCKBUF_MAX    212992     /* net.core.[rw]mem_max */
#define SNDBUF_MIN     4608
#define RCVBUF_MIN     2304

/*
 * A family: create makes a socket of (base type, protocol), with the
 * type's SOCK_* flags already taken off: 0 or -ESOCKTNOSUPPORT,
 * -EPROTONOSUPPORT and such.  pair (NULL: -EOPNOTSUPP) makes two
 * connected ones for socketpair(2).  The sockets come back without
 * files: the caller makes them with sock_file().
 */
struct sock_family {
	int family;
	socklen_t addrlen_max;    /* a longer name is -EINVAL */
	int (*create)(int type, int protocol, const struct ucred *cred,
	    struct socket **sop);
	int (*pair)(int type, int protocol, const struct ucred *cred,
	    struct socket *sv[2]);
};

/* The family registered for af, or NULL. */
const struct sock_family *sock_family(int af);

/* Fill in the common part of a new socket. */
void sock_init(struct socket *so, const struct sock_ops *ops, int family,
    int type, int protocol, const struct ucred *cred);
/* The open file of so (which it refers to through so->fp while open). */
struct file *sock_file(struct socket *so, unsigned oflags);
bool file_is_socket(const struct file *fp);
/* The socket of an open file, or NULL if it is none. */
struct socket *sock_of(struct file *fp);
/* Readiness or state of so changed: wake its waiters and pollers. */
void sock_wake(struct socket *so);
/* SO_SNDTIMEO (send) or SO_RCVTIMEO in ns; 0 for none. */
int64_t sock_timeo(const struct socket *so, bool send);
/* -SO_ERROR, cleared; 0 without one. */
int sock_take_error(struct socket *so);

/* Park td until socket fp may be read (or written), or its timeout. */
long sock_wait(struct thread *td, struct file *fp, bool send);

/* get/setsockopt through the common options, then the family's. */
int sock_getopt(struct socket *so, int level, int name, void *val,
    socklen_t *len);
int sock_setopt(struct socket *so, int level, int name, const void *val,
    socklen_t len);
/* An int option's value, cut to *len bytes (which it may lower). */
int sock_put_int(void *val, socklen_t *len, int v);
/*
 * close(2) of fd when it is the last descriptor of a socket whose
 * SO_LINGER has a time and which has data the peer has not taken in:
 * takes fd out of the table and parks td until the data is in or the
 * time is up (-EPARKED), then closes it (0).  0 at once when there is
 * nothing to wait for: the caller closes fd as any other.
 */
long sock_close_linger(struct thread *td, int fd);

/* ioctl(2) on a socket: FIONREAD, TIOCOUTQ, then the family's. */
long sock_ioctl(struct thread *td, struct file *fp, unsigned cmd,
    uint64_t arg);

/*
 * Host network sockets (--net=host, hostnet.c): the event that handle h
 * is ready.
 */
void hostnet_ready(int h);

/*
 * Free local sockets that nothing but messages in queues nobody can read
 * any more refers to (unix_gc.c).
 */
void usock_gc(void);

#endif
