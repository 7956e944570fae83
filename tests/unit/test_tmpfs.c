/*
 * Unit tests of tmpfs (vkern/vfs/tmpfs/tmpfs.c) through its vnode ops:
 * names and types, file data in RAM file pages (holes, truncation, the
 * memory limit), unlinked-but-open files, readdir cookies, Linux's rename
 * rules and a read-only mount.  Every test ends by unmounting, which
 * asserts that no vnode was leaked, and checks that all RAM came back.
 */
#include <errno.h>
#include <linux/falloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/fake_platform.h"
#include "vkern/kmem.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/vm_ram.h"

#define PG 4096ULL

static struct mount *mp;
static struct vnode *root;

static void
tfs_mount(uint64_t limit)
{
	vm_ram_init(256 * 1024 * PG, limit);
	cr_assert_eq(tmpfs_mount(false, 01777, 10, 20, &mp), 0);
	root = mp->root;
}

static void
tfs_setup(void)
{
	tfs_mount(4096 * PG);
}

/*
 * Start again with room for 8 pages of file data only.  (A test's .init
 * runs after the suite's, so it cannot replace the suite's mount.)
 */
static void
tfs_remount_tight(void)
{
	tmpfs_unmount(mp);
	tfs_mount(8 * PG);
}

static void
tfs_teardown(void)
{
	mp->rdonly = false;
	tmpfs_unmount(mp);
	cr_assert_eq(vm_ram_used(), 0, "unmount left %llu bytes of RAM",
	    (unsigned long long)vm_ram_used());
	/* Every name, node and page table gave its charge back. */
	cr_assert_eq(vm_ram_kmem(), 0, "unmount left %llu bytes charged",
	    (unsigned long long)vm_ram_kmem());
}

TestSuite(tmpfs, .init = tfs_setup, .fini = tfs_teardown);

static struct vnode *
mk(struct vnode *dir, const char *name, uint32_t mode)
{
	struct vnode *vn = NULL;
	int r = dir->ops->create(dir, name, mode, 0, NULL, 0, 0, &vn);

	cr_assert_eq(r, 0, "create %s: %d", name, r);
	cr_assert_not_null(vn);
	return vn;
}

/* Make a file or directory and drop the reference at once. */
static void
mk_rel(struct vnode *dir, const char *name, uint32_t mode)
{
	vnode_rel(mk(dir, name, mode));
}

static int
look(struct vnode *dir, const char *name, struct vnode **vpp)
{
	*vpp = NULL;
	return dir->ops->lookup(dir, name, vpp);
}

static struct vnode *
look_ok(struct vnode *dir, const char *name)
{
	struct vnode *vn;

	cr_assert_eq(look(dir, name, &vn), 0, "lookup %s", name);
	return vn;
}

static struct vattr
attr(struct vnode *vn)
{
	struct vattr va;

	cr_assert_eq(vn->ops->getattr(vn, &va), 0);
	return va;
}

static long
wr(struct vnode *vn, const char *s, uint64_t off)
{
	return vn->ops->write(vn, s, strlen(s), off);
}

static void
wr_ok(struct vnode *vn, const char *s, uint64_t off)
{
	cr_assert_eq(wr(vn, s, off), (long)strlen(s));
}

static int
set_size(struct vnode *vn, uint64_t size)
{
	struct vattr va = { .size = size };

	return vn->ops->setattr(vn, &va, VA_SIZE);
}

static int
ren(struct vnode *fd, const char *f, struct vnode *td, const char *t,
    unsigned flags)
{
	return fd->ops->rename(fd, f, td, t, flags);
}

static bool
exists(struct vnode *dir, const char *name)
{
	struct vnode *vn;

	if (look(dir, name, &vn) != 0)
		return false;
	vnode_rel(vn);
	return true;
}

/*
 * --- Mount, lookup, create ---
 */

Test(tmpfs, mount_root_is_dir_with_mode_and_owner)
{
	struct vattr va = attr(root);

	cr_assert_eq(root->type, VDIR);
	cr_assert_eq(va.mode, S_IFDIR | 01777);
	cr_assert_eq(va.uid, 10);
	cr_assert_eq(va.gid, 20);
	cr_assert_eq(va.nlink, 2);
	cr_assert_eq(va.dev, mp->dev);
	cr_assert_str_eq(mp->fstype, "tmpfs");
	cr_assert(!mp->rdonly);
	cr_assert(va.mtime_ns > 0);
}

Test(tmpfs, create_then_lookup_returns_same_vnode)
{
	struct vnode *a = mk(root, "f", S_IFREG | 0644);
	struct vnode *b = look_ok(root, "f");

	cr_assert_eq(a, b, "two vnodes for one file");
	cr_assert_eq(a->refs, 2);
	vnode_rel(a);
	vnode_rel(b);
	/* Once forgotten, a lookup makes a fresh vnode for the same file. */
	b = look_ok(root, "f");
	cr_assert_eq(b->refs, 1);
	cr_assert_eq(attr(b).mode, S_IFREG | 0644);
	vnode_rel(b);
}

/* Strings in parameters are arrays: Criterion copies them to the test. */
struct errcase {
	char name[16];
	int expected;
};

ParameterizedTestParameters(tmpfs, lookup_bad_names_fail)
{
	static struct errcase cases[] = {
		{ "missing", -ENOENT },
		{ "", -ENOENT },
		{ "a/b", -EINVAL },
		{ "presentx", -ENOENT },
	};

	return cr_make_param_array(struct errcase, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct errcase *c, tmpfs, lookup_bad_names_fail)
{
	struct vnode *vn;

	mk_rel(root, "present", S_IFREG | 0644);
	cr_assert_eq(look(root, c->name, &vn), c->expected, "lookup '%s'",
	    c->name);
	cr_assert_null(vn);
}

Test(tmpfs, lookup_dotdot_gives_parent_and_dot_itself)
{
	struct vnode *d = mk(root, "d", S_IFDIR | 0755), *e;
	struct vnode *sub = mk(d, "sub", S_IFDIR | 0755);

	e = look_ok(sub, "..");
	cr_assert_eq(e, d);
	vnode_rel(e);
	e = look_ok(d, ".");
	cr_assert_eq(e, d);
	vnode_rel(e);
	vnode_rel(sub);
	vnode_rel(d);
}

Test(tmpfs, ops_on_non_directory_fail_enotdir)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644), *vn;

	cr_assert_eq(look(f, "x", &vn), -ENOTDIR);
	cr_assert_eq(f->ops->create(f, "x", S_IFREG, 0, NULL, 0, 0, &vn),
	    -ENOTDIR);
	cr_assert_eq(f->ops->remove(f, "x", false), -ENOTDIR);
	cr_assert_eq(ren(f, "x", root, "y", 0), -ENOTDIR);
	cr_assert_eq(f->ops->readdir(f, 0, NULL, NULL), -ENOTDIR);
	vnode_rel(f);
}

