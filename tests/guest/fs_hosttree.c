/*
 * Verifies a host tree as the guest sees it (inside vkernel, the host's
 * /usr/include through the overlay's read-only host layer; natively, the
 * host's own): for every entry, getdents64's d_type and d_ino agree with
 * fstatat(AT_SYMLINK_NOFOLLOW) of its name, and a second stat by path
 * agrees with fstat of the entry opened; a listing through a small buffer
 * (one or a few records per call) is the one through 32 KiB; two
 * directories listed in turn, a record at a time, come whole each; after
 * the end getdents64 gives 0 again, and after lseek to 0 the same listing.
 * As root, and again as uid 65534.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>

#include "guest.h"
#include "fs_common.h"

#define TREE      "/usr/include"
#define MAXDIRS   400      /* directories walked, at most */
#define MAXNAMES  4096     /* names in one directory, at most */

/* One listing: its names (NUL-separated in pool), types and inodes. */
struct listing {
	int n;
	size_t used;
	char pool[MAXNAMES * 48];
	size_t at[MAXNAMES];
	unsigned char type[MAXNAMES];
	uint64_t ino[MAXNAMES];
};

static long
dents(int fd, void *buf, size_t len)
{
	return syscall(SYS_getdents64, fd, buf, len);
}

/* Adds the records of buf[0..got) to l; false when l is full. */
static bool
listing_add(struct listing *l, const char *buf, long got)
{
	for (long off = 0; off < got;) {
		const struct fs_dirent64 *d = (const void *)(buf + off);
		size_t len = strlen(d->d_name) + 1;

		if (l->n == MAXNAMES || l->used + len > sizeof(l->pool))
			return false;
		l->at[l->n] = l->used;
		memcpy(l->pool + l->used, d->d_name, len);
		l->used += len;
		l->type[l->n] = d->d_type;
		l->ino[l->n] = d->d_ino;
		l->n++;
		off += d->d_reclen;
	}
	return true;
}

/* Lists fd from where it stands through len-byte calls; -1 on failure. */
static int
list_fd(int fd, struct listing *l, size_t len)
{
	static uint64_t buf[32768 / 8];
	long got;

	l->n = 0;
	l->used = 0;
	while ((got = dents(fd, buf, len)) > 0)
		if (!CHECK(listing_add(l, (char *)buf, got), "listing full"))
			return -1;
	return CHECK(got == 0, "getdents64: %ld", got) ? 0 : -1;
}

static const char *
name_at(const struct listing *l, int i)
{
	return l->pool + l->at[i];
}

static bool
same_listing(const struct listing *a, const struct listing *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (strcmp(name_at(a, i), name_at(b, i)) != 0 ||
		    a->type[i] != b->type[i] || a->ino[i] != b->ino[i])
			return false;
	return true;
}

static unsigned char
dt_of(mode_t m)
{
	return (unsigned char)((m & S_IFMT) >> 12);
}

static bool
same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_mode == b->st_mode && a->st_nlink == b->st_nlink &&
	    a->st_uid == b->st_uid && a->st_gid == b->st_gid &&
	    a->st_size == b->st_size && a->st_blocks == b->st_blocks &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * Each entry of l, in directory dirfd (path dir): d_type and d_ino are
 * its lstat's, and a regular file or directory opened has the status its
 * name has.  Subdirectories go onto the walk's list.
 */
