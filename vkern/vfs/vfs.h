/*
 * The virtual file system: vnodes, mounts, open files and path lookup.
 *
 * A vnode is one file of one file system; its ops are that file system's.
 * Vnodes are reference counted (vnode_ref/vnode_rel); when the last
 * reference goes, ops->inactive frees the file system's part.  A file
 * system hands out one vnode per file while it is referenced, so vnode
 * pointers compare equal exactly when the files are the same.
 *
 * All names passed to vnode ops are single components: no '/', never ".",
 * and ".." only to lookup and never at the file system's root (path lookup
 * crosses mount points itself, which is what keeps a guest inside its root
 * and a host directory's guest inside that directory).
 * Data moves through host pointers: for file I/O they point into the RAM
 * file (the guest's buffer itself), so reads and writes need no bounce
 * buffer.  Every op returns 0 (or a count) or -errno.
 */
#ifndef VK_VFS_VFS_H
#define VK_VFS_VFS_H

#include <sys/queue.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cred;
struct mntns;
struct mount;
struct proc;
struct vnode;
struct file;

enum vtype { VNON, VREG, VDIR, VLNK, VCHR, VBLK, VFIFO, VSOCK };

/*
 * A file system's figures, as statfs(2) reports them.  magic is the
 * f_type Linux gives the same kind of file system.  A statfs op starts
 * from the figures Linux's simple_statfs() gives (the mount's magic,
 * 4 KiB blocks, names of 255 bytes, no blocks or files at all) and
 * changes what its file system knows better.
 */
struct vfs_statfs {
	uint32_t magic;
	uint64_t bsize, blocks, bfree, bavail, files, ffree, namelen;
};

/* File status, as stat(2) reports it.  mode includes the S_IFMT bits. */
struct vattr {
	uint64_t ino, dev, rdev;
	uint32_t mode, uid, gid;
	uint64_t nlink, size, blocks, blksize;
	int64_t atime_ns, mtime_ns, ctime_ns;
	int64_t btime_ns;             /* 0: the file system keeps none */
};

/* What setattr changes. */
#define VA_MODE  0x01
#define VA_UID   0x02
#define VA_GID   0x04
#define VA_SIZE  0x08
#define VA_ATIME 0x10
#define VA_MTIME 0x20
/*
 * With VA_ATIME and VA_MTIME: both are the current time (utimensat(2)
 * with no times), which write permission allows, not only the owner; a
 * file system whose host checks permissions has the host set them.
 */
#define VA_NOW   0x40

/* readdir's callback: return 0 to go on, anything else stops the walk. */
typedef int (*vfs_dirent_fn)(void *arg, const char *name, size_t len,
    uint64_t ino, enum vtype type, uint64_t next_cookie);

/* rename flags: as renameat2(2). */
#define VFS_RENAME_NOREPLACE 0x1
#define VFS_RENAME_EXCHANGE  0x2

/* How far a vnode's fsync goes: its cache, then its data, then all. */
enum vfs_sync {
	VFS_SYNC_CACHE,
	VFS_SYNC_DATA,
	VFS_SYNC_ALL,
};