Test(tmpfs, create_existing_name_fails_eexist)
{
	struct vnode *vn;

	mk_rel(root, "f", S_IFREG | 0644);
	cr_assert_eq(root->ops->create(root, "f", S_IFDIR | 0755, 0, NULL, 0,
	    0, &vn), -EEXIST);
	cr_assert_eq(root->ops->create(root, "..", S_IFREG, 0, NULL, 0, 0,
	    &vn), -EEXIST);
}

struct typecase {
	uint32_t mode;
	enum vtype type;
};

ParameterizedTestParameters(tmpfs, create_every_type)
{
	static struct typecase cases[] = {
		{ S_IFREG | 0600, VREG },
		{ S_IFDIR | 0700, VDIR },
		{ S_IFCHR | 0620, VCHR },
		{ S_IFBLK | 0660, VBLK },
		{ S_IFIFO | 0644, VFIFO },
		{ S_IFSOCK | 0755, VSOCK },
		{ S_IFLNK | 0777, VLNK },
	};

	return cr_make_param_array(struct typecase, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct typecase *c, tmpfs, create_every_type)
{
	struct vnode *vn = NULL;
	struct vattr va;

	cr_assert_eq(root->ops->create(root, "n", c->mode, makedev(8, 1),
	    "target", 7, 8, &vn), 0);
	va = attr(vn);
	cr_assert_eq(vn->type, c->type);
	cr_assert_eq(va.mode, c->mode);
	cr_assert_eq(va.uid, 7);
	cr_assert_eq(va.gid, 8);
	/* Only device nodes keep a device number. */
	if (S_ISCHR(c->mode) || S_ISBLK(c->mode))
		cr_assert_eq(va.rdev, makedev(8, 1));
	else
		cr_assert_eq(va.rdev, 0);
	vnode_rel(vn);
}

Test(tmpfs, create_type_zero_is_regular_and_bad_type_einval)
{
	struct vnode *vn;

	vn = mk(root, "plain", 0644);
	cr_assert_eq(vn->type, VREG);
	cr_assert_eq(attr(vn).mode, S_IFREG | 0644);
	vnode_rel(vn);
	cr_assert_eq(root->ops->create(root, "bad", 0170000 | 0644, 0, NULL,
	    0, 0, &vn), -EINVAL);
	cr_assert(!exists(root, "bad"));
}

Test(tmpfs, whiteout_is_char_device_zero)
{
	struct vnode *vn = mk(root, "gone", S_IFCHR | 0);
	struct vattr va = attr(vn);

	cr_assert_eq(vn->type, VCHR);
	cr_assert_eq(va.rdev, 0);
	cr_assert_eq(va.mode, S_IFCHR);
	vnode_rel(vn);
}

Test(tmpfs, inode_numbers_are_unique)
{
	struct vnode *a = mk(root, "a", S_IFREG), *b = mk(root, "b", S_IFDIR);
	struct vnode *c = mk(b, "c", S_IFREG);
	uint64_t ia = attr(a).ino, ib = attr(b).ino, ic = attr(c).ino;

	cr_assert_neq(ia, ib);
	cr_assert_neq(ib, ic);
	cr_assert_neq(ia, ic);
	cr_assert_neq(ia, attr(root).ino);
	vnode_rel(a);
	vnode_rel(b);
	vnode_rel(c);
}

Test(tmpfs, dir_nlink_counts_subdirectories)
{
	struct vnode *d = mk(root, "d", S_IFDIR | 0755);

	mk_rel(d, "s1", S_IFDIR | 0755);
	mk_rel(d, "s2", S_IFDIR | 0755);
	mk_rel(d, "f", S_IFREG | 0644);
	cr_assert_eq(attr(d).nlink, 4);
	cr_assert_eq(attr(root).nlink, 3);
	cr_assert_eq(d->ops->remove(d, "s1", true), 0);
	cr_assert_eq(attr(d).nlink, 3);
	vnode_rel(d);
}

/* Names of 255 bytes are fine everywhere; 256 are ENAMETOOLONG. */
Test(tmpfs, names_over_255_fail_enametoolong)
{
	char ok[256], bad[257];
	struct vnode *vn, *f;

	memset(ok, 'a', 255);
	ok[255] = '\0';
	memset(bad, 'b', 256);
	bad[256] = '\0';
	f = mk(root, ok, S_IFREG | 0644);
	vnode_rel(look_ok(root, ok));
	cr_assert_eq(root->ops->create(root, bad, S_IFREG, 0, NULL, 0, 0,
	    &vn), -ENAMETOOLONG);
	cr_assert_eq(look(root, bad, &vn), -ENAMETOOLONG);
	cr_assert_eq(root->ops->link(root, bad, f), -ENAMETOOLONG);
	cr_assert_eq(root->ops->remove(root, bad, false), -ENAMETOOLONG);
	cr_assert_eq(ren(root, ok, root, bad, 0), -ENAMETOOLONG);
	cr_assert_eq(ren(root, bad, root, "x", 0), -ENAMETOOLONG);
	cr_assert(exists(root, ok));
	vnode_rel(f);
}

/*
 * --- Symlinks ---
 */

Test(tmpfs, symlink_readlink_returns_target)
{
	struct vnode *vn = NULL;
	char buf[64];

	cr_assert_eq(root->ops->create(root, "l", S_IFLNK | 0777, 0,
	    "/some/where", 0, 0, &vn), 0);
	cr_assert_eq(vn->ops->readlink(vn, buf, sizeof(buf)), 11);
	cr_assert_eq(memcmp(buf, "/some/where", 11), 0);
	cr_assert_eq(attr(vn).size, 11);
	/* A short buffer truncates silently, as readlink(2). */
	cr_assert_eq(vn->ops->readlink(vn, buf, 5), 5);
	cr_assert_eq(memcmp(buf, "/some", 5), 0);
	vnode_rel(vn);
}

Test(tmpfs, symlink_bad_target_and_readlink_of_file_fail)
{
	char longt[4097], buf[8];
	struct vnode *vn, *f = mk(root, "f", S_IFREG);

	memset(longt, 'x', 4096);
	longt[4096] = '\0';
	cr_assert_eq(root->ops->create(root, "l", S_IFLNK | 0777, 0, NULL, 0,
	    0, &vn), -EINVAL);
	cr_assert_eq(root->ops->create(root, "l", S_IFLNK | 0777, 0, "", 0,
	    0, &vn), -ENOENT);
	cr_assert_eq(root->ops->create(root, "l", S_IFLNK | 0777, 0, longt,
	    0, 0, &vn), -ENAMETOOLONG);
	cr_assert(!exists(root, "l"));
	cr_assert_eq(f->ops->readlink(f, buf, sizeof(buf)), -EINVAL);
	vnode_rel(f);
}

/*
 * --- File data ---
 */

Test(tmpfs, write_read_round_trip)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	char buf[32] = { 0 };
	struct vattr va;

	wr_ok(f, "hello, world", 0);
	cr_assert_eq(f->ops->read(f, buf, sizeof(buf), 0), 12);
	cr_assert_str_eq(buf, "hello, world");
	memset(buf, 0, sizeof(buf));
	cr_assert_eq(f->ops->read(f, buf, 5, 7), 5);
	cr_assert_str_eq(buf, "world");
	va = attr(f);
	cr_assert_eq(va.size, 12);
	cr_assert_eq(va.blocks, 8);
	cr_assert_eq(va.blksize, 4096);
	cr_assert_eq(vm_ram_used(), PG);
	vnode_rel(f);
}

