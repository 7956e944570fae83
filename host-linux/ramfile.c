/*
 * The RAM file: a memfd that holds all guest memory.
 *
 * It is sparse: its size is the guest's offset space (larger than --mem,
 * see vm_ram.c) plus a control page for each stub there may be at once
 * (as many as --pids allows processes), and only pages that are touched
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
static bool *slot_used;
static unsigned nslot, slot_next;

int
ram_init(uint64_t guest_space, unsigned nslots, struct vk_error **err)
{
	uint64_t ctl_size = (uint64_t)nslots * VK_PAGE_SIZE;
	cleanup_close int fd = -1;
	void *p;

	fd = memfd_create("vkernel-ram", MFD_CLOEXEC);
	if (fd < 0)
		return vk_error_make(err, errno, "create the RAM file");
	if (ftruncate(fd, (off_t)(guest_space + ctl_size)) < 0)
		return vk_error_make(err, errno, "size the RAM file to %lu "
		    "bytes", (unsigned long)(guest_space + ctl_size));
	p = mmap(NULL, guest_space + ctl_size, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (p == MAP_FAILED)
		return vk_error_make(err, errno, "map the RAM file");
	rambase = p;
	ramspace = guest_space;
	slot_used = vk_xcalloc(nslots, sizeof(*slot_used));
	nslot = nslots;
	ramfd = steal_fd(&fd);
	return 0;
}

/* Next fit: a scan goes on from the last slot taken. */
int
ram_ctl_alloc(void)
{
	for (unsigned n = 0; n < nslot; n++) {
		unsigned i = (slot_next + n) % nslot;

		if (!slot_used[i]) {
			slot_used[i] = true;
			slot_next = (i + 1) % nslot;
			return (int)i;
		}
	}
	return -EAGAIN;
}

void
ram_ctl_free(unsigned slot)
{
	uint64_t off;

	VK_ASSERT(slot < nslot && slot_used[slot]);
	(void)ram_ctl_page(slot, &off);
	plat_ram_discard(off, VK_PAGE_SIZE);
	slot_used[slot] = false;
}

int
ram_fd(void)
{
	return ramfd;
}

void *
ram_ctl_page(unsigned slot, uint64_t *offp)
{
	VK_ASSERT(slot < nslot);
	*offp = ramspace + (uint64_t)slot * VK_PAGE_SIZE;
	return (char *)rambase + *offp;
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
