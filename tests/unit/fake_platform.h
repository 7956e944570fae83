/*
 * The unit tests' platform: every plat_* hook of vkern/platform.h, backed
 * by a private anonymous RAM area and by recorders the tests inspect.
 *
 * Each Criterion test runs in a process of its own, so the recorders start
 * empty in every test; fake_reset() empties them again inside one.
 */
#ifndef VK_TESTS_FAKE_PLATFORM_H
#define VK_TESTS_FAKE_PLATFORM_H

#include <stdint.h>

#include "vkern/platform.h"

/* Size of the fake RAM file: sparse, so only touched pages cost memory. */
#define FAKE_RAM_SIZE (1ULL << 30)

/* The most calls of each kind a recorder keeps; later ones are counted. */
#define FAKE_MAX_CALLS 256

enum fake_space_op {
	FAKE_MAP,
	FAKE_UNMAP,
	FAKE_PROTECT,
};

struct fake_space_call {
	enum fake_space_op op;
	struct plat_space *sp;
	uint64_t va, len;
	int prot;          /* MAP and PROTECT */
	uint64_t ramoff;   /* MAP */
};

struct fake_discard {
	uint64_t off, len;
};

struct fake_ram_write {
	uint64_t off, len;
};

/* plat_space_map/unmap/protect, in call order. */
extern struct fake_space_call fake_space_calls[FAKE_MAX_CALLS];
extern unsigned fake_space_ncalls;

/* plat_ram_discard, in call order. */
extern struct fake_discard fake_discards[FAKE_MAX_CALLS];
extern unsigned fake_ndiscards;

/* plat_ram_write, in call order. */
extern struct fake_ram_write fake_ram_writes[FAKE_MAX_CALLS];
extern unsigned fake_nram_writes;

/* Forget every recorded call. */
void fake_reset(void);

/* plat_log_write's lines so far, and the first of them kept whole. */
extern unsigned fake_nlog_writes;
extern char fake_log_first[512];
/* Added to every plat_clock_ns reading: a test moves time forward. */
extern int64_t fake_clock_skew_ns;

/* A non-NULL space pointer that the fake space hooks accept. */
struct plat_space *fake_space(void);

#endif