struct vnode_ops {
	/* Find name in directory dir: a referenced vnode, or -ENOENT. */
	int (*lookup)(struct vnode *dir, const char *name, struct vnode **vpp);
	int (*getattr)(struct vnode *vn, struct vattr *va);
	/*
	 * Fill in only mode, uid and gid, for a permission check; they may
	 * be the ones last seen.  NULL: getattr serves.
	 */
	int (*getperm)(struct vnode *vn, struct vattr *va);
	/* Change the attributes in mask (VA_*); VA_SIZE truncates. */
	int (*setattr)(struct vnode *vn, const struct vattr *va, unsigned mask);
	/* Byte I/O at off; a short count at end of file. */
	long (*read)(struct vnode *vn, void *buf, size_t len, uint64_t off);
	/*
	 * read into the RAM file at ramoff, where the host may put the
	 * bytes without faulting the pages into the kernel's mapping (for
	 * pages not in memory yet).  NULL: read serves.
	 */
	long (*read_ram)(struct vnode *vn, uint64_t ramoff, size_t len,
	    uint64_t off);
	long (*write)(struct vnode *vn, const void *buf, size_t len,
	    uint64_t off);
	/*
	 * Emit the entries from *cookie on ("." and ".." included; cookie 0
	 * is the start).  Each entry carries the cookie that resumes after
	 * it.  Returns 0 at the end or when fn stopped the walk.
	 */
	int (*readdir)(struct vnode *dir, uint64_t cookie, vfs_dirent_fn fn,
	    void *arg);
	/* The target of a symlink into buf; returns its length (no NUL). */
	long (*readlink)(struct vnode *vn, char *buf, size_t size);
	/*
	 * Whether a symlink is a magic one, naming a process's open file,
	 * cwd, root or program (NULL: none is).
	 */
	bool (*is_magic)(const struct vnode *vn);
	/*
	 * Make a new file of type mode & S_IFMT (S_IFREG, S_IFDIR, S_IFIFO,
	 * S_IFCHR, S_IFBLK, S_IFSOCK, S_IFLNK with target) in dir, owned
	 * by uid/gid.  -EEXIST when name exists.  Returns it referenced.
	 */
	int (*create)(struct vnode *dir, const char *name, uint32_t mode,
	    uint64_t rdev, const char *target, uint32_t uid, uint32_t gid,
	    struct vnode **vpp);
	/* A new name for vn in dir (-EEXIST, -EXDEV are the VFS's). */
	int (*link)(struct vnode *dir, const char *name, struct vnode *vn);
	/* Remove name: rmdir true for a directory (-ENOTEMPTY), else not. */
	int (*remove)(struct vnode *dir, const char *name, bool rmdir);
	int (*rename)(struct vnode *fromdir, const char *from,
	    struct vnode *todir, const char *to, unsigned flags);
	/* Called at open, for files with open-time behaviour (devices). */
	int (*open)(struct vnode *vn, struct file *fp);
	/* The last reference is gone: free the file system's part. */
	void (*inactive)(struct vnode *vn);
	/*
	 * fallocate(2) of a regular file, mode and range checked as the VFS
	 * checks them (the file system refuses modes it lacks, -EOPNOTSUPP,
	 * and ranges beyond its largest file, -EFBIG).  NULL: -EOPNOTSUPP.
	 */
	int (*fallocate)(struct vnode *vn, int mode, uint64_t off,
	    uint64_t len);
	/*
	 * lseek(2)'s SEEK_DATA (data) or SEEK_HOLE of a regular file, from
	 * off, which is below the file's size: where the next data or hole
	 * starts (the end of the file is a hole), or -ENXIO for no more
	 * data.  NULL: the whole file is data.
	 */
	int64_t (*seek_hole)(struct vnode *vn, uint64_t off, bool data);
	/* The figures of the file system vn is on; NULL: no figures. */
	int (*statfs)(struct vnode *vn, struct vfs_statfs *sf);
	/*
	 * Shared mappings (MAP_SHARED) of a regular file.  getpage gives
	 * the RAM page that holds page idx of the file, the one every
	 * mapping and read(2) see: 0, -ENXIO past the end of the file, or
	 * -ENOMEM.  map_pin counts the mappings (on: 0, or -ENOMEM when what
	 * it needs does not fit) and their ends (always 0): while any is
	 * left, the pages getpage gave stay where they are.
	 * maywrite: the mapping is or may become writable.  NULL: the
	 * file system cannot map its files shared.
	 */
	int (*getpage)(struct vnode *vn, uint64_t idx, uint64_t *ramoff);
	int (*map_pin)(struct vnode *vn, bool on, bool maywrite);
	/*
	 * Write what the kernel holds of the file in memory to where the
	 * file lives (msync(2)'s MS_ASYNC: VFS_SYNC_CACHE) and, with
	 * VFS_SYNC_DATA (fdatasync(2), MS_SYNC) or VFS_SYNC_ALL (fsync(2)),
	 * have that reach its disk.  NULL: there is nothing to write.  A
	 * file system without fsync(2), as Linux's proc, says -EINVAL.
	 */
	int (*fsync)(struct vnode *vn, enum vfs_sync how);
	/*
	 * sync_file_range(2) of [off, off + len) (len 0: to the end), flags
	 * its SYNC_FILE_RANGE_*: write what the kernel holds of the file to
	 * where it lives and have that write the range, waiting as flags
	 * ask.  NULL: there is nothing to write.
	 */
	int (*sync_range)(struct vnode *vn, uint64_t off, uint64_t len,
	    unsigned flags);
	/*
	 * A number that changes whenever directory dir's names change
	 * behind the VFS (on the host): the name cache trusts what it saw
	 * in dir only while the number stays.  0: it cannot tell, so
	 * nothing is cached.  NULL: names change only through the VFS.
	 */
	uint64_t (*names_version)(struct vnode *dir);
};

