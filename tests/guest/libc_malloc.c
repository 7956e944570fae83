/*
 * Verifies the libc's allocator on top of brk, mmap, munmap and mremap:
 * blocks of sizes from bytes to tens of megabytes hold their own data,
 * calloc memory is zero, realloc keeps contents while growing across the
 * mmap threshold, and memory freed and allocated again is usable.
 */
#include <stdint.h>
#include <stdlib.h>

#include "guest.h"

#define NBLOCKS	300

/* Volatile, so the compiler cannot see the impossible sizes and warn. */
static volatile size_t huge = SIZE_MAX;

/* A byte pattern that differs per block and per offset. */
static unsigned char
pat(size_t block, size_t off)
{
	return (unsigned char)(block * 7 + off / 4096 * 13 + off % 251);
}

static void
fill(unsigned char *p, size_t len, size_t block)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pat(block, i);
}

/* Returns the number of bytes of p that do not hold block's pattern. */
static size_t
count_bad(const unsigned char *p, size_t len, size_t block)
{
	size_t bad = 0;

	for (size_t i = 0; i < len; i++)
		bad += p[i] != pat(block, i);
	return bad;
}

static size_t
block_size(size_t i)
{
	/* Mostly small, every 16th one big enough to be mmapped by glibc. */
	if (i % 16 == 15)
		return 200 * 1024 + i * 1000;
	return 1 + (i * 37) % 3000;
}

static void
test_many_blocks(void)
{
	static unsigned char *blocks[NBLOCKS];
	size_t bad = 0;

	for (size_t i = 0; i < NBLOCKS; i++) {
		blocks[i] = malloc(block_size(i));
		if (!CHECK(blocks[i] != NULL, "malloc(%zu)", block_size(i)))
			return;
		CHECK(((uintptr_t)blocks[i] & 15) == 0, "malloc result %p is "
		    "16-byte aligned", (void *)blocks[i]);
		fill(blocks[i], block_size(i), i);
	}
	for (size_t i = 0; i < NBLOCKS; i++)
		bad += count_bad(blocks[i], block_size(i), i);
	CHECK(bad == 0, "%zu bytes overwritten across %d blocks", bad, NBLOCKS);

	/* Free every third block, allocate others in the holes, check again. */
	for (size_t i = 0; i < NBLOCKS; i += 3) {
		free(blocks[i]);
		blocks[i] = malloc(block_size(i));
		if (!CHECK(blocks[i] != NULL, "malloc after free"))
			return;
		fill(blocks[i], block_size(i), i);
	}
	bad = 0;
	for (size_t i = 0; i < NBLOCKS; i++)
		bad += count_bad(blocks[i], block_size(i), i);
	CHECK(bad == 0, "%zu bytes wrong after reuse", bad);
	for (size_t i = 0; i < NBLOCKS; i++)
		free(blocks[i]);
}

static void
test_calloc(void)
{
	static const size_t sizes[] = { 1, 100, 4096, 100000, 4 << 20 };
	unsigned char *p;
	size_t nonzero;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		/* Dirty the allocator first: reused memory must be cleared. */
		p = malloc(sizes[i]);
		if (p != NULL) {
			memset(p, 0xff, sizes[i]);
			free(p);
		}
		p = calloc(1, sizes[i]);
		if (!CHECK(p != NULL, "calloc(%zu)", sizes[i]))
			continue;
		nonzero = 0;
		for (size_t j = 0; j < sizes[i]; j++)
			nonzero += p[j] != 0;
		CHECK(nonzero == 0, "calloc(%zu) has %zu non-zero bytes",
		    sizes[i], nonzero);
		free(p);
	}
	/* An overflowing count * size must fail, not wrap. */
	errno = 0;
	p = calloc(huge / 2, 4);
	CHECK(p == NULL && errno == ENOMEM, "calloc overflow gives ENOMEM");
	free(p);
}

/* Growing a block step by step, past the mmap threshold, keeps its data. */
static void
test_realloc(void)
{
	unsigned char *p = NULL, *q;
	size_t len = 0, next;

	for (next = 16; next <= (size_t)32 << 20; next *= 2) {
		q = realloc(p, next);
		if (!CHECK(q != NULL, "realloc to %zu", next))
			break;
		p = q;
		CHECK(count_bad(p, len, 5) == 0,
		    "realloc to %zu kept %zu bytes", next, len);
		/* The new tail takes the pattern from offset len on. */
		for (size_t i = len; i < next; i++)
			p[i] = pat(5, i);
		len = next;
	}
	/* And shrinking keeps the head. */
	q = realloc(p, 1000);
	if (CHECK(q != NULL, "realloc shrink")) {
		p = q;
		CHECK(count_bad(p, 1000, 5) == 0, "shrunk block kept its head");
	}
	free(p);

	errno = 0;
	p = malloc(huge - 4096);
	CHECK(p == NULL && errno == ENOMEM, "impossible malloc gives ENOMEM");
}

int
main(void)
{
	test_many_blocks();
	test_calloc();
	test_realloc();
	return guest_done();
}
