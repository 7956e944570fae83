/*
 * A guest process's virtual memory map.
 *
 * A map is a sorted array of entries: [start, end) ranges with one
 * protection each, backed by an extent of the RAM file (or by nothing yet,
 * for PROT_NONE reservations and for private file pages not read yet).
 * Lookup is a binary search; entries are
 * clipped when a call changes part of one and merged again when neighbours
 * become alike.  Each entry owns its RAM range outright.
 *
 * The map is the truth.  Every change is mirrored into the process's
 * platform space (when it has one): one host mapping per changed range, so
 * that the host serves the page faults inside it.  Processes made with
 * CLONE_VM use one map and one space; refs counts them.
 */
#ifndef VK_VM_MAP_H
#define VK_VM_MAP_H

#include <stdbool.h>
#include <stdint.h>

struct plat_space;

/* Entry flags. */
#define VME_RESERVED 0x1   /* the platform's (vdso): the guest may not touch */
#define VME_STACK    0x2   /* the initial stack */
#define VME_HEAP     0x4   /* made by brk */
#define VME_COW      0x8   /* shares RAM after fork: copy before writing */
#define VME_SHARED   0x10  /* MAP_SHARED: stays shared across fork */
#define VME_NOWRITE  0x20  /* shared, never writable: a read-only fd, a seal */
#define VME_LOCKED   0x40  /* mlock: counts against RLIMIT_MEMLOCK */

/*
 * RAM shared by entries after fork: an extent freed when the last entry
 * that maps any of it goes.  refs counts those entries.
 */
struct vm_obj {
	int refs;
	uint64_t ramoff, len;
	struct vnode *vn;     /* a MAP_SHARED file: its pages are the file's */
	bool maywrite;        /* vn's mapping is or may become writable */
	/*
	 * Told of each map that starts (+1) or stops (-1) holding the
	 * object: SysV shared memory counts its attaches so (vm_map_watch).
	 * A watched object is one map's: fork gives the child its own.
	 */
	void (*watch)(void *arg, int delta);
	void *watch_arg;
	struct vm_obj *fork_copy;   /* the child's, during vm_map_fork */
};

struct vm_entry {
	uint64_t start, end;
	uint64_t ramoff;   /* RAM file offset of start, or VM_NORAM */
	int prot;          /* PLAT_PROT_* */
	unsigned flags;
	struct vm_obj *obj;   /* NULL: the entry owns its RAM outright */
	uint64_t foff;        /* file offset of start, for file mappings */
	/*
	 * A private file mapping's file (referenced), which its pages
	 * without RAM are read from when first touched (vm_file.c).
	 */
	struct vnode *vn;
};

struct vm_map {
	struct vm_entry *ent;
	unsigned n, cap;
	uint64_t min, max;     /* the guest may use [min, max) */
	uint64_t mmap_base;    /* top-down placement starts below this */
	uint64_t brk_start, brk_cur;
	struct plat_space *space;
	int refs;              /* processes sharing it (CLONE_VM) */
	/*
	 * mlockall(MCL_FUTURE): the mappings made from now on are locked,
	 * and filled at once unless lock_onfault (MCL_ONFAULT).  Neither
	 * fork nor exec passes it on.
	 */
	bool lock_future, lock_onfault;
};

/*
 * Whether [start, start + len) lies below m->max, the top of the guest's
 * address space (Linux's TASK_SIZE; the platform's own pages lie above
 * it), without wrapping.  Every call that takes a range from the guest
 * asks this before the range reaches the map, so that none ever reaches
 * the platform's pages.  The caller answers with the errno Linux gives
 * for addresses above TASK_SIZE in that call.
 */
bool vm_map_range_user(const struct vm_map *m, uint64_t start,
    uint64_t len);

/* An empty map, with one user. */
void vm_map_init(struct vm_map *m, struct plat_space *sp, uint64_t min,
    uint64_t max);

/* Free every entry's RAM.  The space, if any, is the caller's to destroy. */
void vm_map_destroy(struct vm_map *m);

/* The entry that contains va, or NULL. */
struct vm_entry *vm_map_lookup(struct vm_map *m, uint64_t va);

/* True when no entry intersects [start, end). */
bool vm_map_range_free(const struct vm_map *m, uint64_t start, uint64_t end);

/* True when [start, end) is covered by entries without a gap. */
bool vm_map_range_mapped(const struct vm_map *m, uint64_t start,
    uint64_t end);

/* True when an entry with any of flags intersects [start, end). */
bool vm_map_range_has(const struct vm_map *m, uint64_t start, uint64_t end,
    unsigned flags);

