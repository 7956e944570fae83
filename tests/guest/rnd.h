/*
 * rnd.h - the random-call programs' generator: xorshift64 from a fixed
 * seed, so a run can be repeated, which a program may set before its
 * first call (RND_SEED before the include, or rnd_state from argv).
 */
#ifndef GUEST_RND_H
#define GUEST_RND_H

#include <stddef.h>
#include <stdint.h>

#ifndef RND_SEED
#define RND_SEED 88172645463325252ULL
#endif

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t rnd_state = RND_SEED;

static inline uint64_t
rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* One of the n values at v. */
static inline uint64_t
pick(const uint64_t *v, size_t n)
{
	return v[rnd() % n];
}

/*
 * A buffer for a call: good (at its start or len / 2 in), NULL, an
 * unmapped address, the read-only page ro, or straddling ro's start.
 */
static inline void *
rnd_buf(char *good, size_t len, char *ro)
{
	switch (rnd() % 6) {
	case 0:
		return NULL;
	case 1:
		return (void *)(uintptr_t)8;
	case 2:
		return ro;
	case 3:
		return ro - 16;
	default:
		return good + (rnd() % 2 ? 0 : len / 2);
	}
}

#endif
