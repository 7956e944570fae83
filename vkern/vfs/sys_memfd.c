/*
 * memfd_create: an anonymous tmpfs file.
 *
 * memfds live in a tmpfs of their own that is mounted nowhere: each is
 * created under a unique name and unlinked at once, so the open file
 * holds the only reference and its pages go when the last fd closes.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/memfd.h>
#include <stdio.h>
#include <sys/stat.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

#define MFD_NAME_MAX 249
#define MFD_VALID (MFD_CLOEXEC | MFD_ALLOW_SEALING | 0x8U | 0x10U)

static struct mount *memfd_mnt;
static uint64_t memfd_seq;

long
sys_memfd_create(struct thread *td, const struct sys_memfd_create_args *a)
{
	struct proc *p = td->proc;
	char name[MFD_NAME_MAX + 1], tmp[32], path[MFD_NAME_MAX + 32];
	struct vnode *root, *vn;
	struct file *fp;
	long n;
	int r;

	/* MFD_HUGETLB and its size bits: there are no huge pages here. */
	if (a->flags & ~MFD_VALID)
		return -EINVAL;
	n = copyinstr(td, a->name, name, sizeof(name));
	if (n == -ENAMETOOLONG)
		return -EINVAL;
	if (n < 0)
		return n;
	if (memfd_mnt == NULL)
		tmpfs_mount(false, 01777, 0, 0, &memfd_mnt);
	root = memfd_mnt->root;
	snprintf(tmp, sizeof(tmp), "%lu", (unsigned long)memfd_seq++);
	if ((r = root->ops->create(root, tmp, S_IFREG | 0777, 0, NULL,
	    p->cred.fsuid, p->cred.fsgid, &vn)) < 0)
		return r;
	root->ops->remove(root, tmp, false);
	snprintf(path, sizeof(path), "/memfd:%s (deleted)", name);
	fp = file_alloc(&vn_fileops, vn, O_RDWR | O_LARGEFILE, path);
	return fd_alloc(&p->fdt, fp, 0, proc_nofile(p),
	    (a->flags & MFD_CLOEXEC) != 0);
}
