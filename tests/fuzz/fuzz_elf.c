/*
 * libFuzzer harness of ELF validation (elf_parse): the input is the
 * start of an executable, handed over in a heap block of exactly its
 * size so that AddressSanitizer sees any read past it, and told to be
 * the whole file or the start of a larger one.  What elf_parse accepts
 * must hold what the loader trusts: segments inside the file and the
 * address space, in order, within ELF_MAX_LOADS.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kern/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t filesize = size;
	struct elf_info ei;
	const char *why = NULL;
	uint8_t *buf;

	/* The last byte, when odd, says the file goes on past the input. */
	if (size > 0 && (data[size - 1] & 1))
		filesize += (uint64_t)data[size - 1] << 12;
	if ((buf = malloc(size + (size == 0))) == NULL)
		abort();
	memcpy(buf, data, size);
	if (elf_parse(buf, size, filesize, &ei, &why) == 0) {
		if (ei.nseg == 0 || ei.nseg > ELF_MAX_LOADS || ei.lo > ei.hi)
			abort();
		for (unsigned i = 0; i < ei.nseg; i++) {
			const struct elf_seg *s = &ei.seg[i];

			if (s->filesz > s->memsz || s->off > filesize ||
			    s->filesz > filesize - s->off ||
			    s->vaddr < ei.lo || s->memsz > ei.hi - s->vaddr)
				abort();
		}
	} else if (why == NULL) {
		abort();
	}
	free(buf);
	return 0;
}
