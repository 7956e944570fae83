/*
 * Copies of mounts: a namespace's whole table (unshare(CLONE_NEWNS)), a
 * detached tree (open_tree(2)'s OPEN_TREE_CLONE) and what a recursive
 * bind takes along, each copy on the copy of its parent; and a detached
 * tree's attaching (move_mount(2)) and its undoing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/vfs/vfs.h"
#include "vkern/vfs/vfs_mount_impl.h"
#include "vkern/vk.h"

/* unshare(CLONE_NEWNS)'s copy of ns's table (vfs.h). */
struct mntns *
mntns_dup(const struct mntns *ns)
{
	struct mntns *c = mntns_new();
	struct mount *m, *d;

	if (c == NULL)
		return NULL;
	for (m = ns->mounts; m != NULL; m = m->next) {
		if ((d = mount_dup(m->root->mount, m->root)) == NULL) {
			mntns_rel(c);
			return NULL;
		}
		mount_set_source(d, m->source);
		d->flags = m->flags;
		d->group = m->group;
		d->master = m->master;
		d->unbindable = m->unbindable;
		mount_set_path(d, m->path);
		if (m->covered != NULL)
			cover_link(d, m->covered);
		else
			c->root = d;
		ns_append(c, d);
		m->copy = d;
	}
	/* Each on the copy of its parent, now that every copy is made. */
	for (m = ns->mounts; m != NULL; m = m->next)
		mount_set_parent(m->copy, m->parent != NULL &&
		    m->parent->ns == ns ? m->parent->copy : NULL);
	return c;
}

/* Whether m, below from in its table, is below an unbindable mount. */
static bool
mount_below_unbindable(const struct mount *m, const struct mount *from)
{
	for (; m != NULL && m != from; m = m->parent)
		if (m->unbindable)
			return true;
	return false;
}

/*
 * A private copy of m on the same directory, at path in to, on parent
 * there: 0, -ENOMEM, or -EBUSY when parent has a mount there already.
 * m->copy names it.
 */
static int
mount_copy_into(struct mntns *to, struct mount *m, struct mount *parent,
    const char *path)
{
	struct mount *d;

	if (vfs_mount_on(to, parent, m->covered) != NULL)
		return -EBUSY;
	if ((d = mount_dup(m->root->mount, m->root)) == NULL)
		return -ENOMEM;
	mount_set_source(d, m->source);
	d->flags = m->flags;
	d->parent = parent;
	cover_link(d, m->covered);
	mount_set_path(d, path);
	ns_append(to, d);
	m->copy = d;
	return 0;
}

/* Whether mounts_copy_below() copies m, which follows from in its table. */
static bool
mount_copied(const struct mount *m, const struct mount *from,
    const char *path, size_t n)
{
	return m->covered != NULL && vfs_path_below(m->path, path) &&
	    m->path[n] != '\0' && !mount_below_unbindable(m, from);
}

/*
 * Into to, at newp in path's place, private copies of the mounts of ns
 * below path that from shows (those made after it, none below an
 * unbindable one), up to stop, each on the copy of its parent, or on
 * top, the copy of from: 0, -ENOMEM, or -ENOSPC when they would take
 * to past the most a namespace holds (nothing copied then).
 */
static int
mounts_copy_below(struct mntns *to, const struct mntns *ns,
    struct mount *from, struct mount *top, const char *path,
    const char *newp, const struct mount *stop)
{
	size_t n = strcmp(path, "/") == 0 ? 0 : strlen(path);
	struct mount *m;
	bool after = from == NULL;
	int count = 0, r;
	char *s;

	for (m = ns->mounts; m != NULL; m = m->next) {
		m->copy = NULL;
		after = (after || m == from) && m != stop;
		if (after && mount_copied(m, from, path, n))
			count++;
	}
	if (count > mount_max - to->nmounts)
		return -ENOSPC;
	if (from != NULL)
		from->copy = top;
	after = from == NULL;
	for (m = ns->mounts; m != stop; m = m->next) {
		after = after || m == from;
		if (!after || !mount_copied(m, from, path, n))
			continue;
		s = vfs_path_rebase(m->path, n, newp);
		r = mount_copy_into(to, m, m->parent != NULL &&
		    m->parent->ns == ns && m->parent->copy != NULL ?
		    m->parent->copy : top, s);
		free(s);
		if (r == -ENOMEM)
			return r;
	}
	return 0;
}

/*
 * A detached tree's table: that of a namespace no process is in (Linux's
 * anonymous one), whose root mount is on nothing, at "/", and whose other
 * mounts have paths below it.  The copies are private: a detached tree
 * receives no propagation.
 */
struct mntns *
mntns_tree(const struct mntns *ns, struct mount *from,
    struct vnode *root, const char *path, bool rec)
{
	struct mntns *tree = mntns_new();
	struct mount *m;

	if (tree == NULL)
		return NULL;
	if ((m = mount_dup(root->mount, root)) == NULL) {
		mntns_rel(tree);
		return NULL;
	}
	if (from != NULL) {
		mount_set_source(m, from->source);
		m->flags = from->flags;
	}
	(void)vfs_mount(tree, m, NULL, "/");
	if (rec && mounts_copy_below(tree, ns, from, m, path, "/", NULL) < 0) {
		mntns_rel(tree);
		return NULL;
	}
	return tree;
}

int
vfs_mount_copy_below(struct mount *mp, struct mount *from,
    const char *path)
{
	return mounts_copy_below(mp->ns, mp->ns, from, mp, path, mp->path, mp);
}

void
vfs_umount_since(struct mount *mp)
{
	struct mntns *ns = mp->ns;

	while (ns->tail != mp)
		vfs_umount(ns->tail);
	vfs_umount(mp);
}

struct mount *
mntns_root(const struct mntns *ns)
{
	return ns->root;
}

/*
 * Each mount of the tree goes to ns, its root onto dir at path, the
 * others, on the tree's mounts still, at their paths below it.
 */
int
mntns_attach(struct mntns *tree, struct mntns *ns, struct vnode *dir,
    const char *path)
{
	struct mount *m, *next;
	char *s;

	VK_ASSERT(tree->root != NULL);
	if (tree->nmounts > mount_max - ns->nmounts)
		return -ENOSPC;
	for (m = tree->mounts; m != NULL; m = next) {
		next = m->next;
		ns_remove(tree, m);
		if (m == tree->root) {
			m->parent = vfs_mount_holding(ns, dir, path);
			cover_link(m, dir);
			mount_set_path(m, path);
		} else {
			s = vfs_path_rebase(m->path, 0, path);
			mount_set_path(m, s);
			free(s);
		}
		ns_append(ns, m);
	}
	tree->root = NULL;
	return 0;
}

/*
 * root and what follows it in ns's table, the tree's mounts, which
 * mntns_attach() appended, go back to tree, at their paths there.
 */
void
mntns_unattach(struct mntns *tree, struct mntns *ns, struct mount *root)
{
	size_t n = strcmp(root->path, "/") == 0 ? 0 : strlen(root->path);
	struct mount *m, *next;
	char *s;

	cover_unlink(root);
	root->parent = NULL;
	tree->root = root;
	for (m = root; m != NULL; m = next) {
		next = m->next;
		ns_remove(ns, m);
		s = vfs_path_rebase(m->path, n, m == root ? "" : "/");
		mount_set_path(m, m == root ? "/" : s);
		free(s);
		ns_append(tree, m);
	}
}
