/*
 * Charged kernel memory (kmem.h).
 *
 * The charge of an object models glibc's malloc: a chunk of the size plus
 * an 8-byte header, in 16-byte steps and 32 bytes at least, or whole pages
 * for a large one (which malloc maps on its own).  The charge only has to
 * bound the heap, not match it, and fragmentation is left to the fixed
 * slack the host allows the kernel beyond --mem.
 *
 * What malloc keeps of freed objects is given back to the host once the
 * charge has come down a few MiB from its peak (kmem_trim): else a guest
 * that filled the heap with small objects, freed them and then made a
 * large one would hold the heap's pages and the new block at once.
 */
#include <stdlib.h>
#include <string.h>

#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vk.h"
#include "vkern/vm/vm_ram.h"

#define KMEM_LARGE      (128 * 1024)
#define KMEM_TRIM_SLACK (4 * 1024 * 1024)

static uint64_t charged[2];     /* [0] processes' objects, [1] KM_FS */
static uint64_t mark;
static uint64_t peak;           /* of the total, since the last trim */

static unsigned
kmem_class(int flags)
{
	return (flags & KM_FS) != 0;
}

size_t
kmem_size(size_t n)
{
	if (n >= KMEM_LARGE)
		return VK_ROUND_UP(n + 16, VK_PAGE_SIZE);
	return VK_MAX(VK_ROUND_UP(n + 8, 16), 32);
}

static int
kmem_charge(size_t n, int flags)
{
	if ((flags & KM_FORCE) != 0)
		vm_ram_charge_force(n);
	else if (vm_ram_charge(n) < 0)
		return -1;
	charged[kmem_class(flags)] += n;
	peak = VK_MAX(peak, charged[0] + charged[1]);
	return 0;
}

static void
kmem_uncharge(size_t n, int flags)
{
	VK_ASSERT(n <= charged[kmem_class(flags)]);
	charged[kmem_class(flags)] -= n;
	vm_ram_uncharge(n);
}

void *
kmem_alloc(size_t n, int flags)
{
	void *p;

	if (kmem_charge(kmem_size(n), flags) < 0)
		return NULL;
	p = (flags & KM_ZERO) != 0 ? vk_xcalloc(1, VK_MAX(n, 1)) :
	    vk_xmalloc(VK_MAX(n, 1));
	return p;
}

/*
 * A block that grows is charged whole until the old one is gone: realloc
 * may hold both while it copies.
 */
void *
kmem_realloc(void *p, size_t oldn, size_t newn, int flags)
{
	size_t olds = p != NULL ? kmem_size(oldn) : 0, news = kmem_size(newn);

	if (news <= olds)
		kmem_uncharge(olds - news, flags);
	else if (kmem_charge(news, flags) < 0)
		return NULL;
	p = vk_xrealloc(p, VK_MAX(newn, 1));
	if (news > olds)
		kmem_uncharge(olds, flags);
	if ((flags & KM_ZERO) != 0 && newn > oldn)
		memset((char *)p + oldn, 0, newn - oldn);
	return p;
}

void
kmem_free(void *p, size_t n, int flags)
{
	if (p == NULL)
		return;
	kmem_uncharge(kmem_size(n), flags);
	free(p);
}

char *
kmem_strdup(const char *s, int flags)
{
	size_t n = strlen(s) + 1;
	char *c = kmem_alloc(n, flags & ~KM_ZERO);

	return c != NULL ? memcpy(c, s, n) : NULL;
}

void
kmem_strfree(char *s, int flags)
{
	if (s != NULL)
		kmem_free(s, strlen(s) + 1, flags);
}

void
kmem_trim(void)
{
	uint64_t total = charged[0] + charged[1];

	if (peak - total < KMEM_TRIM_SLACK)
		return;
	plat_heap_trim();
	peak = total;
}

uint64_t
kmem_charged(int flags)
{
	return charged[kmem_class(flags)];
}

void
kmem_mark(void)
{
	mark = charged[0];
}

void
kmem_check(void)
{
	if (charged[0] == mark)
		return;
	vk_log("kernel memory charge not returned: %lld bytes",
	    (long long)(charged[0] - mark));
#ifdef VK_TEST_HOOKS
	VK_ASSERT(charged[0] == mark);
#endif
}
