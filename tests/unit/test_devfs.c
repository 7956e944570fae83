/*
 * Unit tests of devfs (vkern/vfs/devfs/devfs.c): the fixed set of nodes
 * with Linux's device numbers and modes, what each device reads and
 * writes, the symlinks and empty directories, and that the structure
 * cannot change.  Every test ends by unmounting, which asserts that no
 * vnode was leaked.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/fake_platform.h"
#include "vkern/vfs/devfs/devfs.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/vm_ram.h"

static struct mount *mp;
static struct vnode *root;

static void
dfs_setup(void)
{
	vm_ram_init(1024 * 4096, 64 * 4096);
	cr_assert_eq(devfs_mount(&mp), 0);
	root = mp->root;
}

static void
dfs_teardown(void)
{
	devfs_unmount(mp);
}

TestSuite(devfs, .init = dfs_setup, .fini = dfs_teardown);

static struct vnode *
look_ok(struct vnode *dir, const char *name)
{
	struct vnode *vn = NULL;

	cr_assert_eq(dir->ops->lookup(dir, name, &vn), 0, "lookup %s", name);
	cr_assert_not_null(vn);
	return vn;
}

static struct vattr
attr(struct vnode *vn)
{
	struct vattr va;

	cr_assert_eq(vn->ops->getattr(vn, &va), 0);
	return va;
}

/* Strings in parameters are arrays: Criterion copies them to the test. */
struct devcase {
	char name[16];
	uint32_t mode;
	unsigned major, minor;
};

