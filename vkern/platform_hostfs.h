/*
 * Platform hooks for hostfs: host directories opened at start-up, and the
 * files beneath them.
 *
 * A host object (struct plat_hostobj) is one host file, directory,
 * symlink, FIFO, socket or device, held by a host file descriptor.  Every
 * object is reached from a root opened at start-up, one name at a time:
 * a name is a single component (no '/', never "." or ".."), the host
 * resolves it beneath the directory given and never follows a symlink.
 * So nothing a guest asks for can name a host file outside the root; the
 * kernel resolves symlinks and ".." itself.
 *
 * An object found by plat_hostobj_lookup() starts with no descriptor at
 * all: only its name in its directory (which the caller keeps track of)
 * leads to it, and it does not keep its inode.  plat_hostobj_open() gives
 * it a descriptor without I/O access (an O_PATH one: stat, readlink,
 * chmod, chown and utimens work, read and write do not), which every hook
 * but those two and plat_hostobj_reopen() needs; a directory needs one
 * to have names looked up, made or removed in it.  plat_hostobj_reopen()
 * gives it read or read-write access, which it then keeps.  Both check
 * that the name still holds the inode the lookup found (-ESTALE if not).
 * Opening a FIFO or a device never happens: their objects only ever have
 * metadata access, so looking one up has no side effect on the host and
 * never blocks.
 *
 * Every hook returns 0 (or a count) or -errno with the host's errno where
 * it means the same to the guest (x86-64 Linux numbers them alike):
 * -ENOENT, -ENOTDIR, -EACCES, -EPERM, -EEXIST, -ENOTEMPTY, -ENOSPC, ...
 * A full host descriptor table is -ENFILE; host errors that would mean a
 * kernel bug (EBADF, EFAULT) come back as -EIO.  Names are checked:
 * -EINVAL for '/', "." or "..", -ENOENT for "", -ENAMETOOLONG beyond 255
 * bytes.  The hooks may block on host disk I/O, and are called only from
 * the kernel's one event loop thread.
 */
#ifndef VK_PLATFORM_HOSTFS_H
#define VK_PLATFORM_HOSTFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct plat_hostobj;

/* A host file's status.  mode includes the S_IFMT bits. */
struct plat_hoststat {
	uint64_t dev, ino, rdev;
	uint32_t mode, uid, gid;
	uint64_t nlink, size, blocks, blksize;
	int64_t atime_ns, mtime_ns, ctime_ns, btime_ns;   /* btime 0: unknown */
};

/* The I/O access of an object, for plat_hostobj_reopen(). */
#define PLAT_HOST_READ  0x1
#define PLAT_HOST_WRITE 0x2   /* read-write, in fact */

/* rename flags, as renameat2(2)'s. */
#define PLAT_RENAME_NOREPLACE 0x1
#define PLAT_RENAME_EXCHANGE  0x2

/*
 * Open the host directory hostpath (absolute, or relative to the
 * vkernel's cwd; symlinks in it are followed: it is the user's choice) as
 * a root, and stat it into *st.  Start-up only, before the lock-down: it
 * uses the plain open the lock-down forbids.  The first call also sets
 * the vkernel's host umask to 0, so that files the guest makes get the
 * modes it asked for (the kernel applies the guest's umask).
 * Returns 0, -ENOENT, -ENOTDIR, -EACCES, -ELOOP, -ENOSYS (a host without
 * openat2, which hostfs needs), ...
 */
int plat_hostdir_open_root(const char *hostpath, struct plat_hostobj **out,
    struct plat_hoststat *st);

/*
 * Stat name in directory dir (which has its descriptor), without
 * following it if it is a symlink, into *st, and make an object for it
 * that has no descriptor yet.  -ENOTDIR when dir is not a directory.
 */
int plat_hostobj_lookup(struct plat_hostobj *dir, const char *name,
    struct plat_hostobj **out, struct plat_hoststat *st);

/*
 * Give obj, found as name in dir (NULL: it has no name now, -ESTALE), its
 * descriptor, if it has none: 0, -ESTALE when the name is gone or holds
 * another file, or the host's errno.
 */
int plat_hostobj_open(struct plat_hostobj *obj, struct plat_hostobj *dir,
    const char *name);

/* Whether obj has its descriptor (and so keeps its inode). */
bool plat_hostobj_opened(const struct plat_hostobj *obj);

/*
 * Stat the object itself (a symlink's own status, not its target's).
 * Like every hook below, it needs obj's descriptor.
 */
int plat_hostobj_stat(struct plat_hostobj *obj, struct plat_hoststat *st);

/* The figures of the host file system obj is on, as statfs(2) gives them. */
struct plat_hoststatfs {
	uint32_t magic;
	uint64_t bsize, blocks, bfree, bavail, files, ffree, namelen;
};
int plat_hostobj_statfs(struct plat_hostobj *obj, struct plat_hoststatfs *sf);

/* Stat name in dir without opening it or following it. */
int plat_hostobj_statat(struct plat_hostobj *dir, const char *name,
    struct plat_hoststat *st);

/*
 * Give obj the access in want (PLAT_HOST_READ, or with PLAT_HOST_WRITE
 * read-write) if it lacks it; it keeps it until closed.  A directory is
 * reopened through its descriptor, or by name without one (read only:
 * -EISDIR for write).  A regular file is reopened by its name in its
 * directory, dir and name (which the caller keeps track of); -ESTALE
 * when it has none (dir NULL) or the name now holds another file.  Other types have no I/O: -EINVAL.  The host
 * checks the vkernel's own permission: -EACCES, -ETXTBSY, -EROFS.
 */
