/*
 * The RAM file: a memfd that holds all guest memory.
 *
 * It is sparse: its size is the guest's offset space (larger than --mem,
 * see vm_ram.c) plus a control page for each stub there may be at once
 * (as many as --pids allows processes) and the systrap platform's thread
 * areas, and only pages that are touched
 * take host memory.  The kernel maps it whole; each stub
 * maps the ranges its guest owns.  Freed ranges are punched out, so the
 * host gets the memory back and a reused range reads zero.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host-linux/cleanup.h"
#include "host-linux/host.h"
#include "vkern/platform.h"
#include "vkern/vk.h"

static int ramfd = -1;
static void *rambase;
static uint64_t ramspace;
/*
 * Slots of the file past the guest's space, all of one size: control
 * pages, and the systrap platform's thread areas.
 */
struct ram_pool {
	bool *used;
	unsigned n, next;
	uint64_t base, size;
};
static struct ram_pool ctl_pool, area_pool;

static void
pool_init(struct ram_pool *p, uint64_t base, unsigned n, uint64_t size)
{
	p->used = vk_xcalloc(VK_MAX(n, 1), sizeof(*p->used));
	p->n = n;
	p->base = base;
	p->size = size;
}

/* Next fit: a scan goes on from the last slot taken. */
static int
pool_alloc(struct ram_pool *p)
{
	for (unsigned n = 0; n < p->n; n++) {
		unsigned i = (p->next + n) % p->n;

		if (!p->used[i]) {
			p->used[i] = true;
			p->next = (i + 1) % p->n;
			return (int)i;
		}
	}
	return -EAGAIN;
}

static void *
pool_page(const struct ram_pool *p, unsigned slot, uint64_t *offp)
{
	VK_ASSERT(slot < p->n);
	*offp = p->base + (uint64_t)slot * p->size;
	return (char *)rambase + *offp;
}

/* Give slot back, zeroed for its next user. */
static void
pool_free(struct ram_pool *p, unsigned slot)
{
	uint64_t off;

	VK_ASSERT(slot < p->n && p->used[slot]);
	(void)pool_page(p, slot, &off);
	plat_ram_discard(off, p->size);
	p->used[slot] = false;
}

int
ram_init(uint64_t guest_space, unsigned nslots, unsigned nareas,
    struct vk_error **err)
{
	uint64_t ctl_size = (uint64_t)nslots * VK_PAGE_SIZE;
	uint64_t size = guest_space + ctl_size + (uint64_t)nareas *
	    RAM_AREA_SIZE;
	cleanup_close int fd = -1;
	void *p;

	fd = memfd_create("vkernel-ram", MFD_CLOEXEC);
	if (fd < 0)
		return vk_error_make(err, errno, "create the RAM file");
	if (ftruncate(fd, (off_t)size) < 0)
		return vk_error_make(err, errno, "size the RAM file to %lu "
		    "bytes", (unsigned long)size);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (p == MAP_FAILED)
		return vk_error_make(err, errno, "map the RAM file");
	rambase = p;
	ramspace = guest_space;
	pool_init(&ctl_pool, guest_space, nslots, VK_PAGE_SIZE);
	pool_init(&area_pool, guest_space + ctl_size, nareas, RAM_AREA_SIZE);
	ramfd = steal_fd(&fd);
	return 0;
}

int
ram_ctl_alloc(void)
{
	return pool_alloc(&ctl_pool);
}

void
ram_ctl_free(unsigned slot)
{
	pool_free(&ctl_pool, slot);
}

void *
ram_ctl_page(unsigned slot, uint64_t *offp)
{
	return pool_page(&ctl_pool, slot, offp);
}

int
ram_area_alloc(void)
{
	return pool_alloc(&area_pool);
}

void
ram_area_free(unsigned slot)
{
	pool_free(&area_pool, slot);
}

void *
ram_area(unsigned slot, uint64_t *offp)
{
	return pool_page(&area_pool, slot, offp);
}

int
ram_fd(void)
{
	return ramfd;
}

void *
plat_ram_base(void)
{
	return rambase;
}

uint64_t
plat_ram_size(void)
{
	return ramspace;
}

void
plat_ram_discard(uint64_t off, uint64_t len)
{
	/* Only a vkernel bug can make this fail: the range is ours. */
	if (fallocate(ramfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
	    (off_t)off, (off_t)len) < 0) {
		vk_log("discard RAM [%#lx, +%#lx): errno %d",
		    (unsigned long)off, (unsigned long)len, errno);
		plat_abort();
	}
}

void
plat_heap_trim(void)
{
	(void)malloc_trim(0);
}

/*
 * A write(2) to the memfd, not a memcpy through the mapping: shmem then
 * allocates each missing page without clearing it and without a page
 * fault into the kernel's mapping, as a native write to tmpfs does.
 * Measured on a 2-CPU VM, 64 MiB in 64 KiB pieces into a memfd, holes
 * punched after: memcpy 40 ms, MADV_POPULATE_WRITE then memcpy 31 ms,
 * pwrite 21 ms.
 */
void
plat_ram_write(uint64_t off, const void *src, size_t len)
{
	const char *p = src;

	while (len > 0) {
		ssize_t n = pwrite(ramfd, p, len, (off_t)off);

		/*
		 * The range is ours and src is mapped: only a host out of
		 * memory fails here, where a memcpy would die of SIGBUS.
		 */
		if (n <= 0) {
			vk_log("write RAM [%#lx, +%#lx): errno %d",
			    (unsigned long)off, (unsigned long)len,
			    n < 0 ? errno : 0);
			plat_abort();
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
}
