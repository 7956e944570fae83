/*
 * Unit tests of the vnode life cycle (vkern/vfs/vfs_vnode.c) where it
 * meets depth a guest controls: vnodes that hold their parents, as overlay
 * and hostfs vnodes do, released in chains far longer than the stack would
 * take in recursion; and an overlay over tmpfs layers, whose chains are
 * freed, and copied up, through as many levels.
 */
#include <stdlib.h>
#include <sys/stat.h>

#include <criterion/criterion.h>

#include "tests/unit/fake_platform.h"
#include "vkern/vfs/overlay/overlay.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/vm_ram.h"

#define DEPTH 1000000

static unsigned long inactives;

/* A vnode whose data is its parent, referenced, as a directory's. */
static void
chain_inactive(struct vnode *vn)
{
	inactives++;
	if (vn->data != NULL)
		vnode_rel(vn->data);
}

static const struct vnode_ops chain_ops = { .inactive = chain_inactive };

Test(vnode, chain_release_without_recursion)
{
	struct vnode *vn = vnode_alloc(NULL, VDIR, &chain_ops, NULL);

	for (long i = 1; i < DEPTH; i++) {
		struct vnode *child = vnode_alloc(NULL, VDIR, &chain_ops, vn);

		/* The child's hold is now the parent's only reference. */
		vn = child;
	}
	vnode_rel(vn);
	cr_assert_eq(inactives, DEPTH);
}

/* A reference taken while a chain is being freed keeps its vnode. */
Test(vnode, release_queue_spares_the_referenced)
{
	struct vnode *top = vnode_alloc(NULL, VDIR, &chain_ops, NULL);
	struct vnode *mid = vnode_alloc(NULL, VDIR, &chain_ops, top);
	struct vnode *leaf = vnode_alloc(NULL, VDIR, &chain_ops, mid);

	vnode_ref(top);
	vnode_rel(leaf);
	cr_assert_eq(inactives, 2);
	cr_assert_eq(top->refs, 1);
	vnode_rel(top);
	cr_assert_eq(inactives, 3);
}

static struct mount *upper_mp, *lower_mp, *ovl_mp;

static void
ovl_setup(void)
{
	/* 300,000 levels' nodes and names are charged: room for them. */
	vm_ram_init(256 * 1024 * 4096ULL, 256 * 1024 * 4096ULL);
	cr_assert_eq(tmpfs_mount(false, 0755, 0, 0, &upper_mp), 0);
	cr_assert_eq(tmpfs_mount(false, 0755, 0, 0, &lower_mp), 0);
	vnode_ref(upper_mp->root);
	vnode_ref(lower_mp->root);
	cr_assert_eq(overlay_mount(upper_mp->root, lower_mp->root, &ovl_mp),
	    0);
}

/* Make n nested directories "d" below dir; returns the deepest. */
static struct vnode *
nest(struct vnode *dir, long n)
{
	struct vnode *vn = dir, *next;

	vnode_ref(vn);
	for (long i = 0; i < n; i++) {
		cr_assert_eq(vn->ops->create(vn, "d", S_IFDIR | 0755, 0, NULL,
		    0, 0, &next), 0, "level %ld", i);
		vnode_rel(vn);
		vn = next;
	}
	return vn;
}

#define OVL_DEPTH 300000

Test(vnode, overlay_chain_release, .init = ovl_setup)
{
	/* Only the deepest is held; each level holds the one above. */
	struct vnode *deep = nest(ovl_mp->root, OVL_DEPTH);

	vnode_rel(deep);
	cr_assert_eq(ovl_mp->root->refs, 1);
}

Test(vnode, overlay_deep_copy_up, .init = ovl_setup)
{
	struct vnode *vn, *next, *f, *up;
	struct vattr va;

	vnode_rel(nest(lower_mp->root, OVL_DEPTH));
	vn = ovl_mp->root;
	vnode_ref(vn);
	for (long i = 0; i < OVL_DEPTH; i++) {
		cr_assert_eq(vn->ops->lookup(vn, "d", &next), 0, "level %ld", i);
		vnode_rel(vn);
		vn = next;
	}
	cr_assert_eq(vn->ops->create(vn, "f", S_IFREG | 0644, 0, NULL, 0, 0,
	    &f), 0);
	/* The bottom, and so every level above it, has its upper copy. */
	up = overlay_upper(vn, false);
	cr_assert_eq(up->mount, upper_mp);
	cr_assert_eq(up->ops->getattr(up, &va), 0);
	cr_assert(S_ISDIR(va.mode));
	vnode_rel(f);
	vnode_rel(vn);
}
