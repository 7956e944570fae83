/*
 * Unit tests of map caches (vkern/vfs/vfs_mapcache.c), over a file that
 * lives in a plain buffer here: pages read from the file at first use,
 * stores written back only as far as the file's end and only when a
 * mapping could write, the file's reads and writes kept coherent with
 * the cache, truncation, growth, reloading, and all RAM given back when
 * the last mapping goes; and files as large as an off_t, of which the
 * cache holds only the pages reached.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tests/unit/fake_platform.h"
#include "vkern/platform.h"
#include "vkern/vfs/mapcache.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/vm_ram.h"

#define PG 4096ULL
#define FILE_MAX (8 * PG)

/* Beyond FILE_MAX the file is a hole, and writes there are only noted. */
static struct {
	char data[FILE_MAX];
	uint64_t size;
	int preads, pwrites;
	int fail_reads;       /* this many preads fail with -EIO */
	uint64_t far_off;     /* the last write beyond FILE_MAX */
	size_t far_len;       /* its length */
	char far_byte;        /* its last byte */
} file;

static struct vnode vn;
static struct mapcache *mc;

static long
f_pread(struct vnode *v, void *buf, size_t len, uint64_t off)
{
	cr_assert_eq(v, &vn);
	file.preads++;
	if (file.fail_reads > 0) {
		file.fail_reads--;
		return -EIO;
	}
	if (off >= file.size)
		return 0;
	len = len < file.size - off ? len : file.size - off;
	if (off >= FILE_MAX)
		memset(buf, 0, len);
	else
		memcpy(buf, file.data + off, len);
	return (long)len;
}

static long
f_pwrite(struct vnode *v, const void *buf, size_t len, uint64_t off)
{
	cr_assert_eq(v, &vn);
	file.pwrites++;
	if (off >= FILE_MAX) {
		file.far_off = off;
		file.far_len = len;
		file.far_byte = ((const char *)buf)[len - 1];
		return (long)len;
	}
	cr_assert_leq(off + len, FILE_MAX);
	/* As a file system does, a write past the end leaves a hole. */
	if (off > file.size)
		memset(file.data + file.size, 0, off - file.size);
	memcpy(file.data + off, buf, len);
	if (off + len > file.size)
		file.size = off + len;
	return (long)len;
}

static int
f_size(struct vnode *v, uint64_t *sizep)
{
	*sizep = file.size;
	return 0;
}

static const struct mapcache_io io = { f_pread, f_pwrite, f_size };

static void
setup(void)
{
	vm_ram_init(1024 * PG, 64 * PG);
	memset(&file, 0, sizeof(file));
	for (uint64_t i = 0; i < FILE_MAX; i++)
		file.data[i] = (char)('a' + i % 26);
	file.size = 2 * PG + 100;
	mc = NULL;
}

/* The cached page idx, through getpage. */
static char *
page(uint64_t idx)
{
	uint64_t ram;

	cr_assert_eq(mapcache_getpage(mc, idx, &ram), 0);
	return (char *)plat_ram_base() + ram;
}

TestSuite(mapcache, .init = setup);

Test(mapcache, getpage_reads_the_file_once_and_zeroes_past_its_end)
{
	uint64_t ram;
	int n;

	mapcache_pin(&mc, &vn, &io, true, true);
	cr_assert_eq(page(0)[5], 'a' + 5);
	cr_assert_eq(page(2)[99], 'a' + (2 * PG + 99) % 26);
	cr_assert_eq(page(2)[100], 0, "past the end of the file reads zero");
	n = file.preads;
	cr_assert_eq(page(0)[6], 'a' + 6);
	cr_assert_eq(page(2)[0], 'a' + (2 * PG) % 26);
	cr_assert_eq(file.preads, n, "each page is read from the file once");
	cr_assert_eq(mapcache_getpage(mc, 3, &ram), -ENXIO);
	mapcache_pin(&mc, &vn, &io, false, true);
	cr_assert_null(mc);
	cr_assert_eq(vm_ram_used(), 0);
}

Test(mapcache, flush_writes_stores_back_as_far_as_the_end)
{
	mapcache_pin(&mc, &vn, &io, true, true);
	page(0)[1] = 'X';
	page(2)[50] = 'Y';
	page(2)[200] = 'Z';
	cr_assert_eq(mapcache_flush(mc), 0);
	cr_assert_eq(file.data[1], 'X');
	cr_assert_eq(file.data[2 * PG + 50], 'Y');
	cr_assert_eq(file.size, 2 * PG + 100, "write-back grew the file");
	cr_assert_eq(file.pwrites, 2, "only the pages read are written");
	mapcache_pin(&mc, &vn, &io, false, true);
}

Test(mapcache, last_unpin_writes_back_and_frees)
{
	mapcache_pin(&mc, &vn, &io, true, true);
	mapcache_pin(&mc, &vn, &io, true, false);
	page(1)[7] = 'Q';
	mapcache_pin(&mc, &vn, &io, false, false);
	cr_assert_not_null(mc);
	cr_assert_eq(file.data[PG + 7], 'a' + (PG + 7) % 26);
	mapcache_pin(&mc, &vn, &io, false, true);
	cr_assert_null(mc);
	cr_assert_eq(file.data[PG + 7], 'Q');
	cr_assert_eq(vm_ram_used(), 0);
}

