/*
 * Unit tests of ELF validation (vkern/kern/elf.c) on images built here: a
 * static ET_EXEC and a static-pie ET_DYN must parse into the right layout,
 * and each way of breaking one must be answered with -ENOEXEC and a
 * reason.  Every image is handed over in a heap block of exactly len
 * bytes, so that AddressSanitizer catches a read past what was given.
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/elf_image.h"
#include "tests/unit/fake_platform.h"
#include "vkern/kern/elf.h"

#define IMGSZ 0x3000
#define TASK_TOP 0x7ffffffff000ULL

#define R PLAT_PROT_READ
#define W PLAT_PROT_WRITE
#define X PLAT_PROT_EXEC

/* An ELF file under construction: its bytes, and the sizes to report. */
struct img {
	union {
		uint8_t b[IMGSZ];
		Elf64_Ehdr eh;
	} u;
	size_t len;          /* bytes handed to elf_parse */
	uint64_t filesize;   /* the file's size as elf_parse is told */
};

static struct img im;
static struct elf_info ei;
static const char *why;

static Elf64_Phdr *
ph(unsigned i)
{
	cr_assert_lt(64 + (i + 1) * sizeof(Elf64_Phdr), sizeof(im.u.b));
	return (Elf64_Phdr *)(im.u.b + 64 + i * sizeof(Elf64_Phdr));
}

static void
set_ph(unsigned i, uint32_t type, uint32_t flags, uint64_t off,
    uint64_t vaddr, uint64_t filesz, uint64_t memsz)
{
	*ph(i) = (Elf64_Phdr){
		.p_type = type, .p_flags = flags, .p_offset = off,
		.p_vaddr = vaddr, .p_paddr = vaddr, .p_filesz = filesz,
		.p_memsz = memsz, .p_align = 0x1000,
	};
}

static void
img_header(uint16_t type, uint64_t entry, uint16_t phnum)
{
	memset(&im, 0, sizeof(im));
	elf_image_header(&im.u.eh, type, entry, phnum);
}

/*
 * A static executable: text [0x400000, 0x401000) from offset 0 (which
 * holds the headers too), data [0x401000, 0x403000) with 0x800 bytes
 * from the file, and a non-executable stack.
 */
static void
img_exec(void)
{
	img_header(ET_EXEC, 0x400100, 4);
	set_ph(0, PT_LOAD, PF_R | PF_X, 0, 0x400000, 0x1000, 0x1000);
	set_ph(1, PT_LOAD, PF_R | PF_W, 0x1000, 0x401000, 0x800, 0x2000);
	set_ph(2, PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0);
	set_ph(3, PT_NOTE, PF_R, 0x300, 0x400300, 0x20, 0x20);
	im.len = im.filesize = 0x1800;
}

/* A static-pie: linked at 0, with PT_PHDR and an executable stack. */
static void
img_dyn(void)
{
	img_header(ET_DYN, 0x200, 4);
	set_ph(0, PT_PHDR, PF_R, 64, 64, 4 * sizeof(Elf64_Phdr),
	    4 * sizeof(Elf64_Phdr));
	set_ph(1, PT_LOAD, PF_R | PF_X, 0, 0, 0x1000, 0x1000);
	set_ph(2, PT_LOAD, PF_R | PF_W, 0x1000, 0x2000, 0x800, 0x1800);
	set_ph(3, PT_GNU_STACK, PF_R | PF_W | PF_X, 0, 0, 0, 0);
	im.len = im.filesize = 0x1800;
}

/* Parse im from a heap copy of exactly im.len bytes. */
static int
parse(void)
{
	void *copy = malloc(im.len > 0 ? im.len : 1);
	int r;

	cr_assert_not_null(copy);
	cr_assert_leq(im.len, sizeof(im.u.b));
	memcpy(copy, im.u.b, im.len);
	why = NULL;
	r = elf_parse(copy, im.len, im.filesize, &ei, &why);
	free(copy);
	return r;
}

