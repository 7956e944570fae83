/*
 * Open files and fd tables.
 *
 * The table is an array grown on demand with a bitmap of its open fds
 * and a summary bitmap of the bitmap's full words, so that the lowest
 * free fd (which POSIX requires open() and dup() to return) is found by
 * looking at one word of the summary per 4096 fds.  Files
 * on vnodes read and write through the vnode's ops; O_APPEND moves the
 * offset to the end before each write, as Linux does for one writer.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/inotify.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_notify.h"
#include "vkern/vfs/vfs_lock.h"
#include "vkern/vk.h"

/* A file that may write a regular file: what ETXTBSY counts. */
static bool
file_writes_vnode(const struct file *fp)
{
	return fp->vn != NULL && fp->vn->type == VREG && file_writable(fp);
}

uint64_t file_max = UINT64_MAX;
static uint64_t file_count;

struct file *
file_alloc(const struct file_ops *ops, struct vnode *vn, unsigned flags,
    const char *path)
{
	/* Charged, never refused: the descriptor tables bound them. */
	struct file *fp = kmem_alloc(sizeof(*fp), KM_ZERO | KM_FORCE);

	file_count++;
	fp->fresh = true;
	fp->refs = 1;
	fp->ops = ops;
	fp->vn = vn;
	fp->flags = flags;
	fp->path = kmem_strdup(path != NULL ? path : "", KM_FORCE);
	fp->console_fd = -1;
	fp->seekable = vn != NULL && vn->type != VFIFO && vn->type != VSOCK;
	if (file_writes_vnode(fp))
		vn->writers++;
	if (vn != NULL) {
		vn->opens++;
		vn->mount->opens++;
	}
	return fp;
}

void
file_ref(struct file *fp)
{
	VK_ASSERT(fp->refs > 0);
	fp->refs++;
}

void
file_rel(struct file *fp)
{
	VK_ASSERT(fp->refs > 0);
	if (--fp->refs > 0)
		return;
	if (fp->flags & O_ASYNC)
		fown_close(fp);
	epoll_file_gone(fp);
	lf_file_close(fp);
	if (fp->ops->close != NULL)
		fp->ops->close(fp);
	if (fp->vn != NULL) {
		fp->vn->opens--;
		fp->vn->mount->opens--;
	}
	vnotify_close(fp);
	if (fp->vn != NULL && fp->vn->mount->opens == 0 &&
	    fp->vn->mount->unmount_pending)
		vfs_fs_idle(fp->vn->mount);
	if (file_writes_vnode(fp))
		fp->vn->writers--;
	if (fp->tree != NULL)
		mntns_rel(fp->tree);
	if (fp->vn != NULL)
		vnode_rel(fp->vn);
	kmem_strfree(fp->path, 0);
	kmem_free(fp, sizeof(*fp), 0);
	file_count--;
}

uint64_t
file_nlive(void)
{
	return file_count;
}

bool
file_readable(const struct file *fp)
{
	return (fp->flags & O_ACCMODE) != O_WRONLY && !(fp->flags & O_PATH);
}

bool
file_writable(const struct file *fp)
{
	return (fp->flags & O_ACCMODE) != O_RDONLY && !(fp->flags & O_PATH);
}

/* --- files on vnodes --- */

/* SIGXFSZ to p, as Linux's send_sig() from the writer's own context. */
static int
vfs_fsize_exceeded(struct proc *p)
{
	uint8_t info[128];

	sig_info_user(info, SIGXFSZ, SI_USER, p->pid, p->cred.uid);
	sig_post(p->main, SIGXFSZ, info, 0);
	return -EFBIG;
}

int
vfs_fsize_write(struct proc *p, uint64_t pos, size_t *lenp)
{
	uint64_t lim = p->rlim[RLIMIT_FSIZE].cur;

	if (lim == RLIM64_INFINITY || *lenp == 0)
		return 0;
	if (pos >= lim)
		return vfs_fsize_exceeded(p);
	*lenp = (size_t)VK_MIN((uint64_t)*lenp, lim - pos);
	return 0;
}

int
vfs_fsize_grow(struct proc *p, struct vnode *vn, uint64_t size)
{
	uint64_t lim = p->rlim[RLIMIT_FSIZE].cur;
	struct vattr va;
	int r;

	if (lim == RLIM64_INFINITY || size <= lim)
		return 0;
	if ((r = vn->ops->getattr(vn, &va)) < 0)
		return r;
	return va.size < size ? vfs_fsize_exceeded(p) : 0;
}

