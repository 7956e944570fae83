/*
 * Local (AF_UNIX) sockets: the interface between the socket calls
 * (sys_socket.c) and the sockets themselves (unix_sock.c).
 *
 * The calls copy guest memory in and out; the sockets deal only in
 * kernel buffers, open files and sockaddr_un names.  A call that would
 * wait returns -EAGAIN; the caller parks the thread on usock_chan() (or
 * on the target's, for a datagram) and retries.
 */
#ifndef VK_VFS_SOCKET_H
#define VK_VFS_SOCKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

struct file;
struct proc;
struct usock;

#define SCM_MAX_FDS 253   /* SCM_MAX_FD: descriptors in one message */

/* A name: a path, an abstract name (sun_path[0] == 0) or none. */
struct uaddr {
	union {
		struct sockaddr_un sun;
		char raw[sizeof(struct sockaddr_un) + 1];   /* room for a NUL */
	};
	socklen_t len;    /* bytes of sun that count */
};

/*
 * Moves n bytes between a message and where the caller keeps them: into
 * kbuf for a send, out of kbuf for a receive.  0 or -EFAULT.
 */
typedef int (*usock_copy_fn)(void *arg, void *kbuf, size_t n);

/* What travels beside the data: passed files and the sender's ids. */
struct scm {
	struct file *fds[SCM_MAX_FDS];   /* referenced */
	int nfds;
	struct ucred cred;
	bool has_cred;
};

void scm_release(struct scm *scm);

struct thread;

bool file_is_socket(const struct file *fp);
/* Park td until socket fp may be read (or written), or its timeout. */
long sock_wait(struct thread *td, struct file *fp, bool send);
struct usock *usock_of(struct file *fp);
const void *usock_chan(const struct usock *so);
int usock_type(const struct usock *so);

/*
 * A new socket (type SOCK_STREAM, SOCK_DGRAM or SOCK_SEQPACKET) made by
 * the holder of cred.
 */
struct file *usock_create(int type, unsigned oflags,
    const struct ucred *cred);
/* Connect two new sockets, as socketpair(2). */
void usock_connect_pair(struct file *a, struct file *b);
/* SO_SNDTIMEO (send) or SO_RCVTIMEO in ns; 0 for none. */
int64_t usock_timeo(const struct usock *so, bool send);

/* A sockaddr_un from the guest, checked: -EINVAL, -EAFNOSUPPORT. */
int uaddr_check(struct uaddr *ua);

int usock_bind(struct proc *p, struct usock *so, const struct uaddr *ua);
int usock_listen(struct usock *so, int backlog, const struct ucred *cred);
/* Connect: 0, -EAGAIN while the listener's queue is full, or -errno. */
int usock_connect(struct proc *p, struct usock *so, const struct uaddr *ua,
    const struct ucred *cred, const void **chanp);
/* The next connection on a listening socket, or -EAGAIN, -EINVAL. */
long usock_accept(struct usock *so, unsigned oflags, struct file **fpp);
int usock_shutdown(struct usock *so, int how);

/* The socket's name, or its peer's (-ENOTCONN without one). */
int usock_name(struct usock *so, bool peer, struct uaddr *ua);

/*
 * Send len bytes, taken by fill (to dest, for an unconnected datagram
 * socket): the count sent (a stream may send part), -EAGAIN when there
 * is no room, -EPIPE, -ENOTCONN, -ECONNREFUSED, -EMSGSIZE, -EFAULT.  On
 * success the socket takes over scm's files.  *chanp: what to wait on
 * for room.  p (for dest's lookup) may be NULL without dest.
 */
long usock_send(struct proc *p, struct usock *so, size_t len,
    usock_copy_fn fill, void *arg, const struct uaddr *dest,
    struct scm *scm, const void **chanp);

/*
 * Receive up to len bytes, given to drain: the count (a datagram's whole
 * length with MSG_TRUNC), 0 at end of stream, -EAGAIN with nothing
 * there.  *flagsp gets MSG_TRUNC for a cut datagram; from, if not NULL,
 * the sender's name; scm the files and ids that came with it (the
 * caller installs or releases them).
 */
long usock_recv(struct usock *so, size_t len, usock_copy_fn drain,
    void *arg, int flags, int *flagsp, struct uaddr *from, struct scm *scm);

/*
 * Free sockets that nothing but messages in queues nobody can read any
 * more refers to (unix_gc.c).
 */
void usock_gc(void);

/* Bytes a read would get now: FIONREAD. */
long usock_nread(struct usock *so);
/* Bytes sent and not yet read: TIOCOUTQ. */
long usock_nwrite(struct usock *so);

int usock_getopt(struct usock *so, int name, void *val, socklen_t *len);
int usock_setopt(struct usock *so, int name, const void *val,
    socklen_t len);

#endif