Test(tmpfs, write_read_across_page_boundaries)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	size_t n = 3 * PG + 100;
	unsigned char *in = malloc(n), *out = malloc(n);

	for (size_t i = 0; i < n; i++)
		in[i] = (unsigned char)(i * 7 + 3);
	/* From 10 bytes before a page end: touches 5 pages. */
	cr_assert_eq(f->ops->write(f, in, n, PG - 10), (long)n);
	cr_assert_eq(vm_ram_used(), 5 * PG);
	cr_assert_eq(attr(f).size, PG - 10 + n);
	memset(out, 0, n);
	cr_assert_eq(f->ops->read(f, out, n, PG - 10), (long)n);
	cr_assert_eq(memcmp(in, out, n), 0);
	/* The first page's head was never written: zeros. */
	cr_assert_eq(f->ops->read(f, out, 8, 0), 8);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(out[i], 0);
	free(in);
	free(out);
	vnode_rel(f);
}

Test(tmpfs, write_of_new_pages_is_one_ram_write_and_reads_back)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	size_t n = 40 * PG + 100;
	unsigned char *in = malloc(n), *out = malloc(n + 10);

	for (size_t i = 0; i < n; i++)
		in[i] = (unsigned char)(i * 13 + 5);
	fake_reset();
	/* 42 new pages, the first written from 10 bytes before its end. */
	cr_assert_eq(f->ops->write(f, in, n, PG - 10), (long)n);
	cr_assert_eq(fake_nram_writes, 1, "%u RAM writes", fake_nram_writes);
	cr_assert_eq(fake_ram_writes[0].len, n);
	cr_assert_eq(fake_ram_writes[0].off % PG, PG - 10);
	cr_assert_eq(vm_ram_used(), 42 * PG);
	memset(out, 0x55, n + 10);
	cr_assert_eq(f->ops->read(f, out, n + 10, PG - 20), (long)(n + 10));
	for (int i = 0; i < 10; i++)
		cr_assert_eq(out[i], 0, "byte %d before the write", i);
	cr_assert_eq(memcmp(in, out + 10, n), 0);
	free(in);
	free(out);
	vnode_rel(f);
}

Test(tmpfs, write_over_pages_and_holes_fills_both)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	char *buf = malloc(4 * PG), *out = malloc(4 * PG);

	for (int i = 0; i < 4; i++)
		memset(buf + i * PG, 'A' + i, PG);
	/* Pages 1 and 3 exist, 0 and 2 are holes. */
	cr_assert_eq(f->ops->write(f, "x", 1, PG), 1);
	cr_assert_eq(f->ops->write(f, "y", 1, 3 * PG + 7), 1);
	fake_reset();
	cr_assert_eq(f->ops->write(f, buf, 4 * PG, 0), (long)(4 * PG));
	cr_assert_eq(fake_nram_writes, 2, "one per run of new pages");
	cr_assert_eq(vm_ram_used(), 4 * PG);
	cr_assert_eq(f->ops->read(f, out, 4 * PG, 0), (long)(4 * PG));
	cr_assert_eq(memcmp(out, buf, 4 * PG), 0);
	free(buf);
	free(out);
	vnode_rel(f);
}

/*
 * A guest may write from a mapping of the file itself.  Linux copies
 * page by page, in order: a new page takes its source as it was before
 * the write reached it, even when a later page of the same write
 * overwrites that source.
 */
Test(tmpfs, write_from_the_file_itself_copies_in_order)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	char *buf = malloc(2 * PG), out[3];
	uint64_t ram1, ram2;

	memset(buf, 'B', PG);
	memset(buf + PG, 'C', PG);
	cr_assert_eq(f->ops->write(f, buf, 2 * PG, PG), (long)(2 * PG));
	cr_assert_eq(tmpfs_page(f, 1, &ram1), 0);
	cr_assert_eq(tmpfs_page(f, 2, &ram2), 0);
	cr_assert_eq(ram2, ram1 + PG, "pages 1 and 2 must be adjacent RAM");
	/* Page 0 (new) takes page 1's B, then page 1 takes page 2's C. */
	cr_assert_eq(f->ops->write(f, (char *)plat_ram_base() + ram1, 2 * PG,
	    0), (long)(2 * PG));
	cr_assert_eq(f->ops->read(f, &out[0], 1, 0), 1);
	cr_assert_eq(f->ops->read(f, &out[1], 1, PG), 1);
	cr_assert_eq(f->ops->read(f, &out[2], 1, 2 * PG), 1);
	cr_assert_eq(memcmp(out, "BCC", 3), 0, "read %.3s", out);
	free(buf);
	vnode_rel(f);
}

Test(tmpfs, punched_range_reads_zero_and_refills_from_zero)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	char *buf = malloc(8 * PG), *out = malloc(8 * PG);

	memset(buf, 'p', 8 * PG);
	cr_assert_eq(f->ops->write(f, buf, 8 * PG, 0), (long)(8 * PG));
	fake_reset();
	/* Pages 2-5 go whole, the edges of pages 1 and 6 are cleared. */
	cr_assert_eq(f->ops->fallocate(f, FALLOC_FL_PUNCH_HOLE |
	    FALLOC_FL_KEEP_SIZE, PG + 100, 5 * PG), 0);
	vm_ram_flush();
	cr_assert_eq(fake_ndiscards, 1);
	cr_assert_eq(fake_discards[0].len, 4 * PG);
	cr_assert_eq(vm_ram_used(), 4 * PG);
	cr_assert_eq(attr(f).size, 8 * PG);
	/* A few bytes into a punched page: the rest of it reads zero. */
	cr_assert_eq(f->ops->write(f, "new", 3, 3 * PG + 50), 3);
	cr_assert_eq(vm_ram_used(), 5 * PG);
	cr_assert_eq(f->ops->read(f, out, 8 * PG, 0), (long)(8 * PG));
	for (uint64_t i = 0; i < 8 * PG; i++) {
		char want = i < PG + 100 || i >= 6 * PG + 100 ? 'p' : 0;

		if (i >= 3 * PG + 50 && i < 3 * PG + 53)
			want = "new"[i - 3 * PG - 50];
		cr_assert_eq(out[i], want, "byte %llu", (unsigned long long)i);
	}
	free(buf);
	free(out);
	vnode_rel(f);
}