static long
vn_file_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	long r;

	if (fp->vn->type == VDIR)
		return -EISDIR;
	if (fp->vn->ops->read == NULL)
		return -EINVAL;
	r = fp->vn->ops->read(fp->vn, buf, len, *offp);
	if (r > 0) {
		*offp += (uint64_t)r;
		vnotify_event(fp->vn, IN_ACCESS);
	}
	return r;
}

static long
vn_file_write(struct file *fp, const void *buf, size_t len, uint64_t *offp)
{
	struct vattr va;
	long r;

	if (fp->vn->ops->write == NULL)
		return -EINVAL;
	/* As Linux, O_APPEND appends even a pwrite (see pwrite(2), BUGS). */
	if (fp->flags & O_APPEND) {
		if ((r = fp->vn->ops->getattr(fp->vn, &va)) < 0)
			return r;
		*offp = va.size;
	}
	if (fp->vn->type == VREG && curthread != NULL &&
	    (r = vfs_fsize_write(curthread->proc, *offp, &len)) < 0)
		return r;
	/* A guest's write takes set-id bits away, as Linux's. */
	if (len > 0 && curthread != NULL &&
	    (r = vfs_remove_privs(curthread->proc, fp->vn)) < 0)
		return r;
	r = fp->vn->ops->write(fp->vn, buf, len, *offp);
	if (r > 0) {
		*offp += (uint64_t)r;
		vnotify_event(fp->vn, IN_MODIFY);
	}
	return r;
}

static int
vn_file_stat(struct file *fp, struct vattr *va)
{
	return fp->vn->ops->getattr(fp->vn, va);
}

const struct file_ops vn_fileops = {
	.read = vn_file_read,
	.write = vn_file_write,
	.stat = vn_file_stat,
	.syncs = true,
};

/* --- fd tables --- */

#define FD_WORD(fd)     ((size_t)(fd) / 64)
#define FD_BIT(fd)      (1ULL << ((unsigned)(fd) % 64))

/* Words of a bitmap of n bits. */
static size_t
bits_words(size_t n)
{
	return (n + 63) / 64;
}

/* The lowest bit >= i of map (nbits long) that is set, or clear; or nbits. */
static size_t
bits_next(const uint64_t *map, size_t nbits, size_t i, bool set)
{
	uint64_t flip = set ? 0 : ~0ULL;

	for (size_t w = i / 64; w < bits_words(nbits); w++) {
		uint64_t m = map[w] ^ flip;

		if (w == i / 64)
			m &= ~0ULL << (i % 64);
		if (m != 0)
			return VK_MIN(w * 64 + (size_t)__builtin_ctzll(m),
			    nbits);
	}
	return nbits;
}

/*
 * The array p of old elements of size sz made n long, the new ones 0.
 * Charged, never refused: RLIMIT_NOFILE bounds the table.
 */
static void *
array_grow(void *p, size_t old, size_t n, size_t sz)
{
	return kmem_realloc(p, old * sz, n * sz, KM_ZERO | KM_FORCE);
}

/*
 * The lowest fd >= from that is not open, or t->n when every slot from
 * there on is: the word of from first, then the summary finds the first
 * word after it with a free slot, 4096 fds to a summary word.
 */
static size_t
fd_lowest_free(const struct fdtable *t, size_t from)
{
	size_t nw = (size_t)t->n / 64, w = FD_WORD(from);
	uint64_t bits;

	if (w >= nw)
		return from;
	bits = t->open[w] | (FD_BIT(from) - 1);
	if (bits != ~0ULL)
		return w * 64 + (size_t)__builtin_ctzll(~bits);
	if ((w = bits_next(t->full, nw, w + 1, false)) == nw)
		return (size_t)t->n;
	return w * 64 + (size_t)__builtin_ctzll(~t->open[w]);
}

/*
 * Grow t to hold fd (below limit): to the next power of two, as Linux,
 * but never past the limit rounded to a word, so that the table stays
 * bounded by RLIMIT_NOFILE.  Slots are a multiple of 64, one bitmap word.
 */