struct vnode {
	uint64_t id;                  /* never reused */
	int refs;
	enum vtype type;
	const struct vnode_ops *ops;
	struct mount *mount;          /* the file system it belongs to */
	/* The mounts on this directory, one per namespace, or NULL. */
	struct mount *covered_by;
	void *data;                   /* the file system's */
	int writers;                  /* open files that may write it */
	int opens;                    /* open files on it */
	int texts;                    /* process images running it */
	unsigned privmaps;            /* private mappings' entries (vm/) */
	struct vnode *rel_next;       /* vnode_rel's queue, once unreferenced */
};

/*
 * A mount of a file system in a namespace's table.  The first mount of a
 * file system is also the file system's own (its vnodes' mount): rdonly,
 * ncache, hostowners, magic and dev are the file system's there, and
 * copied to its other mounts (binds, namespaces' copies).
 */
struct mount {
	struct vnode *root;           /* its root directory (referenced) */
	struct vnode *covered;        /* the directory it is mounted on */
	struct mount *cover_next;     /* the next mount on covered */
	struct mount *hash_next;      /* in covered's and parent's bucket */
	struct mount *next, *prev;    /* in its table, in the order made */
	int nkids;                    /* mounts whose parent it is */
	struct mntns *ns;             /* its table's; NULL once out of it */
	struct mount *parent;         /* the mount its mount point is on */
	char *path;                   /* where, for /proc/mounts */
	const char *fstype;
	char *source;
	bool rdonly;
	bool ncache;                  /* names change only through the VFS */
	bool hostowners;              /* owners are host users: vfs_owner.c */
	bool ro_locked;               /* read-only for good: vkernel's option */
	uint32_t magic;               /* statfs(2)'s f_type */
	uint64_t dev;                 /* st_dev of its files */
	int id;                       /* mountinfo's, never reused */
	/* A file system's own: open files on its vnodes; unmounted, */
	/* with its watches' IN_UNMOUNT waiting for the last to close. */
	int opens;
	bool unmount_pending;
	/*
	 * A file system's own: its live vnodes, and what frees the whole
	 * file system (NULL: it stays for good, a singleton or a kernel's
	 * own).  Once its mount has left its table (detached), the file
	 * system goes when no mount shows it and no vnode of it is held
	 * but its root by this mount, as Linux frees a superblock at its
	 * last reference.  A bind or a namespace's copy goes at unmount.
	 */
	int vnodes;
	int nshown;                   /* mounts in tables that show it */
	void (*fs_free)(struct mount *fs);
	bool detached;
	bool kept;                    /* stays out of its table: tests */
	bool reap_queued;             /* on vnode_rel's list to look at */
	struct mount *reap_next;
	struct mount *copy;           /* its copy, while one is being made */
	LIST_ENTRY(mount) dlink;      /* the detached, kept while held */
	/*
	 * This mount's own MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC: a
	 * read-only mount of a file system that may be writable through
	 * its other mounts (rdonly is the file system's).
	 */
	unsigned long flags;
	/* Propagation (vfs_propagate.c): 0 for none of each. */
	int group;                    /* its peer group: shared:N */
	int master;                   /* the group it receives from */
	bool unbindable;
};

