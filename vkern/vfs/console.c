/*
 * The console as open files: the host's fds 0, 1 and 2, one file each,
 * installed as pid 1's fds 0, 1 and 2.  Reads that would wait return
 * -EAGAIN and the syscall layer parks the thread on the host fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "arch/x86/abi.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/console.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/tty.h"
#include "vkern/vfs/vfs.h"

static long
console_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	long r;

	if (offp != &fp->off)
		return plat_console_pread(fp->console_fd, buf, len,
		    (int64_t)*offp);
	/* What TIOCSTI pushed comes first. */
	if ((r = tty_read_pushed(fp, buf, len)) != 0)
		return r;
	return plat_console_read(fp->console_fd, buf, len);
}

static long
console_write(struct file *fp, const void *buf, size_t len, uint64_t *offp)
{
	if (offp != &fp->off)
		return plat_console_pwrite(fp->console_fd, buf, len,
		    (int64_t)*offp);
	return plat_console_write(fp->console_fd, buf, len);
}

static int
console_stat(struct file *fp, struct vattr *va)
{
	struct plat_console_stat cs;
	int r;

	if (tty_console_stat(fp, va) == 0)
		return 0;
	if ((r = plat_console_stat(fp->console_fd, &cs)) < 0)
		return r;
	*va = (struct vattr){
		.ino = cs.ino, .dev = cs.dev, .rdev = cs.rdev,
		.mode = cs.mode, .uid = cs.uid, .gid = cs.gid,
		.nlink = cs.nlink, .size = cs.size, .blocks = cs.blocks,
		.blksize = cs.blksize, .atime_ns = cs.atime_ns,
		.mtime_ns = cs.mtime_ns, .ctime_ns = cs.ctime_ns,
	};
	return 0;
}

static short
console_poll(struct file *fp)
{
	return plat_console_poll(fp->console_fd, POLLIN | POLLOUT) |
	    tty_poll_pushed(fp);
}

const struct file_ops console_fileops = {
	.read = console_read,
	.write = console_write,
	.stat = console_stat,
	.poll = console_poll,
};

struct file *
console_file(int hostfd)
{
	int fl = plat_console_getfl(hostfd);
	struct file *fp;

	if (fl < 0)
		return NULL;
	fp = file_alloc(&console_fileops, NULL, (unsigned)fl &
	    (O_ACCMODE | O_APPEND), hostfd == 0 ? "/dev/stdin" :
	    hostfd == 1 ? "/dev/stdout" : "/dev/stderr");
	fp->console_fd = hostfd;
	/* A redirected file seeks; a terminal or a pipe does not. */
	fp->seekable = plat_console_lseek(hostfd, 0, SEEK_CUR) >= 0;
	tty_file_init(fp);
	/* On the terminal, it is the guest's /dev/console (tty.c). */
	if (tty_file(fp)) {
		kmem_strfree(fp->path, 0);
		fp->path = kmem_strdup("/dev/console", KM_FORCE);
	}
	return fp;
}

struct file *
console_open_tty(unsigned flags, const char *path)
{
	struct arch_termios tio;
	struct file *fp;

	for (int fd = 0; fd < 3; fd++) {
		if (plat_console_ioctl(fd, TCGETS, &tio) < 0)
			continue;
		fp = file_alloc(&console_fileops, NULL, flags, path);
		fp->console_fd = fd;
		fp->seekable = false;
		tty_file_init(fp);
		return fp;
	}
	return NULL;
}