static void
check_seg(unsigned i, uint64_t vaddr, uint64_t memsz, uint64_t off,
    uint64_t filesz, int prot)
{
	cr_assert_lt(i, ei.nseg);
	cr_assert_eq(ei.seg[i].vaddr, vaddr, "seg %u vaddr", i);
	cr_assert_eq(ei.seg[i].memsz, memsz, "seg %u memsz", i);
	cr_assert_eq(ei.seg[i].off, off, "seg %u off", i);
	cr_assert_eq(ei.seg[i].filesz, filesz, "seg %u filesz", i);
	cr_assert_eq(ei.seg[i].prot, prot, "seg %u prot", i);
}

/* --- valid files --- */

Test(elf, parse_static_exec_succeeds)
{
	img_exec();
	cr_assert_eq(parse(), 0, "rejected: %s", why ? why : "?");
	cr_assert_eq(ei.type, ET_EXEC);
	cr_assert_eq(ei.entry, 0x400100);
	cr_assert_eq(ei.phoff, 64);
	cr_assert_eq(ei.phnum, 4);
	cr_assert_eq(ei.nseg, 2);
	check_seg(0, 0x400000, 0x1000, 0, 0x1000, R | X);
	check_seg(1, 0x401000, 0x2000, 0x1000, 0x800, R | W);
	cr_assert_eq(ei.lo, 0x400000);
	cr_assert_eq(ei.hi, 0x403000);
	/* No PT_PHDR: found where the first segment maps offset 64. */
	cr_assert_eq(ei.phdr_vaddr, 0x400040);
	cr_assert_eq(ei.has_interp, 0);
	cr_assert_eq(ei.stack_exec, 0);
}

Test(elf, parse_static_pie_succeeds)
{
	img_dyn();
	cr_assert_eq(parse(), 0, "rejected: %s", why ? why : "?");
	cr_assert_eq(ei.type, ET_DYN);
	cr_assert_eq(ei.entry, 0x200);
	cr_assert_eq(ei.nseg, 2);
	check_seg(0, 0, 0x1000, 0, 0x1000, R | X);
	check_seg(1, 0x2000, 0x1800, 0x1000, 0x800, R | W);
	cr_assert_eq(ei.lo, 0);
	cr_assert_eq(ei.hi, 0x4000);
	cr_assert_eq(ei.phdr_vaddr, 64);
	cr_assert_eq(ei.stack_exec, 1);
	cr_assert_eq(ei.has_interp, 0);
}

Test(elf, parse_interp_sets_has_interp)
{
	img_dyn();
	set_ph(3, PT_INTERP, PF_R, 0x400, 0x400, 28, 28);
	cr_assert_eq(parse(), 0, "rejected: %s", why ? why : "?");
	cr_assert_eq(ei.has_interp, 1);
	cr_assert_eq(ei.stack_exec, 0);
}

Test(elf, parse_empty_load_is_skipped)
{
	img_header(ET_EXEC, 0x400100, 3);
	set_ph(0, PT_LOAD, PF_R | PF_X, 0, 0x400000, 0x1000, 0x1000);
	set_ph(1, PT_LOAD, PF_R, 0, 0x300000, 0, 0);
	set_ph(2, PT_LOAD, PF_R | PF_W, 0x1000, 0x401000, 0x800, 0x2000);
	im.len = im.filesize = 0x1800;
	cr_assert_eq(parse(), 0, "rejected: %s", why ? why : "?");
	cr_assert_eq(ei.nseg, 2);
	check_seg(1, 0x401000, 0x2000, 0x1000, 0x800, R | W);
}

Test(elf, parse_segments_sharing_a_page_succeed)
{
	/* As linkers write them: data starts in text's last page. */
	img_header(ET_EXEC, 0x400100, 2);
	set_ph(0, PT_LOAD, PF_R | PF_X, 0, 0x400000, 0x900, 0x900);
	set_ph(1, PT_LOAD, PF_R | PF_W, 0x900, 0x400900, 0x100, 0x1000);
	im.len = im.filesize = 0xa00;
	cr_assert_eq(parse(), 0, "rejected: %s", why ? why : "?");
	cr_assert_eq(ei.nseg, 2);
	cr_assert_eq(ei.lo, 0x400000);
	cr_assert_eq(ei.hi, 0x402000);
}