/* vfs_vnode.c */
struct vnode *vnode_alloc(struct mount *mp, enum vtype type,
    const struct vnode_ops *ops, void *data);
void vnode_ref(struct vnode *vn);
void vnode_rel(struct vnode *vn);
/* Read from vn into the RAM file at ramoff (ops->read_ram or read). */
long vnode_read_ram(struct vnode *vn, uint64_t ramoff, size_t len,
    uint64_t off);
/* SEEK_DATA or SEEK_HOLE (ops->seek_hole, or all data up to the end). */
int64_t vnode_seek_hole(struct vnode *vn, uint64_t off, bool data);
/*
 * Change a regular file's size (setattr's VA_SIZE), and then tell the
 * private mappings of it (vm_file_truncated()).
 */
int vn_truncate(struct vnode *vn, uint64_t size);
/* Mode, uid and gid for a permission check (ops->getperm or getattr). */
int vnode_getperm(struct vnode *vn, struct vattr *va);
/*
 * A running program may not be written, nor a file open for writing run:
 * ETXTBSY.  vnode_hold_text() counts a process image running vn (and
 * takes a reference), vnode_put_text() gives both back.
 */
bool vnode_is_magic(const struct vnode *vn);
int vnode_check_write(const struct vnode *vn);
int vnode_check_exec(const struct vnode *vn);
void vnode_hold_text(struct vnode *vn);
void vnode_put_text(struct vnode *vn);
enum vtype vtype_from_mode(uint32_t mode);

/*
 * vfs_ncache.c: lookup through the name cache, and the namespace ops,
 * which must go through these wrappers to keep it true.
 */
int ncache_lookup(struct vnode *dir, const char *name, struct vnode **vpp);
int vn_create(struct vnode *dir, const char *name, uint32_t mode,
    uint64_t rdev, const char *target, uint32_t uid, uint32_t gid,
    struct vnode **vpp);
int vn_remove(struct vnode *dir, const char *name, bool rmdir);
int vn_rename(struct vnode *fromdir, const char *from, struct vnode *todir,
    const char *to, unsigned flags);
int vn_link(struct vnode *dir, const char *name, struct vnode *vn);
/*
 * VK_TEST_HOOKS builds: forget every name (the fuzz harness's runs each
 * start with the cache empty).
 */
void ncache_flush(void);

/*
 * vfs_mount.c.  A new mount of a new file system, charged to the
 * sandbox (kmflags 0 or KM_FORCE, kmem.h): NULL when it does not fit.
 */
struct mount *mount_alloc(const char *fstype, const char *source,
    bool rdonly, int kmflags);
/*
 * A new mount, not yet mounted, of the file system fs is a mount of,
 * rooted at its directory root (which it references): a bind.  NULL
 * when the sandbox's memory is full.
 */
struct mount *mount_dup(const struct mount *fs, struct vnode *root);
/* Free mp, out of every table, a mount_dup()'s: its root is let go. */
void mount_free(struct mount *mp);
/* Free the struct of mp, whose file system has let its root go. */
void mount_destroy(struct mount *mp);
/*
 * A file system's fs_free when its root is all it has: the root goes,
 * then its mount.
 */
void mount_destroy_root(struct mount *mp);
/* Replace mp's path or source with a copy of s. */
void mount_set_path(struct mount *mp, const char *s);
void mount_set_source(struct mount *mp, const char *s);
/*
 * vnode_rel() let a vnode of detached file system fs go, or its root
 * down to the mount's own reference: fs may be unused now.  Nothing is
 * freed until vfs_fs_reap(), which vnode_rel() calls once no release is
 * under way, frees each such file system that is.
 */
void vfs_fs_maybe_unused(struct mount *fs);
void vfs_fs_reap(void);
/* p's mount namespace (NULL: boot's). */
struct mntns *vfs_ns(const struct proc *p);
/*
 * The mount of namespace ns on directory dir in the tree of mount at, or
 * with at NULL, any of ns's on dir.  A directory that several mounts
 * show (binds) is a mount point in each apart, as in Linux.
 */
struct mount *vfs_mount_on(const struct mntns *ns, const struct mount *at,
    const struct vnode *dir);