/* Drop a reference to obj; the last one frees its RAM. */
void vm_obj_rel(struct vm_obj *obj);

/*
 * Map [start, start + len) to obj's RAM from off, copy-on-write: reads
 * see obj, the first write to a page gives the mapping its own copy.
 * The pages are those of the file vn from offset off (NULL: of none),
 * which the mapping reads again when they are let go of.
 */
int vm_map_obj_cow(struct vm_map *m, uint64_t start, uint64_t len, int prot,
    struct vm_obj *obj, uint64_t off, struct vnode *vn);

/*
 * The page cache (vm_pcache.c): map [va, va + len) privately to the
 * pages of vn from foff, shared with every other such mapping, and the
 * pages wholly past the end of the file as vm_map_file_private() maps
 * them (SIGBUS until the file grows).  -ENOTSUP for
 * a file it does not cache, or a range that starts past its end; the
 * caller then copies.
 */
int vm_pcache_map(struct vm_map *m, uint64_t va, uint64_t len, int prot,
    struct vnode *vn, uint64_t foff);
/* Drop the caches no mapping uses; true if that freed any RAM. */
bool vm_pcache_reclaim(void);

/*
 * Whether an entry of prot and flags is data in RLIMIT_DATA's sense
 * (Linux's is_data_mapping()): private, writable, and not the stack.
 */
bool vm_map_is_data(int prot, unsigned flags);

/*
 * The guest's memory in [start, end): every mapped byte, which
 * RLIMIT_AS bounds, the bytes of data entries, which RLIMIT_DATA bounds,
 * of private ones that would be data if writable, and the locked ones,
 * which RLIMIT_MEMLOCK bounds.  The platform's reserved entries count in
 * none.
 */
struct vm_usage {
	uint64_t total, data, priv, locked;
};
void vm_map_usage(const struct vm_map *m, uint64_t start, uint64_t end,
    struct vm_usage *u);

/* Give the entries in [start, end) flags too, or take them away. */
void vm_map_add_flags(struct vm_map *m, uint64_t start, uint64_t end,
    unsigned flags);
void vm_map_clear_flags(struct vm_map *m, uint64_t start, uint64_t end,
    unsigned flags);

/*
 * Find a free range of len bytes inside [lo, hi), as high as possible.
 * Returns 0 with *vap set, or -ENOMEM.
 */
int vm_map_find_space(const struct vm_map *m, uint64_t len, uint64_t lo,
    uint64_t hi, uint64_t *vap);

/*
 * Map fresh zeroed memory at [start, start + len), which must be free.
 * RAM is allocated unless prot is PROT_NONE.  Returns 0 or -ENOMEM.
 */
int vm_map_anon(struct vm_map *m, uint64_t start, uint64_t len, int prot,
    unsigned flags);

/*
 * Overcommit (vm_anon.c): anonymous private memory charged against
 * --mem when first touched rather than when mapped.  Mappings of at most
 * VM_EAGER_MAX bytes are charged whole at once, so that the host serves
 * their faults; larger ones, and MAP_NORESERVE ones (noreserve), are
 * charged when touched unless vm.overcommit_memory is 2.
 */
#define VM_EAGER_MAX (2ULL << 20)
bool vm_anon_lazy(uint64_t len, unsigned flags, bool noreserve);

/* As vm_map_anon, charged when touched: no RAM yet, whatever prot. */
int vm_map_anon_lazy(struct vm_map *m, uint64_t start, uint64_t len,
    int prot, unsigned flags);

/*
 * Whether e is anonymous private memory not yet touched that its access
 * charges (vm_map_anon_fill), rather than a hole or a file's page.
 */
bool vm_entry_untouched(const struct vm_entry *e);

/*
 * The first touch of va in such memory: give it, and the pages around
 * it, zeroed RAM.  Returns 0, or -ENOMEM when --mem has no room.
 */
int vm_map_anon_fill(struct vm_map *m, uint64_t va);

/*
 * vm_fault.c: run fill (a way of giving va's page RAM: vm_map_cow,
 * vm_map_anon_fill, vm_map_file_fill, vm_map_file_fault) until --mem has
 * room for it, the OOM killer ending other processes to make some.
 * Returns fill's result, or -EINTR when the killer picked a process that
 * maps m, which has SIGKILL pending: the access is not to be made.
 */
int vm_fill_oom(struct vm_map *m, uint64_t va,
    int (*fill)(struct vm_map *, uint64_t));

/* Enter an entry for a range the platform owns (no RAM, never mapped). */
int vm_map_reserve(struct vm_map *m, uint64_t start, uint64_t end);

