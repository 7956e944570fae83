/*
 * Mount propagation (mount_namespaces(7), Linux's sharedsubtree.rst).
 *
 * A shared mount belongs to a peer group, known by its id (mountinfo's
 * shared:N); a slave mount receives from a peer group (master:N); an
 * unbindable one is private and may not be bound.  MS_SHARED gives a
 * mount a new group unless it has one; MS_SLAVE makes a mount with peers
 * the slave of its group (one without peers keeps the master it had);
 * MS_PRIVATE and MS_UNBINDABLE end both.  A bind of a mount and a copy
 * of a namespace are peers of the mount (and slaves of its master), as
 * Linux's clone_mnt() makes them.
 *
 A mount is on a directory in the mount that shows it (vfs_mount.c),
 * so what a mount or unmount below a shared mount must reach are the
 * peers (and slaves) of that mount, in its namespace and the others:
 * each of the same root gets a copy of the new mount on the same
 * directory, itself a peer (or, below a slave, a slave) of the new
 * mount, which becomes shared; an unmount takes away the copies that
 * have nothing mounted on them.  A copy that does not
 * fit in the sandbox's memory fails the mount (ENOMEM) before any copy
 * is mounted, as on Linux.  XXX: peers whose root
 * is another directory of the file system (binds of a subdirectory)
 * receive nothing.
 */
#include <errno.h>
#include <linux/mount.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/vfs/vfs.h"
#include "vkern/vk.h"

/* Whether a mount of any namespace is in group id or receives from it. */
static bool
prop_group_used(int id)
{
	for (struct mntns *ns = mntns_next(NULL); ns != NULL;
	    ns = mntns_next(ns))
		for (struct mount *m = vfs_mounts(ns); m != NULL; m = m->next)
			if (m->group == id || m->master == id)
				return true;
	return false;
}

/* The lowest group id no mount uses, as Linux's ida hands them out. */
static int
prop_group_new(void)
{
	int id = 1;

	while (prop_group_used(id))
		id++;
	return id;
}

/* Whether another mount of any namespace is in mp's peer group. */
static bool
prop_has_peer(const struct mount *mp)
{
	for (struct mntns *ns = mntns_next(NULL); ns != NULL;
	    ns = mntns_next(ns))
		for (struct mount *m = vfs_mounts(ns); m != NULL; m = m->next)
			if (m != mp && m->group == mp->group)
				return true;
	return false;
}

void
vfs_propagation_make(struct mount *m, unsigned long type)
{
	switch (type) {
	case MS_SHARED:
		if (m->group == 0)
			m->group = prop_group_new();
		m->unbindable = false;
		return;
	case MS_SLAVE:
		if (m->group != 0 && prop_has_peer(m))
			m->master = m->group;
		m->group = 0;
		m->unbindable = false;
		return;
	default:
		m->group = 0;
		m->master = 0;
		m->unbindable = type == MS_UNBINDABLE;
	}
}

/*
 * A copy of mp for the namespace of m, which is a peer (peer) or a
 * slave of mp's parent, at the same place below m as mp is below its
 * parent: made, not mounted, on the list *listp, with m for its parent
 * until it is (vfs_mount() finds its own).
 */
static int
prop_copy(struct mount *mp, struct mount *m, bool peer,
    struct mount **listp)
{
	size_t n = strcmp(mp->parent->path, "/") == 0 ? 0 :
	    strlen(mp->parent->path);
	struct mount *d = mount_dup(mp->root->mount, mp->root);
	char *path;

	if (d == NULL)
		return -ENOMEM;
	mount_set_source(d, mp->source);
	d->flags = mp->flags;
	d->group = peer ? mp->group : 0;
	d->master = peer ? mp->master : mp->group;
	path = strcmp(m->path, "/") == 0 ? vfs_path_rebase(mp->path, n, "") :
	    vfs_path_rebase(mp->path, n, m->path);
	mount_set_path(d, path);
	free(path);
	d->parent = m;
	d->next = *listp;
	*listp = d;
	return 0;
}

/* Whether m, not p, gets what is mounted on p: a peer or a slave. */
static bool
prop_receives(const struct mount *m, const struct mount *p)
{
	return m != p && m->root == p->root &&
	    (m->group == p->group || m->master == p->group);
}

/*
 * As Linux's propagate_mnt(), every copy is made before any is mounted,
 * so that one that does not fit fails the mount with nothing to undo in
 * the other places; mp, a bind that joined p's group, gets none.
 */
int
vfs_mount_propagate(struct mount *mp)
{
	struct mount *p = mp->parent, *list = NULL, *d, *next;
	int group = mp->group, r = 0;
	char *path;

	if (p == NULL || p->group == 0)
		return 0;
	if (mp->group == 0)
		mp->group = prop_group_new();
	for (struct mntns *ns = mntns_next(NULL); ns != NULL && r == 0;
	    ns = mntns_next(ns))
		for (struct mount *m = vfs_mounts(ns); m != NULL && r == 0;
		    m = m->next)
			if (m != mp && prop_receives(m, p) &&
			    vfs_mount_on(ns, m, mp->covered) == NULL)
				r = prop_copy(mp, m, m->group == p->group,
				    &list);
	for (d = list; d != NULL; d = next) {
		struct mntns *ns = d->parent->ns;

		next = d->next;
		d->next = NULL;
		d->parent = NULL;
		path = vk_xmalloc(strlen(d->path) + 1);
		strcpy(path, d->path);
		if (r < 0 || vfs_mount(ns, d, mp->covered, path) < 0)
			mount_free(d);
		free(path);
	}
	if (r < 0)
		mp->group = group;
	return r;
}

/* Whether anything in mp's namespace is mounted on mp. */
static bool
prop_has_children(const struct mount *mp)
{
	for (struct mount *m = vfs_mounts(mp->ns); m != NULL; m = m->next)
		if (m->parent == mp)
			return true;
	return false;
}

void
vfs_umount_propagate(struct mount *mp)
{
	struct mount *p = mp->parent, *m;

	if (p == NULL || p->group == 0)
		return;
	for (struct mntns *ns = mntns_next(NULL); ns != NULL;
	    ns = mntns_next(ns))
		for (struct mount *pm = vfs_mounts(ns); pm != NULL;
		    pm = pm->next)
			if (prop_receives(pm, p) &&
			    (m = vfs_mount_on(ns, pm, mp->covered)) != NULL &&
			    m->root == mp->root && !prop_has_children(m))
				vfs_umount(m);
}
