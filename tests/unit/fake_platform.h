/*
 * The unit tests' platform: every plat_* hook of vkern/platform.h, backed
 * by a private anonymous RAM area and by recorders the tests inspect.
 *
 * Each Criterion test runs in a process of its own, so the recorders start
 * empty in every test; fake_reset() empties them again inside one.
 */
#ifndef VK_TESTS_FAKE_PLATFORM_H
#define VK_TESTS_FAKE_PLATFORM_H

#include <stdbool.h>
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

/* plat_random() starts again from its first byte. */
void fake_reseed(void);

/* Forget every recorded call. */
void fake_reset(void);

/* plat_log_write's lines so far, and the first of them kept whole. */
extern unsigned fake_nlog_writes;
extern char fake_log_first[512];
/* Added to every plat_clock_ns reading: a test moves time forward. */
extern int64_t fake_clock_skew_ns;

/*
 * Frozen, the clocks read fake_clock_now_ns (CLOCK_REALTIME adds a fixed
 * date), plus the skew, and move only when a test moves them.
 */
extern bool fake_clock_frozen;
extern int64_t fake_clock_now_ns;
/* What a frozen CLOCK_REALTIME adds: some day in 2023. */
#define FAKE_EPOCH_NS 1700000000000000000LL

/*
 * With fake_console, the host's fds 0-2 are one pipe-like console that
 * takes every write and never has input; without, there are none.
 */
extern bool fake_console;

/* The FPU state of every fake thread: an XSAVE image of x87, SSE, AVX. */
#define FAKE_FPU_SIZE 832

/* A guest thread: the platform's half of a kernel thread (cookie). */
struct plat_thread {
	struct plat_space *sp;
	void *cookie;
	struct arch_context *ctx;   /* the kernel's copy of its registers */
	bool running;               /* let run and not stopped since */
	bool interrupted;           /* to stop (PLAT_EV_STOPPED) */
	struct plat_thread *snext;  /* in its space */
	struct plat_thread *next;   /* in fake_threads */
	uint8_t fpu[FAKE_FPU_SIZE];
};

/* Every thread of every space, newest first. */
extern struct plat_thread *fake_threads;

/*
 * When set, plat_event_wait() asks it for every event but the stops that
 * plat_thread_interrupt() asked for: it plays the guest.  A thread it
 * stops must be running, and it clears running; it fills in the
 * thread's context as the host would (at a syscall, orig_rax, the
 * arguments and rip past the syscall instruction).  Until it is set,
 * threads never run and every wait times out.
 */
extern int (*fake_event_source)(struct plat_event *ev, int64_t deadline_ns);

/* A non-NULL space pointer that the fake space hooks accept. */
struct plat_space *fake_space(void);

/*
 * Kernel memory of class km (kmem.h) charged until none fits, smaller and
 * smaller, so that the next charge is refused; fake_unfill() gives back
 * what fake_fill() returned.
 */
struct fake_block;
struct fake_block *fake_fill(int km);
void fake_unfill(struct fake_block *list, int km);

#endif
