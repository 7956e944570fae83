/*
 * Unit tests of the lives of mounts (vkern/vfs/vfs_mount.c): an
 * unmounted tmpfs goes, with all it charged, as soon as nothing holds a
 * vnode of it, and not before; a bind or a namespace's copy goes as it
 * leaves its table; a mount that does not fit in the sandbox's memory
 * is refused, and so is one whose copy for a peer does not fit; a
 * detached tree goes with its last reference, or is attached; devfs,
 * devpts and mqueue go as tmpfs does; procfs's nodes are charged.  Each test mounts on a tmpfs root of its own process.
 */
#include <errno.h>
#include <linux/mount.h>
#include <sys/stat.h>

#include <criterion/criterion.h>

#include "tests/unit/fake_platform.h"
#include "vkern/kmem.h"
#include "vkern/vfs/devfs/devfs.h"
#include "vkern/vfs/devpts/devpts.h"
#include "vkern/vfs/mqueuefs/mqueuefs.h"
#include "vkern/vfs/procfs/procfs.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/vm_ram.h"

#define PG 4096ULL

static struct mount *rootfs;
static struct vnode *dir_a, *dir_b;
static uint64_t charged;        /* KM_FS, before a test's mounts */

static struct vnode *
mkdir_in(struct vnode *dir, const char *name)
{
	struct vnode *vn;

	cr_assert_eq(vn_create(dir, name, S_IFDIR | 0755, 0, NULL, 0, 0,
	    &vn), 0);
	return vn;
}

static void
setup(void)
{
	vm_ram_init(256 * 1024 * PG, 4096 * PG);
	cr_assert_eq(tmpfs_mount(false, 0755, 0, 0, &rootfs), 0);
	cr_assert_eq(vfs_mount(vfs_ns(NULL), rootfs, NULL, "/"), 0);
	dir_a = mkdir_in(rootfs->root, "a");
	dir_b = mkdir_in(rootfs->root, "b");
	charged = kmem_charged(KM_FS);
}

TestSuite(mount, .init = setup);

/* A new tmpfs on /a. */
static struct mount *
mount_a(void)
{
	struct mount *mp;

	cr_assert_eq(tmpfs_mount(false, 01777, 0, 0, &mp), 0);
	cr_assert_eq(vfs_mount(vfs_ns(NULL), mp, dir_a, "/a"), 0);
	return mp;
}

static void
assert_all_gone(void)
{
	cr_assert_null(vfs_detached_first());
	cr_assert_eq(kmem_charged(KM_FS), charged, "%llu bytes left",
	    (unsigned long long)(kmem_charged(KM_FS) - charged));
}

Test(mount, umount_of_an_unused_tmpfs_frees_it)
{
	for (int i = 0; i < 1000; i++) {
		vfs_umount(mount_a());
		assert_all_gone();
	}
}

Test(mount, a_held_file_keeps_the_detached_tmpfs_until_released)
{
	struct mount *mp = mount_a();
	struct vnode *f, *d;

	cr_assert_eq(vn_create(mp->root, "f", S_IFREG | 0644, 0, NULL, 0, 0,
	    &f), 0);
	d = mkdir_in(mp->root, "d");
	vfs_umount(mp);
	cr_assert_eq(vfs_detached_first(), mp);
	cr_assert(mp->detached);
	vnode_rel(d);
	cr_assert_eq(vfs_detached_first(), mp, "f still holds it");
	cr_assert_eq(f->ops->write(f, "vk", 2, 0), 2);
	vnode_rel(f);
	assert_all_gone();
}

Test(mount, a_held_root_keeps_the_detached_tmpfs_until_released)
{
	struct mount *mp = mount_a();
	struct vnode *root = mp->root;

	vnode_ref(root);
	vfs_umount(mp);
	cr_assert_eq(vfs_detached_first(), mp);
	vnode_rel(root);
	assert_all_gone();
}

Test(mount, a_bind_keeps_the_detached_tmpfs_until_it_goes)
{
	struct mount *mp = mount_a(), *bind;
	struct vnode *d = mkdir_in(mp->root, "d");

	bind = mount_dup(mp, d);
	vnode_rel(d);
	cr_assert_not_null(bind);
	cr_assert_eq(vfs_mount(vfs_ns(NULL), bind, dir_b, "/b"), 0);
	vfs_umount(mp);
	cr_assert_eq(vfs_detached_first(), mp, "the bind shows it");
	vfs_umount(bind);
	assert_all_gone();
}

