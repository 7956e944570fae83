/*
 * The file tree and the mounts under the fuzz harnesses' runs: built at
 * the first run as fuzz_prog.h's FZ_FILES says, and after every run put
 * back by undoing only what that run changed (fz_tree).  So each run
 * starts from the same kernel, and a run gives back to the heap as many
 * blocks as it took: libFuzzer counts a run's mallocs and frees, and
 * runs it again under LeakSanitizer, a scan of the whole heap, whenever
 * they differ.  Had a run left the tree for the next one to rebuild, or
 * its mounts and names in the kernel's caches, nearly every run would
 * have paid for that scan.
 *
 * What a run changed shows in the times: the tree is built, and put back,
 * at the tree's clock (FZ_TREE_TIME), and every change a run makes to a
 * file or to a directory's entries moves a ctime to the run's clock,
 * which is later; a read moves an atime.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz_kern.h"
#include "tests/fuzz/fuzz_prog.h"
#include "tests/unit/elf_image.h"
#include "tests/unit/fake_platform.h"
#include "vkern/kern/proc.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/vfs.h"

#define FZ_TREE_NS (FZ_TREE_TIME + FAKE_EPOCH_NS)

static struct fs_ctx fz_fs;
static struct proc fz_root = { .fs = &fz_fs };

/* The harness cannot build its tree: it is broken, or the kernel is. */
static _Noreturn void
fz_fail(const char *path, const char *what, int r)
{
	fprintf(stderr, "fuzz_kern: cannot %s %s: %s\n", what, path,
	    strerror(-r));
	abort();
}

struct vnode *
fz_make(const char *path, uint32_t mode, const char *target,
    const void *data, size_t len)
{
	struct nameidata nd;
	struct vnode *vn = NULL;
	int r;

	if ((r = vfs_lookup(&fz_root, AT_FDCWD, path, LOOKUP_PARENT, &nd)) < 0)
		fz_fail(path, "look up", r);
	if (nd.vp != NULL && (r = vn_remove(nd.dvp, nd.last,
	    nd.vp->type == VDIR)) < 0)
		fz_fail(path, "remove", r);
	if ((r = vn_create(nd.dvp, nd.last, mode, 0, target, 0, 0, &vn)) < 0)
		fz_fail(path, "create", r);
	nd_release(&nd);
	if (len > 0 && (r = (int)vn->ops->write(vn, data, len, 0)) != (int)len)
		fz_fail(path, "write", r);
	return vn;
}

struct vnode *
fz_find(const char *path)
{
	struct nameidata nd;
	struct vnode *vn;

	if (vfs_lookup(&fz_root, AT_FDCWD, path, 0, &nd) < 0)
		return NULL;
	vn = nd.vp;
	nd.vp = NULL;
	nd_release(&nd);
	return vn;
}

static int
fz_collect(void *arg, const char *name, size_t len, uint64_t ino,
    enum vtype type, uint64_t next)
{
	struct fz_names *nm = arg;

	if ((len == 1 && name[0] == '.') || (len == 2 &&
	    memcmp(name, "..", 2) == 0) || len > 255)
		return 0;
	if (nm->n == nm->cap) {
		nm->cap = nm->cap * 2 + 16;
		nm->name = realloc(nm->name, nm->cap * sizeof(*nm->name));
		if (nm->name == NULL)
			abort();
	}
	memcpy(nm->name[nm->n], name, len);
	nm->name[nm->n++][len] = '\0';
	return 0;
}

void
fz_list(struct vnode *dir, struct fz_names *nm)
{
	*nm = (struct fz_names){ 0 };
	(void)dir->ops->readdir(dir, 0, fz_collect, nm);
}

