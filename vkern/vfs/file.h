/*
 * Open files and file descriptor tables.
 *
 * An open file (struct file) is what open(2) makes: a file, an offset, the
 * open flags.  dup() and fork() share it, with its offset; each fd table
 * slot holds a reference and its own close-on-exec flag.  The file's ops
 * are its vnode's (vn_fileops) or a special kind's (the console).
 */
#ifndef VK_VFS_FILE_H
#define VK_VFS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

struct fdtable;
struct file;
struct mntns;
struct proc;
struct vattr;
struct vnode;

struct file_ops {
	/* I/O at *offp (the file's offset, or pread's), advancing it. */
	long (*read)(struct file *fp, void *buf, size_t len, uint64_t *offp);
	long (*write)(struct file *fp, const void *buf, size_t len,
	    uint64_t *offp);
	int (*stat)(struct file *fp, struct vattr *va);
	void (*close)(struct file *fp);
	/*
	 * A descriptor of fp in table t closes, whether or not it was the
	 * last (Linux's flush): close(2), dup2 over it, close-on-exec, exit.
	 * NULL: nothing to do.
	 */
	void (*flush)(struct file *fp, const struct fdtable *t);
	/* Readiness now, as poll(2)'s revents; NULL: always ready. */
	short (*poll)(struct file *fp);
	/* A blocking write goes on until all of it is written (a stream). */
	bool whole_writes;
	/*
	 * fsync(2) of it succeeds: files of a file system and sockets.
	 * The others (pipes, terminals, eventfds...) are EINVAL, as Linux's
	 * files without an fsync.
	 */
	bool syncs;
};

/*
 * The channel every file kind wakes, through poll_wake(), when its
 * readiness may change; poll_generation counts those changes.
 */
extern const int poll_chan;
extern uint64_t poll_generation;
void poll_wake(void);

/*
 * For the kinds of file that are no file (eventfd, timerfd, signalfd,
 * epoll, pidfd): what they answer to the calls they do not serve.
 */
long anon_read_einval(struct file *fp, void *buf, size_t len,
    uint64_t *offp);
long anon_write_einval(struct file *fp, const void *buf, size_t len,
    uint64_t *offp);
int anon_stat(struct file *fp, struct vattr *va);
#define ANON_INODE_INO 1
#define ANON_INODE_DEV 0x0d

/* A write whose reader has gone: EPIPE, and SIGPIPE to the writer. */
struct thread;
long file_epipe(struct thread *td);

/* fp's readiness for events (POLLERR and POLLHUP always count). */
short file_poll(struct file *fp, short events);

/*
 * Who gets a file's signal-driven I/O signal (fcntl_owner.c): type is an
 * F_OWNER_* and id 0 is no one; sig is F_SETSIG's (0: SIGIO).
 */
struct fown {
	int type, id, sig;
	uint32_t uid, euid;     /* who set the owner: whose right it signals */
	int fd;                 /* si_fd: the fd O_ASYNC was set through */
	short ready;            /* the readiness last seen */
	bool arrived;           /* data came in since fown_poll() looked */
	struct file *next;      /* on the list of async files */
};

struct file {
	int refs;
	const struct file_ops *ops;
	struct vnode *vn;       /* NULL for files without one */
	uint64_t off;
	unsigned flags;         /* O_ACCMODE, O_APPEND, O_NONBLOCK, ... */
	char *path;             /* the guest path it was opened by */
	int console_fd;         /* the host fd a console file reads, or -1 */
	bool seekable;
	bool fresh;             /* made, not yet in an fd table */
	const void *chan;       /* what a blocked read or write waits on */
	uint64_t version;       /* a FIFO's: its writer opens when it opened */
	void *data;
	/* open_tree(2)'s OPEN_TREE_CLONE: the tree it holds, or NULL. */
	struct mntns *tree;
	struct fown own;
	LIST_HEAD(, epitem) epitems;  /* the epoll items watching it */
};

/*
 * An fd table, shared by the processes that clone made with CLONE_FILES
 * (refs counts them).  open has a bit per fd in use (files[fd] != NULL),
 * cloexec one per close-on-exec fd (only open ones), full a bit per word
 * of open whose 64 fds are all in use.
 */