Test(mount, a_namespace_copy_goes_with_its_namespace)
{
	struct mount *mp = mount_a();
	struct mntns *ns = mntns_dup(vfs_ns(NULL));

	cr_assert_not_null(ns);
	vfs_umount(mp);
	cr_assert_eq(vfs_detached_first(), mp, "the copy shows it");
	mntns_rel(ns);
	assert_all_gone();
}

Test(mount, mounts_that_do_not_fit_are_enomem)
{
	struct mount *mp = mount_a(), *m;
	struct fake_block *full = fake_fill(KM_FS);

	cr_assert_eq(tmpfs_mount(false, 01777, 0, 0, &m), -ENOMEM);
	cr_assert_null(mount_dup(mp, mp->root));
	cr_assert_null(mntns_dup(vfs_ns(NULL)));
	fake_unfill(full, KM_FS);
	vfs_umount(mp);
	assert_all_gone();
}

/* A tmpfs on directory d, at path. */
static struct mount *
mount_on(struct vnode *d, const char *path)
{
	struct mount *m;

	cr_assert_eq(tmpfs_mount(false, 01777, 0, 0, &m), 0);
	cr_assert_eq(vfs_mount(vfs_ns(NULL), m, d, path), 0);
	return m;
}

Test(mount, a_detached_tree_goes_with_its_last_reference)
{
	struct mount *mp = mount_a(), *m2, *root;
	struct vnode *d = mkdir_in(mp->root, "d");
	struct mntns *tree;

	m2 = mount_on(d, "/a/d");
	vnode_rel(d);
	tree = mntns_tree(vfs_ns(NULL), mp, mp->root, "/a", true);
	cr_assert_not_null(tree);
	root = mntns_root(tree);
	cr_assert_eq(root->root, mp->root);
	cr_assert_eq(root->covered, NULL);
	cr_assert_str_eq(root->path, "/");
	cr_assert_not_null(root->next, "AT_RECURSIVE copies /a/d");
	cr_assert_str_eq(root->next->path, "/d");
	cr_assert_eq(root->next->root, m2->root);
	cr_assert_eq(root->next->parent, root);
	vfs_umount(m2);
	vfs_umount(mp);
	cr_assert_not_null(vfs_detached_first(), "the tree shows them");
	mntns_rel(tree);
	assert_all_gone();
}

Test(mount, an_attached_tree_leaves_its_file_with_nothing)
{
	struct mntns *ns = vfs_ns(NULL), *tree;
	struct mount *mp = mount_a(), *b;

	tree = mntns_tree(ns, mp, mp->root, "/a", false);
	cr_assert_not_null(tree);
	cr_assert_null(mntns_root(tree)->next, "not recursive");
	mntns_attach(tree, ns, dir_b, "/b");
	cr_assert_null(mntns_root(tree));
	b = vfs_mount_at(ns, "/b");
	cr_assert_not_null(b);
	cr_assert_eq(b->root, mp->root);
	cr_assert_eq(b->parent, rootfs);
	mntns_rel(tree);
	cr_assert_eq(vfs_mount_at(ns, "/b"), b, "attached, it stays");
	vfs_umount(b);
	vfs_umount(mp);
	assert_all_gone();
}

Test(mount, a_tree_that_does_not_fit_is_null)
{
	struct mount *mp = mount_a();
	struct fake_block *full = fake_fill(KM_FS);

	cr_assert_null(mntns_tree(vfs_ns(NULL), mp, mp->root, "/a", true));
	fake_unfill(full, KM_FS);
	vfs_umount(mp);
	assert_all_gone();
}

/*
 * / shared with two namespaces' copies, its peers: a tmpfs mounted on /a
 * when there is room for one copy of it but not for two gets neither,
 * and the mount fails.
 */
