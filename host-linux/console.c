/*
 * The console: the guest's fds 0, 1 and 2 are the host's own.
 *
 * Reads never block the kernel: a read is tried only when poll says the
 * fd is ready, and otherwise the guest thread is parked until it is.  The
 * host's fd flags are left alone, since the fds are shared with whatever
 * started vkernel (a shell, most often).
 *
 * When one of them is a terminal, the guest drives it: its termios go to
 * the host terminal as they are, so the host's line discipline does the
 * echo, the line editing and the Ctrl-C that signals vkernel (which hands
 * it to the guest).  The settings vkernel found are put back when it
 * exits, however it exits short of an uncatchable signal.
 */
#include <asm/termbits.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "arch/x86/abi.h"
#include "host-linux/host.h"
#include "vkern/platform.h"

_Static_assert(ARCH_TCGETS2 == TCGETS2 && ARCH_TCSETS2 == TCSETS2 &&
    ARCH_TCSETSW2 == TCSETSW2 && ARCH_TCSETSF2 == TCSETSF2,
    "termios2 requests");
_Static_assert(sizeof(struct arch_termios2) == sizeof(struct termios2),
    "struct termios2");

static int saved_fd = -1;
static struct arch_termios saved_tio;
static unsigned closed_fds;	/* a bit for each of fds 0-2 */
static char **names;		/* plat_console_name's, per fd */
static int nnames;

/*
 * Put the host terminal back as vkernel found it.  SIGTTOU is blocked
 * first: a vkernel the host shell put in the background must still
 * restore, not stop (a blocked SIGTTOU lets a background TCSETS through).
 */
void
console_restore(void)
{
	sigset_t ttou;

	if (saved_fd < 0)
		return;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	(void)sigprocmask(SIG_BLOCK, &ttou, NULL);
	(void)ioctl(saved_fd, TCSETS, &saved_tio);
	/* A guest's break that vkernel's end cut short. */
	(void)ioctl(saved_fd, TIOCCBRK);
}

void
console_closed(int fd)
{
	closed_fds |= 1U << fd;
}

/*
 * The host's name of fd, as its /proc shows it (a path the guest may
 * not see, pipe:[INO], socket:[INO]), or NULL.  A terminal is the
 * guest's /dev/console.
 */
static char *
console_host_name(int fd)
{
	struct arch_termios tio;
	char link[32], buf[4096];
	ssize_t n;

	if (ioctl(fd, TCGETS, &tio) == 0)
		return strdup("/dev/console");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, buf, sizeof(buf) - 1)) <= 0)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

void
console_init(int nfds)
{
	names = calloc((size_t)nfds, sizeof(*names));
	nnames = names != NULL ? nfds : 0;
	for (int fd = 0; fd < nnames; fd++)
		names[fd] = console_host_name(fd);
	for (int fd = 0; fd < 3; fd++) {
		if (ioctl(fd, TCGETS, &saved_tio) == 0) {
			saved_fd = fd;
			atexit(console_restore);
			return;
		}
	}
}

void
plat_console_name(int fd, char *buf, size_t size)
{
	snprintf(buf, size, "%s", fd >= 0 && fd < nnames &&
	    names[fd] != NULL ? names[fd] : "anon_inode:[console]");
}

/*
 * True when a read of fd would wait: poll says no data, and the fd can be
 * read at all (a write-only fd answers the read with EBADF at once).
 */
static bool
console_would_block(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int fl;

	if (ppoll(&p, 1, &(struct timespec){ 0, 0 }, NULL) != 0)
		return false;
	fl = fcntl(fd, F_GETFL);
	return fl >= 0 && (fl & O_ACCMODE) != O_WRONLY;
}

/*
 * Read at off, or at the fd's offset when off < 0, without blocking.
 * pread never waits: it fails (ESPIPE) on the fds that could.
 */