/* The program every run starts: see fuzz_prog.h for its layout. */
static void
fz_elf(uint8_t *img)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof(*eh));

	elf_image_header(eh, ET_EXEC, FZ_SYSCALL_SITE, 3);
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
	    .p_vaddr = FZ_TEXT, .p_filesz = 4096, .p_memsz = 4096,
	    .p_align = 4096 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_W,
	    .p_vaddr = FZ_SCRATCH, .p_memsz = FZ_SCRATCH_SIZE,
	    .p_align = 4096 };
	ph[2] = (Elf64_Phdr){ .p_type = PT_GNU_STACK,
	    .p_flags = PF_R | PF_W };
	/* syscall; jmp back to it */
	memcpy(img + (FZ_SYSCALL_SITE - FZ_TEXT), "\x0f\x05\xeb\xfc", 4);
}

static const struct {
	const char *path;
	uint32_t mode;
	const char *data;   /* or a symlink's target */
} fz_files[] = { FZ_FILES };

/*
 * The tree's directories and files, held from when they were made: first
 * the two directories the boot made where a run may add files (the
 * overlay's root and the tmpfs on /dev/shm), then FZ_FILES in order.
 */
#define FZ_NDIRS 2
#define FZ_NHELD (FZ_NDIRS + VK_NELEM(fz_files))
static const char *const fz_dirs[FZ_NDIRS] = { "/", "/dev/shm" };
static struct vnode *fz_held[FZ_NHELD];
static struct {
	const char *path, *name;   /* name: the last component */
	int parent;                /* the directory's index in fz_held */
	uint32_t mode, uid, gid;
} fz_node[FZ_NHELD];

/* The mounts the boot made, each mounted again if a run took it off. */
static struct mount *fz_mounts[8];
static char *fz_paths[8];       /* where each was: a run may move it */
static size_t fz_nmounts;

/*
 * Every mount of the boot, the root's too, with what a remount or a
 * change of propagation may change: its own flags, its type, and its
 * file system's read-only.
 */
static struct fz_mode {
	struct mount *mp;
	unsigned long flags;
	int group, master;      /* its propagation */
	bool unbindable, rdonly;
} fz_modes[8];
static size_t fz_nmodes;

static bool
fz_mode_same(const struct fz_mode *m)
{
	return m->mp->flags == m->flags && m->mp->group == m->group &&
	    m->mp->master == m->master &&
	    m->mp->unbindable == m->unbindable &&
	    m->mp->root->mount->rdonly == m->rdonly;
}

const char *
fz_mounts_diff(void)
{
	for (size_t i = 0; i < fz_nmodes; i++)
		if (!fz_mode_same(&fz_modes[i]))
			return fz_modes[i].mp->fstype;
	return NULL;
}

static bool
fz_boot_mount(const struct mount *mp)
{
	for (size_t i = 0; i < fz_nmounts; i++)
		if (fz_mounts[i] == mp)
			return true;
	return false;
}

/* Whether vn's times are all the tree's. */
static bool
fz_untouched(struct vnode *vn)
{
	struct vattr va;

	return vn->ops->getattr(vn, &va) == 0 && va.ctime_ns == FZ_TREE_NS &&
	    va.mtime_ns == FZ_TREE_NS && va.atime_ns == FZ_TREE_NS;
}

/*
 * What the tree's place i holds now, referenced, or NULL: looked up in
 * its directory, which is in its place already when the tree's places are
 * gone through in order.
 */
static struct vnode *
fz_at(size_t i)
{
	struct vnode *dir, *vn;

	if (fz_node[i].parent < 0)
		return fz_find(fz_node[i].path);
	/* A directory to be made again is empty. */
	if ((dir = fz_held[fz_node[i].parent]) == NULL)
		return NULL;
	return dir->ops->lookup(dir, fz_node[i].name, &vn) == 0 ? vn : NULL;
}

/* Whether name in the tree's directory self is still the tree's own. */
static bool
fz_keep(int self, const char *name, const struct vnode *vn)
{
	if (vn->covered_by != NULL)
		return true;
	for (size_t i = FZ_NDIRS; self >= 0 && i < FZ_NHELD; i++)
		if (fz_node[i].parent == self && fz_held[i] == vn &&
		    strcmp(fz_node[i].name, name) == 0)
			return true;
	return false;
}