Test(mount, a_propagated_copy_that_does_not_fit_fails_the_mount)
{
	struct mntns *ns2, *ns3;
	struct mount *mp;
	struct fake_block *full;
	void *room;

	vfs_propagation_make(rootfs, MS_SHARED);
	ns2 = mntns_dup(vfs_ns(NULL));
	ns3 = mntns_dup(vfs_ns(NULL));
	cr_assert(ns2 != NULL && ns3 != NULL);
	mp = mount_a();
	room = kmem_alloc(sizeof(struct mount), KM_FS);
	full = fake_fill(KM_FS);
	kmem_free(room, sizeof(struct mount), KM_FS);
	cr_assert_eq(vfs_mount_propagate(mp), -ENOMEM);
	cr_assert_null(vfs_mount_on(ns2, NULL, dir_a));
	cr_assert_null(vfs_mount_on(ns3, NULL, dir_a));
	cr_assert_eq(mp->group, 0);
	fake_unfill(full, KM_FS);
	cr_assert_eq(vfs_mount_propagate(mp), 0, "with room, both copies");
	cr_assert_not_null(vfs_mount_on(ns2, NULL, dir_a));
	cr_assert_not_null(vfs_mount_on(ns3, NULL, dir_a));
	vfs_umount_propagate(mp);
	vfs_umount(mp);
	cr_assert_null(vfs_mount_on(ns2, NULL, dir_a));
	mntns_rel(ns2);
	mntns_rel(ns3);
	vfs_propagation_make(rootfs, MS_PRIVATE);
	assert_all_gone();
}

/* An attached tree whose copy does not fit goes back to being detached. */
Test(mount, a_tree_whose_copy_does_not_fit_stays_detached)
{
	struct mntns *ns = vfs_ns(NULL), *ns2, *tree;
	struct mount *mp = mount_a(), *root;
	struct fake_block *full;

	vfs_propagation_make(rootfs, MS_SHARED);
	ns2 = mntns_dup(ns);
	tree = mntns_tree(ns, mp, mp->root, "/a", true);
	cr_assert(ns2 != NULL && tree != NULL);
	root = mntns_root(tree);
	full = fake_fill(KM_FS);
	mntns_attach(tree, ns, dir_b, "/b");
	cr_assert_eq(vfs_mount_propagate(root), -ENOMEM);
	mntns_unattach(tree, ns, root);
	fake_unfill(full, KM_FS);
	cr_assert_eq(mntns_root(tree), root);
	cr_assert_str_eq(root->path, "/");
	cr_assert_null(root->covered);
	cr_assert_null(vfs_mount_on(ns, NULL, dir_b));
	cr_assert_null(vfs_mount_on(ns2, NULL, dir_b));
	mntns_attach(tree, ns, dir_b, "/b");
	cr_assert_eq(vfs_mount_propagate(root), 0);
	cr_assert_eq(vfs_mount_on(ns, NULL, dir_b), root);
	cr_assert_not_null(vfs_mount_on(ns2, NULL, dir_b));
	vfs_umount_propagate(root);
	vfs_umount(root);
	mntns_rel(tree);
	vfs_umount(mp);
	mntns_rel(ns2);
	vfs_propagation_make(rootfs, MS_PRIVATE);
	assert_all_gone();
}

/*
 * The boot's other kinds of file system: a devfs, the devpts and the
 * mqueue file system each go too once unmounted and unused, and the next
 * mount makes them again.
 */
Test(mount, an_unmounted_devfs_devpts_or_mqueue_goes)
{
	int (*const mounts[])(struct mount **) = { devfs_mount,
	    devpts_mount, mqueuefs_mount };
	struct mount *mp;

	for (size_t i = 0; i < 2 * VK_NELEM(mounts); i++) {
		cr_assert_eq(mounts[i / 2](&mp), 0);
		cr_assert_not_null(mp->root);
		cr_assert_eq(vfs_mount(vfs_ns(NULL), mp, dir_a, "/a"), 0);
		vfs_umount(mp);
		assert_all_gone();
	}
}

Test(mount, a_held_devpts_root_keeps_it_until_released)
{
	struct mount *mp, *again;
	struct vnode *root;

	cr_assert_eq(devpts_mount(&mp), 0);
	cr_assert_eq(vfs_mount(vfs_ns(NULL), mp, dir_a, "/a"), 0);
	root = mp->root;
	vnode_ref(root);
	vfs_umount(mp);
	cr_assert_eq(vfs_detached_first(), mp);
	cr_assert_eq(devpts_mount(&again), -EBUSY, "the one devpts is there");
	vnode_rel(root);
	assert_all_gone();
}

