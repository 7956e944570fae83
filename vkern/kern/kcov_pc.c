/*
 * The call -fsanitize-coverage=trace-pc puts in every basic block of
 * vkern/ (kcov.h).  This file is built without that flag: the callback
 * must not call itself.  Runs for every block, so it does no more than
 * Linux's __sanitizer_cov_trace_pc(): word 0 of the area counts, the PC
 * goes after it while there is room, and a count the guest wrote cannot
 * take it out of the area.
 */
#include <stddef.h>
#include <stdint.h>

#include "vkern/kern/kcov.h"

/* The start of the executable's image: PCs are offsets from it. */
extern char __executable_start[];

void __sanitizer_cov_trace_pc(void);

#define KCOV_WORD(kc, i) \
	((kc)->pages[(i) / KCOV_WORDS_PER_PAGE][(i) % KCOV_WORDS_PER_PAGE])

void
__sanitizer_cov_trace_pc(void)
{
	struct kcov *kc = kcov_active;
	uint64_t pos;

	if (kc == NULL)
		return;
	pos = KCOV_WORD(kc, 0) + 1;
	if (pos < kc->size) {
		KCOV_WORD(kc, pos) = (uintptr_t)__builtin_return_address(0) -
		    (uintptr_t)__executable_start;
		KCOV_WORD(kc, 0) = pos;
	}
}