/*
 * Room for k more entries (each split makes one), charged to the sandbox:
 * 0, or -ENOMEM.
 */
int vm_map_room(struct vm_map *m, uint64_t k);

/* The splits a change to [start, end) makes: an entry each end cuts. */
unsigned vm_map_splits(const struct vm_map *m, uint64_t start, uint64_t end);

/*
 * Unmap [start, end), freeing its RAM.  Holes are fine.  A split in the
 * middle of an entry is never refused: callers that the guest drives ask
 * for room for vm_map_splits() first.
 */
void vm_map_remove(struct vm_map *m, uint64_t start, uint64_t end);

/*
 * Set the protection of [start, end), which must be mapped throughout.
 * Returns 0, -ENOMEM (a hole, or no RAM for newly accessible memory).
 */
int vm_map_protect(struct vm_map *m, uint64_t start, uint64_t end, int prot);

/*
 * Discard the contents of [start, end): it reads zero afterwards.  Stops
 * at the platform's pages (the vdso's vvar, which Linux cannot discard)
 * with -EINVAL, the memory below them discarded and that above them
 * untouched, as Linux's walk does; -ENOMEM when no RAM is left for the
 * fresh pages of memory shared copy-on-write; else 0.
 */
int vm_map_discard(struct vm_map *m, uint64_t start, uint64_t end);

/*
 * Whether b continues a as one mapping would, as Linux's vma: next to
 * it, alike but for how its pages are held (RAM of its own, shared
 * copy-on-write, none yet).
 */
bool vm_entry_continues(const struct vm_entry *a, const struct vm_entry *b);

/* Whether [start, end) lies within one mapping, in that sense. */
bool vm_map_range_one(const struct vm_map *m, uint64_t start, uint64_t end);

/*
 * The most mappings a process may have: Linux's default vm.max_map_count
 * (shown in /proc/sys/vm).  Past it, the calls that would make more give
 * Linux's -ENOMEM: mmap beyond it, and a cut in two (mprotect, munmap,
 * mlock) at it.  What is counted is entries, which are at least as many
 * as Linux's mappings (a mapping is more than one where its pages are
 * held differently): each costs the kernel memory and a search, and the
 * stub a host mapping, which the host's own limit bounds, and the
 * stub's own mappings (PLAT_SPACE_OWN_MAPS) count there too.
 */
#define VM_MAX_MAP_COUNT 65530

/* Whether m has more than k mappings, its stub's own counted. */
bool vm_map_count_above(const struct vm_map *m, unsigned k);

/*
 * Whether a change to [start, end) keeps within the limit: each entry
 * it cuts in two, at either end, makes one more, and each cut is refused
 * at the limit (Linux's split_vma()).  An entry the change leaves as it
 * is, same(entry, arg), is not cut.
 */
bool vm_map_may_cut(struct vm_map *m, uint64_t start, uint64_t end,
    bool (*same)(const struct vm_entry *, int), int arg);

/* Whether [start, end) lies strictly inside one entry (munmap's hole). */
bool vm_map_hole(struct vm_map *m, uint64_t start, uint64_t end);

/*
 * Move or resize the one mapping (vm_map_range_one()) holding [old, old +
 * oldlen) to [new, new + newlen), which must be free except for the old
 * range itself.  Contents are kept.  Returns 0 or -ENOMEM.
 */
int vm_map_move(struct vm_map *m, uint64_t old, uint64_t oldlen,
    uint64_t newva, uint64_t newlen);

/*
 * Host pointer to the RAM behind va, and how many bytes from there on are
 * contiguous in the same entry (at most len).  need is the protection the
 * access needs (0 for the kernel's own access).  Returns 0 or -EFAULT.
 */
int vm_map_hostptr(struct vm_map *m, uint64_t va, uint64_t len, int need,
    void **hpp, uint64_t *np);

/*
 * Read the file vn from off into guest memory [va, va + len) of m, which
 * must be mapped, until the end of the file.  Returns the bytes read, or
 * -EFAULT or the file's -errno when nothing could be read.
 */
long vm_map_read_file(struct vm_map *m, struct vnode *vn, uint64_t va,
    uint64_t len, uint64_t off);

/*
 * Map [start, start + len) shared onto the file vn (one with a getpage
 * op) from offset off (page aligned): the file's own pages, so writes
 * show in read() and in every other mapping.  Pages past the end of the
 * file are mapped to nothing and raise SIGBUS.  maywrite: the mapping may be or become
 * writable (else the caller marks it VME_NOWRITE).  Returns 0 or -ENOMEM.
 */
int vm_map_file_shared(struct vm_map *m, uint64_t start, uint64_t len,
    int prot, struct vnode *vn, uint64_t off, bool maywrite);

