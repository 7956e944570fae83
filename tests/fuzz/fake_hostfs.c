/*
 * hostfs's platform hooks for the fuzz harness: the host directory under
 * the guest's overlay root is one empty, read-only directory, so that the
 * whole tree the guest sees lives in the overlay's tmpfs and nothing a
 * guest does reaches a host file.  Every hook keeps its contract in
 * vkern/platform_hostfs.h as that directory would.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "vkern/platform.h"

struct plat_hostobj {
	int unused;
};

static struct plat_hostobj fake_hostroot;

int
plat_hostdir_open_root(const char *hostpath, struct plat_hostobj **out,
    struct plat_hoststat *st)
{
	*out = &fake_hostroot;
	return plat_hostobj_stat(&fake_hostroot, st);
}

int
plat_hostobj_lookup(struct plat_hostobj *dir, const char *name,
    struct plat_hostobj **out, struct plat_hoststat *st)
{
	return -ENOENT;
}

int
plat_hostobj_open(struct plat_hostobj *obj, struct plat_hostobj *dir,
    const char *name)
{
	return 0;
}

bool
plat_hostobj_opened(const struct plat_hostobj *obj)
{
	return true;
}

int
plat_hostobj_stat(struct plat_hostobj *obj, struct plat_hoststat *st)
{
	*st = (struct plat_hoststat){
		.dev = 0x801, .ino = 2, .mode = S_IFDIR | 0755, .nlink = 2,
		.size = 4096, .blksize = 4096,
	};
	return 0;
}

int
plat_hostobj_statfs(struct plat_hostobj *obj, struct plat_hoststatfs *sf)
{
	*sf = (struct plat_hoststatfs){
		.magic = 0xef53, .bsize = 4096, .blocks = 1024, .files = 1024,
		.namelen = 255,
	};
	return 0;
}

int
plat_hostobj_statat(struct plat_hostobj *dir, const char *name,
    struct plat_hoststat *st)
{
	return -ENOENT;
}

int
plat_hostobj_reopen(struct plat_hostobj *obj, struct plat_hostobj *dir,
    const char *name, int want)
{
	return (want & PLAT_HOST_WRITE) ? -EROFS : 0;
}

long
plat_hostobj_pread(struct plat_hostobj *obj, void *buf, size_t len,
    uint64_t off)
{
	return -EISDIR;
}

long
plat_hostobj_pwrite(struct plat_hostobj *obj, const void *buf, size_t len,
    uint64_t off)
{
	return -EROFS;
}

long
plat_hostobj_pread_ram(struct plat_hostobj *obj, uint64_t ramoff,
    size_t len, uint64_t off)
{
	return -EISDIR;
}

int64_t
plat_hostobj_seek_hole(struct plat_hostobj *obj, uint64_t off, bool data)
{
	return -ENXIO;
}

int
plat_hostobj_readdir(struct plat_hostobj *dir, uint64_t cookie,
    plat_hostdirent_fn fn, void *arg)
{
	return 0;
}

long
plat_hostobj_readlink(struct plat_hostobj *obj, char *buf, size_t size)
{
	return -EINVAL;
}

int
plat_hostobj_create(struct plat_hostobj *dir, const char *name,
    uint32_t mode, const char *target, struct plat_hostobj **out,
    struct plat_hoststat *st)
{
	return -EROFS;
}

int
plat_hostobj_remove(struct plat_hostobj *dir, const char *name, bool rmdir)
{
	return -EROFS;
}

int
plat_hostobj_rename(struct plat_hostobj *fromdir, const char *from,
    struct plat_hostobj *todir, const char *to, unsigned flags)
{
	return -EROFS;
}

int
plat_hostobj_link(struct plat_hostobj *fromdir, const char *from,
    struct plat_hostobj *todir, const char *to)
{
	return -EROFS;
}

int
plat_hostobj_chmod(struct plat_hostobj *obj, uint32_t mode)
{
	return -EROFS;
}

int
plat_hostobj_chown(struct plat_hostobj *obj, uint32_t uid, uint32_t gid)
{
	return -EROFS;
}

int
plat_hostobj_utimens(struct plat_hostobj *obj, unsigned which,
    int64_t atime_ns, int64_t mtime_ns)
{
	return -EROFS;
}

int
plat_hostobj_truncate(struct plat_hostobj *obj, uint64_t size)
{
	return -EROFS;
}

int
plat_hostobj_fallocate(struct plat_hostobj *obj, int mode, uint64_t off,
    uint64_t len)
{
	return -EROFS;
}

int
plat_hostobj_sync(struct plat_hostobj *obj, bool datasync)
{
	return 0;
}

void
plat_hostobj_close(struct plat_hostobj *obj)
{
}
