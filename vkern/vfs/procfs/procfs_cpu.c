/*
 * /proc/cpuinfo from the host CPU's own CPUID, so that a program picking
 * a code path from the flags (AVX2, AES, SHA...) sees what it may use.
 *
 * The flags are those of CPUID leaves 1, 7 and 0x80000001 in Linux's
 * names and order (words 0, 1, 4, 6, 9, 16 and 18 of its capability
 * array), less the bits Linux never shows or clears as it sees fit (OS
 * support of a feature, security mitigations, features a kernel option
 * or the firmware turns off, as MONITOR, VMX, SVM, TSX, PKU): whatever
 * is printed here is a bit of the CPU that Linux would print too, and
 * the host's kernel does (plat_cpu_flag_shown: a hypervisor's kernel may
 * leave a feature off, FSGSBASE or SMAP, whose bit CPUID still shows).
 * Linux's synthetic flags and other leaves are left out.  The model name
 * is the host kernel's where it says one (a hypervisor may give its
 * kernel another than the brand string CPUID shows programs).  The CPU's
 * speed, caches and microcode are not to be had from CPUID alone and
 * read as a generic CPU's.
 */
#include <stdio.h>
#include <string.h>

#include "vkern/platform.h"
#include "vkern/vfs/procfs/procfs_impl.h"
#include "vkern/vk.h"

enum { CPUID_EAX, CPUID_EBX, CPUID_ECX, CPUID_EDX };

/* One register of one leaf, and the names of its bits (NULL: not shown). */
struct cpuinfo_word {
	uint32_t leaf;
	int reg;
	const char *name[32];
};

static const struct cpuinfo_word cpuinfo_words[] = {
	{ 1, CPUID_EDX, {
	    [0] = "fpu", [1] = "vme", [2] = "de", [3] = "pse", [4] = "tsc",
	    [5] = "msr", [6] = "pae", [7] = "mce", [8] = "cx8",
	    [9] = "apic", [11] = "sep", [12] = "mtrr", [13] = "pge",
	    [14] = "mca", [15] = "cmov", [16] = "pat", [17] = "pse36",
	    [19] = "clflush", [21] = "dts", [22] = "acpi", [23] = "mmx",
	    [24] = "fxsr", [25] = "sse", [26] = "sse2", [27] = "ss",
	    [28] = "ht", [29] = "tm", [31] = "pbe" } },
	{ 0x80000001, CPUID_EDX, {
	    [11] = "syscall", [20] = "nx", [22] = "mmxext",
	    [25] = "fxsr_opt", [26] = "pdpe1gb", [27] = "rdtscp",
	    [29] = "lm", [30] = "3dnowext", [31] = "3dnow" } },
	{ 1, CPUID_ECX, {
	    [0] = "pni", [1] = "pclmulqdq", [2] = "dtes64",
	    [4] = "ds_cpl", [7] = "est",
	    [8] = "tm2", [9] = "ssse3", [10] = "cid", [11] = "sdbg",
	    [12] = "fma", [13] = "cx16", [14] = "xtpr", [15] = "pdcm",
	    [17] = "pcid", [18] = "dca", [19] = "sse4_1", [20] = "sse4_2",
	    [21] = "x2apic", [22] = "movbe", [23] = "popcnt", [25] = "aes",
	    [26] = "xsave", [28] = "avx", [29] = "f16c", [30] = "rdrand",
	    [31] = "hypervisor" } },
	{ 0x80000001, CPUID_ECX, {
	    [0] = "lahf_lm", [1] = "cmp_legacy", [3] = "extapic", [4] = "cr8_legacy", [5] = "abm",
	    [6] = "sse4a", [7] = "misalignsse", [8] = "3dnowprefetch",
	    [9] = "osvw", [10] = "ibs", [11] = "xop", [12] = "skinit",
	    [13] = "wdt", [15] = "lwp", [16] = "fma4", [17] = "tce",
	    [19] = "nodeid_msr", [21] = "tbm", [22] = "topoext",
	    [23] = "perfctr_core", [24] = "perfctr_nb", [26] = "bpext",
	    [27] = "ptsc", [28] = "perfctr_llc" } },
	{ 7, CPUID_EBX, {
	    [0] = "fsgsbase", [1] = "tsc_adjust", [3] = "bmi1",
	    [5] = "avx2", [7] = "smep", [8] = "bmi2", [9] = "erms",
	    [10] = "invpcid", [16] = "avx512f", [17] = "avx512dq",
	    [18] = "rdseed", [19] = "adx", [20] = "smap",
	    [21] = "avx512ifma", [23] = "clflushopt", [24] = "clwb",
	    [26] = "avx512pf", [27] = "avx512er", [28] = "avx512cd",
	    [29] = "sha_ni", [30] = "avx512bw", [31] = "avx512vl" } },
	{ 7, CPUID_ECX, {
	    [1] = "avx512vbmi", [6] = "avx512_vbmi2", [8] = "gfni",
	    [9] = "vaes", [10] = "vpclmulqdq", [11] = "avx512_vnni",
	    [12] = "avx512_bitalg", [14] = "avx512_vpopcntdq",
	    [22] = "rdpid", [25] = "cldemote", [27] = "movdiri",
	    [28] = "movdir64b" } },
	{ 7, CPUID_EDX, {
	    [2] = "avx512_4vnniw", [3] = "avx512_4fmaps", [4] = "fsrm",
	    [8] = "avx512_vp2intersect", [14] = "serialize",
	    [22] = "amx_bf16", [23] = "avx512_fp16", [24] = "amx_tile",
	    [25] = "amx_int8" } },
};