Test(elf, parse_segment_ending_at_task_size_succeeds)
{
	img_exec();
	ph(1)->p_vaddr = TASK_TOP - 0x2000;
	ph(1)->p_paddr = ph(1)->p_vaddr;
	cr_assert_eq(parse(), 0, "rejected: %s", why ? why : "?");
	cr_assert_eq(ei.hi, TASK_TOP);
}

Test(elf, parse_sixteen_loads_succeeds)
{
	img_header(ET_EXEC, 0x400100, ELF_MAX_LOADS);
	for (unsigned i = 0; i < ELF_MAX_LOADS; i++)
		set_ph(i, PT_LOAD, PF_R, 0, 0x400000 + i * 0x1000, 0x100,
		    0x1000);
	im.len = im.filesize = 0x1000;
	cr_assert_eq(parse(), 0, "rejected: %s", why ? why : "?");
	cr_assert_eq(ei.nseg, ELF_MAX_LOADS);
	cr_assert_eq(ei.hi, 0x400000 + ELF_MAX_LOADS * 0x1000);
}

Test(elf, parse_headers_only_prefix_succeeds)
{
	/* The caller reads only the start of a big file. */
	img_exec();
	im.len = 0x400;
	im.filesize = 0x100000;
	cr_assert_eq(parse(), 0, "rejected: %s", why ? why : "?");
	cr_assert_eq(ei.nseg, 2);
}

/* --- malformed files --- */

enum mutation {
	MUT_BAD_MAGIC,
	MUT_SHORTER_THAN_MAGIC,
	MUT_TRUNCATED_EHDR,
	MUT_CLASS32,
	MUT_BIG_ENDIAN,
	MUT_BAD_VERSION,
	MUT_AARCH64,
	MUT_REL,
	MUT_CORE,
	MUT_PHENTSIZE,
	MUT_PHNUM_ZERO,
	MUT_PHNUM_HUGE,
	MUT_PHNUM_OVER_LIMIT,
	MUT_PHDRS_PAST_LEN,
	MUT_PHDRS_PAST_FILE,
	MUT_PHOFF_WRAPS,
	MUT_PHOFF_MISALIGNED,
	MUT_FILESZ_OVER_MEMSZ,
	MUT_SEG_PAST_FILE,
	MUT_SEG_OFFSET_WRAPS,
	MUT_SEG_MISALIGNED,
	MUT_VADDR_WRAPS,
	MUT_MEMSZ_HUGE,
	MUT_BEYOND_TASK_SIZE,
	MUT_OVERLAP,
	MUT_DESCENDING,
	MUT_NO_LOAD,
	MUT_ONLY_EMPTY_LOADS,
	MUT_ENTRY_BELOW,
	MUT_ENTRY_ABOVE,
	MUT_EXEC_TOO_LOW,
	MUT_TOO_MANY_LOADS,
	MUT_COUNT,
};

