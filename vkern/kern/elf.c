/*
 * ELF executable validation.
 *
 * Linux's fs/binfmt_elf.c answers every malformed executable with ENOEXEC
 * (or EINVAL, EIO); here it is always ENOEXEC, with a reason for the
 * command line.  Segments are accepted in ascending order without
 * overlapping bytes, as every linker writes them; two segments may share a
 * page, and the later one's protection wins there, as it does when Linux
 * maps them one over the other.
 */
#include <errno.h>
#include <string.h>

#include "arch/x86/arch.h"
#include "vkern/kern/elf.h"
#include "vkern/platform.h"
#include "vkern/vk.h"

static int
elf_fail(const char **whyp, const char *why)
{
	*whyp = why;
	return -ENOEXEC;
}

static int
elf_check_ehdr(const Elf64_Ehdr *eh, size_t len, const char **whyp)
{
	if (len < SELFMAG || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return elf_fail(whyp, "not an ELF file");
	if (len < sizeof(*eh))
		return elf_fail(whyp, "truncated ELF header");
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return elf_fail(whyp, "not a 64-bit ELF file");
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return elf_fail(whyp, "not a little-endian ELF file");
	if (eh->e_ident[EI_VERSION] != EV_CURRENT)
		return elf_fail(whyp, "unknown ELF version");
	if (eh->e_machine != ARCH_ELF_MACHINE)
		return elf_fail(whyp, "ELF file for another machine");
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return elf_fail(whyp, "ELF file is not an executable");
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return elf_fail(whyp, "bad ELF program header size");
	if (eh->e_phnum == 0 ||
	    eh->e_phnum > ELF_MAX_PHDRS_SIZE / sizeof(Elf64_Phdr))
		return elf_fail(whyp, "bad number of ELF program headers");
	return 0;
}

static int
elf_prot(uint32_t pf)
{
	return ((pf & PF_R) ? PLAT_PROT_READ : 0) |
	    ((pf & PF_W) ? PLAT_PROT_WRITE : 0) |
	    ((pf & PF_X) ? PLAT_PROT_EXEC : 0);
}

static int
elf_add_load(struct elf_info *ei, const Elf64_Phdr *ph, uint64_t filesize,
    const char **whyp)
{
	struct elf_seg *s;

	if (ei->nseg == ELF_MAX_LOADS)
		return elf_fail(whyp, "too many ELF segments");
	if (ph->p_filesz > ph->p_memsz)
		return elf_fail(whyp, "ELF segment larger in the file than "
		    "in memory");
	if (ph->p_offset + ph->p_filesz < ph->p_offset ||
	    ph->p_offset + ph->p_filesz > filesize)
		return elf_fail(whyp, "truncated ELF file");
	if (((ph->p_vaddr - ph->p_offset) & VK_PAGE_MASK) != 0)
		return elf_fail(whyp, "misaligned ELF segment");
	if (ph->p_vaddr + ph->p_memsz < ph->p_vaddr ||
	    ph->p_vaddr + ph->p_memsz > ARCH_TASK_SIZE)
		return elf_fail(whyp, "ELF segment beyond the address space");
	if (ei->nseg > 0) {
		const struct elf_seg *prev = &ei->seg[ei->nseg - 1];

		if (ph->p_vaddr < prev->vaddr + prev->memsz)
			return elf_fail(whyp, "overlapping ELF segments");
	}
	s = &ei->seg[ei->nseg++];
	s->vaddr = ph->p_vaddr;
	s->memsz = ph->p_memsz;
	s->off = ph->p_offset;
	s->filesz = ph->p_filesz;
	s->prot = elf_prot(ph->p_flags);
	return 0;
}

int
elf_parse(const void *buf, size_t len, uint64_t filesize,
    struct elf_info *ei, const char **whyp)
{
	const Elf64_Ehdr *eh = buf;
	const Elf64_Phdr *ph;
	uint64_t phend;
	int r;

	memset(ei, 0, sizeof(*ei));
	if ((r = elf_check_ehdr(eh, len, whyp)) < 0)
		return r;
	phend = eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr);
	if (phend < eh->e_phoff || phend > len || phend > filesize)
		return elf_fail(whyp, "truncated ELF program headers");
	if (eh->e_phoff % 8 != 0)
		return elf_fail(whyp, "misaligned ELF program headers");
	ei->type = eh->e_type;
	ei->entry = eh->e_entry;
	ei->phoff = eh->e_phoff;
	ei->phnum = eh->e_phnum;
	ph = (const Elf64_Phdr *)((const char *)buf + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		switch (ph[i].p_type) {
		case PT_LOAD:
			/* Empty in memory: nothing to map, if nothing to copy. */
			if (ph[i].p_memsz == 0 && ph[i].p_filesz == 0)
				break;
			if ((r = elf_add_load(ei, &ph[i], filesize, whyp)) < 0)
				return r;
			break;
		case PT_INTERP:
			if (ph[i].p_filesz < 2 || ph[i].p_filesz > 4096 ||
			    ph[i].p_offset + ph[i].p_filesz < ph[i].p_offset ||
			    ph[i].p_offset + ph[i].p_filesz > filesize)
				return elf_fail(whyp, "bad ELF interpreter path");
			ei->has_interp = 1;
			ei->interp_off = ph[i].p_offset;
			ei->interp_len = ph[i].p_filesz;
			break;
		case PT_PHDR:
			ei->phdr_vaddr = ph[i].p_vaddr;
			break;
		case PT_GNU_STACK:
			ei->stack_exec = (ph[i].p_flags & PF_X) != 0;
			break;
		}
	}
	if (ei->nseg == 0)
		return elf_fail(whyp, "ELF file has nothing to load");
	ei->lo = VK_ROUND_DOWN(ei->seg[0].vaddr, VK_PAGE_SIZE);
	ei->hi = VK_ROUND_UP(ei->seg[ei->nseg - 1].vaddr +
	    ei->seg[ei->nseg - 1].memsz, VK_PAGE_SIZE);
	if (ei->phdr_vaddr == 0) {
		/* No PT_PHDR: the headers are where the file maps them. */
		for (unsigned i = 0; i < ei->nseg; i++) {
			const struct elf_seg *s = &ei->seg[i];

			if (ei->phoff >= s->off && phend <= s->off + s->filesz)
				ei->phdr_vaddr = s->vaddr + (ei->phoff - s->off);
		}
	}
	if (ei->type == ET_EXEC && ei->lo < 0x10000)
		return elf_fail(whyp, "ELF segment below the lowest address");
	if (ei->entry < ei->seg[0].vaddr || ei->entry >= ei->hi)
		return elf_fail(whyp, "ELF entry point outside the program");
	return 0;
}