static void
fd_grow(struct fdtable *t, int fd, int limit)
{
	size_t n = 64, old = (size_t)t->n, ow, nw;

	while (n <= (size_t)fd)
		n *= 2;
	n = VK_MAX(VK_MIN(n, VK_ROUND_UP((size_t)limit, 64)),
	    VK_ROUND_UP((size_t)fd + 1, 64));
	if (n <= old)
		return;
	ow = old / 64;
	nw = n / 64;
	t->files = array_grow(t->files, old, n, sizeof(*t->files));
	t->open = array_grow(t->open, ow, nw, sizeof(uint64_t));
	t->cloexec = array_grow(t->cloexec, ow, nw, sizeof(uint64_t));
	t->full = array_grow(t->full, bits_words(ow), bits_words(nw),
	    sizeof(uint64_t));
	t->n = (int)n;
}

/* Put fp in the free slot fd, keeping the summary of full words. */
static void
fd_fill(struct fdtable *t, int fd, struct file *fp, bool cloexec)
{
	size_t w = FD_WORD(fd);

	fp->fresh = false;
	t->files[fd] = fp;
	t->open[w] |= FD_BIT(fd);
	if (t->open[w] == ~0ULL)
		t->full[w / 64] |= 1ULL << (w % 64);
	if (cloexec)
		t->cloexec[w] |= FD_BIT(fd);
	else
		t->cloexec[w] &= ~FD_BIT(fd);
}

/* Empty the open slot fd; returns what it held. */
static struct file *
fd_clear(struct fdtable *t, int fd)
{
	size_t w = FD_WORD(fd);
	struct file *fp = t->files[fd];

	t->files[fd] = NULL;
	t->open[w] &= ~FD_BIT(fd);
	t->full[w / 64] &= ~(1ULL << (w % 64));
	t->cloexec[w] &= ~FD_BIT(fd);
	return fp;
}

/*
 * What a descriptor's close ends before the file may go: the table's
 * POSIX locks on it, and what its kind ties to the closing process.
 */
static void
fd_flush(const struct fdtable *t, struct file *fp)
{
	lf_fd_close(t, fp);
	if (fp->ops->flush != NULL)
		fp->ops->flush(fp, t);
}

int
fd_alloc(struct fdtable *t, struct file *fp, int minfd, int limit,
    bool cloexec)
{
	size_t fd;

	if (minfd < 0 || minfd >= limit) {
		file_rel(fp);
		return minfd < 0 ? -EINVAL : -EMFILE;
	}
	if ((fd = fd_lowest_free(t, (size_t)minfd)) >= (size_t)limit) {
		file_rel(fp);
		return -EMFILE;
	}
	/*
	 * A new file past the sandbox's count goes again: ENFILE, as
	 * Linux's file-max, and after the fd check as there.
	 */
	if (fp->fresh && file_count > file_max) {
		file_rel(fp);
		return -ENFILE;
	}
	if (fd >= (size_t)t->n)
		fd_grow(t, (int)fd, limit);
	fd_fill(t, (int)fd, fp, cloexec);
	return (int)fd;
}

int
fd_install(struct fdtable *t, int fd, struct file *fp, bool cloexec,
    int limit)
{
	struct file *old = NULL;

	if (fd < 0 || fd >= limit) {
		file_rel(fp);
		return -EBADF;
	}
	if (fd >= t->n)
		fd_grow(t, fd, limit);
	if (t->files[fd] != NULL)
		old = fd_clear(t, fd);
	fd_fill(t, fd, fp, cloexec);
	if (old != NULL) {
		fd_flush(t, old);
		file_rel(old);
	}
	return fd;
}

struct file *
fd_get(struct fdtable *t, int fd)
{
	if (fd < 0 || fd >= t->n)
		return NULL;
	return t->files[fd];
}

int
fd_next(const struct fdtable *t, int from)
{
	size_t fd;

	if (from < 0 || from >= t->n)
		return -1;
	fd = bits_next(t->open, (size_t)t->n, (size_t)from, true);
	return fd < (size_t)t->n ? (int)fd : -1;
}

bool
fd_cloexec(const struct fdtable *t, int fd)
{
	if (fd < 0 || fd >= t->n)
		return false;
	return (t->cloexec[FD_WORD(fd)] & FD_BIT(fd)) != 0;
}

