/*
 * Verifies a file tree's round trips, as "cp -a", "tar -cf" then "tar -xf",
 * "diff -r", "mv" and "rm -r" would make them, done here by syscalls since
 * the vkernel has no fork yet: a tree of directories, files large and
 * small, a symlink and odd modes and times is copied, packed into one
 * archive file and unpacked, compared each time down to the bytes, modes
 * and times, renamed and removed until nothing is left.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdlib.h>

#include "guest.h"
#include "fs_common.h"

#define BIG_SIZE	(300 * 1024 + 17)
#define NMANY		100

/* The names in a directory, without "." and "..", sorted. */
struct names {
	size_t	  n;
	char	**v;
};

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	ns->n = 0;
	ns->v = NULL;
}

/* Lists directory path with getdents64(2); returns 0 or the errno. */
static int
names_read(const char *path, struct names *ns)
{
	static uint64_t buf[1024];
	long fd, got;
	int err = 0;

	ns->n = 0;
	ns->v = NULL;
	fd = syscall(SYS_open, path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return errno;
	while ((got = syscall(SYS_getdents64, (int)fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			struct fs_dirent64 *d =
			    (struct fs_dirent64 *)((char *)buf + off);

			off += d->d_reclen;
			if (strcmp(d->d_name, ".") == 0 ||
			    strcmp(d->d_name, "..") == 0)
				continue;
			ns->v = realloc(ns->v, (ns->n + 1) * sizeof(char *));
			if (ns->v == NULL || (ns->v[ns->n] = strdup(d->d_name))
			    == NULL)
				abort();
			ns->n++;
		}
	}
	if (got < 0)
		err = errno;
	close((int)fd);
	qsort(ns->v, ns->n, sizeof(char *), name_cmp);
	return err;
}

/*
 * Joins dir and name into buf, which holds PATH_MAX bytes.  The paths here
 * are short: a longer one is a bug in this program.
 */
static char *
join(char *buf, const char *dir, const char *name)
{
	if (snprintf(buf, 4096, "%s/%s", dir, name) >= 4096)
		abort();
	return buf;
}

/* Creates path holding len bytes of data; false on failure. */
static bool
put_data(const char *path, const void *data, size_t len, mode_t mode)
{
	long fd = syscall(SYS_open, path, O_WRONLY | O_CREAT | O_EXCL, mode);
	bool ok;

	if (fd < 0)
		return false;
	ok = write((int)fd, data, len) == (ssize_t)len;
	return close((int)fd) == 0 && ok;
}

/* Sets the access and modification times of path to sec.nsec. */
static bool
set_times(const char *path, time_t sec, long nsec)
{
	struct timespec ts[2] = { { sec, nsec }, { sec, nsec } };

	return syscall(SYS_utimensat, AT_FDCWD, path, ts,
	    AT_SYMLINK_NOFOLLOW) == 0;
}

/* Byte i of the big file. */
static unsigned char
pattern(size_t i)
{
	return (unsigned char)(i ^ (i >> 8) ^ (i >> 16));
}

/*
 * The tree t: t/a/b/f says "hi", t/a/big is 300 KiB, t/a/l is a symlink
 * to b/f, t/many holds 100 files, t/empty is an empty directory, and t/odd
 * has mode 0600 and an old time.
 */
static bool
make_tree(void)
{
	static unsigned char big[BIG_SIZE];
	char path[64];
	bool ok;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = pattern(i);
	ok = mkdir("t", 0755) == 0 && mkdir("t/a", 0755) == 0 &&
	    mkdir("t/a/b", 0750) == 0 && mkdir("t/many", 0755) == 0 &&
	    mkdir("t/empty", 0700) == 0 &&
	    put_data("t/a/b/f", "hi\n", 3, 0644) &&
	    put_data("t/a/big", big, sizeof(big), 0644) &&
	    put_data("t/odd", "", 0, 0600) &&
	    symlink("b/f", "t/a/l") == 0 &&
	    set_times("t/odd", 1000000000, 5) &&
	    set_times("t/a/l", 1100000000, 0);
	for (int i = 0; ok && i < NMANY; i++) {
		snprintf(path, sizeof(path), "t/many/m%03d", i);
		ok = put_data(path, path, strlen(path), 0644);
	}
	return ok && set_times("t/empty", 1200000000, 0);
}

/* Copies the bytes of file from to file to; false on failure. */
static bool
copy_bytes(int from, int to)
{
	char buf[8192];
	ssize_t n;

	while ((n = read(from, buf, sizeof(buf))) > 0)
		if (write(to, buf, (size_t)n) != n)
			return false;
	return n == 0;
}

/* Gives path the mode and times of st; for a symlink only the times. */
static bool
copy_meta(const char *path, const struct stat *st)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };

	if (!S_ISLNK(st->st_mode) &&
	    syscall(SYS_chmod, path, st->st_mode & 07777) != 0)
		return false;
	return syscall(SYS_utimensat, AT_FDCWD, path, ts,
	    AT_SYMLINK_NOFOLLOW) == 0;
}