static long
console_input(int fd, void *buf, size_t len, int64_t off)
{
	ssize_t n;

	if (off < 0 && console_would_block(fd))
		return -EAGAIN;
	do
		n = off < 0 ? read(fd, buf, len) : pread(fd, buf, len, off);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

long
plat_console_read(int fd, void *buf, size_t len)
{
	return console_input(fd, buf, len, -1);
}

long
plat_console_write(int fd, const void *buf, size_t len)
{
	for (;;) {
		ssize_t n = write(fd, buf, len);
		struct pollfd p = { .fd = fd, .events = POLLOUT };

		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		/*
		 * XXX: the host fd is non-blocking (someone else set it):
		 * wait here until it drains; the guest expects a blocking
		 * console.
		 */
		ppoll(&p, 1, NULL, NULL);
	}
}

long
plat_console_pread(int fd, void *buf, size_t len, int64_t off)
{
	return console_input(fd, buf, len, off);
}

long
plat_console_pwrite(int fd, const void *buf, size_t len, int64_t off)
{
	ssize_t n;

	do
		n = pwrite(fd, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

int64_t
plat_console_lseek(int fd, int64_t off, int whence)
{
	off_t r = lseek(fd, (off_t)off, whence);

	return r < 0 ? -errno : (int64_t)r;
}

int
plat_console_truncate(int fd, uint64_t size)
{
	if (size > INT64_MAX)
		return -EINVAL;
	return TEMP_FAILURE_RETRY(ftruncate(fd, (off_t)size)) < 0 ? -errno : 0;
}

short
plat_console_poll(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	return ppoll(&p, 1, &(struct timespec){ 0, 0 }, NULL) > 0 ?
	    p.revents : 0;
}

int
plat_console_getfl(int fd)
{
	int r;

	if (fd >= 0 && fd < 3 && (closed_fds & (1U << fd)))
		return -EBADF;
	r = fcntl(fd, F_GETFL);

	return r < 0 ? -errno : r;
}

int
plat_console_stat(int fd, struct plat_console_stat *cs)
{
	struct statx st;

	/* statx, as hostfs stats: the lock-down keeps one stat call. */
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
	    STATX_BASIC_STATS, &st) < 0)
		return -errno;
	cs->dev = makedev(st.stx_dev_major, st.stx_dev_minor);
	cs->ino = st.stx_ino;
	cs->rdev = makedev(st.stx_rdev_major, st.stx_rdev_minor);
	cs->size = st.stx_size;
	cs->blksize = st.stx_blksize;
	cs->blocks = st.stx_blocks;
	cs->mode = st.stx_mode;
	cs->nlink = st.stx_nlink;
	cs->uid = st.stx_uid;
	cs->gid = st.stx_gid;
	cs->atime_ns = st.stx_atime.tv_sec * 1000000000LL +
	    st.stx_atime.tv_nsec;
	cs->mtime_ns = st.stx_mtime.tv_sec * 1000000000LL +
	    st.stx_mtime.tv_nsec;
	cs->ctime_ns = st.stx_ctime.tv_sec * 1000000000LL +
	    st.stx_ctime.tv_nsec;
	return 0;
}

int
plat_console_ioctl(int fd, unsigned long req, void *arg)
{
	int r;

	switch (req) {
	case TCFLSH:
	case TCXONC:
		/* These take their argument by value. */
		r = ioctl(fd, req, (unsigned long)*(const int *)arg);
		break;
	case TCSBRK:
		/*
		 * Only as tcdrain, once TIOCOUTQ said the queue is empty: it
		 * then waits for the UART's last bytes at most (see
		 * vkern/vfs/tty.c), never for a break.
		 */
		r = ioctl(fd, TCSBRK, 1UL);
		break;
	case TIOCSBRK:
	case TIOCCBRK:
		r = ioctl(fd, req);
		break;
	case TCGETS: case TCSETS: case TCSETSW: case TCSETSF:
	case TCGETS2: case TCSETS2: case TCSETSW2: case TCSETSF2:
	case TIOCGWINSZ: case TIOCSWINSZ: case FIONREAD: case TIOCOUTQ:
		r = ioctl(fd, req, arg);
		break;
	default:
		return -ENOTTY;
	}
	return r < 0 ? -errno : 0;
}