int
fd_set_cloexec(struct fdtable *t, int fd, bool on)
{
	if (fd < 0 || fd >= t->n || t->files[fd] == NULL)
		return -EBADF;
	if (on)
		t->cloexec[FD_WORD(fd)] |= FD_BIT(fd);
	else
		t->cloexec[FD_WORD(fd)] &= ~FD_BIT(fd);
	return 0;
}

struct file *
fd_take(struct fdtable *t, int fd)
{
	struct file *fp;

	if (fd_get(t, fd) == NULL)
		return NULL;
	fp = fd_clear(t, fd);
	fd_flush(t, fp);
	return fp;
}

int
fd_close(struct fdtable *t, int fd)
{
	struct file *fp = fd_take(t, fd);

	if (fp == NULL)
		return -EBADF;
	file_rel(fp);
	return 0;
}

void
fd_close_range(struct fdtable *t, unsigned first, unsigned last,
    bool cloexec)
{
	if (t->n == 0 || first >= (unsigned)t->n)
		return;
	last = VK_MIN(last, (unsigned)t->n - 1);
	for (int fd = fd_next(t, (int)first); fd >= 0 &&
	    (unsigned)fd <= last; fd = fd_next(t, fd + 1)) {
		if (cloexec)
			(void)fd_set_cloexec(t, fd, true);
		else
			(void)fd_close(t, fd);
	}
}

struct fdtable *
fdt_alloc(void)
{
	struct fdtable *t = kmem_alloc(sizeof(*t), KM_ZERO | KM_FORCE);

	t->refs = 1;
	return t;
}

/*
 * As Linux's dup_fd(), the copy is only as big as the words up to the
 * highest open fd: a fork after a dup2() to a high fd was closed does
 * not copy the empty slots.
 */
struct fdtable *
fdt_copy(const struct fdtable *t)
{
	struct fdtable *c = fdt_alloc();
	size_t nw = (size_t)t->n / 64;

	while (nw > 0 && t->open[nw - 1] == 0)
		nw--;
	if (nw == 0)
		return c;
	fd_grow(c, (int)(nw * 64 - 1), (int)(nw * 64));
	memcpy(c->files, t->files, nw * 64 * sizeof(*t->files));
	memcpy(c->open, t->open, nw * sizeof(uint64_t));
	memcpy(c->cloexec, t->cloexec, nw * sizeof(uint64_t));
	memcpy(c->full, t->full, bits_words(nw) * sizeof(uint64_t));
	for (int fd = fd_next(c, 0); fd >= 0; fd = fd_next(c, fd + 1))
		file_ref(c->files[fd]);
	return c;
}

void
fdt_ref(struct fdtable *t)
{
	VK_ASSERT(t->refs > 0);
	t->refs++;
}

static void
fdt_free(struct fdtable *t)
{
	size_t nw = (size_t)t->n / 64;

	kmem_free(t->files, (size_t)t->n * sizeof(*t->files), 0);
	kmem_free(t->open, nw * sizeof(uint64_t), 0);
	kmem_free(t->cloexec, nw * sizeof(uint64_t), 0);
	kmem_free(t->full, bits_words(nw) * sizeof(uint64_t), 0);
	kmem_free(t, sizeof(*t), 0);
}

void
fdt_rel(struct fdtable *t)
{
	VK_ASSERT(t->refs > 0);
	if (--t->refs > 0)
		return;
	fd_close_range(t, 0, ~0U, false);
	fdt_free(t);
}

void
fd_close_on_exec(struct fdtable *t)
{
	for (size_t w = 0; w < (size_t)t->n / 64; w++) {
		for (uint64_t m = t->cloexec[w]; m != 0; m &= m - 1)
			(void)fd_close(t, (int)(w * 64 +
			    (size_t)__builtin_ctzll(m)));
	}
}

/* --- anonymous files --- */

long
anon_read_einval(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	return -EINVAL;
}

long
anon_write_einval(struct file *fp, const void *buf, size_t len,
    uint64_t *offp)
{
	return -EINVAL;
}

/*
 * An anon_inode file: Linux's share one inode, root's, of mode 0600 and
 * no file type.
 */
int
anon_stat(struct file *fp, struct vattr *va)
{
	*va = (struct vattr){ .mode = 0600, .nlink = 1, .ino = ANON_INODE_INO,
	    .dev = ANON_INODE_DEV, .blksize = 4096 };
	return 0;
}
