/*
 * Vnode life cycle.  A vnode lives while it is referenced: by a lookup's
 * caller, an open file, a process's root or cwd, a mount, or the file
 * system's own cache of live vnodes.  The last vnode_rel() hands it to
 * its file system's inactive op and frees it.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/inotify.h>

#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_notify.h"
#include "vkern/vk.h"
#include "vkern/vm/vm_map.h"

struct vnode *
vnode_alloc(struct mount *mp, enum vtype type, const struct vnode_ops *ops,
    void *data)
{
	static uint64_t next_id = 1;
	/* Never refused: each is for a file a charged object stands for. */
	struct vnode *vn = kmem_alloc(sizeof(*vn), KM_ZERO | KM_FORCE | KM_FS);

	vn->id = next_id++;
	vn->refs = 1;
	vn->type = type;
	vn->ops = ops;
	vn->mount = mp;
	vn->data = data;
	if (mp != NULL)
		mp->vnodes++;
	return vn;
}

void
vnode_ref(struct vnode *vn)
{
	VK_ASSERT(vn->refs > 0);
	vn->refs++;
}

/*
 * Whether what let vn go (free: it is gone) may have left its detached
 * file system unused: nothing but its root, held by its mount alone.
 */
static bool
vnode_fs_idle(const struct mount *fs, const struct vnode *vn, bool gone)
{
	return fs != NULL && fs->detached && fs->vnodes == 1 &&
	    fs->root->refs == 1 && (gone || vn == fs->root);
}

/*
 * An inactive op drops references of its own (an overlay or hostfs vnode
 * its parent's), and a guest can nest directories deeper than the stack
 * would take such a chain unwinding by recursion.  So a last release made
 * inside another one only queues the vnode, and the outermost call frees
 * the queue in a loop.  A detached file system that may be unused now is
 * freed only after that, when no release is under way.
 */
void
vnode_rel(struct vnode *vn)
{
	static struct vnode *queue;
	static bool draining;
	struct mount *fs = vn->mount;

	VK_ASSERT(vn->refs > 0);
	if (--vn->refs > 0) {
		if (vnode_fs_idle(fs, vn, false)) {
			vfs_fs_maybe_unused(fs);
			if (!draining)
				vfs_fs_reap();
		}
		return;
	}
	vn->rel_next = queue;
	queue = vn;
	if (draining)
		return;
	draining = true;
	while ((vn = queue) != NULL) {
		queue = vn->rel_next;
		fs = vn->mount;
		if (vn->ops->inactive != NULL)
			vn->ops->inactive(vn);
		kmem_free(vn, sizeof(*vn), KM_FS);
		if (fs == NULL)
			continue;
		fs->vnodes--;
		if (vnode_fs_idle(fs, NULL, true))
			vfs_fs_maybe_unused(fs);
	}
	draining = false;
	vfs_fs_reap();
}

long
vnode_read_ram(struct vnode *vn, uint64_t ramoff, size_t len, uint64_t off)
{
	if (vn->ops->read_ram != NULL)
		return vn->ops->read_ram(vn, ramoff, len, off);
	return vn->ops->read(vn, (char *)plat_ram_base() + ramoff, len, off);
}

int64_t
vnode_seek_hole(struct vnode *vn, uint64_t off, bool data)
{
	struct vattr va;
	int r;

	if (vn->ops->seek_hole != NULL)
		return vn->ops->seek_hole(vn, off, data);
	if (data)
		return (int64_t)off;
	if ((r = vn->ops->getattr(vn, &va)) < 0)
		return r;
	return (int64_t)va.size;
}

int
vnode_getperm(struct vnode *vn, struct vattr *va)
{
	if (vn->ops->getperm != NULL)
		return vn->ops->getperm(vn, va);
	return vn->ops->getattr(vn, va);
}

bool
vnode_is_magic(const struct vnode *vn)
{
	return vn->type == VLNK && vn->ops->is_magic != NULL &&
	    vn->ops->is_magic(vn);
}

int
vn_truncate(struct vnode *vn, uint64_t size)
{
	struct vattr va = { .size = size };
	int r;

	if ((r = vn->ops->setattr(vn, &va, VA_SIZE)) < 0)
		return r;
	vm_file_truncated(vn, size);
	vnotify_event(vn, IN_MODIFY);
	return 0;
}

int
vnode_check_write(const struct vnode *vn)
{
	return vn->type == VREG && vn->texts > 0 ? -ETXTBSY : 0;
}

int
vnode_check_exec(const struct vnode *vn)
{
	return vn->writers > 0 ? -ETXTBSY : 0;
}

void
vnode_hold_text(struct vnode *vn)
{
	vnode_ref(vn);
	vn->texts++;
}

void
vnode_put_text(struct vnode *vn)
{
	VK_ASSERT(vn->texts > 0);
	vn->texts--;
	vnode_rel(vn);
}

enum vtype
vtype_from_mode(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return VREG;
	case S_IFDIR: return VDIR;
	case S_IFLNK: return VLNK;
	case S_IFCHR: return VCHR;
	case S_IFBLK: return VBLK;
	case S_IFIFO: return VFIFO;
	case S_IFSOCK: return VSOCK;
	}
	return VNON;
}