Test(tmpfs, sparse_holes_read_zero_and_take_no_ram)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	char buf[PG];
	struct vattr va;

	wr_ok(f, "A", 0);
	wr_ok(f, "Z", 10 * PG + 5);
	va = attr(f);
	cr_assert_eq(va.size, 10 * PG + 6);
	cr_assert_eq(va.blocks, 2 * 8, "holes counted in st_blocks");
	cr_assert_eq(vm_ram_used(), 2 * PG);
	memset(buf, 0x55, sizeof(buf));
	cr_assert_eq(f->ops->read(f, buf, sizeof(buf), 4 * PG), (long)PG);
	for (size_t i = 0; i < PG; i++)
		cr_assert_eq(buf[i], 0, "hole byte %zu", i);
	cr_assert_eq(f->ops->read(f, buf, 2, 10 * PG + 4), 2);
	cr_assert_eq(buf[0], 0);
	cr_assert_eq(buf[1], 'Z');
	vnode_rel(f);
}

Test(tmpfs, read_at_and_past_eof_is_short_or_zero)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	char buf[16];

	wr_ok(f, "abcdef", 0);
	cr_assert_eq(f->ops->read(f, buf, sizeof(buf), 4), 2);
	cr_assert_eq(f->ops->read(f, buf, sizeof(buf), 6), 0);
	cr_assert_eq(f->ops->read(f, buf, sizeof(buf), 1000000), 0);
	cr_assert_eq(f->ops->read(f, buf, 0, 0), 0);
	vnode_rel(f);
}

Test(tmpfs, write_beyond_max_size_fails_efbig)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	char buf[4] = { 0 };

	cr_assert_eq(wr(f, "x", TMPFS_MAXFILESIZE), -EFBIG);
	cr_assert_eq(wr(f, "x", UINT64_MAX - 1), -EFBIG);
	/* Straddling the limit writes up to it, as Linux does. */
	cr_assert_eq(wr(f, "xyz", TMPFS_MAXFILESIZE - 1), 1);
	cr_assert_eq(attr(f).size, TMPFS_MAXFILESIZE);
	cr_assert_eq(vm_ram_used(), PG, "a far write must stay sparse");
	cr_assert_eq(f->ops->read(f, buf, 4, TMPFS_MAXFILESIZE - 2), 2);
	cr_assert_eq(buf[0], 0);
	cr_assert_eq(buf[1], 'x');
	cr_assert_eq(set_size(f, TMPFS_MAXFILESIZE + 1), -EFBIG);
	vnode_rel(f);
}

Test(tmpfs, write_updates_size_mtime_and_ctime)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	struct vattr va = { .mtime_ns = 1, .atime_ns = 1 }, after;

	cr_assert_eq(f->ops->setattr(f, &va, VA_ATIME | VA_MTIME), 0);
	wr_ok(f, "data", 100);
	after = attr(f);
	cr_assert_eq(after.size, 104);
	cr_assert(after.mtime_ns > 1);
	cr_assert(after.ctime_ns >= after.mtime_ns);
	cr_assert_eq(f->ops->write(f, "", 0, 0), 0);
	vnode_rel(f);
}

Test(tmpfs, read_updates_atime)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	struct vattr va = { .atime_ns = 1 };
	char c;

	wr_ok(f, "x", 0);
	cr_assert_eq(f->ops->setattr(f, &va, VA_ATIME), 0);
	cr_assert_eq(attr(f).atime_ns, 1);
	cr_assert_eq(f->ops->read(f, &c, 1, 0), 1);
	cr_assert(attr(f).atime_ns > 1);
	vnode_rel(f);
}

Test(tmpfs, io_on_directory_eisdir_and_on_fifo_einval)
{
	struct vnode *d = mk(root, "d", S_IFDIR | 0755);
	struct vnode *p = mk(root, "p", S_IFIFO | 0644);
	char buf[4];

	cr_assert_eq(d->ops->read(d, buf, 4, 0), -EISDIR);
	cr_assert_eq(d->ops->write(d, "x", 1, 0), -EISDIR);
	cr_assert_eq(p->ops->read(p, buf, 4, 0), -EINVAL);
	cr_assert_eq(p->ops->write(p, "x", 1, 0), -EINVAL);
	vnode_rel(d);
	vnode_rel(p);
}

/* A file system the sandbox cannot hold more of is full: ENOSPC. */
Test(tmpfs, write_fails_enospc_when_ram_is_full)
{
	struct vnode *f;
	char *buf = calloc(1, 10 * PG);

	tfs_remount_tight();
	f = mk(root, "f", S_IFREG | 0644);
	/* The nodes, and the page table the write makes, are charged too. */
	vm_ram_init(256 * 1024 * PG, 8 * PG + VK_ROUND_UP(vm_ram_kmem() +
	    kmem_size(PG), PG));
	memset(buf, 'q', 10 * PG);
	/* 8 pages fit: the write is short, then the next one fails. */
	cr_assert_eq(f->ops->write(f, buf, 10 * PG, 0), (long)(8 * PG));
	cr_assert_eq(attr(f).size, 8 * PG);
	cr_assert_eq(vm_ram_used(), 8 * PG);
	cr_assert_eq(f->ops->write(f, buf, 1, 8 * PG), -ENOSPC);
	cr_assert_eq(attr(f).size, 8 * PG);
	/* Rewriting pages it has needs no RAM. */
	cr_assert_eq(f->ops->write(f, buf, PG, 0), (long)PG);
	/* Freeing makes room again. */
	cr_assert_eq(set_size(f, 4 * PG), 0);
	cr_assert_eq(f->ops->write(f, buf, 2 * PG, 20 * PG), (long)(2 * PG));
	free(buf);
	vnode_rel(f);
}

/*
 * --- setattr and truncation ---
 */

Test(tmpfs, truncate_shrink_frees_ram)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	char *buf = calloc(1, 6 * PG);

	memset(buf, 'x', 6 * PG);
	cr_assert_eq(f->ops->write(f, buf, 6 * PG, 0), (long)(6 * PG));
	cr_assert_eq(vm_ram_used(), 6 * PG);
	fake_reset();
	cr_assert_eq(set_size(f, 2 * PG + 1), 0);
	cr_assert_eq(vm_ram_used(), 3 * PG);
	vm_ram_flush();
	/* Adjacent pages go back to the host in one discard. */
	cr_assert_eq(fake_ndiscards, 1);
	cr_assert_eq(fake_discards[0].len, 3 * PG);
	cr_assert_eq(attr(f).blocks, 3 * 8);
	cr_assert_eq(attr(f).size, 2 * PG + 1);
	cr_assert_eq(set_size(f, 0), 0);
	cr_assert_eq(vm_ram_used(), 0);
	cr_assert_eq(attr(f).blocks, 0);
	free(buf);
	vnode_rel(f);
}

Test(tmpfs, truncate_partial_page_zeroes_tail)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	char buf[8];

	wr_ok(f, "abcdefgh", 0);
	cr_assert_eq(set_size(f, 2), 0);
	cr_assert_eq(set_size(f, 8), 0);
	cr_assert_eq(f->ops->read(f, buf, 8, 0), 8);
	cr_assert_eq(memcmp(buf, "ab\0\0\0\0\0\0", 8), 0);
	vnode_rel(f);
}

