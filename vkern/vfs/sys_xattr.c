/*
 * Extended attributes: the *xattr calls answer as Linux does on a file
 * system without xattr support: the path is resolved (and its errors
 * reported) first, then get and set and remove give EOPNOTSUPP and list
 * gives an empty list.
 */
#include <errno.h>
#include <fcntl.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"

/* Resolve path (following links unless nofollow); 0 or its error. */
static long
xattr_path(struct thread *td, uaddr_t upath, bool follow)
{
	char path[VK_PATH_MAX];
	struct nameidata nd;
	long r;

	if ((r = copyinstr(td, upath, path, sizeof(path))) < 0)
		return r;
	if ((r = vfs_lookup(td->proc, AT_FDCWD, path,
	    follow ? LOOKUP_FOLLOW : 0, &nd)) < 0)
		return r;
	nd_release(&nd);
	return 0;
}

static long
xattr_fd(struct thread *td, int fd)
{
	return fd_get(td->proc->fdt, fd) == NULL ? -EBADF : 0;
}

/* Attribute names are checked for length as Linux does (XATTR_NAME_MAX). */
static long
xattr_name(struct thread *td, uaddr_t uname)
{
	char name[256];
	long n = copyinstr(td, uname, name, sizeof(name));

	if (n == -ENAMETOOLONG)
		return -ERANGE;
	if (n == 0)
		return -ERANGE;
	return n < 0 ? n : 0;
}

/* get, set and remove: resolve, check the name, then EOPNOTSUPP. */
#define XATTR_NAMED(sysname, resolve)                                      \
long                                                                         \
sys_##sysname(struct thread *td, const struct sys_##sysname##_args *a)      \
{                                                                            \
	long r = resolve;                                                    \
                                                                             \
	if (r == 0)                                                          \
		r = xattr_name(td, a->name);                                 \
	return r < 0 ? r : -EOPNOTSUPP;                                      \
}

/* list: resolve, then an empty list. */
#define XATTR_LIST(sysname, resolve)                                       \
long                                                                         \
sys_##sysname(struct thread *td, const struct sys_##sysname##_args *a)      \
{                                                                            \
	return resolve;                                                      \
}

XATTR_NAMED(getxattr, xattr_path(td, a->path, true))
XATTR_NAMED(lgetxattr, xattr_path(td, a->path, false))
XATTR_NAMED(fgetxattr, xattr_fd(td, a->fd))
XATTR_NAMED(setxattr, xattr_path(td, a->path, true))
XATTR_NAMED(lsetxattr, xattr_path(td, a->path, false))
XATTR_NAMED(fsetxattr, xattr_fd(td, a->fd))
XATTR_NAMED(removexattr, xattr_path(td, a->path, true))
XATTR_NAMED(lremovexattr, xattr_path(td, a->path, false))
XATTR_NAMED(fremovexattr, xattr_fd(td, a->fd))
XATTR_LIST(listxattr, xattr_path(td, a->path, true))
XATTR_LIST(llistxattr, xattr_path(td, a->path, false))
XATTR_LIST(flistxattr, xattr_fd(td, a->fd))