static bool copy_tree(const char *from, const char *to);

/* Copies the entries of directory from into the new directory to. */
static bool
copy_entries(const char *from, const char *to)
{
	char a[4096], b[4096];
	struct names ns;
	bool ok;

	if (names_read(from, &ns) != 0)
		return false;
	ok = true;
	for (size_t i = 0; ok && i < ns.n; i++)
		ok = copy_tree(join(a, from, ns.v[i]), join(b, to, ns.v[i]));
	names_free(&ns);
	return ok;
}

/*
 * Copies from to to as "cp -a" does: recursively, keeping modes, times
 * and symlinks; a directory's times are set after its entries, since
 * adding them changes its mtime.
 */
static bool
copy_tree(const char *from, const char *to)
{
	char target[4096];
	struct stat st;
	long in, out, n;
	bool ok;

	if (lstat(from, &st) != 0)
		return false;
	if (S_ISDIR(st.st_mode))
		ok = mkdir(to, 0700) == 0 && copy_entries(from, to);
	else if (S_ISLNK(st.st_mode)) {
		n = syscall(SYS_readlink, from, target, sizeof(target) - 1);
		ok = n >= 0;
		if (ok) {
			target[n] = '\0';
			ok = symlink(target, to) == 0;
		}
	} else {
		in = syscall(SYS_open, from, O_RDONLY, 0);
		out = syscall(SYS_open, to, O_WRONLY | O_CREAT | O_EXCL, 0600);
		ok = in >= 0 && out >= 0 && copy_bytes((int)in, (int)out);
		if (in >= 0)
			close((int)in);
		if (out >= 0 && close((int)out) != 0)
			ok = false;
	}
	return ok && copy_meta(to, &st);
}