Test(tmpfs, truncate_extend_makes_hole_without_ram)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	char buf[4] = { 1, 1, 1, 1 };

	cr_assert_eq(set_size(f, 100 * PG), 0);
	cr_assert_eq(attr(f).size, 100 * PG);
	cr_assert_eq(vm_ram_used(), 0);
	cr_assert_eq(f->ops->read(f, buf, 4, 50 * PG), 4);
	cr_assert_eq(memcmp(buf, "\0\0\0\0", 4), 0);
	vnode_rel(f);
}

Test(tmpfs, truncate_frees_pages_deep_in_a_tall_tree)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	uint64_t far = 600ULL * 512 * PG;   /* past two tree levels */

	wr_ok(f, "a", 0);
	wr_ok(f, "b", far);
	wr_ok(f, "c", far + 513 * PG);
	cr_assert_eq(vm_ram_used(), 3 * PG);
	cr_assert_eq(set_size(f, far + 1), 0);
	cr_assert_eq(vm_ram_used(), 2 * PG);
	cr_assert_eq(set_size(f, far), 0);
	cr_assert_eq(vm_ram_used(), PG);
	wr_ok(f, "d", far + 513 * PG);
	cr_assert_eq(vm_ram_used(), 2 * PG);
	vnode_rel(f);
}

struct sizecase {
	uint32_t mode;
	int expected;
};

ParameterizedTestParameters(tmpfs, setattr_size_by_type)
{
	static struct sizecase cases[] = {
		{ S_IFREG | 0644, 0 },
		{ S_IFDIR | 0755, -EISDIR },
		{ S_IFLNK | 0777, -EINVAL },
		{ S_IFCHR | 0644, -EINVAL },
		{ S_IFIFO | 0644, -EINVAL },
	};

	return cr_make_param_array(struct sizecase, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct sizecase *c, tmpfs, setattr_size_by_type)
{
	struct vnode *vn = NULL;

	cr_assert_eq(root->ops->create(root, "n", c->mode, 0, "t", 0, 0, &vn),
	    0);
	cr_assert_eq(set_size(vn, 10), c->expected);
	vnode_rel(vn);
}

Test(tmpfs, setattr_mode_owner_times_and_ctime)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	struct vattr va = {
		.mode = S_IFDIR | 04751, .uid = 5, .gid = 6,
		.atime_ns = 1000, .mtime_ns = 2000,
	}, after;
	int64_t ctime0 = attr(f).ctime_ns;

	cr_assert_eq(f->ops->setattr(f, &va, VA_MODE | VA_UID | VA_GID |
	    VA_ATIME | VA_MTIME), 0);
	after = attr(f);
	/* The type bits never change. */
	cr_assert_eq(after.mode, S_IFREG | 04751);
	cr_assert_eq(after.uid, 5);
	cr_assert_eq(after.gid, 6);
	cr_assert_eq(after.atime_ns, 1000);
	cr_assert_eq(after.mtime_ns, 2000);
	cr_assert(after.ctime_ns >= ctime0);
	/* Only what the mask names changes. */
	va.uid = 99;
	cr_assert_eq(f->ops->setattr(f, &va, VA_GID), 0);
	cr_assert_eq(attr(f).uid, 5);
	vnode_rel(f);
}

/*
 * --- Unlinking ---
 */

Test(tmpfs, unlink_while_referenced_keeps_data_until_release)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644), *vn;
	char buf[8] = { 0 };

	wr_ok(f, "keep me", 0);
	cr_assert_eq(root->ops->remove(root, "f", false), 0);
	cr_assert_eq(look(root, "f", &vn), -ENOENT);
	cr_assert_eq(attr(f).nlink, 0);
	cr_assert_eq(f->ops->read(f, buf, 7, 0), 7);
	cr_assert_str_eq(buf, "keep me");
	wr_ok(f, "!", 7);
	cr_assert_eq(vm_ram_used(), PG);
	vnode_rel(f);
	cr_assert_eq(vm_ram_used(), 0, "last close did not free the data");
}

Test(tmpfs, unlink_unreferenced_frees_ram_at_once)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);

	wr_ok(f, "bye", 3 * PG);
	vnode_rel(f);
	cr_assert_eq(vm_ram_used(), PG);
	cr_assert_eq(root->ops->remove(root, "f", false), 0);
	cr_assert_eq(vm_ram_used(), 0);
}

struct rmcase {
	char name[8];
	bool rmdir;
	int expected;
};

/* In a root holding file "f", empty dir "e" and dir "d" with a file. */
ParameterizedTestParameters(tmpfs, remove_errors_match_linux)
{
	static struct rmcase cases[] = {
		{ "missing", false, -ENOENT },
		{ "missing", true, -ENOENT },
		{ "f", true, -ENOTDIR },
		{ "e", false, -EISDIR },
		{ "d", true, -ENOTEMPTY },
		{ ".", true, -EINVAL },
		{ "..", true, -ENOTEMPTY },
		{ ".", false, -EISDIR },
		{ "", false, -ENOENT },
		{ "f", false, 0 },
		{ "e", true, 0 },
	};

	return cr_make_param_array(struct rmcase, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct rmcase *c, tmpfs, remove_errors_match_linux)
{
	struct vnode *d;

	mk_rel(root, "f", S_IFREG | 0644);
	mk_rel(root, "e", S_IFDIR | 0755);
	d = mk(root, "d", S_IFDIR | 0755);
	mk_rel(d, "inner", S_IFREG | 0644);
	vnode_rel(d);
	cr_assert_eq(root->ops->remove(root, c->name, c->rmdir), c->expected,
	    "remove '%s' rmdir=%d", c->name, c->rmdir);
	/* A failed remove leaves a name that was there in place. */
	if (c->expected == 0)
		cr_assert(!exists(root, c->name));
	else if (strchr("fed", c->name[0]) != NULL && c->name[0] != '\0')
		cr_assert(exists(root, c->name));
}

Test(tmpfs, removed_directory_is_dead)
{
	struct vnode *d = mk(root, "d", S_IFDIR | 0755), *vn;

	mk_rel(root, "y", S_IFREG);
	cr_assert_eq(root->ops->remove(root, "d", true), 0);
	cr_assert_eq(attr(d).nlink, 0);
	cr_assert_eq(attr(root).nlink, 2);
	/* Linux: ENOENT for anything made in, or read from, a dead dir. */
	cr_assert_eq(d->ops->create(d, "x", S_IFREG, 0, NULL, 0, 0, &vn),
	    -ENOENT);
	cr_assert_eq(look(d, "..", &vn), -ENOENT);
	cr_assert_eq(d->ops->readdir(d, 0, NULL, NULL), -ENOENT);
	cr_assert_eq(ren(root, "y", d, "x", 0), -ENOENT);
	vnode_rel(d);
}

/*
 * --- Hard links ---
 */

Test(tmpfs, link_shares_data_and_counts_names)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644), *d, *g;
	char buf[4] = { 0 };

	d = mk(root, "d", S_IFDIR | 0755);
	wr_ok(f, "abc", 0);
	cr_assert_eq(d->ops->link(d, "g", f), 0);
	cr_assert_eq(attr(f).nlink, 2);
	g = look_ok(d, "g");
	cr_assert_eq(g, f);
	vnode_rel(g);
	cr_assert_eq(root->ops->remove(root, "f", false), 0);
	cr_assert_eq(attr(f).nlink, 1);
	vnode_rel(f);
	g = look_ok(d, "g");
	cr_assert_eq(g->ops->read(g, buf, 3, 0), 3);
	cr_assert_str_eq(buf, "abc");
	vnode_rel(g);
	vnode_rel(d);
}

