/*
 * The engine under procfs and sysfs: a file system described by a table.
 *
 * Each file, link or directory of the tree is one row of a spec table
 * (struct pfs_spec): its name, its directory, its mode and how its
 * content is made.  A node of the mounted file system is a row plus the
 * numbers that tell its instances apart: (kind, pid, arg), where kind is
 * the row's index, pid the process of a per-process row and arg the
 * thread id or the fd number.  Rows without a name are numbered entries
 * of their directory: the processes of /proc, the threads of task/, the
 * fds of fd/ and fdinfo/.
 *
 * Nothing is stored: every read, readlink and readdir asks the process
 * table again, so that a process that exits makes its files fail instead
 * of pointing at freed memory.  What is kept is one vnode per live node,
 * as the VFS requires, in a list keyed by (kind, pid, arg).
 *
 * Internal to vkern/vfs/procfs/; the public interface is procfs.h.
 */
#ifndef VK_VFS_PROCFS_PSEUDOFS_H
#define VK_VFS_PROCFS_PSEUDOFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct file;
struct mount;
struct proc;
struct vnode;

/* A growing text buffer: content is made whole, then sliced. */
struct sbuf {
	char *buf;
	size_t len, cap;
};

void sbuf_printf(struct sbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sbuf_append(struct sbuf *sb, const void *p, size_t n);
/* Append s with space, tab, newline and backslash as octal escapes. */
void sbuf_escape(struct sbuf *sb, const char *s);
void sbuf_free(struct sbuf *sb);

/* What the numbers of a node's key mean. */
enum pfs_scope {
	PFS_GLOBAL,     /* neither: one instance per mount */
	PFS_PROC,       /* pid */
	PFS_THREAD,     /* pid and arg = tid */
	PFS_FD,         /* pid and arg = fd */
	PFS_CPU,        /* arg = a CPU the guest sees */
};

/* The node a generator works for, checked to be alive just before. */
struct pfs_ctx {
	struct proc *p;         /* the process, unless PFS_GLOBAL */
	int pid;
	int arg;                /* the tid, fd or CPU of its scope */
};

/*
 * Make a file's content or a link's target into sb.  Returns 0 or
 * -errno (-ENOENT when there is nothing to show, as for a missing exe).
 */
typedef int (*pfs_gen_fn)(const struct pfs_ctx *c, struct sbuf *sb);

/*
 * Take a write of len bytes at buf (kernel memory) to a file, whatever
 * its offset.  Returns the bytes taken or -errno.
 */
typedef long (*pfs_write_fn)(const struct pfs_ctx *c, const char *buf,
    size_t len);

struct pfs_spec {
	const char *name;       /* NULL: named by its number */
	int parent;             /* the row of its directory (row 0: root) */
	uint32_t mode;          /* S_IFMT and permission bits */
	enum pfs_scope scope;
	pfs_gen_fn gen;         /* content or target; NULL: text */
	pfs_write_fn write;     /* NULL: the file takes no writes */
	const char *text;       /* fixed content or target */
	int numbered;           /* a directory's numbered row, 0 if none */
	const char *prefix;     /* a numbered row's names: prefix, number */
	/* Whether the node is there (NULL: whenever its scope's is). */
	bool (*exists)(const struct pfs_ctx *c);
};

#define PFS_DIR  (S_IFDIR | 0555)
#define PFS_FILE (S_IFREG | 0444)
#define PFS_LINK (S_IFLNK | 0777)

/*
 * Make a new file system from a table whose row 0 is its root directory
 * (PFS_GLOBAL); with syncs, fsync(2) of its files succeeds, else it is
 * EINVAL, as on Linux's proc.  The table must outlive the mount.
 * Returns the mount (not yet in the mount table) in *mpp; the mount
 * holds the only reference to its root.  Returns 0; cannot fail
 * otherwise.
 */
int pfs_mount(const char *fstype, const struct pfs_spec *specs, size_t n,
    bool syncs, struct mount **mpp);

/*
 * Free the file system and mp.  Every vnode but the root must have been
 * released, and mp must not be in the mount table.
 */
void pfs_unmount(struct mount *mp);

/* Whether vn is a node of a pseudo file system whose process is gone. */
bool pfs_vnode_gone(const struct vnode *vn);

/* The open file behind a PFS_FD link vnode (not referenced), or NULL. */
struct file *pfs_fd_file(const struct vnode *vn);

/*
 * The row (kind) and pid of vn, a node of a file system of table specs;
 * false for any other vnode.
 */
bool pfs_vnode_key(const struct vnode *vn, const struct pfs_spec *specs,
    int *kindp, int *pidp);

/* The sandbox's boot on CLOCK_MONOTONIC (kern_boot_ns). */
int64_t pfs_boot_ns(void);

/* The CLOCK_REALTIME ns of a CLOCK_MONOTONIC instant. */
int64_t pfs_realtime_of(int64_t mono_ns);

#endif