int plat_hostobj_reopen(struct plat_hostobj *obj, struct plat_hostobj *dir,
    const char *name, int want);

/*
 * Positioned I/O on a regular file.  buf may point into the RAM file: it
 * goes straight to the host.  A short count at end of file.  -EBADF when
 * the object lacks the access (reopen it first).
 */
long plat_hostobj_pread(struct plat_hostobj *obj, void *buf, size_t len,
    uint64_t off);
long plat_hostobj_pwrite(struct plat_hostobj *obj, const void *buf,
    size_t len, uint64_t off);

/*
 * plat_hostobj_pread into the RAM file at ramoff, host file to RAM file
 * with no pass through the kernel's mapping of it: pages that are not
 * in memory yet are not faulted in one by one.
 */
long plat_hostobj_pread_ram(struct plat_hostobj *obj, uint64_t ramoff,
    size_t len, uint64_t off);

/*
 * lseek(2) SEEK_DATA (data) or SEEK_HOLE on a regular file open for
 * reading: the offset the host finds, or -ENXIO.
 */
int64_t plat_hostobj_seek_hole(struct plat_hostobj *obj, uint64_t off,
    bool data);

/*
 * readdir's callback, once per entry: ino, type as S_IFMT bits (0 when
 * the host does not say) and the cookie that resumes after the entry.
 * Return 0 to go on, anything else to stop.
 */
typedef int (*plat_hostdirent_fn)(void *arg, const char *name, size_t len,
    uint64_t ino, uint32_t type, uint64_t next_cookie);

/*
 * Emit the entries of directory dir (read access needed: -EBADF) from
 * cookie on: 0 is the start, else a cookie an entry carried.  "." and
 * ".." are included, as the host lists them.  Returns 0 at the end or
 * when fn stopped, -EINVAL for a cookie the host refuses.
 */
int plat_hostobj_readdir(struct plat_hostobj *dir, uint64_t cookie,
    plat_hostdirent_fn fn, void *arg);

/* A symlink's target into buf, truncated to size; returns its length. */
long plat_hostobj_readlink(struct plat_hostobj *obj, char *buf,
    size_t size);

/*
 * Make name in dir, of type mode & S_IFMT with permissions mode & 07777:
 * S_IFREG (the object comes with read-write access, whatever the mode
 * says, as open(O_CREAT) gives), S_IFDIR, S_IFIFO, S_IFSOCK, or S_IFLNK
 * pointing to target.  Devices are refused (-EPERM): the vkernel makes no
 * host device nodes.  -EEXIST when name exists (a symlink included).
 * Returns the new object and its status.
 */
int plat_hostobj_create(struct plat_hostobj *dir, const char *name,
    uint32_t mode, const char *target, struct plat_hostobj **out,
    struct plat_hoststat *st);

/* Remove name from dir: a directory if rmdir, else anything but one. */
int plat_hostobj_remove(struct plat_hostobj *dir, const char *name,
    bool rmdir);

/* renameat2(2) with PLAT_RENAME_* flags. */
int plat_hostobj_rename(struct plat_hostobj *fromdir, const char *from,
    struct plat_hostobj *todir, const char *to, unsigned flags);

/* A new name to for the file named from (not following a symlink). */
int plat_hostobj_link(struct plat_hostobj *fromdir, const char *from,
    struct plat_hostobj *todir, const char *to);

/* Which times plat_hostobj_utimens() sets. */
#define PLAT_UTIME_ATIME 0x1
#define PLAT_UTIME_MTIME 0x2
/*
 * Both are the host's current time, which the host sets (UTIME_NOW) and
 * allows to whoever may write the file, not only to its owner.
 */
#define PLAT_UTIME_NOW   0x4

/*
 * Attributes of the object itself, never a symlink's target.  chmod of a
 * symlink is -EOPNOTSUPP, as Linux's.  chown: (uint32_t)-1 keeps an id.
 * utimens sets the times in which (PLAT_UTIME_*); ns are since the epoch.
 * truncate needs write access (-EBADF).
 */
int plat_hostobj_chmod(struct plat_hostobj *obj, uint32_t mode);
int plat_hostobj_chown(struct plat_hostobj *obj, uint32_t uid, uint32_t gid);
int plat_hostobj_utimens(struct plat_hostobj *obj, unsigned which,
    int64_t atime_ns, int64_t mtime_ns);
int plat_hostobj_truncate(struct plat_hostobj *obj, uint64_t size);

/*
 * fallocate(2) of a regular file with write access (-EBADF), mode as
 * fallocate's: the host file system says which modes it has
 * (-EOPNOTSUPP), and -ENOSPC, -EFBIG, -EINVAL as it gives them.  Modes
 * newer than FALLOC_FL_UNSHARE_RANGE are -EOPNOTSUPP without asking.
 */
int plat_hostobj_fallocate(struct plat_hostobj *obj, int mode, uint64_t off,
    uint64_t len);

/*
 * fsync(2) of the host file or directory, or fdatasync(2) with datasync:
 * what was written to it reaches the host's disk.  It needs read access
 * (-EBADF).
 */
int plat_hostobj_sync(struct plat_hostobj *obj, bool datasync);

/* Close the host descriptor and free the object. */
void plat_hostobj_close(struct plat_hostobj *obj);

#endif
