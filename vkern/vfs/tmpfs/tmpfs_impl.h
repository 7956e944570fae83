/*
 * tmpfs internals shared by its two halves: tmpfs.c (the tree of names
 * and attributes, mounting) and tmpfs_file.c (the data of regular files).
 * Nothing outside vkern/vfs/tmpfs/ includes this.
 */
#ifndef VK_VFS_TMPFS_IMPL_H
#define VK_VFS_TMPFS_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vattr;
struct vnode;

#define PGT_SHIFT  9
#define PGT_FANOUT (1U << PGT_SHIFT)
#define PGT_MASK   (PGT_FANOUT - 1)

/* A radix tree node: child pointers inside, RAM offsets in the leaves. */
struct pgt_node {
	union {
		struct pgt_node *child[PGT_FANOUT];
		uint64_t page[PGT_FANOUT];
	};
};

struct tmpfs_fs {
	struct tmpfs_node *root;
	uint64_t next_ino;
	uint64_t nnodes;                /* live nodes, for statfs */
	uint64_t nextra;                /* names beyond each file's first */
	uint64_t npages;                /* data pages: files, long symlinks */
	uint64_t max_pages;             /* size=, in pages; 0: none */
	uint64_t max_nodes;             /* nr_inodes=; 0: none */
	unsigned nvnodes;               /* live vnodes, for unmount */
	bool disk;                      /* its data counts against --disk */
};

struct tmpfs_dirent {
	struct tmpfs_dirent *hnext;     /* hash chain */
	struct tmpfs_node *node;
	char *name;
	size_t namelen;
	uint64_t seq;                   /* readdir order; never reused */
	uint32_t hash;
};

struct tmpfs_dir {
	struct tmpfs_dirent **ents;     /* sorted by seq */
	size_t nents, cap;
	struct tmpfs_dirent **htab;     /* hsize buckets, a power of two */
	size_t hsize;
	uint64_t next_seq;
	struct tmpfs_node *parent;      /* the root's own; NULL once removed */
	uint64_t nsubdirs;
	bool opaque;
	bool lower_attrs;               /* an overlay shows the lower's */
};

struct tmpfs_file {
	struct pgt_node *root;          /* NULL exactly when height is 0 */
	unsigned height;                /* a leaf alone is height 1 */
	uint64_t npages;                /* allocated, for st_blocks */
	unsigned mapped;                /* MAP_SHARED mappings of it */
	unsigned wmapped;               /* those that may be made writable */
	unsigned seals;                 /* F_SEAL_* */
};

struct tmpfs_node {
	struct tmpfs_fs *fs;
	struct vnode *vnode;            /* while referenced, else NULL */
	uint64_t ino, rdev, size;
	uint64_t origin;                /* an overlay's copy: the lower ino */
	uint64_t nlink;                 /* names; dirs: 1 linked, 0 removed */
	uint32_t mode, uid, gid;
	int64_t atime, mtime, ctime, btime;
	union {
		struct tmpfs_dir dir;
		struct tmpfs_file reg;
		char *target;           /* symlinks */
	};
};

/* tmpfs_file.c: pages of data on file systems counted by --disk. */
extern uint64_t tmpfs_disk_used;

/*
 * A symlink target this long or longer takes a page of its file
 * system's size, as Linux's shmem keeps it in a page, not in the inode
 * (SHORT_SYMLINK_LEN with its NUL).
 */
#define TMPFS_SYMLINK_PAGE 128

/* tmpfs_file.c: whether n more data pages fit fs's size= and --disk. */
bool tmpfs_fs_room(const struct tmpfs_fs *fs, uint64_t n);
/* fs holds n data pages more (or fewer). */
void tmpfs_fs_count(struct tmpfs_fs *fs, int64_t n);

/* tmpfs.c */
int64_t tmpfs_now(void);
/* Move atime as Linux's default relatime does. */
void tmpfs_touch_atime(struct tmpfs_node *np);

/* tmpfs_file.c: regular files' data, and their vnode ops. */
/* Free all of a file's pages (its node is going). */
void tmpfs_file_free(struct tmpfs_file *f);
/*
 * Set the size of a regular file: a shrink frees, growth makes a hole.
 * A mapped file keeps its pages (a stub may still map them) and has them
 * zeroed instead, so nothing stale comes back if it grows again.
 */
void tmpfs_file_resize(struct tmpfs_node *np, uint64_t size);
/*
 * Whether the seals let setattr change what mask says (VA_SIZE,
 * VA_MODE) of regular file np: 0 or -EPERM.
 */
int tmpfs_seals_check_setattr(const struct tmpfs_node *np,
    const struct vattr *va, unsigned mask);
int tmpfs_fallocate(struct vnode *vn, int mode, uint64_t off, uint64_t len);
long tmpfs_read(struct vnode *vn, void *buf, size_t len, uint64_t off);
int64_t tmpfs_seek_hole(struct vnode *vn, uint64_t off, bool data);
long tmpfs_write(struct vnode *vn, const void *buf, size_t len,
    uint64_t off);

#endif