/* A word the reason must contain: the check that fired is the right one. */
static const char *const mut_reason[MUT_COUNT] = {
	[MUT_BAD_MAGIC] = "not an ELF",
	[MUT_SHORTER_THAN_MAGIC] = "not an ELF",
	[MUT_TRUNCATED_EHDR] = "truncated ELF header",
	[MUT_CLASS32] = "64-bit",
	[MUT_BIG_ENDIAN] = "little-endian",
	[MUT_BAD_VERSION] = "version",
	[MUT_AARCH64] = "machine",
	[MUT_REL] = "not an executable",
	[MUT_CORE] = "not an executable",
	[MUT_PHENTSIZE] = "program header size",
	[MUT_PHNUM_ZERO] = "number of ELF program headers",
	[MUT_PHNUM_HUGE] = "number of ELF program headers",
	[MUT_PHNUM_OVER_LIMIT] = "number of ELF program headers",
	[MUT_PHDRS_PAST_LEN] = "truncated ELF program headers",
	[MUT_PHDRS_PAST_FILE] = "truncated ELF program headers",
	[MUT_PHOFF_WRAPS] = "truncated ELF program headers",
	[MUT_PHOFF_MISALIGNED] = "misaligned ELF program headers",
	[MUT_FILESZ_OVER_MEMSZ] = "larger in the file",
	[MUT_SEG_PAST_FILE] = "truncated ELF file",
	[MUT_SEG_OFFSET_WRAPS] = "truncated ELF file",
	[MUT_SEG_MISALIGNED] = "misaligned ELF segment",
	[MUT_VADDR_WRAPS] = "beyond the address space",
	[MUT_MEMSZ_HUGE] = "beyond the address space",
	[MUT_BEYOND_TASK_SIZE] = "beyond the address space",
	[MUT_OVERLAP] = "overlapping",
	[MUT_DESCENDING] = "overlapping",
	[MUT_NO_LOAD] = "nothing to load",
	[MUT_ONLY_EMPTY_LOADS] = "nothing to load",
	[MUT_ENTRY_BELOW] = "entry point",
	[MUT_ENTRY_ABOVE] = "entry point",
	[MUT_EXEC_TOO_LOW] = "lowest address",
	[MUT_TOO_MANY_LOADS] = "too many",
};

/* Break the valid executable of img_exec() in one way. */
static void
mutate(enum mutation mut)
{
	Elf64_Ehdr *eh = &im.u.eh;

	img_exec();
	switch (mut) {
	case MUT_BAD_MAGIC:
		eh->e_ident[EI_MAG1] = 'X';
		break;
	case MUT_SHORTER_THAN_MAGIC:
		im.len = im.filesize = 3;
		break;
	case MUT_TRUNCATED_EHDR:
		im.len = im.filesize = sizeof(Elf64_Ehdr) - 1;
		break;
	case MUT_CLASS32:
		eh->e_ident[EI_CLASS] = ELFCLASS32;
		break;
	case MUT_BIG_ENDIAN:
		eh->e_ident[EI_DATA] = ELFDATA2MSB;
		break;
	case MUT_BAD_VERSION:
		eh->e_ident[EI_VERSION] = EV_NONE;
		break;
	case MUT_AARCH64:
		eh->e_machine = EM_AARCH64;
		break;
	case MUT_REL:
		eh->e_type = ET_REL;
		break;
	case MUT_CORE:
		eh->e_type = ET_CORE;
		break;
	case MUT_PHENTSIZE:
		eh->e_phentsize = sizeof(Elf32_Phdr);
		break;
	case MUT_PHNUM_ZERO:
		eh->e_phnum = 0;
		break;
	case MUT_PHNUM_HUGE:
		eh->e_phnum = 0xffff;
		break;
	case MUT_PHNUM_OVER_LIMIT:
		/* One more than fits in ELF_MAX_PHDRS_SIZE bytes. */
		eh->e_phnum = ELF_MAX_PHDRS_SIZE / sizeof(Elf64_Phdr) + 1;
		break;
	case MUT_PHDRS_PAST_LEN:
		eh->e_phoff = im.len - 2 * sizeof(Elf64_Phdr);
		break;
	case MUT_PHDRS_PAST_FILE:
		/* The file ends inside the third program header. */
		im.len = im.filesize = 64 + 2 * sizeof(Elf64_Phdr) + 8;
		break;
	case MUT_PHOFF_WRAPS:
		eh->e_phoff = UINT64_MAX - 0x40 + 1;
		break;
	case MUT_PHOFF_MISALIGNED:
		eh->e_phoff = 65;
		break;
	case MUT_FILESZ_OVER_MEMSZ:
		ph(1)->p_memsz = 0x400;
		break;
	case MUT_SEG_PAST_FILE:
		/* Data's 0x800 file bytes at 0x1000 pass the end at 0x1400. */
		im.len = im.filesize = 0x1400;
		break;
	case MUT_SEG_OFFSET_WRAPS:
		ph(1)->p_offset = UINT64_MAX - 0x7ff;
		ph(1)->p_vaddr = 0x401000 + ph(1)->p_offset % 0x1000;
		break;
	case MUT_SEG_MISALIGNED:
		ph(1)->p_vaddr = 0x401010;
		break;
	case MUT_VADDR_WRAPS:
		ph(1)->p_vaddr = 0xfffffffffffff000ULL;
		break;
	case MUT_MEMSZ_HUGE:
		ph(1)->p_memsz = UINT64_MAX;
		break;
	case MUT_BEYOND_TASK_SIZE:
		ph(1)->p_vaddr = TASK_TOP - 0x1000;
		break;
	case MUT_OVERLAP:
		/* Page-congruent with its offset, but on top of the text. */
		ph(1)->p_vaddr = 0x400000;
		break;
	case MUT_DESCENDING:
		set_ph(0, PT_LOAD, PF_R | PF_W, 0x1000, 0x401000, 0x800,
		    0x2000);
		set_ph(1, PT_LOAD, PF_R | PF_X, 0, 0x400000, 0x1000, 0x1000);
		break;
	case MUT_NO_LOAD:
		ph(0)->p_type = PT_NOTE;
		ph(1)->p_type = PT_NULL;
		break;
	case MUT_ONLY_EMPTY_LOADS:
		ph(0)->p_filesz = ph(0)->p_memsz = 0;
		ph(1)->p_filesz = ph(1)->p_memsz = 0;
		break;
	case MUT_ENTRY_BELOW:
		eh->e_entry = 0x3fffff;
		break;
	case MUT_ENTRY_ABOVE:
		eh->e_entry = 0x403000;
		break;
	case MUT_EXEC_TOO_LOW:
		ph(0)->p_vaddr = 0x8000;
		eh->e_entry = 0x8100;
		break;
	case MUT_TOO_MANY_LOADS:
		img_header(ET_EXEC, 0x400100, ELF_MAX_LOADS + 1);
		for (unsigned i = 0; i <= ELF_MAX_LOADS; i++)
			set_ph(i, PT_LOAD, PF_R, 0, 0x400000 + i * 0x1000,
			    0x100, 0x1000);
		im.len = im.filesize = 0x1000;
		break;
	case MUT_COUNT:
		cr_assert_fail("no such mutation");
	}
}

