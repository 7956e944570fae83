/*
 * The ELF header of an x86-64 executable that the tests build by hand
 * (the ELF unit tests, the fuzz harnesses' programs): program headers
 * right after it.
 */
#ifndef VK_TESTS_ELF_IMAGE_H
#define VK_TESTS_ELF_IMAGE_H

#include <elf.h>
#include <string.h>

static inline void
elf_image_header(Elf64_Ehdr *eh, uint16_t type, uint64_t entry,
    uint16_t phnum)
{
	memset(eh, 0, sizeof(*eh));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_ident[EI_OSABI] = ELFOSABI_SYSV;
	eh->e_type = type;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = entry;
	eh->e_phoff = sizeof(Elf64_Ehdr);
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = phnum;
}

#endif
