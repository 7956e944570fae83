/*
 * Host files for hostfs (vkern/platform_hostfs.h): each object is a host
 * fd, found one name at a time beneath a root opened at start-up.
 *
 * After the start-up every open is openat2() of one name, with
 * RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS and O_NOFOLLOW: the name resolves
 * below its directory, and a symlink is opened as itself (O_PATH) or not
 * at all.  That keeps the guest inside the directory even while the host
 * changes the tree, and it is the only open the lock-down allows.  The
 * other calls that take a name (statx, mkdirat, unlinkat, renameat2, ...)
 * get one checked component and never follow a trailing symlink, so they
 * cannot leave the directory either.
 *
 * A lookup only stats the name beneath its directory: most names looked
 * up are only stat-ed, and an open and a close more for each was most of
 * what a cold lookup cost.  The object gets an fd when the kernel first
 * needs one (plat_hostobj_open, or plat_hostobj_reopen for I/O), by the
 * same name in the same directory, and only if the name still holds the
 * inode the lookup found.  It is an O_PATH fd, so that a FIFO or a device
 * has no side effect on the host (opening a FIFO wakes or blocks a
 * writer; opening a device runs its driver).  Regular files and
 * directories are opened for I/O when the kernel first asks; an O_PATH fd
 * cannot be reopened by itself without /proc/self/fd, which the lock-down
 * forbids.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "host-linux/cleanup.h"
#include "host-linux/host.h"
#include "vkern/platform.h"

#ifndef __NR_fchmodat2
/* x86-64, since Linux 6.6; the build's UAPI headers may be older. */
#define __NR_fchmodat2 452
#endif