/*
 * As vm_map_file_shared() from offset 0, but with no page mapped yet:
 * one entry, whose pages each fault maps (vm_map_file_fault()), so that
 * a large sparse file costs what is touched of it (SysV shared memory).
 */
int vm_map_file_shared_lazy(struct vm_map *m, uint64_t start, uint64_t len,
    int prot, struct vnode *vn, bool maywrite);

/*
 * Watch the object of the shared file mapping at va, just made by
 * vm_map_file_shared() or vm_map_file_shared_lazy(): fn(arg, +1) now,
 * and again whenever fork copies it into another map; fn(arg, -1) when
 * a map lets go of its last page of it (munmap, exec, exit).  fn must
 * not change any map.
 */
void vm_map_watch(struct vm_map *m, uint64_t va, void (*fn)(void *, int),
    void *arg);

/*
 * fork copied the entry e, of a watched object, into the child's map:
 * give it the child's own object, made at the first such entry.
 * vm_obj_fork_done() forgets those copies once the fork is over.
 */
void vm_obj_fork_watched(struct vm_entry *e);
void vm_obj_fork_done(struct vm_map *src);

/*
 * A fault in a shared file mapping's page that had no RAM: map the file's
 * page if the file has grown to it.  Returns 0, -ENXIO (SIGBUS), or
 * -ENOMEM.
 */
int vm_map_file_fault(struct vm_map *m, uint64_t va);

/*
 * Map [start, start + len), which must be free, privately onto the file
 * vn from foff (vm_file.c): a copy of the file's pages, read now (or,
 * for PROT_NONE, when first touched).  Pages wholly past the end of the
 * file have no RAM and raise SIGBUS until the file grows over them.
 * Returns 0, -ENOMEM, or the file's -errno.
 */
int vm_map_file_private(struct vm_map *m, uint64_t start, uint64_t len,
    int prot, struct vnode *vn, uint64_t foff);

/*
 * The access to va in a private file page without RAM: read it, and the
 * pages around it, from the file.  Returns 0, -ENXIO when the page lies
 * wholly past the end of the file (SIGBUS), or -ENOMEM.
 */
int vm_map_file_fill(struct vm_map *m, uint64_t va);

/*
 * The file system changed vn's size to size (truncate(2), ftruncate(2),
 * O_TRUNC): every process's private mappings of vn let go of their pages
 * wholly past the new end, their own copies included, to read them from
 * the file when next touched, as Linux's truncation unmaps them.
 */
void vm_file_truncated(struct vnode *vn, uint64_t size);

/* Mirror every entry into a fresh platform space (after exec). */
void vm_map_attach(struct vm_map *m, struct plat_space *sp);

/*
 * Drop from sp the host mappings of every entry of m but the platform's:
 * m's own space at exec, or a stub forked from it.
 */
void vm_map_unmap_host(const struct vm_map *m, struct plat_space *sp);

/*
 * Give every page of [start, end) the RAM a touch would (Linux's
 * populate of a locked range): untouched anonymous memory, private file
 * pages not read yet, shared file pages not mapped yet.  PROT_NONE and
 * the platform's entries are left, and pages past a file's end.  It
 * stops where RAM runs out, killing nothing: those pages fill when
 * touched.  The caller flushes the space.
 */
void vm_map_populate(struct vm_map *m, uint64_t start, uint64_t end);

/*
 * fork: make dst (empty, with no space yet) a copy-on-write copy of src.
 * src's writable private memory is write-protected on its host side; the
 * first write to a page by either side copies that page.  Around the
 * addresses hot[0, nhot), which both sides write at once (the forking
 * thread's stack and TLS), and for small writable memory up to a bound,
 * dst gets its copy now instead and src's stays writable, sparing each
 * side a fault.  nhot is 0 when another thread may write src meanwhile:
 * then nothing is copied.  Returns 0, or -ENOMEM (and changes nothing
 * the guest sees) when dst's entries do not fit.
 */
int vm_map_fork(struct vm_map *src, struct vm_map *dst, const uint64_t *hot,
    unsigned nhot);

/*
 * Give dst, just made by vm_map_fork(), the space sp forked from src's
 * (whose host mappings it starts with), and map the copies fork made
 * into it.
 */
void vm_map_fork_attach(struct vm_map *dst, struct plat_space *sp);

/*
 * Give the page at va, and those around it in its entry, a private copy
 * (the write fault of copy-on-write).  Returns 0, or -ENOMEM.
 */
int vm_map_cow(struct vm_map *m, uint64_t va);

#endif
