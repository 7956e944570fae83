/*
 * Unit tests of --disk (tmpfs_disk_max): the data of every mounted
 * tmpfs counts against it together, writes past it are short and then
 * ENOSPC, fallocate past it changes nothing, statfs shows it, freeing
 * makes room, and unlinked files (memfds) are not counted.  Then a
 * tmpfs's own bounds (tmpfs_set_limits: size=, nr_inodes=), and a
 * mounted tmpfs that the sandbox's memory can no longer hold: ENOSPC,
 * where a memfd gets ENOMEM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <criterion/criterion.h>

#include "tests/unit/fake_platform.h"
#include "vkern/vfs/tmpfs/tmpfs.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/vm_ram.h"

#define PG 4096ULL

static struct mount *mp[2];
static char *buf;

static void
disk_setup(void)
{
	vm_ram_init(1024 * PG, 1024 * PG);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(tmpfs_mount(false, 01777, 0, 0, &mp[i]), 0);
	tmpfs_disk_max = 8;
	buf = calloc(1, 16 * PG);
	memset(buf, 'd', 16 * PG);
}

static void
disk_teardown(void)
{
	for (int i = 0; i < 2; i++)
		tmpfs_unmount(mp[i]);
	free(buf);
}

TestSuite(tmpfs_disk, .init = disk_setup, .fini = disk_teardown);

static struct vnode *
mk(int i, const char *name)
{
	struct vnode *vn = NULL, *root = mp[i]->root;

	cr_assert_eq(root->ops->create(root, name, S_IFREG | 0644, 0, NULL,
	    0, 0, &vn), 0);
	return vn;
}

static struct vfs_statfs
sfs(int i)
{
	struct vfs_statfs sf = { 0 };

	cr_assert_eq(mp[i]->root->ops->statfs(mp[i]->root, &sf), 0);
	return sf;
}

Test(tmpfs_disk, two_mounts_share_the_limit_and_free_makes_room)
{
	struct vnode *a = mk(0, "a"), *b = mk(1, "b");
	struct vnode *root = mp[0]->root;

	cr_assert_eq(a->ops->write(a, buf, 5 * PG, 0), (long)(5 * PG));
	/* Three pages are left, on the other mount too: a short write. */
	cr_assert_eq(b->ops->write(b, buf, 5 * PG, 0), (long)(3 * PG));
	cr_assert_eq(b->ops->write(b, buf, 1, 3 * PG), -ENOSPC);
	cr_assert_eq(b->ops->fallocate(b, 0, 8 * PG, PG), -ENOSPC);
	cr_assert_eq(sfs(0).blocks, 8);
	cr_assert_eq(sfs(1).bfree, 0);
	/* Rewriting pages a file has takes nothing more. */
	cr_assert_eq(a->ops->write(a, buf, 5 * PG, 0), (long)(5 * PG));
	vnode_rel(a);
	cr_assert_eq(root->ops->remove(root, "a", false), 0);
	cr_assert_eq(sfs(1).bfree, 5);
	cr_assert_eq(b->ops->fallocate(b, 0, 3 * PG, 5 * PG), 0);
	cr_assert_eq(b->ops->write(b, buf, 1, 8 * PG), -ENOSPC);
	vnode_rel(b);
}

Test(tmpfs_disk, unlinked_files_are_memory)
{
	struct vnode *m, *a = mk(0, "a");

	cr_assert_eq(tmpfs_unlinked(0600, 0, 0, &m), 0);

	cr_assert_eq(m->ops->write(m, buf, 16 * PG, 0), (long)(16 * PG));
	cr_assert_eq(a->ops->write(a, buf, 8 * PG, 0), (long)(8 * PG));
	vnode_rel(m);
	vnode_rel(a);
}

/* Each mount bounded on its own: --disk stays out of the way. */
static void
size_setup(void)
{
	disk_setup();
	tmpfs_disk_max = UINT64_MAX;
}

TestSuite(tmpfs_size, .init = size_setup, .fini = disk_teardown);