/*
 * The mount of ns that shows directory vn to a walk that came to it by
 * canonical path: the last made at path with vn for its root, else the
 * deepest above path of vn's file system; NULL when path tells nothing
 * of vn (a chrooted walk's paths are not the table's).
 */
struct mount *vfs_mount_showing(const struct mntns *ns,
    const struct vnode *vn, const char *path);
/*
 * The mount vn at path is in: the one showing it, else the deepest whose
 * path is above path.  A new mount on directory vn goes on this one.
 */
struct mount *vfs_mount_holding(const struct mntns *ns,
    const struct vnode *vn, const char *path);
/*
 * Whether a mount may go on directory dir at canonical path in ns:
 * ENOTDIR, or EBUSY when one is there already.
 */
int vfs_mount_check(const struct mntns *ns, const struct vnode *dir,
    const char *path);
/*
 * A namespace holds at most this many mounts, Linux's default
 * /proc/sys/fs/mount-max: one more is ENOSPC (mount_namespaces(7)).
 */
#define VFS_MOUNT_MAX 100000
/* Whether ns has room for one more mount: 0 or -ENOSPC. */
int vfs_mount_room(const struct mntns *ns);
/*
 * Mount mp on directory dir (NULL: as the root) in ns: 0, what
 * vfs_mount_check() says, or -ENOSPC.  Takes mp when it succeeds.
 */
int vfs_mount(struct mntns *ns, struct mount *mp, struct vnode *dir,
    const char *path);
/*
 * MS_BIND|MS_REC: copies on bind mp, the last mount made, of the mounts
 * below path that from, the mount path is on, shows: 0, -ENOMEM, or
 * -ENOSPC past VFS_MOUNT_MAX.
 */
int vfs_mount_copy_below(struct mount *mp, struct mount *from,
    const char *path);
/* Unmount mp and every mount made after it: a failed mount's undoing. */
void vfs_umount_since(struct mount *mp);
/* The first of ns's mounts, in the order made; each leads to the next. */
struct mount *vfs_mounts(const struct mntns *ns);
/* The last of them; each leads to the one before (prev). */
struct mount *vfs_mounts_last(const struct mntns *ns);
/* How many there are. */
int vfs_mount_count(const struct mntns *ns);
/* The root directory at boot. */
struct vnode *vfs_root(void);
/* The mount of ns last made at canonical path, or NULL. */
struct mount *vfs_mount_at(const struct mntns *ns, const char *path);
/*
 * The mount of ns whose root is vn, the one at canonical path (a
 * directory may be the root of several binds), or NULL.
 */
struct mount *vfs_mount_rooted(const struct mntns *ns,
    const struct vnode *vn, const char *path);
/* Whether canonical path is mp_path or below it. */
bool vfs_path_below(const char *path, const char *mp_path);
/* The mount a canonical path lies on: the last made deepest below it. */
struct mount *vfs_mount_of_path(const struct mntns *ns, const char *path);
/*
 * Whether what lies at canonical path may be changed as far as its mount
 * says (the file system's own read-only is its ops' to answer): 0, or
 * -EROFS on a read-only mount, as Linux's mnt_want_write().
 */
int vfs_path_writable(const struct mntns *ns, const char *path);
/* A new string: newp in place of path's first n bytes. */
char *vfs_path_rebase(const char *path, size_t n, const char *newp);
/*
 * Move mp, with what is mounted below it, onto directory dir, which
 * nothing covers, at path.  The caller checked that it may go there.
 */
void vfs_mount_move(struct mount *mp, struct vnode *dir, const char *path);
/*
 * Propagation type MS_SHARED, MS_PRIVATE, MS_SLAVE or MS_UNBINDABLE for
 * mp, and with rec (MS_REC) for every mount on it.
 */
void vfs_mount_set_propagation(struct mount *mp, unsigned long type,
    bool rec);