ParameterizedTestParameters(devfs, device_nodes_have_linux_numbers)
{
	static struct devcase cases[] = {
		{ "null", S_IFCHR | 0666, 1, 3 },
		{ "zero", S_IFCHR | 0666, 1, 5 },
		{ "full", S_IFCHR | 0666, 1, 7 },
		{ "random", S_IFCHR | 0666, 1, 8 },
		{ "urandom", S_IFCHR | 0666, 1, 9 },
		{ "tty", S_IFCHR | 0666, 5, 0 },
		{ "console", S_IFCHR | 0600, 5, 1 },
	};

	return cr_make_param_array(struct devcase, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct devcase *c, devfs, device_nodes_have_linux_numbers)
{
	struct vnode *vn = look_ok(root, c->name);
	struct vattr va = attr(vn);
	uint64_t rdev = 0;

	cr_assert_eq(vn->type, VCHR);
	cr_assert_eq(va.mode, c->mode, "%s mode %o", c->name, va.mode);
	cr_assert_eq(va.rdev, makedev(c->major, c->minor));
	cr_assert_eq(major(va.rdev), c->major);
	cr_assert_eq(minor(va.rdev), c->minor);
	cr_assert_eq(va.uid, 0);
	cr_assert_eq(va.gid, 0);
	cr_assert_eq(va.nlink, 1);
	cr_assert_eq(va.dev, mp->dev);
	cr_assert_eq(devfs_node_rdev(vn, &rdev), 0);
	cr_assert_eq(rdev, va.rdev);
	vnode_rel(vn);
}

struct linkcase {
	char name[16], target[32];
};

ParameterizedTestParameters(devfs, symlinks_point_into_proc)
{
	static struct linkcase cases[] = {
		{ "fd", "/proc/self/fd" },
		{ "stdin", "/proc/self/fd/0" },
		{ "stdout", "/proc/self/fd/1" },
		{ "stderr", "/proc/self/fd/2" },
	};

	return cr_make_param_array(struct linkcase, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct linkcase *c, devfs, symlinks_point_into_proc)
{
	struct vnode *vn = look_ok(root, c->name);
	size_t n = strlen(c->target);
	char buf[64];
	uint64_t rdev;

	cr_assert_eq(vn->type, VLNK);
	cr_assert_eq(attr(vn).mode, S_IFLNK | 0777);
	cr_assert_eq(attr(vn).size, n);
	cr_assert_eq(vn->ops->readlink(vn, buf, sizeof(buf)), (long)n);
	cr_assert_eq(memcmp(buf, c->target, n), 0);
	cr_assert_eq(vn->ops->readlink(vn, buf, 3), 3);
	cr_assert_eq(devfs_node_rdev(vn, &rdev), -EINVAL);
	cr_assert_eq(vn->ops->read(vn, buf, 4, 0), -EINVAL);
	vnode_rel(vn);
}

Test(devfs, root_attributes)
{
	struct vattr va = attr(root);

	cr_assert_eq(root->type, VDIR);
	cr_assert_eq(va.mode, S_IFDIR | 0755);
	cr_assert_eq(va.nlink, 5);
	cr_assert(va.mtime_ns > 0);
	cr_assert(devfs_is_devfs(root));
	cr_assert(!mp->rdonly);
}

Test(devfs, lookup_returns_one_vnode_per_node)
{
	struct vnode *a = look_ok(root, "null"), *b = look_ok(root, "null");

	cr_assert_eq(a, b);
	cr_assert_eq(a->refs, 2);
	vnode_rel(a);
	vnode_rel(b);
	a = look_ok(root, ".");
	cr_assert_eq(a, root);
	vnode_rel(a);
}

Test(devfs, lookup_errors)
{
	struct vnode *vn = NULL, *null = look_ok(root, "null");
	char longname[300];

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	cr_assert_eq(root->ops->lookup(root, "nope", &vn), -ENOENT);
	cr_assert_eq(root->ops->lookup(root, "", &vn), -ENOENT);
	cr_assert_eq(root->ops->lookup(root, longname, &vn), -ENAMETOOLONG);
	cr_assert_eq(null->ops->lookup(null, "x", &vn), -ENOTDIR);
	cr_assert_null(vn);
	vnode_rel(null);
}

struct dirent_seen {
	char names[32][16];
	uint64_t cookies[32];
	enum vtype types[32];
	int n, stop_after;
};

static int
seen_cb(void *arg, const char *name, size_t len, uint64_t ino,
    enum vtype type, uint64_t next)
{
	struct dirent_seen *s = arg;

	cr_assert(s->n < 32 && len < 16);
	memcpy(s->names[s->n], name, len);
	s->names[s->n][len] = '\0';
	s->cookies[s->n] = next;
	s->types[s->n] = type;
	s->n++;
	return s->stop_after > 0 && s->n >= s->stop_after;
}

Test(devfs, readdir_lists_every_node)
{
	static const char *const want[] = {
		".", "..", "null", "zero", "full", "random", "urandom", "tty",
		"console", "fd", "stdin", "stdout", "stderr", "shm", "pts",
		"mqueue", "ptmx", "kmsg",
	};
	struct dirent_seen s = { .n = 0 };

	cr_assert_eq(root->ops->readdir(root, 0, seen_cb, &s), 0);
	cr_assert_eq(s.n, (int)(sizeof(want) / sizeof(want[0])));
	for (int i = 0; i < s.n; i++)
		cr_assert_str_eq(s.names[i], want[i]);
	cr_assert_eq(s.types[2], VCHR);
	cr_assert_eq(s.types[9], VLNK);
	cr_assert_eq(s.types[13], VDIR);
}

Test(devfs, readdir_resumes_at_cookie)
{
	struct dirent_seen a = { .stop_after = 5 }, b = { .n = 0 };

	cr_assert_eq(root->ops->readdir(root, 0, seen_cb, &a), 0);
	cr_assert_eq(a.n, 5);
	cr_assert_str_eq(a.names[4], "full");
	cr_assert_eq(root->ops->readdir(root, a.cookies[4], seen_cb, &b), 0);
	cr_assert_eq(b.n, 18 - 5);
	cr_assert_str_eq(b.names[0], "random");
	b.n = 0;
	cr_assert_eq(root->ops->readdir(root, 1000, seen_cb, &b), 0);
	cr_assert_eq(b.n, 0);
}

Test(devfs, shm_pts_and_mqueue_are_empty_directories)
{
	static const char *const dirs[] = { "shm", "pts", "mqueue" };

	for (int i = 0; i < 3; i++) {
		struct vnode *d = look_ok(root, dirs[i]), *vn = NULL;
		struct dirent_seen s = { .n = 0 };

		cr_assert_eq(d->type, VDIR);
		cr_assert_eq(attr(d).mode, S_IFDIR | 0755);
		cr_assert_eq(attr(d).nlink, 2);
		cr_assert_eq(d->ops->readdir(d, 0, seen_cb, &s), 0);
		cr_assert_eq(s.n, 2);
		cr_assert_str_eq(s.names[1], "..");
		cr_assert_eq(d->ops->lookup(d, "null", &vn), -ENOENT);
		vn = look_ok(d, "..");
		cr_assert_eq(vn, root);
		vnode_rel(vn);
		vnode_rel(d);
	}
}

Test(devfs, null_reads_eof_and_swallows_writes)
{
	struct vnode *vn = look_ok(root, "null");
	char buf[16] = "untouched";

	cr_assert_eq(vn->ops->read(vn, buf, sizeof(buf), 0), 0);
	cr_assert_str_eq(buf, "untouched");
	cr_assert_eq(vn->ops->write(vn, buf, sizeof(buf), 12345), 16);
	cr_assert_eq(vn->ops->write(vn, buf, 0, 0), 0);
	vnode_rel(vn);
}

struct devname {
	char name[16];
};

ParameterizedTestParameters(devfs, zero_and_full_read_zeros)
{
	static struct devname cases[] = { { "zero" }, { "full" } };

	return cr_make_param_array(struct devname, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct devname *d, devfs, zero_and_full_read_zeros)
{
	struct vnode *vn = look_ok(root, d->name);
	char buf[10000];

	memset(buf, 0x77, sizeof(buf));
	cr_assert_eq(vn->ops->read(vn, buf, sizeof(buf), 99), 10000);
	for (size_t i = 0; i < sizeof(buf); i++)
		cr_assert_eq(buf[i], 0, "%s byte %zu", d->name, i);
	vnode_rel(vn);
}

Test(devfs, zero_accepts_and_full_refuses_writes)
{
	struct vnode *z = look_ok(root, "zero"), *f = look_ok(root, "full");

	cr_assert_eq(z->ops->write(z, "abc", 3, 0), 3);
	cr_assert_eq(f->ops->write(f, "abc", 3, 0), -ENOSPC);
	vnode_rel(z);
	vnode_rel(f);
}

ParameterizedTestParameters(devfs, random_devices_give_bytes)
{
	static struct devname cases[] = { { "random" }, { "urandom" } };

	return cr_make_param_array(struct devname, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct devname *d, devfs, random_devices_give_bytes)
{
	struct vnode *vn = look_ok(root, d->name);
	unsigned char a[64] = { 0 }, b[64] = { 0 };
	int nonzero = 0;

	cr_assert_eq(vn->ops->read(vn, a, sizeof(a), 0), 64);
	cr_assert_eq(vn->ops->read(vn, b, sizeof(b), 0), 64);
	for (int i = 0; i < 64; i++)
		nonzero += a[i] != 0;
	cr_assert(nonzero > 32, "%s gave %d nonzero bytes", d->name, nonzero);
	cr_assert_neq(memcmp(a, b, sizeof(a)), 0, "two reads alike");
	cr_assert_eq(vn->ops->write(vn, a, sizeof(a), 0), 64);
	vnode_rel(vn);
}

ParameterizedTestParameters(devfs, tty_and_console_io_is_the_vfss)
{
	static struct devname cases[] = { { "tty" }, { "console" } };

	return cr_make_param_array(struct devname, cases,
	    sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct devname *d, devfs, tty_and_console_io_is_the_vfss)
{
	struct vnode *vn = look_ok(root, d->name);
	char buf[4];
	uint64_t rdev;

	cr_assert_eq(vn->ops->read(vn, buf, 4, 0), -ENXIO);
	cr_assert_eq(vn->ops->write(vn, "x", 1, 0), -ENXIO);
	cr_assert_eq(devfs_node_rdev(vn, &rdev), 0);
	cr_assert_eq(major(rdev), 5);
	vnode_rel(vn);
}

Test(devfs, directory_io_fails_eisdir)
{
	char buf[4];

	cr_assert_eq(root->ops->read(root, buf, 4, 0), -EISDIR);
	cr_assert_eq(root->ops->write(root, "x", 1, 0), -EISDIR);
}

Test(devfs, structure_cannot_change)
{
	struct vnode *vn = NULL, *null = look_ok(root, "null");
	struct vnode *shm = look_ok(root, "shm");

	cr_assert_eq(root->ops->create(root, "new", S_IFREG | 0644, 0, NULL,
	    0, 0, &vn), -EPERM);
	cr_assert_eq(root->ops->create(root, "null", S_IFCHR | 0644, 0, NULL,
	    0, 0, &vn), -EEXIST);
	cr_assert_eq(shm->ops->create(shm, "seg", S_IFREG | 0600, 0, NULL,
	    0, 0, &vn), -EPERM);
	cr_assert_eq(null->ops->create(null, "x", S_IFREG, 0, NULL, 0, 0,
	    &vn), -ENOTDIR);
	cr_assert_null(vn);
	cr_assert_eq(root->ops->remove(root, "null", false), -EPERM);
	cr_assert_eq(root->ops->remove(root, "shm", true), -EPERM);
	cr_assert_eq(root->ops->remove(root, "nope", false), -ENOENT);
	cr_assert_eq(root->ops->link(root, "null2", null), -EPERM);
	cr_assert_eq(root->ops->rename(root, "null", root, "x", 0), -EPERM);
	vnode_rel(look_ok(root, "null"));
	vnode_rel(null);
	vnode_rel(shm);
}

Test(devfs, setattr_changes_mode_and_times_only)
{
	struct vnode *vn = look_ok(root, "null");
	struct vattr va = {
		.mode = S_IFREG | 0600, .uid = 3, .gid = 4, .mtime_ns = 77,
		.size = 0,
	}, after;

	cr_assert_eq(vn->ops->setattr(vn, &va, VA_MODE | VA_UID | VA_GID |
	    VA_MTIME), 0);
	after = attr(vn);
	cr_assert_eq(after.mode, S_IFCHR | 0600);
	cr_assert_eq(after.uid, 3);
	cr_assert_eq(after.gid, 4);
	cr_assert_eq(after.mtime_ns, 77);
	cr_assert_eq(after.rdev, makedev(1, 3));
	/* "> /dev/null" truncates: nothing to do, and no failure. */
	cr_assert_eq(vn->ops->setattr(vn, &va, VA_SIZE), 0);
	cr_assert_eq(root->ops->setattr(root, &va, VA_SIZE), -EISDIR);
	vnode_rel(vn);
}

Test(devfs, mounts_keep_their_own_attributes)
{
	struct mount *other;
	struct vnode *a = look_ok(root, "zero"), *b;
	struct vattr va = { .mode = 0600 };

	cr_assert_eq(devfs_mount(&other), 0);
	cr_assert_neq(other->dev, mp->dev);
	cr_assert_eq(a->ops->setattr(a, &va, VA_MODE), 0);
	b = look_ok(other->root, "zero");
	cr_assert_neq(a, b);
	cr_assert_eq(attr(b).mode, S_IFCHR | 0666);
	cr_assert_eq(attr(a).mode, S_IFCHR | 0600);
	vnode_rel(b);
	devfs_unmount(other);
	vnode_rel(a);
}

Test(devfs, node_rdev_rejects_other_file_systems)
{
	struct mount *t;
	uint64_t rdev = 42;

	vm_ram_init(1024 * 4096, 64 * 4096);
	cr_assert_eq(tmpfs_mount(false, 0755, 0, 0, &t), 0);
	cr_assert_eq(devfs_node_rdev(t->root, &rdev), -EINVAL);
	cr_assert_eq(devfs_node_rdev(root, &rdev), -EINVAL);
	cr_assert_eq(devfs_node_rdev(NULL, &rdev), -EINVAL);
	cr_assert_eq(rdev, 42);
	cr_assert(!devfs_is_devfs(t->root));
	tmpfs_unmount(t);
}
