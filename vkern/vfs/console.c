/*
 * The console as open files: the host's fds 0, 1 and 2, one file each,
 * installed as pid 1's fds 0, 1 and 2.  Reads that would wait return
 * -EAGAIN and the syscall layer parks the thread on the host fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "arch/x86/abi.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/console.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/tty.h"
#include "vkern/vfs/vfs.h"

/*
 * What a console file on a host file that open(2) of /proc/PID/fd/N made
 * points at: it keeps its own offset, as a new open file description
 * does, and reads and writes at it.
 */
static const char console_pos;

bool
console_own_offset(const struct file *fp)
{
	return fp->data == &console_pos;
}

static long
console_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	long r;

	if (offp != &fp->off || console_own_offset(fp)) {
		r = plat_console_pread(fp->console_fd, buf, len,
		    (int64_t)*offp);
		if (r > 0)
			*offp += (uint64_t)r;
		return r;
	}
	/* What TIOCSTI pushed comes first. */
	if ((r = tty_read_pushed(fp, buf, len)) != 0)
		return r;
	return plat_console_read(fp->console_fd, buf, len);
}

static long
console_write(struct file *fp, const void *buf, size_t len, uint64_t *offp)
{
	long r;

	if (offp != &fp->off || console_own_offset(fp)) {
		r = plat_console_pwrite(fp->console_fd, buf, len,
		    (int64_t)*offp);
		if (r > 0)
			*offp += (uint64_t)r;
		return r;
	}
	return plat_console_write(fp->console_fd, buf, len);
}

int
console_getattr(int hostfd, struct vattr *va)
{
	struct plat_console_stat cs;
	int r;

	if ((r = plat_console_stat(hostfd, &cs)) < 0)
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

static int
console_stat(struct file *fp, struct vattr *va)
{
	/* A terminal is the guest's /dev/console. */
	if (tty_console_stat(fp, va) == 0)
		return 0;
	return console_getattr(fp->console_fd, va);
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

/* A new console file on host fd hostfd. */
static struct file *
console_make(int hostfd, unsigned flags, const char *path)
{
	struct file *fp = file_alloc(&console_fileops, NULL, flags, path);

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
console_file(int hostfd)
{
	int fl = plat_console_getfl(hostfd);
	char name[VK_PATH_MAX];

	if (fl < 0)
		return NULL;
	plat_console_name(hostfd, name, sizeof(name));
	return console_make(hostfd, (unsigned)fl & (O_ACCMODE | O_APPEND),
	    name);
}

struct file *
console_open_tty(unsigned flags, const char *path)
{
	struct arch_termios tio;

	for (int fd = 0; fd < 3; fd++)
		if (plat_console_ioctl(fd, TCGETS, &tio) == 0)
			return console_make(fd, flags, path);
	return NULL;
}

/*
 * Only as the host fd was opened: through it the guest reaches nothing
 * of the host it could not reach before.
 */
struct file *
console_reopen(int hostfd, unsigned flags, const char *path, int *errp)
{
	int fl = plat_console_getfl(hostfd);
	unsigned acc = flags & O_ACCMODE;
	struct file *fp;

	*errp = fl < 0 ? fl : 0;
	if (fl < 0)
		return NULL;
	if ((acc != O_WRONLY && (fl & O_ACCMODE) == O_WRONLY) ||
	    (acc != O_RDONLY && (fl & O_ACCMODE) == O_RDONLY)) {
		*errp = -EACCES;
		return NULL;
	}
	fp = console_make(hostfd, flags, path);
	if (fp->seekable)
		fp->data = (void *)&console_pos;
	return fp;
}
