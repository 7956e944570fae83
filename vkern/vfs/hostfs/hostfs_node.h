/*
 * hostfs's vnodes, shared by hostfs.c (the vnode ops and mounts) and
 * hostfs_node.c (the table of live vnodes, their names, descriptors and
 * status: see there).  Private to hostfs.
 */
#ifndef VK_VFS_HOSTFS_NODE_H
#define VK_VFS_HOSTFS_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "vkern/platform.h"

struct mapcache;
struct mount;
struct vnode;

#define HOSTFS_NHASH 256   /* buckets per mount; chains hold live vnodes */

struct hostfs_mount;

struct hostfs_node {
	struct vnode *vn;
	struct hostfs_mount *hm;
	struct plat_hostobj *obj;
	uint64_t dev, ino;            /* the host's, the table's key */
	bool hashed;                  /* in the table */
	uint32_t mode, uid, gid;      /* as last seen */
	struct vnode *parent;         /* referenced; NULL: root, or no name */
	char *name;                   /* its name in parent */
	struct hostfs_node *hnext;    /* hash chain */
	struct mapcache *mc;          /* while mapped shared, or NULL */
	uint64_t names_ver;           /* a directory's, when last asked */
	int64_t names_seen_ns;        /* then, CLOCK_MONOTONIC */
	uint64_t names_gen;           /* and names_changes then */
	struct plat_hoststat st;      /* the status last asked of the host */
	int64_t st_seen_ns;           /* then, CLOCK_MONOTONIC */
	uint64_t st_gen;              /* and hostfs_attr_changes then */
};

struct hostfs_mount {
	struct mount *mp;
	size_t nnodes;                /* live vnodes, the root included */
	struct hostfs_node *hash[HOSTFS_NHASH];
};

/* The vnode ops of every hostfs vnode. */
extern const struct vnode_ops hostfs_vnops;

/*
 * Counts every change the guest makes to host files through hostfs: a
 * read-only mount's status seen before the last one is asked again.
 */
extern uint64_t hostfs_attr_changes;

struct hostfs_node *hostfs_node_find(struct hostfs_mount *hm, uint64_t dev,
    uint64_t ino);
void hostfs_node_unhash(struct hostfs_node *n);
void hostfs_node_set_name(struct hostfs_node *n, struct vnode *dir,
    const char *name);
bool hostfs_node_named(const struct hostfs_node *n, const struct vnode *dir,
    const char *name);
void hostfs_node_saw(struct hostfs_node *n, const struct plat_hoststat *st);
struct vnode *hostfs_node_new(struct hostfs_mount *hm,
    struct plat_hostobj *obj, const struct plat_hoststat *st,
    struct vnode *dir, const char *name);
int hostfs_node_get(struct hostfs_mount *hm, struct plat_hostobj *obj,
    const struct plat_hoststat *st, struct vnode *dir, const char *name,
    struct vnode **vpp);
int hostfs_node_want(struct hostfs_node *n, int want);
int hostfs_node_open(struct hostfs_node *n);
int hostfs_node_host_stat(struct hostfs_node *n, struct plat_hoststat *st);
int hostfs_node_stat(struct hostfs_node *n, struct plat_hoststat *st);
void hostfs_node_keep_open(struct hostfs_node *n);
int hostfs_node_at(struct hostfs_node *dn, const char *name,
    struct hostfs_node **np);
bool hostfs_node_is_ancestor(const struct vnode *a, const struct vnode *d);

#endif
