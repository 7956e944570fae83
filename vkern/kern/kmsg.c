/*
 * The kernel's log: a ring of the last records, and /dev/kmsg.
 *
 * Each record is kept as the line a reader gets, made when it is added.
 * A reader that fell behind the ring goes on from the oldest record kept
 * (where Linux's gives EPIPE once).  The ring is a fixed array: what the
 * kernel logs is a few lines, and a guest writing to /dev/kmsg only
 * pushes the oldest out.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/kmsg.h"
#include "vkern/platform.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"

#define KMSG_RECORDS 128
#define KMSG_LINE    256

struct kmsg_rec {
	size_t len;
	char line[KMSG_LINE];
};

static struct kmsg_rec ring[KMSG_RECORDS];
static uint64_t nrec;            /* records ever added: the next seq */
static int64_t boot_ns;
static const int kmsg_chan;      /* readers wait here for a record */

void
kmsg_reset(void)
{
	nrec = 0;
	boot_ns = plat_clock_ns(CLOCK_MONOTONIC);
}

/* Add a record of priority prio (facility << 3 | level) saying text. */
static void
kmsg_add(int prio, const char *text, size_t n)
{
	struct kmsg_rec *r = &ring[nrec % KMSG_RECORDS];
	int64_t us = (plat_clock_ns(CLOCK_MONOTONIC) - boot_ns) / 1000;
	size_t h;

	while (n > 0 && text[n - 1] == '\n')
		n--;
	h = (size_t)snprintf(r->line, sizeof(r->line), "%d,%llu,%lld,-;",
	    prio, (unsigned long long)nrec, (long long)VK_MAX(us, 0));
	n = VK_MIN(n, sizeof(r->line) - h - 1);
	/* One line a record: a newline inside becomes a space. */
	for (size_t i = 0; i < n; i++)
		r->line[h + i] = text[i] == '\n' ? ' ' : text[i];
	r->line[h + n] = '\n';
	r->len = h + n + 1;
	nrec++;
	sched_wake_chan(&kmsg_chan);
	poll_wake();
}

void
kmsg_printf(int level, const char *fmt, ...)
{
	char text[KMSG_LINE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	kmsg_add(level, text, VK_MIN((size_t)VK_MAX(n, 0), sizeof(text) - 1));
}

/* The oldest record kept. */
static uint64_t
kmsg_first(void)
{
	return nrec > KMSG_RECORDS ? nrec - KMSG_RECORDS : 0;
}

/* One record a read, whole: EINVAL for a buffer too short for it. */
static long
kmsg_file_read(struct file *fp, void *buf, size_t len, uint64_t *offp)
{
	uint64_t seq = VK_MAX(*offp, kmsg_first());
	const struct kmsg_rec *r = &ring[seq % KMSG_RECORDS];

	if (seq >= nrec)
		return -EAGAIN;
	if (r->len > len)
		return -EINVAL;
	memcpy(buf, r->line, r->len);
	*offp = seq + 1;
	return (long)r->len;
}

/*
 * A write is a record of its own: "<N>" in front gives its priority,
 * which cannot be the kernel's facility (0): that becomes the user's.
 */
static long
kmsg_file_write(struct file *fp, const void *ubuf, size_t len,
    uint64_t *offp)
{
	const char *buf = ubuf;
	int prio = KMSG_USER << 3 | 4, p = 0;
	size_t i = 1;

	if (len > 2 && buf[0] == '<') {
		for (; i < len && i < 5 && buf[i] >= '0' && buf[i] <= '9'; i++)
			p = p * 10 + (buf[i] - '0');
		if (i > 1 && i < len && buf[i] == '>') {
			prio = (p >> 3) == 0 ? KMSG_USER << 3 | (p & 7) : p;
			kmsg_add(prio, buf + i + 1, len - i - 1);
			return (long)len;
		}
	}
	kmsg_add(prio, buf, len);
	return (long)len;
}

static int
kmsg_file_stat(struct file *fp, struct vattr *va)
{
	return fp->vn->ops->getattr(fp->vn, va);
}

static short
kmsg_file_poll(struct file *fp)
{
	return (VK_MAX(fp->off, kmsg_first()) < nrec ? POLLIN | POLLRDNORM :
	    0) | POLLOUT | POLLWRNORM;
}

static const struct file_ops kmsg_fileops = {
	.read = kmsg_file_read,
	.write = kmsg_file_write,
	.stat = kmsg_file_stat,
	.poll = kmsg_file_poll,
};

struct file *
kmsg_open(struct vnode *vn, unsigned flags, const char *path)
{
	struct file *fp = file_alloc(&kmsg_fileops, vn, flags, path);

	vnode_ref(vn);
	fp->chan = &kmsg_chan;
	return fp;
}
