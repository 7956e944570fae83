/*
 * Unit tests of hostfs (vkern/vfs/hostfs/) over the real platform hooks
 * (host-linux/hostfs.c) and a real host tree, made afresh under /tmp for
 * each test and removed after it.  They check that hostfs shows what the
 * host has (stat, bytes, entries, symlink targets), that nothing leads
 * out of the tree (symlinks are not followed, ".." stays inside, names
 * with '/' are refused), that a read-only mount changes nothing, that a
 * read-write one writes through, that vnodes are shared and freed, and
 * that every op works under the vkernel's real lock-down.
 *
 * The tree:
 *   TMP/outside/secret.txt
 *   TMP/root/hello.txt, hard.txt (a hard link to it), big.bin,
 *            sub/inner.txt, sub/deeper/, empty/, fifo,
 *            abs_link -> /etc/passwd, rel_link -> ../../..,
 *            out_link -> ../outside/secret.txt
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "host-linux/host.h"
#include "tests/unit/fake_platform.h"
#include "vkern/vfs/hostfs/hostfs.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/vm_ram.h"

#define HELLO "hello, world\n"
#define BIGSZ ((1 << 20) + 4321)

static char tmpdir[64];
static char rootdir[128];
static struct mount *mp;

/* --- The host tree --- */