Test(tmpfs, link_errors)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	struct vnode *d = mk(root, "d", S_IFDIR | 0755), *g;
	struct mount *other;

	cr_assert_eq(root->ops->link(root, "d2", d), -EPERM);
	cr_assert_eq(root->ops->link(root, "d", f), -EEXIST);
	cr_assert_eq(tmpfs_mount(false, 0755, 0, 0, &other), 0);
	cr_assert_eq(other->root->ops->link(other->root, "x", f), -EXDEV);
	tmpfs_unmount(other);
	g = mk(root, "g", S_IFREG | 0644);
	cr_assert_eq(root->ops->remove(root, "g", false), 0);
	cr_assert_eq(root->ops->link(root, "g2", g), -ENOENT,
	    "an unlinked file came back");
	vnode_rel(g);
	vnode_rel(d);
	vnode_rel(f);
}

/*
 * --- readdir ---
 */

#define MAXSEEN 2048

struct walk {
	char names[MAXSEEN][16];
	uint64_t cookies[MAXSEEN];
	uint64_t inos[MAXSEEN];
	enum vtype types[MAXSEEN];
	int n;
	int stop_after;         /* stop the walk after this many, if > 0 */
	struct vnode *dir;      /* remove_in_cb: the dir to remove from */
	bool remove_in_cb;
};

static int
walk_cb(void *arg, const char *name, size_t len, uint64_t ino,
    enum vtype type, uint64_t next)
{
	struct walk *w = arg;

	cr_assert(w->n < MAXSEEN && len < 16);
	memcpy(w->names[w->n], name, len);
	w->names[w->n][len] = '\0';
	w->cookies[w->n] = next;
	w->inos[w->n] = ino;
	w->types[w->n] = type;
	w->n++;
	/* Removing the entry just seen and the one after it, mid-walk. */
	if (w->remove_in_cb && name[0] == 'f') {
		char nextname[16];

		w->dir->ops->remove(w->dir, w->names[w->n - 1], false);
		snprintf(nextname, sizeof(nextname), "f%d",
		    atoi(w->names[w->n - 1] + 1) + 1);
		w->dir->ops->remove(w->dir, nextname, false);
	}
	return w->stop_after > 0 && w->n >= w->stop_after;
}

static int
walk_find(const struct walk *w, const char *name)
{
	int found = 0;

	for (int i = 0; i < w->n; i++)
		found += strcmp(w->names[i], name) == 0;
	return found;
}

static void
mk_files(struct vnode *dir, int n)
{
	char name[16];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		mk_rel(dir, name, S_IFREG | 0644);
	}
}

Test(tmpfs, readdir_lists_dots_then_entries_in_creation_order)
{
	struct walk *w = calloc(1, sizeof(*w));
	struct vnode *d = mk(root, "d", S_IFDIR | 0755);

	mk_rel(d, "zeta", S_IFREG);
	mk_rel(d, "alpha", S_IFDIR);
	mk_rel(d, "mid", S_IFSOCK);
	cr_assert_eq(d->ops->readdir(d, 0, walk_cb, w), 0);
	cr_assert_eq(w->n, 5);
	cr_assert_str_eq(w->names[0], ".");
	cr_assert_eq(w->inos[0], attr(d).ino);
	cr_assert_str_eq(w->names[1], "..");
	cr_assert_eq(w->inos[1], attr(root).ino);
	cr_assert_str_eq(w->names[2], "zeta");
	cr_assert_eq(w->types[2], VREG);
	cr_assert_str_eq(w->names[3], "alpha");
	cr_assert_eq(w->types[3], VDIR);
	cr_assert_str_eq(w->names[4], "mid");
	cr_assert_eq(w->types[4], VSOCK);
	free(w);
	vnode_rel(d);
}

Test(tmpfs, readdir_resumes_at_cookie)
{
	struct walk *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	mk_files(root, 10);
	a->stop_after = 4;
	cr_assert_eq(root->ops->readdir(root, 0, walk_cb, a), 0);
	cr_assert_eq(a->n, 4);
	cr_assert_eq(root->ops->readdir(root, a->cookies[3], walk_cb, b), 0);
	cr_assert_eq(b->n, 12 - 4);
	cr_assert_str_eq(b->names[0], "f2");
	cr_assert_str_eq(b->names[7], "f9");
	/* Resuming after ".": "..", then everything. */
	b->n = 0;
	cr_assert_eq(root->ops->readdir(root, a->cookies[0], walk_cb, b), 0);
	cr_assert_eq(b->n, 11);
	cr_assert_str_eq(b->names[0], "..");
	/* At the last cookie: nothing more. */
	b->n = 0;
	cr_assert_eq(root->ops->readdir(root, a->cookies[3] + 100, walk_cb, b),
	    0);
	cr_assert_eq(b->n, 0);
	free(a);
	free(b);
}

Test(tmpfs, readdir_changes_between_batches_never_repeat)
{
	struct walk *w = calloc(1, sizeof(*w));
	char name[16];

	mk_files(root, 20);
	w->stop_after = 8;      /* ., .., f0..f5 */
	cr_assert_eq(root->ops->readdir(root, 0, walk_cb, w), 0);
	/* Remove seen and unseen entries, rename one, add new ones. */
	for (int i = 0; i < 20; i += 3) {
		snprintf(name, sizeof(name), "f%d", i);
		cr_assert_eq(root->ops->remove(root, name, false), 0);
	}
	cr_assert_eq(ren(root, "f1", root, "renamed", 0), 0);
	mk_rel(root, "new0", S_IFREG);
	mk_rel(root, "f0", S_IFREG);
	w->stop_after = 0;
	cr_assert_eq(root->ops->readdir(root, w->cookies[w->n - 1], walk_cb,
	    w), 0);
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		if (i % 3 == 0 && i > 5)
			cr_assert_eq(walk_find(w, name), 0, "%s removed", name);
		else if (i != 1 && i != 0)
			cr_assert_eq(walk_find(w, name), 1, "%s seen %d times",
			    name, walk_find(w, name));
	}
	cr_assert_eq(walk_find(w, "renamed"), 0, "renamed in place repeats");
	cr_assert_eq(walk_find(w, "new0"), 1);
	free(w);
}

