/*
 * Map internals shared by vm_map.c (entries, clipping, merging, fork and
 * copy-on-write) and vm_file.c (file mappings).  Nothing outside
 * vkern/vm/ includes this.
 */
#ifndef VK_VM_MAP_IMPL_H
#define VK_VM_MAP_IMPL_H

#include <stdint.h>

struct vm_map;
struct vm_entry;

/* Index of the first entry whose end is above va (n when none). */
unsigned vm_map_search(const struct vm_map *m, uint64_t va);

/* Split the entry that contains va, if va is inside it, at va. */
void vm_map_clip(struct vm_map *m, uint64_t va);

/*
 * Insert e at i.  Room was asked for, or this is a split an unmap makes
 * on its way to removing entries: that growth is forced, and small.
 */
void vm_map_insert_at(struct vm_map *m, unsigned i,
    const struct vm_entry *e);
void vm_map_delete_at(struct vm_map *m, unsigned i, unsigned count);

/* Merge entries that became alike in and next to [start, end). */
void vm_map_merge_around(struct vm_map *m, uint64_t start, uint64_t end);

/* Mirror e into the map's space, if it has RAM. */
void vm_entry_host_map(struct vm_map *m, const struct vm_entry *e);

/* Give back what an entry holds of RAM: its own, or its share. */
void vm_entry_release(struct vm_entry *e);

/*
 * Take or drop an entry's hold on its file (a private file mapping's):
 * a reference, and a count on the file of the entries that map it.
 */
void vm_entry_vn_ref(const struct vm_entry *e);
void vm_entry_vn_rel(struct vm_entry *e);

/*
 * Let go of the RAM of the private file pages [start, end): they are
 * read from the file again when next touched.  Clips as it must, never
 * refused (callers the guest drives ask for room first).
 */
void vm_map_zap(struct vm_map *m, uint64_t start, uint64_t end);

#endif