/* A node of procfs is charged while it lives: ENOMEM when none fits. */
Test(mount, procfs_nodes_are_charged)
{
	struct mount *mp;
	struct vnode *vn;
	struct fake_block *full;
	uint64_t before;

	cr_assert_eq(procfs_mount(&mp), 0);
	cr_assert_eq(vfs_mount(vfs_ns(NULL), mp, dir_a, "/a"), 0);
	before = kmem_charged(KM_FS);
	cr_assert_eq(mp->root->ops->lookup(mp->root, "meminfo", &vn), 0);
	cr_assert_gt(kmem_charged(KM_FS), before + kmem_size(sizeof(*vn)),
	    "the vnode and the node");
	vnode_rel(vn);
	cr_assert_eq(kmem_charged(KM_FS), before);
	full = fake_fill(KM_FS);
	cr_assert_eq(mp->root->ops->lookup(mp->root, "meminfo", &vn),
	    -ENOMEM);
	fake_unfill(full, KM_FS);
	vfs_umount(mp);
	assert_all_gone();
}

static struct mount *
last_mount(const struct mntns *ns)
{
	struct mount *m = vfs_mounts(ns);

	while (m->next != NULL)
		m = m->next;
	return m;
}

/* A bind of d on /b, or NULL when vfs_mount() refuses it (its errno). */
static struct mount *
bind_on_b(struct vnode *d, int *errp)
{
	struct mount *bind = mount_dup(d->mount, d);

	cr_assert_not_null(bind);
	if ((*errp = vfs_mount(vfs_ns(NULL), bind, dir_b, "/b")) < 0) {
		mount_free(bind);
		return NULL;
	}
	return bind;
}

/*
 * The most mounts a namespace holds: one more is ENOSPC, for a mount, a
 * recursive bind's copies (none is made) and an attached tree.
 */
Test(mount, a_namespace_past_its_most_mounts_is_enospc)
{
	struct mntns *ns = vfs_ns(NULL), *tree;
	struct mount *a = mount_a(), *bind, *sub;
	struct vnode *d = mkdir_in(a->root, "d");
	int e;

	/* rootfs and /a, and /a/d under it. */
	cr_assert_eq(tmpfs_mount(false, 0755, 0, 0, &sub), 0);
	cr_assert_eq(vfs_mount(ns, sub, d, "/a/d"), 0);
	vfs_mount_max_set(3);
	cr_assert_null(bind_on_b(a->root, &e));
	cr_assert_eq(e, -ENOSPC);
	vfs_mount_max_set(4);
	bind = bind_on_b(a->root, &e);
	cr_assert_not_null(bind, "%d", e);
	/* MS_REC would add /b/d: nothing copied, the bind alone stays. */
	cr_assert_eq(vfs_mount_copy_below(bind, a, "/a"), -ENOSPC);
	cr_assert_eq(last_mount(ns), bind);
	vfs_umount(bind);
	vfs_mount_max_set(5);
	bind = bind_on_b(a->root, &e);
	cr_assert_not_null(bind, "%d", e);
	cr_assert_eq(vfs_mount_copy_below(bind, a, "/a"), 0);
	cr_assert_str_eq(last_mount(ns)->path, "/b/d");
	cr_assert_eq(last_mount(ns)->parent, bind, "the copy is on the bind");
	cr_assert_eq(vfs_mount_on(ns, bind, d), last_mount(ns));
	cr_assert_eq(vfs_mount_on(ns, a, d), sub, "the source's stays");
	vfs_umount_since(bind);
	/* A tree of two goes onto a namespace of three only with room. */
	tree = mntns_tree(ns, a, a->root, "/a", true);
	cr_assert_not_null(tree);
	vfs_mount_max_set(4);
	cr_assert_eq(mntns_attach(tree, ns, dir_b, "/b"), -ENOSPC);
	cr_assert_not_null(mntns_root(tree), "still detached");
	vfs_mount_max_set(VFS_MOUNT_MAX);
	mntns_rel(tree);
	vfs_umount(sub);
	vnode_rel(d);
	vfs_umount(a);
	assert_all_gone();
}