/* Whether mp or a mount on it is unbindable. */
bool vfs_mount_tree_unbindable(const struct mount *mp);
/* vfs_propagate.c: what MS_* type makes of m (mount_namespaces(7)). */
void vfs_propagation_make(struct mount *m, unsigned long type);
/*
 * mp, just mounted in its namespace, and unmounted next: a copy of it
 * goes to, or leaves, the other namespaces' peers and slaves of the
 * mount it is on.  vfs_mount_propagate() returns 0, or -ENOMEM when a
 * copy does not fit, with none mounted: the caller then takes mp away
 * again, as Linux fails the whole mount.
 */
int vfs_mount_propagate(struct mount *mp);
void vfs_umount_propagate(struct mount *mp);
/* The namespace after ns in the list of all (NULL: the first), or NULL. */
struct mntns *mntns_next(const struct mntns *ns);
/*
 * Take mp off its mount point and out of the table.  A bind or copy is
 * freed; a file system's own mount stays, detached, while its files are
 * in use, and goes with the file system after (see struct mount).
 */
void vfs_umount(struct mount *mp);
/*
 * The last open file on file system fs (its vnodes' mount) closed after
 * unmount_pending was set: its watches end now, unless it has been
 * mounted again.
 */
void vfs_fs_idle(struct mount *fs);
/*
 * Mount namespaces, held by the processes' fs state (NULL there: boot's,
 * which is never released).  mntns_dup() makes a copy of ns's table for
 * a new namespace (mount_namespaces(7)'s CLONE_NEWNS), referenced, or
 * returns NULL when it does not fit in the sandbox's memory;
 * mntns_install() puts ns (taking the reference) in *nsp's place and
 * lets the old one go.
 */
void mntns_ref(struct mntns *ns);
void mntns_rel(struct mntns *ns);
struct mntns *mntns_dup(const struct mntns *ns);
void mntns_install(struct mntns **nsp, struct mntns *ns);
/*
 * open_tree(2)'s OPEN_TREE_CLONE: a detached copy of the mount of ns at
 * canonical path, rooted at its directory root, in a namespace of its
 * own that no process is in; from is the mount path is on (NULL: none),
 * and rec (AT_RECURSIVE) copies the mounts on it too, but unbindable
 * ones and those on them.  Referenced, or NULL when it does not fit in
 * the sandbox's memory.  mntns_root(): its root mount, NULL once
 * mntns_attach() has moved the tree onto directory dir of ns at path,
 * which the caller checked it may go on (-ENOSPC: it would take ns past
 * VFS_MOUNT_MAX).
 */
struct mntns *mntns_tree(const struct mntns *ns, struct mount *from,
    struct vnode *root, const char *path, bool rec);
struct mount *mntns_root(const struct mntns *ns);
int mntns_attach(struct mntns *tree, struct mntns *ns, struct vnode *dir,
    const char *path);
/* Undo mntns_attach() of tree, whose root is root now. */
void mntns_unattach(struct mntns *tree, struct mntns *ns, struct mount *root);
/* The inode number of ns, as /proc/PID/ns/mnt names it. */
uint64_t mntns_ino(const struct mntns *ns);
/*
 * setns(2): *nsp (fs state's, NULL: boot's) becomes ns, letting the old
 * one go; *rootp is ns's root directory, referenced.
 */
void mntns_enter(struct mntns **nsp, struct mntns *ns, struct vnode **rootp);
/*
 * sys_mount.c: detach, as MNT_DETACH does, every mount of every namespace
 * whose mount point is a /proc directory of a process or thread that is
 * gone, with what is on it: Linux detaches them when it releases the task
 * (proc_flush_pid), else they would stay out of reach by any path.
 */
void vfs_umount_gone(void);
/*
 * VK_TEST_HOOKS builds: mount the unmounted mp, which kept set, on dir
 * again, as it was (the fuzz harness's mounts are those of the boot at
 * each run's start).
 */
int vfs_mount_again(struct mount *mp, struct vnode *dir);
/* VK_TEST_HOOKS builds: the most mounts a namespace holds from now. */
void vfs_mount_max_set(int max);
/* VK_TEST_HOOKS builds: the first of the detached mounts, or NULL. */
struct mount *vfs_detached_first(void);

#endif
