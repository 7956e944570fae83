/*
 * Unit tests of --disk (tmpfs_disk_max): the data of every mounted
 * tmpfs counts against it together, writes past it are short and then
 * ENOSPC, fallocate past it changes nothing, statfs shows it, freeing
 * makes room, and unlinked files (memfds) are not counted.
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
