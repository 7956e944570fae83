/*
 * memfd_create, and the seals of fcntl(2) (F_ADD_SEALS, F_GET_SEALS).
 *
 * memfds live in a tmpfs of their own that is mounted nowhere: each is
 * created under a unique name and unlinked at once, so the open file
 * holds the only reference and its pages go when the last fd closes.
 * Seals belong to the tmpfs file (see tmpfs.h), which enforces them; a
 * memfd made without MFD_ALLOW_SEALING starts sealed with F_SEAL_SEAL,
 * like every other tmpfs file.
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

/* Linux 6.3's, newer than the UAPI headers here. */
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

#define MFD_NAME_MAX 249        /* NAME_MAX less "memfd:" */
#define MFD_VALID (MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB | \
    MFD_NOEXEC_SEAL | MFD_EXEC)


/* The flags' checks, in the order of Linux's memfd_create(). */
static int
memfd_check_flags(unsigned flags)
{
	unsigned valid = MFD_VALID;

	/* Only MFD_HUGETLB may say a page size. */
	if (flags & MFD_HUGETLB)
		valid |= (unsigned)MFD_HUGE_MASK << MFD_HUGE_SHIFT;
	if (flags & ~valid)
		return -EINVAL;
	if ((flags & MFD_EXEC) && (flags & MFD_NOEXEC_SEAL))
		return -EINVAL;
	return 0;
}

long
sys_memfd_create(struct thread *td, const struct sys_memfd_create_args *a)
{
	struct proc *p = td->proc;
	char name[MFD_NAME_MAX + 1], path[MFD_NAME_MAX + 32];
	uint32_t mode = (a->flags & MFD_NOEXEC_SEAL) ? 0666 : 0777;
	struct vnode *vn;
	struct file *fp;
	long n;
	int r;

	if ((r = memfd_check_flags(a->flags)) < 0)
		return r;
	n = copyinstr(td, a->name, name, sizeof(name));
	if (n == -ENAMETOOLONG)
		return -EINVAL;
	if (n < 0)
		return n;
	/* What Linux gives when it has no hugetlbfs: there are no huge
	 * pages here. */
	if (a->flags & MFD_HUGETLB)
		return -ENOSYS;
	if ((r = tmpfs_unlinked(mode, p->cred.fsuid, p->cred.fsgid, &vn)) < 0)
		return r;
	/* MFD_NOEXEC_SEAL allows sealing too, and starts with F_SEAL_EXEC. */
	if (a->flags & MFD_NOEXEC_SEAL)
		tmpfs_seals_set(vn, F_SEAL_EXEC);
	else if (a->flags & MFD_ALLOW_SEALING)
		tmpfs_seals_set(vn, 0);
	snprintf(path, sizeof(path), "/memfd:%s (deleted)", name);
	fp = file_alloc(&vn_fileops, vn, O_RDWR | O_LARGEFILE, path);
	return fd_alloc(p->fdt, fp, 0, proc_nofile(p),
	    (a->flags & MFD_CLOEXEC) != 0);
}

/*
 * F_ADD_SEALS and F_GET_SEALS on fp, checked in the order of Linux's
 * memfd_fcntl(): adding needs an fd open for writing (EPERM) before
 * anything else; a file without seals is EINVAL.  Linux takes arg as
 * an unsigned int.
 */
long
memfd_fcntl(struct file *fp, int cmd, uint64_t arg)
{
	if (cmd == F_GET_SEALS)
		return tmpfs_seals_get(fp->vn);
	if (!file_writable(fp))
		return -EPERM;
	return tmpfs_seals_add(fp->vn, (unsigned)arg);
}
