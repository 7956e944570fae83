/*
 * Checking an ELF executable before anything of it is loaded.
 *
 * elf_parse() validates the header and program headers of a 64-bit
 * little-endian x86-64 executable and computes the page layout of its
 * PT_LOAD segments.  Every way a file can be malformed is answered here,
 * so the loader can trust what it gets.
 */
#ifndef VK_KERN_ELF_H
#define VK_KERN_ELF_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_MAX_LOADS 16
#define ELF_MAX_PHDRS_SIZE 65536	/* as Linux's load_elf_phdrs() */

struct elf_seg {
	uint64_t vaddr, memsz;     /* unbiased, from the program header */
	uint64_t off, filesz;
	int prot;                  /* PLAT_PROT_* */
};

struct elf_info {
	int type;                  /* ET_EXEC or ET_DYN */
	uint64_t entry;            /* unbiased */
	uint64_t phoff;
	unsigned phnum;
	uint64_t phdr_vaddr;       /* where the headers are in memory, unbiased */
	unsigned nseg;
	struct elf_seg seg[ELF_MAX_LOADS];
	uint64_t lo, hi;           /* page range of all segments, unbiased */
	int has_interp;
	uint64_t interp_off, interp_len;   /* PT_INTERP's path in the file */
	int stack_exec;
};

/*
 * Parse the file's first len bytes (enough for the headers: the caller
 * reads ELF_HEADER_READ bytes or the whole file if smaller) of a file of
 * filesize bytes.  Returns 0, or -ENOEXEC with *whyp saying what is wrong.
 */
int elf_parse(const void *buf, size_t len, uint64_t filesize,
    struct elf_info *ei, const char **whyp);

#define ELF_HEADER_READ (sizeof(Elf64_Ehdr) + ELF_MAX_PHDRS_SIZE)

#endif