static const char *
hp(const char *rel)
{
	static char bufs[4][PATH_MAX + 256];
	static unsigned i;
	char *b = bufs[i++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", rootdir, rel);
	return b;
}

static uint8_t
big_byte(size_t i)
{
	return (uint8_t)(i * 7 + i / 251);
}

static void
put_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void
put_big(void)
{
	uint8_t *b = malloc(BIGSZ);

	cr_assert_not_null(b);
	for (size_t i = 0; i < BIGSZ; i++)
		b[i] = big_byte(i);
	put_file(hp("big.bin"), b, BIGSZ);
	free(b);
}

static void
tree_make(void)
{
	char out[PATH_MAX];

	strcpy(tmpdir, "/tmp/vk-hostfs-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(out, sizeof(out), "%s/outside", tmpdir);
	cr_assert_eq(mkdir(out, 0755), 0);
	strcat(out, "/secret.txt");
	put_file(out, "secret\n", 7);
	snprintf(rootdir, sizeof(rootdir), "%s/root", tmpdir);
	cr_assert_eq(mkdir(rootdir, 0755), 0);
	put_file(hp("hello.txt"), HELLO, strlen(HELLO));
	cr_assert_eq(link(hp("hello.txt"), hp("hard.txt")), 0);
	put_big();
	cr_assert_eq(mkdir(hp("sub"), 0755), 0);
	put_file(hp("sub/inner.txt"), "inner\n", 6);
	cr_assert_eq(mkdir(hp("sub/deeper"), 0700), 0);
	cr_assert_eq(mkdir(hp("empty"), 0755), 0);
	cr_assert_eq(mkfifo(hp("fifo"), 0644), 0);
	cr_assert_eq(symlink("/etc/passwd", hp("abs_link")), 0);
	cr_assert_eq(symlink("../../..", hp("rel_link")), 0);
	cr_assert_eq(symlink("../outside/secret.txt", hp("out_link")), 0);
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	return remove(path);
}

static void
tree_remove(void)
{
	if (tmpdir[0] != '\0')
		nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(hostfs, .init = tree_make, .fini = tree_remove);

/* --- hostfs helpers --- */

static struct vnode *
mnt(bool rdonly)
{
	cr_assert_eq(hostfs_mount(rootdir, rdonly, &mp), 0);
	return mp->root;
}

static struct vnode *
look(struct vnode *dir, const char *name)
{
	struct vnode *vn = NULL;
	int r = dir->ops->lookup(dir, name, &vn);

	cr_assert_eq(r, 0, "lookup %s: %d", name, r);
	cr_assert_not_null(vn);
	return vn;
}

static int
look_err(struct vnode *dir, const char *name)
{
	struct vnode *vn = NULL;
	int r = dir->ops->lookup(dir, name, &vn);

	if (r == 0)
		vnode_rel(vn);
	return r;
}

static struct vattr
attr(struct vnode *vn)
{
	struct vattr va;

	cr_assert_eq(vn->ops->getattr(vn, &va), 0);
	return va;
}

static void
assert_attr_is_host(struct vnode *vn, const char *rel)
{
	struct vattr va = attr(vn);
	struct stat st;

	cr_assert_eq(lstat(hp(rel), &st), 0);
	cr_assert_eq(va.ino, st.st_ino, "%s ino", rel);
	cr_assert_eq(va.dev, st.st_dev, "%s dev", rel);
	cr_assert_eq(va.mode, st.st_mode, "%s mode %o", rel, va.mode);
	cr_assert_eq(va.uid, st.st_uid);
	cr_assert_eq(va.gid, st.st_gid);
	cr_assert_eq(va.nlink, st.st_nlink);
	cr_assert_eq(va.size, (uint64_t)st.st_size);
	cr_assert_eq(va.blocks, (uint64_t)st.st_blocks);
	cr_assert_eq(va.mtime_ns, st.st_mtim.tv_sec * 1000000000LL +
	    st.st_mtim.tv_nsec);
	cr_assert_eq(va.ctime_ns, st.st_ctim.tv_sec * 1000000000LL +
	    st.st_ctim.tv_nsec);
	cr_assert_eq(vn->type, vtype_from_mode(st.st_mode));
}

/* The host file's bytes, NUL-terminated (small files only). */
static const char *
host_content(const char *rel)
{
	static char buf[4096];
	int fd = open(hp(rel), O_RDONLY);
	ssize_t n;

	cr_assert_geq(fd, 0, "open %s: %s", rel, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	cr_assert_geq(n, 0);
	buf[n] = '\0';
	return buf;
}

static bool
host_exists(const char *rel)
{
	struct stat st;

	return lstat(hp(rel), &st) == 0;
}

/* How many fds the process has open. */
static int
fd_count(void)
{
	DIR *dp = opendir("/proc/self/fd");
	int n = 0;

	cr_assert_not_null(dp);
	while (readdir(dp) != NULL)
		n++;
	closedir(dp);
	return n;
}

/* --- Mounting --- */

Test(hostfs, mount_missing_root_enoent)
{
	cr_assert_eq(hostfs_mount(hp("nothing"), true, &mp), -ENOENT);
	cr_assert_eq(hostfs_mount("", true, &mp), -ENOENT);
}

Test(hostfs, mount_file_root_enotdir)
{
	cr_assert_eq(hostfs_mount(hp("hello.txt"), true, &mp), -ENOTDIR);
	cr_assert_eq(hostfs_mount(hp("hello.txt/x"), true, &mp), -ENOTDIR);
}

Test(hostfs, mount_root_is_the_host_directory)
{
	struct vnode *root = mnt(true);
	struct stat st;

	cr_assert_eq(stat(rootdir, &st), 0);
	cr_assert(hostfs_is_hostfs(root));
	cr_assert_str_eq(mp->fstype, "hostfs");
	cr_assert_str_eq(mp->source, rootdir);
	cr_assert(mp->rdonly);
	cr_assert_eq(mp->dev, st.st_dev);
	cr_assert_eq(root->type, VDIR);
	cr_assert_eq(root->mount, mp);
	assert_attr_is_host(root, ".");
	hostfs_unmount(mp);
}

Test(hostfs, statfs_reports_the_host_file_system)
{
	struct vnode *root = mnt(true);
	struct vnode *vn = look(root, "hello.txt");
	struct vfs_statfs sf;
	struct statfs hs;

	cr_assert_not_null(root->ops->statfs);
	cr_assert_eq(statfs(hp("hello.txt"), &hs), 0);
	cr_assert_eq(vn->ops->statfs(vn, &sf), 0);
	cr_assert_eq(sf.magic, (uint32_t)hs.f_type);
	cr_assert_eq(sf.bsize, (uint64_t)hs.f_bsize);
	cr_assert_eq(sf.blocks, hs.f_blocks);
	cr_assert_eq(sf.files, hs.f_files);
	vnode_rel(vn);
	hostfs_unmount(mp);
}

/* --- Lookup and attributes --- */

Test(hostfs, lookup_getattr_matches_host_stat)
{
	static const char *names[] = {
		"hello.txt", "big.bin", "sub", "empty", "fifo", "abs_link",
		"rel_link", "out_link",
	};
	struct vnode *root = mnt(true);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct vnode *vn = look(root, names[i]);

		assert_attr_is_host(vn, names[i]);
		vnode_rel(vn);
	}
	hostfs_unmount(mp);
}

Test(hostfs, lookup_nested_matches_host_stat)
{
	struct vnode *root = mnt(true);
	struct vnode *sub = look(root, "sub");
	struct vnode *in = look(sub, "inner.txt");
	struct vnode *deep = look(sub, "deeper");

	assert_attr_is_host(in, "sub/inner.txt");
	assert_attr_is_host(deep, "sub/deeper");
	vnode_rel(in);
	vnode_rel(deep);
	vnode_rel(sub);
	hostfs_unmount(mp);
}

Test(hostfs, lookup_missing_enoent)
{
	struct vnode *root = mnt(true);
	struct vnode *sub = look(root, "sub");

	cr_assert_eq(look_err(root, "nothing"), -ENOENT);
	cr_assert_eq(look_err(sub, "hello.txt"), -ENOENT);
	vnode_rel(sub);
	hostfs_unmount(mp);
}

Test(hostfs, lookup_in_non_directory_enotdir)
{
	struct vnode *root = mnt(true);
	struct vnode *f = look(root, "hello.txt");
	struct vnode *l = look(root, "rel_link");

	cr_assert_eq(look_err(f, "x"), -ENOTDIR);
	/* A symlink to a directory is no directory to hostfs. */
	cr_assert_eq(look_err(l, "etc"), -ENOTDIR);
	vnode_rel(f);
	vnode_rel(l);
	hostfs_unmount(mp);
}

/* An array, not a pointer: Criterion copies parameters to the test. */
struct badname {
	char name[16];
	int err;
};

ParameterizedTestParameters(hostfs, lookup_bad_name_refused)
{
	static struct badname cases[] = {
		{ "sub/inner.txt", -EINVAL },
		{ "/etc", -EINVAL },
		{ "../outside", -EINVAL },
		{ "sub/", -EINVAL },
		{ "/", -EINVAL },
		{ "", -ENOENT },
		{ "null", -ENOENT },         /* NULL, below */
		{ "long", -ENAMETOOLONG },   /* made 256 bytes long below */
	};

	return cr_make_param_array(struct badname, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

/* Names the VFS never sends, refused all the same. */
ParameterizedTest(struct badname *c, hostfs, lookup_bad_name_refused)
{
	struct vnode *root = mnt(true);
	char longname[257];
	const char *name = c->name;

	if (strcmp(name, "long") == 0) {
		memset(longname, 'a', 256);
		longname[256] = '\0';
		name = longname;
	} else if (strcmp(name, "null") == 0) {
		name = NULL;
	}
	cr_assert_eq(look_err(root, name), c->err, "name %s", c->name);
	hostfs_unmount(mp);
}

Test(hostfs, lookup_symlink_not_followed)
{
	static const char *links[] = { "abs_link", "rel_link", "out_link" };
	struct vnode *root = mnt(true);

	for (size_t i = 0; i < 3; i++) {
		struct vnode *vn = look(root, links[i]);

		cr_assert_eq(vn->type, VLNK, "%s", links[i]);
		cr_assert(S_ISLNK(attr(vn).mode));
		vnode_rel(vn);
	}
	hostfs_unmount(mp);
}

Test(hostfs, lookup_fifo_stats_without_blocking, .timeout = 10)
{
	struct vnode *root = mnt(false);
	struct vnode *vn = look(root, "fifo");
	char c;

	cr_assert_eq(vn->type, VFIFO);
	assert_attr_is_host(vn, "fifo");
	/* hostfs never opens a FIFO: the VFS serves it. */
	cr_assert_eq(vn->ops->read(vn, &c, 1, 0), -EINVAL);
	cr_assert_eq(vn->ops->write(vn, &c, 1, 0), -EINVAL);
	vnode_rel(vn);
	hostfs_unmount(mp);
}

/* --- Identity and freeing --- */

Test(hostfs, lookup_same_file_gives_same_vnode)
{
	struct vnode *root = mnt(true);
	struct vnode *a = look(root, "hello.txt");
	struct vnode *b = look(root, "hello.txt");
	struct vnode *h = look(root, "hard.txt");
	struct vnode *sub = look(root, "sub");
	struct vnode *up = look(sub, "..");

	cr_assert_eq(a, b);
	cr_assert_eq(a, h, "hard links share a vnode");
	cr_assert_eq(up, root);
	cr_assert_neq(a, sub);
	vnode_rel(a);
	vnode_rel(b);
	vnode_rel(h);
	vnode_rel(up);
	vnode_rel(sub);
	hostfs_unmount(mp);
}

Test(hostfs, unmount_after_release_frees_all)
{
	int fds = fd_count();
	struct vnode *root = mnt(true);
	struct vnode *sub = look(root, "sub");
	struct vnode *deep = look(sub, "deeper");
	struct vnode *in = look(sub, "inner.txt");
	char b[8];

	/* The leaf holds its directories: release them first. */
	vnode_rel(sub);
	cr_assert_eq(in->ops->read(in, b, sizeof(b), 0), 6);
	vnode_rel(in);
	vnode_rel(deep);
	/* A fresh lookup after all went gives a working vnode again. */
	in = look(root, "hello.txt");
	cr_assert_eq(in->ops->read(in, b, 5, 0), 5);
	vnode_rel(in);
	hostfs_unmount(mp);   /* asserts that nothing is left */
	cr_assert_eq(fd_count(), fds, "every host fd closed");
}

Test(hostfs, unmount_with_live_vnode_asserts, .signal = SIGABRT)
{
	struct vnode *root = mnt(true);

	(void)look(root, "hello.txt");
	tree_remove();   /* the fixture's .fini does not run after a crash */
	hostfs_unmount(mp);
}

/* --- Reading --- */

static void
assert_big_bytes(const uint8_t *b, size_t len, uint64_t off)
{
	for (size_t i = 0; i < len; i++)
		if (b[i] != big_byte(off + i))
			cr_assert_fail("byte %zu at %llu", i,
			    (unsigned long long)off);
}

Test(hostfs, read_at_offsets_returns_host_bytes)
{
	static const uint64_t offs[] = { 0, 1, 4095, 4096, 65537, 999999 };
	struct vnode *root = mnt(true);
	struct vnode *vn = look(root, "big.bin");
	uint8_t *b = malloc(BIGSZ + 100);

	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		cr_assert_eq(vn->ops->read(vn, b, 5000, offs[i]), 5000);
		assert_big_bytes(b, 5000, offs[i]);
	}
	/* A short count at the end, then nothing. */
	cr_assert_eq(vn->ops->read(vn, b, 100, BIGSZ - 10), 10);
	assert_big_bytes(b, 10, BIGSZ - 10);
	cr_assert_eq(vn->ops->read(vn, b, 100, BIGSZ), 0);
	cr_assert_eq(vn->ops->read(vn, b, 100, BIGSZ + 12345), 0);
	cr_assert_eq(vn->ops->read(vn, b, BIGSZ + 100, 0), BIGSZ);
	assert_big_bytes(b, BIGSZ, 0);
	free(b);
	vnode_rel(vn);
	hostfs_unmount(mp);
}

Test(hostfs, read_into_ram_file_buffer)
{
	struct vnode *root = mnt(true);
	struct vnode *vn = look(root, "big.bin");
	uint8_t *ram = (uint8_t *)plat_ram_base() + 3 * 4096 + 17;

	cr_assert_eq(vn->ops->read(vn, ram, 3 * 4096, 100), 3 * 4096);
	assert_big_bytes(ram, 3 * 4096, 100);
	vnode_rel(vn);
	hostfs_unmount(mp);
}

Test(hostfs, read_wrong_type_fails)
{
	struct vnode *root = mnt(true);
	struct vnode *f = look(root, "hello.txt");
	struct vnode *l = look(root, "abs_link");
	char b[64];

	cr_assert_eq(root->ops->read(root, b, sizeof(b), 0), -EISDIR);
	cr_assert_eq(l->ops->read(l, b, sizeof(b), 0), -EINVAL);
	cr_assert_eq(f->ops->readlink(f, b, sizeof(b)), -EINVAL);
	cr_assert_eq(root->ops->readlink(root, b, sizeof(b)), -EINVAL);
	vnode_rel(f);
	vnode_rel(l);
	hostfs_unmount(mp);
}

/* --- Directories --- */

#define MAXENT 64

struct dirlist {
	struct {
		char name[256];
		uint64_t ino, next;
		enum vtype type;
	} e[MAXENT];
	int n;
	int stop_after;   /* stop the walk after this many; 0: never */
};

static int
collect(void *arg, const char *name, size_t len, uint64_t ino,
    enum vtype type, uint64_t next)
{
	struct dirlist *d = arg;

	cr_assert_lt(d->n, MAXENT);
	cr_assert_lt(len, sizeof(d->e[0].name));
	memcpy(d->e[d->n].name, name, len);
	d->e[d->n].name[len] = '\0';
	d->e[d->n].ino = ino;
	d->e[d->n].type = type;
	d->e[d->n].next = next;
	d->n++;
	return d->stop_after != 0 && d->n >= d->stop_after;
}

static int
dl_find(const struct dirlist *d, const char *name)
{
	for (int i = 0; i < d->n; i++)
		if (strcmp(d->e[i].name, name) == 0)
			return i;
	return -1;
}

/* Every entry of the host directory rel is in d, once, and no other. */
static void
assert_list_is_host(const struct dirlist *d, const char *rel, bool root)
{
	DIR *dp = opendir(hp(rel));
	struct dirent *de;
	int n = 0;

	cr_assert_not_null(dp);
	while ((de = readdir(dp)) != NULL) {
		int i = dl_find(d, de->d_name);
		struct stat st;
		char path[512];

		cr_assert_geq(i, 0, "%s missing", de->d_name);
		n++;
		if (root && strcmp(de->d_name, "..") == 0)
			continue;   /* checked by readdir_root_dotdot_... */
		snprintf(path, sizeof(path), "%s/%s", rel, de->d_name);
		cr_assert_eq(lstat(hp(path), &st), 0);
		cr_assert_eq(d->e[i].ino, st.st_ino, "%s ino", de->d_name);
		cr_assert_eq(d->e[i].type, vtype_from_mode(st.st_mode),
		    "%s type", de->d_name);
	}
	closedir(dp);
	cr_assert_eq(d->n, n, "hostfs listed %d, the host %d", d->n, n);
	for (int i = 0; i < d->n; i++)
		for (int j = i + 1; j < d->n; j++)
			cr_assert_str_neq(d->e[i].name, d->e[j].name);
}

Test(hostfs, readdir_lists_host_entries)
{
	struct vnode *root = mnt(true);
	struct vnode *sub = look(root, "sub");
	struct dirlist *d = calloc(1, sizeof(*d));

	cr_assert_eq(root->ops->readdir(root, 0, collect, d), 0);
	assert_list_is_host(d, ".", true);
	cr_assert_geq(dl_find(d, "."), 0);
	cr_assert_eq(d->e[dl_find(d, "fifo")].type, VFIFO);
	cr_assert_eq(d->e[dl_find(d, "abs_link")].type, VLNK);
	memset(d, 0, sizeof(*d));
	cr_assert_eq(sub->ops->readdir(sub, 0, collect, d), 0);
	assert_list_is_host(d, "sub", false);
	free(d);
	vnode_rel(sub);
	hostfs_unmount(mp);
}

Test(hostfs, readdir_resumes_from_cookies)
{
	struct vnode *root = mnt(true);
	struct dirlist *all = calloc(1, sizeof(*all));
	struct dirlist *one = calloc(1, sizeof(*one));
	uint64_t cookie = 0;

	cr_assert_eq(root->ops->readdir(root, 0, collect, all), 0);
	/* One entry per call, each call resuming where the last stopped. */
	for (int calls = 0; calls <= all->n; calls++) {
		int before = one->n;

		one->stop_after = before + 1;
		cr_assert_eq(root->ops->readdir(root, cookie, collect, one), 0);
		if (one->n == before)
			break;
		cookie = one->e[before].next;
	}
	cr_assert_eq(one->n, all->n);
	for (int i = 0; i < all->n; i++)
		cr_assert_str_eq(one->e[i].name, all->e[i].name);
	/* Resuming from the middle gives the rest. */
	memset(one, 0, sizeof(*one));
	cr_assert_eq(root->ops->readdir(root, all->e[2].next, collect, one), 0);
	cr_assert_eq(one->n, all->n - 3);
	cr_assert_str_eq(one->e[0].name, all->e[3].name);
	free(all);
	free(one);
	hostfs_unmount(mp);
}

Test(hostfs, readdir_root_dotdot_names_root)
{
	struct vnode *root = mnt(true);
	struct dirlist *d = calloc(1, sizeof(*d));
	int i;

	cr_assert_eq(root->ops->readdir(root, 0, collect, d), 0);
	cr_assert_geq(i = dl_find(d, ".."), 0);
	cr_assert_eq(d->e[i].ino, attr(root).ino, "no inode from outside");
	free(d);
	hostfs_unmount(mp);
}

Test(hostfs, readdir_wrong_type_enotdir)
{
	struct vnode *root = mnt(true);
	struct vnode *f = look(root, "hello.txt");
	struct dirlist *d = calloc(1, sizeof(*d));

	cr_assert_eq(f->ops->readdir(f, 0, collect, d), -ENOTDIR);
	cr_assert_eq(d->n, 0);
	free(d);
	vnode_rel(f);
	hostfs_unmount(mp);
}

/*
 * Two directories listed one entry per call, in turn: the records the
 * host gave for one and the callback did not take are not the other's.
 */
Test(hostfs, readdir_interleaved_dirs_each_whole)
{
	struct vnode *root = mnt(true);
	struct vnode *dirs[2] = { root, look(root, "sub") };
	struct dirlist *d[2] = { calloc(1, sizeof(**d)),
		calloc(1, sizeof(**d)) };
	uint64_t cookie[2] = { 0, 0 };
	bool done[2] = { false, false };

	while (!done[0] || !done[1]) {
		for (int k = 0; k < 2; k++) {
			int before = d[k]->n;

			if (done[k])
				continue;
			d[k]->stop_after = before + 1;
			cr_assert_eq(dirs[k]->ops->readdir(dirs[k], cookie[k],
			    collect, d[k]), 0);
			if (d[k]->n == before)
				done[k] = true;
			else
				cookie[k] = d[k]->e[before].next;
		}
	}
	assert_list_is_host(d[0], ".", true);
	assert_list_is_host(d[1], "sub", false);
	free(d[0]);
	free(d[1]);
	vnode_rel(dirs[1]);
	hostfs_unmount(mp);
}

/*
 * After the end, a listing from the start again (rewinddir) shows a name
 * the host made meanwhile; one resumed at the end's cookie shows none.
 */
Test(hostfs, readdir_after_end_rewound_sees_host_change)
{
	struct vnode *root = mnt(true);
	struct vnode *sub = look(root, "sub");
	struct dirlist *d = calloc(1, sizeof(*d));
	uint64_t end;

	cr_assert_eq(sub->ops->readdir(sub, 0, collect, d), 0);
	end = d->e[d->n - 1].next;
	cr_assert_eq(close(open(hp("sub/late"), O_CREAT | O_WRONLY, 0644)), 0);
	memset(d, 0, sizeof(*d));
	cr_assert_eq(sub->ops->readdir(sub, end, collect, d), 0);
	cr_assert_eq(d->n, 0);
	cr_assert_eq(sub->ops->readdir(sub, 0, collect, d), 0);
	cr_assert_geq(dl_find(d, "late"), 0);
	assert_list_is_host(d, "sub", false);
	free(d);
	vnode_rel(sub);
	hostfs_unmount(mp);
}

/* --- The status of a read-only mount's files --- */

/*
 * A read-only mount's status is the one seen within the last 10 ms (no
 * host call for a stat right after a lookup), and the host's own after.
 */
Test(hostfs, rdonly_status_seen_within_10ms)
{
	struct vnode *root = mnt(true);
	struct vnode *f;

	fake_clock_frozen = true;
	f = look(root, "hello.txt");
	cr_assert_eq(chmod(hp("hello.txt"), 0600), 0);
	cr_assert_eq(attr(f).mode, S_IFREG | 0644, "status asked again");
	fake_clock_now_ns += 9000000;
	cr_assert_eq(attr(f).mode, S_IFREG | 0644);
	fake_clock_now_ns += 1000000;
	assert_attr_is_host(f, "hello.txt");
	cr_assert_eq(truncate(hp("hello.txt"), 3), 0);
	fake_clock_now_ns += 10000000;
	assert_attr_is_host(f, "hello.txt");
	vnode_rel(f);
	hostfs_unmount(mp);
}

/*
 * What the guest changes through a read-write mount of the same host
 * tree shows through the read-only one at once: mode, size and a new
 * name's link count.
 */
Test(hostfs, rdonly_status_sees_rw_alias_at_once)
{
	struct mount *ro, *rw;
	struct vnode *fro, *frw, *dro, *dir, *made;
	struct vattr va = { .mode = 0600 };

	fake_clock_frozen = true;
	cr_assert_eq(hostfs_mount(rootdir, true, &ro), 0);
	cr_assert_eq(hostfs_mount(rootdir, false, &rw), 0);
	fro = look(ro->root, "hello.txt");
	frw = look(rw->root, "hello.txt");
	dro = look(ro->root, "empty");
	cr_assert_eq(attr(fro).mode, S_IFREG | 0644);
	assert_attr_is_host(dro, "empty");
	cr_assert_eq(frw->ops->setattr(frw, &va, VA_MODE), 0);
	assert_attr_is_host(fro, "hello.txt");
	cr_assert_eq(frw->ops->write(frw, "0123456789abcdef", 16, 100), 16);
	assert_attr_is_host(fro, "hello.txt");
	cr_assert_eq(attr(fro).size, 116);
	cr_assert_eq(rw->root->ops->link(rw->root, "again", frw), 0);
	cr_assert_eq(attr(fro).nlink, 3);
	dir = look(rw->root, "empty");
	cr_assert_eq(dir->ops->create(dir, "new", S_IFREG | 0644, 0, NULL,
	    getuid(), getgid(), &made), 0);
	vnode_rel(made);
	vnode_rel(dir);
	assert_attr_is_host(dro, "empty");
	vnode_rel(dro);
	vnode_rel(fro);
	vnode_rel(frw);
	hostfs_unmount(rw);
	hostfs_unmount(ro);
}

/* --- Symlinks and ".." --- */

Test(hostfs, readlink_returns_raw_target)
{
	static const char *cases[][2] = {
		{ "abs_link", "/etc/passwd" },
		{ "rel_link", "../../.." },
		{ "out_link", "../outside/secret.txt" },
	};
	struct vnode *root = mnt(true);
	char b[PATH_MAX];

	for (size_t i = 0; i < 3; i++) {
		struct vnode *vn = look(root, cases[i][0]);
		long n = vn->ops->readlink(vn, b, sizeof(b));

		cr_assert_eq(n, (long)strlen(cases[i][1]));
		cr_assert_eq(memcmp(b, cases[i][1], (size_t)n), 0);
		/* Truncated to the buffer, as readlink(2). */
		cr_assert_eq(vn->ops->readlink(vn, b, 3), 3);
		vnode_rel(vn);
	}
	hostfs_unmount(mp);
}

Test(hostfs, dotdot_from_subdir_gives_parent)
{
	struct vnode *root = mnt(true);
	struct vnode *sub = look(root, "sub");
	struct vnode *deep = look(sub, "deeper");
	struct vnode *up1 = look(deep, "..");
	struct vnode *up2 = look(up1, "..");
	struct vnode *dot = look(sub, ".");

	cr_assert_eq(up1, sub);
	cr_assert_eq(up2, root);
	cr_assert_eq(dot, sub);
	vnode_rel(dot);
	vnode_rel(up2);
	vnode_rel(up1);
	vnode_rel(deep);
	vnode_rel(sub);
	hostfs_unmount(mp);
}

Test(hostfs, dotdot_at_root_stays_at_root)
{
	struct vnode *root = mnt(true);
	struct vnode *up = look(root, "..");

	cr_assert_eq(up, root);
	vnode_rel(up);
	hostfs_unmount(mp);
}

Test(hostfs, dotdot_after_host_moves_dir_stays_inside)
{
	struct vnode *root = mnt(true);
	struct vnode *sub = look(root, "sub");
	char to[PATH_MAX];
	struct vnode *up;

	/* The host moves sub out of the tree behind hostfs's back. */
	snprintf(to, sizeof(to), "%s/outside/sub", tmpdir);
	cr_assert_eq(rename(hp("sub"), to), 0);
	up = look(sub, "..");
	cr_assert_eq(up, root, "\"..\" follows hostfs's record, not the host");
	vnode_rel(up);
	vnode_rel(sub);
	hostfs_unmount(mp);
}

/*
 * A name looked up but not opened yet, which the host then swaps for a
 * symlink out of the tree: opening it by name (to look up in it, list
 * it, read it or read the link) never follows the link; the vnode is
 * stale, and nothing of outside/ shows.
 */
Test(hostfs, lazy_open_of_name_swapped_for_symlink_stays_inside)
{
	struct vnode *root, *sub, *f, *vn = NULL;
	struct dirlist *d = calloc(1, sizeof(*d));
	char to[PATH_MAX], b[64];
	long n;
	int r;

	fake_clock_frozen = true;
	root = mnt(true);
	sub = look(root, "sub");
	f = look(root, "hello.txt");
	snprintf(to, sizeof(to), "%s/outside/sub", tmpdir);
	cr_assert_eq(rename(hp("sub"), to), 0);
	cr_assert_eq(symlink("../outside", hp("sub")), 0);
	cr_assert_eq(unlink(hp("hello.txt")), 0);
	cr_assert_eq(symlink("../outside/secret.txt", hp("hello.txt")), 0);
	r = sub->ops->lookup(sub, "secret.txt", &vn);
	cr_assert(r == -ESTALE || r == -ENOENT, "lookup through it: %d", r);
	cr_assert_eq(sub->ops->readdir(sub, 0, collect, d), -ESTALE);
	cr_assert_eq(d->n, 0, "listed %d names of outside/", d->n);
	n = f->ops->read(f, b, sizeof(b), 0);
	cr_assert_eq(n, -ESTALE, "read gave %ld", n);
	/* The file's status as last seen, never the link's or secret's. */
	fake_clock_now_ns += 10000000;
	cr_assert_eq(attr(f).mode, S_IFREG | 0644);
	cr_assert_eq(attr(f).size, strlen(HELLO));
	free(d);
	vnode_rel(f);
	vnode_rel(sub);
	hostfs_unmount(mp);
}

/*
 * A file looked up but not opened, removed on the host, and its inode
 * number given to a new directory: a lookup of the new name gets a
 * directory vnode, not the file's.  (A host file system that does not
 * reuse numbers soon has nothing to check.)
 */
Test(hostfs, lazy_inode_number_reused_by_another_type)
{
	struct vnode *root = mnt(false);
	struct vnode *f = look(root, "hello.txt");
	uint64_t ino = attr(f).ino;
	struct vnode *g;
	struct stat st;
	char name[32];
	int i;

	cr_assert_eq(unlink(hp("hello.txt")), 0);
	cr_assert_eq(unlink(hp("hard.txt")), 0);
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		cr_assert_eq(mkdir(hp(name), 0755), 0);
		cr_assert_eq(stat(hp(name), &st), 0);
		if (st.st_ino == ino)
			break;
	}
	if (i == 200) {
		vnode_rel(f);
		hostfs_unmount(mp);
		cr_skip_test("the host gave no directory number %llu",
		    (unsigned long long)ino);
	}
	g = look(root, name);
	cr_assert_neq(g, f);
	cr_assert_eq(g->type, VDIR);
	assert_attr_is_host(g, name);
	cr_assert_eq(f->ops->read(f, name, 1, 0), -ESTALE);
	vnode_rel(g);
	vnode_rel(f);
	hostfs_unmount(mp);
}

/* --- A read-only mount --- */

/* The host tree as text: names, modes, sizes and hello.txt's bytes. */
static char *
host_snapshot(void)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	static const char *names[] = {
		".", "hello.txt", "hard.txt", "big.bin", "sub", "sub/inner.txt",
		"sub/deeper", "empty", "fifo", "abs_link", "rel_link",
		"out_link",
	};
	struct dirent *de;
	DIR *dp;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct stat st;

		cr_assert_eq(lstat(hp(names[i]), &st), 0);
		fprintf(f, "%s %o %lld %lld\n", names[i], st.st_mode,
		    (long long)st.st_size, (long long)st.st_mtim.tv_nsec);
	}
	fprintf(f, "%s", host_content("hello.txt"));
	cr_assert_not_null(dp = opendir(rootdir));
	while ((de = readdir(dp)) != NULL)
		fprintf(f, "%s\n", de->d_name);
	closedir(dp);
	fclose(f);
	return s;
}

Test(hostfs, rdonly_mount_refuses_changes_erofs)
{
	char *before = host_snapshot(), *after;
	struct vnode *root = mnt(true);
	struct vnode *f = look(root, "hello.txt");
	struct vnode *sub = look(root, "sub");
	struct vnode *vn = NULL;
	struct vattr va = { .mode = 0777, .size = 0 };

	cr_assert_eq(f->ops->write(f, "x", 1, 0), -EROFS);
	cr_assert_eq(f->ops->setattr(f, &va, VA_SIZE), -EROFS);
	cr_assert_eq(f->ops->setattr(f, &va, VA_MODE), -EROFS);
	cr_assert_eq(f->ops->setattr(f, &va, VA_UID | VA_GID), -EROFS);
	cr_assert_eq(f->ops->setattr(f, &va, VA_MTIME), -EROFS);
	cr_assert_eq(root->ops->create(root, "new", S_IFREG | 0644, 0, NULL,
	    0, 0, &vn), -EROFS);
	cr_assert_eq(root->ops->create(root, "newd", S_IFDIR | 0755, 0, NULL,
	    0, 0, &vn), -EROFS);
	cr_assert_eq(root->ops->create(root, "newl", S_IFLNK | 0777, 0, "x",
	    0, 0, &vn), -EROFS);
	cr_assert_eq(root->ops->create(root, "newp", S_IFIFO | 0644, 0, NULL,
	    0, 0, &vn), -EROFS);
	cr_assert_null(vn);
	cr_assert_eq(root->ops->remove(root, "hello.txt", false), -EROFS);
	cr_assert_eq(root->ops->remove(root, "empty", true), -EROFS);
	cr_assert_eq(root->ops->rename(root, "hello.txt", sub, "moved", 0),
	    -EROFS);
	cr_assert_eq(root->ops->link(sub, "again", f), -EROFS);
	vnode_rel(f);
	vnode_rel(sub);
	hostfs_unmount(mp);
	after = host_snapshot();
	cr_assert_str_eq(after, before);
	free(before);
	free(after);
}

/* --- A read-write mount --- */

Test(hostfs, rw_create_write_reads_back_on_host)
{
	struct vnode *root = mnt(false);
	struct vnode *sub = look(root, "sub");
	struct vnode *vn = NULL, *again;
	struct stat st;
	char b[32];

	cr_assert_eq(sub->ops->create(sub, "new.txt", S_IFREG | 0640, 0,
	    NULL, 0, 0, &vn), 0);
	cr_assert_eq(vn->type, VREG);
	cr_assert_eq(vn->ops->write(vn, "abcdef", 6, 0), 6);
	cr_assert_eq(vn->ops->write(vn, "XY", 2, 10), 2);
	cr_assert_eq(stat(hp("sub/new.txt"), &st), 0);
	cr_assert_eq(st.st_mode, S_IFREG | 0640, "mode %o: no host umask",
	    st.st_mode);
	cr_assert_eq(st.st_size, 12);
	cr_assert_eq(memcmp(host_content("sub/new.txt"), "abcdef\0\0\0\0XY",
	    12), 0);
	cr_assert_eq(vn->ops->read(vn, b, sizeof(b), 0), 12);
	again = look(sub, "new.txt");
	cr_assert_eq(again, vn);
	assert_attr_is_host(vn, "sub/new.txt");
	vnode_rel(again);
	vnode_rel(vn);
	vnode_rel(sub);
	hostfs_unmount(mp);
}

Test(hostfs, rw_create_each_type_exists_on_host)
{
	struct vnode *root = mnt(false);
	struct vnode *vn;
	struct stat st;
	char b[16];

	cr_assert_eq(root->ops->create(root, "d", S_IFDIR | 0750, 0, NULL, 0,
	    0, &vn), 0);
	cr_assert_eq(vn->type, VDIR);
	vnode_rel(vn);
	cr_assert_eq(lstat(hp("d"), &st), 0);
	cr_assert_eq(st.st_mode, S_IFDIR | 0750);
	cr_assert_eq(root->ops->create(root, "l", S_IFLNK | 0777, 0,
	    "../../etc/shadow", 0, 0, &vn), 0);
	cr_assert_eq(vn->type, VLNK);
	vnode_rel(vn);
	cr_assert_eq(readlink(hp("l"), b, sizeof(b)), 16);
	cr_assert_eq(memcmp(b, "../../etc/shadow", 16), 0);
	cr_assert_eq(root->ops->create(root, "p", S_IFIFO | 0600, 0, NULL, 0,
	    0, &vn), 0);
	cr_assert_eq(vn->type, VFIFO);
	vnode_rel(vn);
	cr_assert_eq(lstat(hp("p"), &st), 0);
	cr_assert_eq(st.st_mode, S_IFIFO | 0600);
	hostfs_unmount(mp);
}

Test(hostfs, rw_create_existing_or_device_fails)
{
	struct vnode *root = mnt(false);
	struct vnode *vn = NULL;

	cr_assert_eq(root->ops->create(root, "hello.txt", S_IFREG | 0644, 0,
	    NULL, 0, 0, &vn), -EEXIST);
	/* A symlink in the way is not followed to make its target. */
	cr_assert_eq(root->ops->create(root, "out_link", S_IFREG | 0644, 0,
	    NULL, 0, 0, &vn), -EEXIST);
	cr_assert_eq(root->ops->create(root, "sub", S_IFDIR | 0755, 0, NULL,
	    0, 0, &vn), -EEXIST);
	cr_assert_eq(root->ops->create(root, "..", S_IFDIR | 0755, 0, NULL,
	    0, 0, &vn), -EEXIST);
	cr_assert_eq(root->ops->create(root, "null", S_IFCHR | 0666,
	    makedev(1, 3), NULL, 0, 0, &vn), -EPERM);
	cr_assert_eq(root->ops->create(root, "a/b", S_IFREG | 0644, 0, NULL,
	    0, 0, &vn), -EINVAL);
	cr_assert_null(vn);
	cr_assert(!host_exists("null"));
	cr_assert_str_eq(host_content("../outside/secret.txt"), "secret\n");
	hostfs_unmount(mp);
}

Test(hostfs, rw_rename_moves_on_host)
{
	struct vnode *root = mnt(false);
	struct vnode *sub = look(root, "sub");
	struct vnode *f = look(root, "hello.txt");
	struct vnode *vn;

	cr_assert_eq(root->ops->rename(root, "hello.txt", sub, "moved.txt",
	    0), 0);
	cr_assert(!host_exists("hello.txt"));
	cr_assert_str_eq(host_content("sub/moved.txt"), HELLO);
	vn = look(sub, "moved.txt");
	cr_assert_eq(vn, f, "the same file, the same vnode");
	vnode_rel(vn);
	cr_assert_eq(sub->ops->rename(sub, "moved.txt", sub, "inner.txt",
	    VFS_RENAME_NOREPLACE), -EEXIST);
	cr_assert_eq(sub->ops->rename(sub, "moved.txt", sub, "inner.txt",
	    VFS_RENAME_EXCHANGE), 0);
	cr_assert_str_eq(host_content("sub/inner.txt"), HELLO);
	cr_assert_str_eq(host_content("sub/moved.txt"), "inner\n");
	cr_assert_eq(sub->ops->rename(sub, "moved.txt", sub, "inner.txt", 0),
	    0);
	cr_assert_str_eq(host_content("sub/inner.txt"), "inner\n");
	cr_assert_eq(sub->ops->rename(sub, "nothing", root, "x", 0), -ENOENT);
	cr_assert_eq(sub->ops->rename(sub, "inner.txt", root, "x", 0x100),
	    -EINVAL);
	vnode_rel(f);
	vnode_rel(sub);
	hostfs_unmount(mp);
}

Test(hostfs, rw_rename_dir_updates_dotdot)
{
	struct vnode *root = mnt(false);
	struct vnode *sub = look(root, "sub");
	struct vnode *empty = look(root, "empty");
	struct vnode *up;

	cr_assert_eq(root->ops->rename(root, "sub", empty, "sub", 0), 0);
	cr_assert(host_exists("empty/sub/inner.txt"));
	up = look(sub, "..");
	cr_assert_eq(up, empty);
	vnode_rel(up);
	/* Not beneath itself: hostfs refuses before the host would. */
	cr_assert_eq(root->ops->rename(root, "empty", sub, "loop", 0),
	    -EINVAL);
	vnode_rel(sub);
	vnode_rel(empty);
	hostfs_unmount(mp);
}

Test(hostfs, rw_remove_files_and_dirs)
{
	struct vnode *root = mnt(false);
	struct vnode *sub = look(root, "sub");

	cr_assert_eq(root->ops->remove(root, "sub", true), -ENOTEMPTY);
	cr_assert_eq(root->ops->remove(root, "hello.txt", true), -ENOTDIR);
	cr_assert_eq(root->ops->remove(root, "empty", false), -EISDIR);
	cr_assert_eq(root->ops->remove(root, "nothing", false), -ENOENT);
	cr_assert_eq(sub->ops->remove(sub, "inner.txt", false), 0);
	cr_assert_eq(sub->ops->remove(sub, "deeper", true), 0);
	cr_assert_eq(root->ops->remove(root, "abs_link", false), 0);
	cr_assert_eq(root->ops->remove(root, "fifo", false), 0);
	cr_assert(!host_exists("sub/inner.txt"));
	cr_assert(!host_exists("abs_link"));
	cr_assert(!host_exists("fifo"));
	cr_assert_eq(root->ops->remove(root, "sub", true), 0);
	cr_assert(!host_exists("sub"));
	/* Inside a removed directory, ".." is gone as in Linux. */
	cr_assert_eq(look_err(sub, ".."), -ENOENT);
	vnode_rel(sub);
	cr_assert(host_exists("hard.txt"));
	hostfs_unmount(mp);
}

Test(hostfs, rw_unlinked_file_still_reads_and_writes)
{
	struct vnode *root = mnt(false);
	struct vnode *f = look(root, "hello.txt");
	struct vnode *h;
	char b[32];

	/* Never read before the unlink: hostfs must open it first. */
	cr_assert_eq(root->ops->remove(root, "hello.txt", false), 0);
	cr_assert(!host_exists("hello.txt"));
	cr_assert_eq(f->ops->read(f, b, sizeof(b), 0), (long)strlen(HELLO));
	cr_assert_eq(memcmp(b, HELLO, strlen(HELLO)), 0);
	cr_assert_eq(f->ops->write(f, "J", 1, 0), 1);
	/* Its other name sees the write, and gives the same vnode. */
	cr_assert_eq(host_content("hard.txt")[0], 'J');
	h = look(root, "hard.txt");
	cr_assert_eq(h, f);
	vnode_rel(h);
	vnode_rel(f);
	hostfs_unmount(mp);
}

Test(hostfs, rw_link_makes_hard_link)
{
	struct vnode *root = mnt(false);
	struct vnode *sub = look(root, "sub");
	struct vnode *f = look(root, "big.bin");
	struct vnode *l = look(root, "abs_link");
	struct vnode *vn;
	struct stat a, b;

	cr_assert_eq(sub->ops->link(sub, "big2", f), 0);
	cr_assert_eq(stat(hp("big.bin"), &a), 0);
	cr_assert_eq(stat(hp("sub/big2"), &b), 0);
	cr_assert_eq(a.st_ino, b.st_ino);
	cr_assert_eq(a.st_nlink, 2);
	vn = look(sub, "big2");
	cr_assert_eq(vn, f);
	vnode_rel(vn);
	/* A symlink is linked as itself, not its target. */
	cr_assert_eq(sub->ops->link(sub, "l2", l), 0);
	cr_assert_eq(lstat(hp("sub/l2"), &b), 0);
	cr_assert(S_ISLNK(b.st_mode));
	cr_assert_eq(root->ops->link(root, "sub2", sub), -EPERM);
	cr_assert_eq(sub->ops->link(sub, "inner.txt", f), -EEXIST);
	vnode_rel(l);
	vnode_rel(f);
	vnode_rel(sub);
	hostfs_unmount(mp);
}

Test(hostfs, rw_setattr_changes_host)
{
	struct vnode *root = mnt(false);
	struct vnode *f = look(root, "hello.txt");
	struct vnode *l = look(root, "abs_link");
	struct vattr va = {
		.mode = 0600, .size = 5, .atime_ns = 1000000000LL * 1000 + 7,
		.mtime_ns = -1500000000LL,
	};
	struct timespec atime;
	struct stat st;

	cr_assert_eq(f->ops->setattr(f, &va, VA_MODE | VA_SIZE | VA_ATIME |
	    VA_MTIME), 0);
	cr_assert_eq(stat(hp("hello.txt"), &st), 0);
	cr_assert_eq(st.st_mode, S_IFREG | 0600);
	cr_assert_eq(st.st_size, 5);
	cr_assert_eq(st.st_atim.tv_sec, 1000);
	cr_assert_eq(st.st_atim.tv_nsec, 7);
	cr_assert_eq(st.st_mtim.tv_sec, -2);
	cr_assert_eq(st.st_mtim.tv_nsec, 500000000);
	cr_assert_str_eq(host_content("hello.txt"), "hello");
	va.uid = st.st_uid;
	va.gid = st.st_gid;
	cr_assert_eq(f->ops->setattr(f, &va, VA_UID | VA_GID), 0);
	assert_attr_is_host(f, "hello.txt");
	/* Only mtime: atime stays (reading the file above may have moved it). */
	cr_assert_eq(stat(hp("hello.txt"), &st), 0);
	atime = st.st_atim;
	va.mtime_ns = 0;
	cr_assert_eq(f->ops->setattr(f, &va, VA_MTIME), 0);
	cr_assert_eq(stat(hp("hello.txt"), &st), 0);
	cr_assert_eq(st.st_atim.tv_sec, atime.tv_sec);
	cr_assert_eq(st.st_atim.tv_nsec, atime.tv_nsec);
	cr_assert_eq(st.st_mtim.tv_sec, 0);
	/* A symlink's own mode cannot change; its target is untouched. */
	cr_assert_eq(l->ops->setattr(l, &va, VA_MODE), -EOPNOTSUPP);
	cr_assert_eq(l->ops->setattr(l, &va, VA_SIZE), -EINVAL);
	cr_assert_eq(root->ops->setattr(root, &va, VA_SIZE), -EISDIR);
	cr_assert_eq(f->ops->setattr(f, &va, 0x1000), -EINVAL);
	vnode_rel(l);
	vnode_rel(f);
	hostfs_unmount(mp);
}

Test(hostfs, rw_write_after_chmod_reopens)
{
	struct vnode *root = mnt(false);
	struct vnode *f;
	struct vattr va = { .mode = 0644 };
	char b[8];

	cr_assert_eq(chmod(hp("hello.txt"), 0444), 0);
	f = look(root, "hello.txt");
	cr_assert_eq(f->ops->read(f, b, 5, 0), 5);
	cr_assert_eq(f->ops->setattr(f, &va, VA_MODE), 0);
	cr_assert_eq(f->ops->write(f, "HE", 2, 0), 2);
	cr_assert_eq(memcmp(host_content("hello.txt"), "HEllo", 5), 0);
	vnode_rel(f);
	hostfs_unmount(mp);
}

Test(hostfs, rw_reopen_of_replaced_file_estale)
{
	struct vnode *root = mnt(false);
	struct vnode *f = look(root, "sub");
	struct vnode *in = look(f, "inner.txt");
	char b[8];

	/* The host puts another file under the name behind hostfs's back. */
	cr_assert_eq(rename(hp("hello.txt"), hp("sub/inner.txt")), 0);
	cr_assert_eq(in->ops->read(in, b, sizeof(b), 0), -ESTALE);
	vnode_rel(in);
	vnode_rel(f);
	hostfs_unmount(mp);
}

/* --- Under the lock-down --- */

/* A failed step of the locked-down child: its exit status says which. */
#define STEP(n, cond)                                                       \
	do {                                                                 \
		if (!(cond))                                                 \
			_exit(n);                                            \
	} while (0)

static int
count_entries(void *arg, const char *name, size_t len, uint64_t ino,
    enum vtype type, uint64_t next)
{
	(*(int *)arg)++;
	return 0;
}

/* Reading ops, on a read-write mount, after the lock-down. */
static void
locked_reads(struct vnode *root)
{
	struct vnode *f, *l, *sub, *up;
	struct vattr va;
	char b[64];
	int n = 0;

	STEP(10, root->ops->lookup(root, "hello.txt", &f) == 0);
	STEP(11, f->ops->getattr(f, &va) == 0 && va.size == strlen(HELLO));
	STEP(12, f->ops->read(f, b, sizeof(b), 0) == (long)strlen(HELLO));
	STEP(13, root->ops->readdir(root, 0, count_entries, &n) == 0 && n > 5);
	STEP(14, root->ops->lookup(root, "abs_link", &l) == 0);
	STEP(15, l->ops->readlink(l, b, sizeof(b)) == 11);
	STEP(16, root->ops->lookup(root, "sub", &sub) == 0);
	STEP(17, sub->ops->lookup(sub, "..", &up) == 0 && up == root);
	vnode_rel(up);
	STEP(18, root->ops->lookup(root, "fifo", &up) == 0);
	vnode_rel(up);
	vnode_rel(sub);
	vnode_rel(l);
	vnode_rel(f);
}

/* Every changing op, after the lock-down. */
static void
locked_changes(struct vnode *root)
{
	struct vattr va = { .mode = 0600, .size = 3, .atime_ns = 5,
		.mtime_ns = 6 };
	struct vnode *f, *d, *vn;

	STEP(20, root->ops->create(root, "n", S_IFREG | 0644, 0, NULL, 0, 0,
	    &f) == 0);
	STEP(21, f->ops->write(f, "abcdef", 6, 0) == 6);
	STEP(22, f->ops->setattr(f, &va, VA_MODE | VA_SIZE | VA_ATIME |
	    VA_MTIME) == 0);
	STEP(23, f->ops->getattr(f, &va) == 0);
	STEP(24, f->ops->setattr(f, &va, VA_UID | VA_GID) == 0);
	STEP(25, root->ops->create(root, "d", S_IFDIR | 0755, 0, NULL, 0, 0,
	    &d) == 0);
	STEP(26, root->ops->create(root, "p", S_IFIFO | 0644, 0, NULL, 0, 0,
	    &vn) == 0);
	vnode_rel(vn);
	STEP(27, root->ops->create(root, "s", S_IFLNK | 0777, 0, "n", 0, 0,
	    &vn) == 0);
	vnode_rel(vn);
	STEP(28, d->ops->link(d, "n2", f) == 0);
	STEP(29, root->ops->rename(root, "n", d, "n3", 0) == 0);
	STEP(30, d->ops->rename(d, "n3", d, "n2", VFS_RENAME_NOREPLACE) ==
	    -EEXIST);
	STEP(31, d->ops->rename(d, "n3", root, "s", VFS_RENAME_EXCHANGE) == 0);
	/* Remove the last name of a file never read: it is opened first. */
	STEP(32, d->ops->remove(d, "n2", false) == 0);
	STEP(33, root->ops->remove(root, "s", false) == 0);
	STEP(34, f->ops->read(f, &va, 3, 0) == 3);
	STEP(35, d->ops->remove(d, "n3", false) == 0);
	STEP(36, root->ops->remove(root, "d", true) == 0);
	STEP(37, root->ops->create(root, "c", S_IFCHR | 0644, 0, NULL, 0, 0,
	    &vn) == -EPERM);
	vnode_rel(d);
	vnode_rel(f);
}

static _Noreturn void
locked_child(void)
{
	struct vk_error *err = NULL;
	struct vnode *root;

	STEP(1, hostfs_mount(rootdir, false, &mp) == 0);
	STEP(2, lockdown_install(false, false, &err) == 0);
	root = mp->root;
	locked_reads(root);
	locked_changes(root);
	hostfs_unmount(mp);
	_exit(0);
}

/*
 * The mount is made before the lock-down, as at start-up; each op after
 * it.  A host call the allow-list lacks kills the child with SIGSYS.
 */
Test(hostfs, ops_work_under_lockdown)
{
	int st;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0)
		locked_child();
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(!WIFSIGNALED(st), "killed by signal %d: a host call the "
	    "lock-down does not allow", WTERMSIG(st));
	cr_assert_eq(WEXITSTATUS(st), 0, "step %d failed", WEXITSTATUS(st));
}

/*
 * A hostfs mounted in a namespace (a --bind) and unmounted goes, with
 * its mount, once no vnode of it is held.
 */
Test(hostfs, an_unmounted_hostfs_goes_once_unused)
{
	struct mount *rootfs;
	struct vnode *dir, *sub;

	vm_ram_init(1024 * 4096, 64 * 4096);
	cr_assert_eq(tmpfs_mount(false, 0755, 0, 0, &rootfs), 0);
	cr_assert_eq(vfs_mount(vfs_ns(NULL), rootfs, NULL, "/"), 0);
	cr_assert_eq(vn_create(rootfs->root, "b", S_IFDIR | 0755, 0, NULL, 0,
	    0, &dir), 0);
	mnt(false);
	cr_assert_eq(vfs_mount(vfs_ns(NULL), mp, dir, "/b"), 0);
	sub = look(mp->root, "sub");
	vfs_umount(mp);
	cr_assert_eq(vfs_detached_first(), mp, "sub holds it");
	vnode_rel(sub);
	cr_assert_null(vfs_detached_first());
	vnode_rel(dir);
}