static void
check_entries(int dirfd, const char *dir, const struct listing *l,
    char (*todo)[PATH_MAX], int *ntodo)
{
	for (int i = 0; i < l->n; i++) {
		const char *name = name_at(l, i);
		struct stat st, again, opened;
		int fd;

		if (strcmp(name, "..") == 0)
			continue;
		if (!CHECK(fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0,
		    "lstat %s/%s", dir, name))
			continue;
		CHECK(l->type[i] == dt_of(st.st_mode), "%s/%s: d_type %d, "
		    "mode %#o", dir, name, l->type[i], st.st_mode);
		CHECK(l->ino[i] == st.st_ino, "%s/%s: d_ino %llu, st_ino %llu",
		    dir, name, (unsigned long long)l->ino[i],
		    (unsigned long long)st.st_ino);
		if (strcmp(name, ".") == 0 ||
		    !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
			continue;
		fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (!CHECK(fd >= 0, "open %s/%s", dir, name))
			continue;
		CHECK(fstat(fd, &opened) == 0 && same_stat(&st, &opened),
		    "%s/%s: fstat differs from its name's", dir, name);
		CHECK(fstatat(dirfd, name, &again, AT_SYMLINK_NOFOLLOW) == 0 &&
		    same_stat(&st, &again), "%s/%s: second stat differs", dir,
		    name);
		close(fd);
		if (S_ISDIR(st.st_mode) && *ntodo < MAXDIRS)
			snprintf(todo[(*ntodo)++], PATH_MAX, "%s/%s", dir,
			    name);
	}
}

/* Lists dir every way the checks want, then checks its entries. */
static void
check_dir(const char *dir, char (*todo)[PATH_MAX], int *ntodo)
{
	static struct listing big, small, again;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (!CHECK(fd >= 0, "open %s", dir))
		return;
	if (list_fd(fd, &big, 32768) == 0) {
		CHECK_EQ(dents(fd, (uint64_t[64]){ 0 }, 512), 0);
		CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
		if (list_fd(fd, &small, 280) == 0)
			CHECK(same_listing(&big, &small), "%s: listed through "
			    "280 bytes, not as through 32 KiB", dir);
		CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
		if (list_fd(fd, &again, 32768) == 0)
			CHECK(same_listing(&big, &again), "%s: a second "
			    "listing differs", dir);
		check_entries(fd, dir, &big, todo, ntodo);
	}
	close(fd);
}

/*
 * Two directories listed in turn, one record per call: each comes as it
 * does alone.
 */
static void
check_interleaved(const char *a, const char *b)
{
	static struct listing whole[2], turn[2];
	static uint64_t buf[64];
	const char *dirs[2] = { a, b };
	int fd[2];
	bool done[2] = { false, false };

	for (int k = 0; k < 2; k++) {
		fd[k] = open(dirs[k], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (!CHECK(fd[k] >= 0, "open %s", dirs[k]) ||
		    list_fd(fd[k], &whole[k], 32768) < 0)
			return;
		CHECK_EQ(lseek(fd[k], 0, SEEK_SET), 0);
		turn[k].n = 0;
		turn[k].used = 0;
	}
	while (!done[0] || !done[1]) {
		for (int k = 0; k < 2; k++) {
			long got;

			if (done[k])
				continue;
			/* The smallest buffer a long name's record fits. */
			got = dents(fd[k], buf, 24 + 256);
			if (!CHECK(got >= 0, "getdents64 %s", dirs[k]) ||
			    !CHECK(listing_add(&turn[k], (char *)buf, got),
			    "listing full"))
				return;
			done[k] = got == 0;
		}
	}
	for (int k = 0; k < 2; k++) {
		CHECK(same_listing(&whole[k], &turn[k]), "%s listed in turn "
		    "with another differs", dirs[k]);
		close(fd[k]);
	}
}

static void
check_tree(const void *unused __attribute__((unused)))
{
	static char todo[MAXDIRS][PATH_MAX];
	int ntodo = 1;

	snprintf(todo[0], PATH_MAX, "%s", TREE);
	for (int i = 0; i < ntodo; i++)
		check_dir(todo[i], todo, &ntodo);
	if (!CHECK(ntodo > 1, "no directory below " TREE))
		return;
	check_interleaved(TREE, todo[1]);
	check_interleaved(todo[ntodo - 1], TREE);
}

int
main(void)
{
	if (access(TREE, R_OK | X_OK) != 0)
		return guest_skip("no " TREE);
	check_tree(NULL);
	guest_as_nobody(check_tree, NULL);
	return guest_done();
}