struct fdtable {
	struct file **files;
	uint64_t *open;
	uint64_t *cloexec;
	uint64_t *full;
	int n;                  /* slots: a multiple of 64 */
	int refs;
};

extern const struct file_ops vn_fileops;

/*
 * fcntl_owner.c.  fown_fcntl() serves F_GETOWN, F_SETOWN, F_GETOWN_EX,
 * F_SETOWN_EX, F_GETSIG and F_SETSIG.  fown_setfl() follows F_SETFL
 * (through fd) changing O_ASYNC; fown_close() forgets a file that goes.
 * fown_poll() signals the owners of async files that became ready: every
 * poll_wake() calls it.  fown_arrived() says that data came in for the
 * readers of chan (a pipe, a local socket), which Linux signals every
 * time, ready before or not; a poll_wake() must follow.  fown_urgent()
 * sends the owner of a socket's file SIGURG for urgent data.
 */
long fown_fcntl(struct thread *td, struct file *fp, int cmd, uint64_t arg);
void fown_setfl(struct file *fp, int fd);
void fown_close(struct file *fp);
void fown_poll(void);
void fown_arrived(const void *chan);
void fown_urgent(const struct file *fp);

/* epoll.c: the file's last reference went; its epoll items go too. */
void epoll_file_gone(struct file *fp);

/*
 * The sandbox's most open files (--fds): fd_alloc refuses a new file
 * beyond it with ENFILE.
 */
extern uint64_t file_max;

/* A new file with one reference; takes over the vnode reference. */
struct file *file_alloc(const struct file_ops *ops, struct vnode *vn,
    unsigned flags, const char *path);
void file_ref(struct file *fp);
void file_rel(struct file *fp);
/* How many files the sandbox holds: a leaked reference shows here. */
uint64_t file_nlive(void);

/* Whether the file may be read or written, from its open flags. */
bool file_readable(const struct file *fp);
bool file_writable(const struct file *fp);

/*
 * Install fp at the lowest free fd >= minfd (below limit).  Takes over
 * the reference.  Returns the fd, -EMFILE (none free, or minfd >= limit),
 * -ENFILE (fp is new and the sandbox holds file_max files) or -EINVAL
 * (minfd < 0).  The table grows, never past limit rounded up
 * to 64 slots.
 */
int fd_alloc(struct fdtable *t, struct file *fp, int minfd, int limit,
    bool cloexec);

/*
 * Install fp at fd, closing what was there.  Takes over the reference.
 * Returns fd, or -EBADF when fd is not in [0, limit).
 */
int fd_install(struct fdtable *t, int fd, struct file *fp, bool cloexec,
    int limit);

/*
 * The file at fd, not referenced (valid until the fd is closed), or NULL.
 * Any int is a fine fd here: a bad one is NULL.
 */
struct file *fd_get(struct fdtable *t, int fd);
/* The lowest open fd >= from, or -1. */
int fd_next(const struct fdtable *t, int from);
/* fd's close-on-exec flag (false for a closed fd); setting it: -EBADF. */
bool fd_cloexec(const struct fdtable *t, int fd);
int fd_set_cloexec(struct fdtable *t, int fd, bool on);
int fd_close(struct fdtable *t, int fd);
/* Close fd but hand its file's reference to the caller; NULL: EBADF. */
struct file *fd_take(struct fdtable *t, int fd);
/* Close, or with cloexec mark close-on-exec, the open fds first..last. */
void fd_close_range(struct fdtable *t, unsigned first, unsigned last,
    bool cloexec);
void fd_close_on_exec(struct fdtable *t);

/*
 * A new empty table, or a copy of t (each file referenced again), with
 * one reference.  fdt_rel() drops one: the last closes every fd.
 */
struct fdtable *fdt_alloc(void);
struct fdtable *fdt_copy(const struct fdtable *t);
void fdt_ref(struct fdtable *t);
void fdt_rel(struct fdtable *t);

#endif