struct elf_case {
	int mut;
	int expected;
};

ParameterizedTestParameters(elf, parse_malformed_fails_enoexec)
{
	static struct elf_case cases[MUT_COUNT];

	for (int i = 0; i < MUT_COUNT; i++)
		cases[i] = (struct elf_case){ i, -ENOEXEC };
	return cr_make_param_array(struct elf_case, cases, MUT_COUNT);
}

ParameterizedTest(struct elf_case *c, elf, parse_malformed_fails_enoexec)
{
	int r;

	mutate((enum mutation)c->mut);
	r = parse();
	cr_assert_eq(r, c->expected, "mutation %d (%s): got %d, reason %s",
	    c->mut, mut_reason[c->mut], r, why ? why : "(none)");
	cr_assert_not_null(why, "mutation %d: no reason", c->mut);
	cr_assert_not_null(strstr(why, mut_reason[c->mut]),
	    "mutation %d: reason \"%s\", want one with \"%s\"", c->mut, why,
	    mut_reason[c->mut]);
}

Test(elf, parse_mutations_start_from_valid_file)
{
	/* The table above means something only if its base parses. */
	img_exec();
	cr_assert_eq(parse(), 0, "base rejected: %s", why ? why : "?");
}

/*
 * A PT_LOAD with p_memsz 0 but bytes in the file is malformed too: Linux's
 * load_elf_binary() checks p_filesz > p_memsz for every PT_LOAD (EINVAL).
 * elf.c once skipped empty segments before checking them, and took it.
 */
Test(elf, parse_empty_load_with_file_bytes_fails_enoexec)
{
	img_exec();
	ph(1)->p_memsz = 0;
	cr_assert_eq(parse(), -ENOEXEC,
	    "PT_LOAD with p_filesz 0x800 > p_memsz 0 was accepted");
	cr_assert_not_null(why);
	cr_assert_not_null(strstr(why, "larger in the file"), "reason: %s",
	    why);
}