/*
 * Remove every entry of directory dir, all below each, but mount points
 * and, when dir is the tree's directory self (an index of fz_held; -1:
 * none), the tree's own entries.
 */
static void
fz_clean(struct vnode *dir, int self)
{
	struct fz_names nm;

	fz_list(dir, &nm);
	for (size_t i = 0; i < nm.n; i++) {
		struct vnode *vn;

		if (dir->ops->lookup(dir, nm.name[i], &vn) < 0)
			continue;
		if (!fz_keep(self, nm.name[i], vn)) {
			if (vn->type == VDIR)
				fz_clean(vn, -1);
			(void)vn_remove(dir, nm.name[i], vn->type == VDIR);
		}
		vnode_rel(vn);
	}
	free(nm.name);
}

/*
 * The mounts as the boot left them: a run's own go, the last made first
 * (what a tmpfs of its own held with it), and the boot's own that a run
 * took off are mounted again where they were, their mount points made
 * again if a run removed them.
 */
static void
fz_mounts_reset(void)
{
	/* Writable again first: the tree is put back through them. */
	for (size_t i = 0; i < fz_nmodes; i++) {
		fz_modes[i].mp->flags = fz_modes[i].flags;
		fz_modes[i].mp->group = fz_modes[i].group;
		fz_modes[i].mp->master = fz_modes[i].master;
		fz_modes[i].mp->unbindable = fz_modes[i].unbindable;
		fz_modes[i].mp->root->mount->rdonly = fz_modes[i].rdonly;
	}
	for (;;) {
		struct mount *last = NULL;

		for (struct mount *mp = vfs_mounts(vfs_ns(&fz_root));
		    mp != NULL; mp = mp->next)
			if (mp->covered != NULL && !fz_boot_mount(mp))
				last = mp;
		if (last == NULL)
			break;
		if (last->root->mount == last &&
		    strcmp(last->fstype, "tmpfs") == 0)
			fz_clean(last->root, -1);
		vfs_umount(last);
	}
	/* The boot's own that a run moved (MS_MOVE) come off, last first. */
	for (;;) {
		struct mount *last = NULL;

		for (size_t i = 0; i < fz_nmounts; i++)
			if (fz_mounts[i]->covered != NULL &&
			    strcmp(fz_mounts[i]->path, fz_paths[i]) != 0)
				last = fz_mounts[i];
		if (last == NULL)
			break;
		vfs_umount(last);
	}
	for (size_t i = 0; i < fz_nmounts; i++) {
		struct mount *mp = fz_mounts[i];
		struct nameidata nd;
		struct vnode *dir;
		int r;

		if (mp->covered != NULL)
			continue;
		if (strcmp(mp->path, fz_paths[i]) != 0)
			mount_set_path(mp, fz_paths[i]);
		if ((r = vfs_lookup(&fz_root, AT_FDCWD, mp->path,
		    LOOKUP_PARENT, &nd)) < 0)
			fz_fail(mp->path, "look up", r);
		if ((dir = nd.vp) != NULL)
			nd.vp = NULL;
		else if ((r = vn_create(nd.dvp, nd.last, S_IFDIR | 0755, 0,
		    NULL, 0, 0, &dir)) < 0)
			fz_fail(mp->path, "make", r);
		nd_release(&nd);
		if ((r = vfs_mount_again(mp, dir)) < 0)
			fz_fail(mp->path, "mount again", r);
		vnode_rel(dir);
	}
	/* Private again, as the boot made them. */
	for (size_t i = 0; i < fz_nmounts; i++)
		vfs_mount_set_propagation(fz_mounts[i], MS_PRIVATE, false);
}