Test(tmpfs, readdir_callback_may_remove_entries)
{
	struct walk *w = calloc(1, sizeof(*w));

	mk_files(root, 10);
	w->remove_in_cb = true;
	w->dir = root;
	cr_assert_eq(root->ops->readdir(root, 0, walk_cb, w), 0);
	/* Seen: f0 (removes f0, f1), f2 (f2, f3), ... */
	cr_assert_eq(w->n, 2 + 5);
	cr_assert_str_eq(w->names[3], "f2");
	cr_assert_eq(attr(root).size, 2 * 20, "entries left behind");
	free(w);
}

Test(tmpfs, many_entries_all_found)
{
	struct walk *w = calloc(1, sizeof(*w));
	char name[16];

	mk_files(root, 1500);
	for (int i = 0; i < 1500; i += 7) {
		snprintf(name, sizeof(name), "f%d", i);
		cr_assert(exists(root, name), "%s lost", name);
	}
	cr_assert(!exists(root, "f1500"));
	cr_assert_eq(root->ops->readdir(root, 0, walk_cb, w), 0);
	cr_assert_eq(w->n, 1502);
	for (int i = 0; i < 1500; i++)
		cr_assert_eq(root->ops->remove(root, w->names[i + 2], false),
		    0);
	cr_assert_eq(attr(root).size, 40);
	free(w);
}

/*
 * --- rename ---
 */

Test(tmpfs, rename_within_dir_keeps_file)
{
	struct vnode *f = mk(root, "a", S_IFREG | 0644), *g;

	wr_ok(f, "content", 0);
	cr_assert_eq(ren(root, "a", root, "b", 0), 0);
	cr_assert(!exists(root, "a"));
	g = look_ok(root, "b");
	cr_assert_eq(g, f);
	vnode_rel(g);
	vnode_rel(f);
}

Test(tmpfs, rename_dir_across_dirs_moves_dotdot_and_nlink)
{
	struct vnode *a = mk(root, "a", S_IFDIR), *b = mk(root, "b", S_IFDIR);
	struct vnode *s = mk(a, "s", S_IFDIR), *p;

	cr_assert_eq(ren(a, "s", b, "t", 0), 0);
	cr_assert(!exists(a, "s"));
	cr_assert(exists(b, "t"));
	p = look_ok(s, "..");
	cr_assert_eq(p, b);
	vnode_rel(p);
	cr_assert_eq(attr(a).nlink, 2);
	cr_assert_eq(attr(b).nlink, 3);
	vnode_rel(s);
	vnode_rel(a);
	vnode_rel(b);
}

Test(tmpfs, rename_over_file_replaces_and_frees_it)
{
	struct vnode *f = mk(root, "a", S_IFREG), *g = mk(root, "b", S_IFREG);
	struct vnode *vn;

	wr_ok(f, "new", 0);
	wr_ok(g, "old", 0);
	vnode_rel(g);
	cr_assert_eq(vm_ram_used(), 2 * PG);
	cr_assert_eq(ren(root, "a", root, "b", 0), 0);
	cr_assert_eq(vm_ram_used(), PG, "replaced file not freed");
	vn = look_ok(root, "b");
	cr_assert_eq(vn, f);
	vnode_rel(vn);
	vnode_rel(f);
}

Test(tmpfs, rename_dir_over_empty_dir_succeeds)
{
	struct vnode *a = mk(root, "a", S_IFDIR), *d = mk(root, "d", S_IFDIR);
	struct vnode *e = mk(d, "e", S_IFDIR), *vn;

	cr_assert_eq(ren(root, "a", d, "e", 0), 0);
	cr_assert_eq(attr(e).nlink, 0, "the replaced dir is not dead");
	vn = look_ok(d, "e");
	cr_assert_eq(vn, a);
	vnode_rel(vn);
	cr_assert_eq(attr(d).nlink, 3);
	cr_assert_eq(attr(root).nlink, 3);
	vnode_rel(a);
	vnode_rel(d);
	vnode_rel(e);
}

struct rencase {
	char from[16], to[16];
	unsigned flags;
	int expected;
};

/*
 * The tree: file f, file g, dir d (holding file x and dir sub), empty
 * dir e.  Names with a '/' are looked up as "dir/name".
 */