/* Tells whether files a and b hold the same bytes. */
static bool
same_bytes(const char *a, const char *b)
{
	char x[8192], y[8192];
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	ssize_t na, nb;
	bool same = fa >= 0 && fb >= 0;

	while (same) {
		na = read(fa, x, sizeof(x));
		/* Regular files give whole reads until their end. */
		nb = read(fb, y, sizeof(y));
		same = na == nb && na >= 0 && memcmp(x, y, (size_t)na) == 0;
		if (na <= 0)
			break;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

static int diff_tree(const char *a, const char *b, bool times);

/* Compares the entries of directories a and b; returns the differences. */
static int
diff_entries(const char *a, const char *b, bool times)
{
	char pa[4096], pb[4096];
	struct names na, nb;
	int diffs = 0;

	if (!CHECK(names_read(a, &na) == 0 && names_read(b, &nb) == 0,
	    "list %s and %s", a, b))
		return 1;
	if (CHECK(na.n == nb.n, "%s has %zu entries, %s has %zu", a, na.n, b,
	    nb.n)) {
		for (size_t i = 0; i < na.n; i++) {
			if (!CHECK(strcmp(na.v[i], nb.v[i]) == 0,
			    "%s/%s is %s/%s", a, na.v[i], b, nb.v[i])) {
				diffs++;
				continue;
			}
			diffs += diff_tree(join(pa, a, na.v[i]),
			    join(pb, b, nb.v[i]), times);
		}
	} else
		diffs++;
	names_free(&na);
	names_free(&nb);
	return diffs;
}

/*
 * Compares trees a and b as "diff -r" does, and also their types and
 * modes, and with times their mtimes; returns the number of differences,
 * each reported as a failed check.
 */
static int
diff_tree(const char *a, const char *b, bool times)
{
	char ta[4096], tb[4096];
	struct stat sa, sb;
	long la, lb;

	if (!CHECK(lstat(a, &sa) == 0 && lstat(b, &sb) == 0, "lstat %s, %s",
	    a, b))
		return 1;
	if (!CHECK(sa.st_mode == sb.st_mode, "%s mode %o, %s mode %o", a,
	    (unsigned)sa.st_mode, b, (unsigned)sb.st_mode))
		return 1;
	if (times && !CHECK(sa.st_mtim.tv_sec == sb.st_mtim.tv_sec &&
	    sa.st_mtim.tv_nsec == sb.st_mtim.tv_nsec, "mtime of %s, %s", a, b))
		return 1;
	if (S_ISDIR(sa.st_mode))
		return diff_entries(a, b, times);
	if (S_ISLNK(sa.st_mode)) {
		la = syscall(SYS_readlink, a, ta, sizeof(ta));
		lb = syscall(SYS_readlink, b, tb, sizeof(tb));
		return CHECK(la >= 0 && la == lb && memcmp(ta, tb, (size_t)la)
		    == 0, "links %s and %s differ", a, b) ? 0 : 1;
	}
	if (!CHECK(sa.st_size == sb.st_size, "%s has %ld bytes, %s %ld", a,
	    (long)sa.st_size, b, (long)sb.st_size))
		return 1;
	return CHECK(same_bytes(a, b), "%s and %s differ", a, b) ? 0 : 1;
}

/*
 * The archive: one record per entry, a directory before its entries,
 * each a struct rec then the path and, for a file or symlink, size bytes
 * of data; a record of type 'E' ends it.
 */
struct rec {
	char		type;		/* 'D', 'F', 'L' or 'E' */
	uint16_t	pathlen;
	uint32_t	mode;
	int64_t		mtime_sec;
	int64_t		mtime_nsec;
	uint64_t	size;
};

static bool
put_all(int fd, const void *p, size_t len)
{
	return write(fd, p, len) == (ssize_t)len;
}

static bool
get_all(int fd, void *p, size_t len)
{
	return read(fd, p, len) == (ssize_t)len;
}

static bool pack_tree(int ar, const char *path);

static bool
pack_entries(int ar, const char *path)
{
	char sub[4096];
	struct names ns;
	bool ok;

	if (names_read(path, &ns) != 0)
		return false;
	ok = true;
	for (size_t i = 0; ok && i < ns.n; i++)
		ok = pack_tree(ar, join(sub, path, ns.v[i]));
	names_free(&ns);
	return ok;
}

/* Appends path, and all below it, to the archive open at ar. */
static bool
pack_tree(int ar, const char *path)
{
	char target[4096];
	struct rec r = { 0 };
	struct stat st;
	long fd, n;
	bool ok;

	if (lstat(path, &st) != 0)
		return false;
	r.type = S_ISDIR(st.st_mode) ? 'D' : S_ISLNK(st.st_mode) ? 'L' : 'F';
	r.pathlen = (uint16_t)strlen(path);
	r.mode = st.st_mode;
	r.mtime_sec = st.st_mtim.tv_sec;
	r.mtime_nsec = st.st_mtim.tv_nsec;
	r.size = r.type == 'D' ? 0 : (uint64_t)st.st_size;
	if (!put_all(ar, &r, sizeof(r)) || !put_all(ar, path, r.pathlen))
		return false;
	if (r.type == 'D')
		return pack_entries(ar, path);
	if (r.type == 'L') {
		n = syscall(SYS_readlink, path, target, sizeof(target));
		return n == (long)r.size && put_all(ar, target, (size_t)n);
	}
	fd = syscall(SYS_open, path, O_RDONLY, 0);
	if (fd < 0)
		return false;
	ok = copy_bytes((int)fd, ar);
	close((int)fd);
	return ok;
}

/* Copies exactly len bytes from fd in to the new file path. */
static bool
unpack_file(int in, const char *path, uint64_t len)
{
	char buf[8192];
	long out = syscall(SYS_open, path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	bool ok = out >= 0;

	while (ok && len > 0) {
		size_t n = len < sizeof(buf) ? (size_t)len : sizeof(buf);

		ok = get_all(in, buf, n) && put_all((int)out, buf, n);
		len -= n;
	}
	if (out >= 0 && close((int)out) != 0)
		ok = false;
	return ok;
}

/* Gives path mode and mtime from r (atime too); a symlink no mode. */
static bool
unpack_meta(const char *path, const struct rec *r)
{
	struct stat st = { 0 };

	st.st_mode = r->mode;
	st.st_mtim.tv_sec = r->mtime_sec;
	st.st_mtim.tv_nsec = r->mtime_nsec;
	st.st_atim = st.st_mtim;
	return copy_meta(path, &st);
}

/*
 * Unpacks the archive open at ar below directory dir, as "tar -xf": the
 * directories' times are set last, deepest first, once nothing more is
 * added to them.
 */
static bool
unpack(int ar, const char *dir)
{
	static struct rec dirs[64];
	static char dirpaths[64][4096];
	char path[4096], name[4096], target[4096];
	int ndirs = 0;
	struct rec r;
	bool ok = true;

	while (ok && get_all(ar, &r, sizeof(r)) && r.type != 'E') {
		ok = r.pathlen < sizeof(name) && get_all(ar, name, r.pathlen);
		if (!ok)
			break;
		name[r.pathlen] = '\0';
		join(path, dir, name);
		if (r.type == 'D') {
			ok = mkdir(path, 0700) == 0 && ndirs < 64;
			if (ok) {
				dirs[ndirs] = r;
				strcpy(dirpaths[ndirs++], path);
			}
		} else if (r.type == 'L') {
			ok = r.size < sizeof(target) &&
			    get_all(ar, target, (size_t)r.size);
			if (ok) {
				target[r.size] = '\0';
				ok = symlink(target, path) == 0 &&
				    unpack_meta(path, &r);
			}
		} else
			ok = unpack_file(ar, path, r.size) &&
			    unpack_meta(path, &r);
	}
	while (ok && ndirs > 0) {
		ndirs--;
		ok = unpack_meta(dirpaths[ndirs], &dirs[ndirs]);
	}
	return ok && r.type == 'E';
}

static bool remove_tree(const char *path);

/* Removes the entries of directory path, then path. */
static bool
remove_dir(const char *path)
{
	char sub[4096];
	struct names ns;
	bool ok;

	if (names_read(path, &ns) != 0)
		return false;
	ok = true;
	for (size_t i = 0; ok && i < ns.n; i++)
		ok = remove_tree(join(sub, path, ns.v[i]));
	names_free(&ns);
	return ok && syscall(SYS_rmdir, path) == 0;
}

/* Removes path and everything below it, as "rm -r" does. */
static bool
remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return false;
	if (S_ISDIR(st.st_mode))
		return remove_dir(path);
	return syscall(SYS_unlink, path) == 0;
}

static void
test_copy(void)
{
	struct stat a, b;

	CHECK(copy_tree("t", "u"), "cp -a t u");
	CHECK_EQ(diff_tree("t", "u", true), 0);
	/* The copies are new files, not links to the old ones. */
	CHECK(lstat("t/a/big", &a) == 0 && lstat("u/a/big", &b) == 0 &&
	    a.st_ino != b.st_ino, "u/a/big is a separate file");
}

static void
test_archive(void)
{
	struct rec end = { .type = 'E' };
	struct stat st;
	long ar;

	/* Packs t from inside the scratch dir, like "tar -cf x.tar -C . t". */
	ar = CHECK_OK(syscall(SYS_open, "x.tar", O_WRONLY | O_CREAT | O_EXCL,
	    0644));
	if (ar < 0)
		return;
	CHECK(pack_tree((int)ar, "t") && put_all((int)ar, &end, sizeof(end)),
	    "pack t into x.tar");
	CHECK_OK(syscall(SYS_fsync, (int)ar));
	close((int)ar);
	CHECK(stat("x.tar", &st) == 0 && st.st_size > BIG_SIZE,
	    "x.tar holds more than the big file");

	CHECK_OK(mkdir("v", 0755));
	ar = CHECK_OK(syscall(SYS_open, "x.tar", O_RDONLY, 0));
	if (ar < 0)
		return;
	CHECK(unpack((int)ar, "v"), "unpack x.tar into v");
	close((int)ar);
	CHECK_EQ(diff_tree("t", "v/t", true), 0);
}

static void
test_move_and_remove(void)
{
	struct names ns;

	CHECK_OK(syscall(SYS_rename, "u", "w"));
	CHECK(gone("u"), "u is gone after mv u w");
	CHECK_EQ(diff_tree("t", "w", true), 0);
	CHECK(remove_tree("w"), "rm -r w");
	CHECK(remove_tree("t"), "rm -r t");
	CHECK(remove_tree("v"), "rm -r v");
	CHECK_OK(syscall(SYS_unlink, "x.tar"));
	CHECK(gone("w") && gone("t") && gone("v") && gone("x.tar"),
	    "all removed");
	if (CHECK(names_read(".", &ns) == 0, "list the scratch dir")) {
		CHECK(ns.n == 0, "the scratch dir is empty, has %zu (%s)",
		    ns.n, ns.n > 0 ? ns.v[0] : "");
		names_free(&ns);
	}
}

int
main(void)
{
	if (!CHECK(scratch_enter(), "make scratch directory %s", scratch))
		return guest_done();
	if (CHECK(make_tree(), "make the tree t")) {
		test_copy();
		test_archive();
		test_move_and_remove();
	}
	CHECK(scratch_leave(), "remove scratch directory %s", scratch);
	return guest_done();
}