/* What every CPU of the machine shares. */
struct cpuinfo_id {
	char vendor[13];
	char model[49];
	uint32_t maxleaf, maxext;
	uint32_t sig;           /* leaf 1 eax: family, model, stepping */
	uint32_t clflush;       /* bytes */
	uint32_t physbits, virtbits;
};

/* CPUID of leaf, or zeros past the maximum of its range. */
static void
cpuinfo_leaf(const struct cpuinfo_id *id, uint32_t leaf, uint32_t r[4])
{
	uint32_t max = leaf >= 0x80000000 ? id->maxext : id->maxleaf;

	memset(r, 0, 4 * sizeof(r[0]));
	if (leaf <= max)
		plat_cpuid(leaf, 0, r);
}

/*
 * The host's model name, or the brand string without the padding Intel
 * puts on its left.
 */
static void
cpuinfo_model_name(const struct cpuinfo_id *id, char *out, size_t size)
{
	uint32_t r[12];
	const char *s = plat_cpu_model_name();
	size_t n;

	if (s != NULL) {
		snprintf(out, size, "%s", s);
		return;
	}
	for (uint32_t i = 0; i < 3; i++)
		cpuinfo_leaf(id, 0x80000002 + i, r + 4 * i);
	memcpy(out, r, VK_MIN(size - 1, sizeof(r)));
	out[VK_MIN(size - 1, sizeof(r))] = '\0';
	for (s = out; *s == ' '; s++)
		;
	memmove(out, s, strlen(s) + 1);
	for (n = strlen(out); n > 0 && out[n - 1] == ' '; n--)
		out[n - 1] = '\0';
	if (out[0] == '\0')
		snprintf(out, size, "unknown");
}

static void
cpuinfo_identify(struct cpuinfo_id *id)
{
	uint32_t r[4];

	*id = (struct cpuinfo_id){ .clflush = 64, .physbits = 46,
	    .virtbits = 48 };
	plat_cpuid(0, 0, r);
	id->maxleaf = r[CPUID_EAX];
	memcpy(id->vendor, &r[CPUID_EBX], 4);
	memcpy(id->vendor + 4, &r[CPUID_EDX], 4);
	memcpy(id->vendor + 8, &r[CPUID_ECX], 4);
	plat_cpuid(0x80000000, 0, r);
	id->maxext = r[CPUID_EAX] >= 0x80000000 ? r[CPUID_EAX] : 0;
	cpuinfo_leaf(id, 1, r);
	id->sig = r[CPUID_EAX];
	if ((r[CPUID_EDX] & (1U << 19)) != 0 &&
	    ((r[CPUID_EBX] >> 8) & 0xff) != 0)
		id->clflush = ((r[CPUID_EBX] >> 8) & 0xff) * 8;
	cpuinfo_leaf(id, 0x80000008, r);
	if (r[CPUID_EAX] != 0) {
		id->physbits = r[CPUID_EAX] & 0xff;
		id->virtbits = (r[CPUID_EAX] >> 8) & 0xff;
	}
	cpuinfo_model_name(id, id->model, sizeof(id->model));
}

/* Family and model with their extended parts, as Linux's x86_family(). */
static uint32_t
cpuinfo_family(uint32_t sig)
{
	uint32_t f = (sig >> 8) & 0xf;

	return f == 0xf ? f + ((sig >> 20) & 0xff) : f;
}

static uint32_t
cpuinfo_model(uint32_t sig)
{
	uint32_t m = (sig >> 4) & 0xf;

	return cpuinfo_family(sig) >= 6 ? m | ((sig >> 12) & 0xf0) : m;
}

static void
cpuinfo_flags(const struct cpuinfo_id *id, struct sbuf *sb)
{
	uint32_t r[4];

	sbuf_printf(sb, "flags\t\t:");
	for (size_t w = 0; w < VK_NELEM(cpuinfo_words); w++) {
		const struct cpuinfo_word *cw = &cpuinfo_words[w];

		cpuinfo_leaf(id, cw->leaf, r);
		for (int b = 0; b < 32; b++) {
			if (cw->name[b] == NULL || (r[cw->reg] >> b & 1) == 0 ||
			    plat_cpu_flag_shown(cw->name[b]) == 0)
				continue;
			sbuf_printf(sb, " %s", cw->name[b]);
		}
	}
	sbuf_printf(sb, "\n");
}

int
procfs_gen_cpuinfo(const struct pfs_ctx *c, struct sbuf *sb)
{
	struct cpuinfo_id id;
	int n = plat_ncpus();

	cpuinfo_identify(&id);
	for (int i = 0; i < n; i++) {
		sbuf_printf(sb, "processor\t: %d\nvendor_id\t: %s\n"
		    "cpu family\t: %u\nmodel\t\t: %u\nmodel name\t: %s\n"
		    "stepping\t: %u\ncpu MHz\t\t: 2000.000\n"
		    "cache size\t: 4096 KB\n", i, id.vendor,
		    cpuinfo_family(id.sig), cpuinfo_model(id.sig), id.model,
		    id.sig & 0xf);
		sbuf_printf(sb, "physical id\t: 0\nsiblings\t: %d\n"
		    "core id\t\t: %d\ncpu cores\t: %d\napicid\t\t: %d\n"
		    "initial apicid\t: %d\nfpu\t\t: yes\n"
		    "fpu_exception\t: yes\ncpuid level\t: %u\nwp\t\t: yes\n",
		    n, i, n, i, i, id.maxleaf);
		cpuinfo_flags(&id, sb);
		sbuf_printf(sb, "bugs\t\t:\nbogomips\t: 4000.00\n"
		    "clflush size\t: %u\ncache_alignment\t: %u\n"
		    "address sizes\t: %u bits physical, %u bits virtual\n"
		    "power management:\n\n", id.clflush, id.clflush,
		    id.physbits, id.virtbits);
	}
	return 0;
}