Test(mapcache, read_only_mappings_write_nothing_back)
{
	mapcache_pin(&mc, &vn, &io, true, false);
	(void)page(0);
	cr_assert_eq(mapcache_flush(mc), 0);
	mapcache_pin(&mc, &vn, &io, false, false);
	cr_assert_eq(file.pwrites, 0);
}

Test(mapcache, reads_see_the_cache_and_writes_reach_it)
{
	char buf[16];

	mapcache_pin(&mc, &vn, &io, true, true);
	page(1)[0] = 'M';
	cr_assert_eq(f_pread(&vn, buf, 4, PG - 2), 4);
	mapcache_read(mc, buf, 4, PG - 2);
	cr_assert_eq(buf[2], 'M', "read sees the mapping's store");
	cr_assert_eq(buf[1], 'a' + (PG - 1) % 26, "page 0 is not cached");
	cr_assert_eq(f_pwrite(&vn, "WW", 2, PG + 9), 2);
	mapcache_wrote(mc, "WW", 2, PG + 9);
	cr_assert_eq(page(1)[9], 'W', "the mapping sees write");
	cr_assert_eq(page(1)[0], 'M', "write keeps the rest of the page");
	mapcache_pin(&mc, &vn, &io, false, true);
	cr_assert_eq(file.data[PG], 'M');
}

Test(mapcache, truncation_zeroes_and_growth_is_seen)
{
	uint64_t ram;

	mapcache_pin(&mc, &vn, &io, true, true);
	page(1)[100] = 'T';
	file.size = PG + 50;
	mapcache_resize(mc, PG + 50);
	cr_assert_eq(page(1)[49], 'a' + (PG + 49) % 26);
	cr_assert_eq(page(1)[100], 0, "truncation zeroes past the end");
	cr_assert_eq(mapcache_getpage(mc, 2, &ram), -ENXIO);
	/* The file grows behind the cache: a fault past the end sees it. */
	file.size = 4 * PG;
	memset(file.data + 3 * PG, 'g', PG);
	cr_assert_eq(page(3)[0], 'g');
	mapcache_pin(&mc, &vn, &io, false, true);
	cr_assert_eq(vm_ram_used(), 0);
}

Test(mapcache, a_write_past_the_end_grows_the_cache)
{
	mapcache_pin(&mc, &vn, &io, true, true);
	(void)page(2);
	cr_assert_eq(f_pwrite(&vn, "E", 1, 3 * PG + 1), 1);
	mapcache_wrote(mc, "E", 1, 3 * PG + 1);
	cr_assert_eq(page(3)[1], 'E');
	cr_assert_eq(page(3)[0], 0, "the hole before the write reads zero");
	cr_assert_eq(page(2)[100], file.data[2 * PG + 100]);
	mapcache_pin(&mc, &vn, &io, false, true);
}

Test(mapcache, reload_reads_the_cached_pages_again)
{
	mapcache_pin(&mc, &vn, &io, true, true);
	(void)page(0);
	memset(file.data, 0, PG);
	cr_assert_eq(mapcache_reload(mc), 0);
	cr_assert_eq(page(0)[3], 0);
	mapcache_pin(&mc, &vn, &io, false, true);
}

Test(mapcache, a_file_as_large_as_an_off_t_caches_only_the_pages_reached)
{
	uint64_t last = (uint64_t)INT64_MAX / PG;

	file.size = INT64_MAX;
	mapcache_pin(&mc, &vn, &io, true, true);
	cr_assert_eq(page(last)[PG - 2], 0);
	page(last)[PG - 2] = 'L';
	page(0)[0] = 'F';
	cr_assert_eq(vm_ram_used(), 2 * PG, "two pages cached, no more");
	cr_assert_eq(mapcache_flush(mc), 0);
	cr_assert_eq(file.pwrites, 2, "only the pages reached are written");
	cr_assert_eq(file.far_off, last * PG);
	cr_assert_eq(file.far_len, PG - 1, "written up to INT64_MAX");
	cr_assert_eq(file.far_byte, 'L');
	page(last - 1)[PG - 1] = 'M';
	cr_assert_eq(mapcache_flush(mc), 0);
	cr_assert_eq(file.pwrites, 5, "three pages cached, three written");
	file.size = 2 * PG;
	mapcache_resize(mc, 2 * PG);
	cr_assert_eq(page(0)[0], 'F');
	mapcache_pin(&mc, &vn, &io, false, true);
	cr_assert_null(mc);
	cr_assert_eq(vm_ram_used(), 0);
}

Test(mapcache, a_failed_read_leaves_the_page_uncached)
{
	uint64_t ram;

	mapcache_pin(&mc, &vn, &io, true, true);
	file.fail_reads = 1;
	cr_assert_eq(mapcache_getpage(mc, 1, &ram), -EIO);
	cr_assert_eq(vm_ram_used(), 0, "the page went back");
	cr_assert_eq(mapcache_flush(mc), 0);
	cr_assert_eq(file.pwrites, 0, "an unread page is never written");
	cr_assert_eq(page(1)[3], 'a' + (PG + 3) % 26, "read again");
	mapcache_pin(&mc, &vn, &io, false, true);
}
