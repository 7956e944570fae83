/*
 * File change notification: the hooks the generic VFS calls after a
 * change succeeds, whatever file system made it (inotify.c serves them).
 *
 * Each hook costs a test of vnotify_nwatches while nobody watches.  A
 * file's events go to its own watches and to those of the directory it
 * was last found in: vnotify_seen() remembers, for the files of watched
 * directories, the name they were looked up, created or renamed by.
 * Changes made behind the VFS's back (on the host) are not seen.
 */
#ifndef VK_VFS_VFS_NOTIFY_H
#define VK_VFS_VFS_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

struct file;
struct mount;
struct vnode;

extern unsigned vnotify_nwatches;

void vnotify_event_(struct vnode *vn, uint32_t mask);
void vnotify_seen_(struct vnode *dir, const char *name, struct vnode *vn);
void vnotify_create_(struct vnode *dir, const char *name, struct vnode *vn);
void vnotify_link_(struct vnode *dir, const char *name, struct vnode *vn);
void vnotify_remove_(struct vnode *dir, const char *name, struct vnode *vn,
    bool gone);
void vnotify_rename_(struct vnode *fromdir, const char *from,
    struct vnode *todir, const char *to, struct vnode *vn);
void vnotify_close_(struct file *fp);
void vnotify_unmount_(struct mount *fs);

/* An IN_* event on vn (IN_ACCESS, IN_MODIFY, IN_ATTRIB, IN_OPEN). */
static inline void
vnotify_event(struct vnode *vn, uint32_t mask)
{
	if (vnotify_nwatches > 0 && vn != NULL)
		vnotify_event_(vn, mask);
}

/* Path lookup found vn as name in dir. */
static inline void
vnotify_seen(struct vnode *dir, const char *name, struct vnode *vn)
{
	if (vnotify_nwatches > 0)
		vnotify_seen_(dir, name, vn);
}

/* vn is new as name in dir (made or linked). */
static inline void
vnotify_create(struct vnode *dir, const char *name, struct vnode *vn)
{
	if (vnotify_nwatches > 0)
		vnotify_create_(dir, name, vn);
}

/* vn has a new name in dir: it is new there, and its link count grew. */
static inline void
vnotify_link(struct vnode *dir, const char *name, struct vnode *vn)
{
	if (vnotify_nwatches > 0)
		vnotify_link_(dir, name, vn);
}

/*
 * name, which was vn, left dir (NULL: a rename replaced it); gone: vn has
 * no name left.
 */
static inline void
vnotify_remove(struct vnode *dir, const char *name, struct vnode *vn,
    bool gone)
{
	if (vnotify_nwatches > 0)
		vnotify_remove_(dir, name, vn, gone);
}

/* vn moved from fromdir/from to todir/to. */
static inline void
vnotify_rename(struct vnode *fromdir, const char *from, struct vnode *todir,
    const char *to, struct vnode *vn)
{
	if (vnotify_nwatches > 0)
		vnotify_rename_(fromdir, from, todir, to, vn);
}

/* fp's last reference went: IN_CLOSE_WRITE or IN_CLOSE_NOWRITE. */
static inline void
vnotify_close(struct file *fp)
{
	if (vnotify_nwatches > 0)
		vnotify_close_(fp);
}

/*
 * No mount shows the file system fs (the mount its vnodes name) any
 * more: its files' watches end.
 */
static inline void
vnotify_unmount(struct mount *fs)
{
	if (vnotify_nwatches > 0)
		vnotify_unmount_(fs);
}

/* inotify.c's files, for ioctl(FIONREAD) and /proc/PID/fdinfo. */
struct sbuf;
bool inotify_is_file(const struct file *fp);
int inotify_nread(const struct file *fp);
void inotify_fdinfo(const struct file *fp, struct sbuf *sb);

/* The limits /proc/sys/fs/inotify shows. */
#define INOTIFY_MAX_USER_INSTANCES 128
#define INOTIFY_MAX_USER_WATCHES   8192
#define INOTIFY_MAX_QUEUED_EVENTS  16384

#endif