/* Make the tree's node i again, in place of whatever is there. */
static void
fz_remake(size_t i)
{
	static uint8_t elf[4096];
	const char *d = fz_files[i - FZ_NDIRS].data;
	uint32_t m = fz_node[i].mode;
	bool lnk = (m & S_IFMT) == S_IFLNK;
	struct vnode *vn = fz_at(i);

	if (elf[0] == 0)
		fz_elf(elf);
	/* fz_make removes an empty directory in the way, not a full one. */
	if (vn != NULL) {
		if (vn->type == VDIR && vn->covered_by == NULL)
			fz_clean(vn, -1);
		vnode_rel(vn);
	}
	if (fz_held[i] != NULL)
		vnode_rel(fz_held[i]);
	if (d == NULL && (m & S_IFMT) == S_IFREG)
		fz_held[i] = fz_make(fz_node[i].path, m, NULL, elf,
		    sizeof(elf));
	else
		fz_held[i] = fz_make(fz_node[i].path, m, lnk ? d : NULL,
		    lnk ? NULL : d, d != NULL && !lnk ? strlen(d) : 0);
}

/*
 * Put the tree back: each directory a run changed loses what the run
 * added and gets its attributes back; each file a run changed or
 * removed, and each directory it removed, is made again (parents come
 * before their entries in fz_held), once all the run left is gone, so
 * that it finds the room it had.  all: as if everything had changed.
 */
static void
fz_restore(bool all)
{
	for (size_t i = 0; i < FZ_NHELD; i++) {
		struct vnode *vn = fz_at(i);
		bool same = vn != NULL && vn == fz_held[i];
		struct vattr va;

		if (vn != NULL)
			vnode_rel(vn);
		/* Read, not changed: the atime goes back. */
		if (same && !all && vn->ops->getattr(vn, &va) == 0 &&
		    va.ctime_ns == FZ_TREE_NS && va.mtime_ns == FZ_TREE_NS) {
			va.atime_ns = FZ_TREE_NS;
			(void)vn->ops->setattr(vn, &va, VA_ATIME);
			continue;
		}
		if (same && vn->type == VDIR) {
			struct vattr want = { .mode = fz_node[i].mode,
			    .uid = fz_node[i].uid, .gid = fz_node[i].gid,
			    .atime_ns = FZ_TREE_NS, .mtime_ns = FZ_TREE_NS };

			fz_clean(vn, (int)i);
			(void)vn->ops->setattr(vn, &want, VA_MODE | VA_UID |
			    VA_GID | VA_ATIME | VA_MTIME);
			continue;
		}
		if (same)
			(void)vn_remove(fz_held[fz_node[i].parent],
			    fz_node[i].name, false);
		if (fz_held[i] != NULL)
			vnode_rel(fz_held[i]);
		fz_held[i] = NULL;
	}
	for (size_t i = 0; i < FZ_NHELD; i++)
		if (fz_held[i] == NULL)
			fz_remake(i);
}

/*
 * Whether the run changed nothing of the tree, but for the atimes of what
 * it read, which go back.  The times tell: a file renamed or removed, or
 * one put in the place of the tree's, changed a directory of the tree.
 */
static bool
fz_settled(void)
{
	bool settled = true;

	for (size_t i = 0; i < FZ_NHELD; i++) {
		struct vnode *vn = fz_held[i];
		struct vattr va;

		if (vn->ops->getattr(vn, &va) < 0 ||
		    va.ctime_ns != FZ_TREE_NS || va.mtime_ns != FZ_TREE_NS) {
			settled = false;
		} else if (va.atime_ns != FZ_TREE_NS) {
			va.atime_ns = FZ_TREE_NS;
			(void)vn->ops->setattr(vn, &va, VA_ATIME);
		}
	}
	return settled;
}

/* Whether the tree is as built, each place looked up. */
static bool
fz_intact(void)
{
	for (size_t i = 0; i < FZ_NHELD; i++) {
		struct vnode *vn = fz_at(i);

		if (vn != NULL)
			vnode_rel(vn);
		if (vn != fz_held[i] || !fz_untouched(vn))
			return false;
	}
	return true;
}

