/*
 * Helpers shared by the file-system guest programs (fs_*.c), on top of
 * guest.h:
 *
 *  - scratch, scratch_enter() and scratch_leave(): the program's own
 *    directory "/tmp/vk-<prog>.XXXXXX" (or in another directory, with
 *    scratch_enter_in()), made by mkdtemp(3), the cwd while
 *    the checks run, and removed with everything in it at the end;
 *  - FS_CHECK_ERR(call, err): CHECK_ERR whose failure line also names the
 *    errno the call did give;
 *  - struct fs_dirent64, the record getdents64(2) returns;
 *  - touch(), ino_of(), gone(), has_text() and all_zero(), small probes of
 *    files and buffers that several programs use.
 *
 * As in guest.h everything is static and the functions are inline, so that
 * a program need not use them all.
 */
#ifndef FS_COMMON_H
#define FS_COMMON_H

#include <sys/stat.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>

#include "guest.h"

/*
 * The scratch directory: made under /tmp by mkdtemp(3), the cwd while the
 * checks run, and removed with everything in it at the end.  scratch_enter()
 * fills in the template, so scratch names it in any message after the call.
 */
static char scratch[256];

/*
 * Makes the scratch directory the cwd, with umask 022; false on failure.
 * The directory is named after the program, as guest_done() names it.
 * scratch_enter_in(dir) makes it in dir (absolute) instead of /tmp.
 */
#define scratch_enter()		fs_scratch_enter_(__FILE__, "/tmp")
#define scratch_enter_in(dir)	fs_scratch_enter_(__FILE__, (dir))

static inline bool
fs_scratch_enter_(const char *file, const char *dir)
{
	const char *name = guest_basename(file);
	const char *dot = strrchr(name, '.');
	int len = dot != NULL ? (int)(dot - name) : (int)strlen(name);
	int n;

	n = snprintf(scratch, sizeof(scratch), "%s/vk-%.*s.XXXXXX", dir, len,
	    name);
	if (n < 0 || (size_t)n >= sizeof(scratch))
		return false;
	umask(022);
	return mkdtemp(scratch) != NULL && chdir(scratch) == 0;
}

static inline int
scratch_remove_one(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* Removes the scratch tree; tells whether it is gone. */
static inline bool
scratch_leave(void)
{
	return chdir("/") == 0 && nftw(scratch, scratch_remove_one, 16,
	    FTW_DEPTH | FTW_PHYS) == 0;
}

/*
 * CHECK_ERR, naming in the failure line the errno wanted and the one the
 * call gave.
 */
#define FS_CHECK_ERR(call, err)						\
	({								\
		errno = 0;						\
		long r_ = (long)(call);					\
		int e_ = errno;						\
		guest_check_(r_ == -1 && e_ == (err), e_, __FILE__,	\
		    __LINE__, "%s: want -1 %s, got %ld %s", #call,	\
		    guest_errno_name(err), r_, guest_errno_name(e_));	\
	})

/* struct linux_dirent64, as getdents64(2) returns it. */
struct fs_dirent64 {
	uint64_t	d_ino;
	int64_t		d_off;
	uint16_t	d_reclen;
	uint8_t		d_type;
	char		d_name[];
};

/* Creates an empty file with mode 0644 (under umask 022); false on failure. */
static inline bool
touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	return fd >= 0 && close(fd) == 0;
}

/* The inode number of path, not following a last symlink, or 0. */
static inline uint64_t
ino_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? st.st_ino : 0;
}

/* Tells whether path does not exist at all (lstat gives ENOENT). */
static inline bool
gone(const char *path)
{
	struct stat st;

	return lstat(path, &st) == -1 && errno == ENOENT;
}

/* Tells whether path holds exactly text (of under 256 bytes). */
static inline bool
has_text(const char *path, const char *text)
{
	char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == (ssize_t)strlen(text) && memcmp(buf, text, (size_t)n) == 0;
}

/* Tells whether buf[0..len) is all zero bytes. */
static inline bool
all_zero(const unsigned char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != 0)
			return false;
	return true;
}

#endif /* FS_COMMON_H */