/* How every open resolves its one name: see the top of the file. */
#define HOST_RESOLVE \
	(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

/*
 * The *at() flags for an fd itself (with "") or one name in a directory:
 * never a symlink's target.  The lock-down pins these values.
 */
#define HOST_AT_SELF (AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)

#define NS_PER_SEC 1000000000LL

struct plat_hostobj {
	int fd;            /* -1 until the kernel needs one */
	int access;        /* the PLAT_HOST_* the fd allows; 0 for O_PATH */
	uint32_t type;     /* S_IFMT bits: an inode's type never changes */
	uint64_t dev, ino; /* which inode, to check a reopen by name */
	bool setid;        /* set-id bits when last stat-ed or chmod-ed */
	uint64_t dirpos;   /* a directory's: where its fd reads next */
	bool dir_eof;      /* and the host said its end is there */
};

/*
 * What the last host getdents64 gave that the kernel's callback did not
 * take yet (it stopped at next): the guest's next getdents64 of that
 * directory resumes exactly there, and gets those records without a
 * seek and a second read of them.  One for all directories: a guest
 * lists one at a time.
 */
static struct {
	const struct plat_hostobj *dir;   /* whose records, or NULL */
	size_t len, next;      /* bytes the host gave; the first not taken */
	uint64_t cookie;       /* the cookie that resumes at next */
	_Alignas(struct dirent64) char buf[16384];
} dirbuf;

/*
 * What hostfs knows of dir's listing is old: the guest changed its names,
 * or dir's fd changes.
 */
static void
dir_changed(struct plat_hostobj *dir)
{
	if (dirbuf.dir == dir)
		dirbuf.dir = NULL;
	dir->dir_eof = false;
}

/* The guest's errno for a host errno: see platform_hostfs.h. */
static int
host_err(int e)
{
	switch (e) {
	case EMFILE:
		/* The vkernel's own fd table: system-wide to the guest. */
		return -ENFILE;
	case EBADF:
	case EFAULT:
	case ENOSYS:
	case E2BIG:
		/* A bad fd, pointer or call of ours: not the guest's doing. */
		return -EIO;
	}
	return -e;
}

/* One component: what every hook that takes a name accepts. */
static int
name_check(const char *name)
{
	if (name == NULL || name[0] == '\0')
		return -ENOENT;
	if (strnlen(name, NAME_MAX + 1) > NAME_MAX)
		return -ENAMETOOLONG;
	if (strchr(name, '/') != NULL || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return -EINVAL;
	return 0;
}

static int
dir_name_check(const struct plat_hostobj *dir, const char *name)
{
	if (dir == NULL || dir->type != S_IFDIR)
		return -ENOTDIR;
	return name_check(name);
}

int
host_openat2(int dirfd, const char *name, uint64_t flags, uint32_t mode)
{
	struct open_how how = {
		.flags = flags | O_NOFOLLOW | O_CLOEXEC,
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = HOST_RESOLVE,
	};
	long fd;

	fd = TEMP_FAILURE_RETRY(syscall(SYS_openat2, dirfd, name, &how,
	    sizeof(how)));
	if (fd >= 0)
		return (int)fd;
	/*
	 * EXDEV (an escape) and EAGAIN (a race on "..") cannot come of one
	 * name: never hand the guest an errno it would misread.
	 */
	if (errno == EXDEV || errno == EAGAIN)
		return -EIO;
	return host_err(errno);
}

static int64_t
statx_ns(const struct statx_timestamp *t)
{
	return t->tv_sec * NS_PER_SEC + t->tv_nsec;
}

/* statx() of name in dirfd, or of dirfd itself with "". */
static int
host_statx(int dirfd, const char *name, struct plat_hoststat *st)
{
	struct statx sx;

	if (TEMP_FAILURE_RETRY(statx(dirfd, name, HOST_AT_SELF,
	    STATX_BASIC_STATS | STATX_BTIME, &sx)) < 0)
		return host_err(errno);
	*st = (struct plat_hoststat){
		.dev = makedev(sx.stx_dev_major, sx.stx_dev_minor),
		.ino = sx.stx_ino,
		.rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor),
		.mode = sx.stx_mode,
		.uid = sx.stx_uid,
		.gid = sx.stx_gid,
		.nlink = sx.stx_nlink,
		.size = sx.stx_size,
		.blocks = sx.stx_blocks,
		.blksize = sx.stx_blksize,
		.atime_ns = statx_ns(&sx.stx_atime),
		.mtime_ns = statx_ns(&sx.stx_mtime),
		.ctime_ns = statx_ns(&sx.stx_ctime),
		.btime_ns = (sx.stx_mask & STATX_BTIME) ?
		    statx_ns(&sx.stx_btime) : 0,
	};
	return 0;
}

/* An object of fd (taken over, closed on failure), stat-ed into *st. */
static int
obj_make(int fd, int access, struct plat_hostobj **out,
    struct plat_hoststat *st)
{
	cleanup_close int cfd = fd;
	struct plat_hostobj *obj;
	int r;

	if ((r = host_statx(cfd, "", st)) < 0)
		return r;
	if ((obj = malloc(sizeof(*obj))) == NULL)
		return -ENOMEM;
	*obj = (struct plat_hostobj){
		.fd = steal_fd(&cfd),
		.access = access,
		.type = st->mode & S_IFMT,
		.dev = st->dev,
		.ino = st->ino,
		.setid = (st->mode & (S_ISUID | S_ISGID)) != 0,
	};
	*out = obj;
	return 0;
}

/* The roots opened at start-up, in order, for the sandbox's Landlock. */
static int root_fds[HOSTFS_MAX_ROOTS];
static unsigned nroot_fds;

unsigned
hostfs_root_fds(const int **fds)
{
	*fds = root_fds;
	return nroot_fds;
}

int
plat_hostdir_open_root(const char *hostpath, struct plat_hostobj **out,
    struct plat_hoststat *st)
{
	cleanup_close int fd = -1;
	int probe;

	if (hostpath == NULL || hostpath[0] == '\0')
		return -ENOENT;
	fd = TEMP_FAILURE_RETRY(open(hostpath,
	    O_PATH | O_DIRECTORY | O_CLOEXEC));
	if (fd < 0)
		return -errno;
	/* Every later open is openat2: a host without it cannot serve. */
	probe = host_openat2(fd, ".", O_PATH | O_DIRECTORY, 0);
	if (probe < 0)
		return errno == ENOSYS ? -ENOSYS : probe;
	close(probe);
	/* The guest's umask is the kernel's to apply, not the host's. */
	umask(0);
	if (nroot_fds == HOSTFS_MAX_ROOTS)
		return -EMFILE;
	root_fds[nroot_fds++] = fd;
	return obj_make(steal_fd(&fd), 0, out, st);
}

/* name in dir, opened O_PATH and stat-ed into *st. */
static int
lookup_open(struct plat_hostobj *dir, const char *name,
    struct plat_hostobj **out, struct plat_hoststat *st)
{
	int fd;

	if ((fd = dir_name_check(dir, name)) < 0)
		return fd;
	if ((fd = host_openat2(dir->fd, name, O_PATH, 0)) < 0)
		return fd;
	return obj_make(fd, 0, out, st);
}

int
plat_hostobj_lookup(struct plat_hostobj *dir, const char *name,
    struct plat_hostobj **out, struct plat_hoststat *st)
{
	struct plat_hostobj *obj;
	int r;

	if ((r = plat_hostobj_statat(dir, name, st)) < 0)
		return r;
	if ((obj = malloc(sizeof(*obj))) == NULL)
		return -ENOMEM;
	*obj = (struct plat_hostobj){
		.fd = -1,
		.type = st->mode & S_IFMT,
		.dev = st->dev,
		.ino = st->ino,
		.setid = (st->mode & (S_ISUID | S_ISGID)) != 0,
	};
	*out = obj;
	return 0;
}

bool
plat_hostobj_opened(const struct plat_hostobj *obj)
{
	return obj->fd >= 0;
}

int
plat_hostobj_stat(struct plat_hostobj *obj, struct plat_hoststat *st)
{
	int r = host_statx(obj->fd, "", st);

	if (r == 0)
		obj->setid = (st->mode & (S_ISUID | S_ISGID)) != 0;
	return r;
}

/*
 * In a user namespace of its own the vkernel lacks the host's
 * CAP_FSETID, without which the host clears a file's set-id bits on
 * every write, truncation or fallocate.  The kernel has cleared them
 * itself before for a guest without CAP_FSETID (vfs_remove_privs), so
 * bits still there belong to one with it: a change of a set-id file is
 * bracketed by setid_mode and setid_restore, which put the bits back when
 * the host took them.  Returns the mode to restore, or 0.
 */
static uint32_t
setid_mode(struct plat_hostobj *obj)
{
	struct statx sx;

	if (!obj->setid || statx(obj->fd, "", HOST_AT_SELF, STATX_MODE,
	    &sx) < 0 || !(sx.stx_mode & (S_ISUID | S_ISGID)))
		return 0;
	return sx.stx_mode & 07777;
}

static void
setid_restore(struct plat_hostobj *obj, uint32_t mode)
{
	struct statx sx;

	if (mode != 0 && statx(obj->fd, "", HOST_AT_SELF, STATX_MODE,
	    &sx) == 0 && (sx.stx_mode & 07777) != mode)
		(void)fchmod(obj->fd, mode);
}

int
plat_hostobj_statfs(struct plat_hostobj *obj, struct plat_hoststatfs *sf)
{
	struct statfs hs;

	if (fstatfs(obj->fd, &hs) < 0)
		return host_err(errno);
	*sf = (struct plat_hoststatfs){
		.magic = (uint32_t)hs.f_type, .bsize = (uint64_t)hs.f_bsize,
		.blocks = hs.f_blocks, .bfree = hs.f_bfree,
		.bavail = hs.f_bavail, .files = hs.f_files, .ffree = hs.f_ffree,
		.namelen = (uint64_t)hs.f_namelen,
	};
	return 0;
}

int
plat_hostobj_statat(struct plat_hostobj *dir, const char *name,
    struct plat_hoststat *st)
{
	int r;

	if ((r = dir_name_check(dir, name)) < 0)
		return r;
	if (dir->fd < 0)
		return -EIO;   /* a kernel bug: its directory not opened */
	return host_statx(dir->fd, name, st);
}

/*
 * Open obj by its name, name in dir, with flags, and check that the name
 * still holds the same inode.  O_NONBLOCK | O_NOCTTY for an open for I/O:
 * should the host have put a FIFO or a terminal there meanwhile, the open
 * neither waits nor takes it over, and the check refuses it.  Returns the
 * new fd, -ESTALE when the name is gone or holds another file, or -errno.
 */
static int
open_by_name(const struct plat_hostobj *obj, const struct plat_hostobj *dir,
    const char *name, uint64_t flags)
{
	cleanup_close int fd = -1;
	struct plat_hoststat st;
	int r;

	if (dir_name_check(dir, name) < 0 || dir->fd < 0)
		return -ESTALE;
	if (!(flags & O_PATH))
		flags |= O_NONBLOCK | O_NOCTTY;
	fd = host_openat2(dir->fd, name, flags, 0);
	if (fd == -ELOOP || fd == -ENOENT || fd == -ENOTDIR)
		return -ESTALE;   /* a symlink now, or gone */
	if (fd < 0)
		return fd;
	if ((r = host_statx(fd, "", &st)) < 0)
		return r;
	if ((st.mode & S_IFMT) != obj->type || st.dev != obj->dev ||
	    st.ino != obj->ino)
		return -ESTALE;
	return steal_fd(&fd);
}

/* obj's fd is now fd, with access acc. */
static void
obj_set_fd(struct plat_hostobj *obj, int fd, int acc)
{
	if (obj->fd >= 0)
		close(obj->fd);
	obj->fd = fd;
	obj->access = acc;
	obj->dirpos = 0;
	dir_changed(obj);
}

int
plat_hostobj_open(struct plat_hostobj *obj, struct plat_hostobj *dir,
    const char *name)
{
	int fd;

	if (obj->fd >= 0)
		return 0;
	if (dir == NULL)
		return -ESTALE;
	if ((fd = open_by_name(obj, dir, name, O_PATH)) < 0)
		return fd;
	obj_set_fd(obj, fd, 0);
	return 0;
}

int
plat_hostobj_reopen(struct plat_hostobj *obj, struct plat_hostobj *dir,
    const char *name, int want)
{
	int acc = PLAT_HOST_READ | (want & PLAT_HOST_WRITE);
	int fd;

	if ((obj->access & acc) == acc)
		return 0;
	switch (obj->type) {
	case S_IFDIR:
		if (acc & PLAT_HOST_WRITE)
			return -EISDIR;
		/* "." beneath itself: the same directory, whatever its name. */
		if (obj->fd >= 0)
			fd = host_openat2(obj->fd, ".", O_RDONLY | O_DIRECTORY,
			    0);
		else if (dir != NULL)
			fd = open_by_name(obj, dir, name, O_RDONLY |
			    O_DIRECTORY);
		else
			fd = -ESTALE;
		break;
	case S_IFREG:
		fd = dir != NULL ? open_by_name(obj, dir, name,
		    (acc & PLAT_HOST_WRITE) ? O_RDWR : O_RDONLY) : -ESTALE;
		break;
	default:
		return -EINVAL;
	}
	if (fd < 0)
		return fd;
	obj_set_fd(obj, fd, acc);
	return 0;
}

long
plat_hostobj_pread(struct plat_hostobj *obj, void *buf, size_t len,
    uint64_t off)
{
	ssize_t n;

	if (!(obj->access & PLAT_HOST_READ))
		return -EBADF;
	if (off > INT64_MAX)
		return -EINVAL;
	n = TEMP_FAILURE_RETRY(pread(obj->fd, buf, len, (off_t)off));
	return n < 0 ? host_err(errno) : n;
}

/*
 * sendfile(2) from the host file into the RAM file: the host copies the
 * file's cached pages into RAM file pages it allocates without clearing
 * and without a fault each, which halves the cost of filling memory from
 * files (cc1's 32 MiB: 11 ms, against 20 ms for a pread into the
 * mapping, on a 2-CPU VM).  The RAM file's offset is the kernel's alone:
 * stubs only map it.  Without a RAM file (a test), or from a file the
 * host cannot splice from (EINVAL), a pread.
 */
long
plat_hostobj_pread_ram(struct plat_hostobj *obj, uint64_t ramoff, size_t len,
    uint64_t off)
{
	off_t in = (off_t)off;
	ssize_t n;

	if (!(obj->access & PLAT_HOST_READ))
		return -EBADF;
	if (off > INT64_MAX)
		return -EINVAL;
	if (ram_fd() >= 0 && lseek(ram_fd(), (off_t)ramoff, SEEK_SET) >= 0) {
		n = TEMP_FAILURE_RETRY(sendfile(ram_fd(), obj->fd, &in, len));
		if (n >= 0 || errno != EINVAL)
			return n < 0 ? host_err(errno) : n;
	}
	return plat_hostobj_pread(obj, (char *)plat_ram_base() + ramoff, len,
	    off);
}

int64_t
plat_hostobj_seek_hole(struct plat_hostobj *obj, uint64_t off, bool data)
{
	off_t r;

	if (!(obj->access & PLAT_HOST_READ))
		return -EBADF;
	if (off > INT64_MAX)
		return -ENXIO;
	r = lseek(obj->fd, (off_t)off, data ? SEEK_DATA : SEEK_HOLE);
	return r < 0 ? host_err(errno) : (int64_t)r;
}

long
plat_hostobj_pwrite(struct plat_hostobj *obj, const void *buf, size_t len,
    uint64_t off)
{
	uint32_t mode;
	ssize_t n;

	if (!(obj->access & PLAT_HOST_WRITE))
		return -EBADF;
	if (off > INT64_MAX)
		return -EINVAL;
	mode = setid_mode(obj);
	n = TEMP_FAILURE_RETRY(pwrite(obj->fd, buf, len, (off_t)off));
	if (n < 0)
		return host_err(errno);
	setid_restore(obj, mode);
	return n;
}

/*
 * Hand dirbuf's records from next on to fn, keeping next and cookie at
 * the first one fn did not take; true when fn asked to stop.
 */
static bool
dirents_emit(plat_hostdirent_fn fn, void *arg)
{
	while (dirbuf.next < dirbuf.len) {
		const struct dirent64 *d = (const void *)(dirbuf.buf +
		    dirbuf.next);

		/* DTTOIF: a DT_* value is the S_IFMT type shifted down. */
		if (fn(arg, d->d_name, strlen(d->d_name), d->d_ino,
		    DTTOIF(d->d_type), (uint64_t)d->d_off) != 0)
			return true;
		dirbuf.cookie = (uint64_t)d->d_off;
		if (d->d_reclen == 0)
			break;    /* cannot happen; never loop for ever */
		dirbuf.next += d->d_reclen;
	}
	dirbuf.dir = NULL;
	return false;
}

/*
 * The host's d_off of a record is where its directory reads next after
 * it, so the fd stands at the last one's.  The end, once the host said
 * so, is not asked again at the same place: no entry added since has to
 * show (POSIX leaves that open until the directory is rewound), and
 * every cookie of a fresh listing starts at 0.
 */
int
plat_hostobj_readdir(struct plat_hostobj *dir, uint64_t cookie,
    plat_hostdirent_fn fn, void *arg)
{
	const struct dirent64 *d;
	ssize_t n;

	if (dir->type != S_IFDIR)
		return -ENOTDIR;
	if (!(dir->access & PLAT_HOST_READ))
		return -EBADF;
	if (cookie > INT64_MAX)
		return -EINVAL;
	if (dirbuf.dir == dir && dirbuf.cookie == cookie) {
		if (dirents_emit(fn, arg))
			return 0;
	} else if (cookie != dir->dirpos) {
		/* A cookie is the host's d_off: seek, as Linux resumes so. */
		if (lseek(dir->fd, (off_t)cookie, SEEK_SET) < 0)
			return host_err(errno);
		dir->dirpos = cookie;
		dir->dir_eof = false;
	}
	while (!dir->dir_eof) {
		n = TEMP_FAILURE_RETRY(getdents64(dir->fd, dirbuf.buf,
		    sizeof(dirbuf.buf)));
		if (n < 0)
			return host_err(errno);
		dir->dir_eof = n == 0;
		dirbuf.dir = dir;
		dirbuf.len = (size_t)n;
		dirbuf.next = 0;
		dirbuf.cookie = dir->dirpos;
		for (size_t pos = 0; pos < dirbuf.len && (d = (const void *)
		    (dirbuf.buf + pos))->d_reclen != 0; pos += d->d_reclen)
			dir->dirpos = (uint64_t)d->d_off;
		if (dirents_emit(fn, arg))
			return 0;
	}
	return 0;
}

long
plat_hostobj_readlink(struct plat_hostobj *obj, char *buf, size_t size)
{
	ssize_t n;

	if (obj->type != S_IFLNK)
		return -EINVAL;
	n = TEMP_FAILURE_RETRY(readlinkat(obj->fd, "", buf, size));
	return n < 0 ? host_err(errno) : n;
}

/* Make a directory, FIFO, socket or symlink: no fd comes with them. */
static int
create_node(struct plat_hostobj *dir, const char *name, uint32_t mode,
    const char *target)
{
	int r;

	switch (mode & S_IFMT) {
	case S_IFDIR:
		r = mkdirat(dir->fd, name, mode & 07777);
		break;
	case S_IFIFO:
	case S_IFSOCK:
		r = mknodat(dir->fd, name, mode & (S_IFMT | 07777), 0);
		break;
	case S_IFLNK:
		if (target == NULL)
			return -EINVAL;
		r = symlinkat(target, dir->fd, name);
		break;
	case S_IFCHR:
	case S_IFBLK:
		return -EPERM;
	default:
		return -EINVAL;
	}
	return r < 0 ? host_err(errno) : 0;
}

int
plat_hostobj_create(struct plat_hostobj *dir, const char *name,
    uint32_t mode, const char *target, struct plat_hostobj **out,
    struct plat_hoststat *st)
{
	int r;

	if ((r = dir_name_check(dir, name)) < 0)
		return r;
	dir_changed(dir);
	if ((mode & S_IFMT) == S_IFREG) {
		/* Read-write whatever the mode, as open(O_CREAT) is. */
		r = host_openat2(dir->fd, name, O_RDWR | O_CREAT | O_EXCL,
		    mode & 07777);
		if (r < 0)
			return r;
		return obj_make(r, PLAT_HOST_READ | PLAT_HOST_WRITE, out, st);
	}
	if ((r = create_node(dir, name, mode, target)) < 0)
		return r;
	/*
	 * XXX: should the host replace the new name before this lookup, the
	 * caller gets what is there now; it is beneath dir all the same.
	 */
	return lookup_open(dir, name, out, st);
}

int
plat_hostobj_remove(struct plat_hostobj *dir, const char *name, bool rmdir)
{
	int r;

	if ((r = dir_name_check(dir, name)) < 0)
		return r;
	dir_changed(dir);
	if (unlinkat(dir->fd, name, rmdir ? AT_REMOVEDIR : 0) < 0)
		return host_err(errno);
	return 0;
}

int
plat_hostobj_rename(struct plat_hostobj *fromdir, const char *from,
    struct plat_hostobj *todir, const char *to, unsigned flags)
{
	unsigned hf = 0;
	int r;

	if (flags & ~(PLAT_RENAME_NOREPLACE | PLAT_RENAME_EXCHANGE))
		return -EINVAL;
	if ((r = dir_name_check(fromdir, from)) < 0 ||
	    (r = dir_name_check(todir, to)) < 0)
		return r;
	dir_changed(fromdir);
	dir_changed(todir);
	if (flags & PLAT_RENAME_NOREPLACE)
		hf |= RENAME_NOREPLACE;
	if (flags & PLAT_RENAME_EXCHANGE)
		hf |= RENAME_EXCHANGE;
	/* The syscall itself: glibc may turn flags 0 into renameat. */
	if (syscall(SYS_renameat2, fromdir->fd, from, todir->fd, to, hf) < 0)
		return host_err(errno);
	return 0;
}

int
plat_hostobj_link(struct plat_hostobj *fromdir, const char *from,
    struct plat_hostobj *todir, const char *to)
{
	int r;

	if ((r = dir_name_check(fromdir, from)) < 0 ||
	    (r = dir_name_check(todir, to)) < 0)
		return r;
	dir_changed(todir);
	/* Flags 0: a symlink named from is linked, not followed. */
	if (linkat(fromdir->fd, from, todir->fd, to, 0) < 0)
		return host_err(errno);
	return 0;
}

int
plat_hostobj_chmod(struct plat_hostobj *obj, uint32_t mode)
{
	mode &= 07777;
	obj->setid = (mode & (S_ISUID | S_ISGID)) != 0;
	/* fchmodat2 changes any object through its O_PATH fd. */
	if (syscall(__NR_fchmodat2, obj->fd, "", mode, HOST_AT_SELF) == 0)
		return 0;
	if (errno != ENOSYS)
		return host_err(errno);
	/*
	 * XXX: hosts before Linux 6.6 lack fchmodat2; fchmod needs an fd
	 * with I/O access.  A directory opens itself for one; other objects
	 * not yet read or written stay as they are.
	 */
	if (obj->access == 0 && obj->type == S_IFDIR) {
		cleanup_close int fd = host_openat2(obj->fd, ".",
		    O_RDONLY | O_DIRECTORY, 0);

		if (fd < 0)
			return fd;
		return fchmod(fd, mode) < 0 ? host_err(errno) : 0;
	}
	if (obj->access == 0)
		return -EOPNOTSUPP;
	return fchmod(obj->fd, mode) < 0 ? host_err(errno) : 0;
}

int
plat_hostobj_chown(struct plat_hostobj *obj, uint32_t uid, uint32_t gid)
{
	if (fchownat(obj->fd, "", (uid_t)uid, (gid_t)gid, HOST_AT_SELF) < 0)
		return host_err(errno);
	return 0;
}

static struct timespec
ns_timespec(int64_t ns, bool set)
{
	struct timespec ts = { .tv_sec = ns / NS_PER_SEC,
		.tv_nsec = ns % NS_PER_SEC };

	if (!set)
		ts = (struct timespec){ .tv_nsec = UTIME_OMIT };
	else if (ts.tv_nsec < 0) {
		/* Before 1970: tv_nsec must still be in [0, 1e9). */
		ts.tv_nsec += NS_PER_SEC;
		ts.tv_sec--;
	}
	return ts;
}

int
plat_hostobj_utimens(struct plat_hostobj *obj, unsigned which,
    int64_t atime_ns, int64_t mtime_ns)
{
	struct timespec ts[2] = {
		ns_timespec(atime_ns, which & PLAT_UTIME_ATIME),
		ns_timespec(mtime_ns, which & PLAT_UTIME_MTIME),
	};

	if (which & PLAT_UTIME_NOW)
		ts[0].tv_nsec = ts[1].tv_nsec = UTIME_NOW;

	if (utimensat(obj->fd, "", ts, HOST_AT_SELF) < 0)
		return host_err(errno);
	return 0;
}

int
plat_hostobj_truncate(struct plat_hostobj *obj, uint64_t size)
{
	uint32_t mode;

	if (!(obj->access & PLAT_HOST_WRITE))
		return -EBADF;
	/* Beyond INT64_MAX it was a negative off_t: truncate(2) says EINVAL. */
	if (size > INT64_MAX)
		return -EINVAL;
	mode = setid_mode(obj);
	if (TEMP_FAILURE_RETRY(ftruncate(obj->fd, (off_t)size)) < 0)
		return host_err(errno);
	setid_restore(obj, mode);
	return 0;
}

int
plat_hostobj_sync(struct plat_hostobj *obj, bool datasync)
{
	if (!(obj->access & PLAT_HOST_READ))
		return -EBADF;
	if (TEMP_FAILURE_RETRY(datasync ? fdatasync(obj->fd) :
	    fsync(obj->fd)) < 0)
		return host_err(errno);
	return 0;
}

int
plat_hostobj_fallocate(struct plat_hostobj *obj, int mode, uint64_t off,
    uint64_t len)
{
	/* The modes seccomp-policy/policy.c lets through: no others. */
	const int modes = FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE |
	    FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_ZERO_RANGE |
	    FALLOC_FL_INSERT_RANGE | FALLOC_FL_UNSHARE_RANGE;
	uint32_t setid;

	if (mode & ~modes)
		return -EOPNOTSUPP;
	if (!(obj->access & PLAT_HOST_WRITE))
		return -EBADF;
	if (off > INT64_MAX || len > INT64_MAX)
		return -EINVAL;
	setid = setid_mode(obj);
	if (TEMP_FAILURE_RETRY(fallocate(obj->fd, mode, (off_t)off,
	    (off_t)len)) < 0)
		return host_err(errno);
	setid_restore(obj, setid);
	return 0;
}

void
plat_hostobj_close(struct plat_hostobj *obj)
{
	if (obj == NULL)
		return;
	if (obj->fd >= 0)
		close(obj->fd);
	dir_changed(obj);
	free(obj);
}
