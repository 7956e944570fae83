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

#endif
