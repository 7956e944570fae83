/*
 * The KCOV device: a kcov per open file, its area a tmpfs file of its
 * own that the guest maps and the kernel writes through the RAM file
 * (kcov.h says what the guest sees; kcov_pc.c writes the PCs).
 *
 * The area's pages are made and pinned by KCOV_INIT_TRACE, as Linux
 * allocates its area then, so that the pointers kept to them stay good
 * whatever the guest maps or unmaps; they go with the last reference.
 */
#include <errno.h>
#include <limits.h>
#include <linux/kcov.h>
#include <sys/ioctl.h>

#include "vkern/kern/kcov.h"
#include "vkern/kern/proc.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"

/* Linux's kernel-internal "operation not supported" (linux/errno.h). */
#define KCOV_ENOTSUPP 524

#ifdef VK_KCOV
const bool kcov_built = true;
#else
const bool kcov_built = false;
#endif

struct kcov *kcov_active;

static void kcov_close(struct file *fp);

static const struct file_ops kcov_fileops = {
	.read = anon_read_einval,
	.write = anon_write_einval,
	.stat = anon_stat,
	.close = kcov_close,
};

static void
kcov_rel(struct kcov *kc)
{
	if (--kc->refs > 0)
		return;
	if (kc->pages != NULL) {
		kc->vn->ops->map_pin(kc->vn, false, true);
		kmem_free(kc->pages, VK_ROUND_UP(kc->size,
		    KCOV_WORDS_PER_PAGE) / KCOV_WORDS_PER_PAGE *
		    sizeof(*kc->pages), 0);
	}
	vnode_rel(kc->vn);
	kmem_free(kc, sizeof(*kc), 0);
}

struct file *
kcov_open(unsigned flags, const char *path, int *errp)
{
	struct kcov *kc;
	struct vnode *vn;
	struct file *fp;

	if ((*errp = tmpfs_unlinked(0600, 0, 0, &vn)) < 0)
		return NULL;
	if ((kc = kmem_alloc(sizeof(*kc), KM_ZERO)) == NULL) {
		vnode_rel(vn);
		*errp = -ENOMEM;
		return NULL;
	}
	fp = file_alloc(&kcov_fileops, vn, flags, path);
	vnode_ref(vn);
	kc->vn = vn;
	kc->refs = 1;
	fp->data = kc;
	return fp;
}

bool
kcov_is_file(const struct file *fp)
{
	return fp->ops == &kcov_fileops;
}

static void
kcov_close(struct file *fp)
{
	kcov_rel(fp->data);
}

/* Make the area of size words and keep the kernel's view of each page. */
static int
kcov_area_make(struct kcov *kc, uint64_t size)
{
	uint64_t npages = VK_ROUND_UP(size, KCOV_WORDS_PER_PAGE) /
	    KCOV_WORDS_PER_PAGE;
	struct vattr va = { .size = size * sizeof(uint64_t) };
	struct vnode *vn = kc->vn;
	uint64_t off;
	int r;

	if ((r = vn->ops->setattr(vn, &va, VA_SIZE)) < 0)
		return r == -ENOSPC ? -ENOMEM : r;
	if ((r = vn->ops->map_pin(vn, true, true)) < 0)
		return r;
	kc->pages = kmem_alloc(npages * sizeof(*kc->pages), 0);
	for (uint64_t i = 0; kc->pages != NULL && i < npages; i++) {
		if ((r = vn->ops->getpage(vn, i, &off)) < 0)
			break;
		kc->pages[i] = (volatile uint64_t *)((char *)plat_ram_base() +
		    off);
	}
	if (kc->pages == NULL || r < 0) {
		kmem_free(kc->pages, npages * sizeof(*kc->pages), 0);
		kc->pages = NULL;
		vn->ops->map_pin(vn, false, true);
		return -ENOMEM;
	}
	kc->size = size;
	return 0;
}

/* As Linux's kcov_ioctl_locked(): the order of the checks is its own. */
static long
kcov_enable(struct thread *td, struct kcov *kc, uint64_t mode)
{
	if (kc->mode != KCOV_READY)
		return -EINVAL;
	if (kc->td != NULL || td->kcov != NULL)
		return -EBUSY;
	if (mode == KCOV_TRACE_CMP)
		return -KCOV_ENOTSUPP;
	if (mode != KCOV_TRACE_PC)
		return -EINVAL;
	kc->mode = KCOV_ON;
	kc->td = td;
	kc->refs++;
	td->kcov = kc;
	return 0;
}

static void
kcov_disable(struct kcov *kc)
{
	if (kcov_active == kc)
		kcov_active = NULL;
	kc->td->kcov = NULL;
	kc->td = NULL;
	kc->mode = KCOV_READY;
	kcov_rel(kc);
}

long
kcov_ioctl(struct thread *td, struct file *fp, unsigned cmd, uint64_t arg)
{
	struct kcov *kc = fp->data;
	int r;

	switch (cmd) {
	case KCOV_INIT_TRACE:
		if (arg < 2 || arg > INT_MAX / sizeof(uint64_t))
			return -EINVAL;
		if (kc->mode != KCOV_OFF)
			return -EBUSY;
		if ((r = kcov_area_make(kc, arg)) < 0)
			return r;
		kc->mode = KCOV_READY;
		return 0;
	case KCOV_ENABLE:
		return kcov_enable(td, kc, arg);
	case KCOV_DISABLE:
		if (arg != 0 || td->kcov != kc)
			return -EINVAL;
		kcov_disable(kc);
		return 0;
	case KCOV_REMOTE_ENABLE:
		/* XXX: no background work runs for a guest thread. */
		return -KCOV_ENOTSUPP;
	}
	return -ENOTTY;
}

int
kcov_mmap_check(const struct file *fp, uint64_t len, uint64_t off)
{
	const struct kcov *kc = fp->data;

	if (!kcov_is_file(fp))
		return 0;
	if (kc->mode == KCOV_OFF || off != 0 ||
	    VK_ROUND_UP(len, VK_PAGE_SIZE) != kc->size * sizeof(uint64_t))
		return -EINVAL;
	return 0;
}

void
kcov_thread_exit(struct thread *td)
{
	if (td->kcov != NULL)
		kcov_disable(td->kcov);
}
