/*
 * File status and control: fstat, newfstatat, ioctl.
 *
 * Until the file system lands (#3) they know only the console fds, whose
 * status and terminal state are the host's.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>

#include "arch/x86/abi.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/platform.h"
#include "vkern/vm/copyio.h"

#define PATH_MAX_LEN 4096
#define NS 1000000000LL

static bool
console_fd(struct thread *td, int fd)
{
	return fd >= 0 && fd < VK_NCONSOLE && td->proc->console_open[fd];
}

static long
kern_fstat(struct thread *td, int fd, uaddr_t ubuf)
{
	struct plat_console_stat cs;
	struct arch_stat st;
	int r;

	if (!console_fd(td, fd))
		return -EBADF;
	if ((r = plat_console_stat(fd, &cs)) < 0)
		return r;
	memset(&st, 0, sizeof(st));
	st.st_dev = cs.dev;
	st.st_ino = cs.ino;
	st.st_nlink = cs.nlink;
	st.st_mode = cs.mode;
	st.st_uid = cs.uid;
	st.st_gid = cs.gid;
	st.st_rdev = cs.rdev;
	st.st_size = (int64_t)cs.size;
	st.st_blksize = (int64_t)cs.blksize;
	st.st_blocks = (int64_t)cs.blocks;
	st.st_atime_sec = (uint64_t)(cs.atime_ns / NS);
	st.st_atime_nsec = (uint64_t)(cs.atime_ns % NS);
	st.st_mtime_sec = (uint64_t)(cs.mtime_ns / NS);
	st.st_mtime_nsec = (uint64_t)(cs.mtime_ns % NS);
	st.st_ctime_sec = (uint64_t)(cs.ctime_ns / NS);
	st.st_ctime_nsec = (uint64_t)(cs.ctime_ns % NS);
	return copyout(td, &st, ubuf, sizeof(st));
}

long
sys_fstat(struct thread *td, const struct sys_fstat_args *a)
{
	return kern_fstat(td, a->fd, a->statbuf);
}

long
sys_newfstatat(struct thread *td, const struct sys_newfstatat_args *a)
{
	char path[PATH_MAX_LEN];
	long n;

	if (a->flags & ~(unsigned long)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH |
	    AT_NO_AUTOMOUNT))
		return -EINVAL;
	if ((n = copyinstr(td, a->path, path, sizeof(path))) < 0)
		return n;
	if (n == 0 && (a->flags & AT_EMPTY_PATH) && a->dirfd != AT_FDCWD)
		return kern_fstat(td, a->dirfd, a->statbuf);
	/* XXX: there are no paths to look up before the file system (#3). */
	return -ENOENT;
}

long
sys_fcntl(struct thread *td, const struct sys_fcntl_args *a)
{
	struct proc *p = td->proc;

	if (!console_fd(td, a->fd))
		return -EBADF;
	switch (a->cmd) {
	case F_GETFD:
		return p->console_cloexec[a->fd] ? FD_CLOEXEC : 0;
	case F_SETFD:
		p->console_cloexec[a->fd] = (a->arg & FD_CLOEXEC) != 0;
		return 0;
	case F_GETFL:
		return plat_console_getfl(a->fd);
	}
	/* XXX: duplicating fds and changing flags need the fd table (#3). */
	return -EINVAL;
}

long
sys_ioctl(struct thread *td, const struct sys_ioctl_args *a)
{
	struct arch_termios tio;
	struct arch_winsize ws;
	int r;

	if (!console_fd(td, a->fd))
		return -EBADF;
	switch (a->cmd) {
	case TCGETS:
		if ((r = plat_console_ioctl(a->fd, TCGETS, &tio)) < 0)
			return r;
		return copyout(td, &tio, UADDR(a->arg), sizeof(tio));
	case TIOCGWINSZ:
		if ((r = plat_console_ioctl(a->fd, TIOCGWINSZ, &ws)) < 0)
			return r;
		return copyout(td, &ws, UADDR(a->arg), sizeof(ws));
	}
	/* XXX: the other terminal requests come with job control (#5). */
	return -ENOTTY;
}