void
fz_tree(void)
{
	fake_clock_now_ns = FZ_TREE_TIME;
	fz_mounts_reset();
	if (!fz_settled()) {
		fz_restore(false);
		/* What that failed to undo: all goes, all is made again. */
		if (!fz_intact())
			fz_restore(true);
		if (!fz_intact())
			fz_fail("/", "put back", -EEXIST);
	}
	/* Lookups fill the name cache: a run starts with it empty. */
	ncache_flush();
	fz_state_reset();
}

void
fz_tree_boot(void)
{
	struct vattr va;

	for (struct mount *mp = vfs_mounts(vfs_ns(&fz_root)); mp != NULL;
	    mp = mp->next) {
		if (mp->covered != NULL && fz_nmounts < VK_NELEM(fz_mounts)) {
			/* Unmounted by a run, it stays to be put back. */
			mp->kept = true;
			fz_paths[fz_nmounts] = strdup(mp->path);
			fz_mounts[fz_nmounts++] = mp;
		}
		if (fz_nmodes < VK_NELEM(fz_modes))
			fz_modes[fz_nmodes++] = (struct fz_mode){ .mp = mp,
			    .flags = mp->flags, .group = mp->group,
			    .master = mp->master, .unbindable = mp->unbindable,
			    .rdonly = mp->root->mount->rdonly };
	}
	fz_fs.root = fz_fs.cwd = vfs_root();
	fz_fs.cwd_path = (char *)"/";
	for (size_t i = 0; i < FZ_NHELD; i++) {
		const char *p = i < FZ_NDIRS ? fz_dirs[i] :
		    fz_files[i - FZ_NDIRS].path;
		size_t plen = (size_t)(strrchr(p, '/') - p);

		fz_node[i].path = p;
		fz_node[i].name = p + plen + 1;
		fz_node[i].parent = -1;
		for (size_t j = 0; j < i; j++)
			if (plen == 0 ? j == 0 : strncmp(fz_node[j].path, p,
			    plen) == 0 && fz_node[j].path[plen] == '\0')
				fz_node[i].parent = (int)j;
		if (i >= FZ_NDIRS) {
			fz_node[i].mode = fz_files[i - FZ_NDIRS].mode;
			continue;
		}
		/* The boot's directories: held, their attributes kept. */
		if ((fz_held[i] = fz_find(p)) == NULL ||
		    fz_held[i]->ops->getattr(fz_held[i], &va) < 0)
			fz_fail(p, "look up", -ENOENT);
		fz_node[i].mode = va.mode;
		fz_node[i].uid = va.uid;
		fz_node[i].gid = va.gid;
	}
	/* The first tree: all the root had from the boot goes. */
	fake_clock_now_ns = FZ_TREE_TIME;
	fz_restore(true);
	ncache_flush();
}

/*
 * Whether a mount made after mp, on its mount point or on a directory
 * above it, hides it from lookups by its path.
 */
static bool
fz_hidden(const struct mount *mp)
{
	for (const struct mount *m = mp->next; m != NULL; m = m->next) {
		size_t n = strlen(m->path);

		if (m->covered != NULL && strncmp(mp->path, m->path, n) == 0 &&
		    (mp->path[n] == '\0' || mp->path[n] == '/' || n == 1))
			return true;
	}
	return false;
}

/*
 * Every mount of the first namespace that no later one hides is found
 * where its path says (a guest's move takes the path along).
 */
void
fz_check_mounts(void)
{
	for (struct mount *mp = vfs_mounts(vfs_ns(&fz_root)); mp != NULL;
	    mp = mp->next) {
		struct nameidata nd;
		int r;

		if (mp->covered == NULL || fz_hidden(mp))
			continue;
		if ((r = vfs_lookup(&fz_root, AT_FDCWD, mp->path, 0, &nd)) < 0)
			fz_fail(mp->path, "find the mount on", r);
		if (nd.vp != mp->root)
			fz_fail(mp->path, "find the mount on", -EBUSY);
		nd_release(&nd);
	}
}