Test(tmpfs_size, size_bounds_one_mount_and_statfs_shows_it)
{
	struct vnode *a, *b, *root = mp[0]->root;

	cr_assert_eq(tmpfs_set_limits(mp[0], 4, 0), 0);
	a = mk(0, "a");
	b = mk(1, "b");
	cr_assert_eq(a->ops->write(a, buf, 5 * PG, 0), (long)(4 * PG));
	cr_assert_eq(a->ops->write(a, buf, 1, 4 * PG), -ENOSPC);
	cr_assert_eq(a->ops->fallocate(a, 0, 4 * PG, PG), -ENOSPC);
	/* Rewriting what is there, and a hole, take nothing. */
	cr_assert_eq(a->ops->write(a, buf, 4 * PG, 0), (long)(4 * PG));
	cr_assert_eq(b->ops->write(b, buf, 5 * PG, 0), (long)(5 * PG));
	cr_assert_eq(sfs(0).blocks, 4);
	cr_assert_eq(sfs(0).bfree, 0);
	cr_assert_eq(sfs(0).bavail, 0);
	cr_assert_eq(tmpfs_set_limits(mp[0], 3, 0), -EINVAL);
	vnode_rel(a);
	cr_assert_eq(root->ops->remove(root, "a", false), 0);
	cr_assert_eq(sfs(0).bfree, 4);
	vnode_rel(b);
}

Test(tmpfs_size, nr_inodes_counts_nodes_and_hard_links)
{
	struct vnode *a, *vn = NULL, *root = mp[0]->root;

	/* The root is one of the four. */
	cr_assert_eq(tmpfs_set_limits(mp[0], 0, 4), 0);
	cr_assert_eq(sfs(0).files, 4);
	cr_assert_eq(sfs(0).ffree, 3);
	a = mk(0, "a");
	vnode_rel(mk(0, "b"));
	cr_assert_eq(root->ops->link(root, "a2", a), 0);
	cr_assert_eq(sfs(0).ffree, 0);
	cr_assert_eq(root->ops->create(root, "d", S_IFDIR | 0755, 0, NULL,
	    0, 0, &vn), -ENOSPC);
	cr_assert_eq(root->ops->link(root, "a3", a), -ENOSPC);
	cr_assert_eq(root->ops->remove(root, "a2", false), 0);
	cr_assert_eq(root->ops->create(root, "d", S_IFDIR | 0755, 0, NULL,
	    0, 0, &vn), 0);
	vnode_rel(vn);
	vnode_rel(a);
}

Test(tmpfs_size, long_symlink_takes_a_page)
{
	char target[200];
	struct vnode *a = mk(0, "a"), *vn = NULL, *root = mp[0]->root;

	memset(target, 't', sizeof(target) - 1);
	target[sizeof(target) - 1] = '\0';
	cr_assert_eq(tmpfs_set_limits(mp[0], 2, 0), 0);
	cr_assert_eq(a->ops->write(a, buf, 2 * PG, 0), (long)(2 * PG));
	cr_assert_eq(root->ops->create(root, "l", S_IFLNK | 0777, 0, target,
	    0, 0, &vn), -ENOSPC);
	cr_assert_eq(root->ops->create(root, "s", S_IFLNK | 0777, 0, "short",
	    0, 0, &vn), 0);
	vnode_rel(vn);
	cr_assert_eq(a->ops->setattr(a, &(struct vattr){ .size = PG },
	    VA_SIZE), 0);
	cr_assert_eq(root->ops->create(root, "l", S_IFLNK | 0777, 0, target,
	    0, 0, &vn), 0);
	vnode_rel(vn);
	cr_assert_eq(sfs(0).bfree, 0);
	cr_assert_eq(root->ops->remove(root, "l", false), 0);
	cr_assert_eq(sfs(0).bfree, 1);
	vnode_rel(a);
}

Test(tmpfs_size, full_memory_is_enospc_for_a_mount_enomem_for_a_memfd)
{
	struct vnode *m, *a = mk(0, "a");
	long r;

	cr_assert_eq(tmpfs_unlinked(0600, 0, 0, &m), 0);
	for (uint64_t off = 0; (r = a->ops->write(a, buf, 16 * PG, off)) > 0;
	    off += (uint64_t)r)
		;
	cr_assert_eq(r, -ENOSPC);
	cr_assert_eq(a->ops->fallocate(a, 0, 2048 * PG, PG), -ENOSPC);
	cr_assert_eq(m->ops->write(m, buf, PG, 0), -ENOMEM);
	vnode_rel(m);
	vnode_rel(a);
}
