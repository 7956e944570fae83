/*
 * Open files and fd tables.
 *
 * The table is a plain array grown on demand, so the lowest free fd (which
 * POSIX requires open() and dup() to return) is a scan from minfd.  Files
 * on vnodes read and write through the vnode's ops; O_APPEND moves the
 * offset to the end before each write, as Linux does for one writer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vkern/kmem.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_lock.h"
#include "vkern/vk.h"

/* A file that may write a regular file: what ETXTBSY counts. */
static bool
file_writes_vnode(const struct file *fp)
{
	return fp->vn != NULL && fp->vn->type == VREG && file_writable(fp);
}

struct file *
file_alloc(const struct file_ops *ops, struct vnode *vn, unsigned flags,
    const char *path)
{
	/* Charged, never refused: the descriptor tables bound them. */
	struct file *fp = kmem_alloc(sizeof(*fp), KM_ZERO | KM_FORCE);

	fp->refs = 1;
	fp->ops = ops;
	fp->vn = vn;
	fp->flags = flags;
	fp->path = kmem_strdup(path != NULL ? path : "", KM_FORCE);
	fp->console_fd = -1;
	fp->seekable = vn != NULL && vn->type != VFIFO && vn->type != VSOCK;
	if (file_writes_vnode(fp))
		vn->writers++;
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
	lf_file_close(fp);
	if (fp->ops->close != NULL)
		fp->ops->close(fp);
	if (file_writes_vnode(fp))
		fp->vn->writers--;
	if (fp->vn != NULL)
		vnode_rel(fp->vn);
	kmem_strfree(fp->path, 0);
	kmem_free(fp, sizeof(*fp), 0);
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

static long
vn_file_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	long r;

	if (fp->vn->type == VDIR)
		return -EISDIR;
	if (fp->vn->ops->read == NULL)
		return -EINVAL;
	r = fp->vn->ops->read(fp->vn, buf, len, *offp);
	if (r > 0)
		*offp += (uint64_t)r;
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
	r = fp->vn->ops->write(fp->vn, buf, len, *offp);
	if (r > 0)
		*offp += (uint64_t)r;
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
};

/* --- fd tables --- */

static void
fd_grow(struct fdtable *t, int want)
{
	int n = t->n ? t->n : 16;

	while (n <= want)
		n *= 2;
	t->files = kmem_realloc(t->files, (size_t)t->n * sizeof(*t->files),
	    (size_t)n * sizeof(*t->files), KM_FORCE);
	t->cloexec = kmem_realloc(t->cloexec, (size_t)t->n, (size_t)n,
	    KM_FORCE);
	memset(&t->files[t->n], 0, (size_t)(n - t->n) * sizeof(*t->files));
	memset(&t->cloexec[t->n], 0, (size_t)(n - t->n));
	t->n = n;
}

int
fd_alloc(struct fdtable *t, struct file *fp, int minfd, int limit,
    bool cloexec)
{
	int fd;

	if (minfd < 0 || minfd >= limit) {
		file_rel(fp);
		return minfd < 0 ? -EINVAL : -EMFILE;
	}
	for (fd = minfd; fd < t->n && t->files[fd] != NULL; fd++)
		;
	if (fd >= limit) {
		file_rel(fp);
		return -EMFILE;
	}
	if (fd >= t->n)
		fd_grow(t, fd);
	t->files[fd] = fp;
	t->cloexec[fd] = cloexec;
	return fd;
}

int
fd_install(struct fdtable *t, int fd, struct file *fp, bool cloexec,
    int limit)
{
	struct file *old;

	if (fd < 0 || fd >= limit) {
		file_rel(fp);
		return -EBADF;
	}
	if (fd >= t->n)
		fd_grow(t, fd);
	old = t->files[fd];
	t->files[fd] = fp;
	t->cloexec[fd] = cloexec;
	if (old != NULL) {
		lf_fd_close(t, old);
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
fd_close(struct fdtable *t, int fd)
{
	struct file *fp = fd_get(t, fd);

	if (fp == NULL)
		return -EBADF;
	t->files[fd] = NULL;
	t->cloexec[fd] = 0;
	lf_fd_close(t, fp);
	file_rel(fp);
	return 0;
}

struct fdtable *
fdt_alloc(void)
{
	struct fdtable *t = kmem_alloc(sizeof(*t), KM_ZERO | KM_FORCE);

	t->refs = 1;
	return t;
}

struct fdtable *
fdt_copy(const struct fdtable *t)
{
	struct fdtable *c = fdt_alloc();

	if (t->n > 0)
		fd_grow(c, t->n - 1);
	for (int fd = 0; fd < t->n; fd++) {
		if ((c->files[fd] = t->files[fd]) != NULL)
			file_ref(c->files[fd]);
		c->cloexec[fd] = t->cloexec[fd];
	}
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
	kmem_free(t->files, (size_t)t->n * sizeof(*t->files), 0);
	kmem_free(t->cloexec, (size_t)t->n, 0);
	kmem_free(t, sizeof(*t), 0);
}

void
fdt_rel(struct fdtable *t)
{
	VK_ASSERT(t->refs > 0);
	if (--t->refs > 0)
		return;
	/* Closing may drop the last epoll holds, so the table goes after. */
	t->holds++;
	for (int fd = 0; fd < t->n; fd++)
		if (t->files[fd] != NULL)
			fd_close(t, fd);
	fdt_unhold(t);
}

void
fdt_hold(struct fdtable *t)
{
	t->holds++;
}

void
fdt_unhold(struct fdtable *t)
{
	VK_ASSERT(t->holds > 0);
	if (--t->holds == 0 && t->refs == 0)
		fdt_free(t);
}

void
fd_close_on_exec(struct fdtable *t)
{
	for (int fd = 0; fd < t->n; fd++)
		if (t->files[fd] != NULL && t->cloexec[fd])
			fd_close(t, fd);
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

/* An anon_inode file: a regular file of mode 0600, as Linux shows them. */
int
anon_stat(struct file *fp, struct vattr *va)
{
	*va = (struct vattr){ .mode = S_IFREG | 0600, .nlink = 1,
	    .ino = (uint64_t)(uintptr_t)fp, .blksize = 4096 };
	return 0;
}