ParameterizedTestParameters(tmpfs, rename_rules_match_linux)
{
	static struct rencase cases[] = {
		{ "d", "e", 0, 0 },
		{ "e", "d", 0, -ENOTEMPTY },
		{ "d", "f", 0, -ENOTDIR },
		{ "f", "e", 0, -EISDIR },
		{ "d", "d/sub/in", 0, -EINVAL },
		{ "d", "d/in", 0, -EINVAL },
		{ "d/sub", "d", 0, -ENOTEMPTY },
		{ "d/sub", "d", VFS_RENAME_EXCHANGE, -EINVAL },
		{ "f", "g", VFS_RENAME_NOREPLACE, -EEXIST },
		{ "f", "h", VFS_RENAME_NOREPLACE, 0 },
		{ "f", "h", VFS_RENAME_EXCHANGE, -ENOENT },
		{ "f", "g", VFS_RENAME_NOREPLACE | VFS_RENAME_EXCHANGE,
		  -EINVAL },
		{ "f", "g", 0x80, -EINVAL },
		{ "missing", "g", 0, -ENOENT },
		{ "f", ".", 0, -EBUSY },
		{ "..", "z", 0, -EBUSY },
		{ "f", "f", 0, 0 },
		{ "f", "g", 0, 0 },
		{ "f", "d", VFS_RENAME_EXCHANGE, 0 },
	};

	return cr_make_param_array(struct rencase, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

/* The directory a test path is in, referenced, and its last name. */
static struct vnode *
ren_split(const char *path, const char **last)
{
	const char *slash = strrchr(path, '/');
	struct vnode *dir = root, *next;
	char comp[32];

	vnode_ref(root);
	if (slash == NULL) {
		*last = path;
		return dir;
	}
	*last = slash + 1;
	for (const char *p = path; p < slash;) {
		const char *e = strchr(p, '/');
		size_t n = (size_t)(e - p);

		memcpy(comp, p, n);
		comp[n] = '\0';
		next = look_ok(dir, comp);
		vnode_rel(dir);
		dir = next;
		p = e + 1;
	}
	return dir;
}

ParameterizedTest(struct rencase *c, tmpfs, rename_rules_match_linux)
{
	struct vnode *d = mk(root, "d", S_IFDIR | 0755), *fd, *td;
	const char *fl, *tl;
	int r;

	mk_rel(root, "f", S_IFREG | 0644);
	mk_rel(root, "g", S_IFREG | 0644);
	mk_rel(root, "e", S_IFDIR | 0755);
	mk_rel(d, "x", S_IFREG | 0644);
	mk_rel(d, "sub", S_IFDIR | 0755);
	vnode_rel(d);
	fd = ren_split(c->from, &fl);
	td = ren_split(c->to, &tl);
	r = ren(fd, fl, td, tl, c->flags);
	cr_assert_eq(r, c->expected, "rename %s -> %s flags %#x: %d",
	    c->from, c->to, c->flags, r);
	/* A failed rename leaves the source where it was. */
	if (r != 0 && r != -EBUSY && strcmp(c->from, "missing") != 0)
		cr_assert(exists(fd, fl));
	vnode_rel(fd);
	vnode_rel(td);
}

Test(tmpfs, rename_between_hard_links_is_noop)
{
	struct vnode *f = mk(root, "a", S_IFREG | 0644);

	cr_assert_eq(root->ops->link(root, "b", f), 0);
	cr_assert_eq(ren(root, "a", root, "b", 0), 0);
	cr_assert(exists(root, "a"), "rename(2) of links must do nothing");
	cr_assert(exists(root, "b"));
	cr_assert_eq(attr(f).nlink, 2);
	vnode_rel(f);
}

Test(tmpfs, rename_exchange_swaps_file_and_dir_across_dirs)
{
	struct vnode *a = mk(root, "a", S_IFDIR), *b = mk(root, "b", S_IFDIR);
	struct vnode *f = mk(a, "x", S_IFREG), *s = mk(b, "y", S_IFDIR), *vn;

	cr_assert_eq(ren(a, "x", b, "y", VFS_RENAME_EXCHANGE), 0);
	vn = look_ok(a, "x");
	cr_assert_eq(vn, s);
	vnode_rel(vn);
	vn = look_ok(b, "y");
	cr_assert_eq(vn, f);
	vnode_rel(vn);
	vn = look_ok(s, "..");
	cr_assert_eq(vn, a, "exchanged dir's .. not moved");
	vnode_rel(vn);
	cr_assert_eq(attr(a).nlink, 3);
	cr_assert_eq(attr(b).nlink, 2);
	vnode_rel(a);
	vnode_rel(b);
	vnode_rel(f);
	vnode_rel(s);
}

Test(tmpfs, rename_across_mounts_fails_exdev)
{
	struct mount *other;

	mk_rel(root, "f", S_IFREG);
	cr_assert_eq(tmpfs_mount(false, 0755, 0, 0, &other), 0);
	cr_assert_eq(ren(root, "f", other->root, "f", 0), -EXDEV);
	tmpfs_unmount(other);
	cr_assert(exists(root, "f"));
}

/*
 * --- Read-only mounts, overlay markers, teardown ---
 */

enum rocase_op {
	RO_CREATE, RO_WRITE, RO_SETATTR, RO_REMOVE, RO_RENAME, RO_LINK,
	RO_OPAQUE,
};

ParameterizedTestParameters(tmpfs, readonly_mount_refuses_changes_erofs)
{
	static enum rocase_op cases[] = {
		RO_CREATE, RO_WRITE, RO_SETATTR, RO_REMOVE, RO_RENAME, RO_LINK,
		RO_OPAQUE,
	};

	return cr_make_param_array(enum rocase_op, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

static int
ro_do(enum rocase_op op, struct vnode *f)
{
	struct vattr va = { .mode = 0600 };
	struct vnode *vn;

	switch (op) {
	case RO_CREATE:
		return root->ops->create(root, "new", S_IFREG, 0, NULL, 0, 0,
		    &vn);
	case RO_WRITE:
		return (int)wr(f, "x", 0);
	case RO_SETATTR:
		return f->ops->setattr(f, &va, VA_MODE);
	case RO_REMOVE:
		return root->ops->remove(root, "f", false);
	case RO_RENAME:
		return ren(root, "f", root, "g", 0);
	case RO_LINK:
		return root->ops->link(root, "g", f);
	case RO_OPAQUE:
		return tmpfs_set_opaque(root, true);
	}
	return 0;
}

ParameterizedTest(enum rocase_op *op, tmpfs,
    readonly_mount_refuses_changes_erofs)
{
	struct vnode *f = mk(root, "f", S_IFREG | 0644);
	char buf[4];

	wr_ok(f, "abc", 0);
	mp->rdonly = true;      /* as a remount read-only would */
	cr_assert_eq(ro_do(*op, f), -EROFS, "op %d", *op);
	/* Reading still works and nothing changed. */
	cr_assert_eq(f->ops->read(f, buf, 4, 0), 3);
	cr_assert_eq(attr(f).mode, S_IFREG | 0644);
	cr_assert(exists(root, "f"));
	cr_assert(!exists(root, "g"));
	vnode_rel(f);
}

Test(tmpfs, readonly_mount_from_the_start)
{
	struct mount *ro;
	struct vnode *vn;

	cr_assert_eq(tmpfs_mount(true, 0755, 0, 0, &ro), 0);
	cr_assert(ro->rdonly);
	cr_assert_eq(ro->root->ops->create(ro->root, "x", S_IFDIR, 0, NULL,
	    0, 0, &vn), -EROFS);
	tmpfs_unmount(ro);
}

Test(tmpfs, opaque_flag_set_and_cleared)
{
	struct vnode *d = mk(root, "d", S_IFDIR), *f = mk(root, "f", S_IFREG);
	struct vnode fake = { .refs = 1, .type = VDIR };

	cr_assert(!tmpfs_is_opaque(d));
	cr_assert_eq(tmpfs_set_opaque(d, true), 0);
	cr_assert(tmpfs_is_opaque(d));
	cr_assert(!tmpfs_is_opaque(root));
	cr_assert_eq(tmpfs_set_opaque(d, false), 0);
	cr_assert(!tmpfs_is_opaque(d));
	cr_assert_eq(tmpfs_set_opaque(f, true), -ENOTDIR);
	cr_assert(!tmpfs_is_opaque(f));
	cr_assert_eq(tmpfs_set_opaque(&fake, true), -EINVAL);
	cr_assert(!tmpfs_is_opaque(&fake));
	cr_assert(!tmpfs_is_opaque(NULL));
	cr_assert(tmpfs_is_tmpfs(d));
	vnode_rel(d);
	vnode_rel(f);
}

Test(tmpfs, unmount_frees_deep_tree_with_links_and_data)
{
	struct vnode *d = root, *f = mk(root, "f", S_IFREG);
	char name[16];

	vnode_ref(d);
	wr_ok(f, "data", 0);
	/* 3000 levels: deeper than a recursive free would like. */
	for (int i = 0; i < 3000; i++) {
		struct vnode *next = mk(d, "d", S_IFDIR | 0755);

		snprintf(name, sizeof(name), "l%d", i);
		if (i % 500 == 0) {
			cr_assert_eq(d->ops->link(d, name, f), 0);
			mk_rel(d, "g", S_IFREG);
		}
		vnode_rel(d);
		d = next;
	}
	wr_ok(f, "more", 5 * PG);
	vnode_rel(d);
	vnode_rel(f);
	cr_assert_eq(vm_ram_used(), 2 * PG);
	/* The fixture's unmount checks that all RAM comes back. */
}
