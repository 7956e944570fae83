/*
 * Loading a program image into a process (static ELF executables).
 *
 * The address space is laid out as Linux lays it out on x86-64: ET_EXEC at
 * its link addresses, a static-pie ET_DYN at ELF_ET_DYN_BASE plus a random
 * offset, the break a random distance above the program, the stack below
 * the top of the guest's space and mmap's area a gap below the stack.  Each
 * segment's bytes are read from the file straight into the RAM file, so
 * that the only host calls are the reads and one mapping per region.
 */
#include <elf.h>
#include <errno.h>
#include <linux/mount.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "arch/x86/arch.h"
#include "vkern/kern/elf.h"
#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/stack.h"
#include "vkern/platform.h"
#include "vkern/vfs/namei.h"
#include "vkern/vfs/vfs.h"
#include "vkern/vm/copyio.h"
#include "vkern/vm/vm_map.h"

#define ELF_ET_DYN_BASE  0x555555554000ULL
#define MMAP_RND_PAGES   (1ULL << 28)     /* arch_mmap_rnd(): 28 bits */
#define BRK_RND_RANGE    0x02000000ULL    /* arch_randomize_brk(): 32 MiB */
#define STACK_RND_PAGES  (1ULL << 22)     /* stack_maxrandom_size(): 16 GiB */
#define STACK_DEFAULT    (8ULL << 20)
#define MMAP_GAP_MIN     (128ULL << 20)

static uint64_t
rnd_pages(uint64_t npages)
{
	uint64_t r;

	plat_random(&r, sizeof(r));
	return (r % npages) * VK_PAGE_SIZE;
}

/*
 * Read [off, off + len) of the file into guest memory at va: all of it,
 * or -EIO for a file that ends before.
 */
static int
exec_read_into(struct vm_map *m, struct vnode *vn, uint64_t va,
    uint64_t off, uint64_t len)
{
	long got = vm_map_read_file(m, vn, va, len, off);

	if (got < 0)
		return (int)got;
	return (uint64_t)got == len ? 0 : -EIO;
}

/*
 * A segment whose file bytes lie page for page in the file maps them
 * from the page cache: [ps, the page where its bss starts).  The rest,
 * the bss's first page with the segment's last bytes and the pages after
 * it, is memory of its own.  Returns where that rest starts, or ps when
 * the cache does not serve the file.
 */
static uint64_t
exec_map_cached(struct vm_map *m, struct vnode *vn, const struct elf_seg *s,
    uint64_t bias, uint64_t ps, uint64_t pe)
{
	uint64_t fend = s->vaddr + bias + s->filesz, cend;
	int prot = s->prot ? s->prot : PLAT_PROT_READ;

	if (s->filesz == 0 || (s->vaddr + bias - s->off) % VK_PAGE_SIZE != 0)
		return ps;
	cend = s->memsz > s->filesz ? VK_ROUND_DOWN(fend, VK_PAGE_SIZE) :
	    VK_ROUND_UP(fend, VK_PAGE_SIZE);
	cend = VK_MIN(cend, pe);
	if (cend <= ps || vm_pcache_map(m, ps, cend - ps, prot, vn,
	    VK_ROUND_DOWN(s->off, VK_PAGE_SIZE)) < 0)
		return ps;
	return cend;
}

/*
 * Map every segment with its protection and copy in its file bytes, or
 * map them from the page cache.  A page shared by two segments goes to
 * the later one; then nothing is cached, since the earlier segment's
 * bytes must be written into the later one's page.
 */
static int
exec_load_segments(struct vm_map *m, struct vnode *vn,
    const struct elf_info *ei, uint64_t bias)
{
	uint64_t ps[ELF_MAX_LOADS], pe[ELF_MAX_LOADS], from[ELF_MAX_LOADS];
	bool cache = true;
	int r;

	for (unsigned i = 0; i < ei->nseg; i++) {
		ps[i] = VK_ROUND_DOWN(ei->seg[i].vaddr + bias, VK_PAGE_SIZE);
		pe[i] = VK_ROUND_UP(ei->seg[i].vaddr + ei->seg[i].memsz + bias,
		    VK_PAGE_SIZE);
		if (i > 0 && pe[i - 1] > ps[i]) {
			pe[i - 1] = ps[i];
			cache = false;
		}
	}
	for (unsigned i = 0; i < ei->nseg; i++) {
		from[i] = ps[i];
		if (pe[i] <= ps[i])
			continue;
		if (ps[i] < m->min ||
		    !vm_map_range_user(m, ps[i], pe[i] - ps[i]) ||
		    !vm_map_range_free(m, ps[i], pe[i]))
			return -ENOMEM;
		if (cache)
			from[i] = exec_map_cached(m, vn, &ei->seg[i], bias,
			    ps[i], pe[i]);
		if (from[i] < pe[i] && (r = vm_map_anon(m, from[i],
		    pe[i] - from[i], ei->seg[i].prot ? ei->seg[i].prot :
		    PLAT_PROT_READ, 0)) < 0)
			return r;
	}
	for (unsigned i = 0; i < ei->nseg; i++) {
		const struct elf_seg *s = &ei->seg[i];
		uint64_t va = s->vaddr + bias, skip = 0;

		/* What the cache mapped is there already. */
		if (from[i] > va)
			skip = VK_MIN(from[i] - va, s->filesz);
		if (skip < s->filesz && (r = exec_read_into(m, vn, va + skip,
		    s->off + skip, s->filesz - skip)) < 0)
			return r;
	}
	return 0;
}

static void
exec_auxv(struct stack_args *sa, const struct proc *p,
    const struct elf_info *ei, uint64_t bias, uint64_t interp_base)
{
	const struct cred *c = &p->cred;
	unsigned n = 0;

#define AUX(t, v) (sa->aux[n++] = (struct stack_auxv){ (t), (v) })
	if (p->vdso_base != 0)
		AUX(AT_SYSINFO_EHDR, p->vdso_base);
	AUX(AT_MINSIGSTKSZ, plat_host_auxv(AT_MINSIGSTKSZ));
	AUX(AT_HWCAP, plat_host_auxv(AT_HWCAP));
	AUX(AT_PAGESZ, VK_PAGE_SIZE);
	AUX(AT_CLKTCK, 100);
	AUX(AT_PHDR, ei->phdr_vaddr + bias);
	AUX(AT_PHENT, sizeof(Elf64_Phdr));
	AUX(AT_PHNUM, ei->phnum);
	AUX(AT_BASE, interp_base);
	AUX(AT_FLAGS, 0);
	AUX(AT_ENTRY, ei->entry + bias);
	AUX(AT_UID, c->uid);
	AUX(AT_EUID, c->euid);
	AUX(AT_GID, c->gid);
	AUX(AT_EGID, c->egid);
	AUX(AT_SECURE, 0);
	AUX(AT_HWCAP2, plat_host_auxv(AT_HWCAP2));
#undef AUX
	sa->naux = n;
}

static uint64_t
exec_stack_size(const struct proc *p)
{
	uint64_t cur = p->rlim[RLIMIT_STACK].cur;

	if (cur < 128 * 1024 || cur > (1ULL << 30))
		return STACK_DEFAULT;
	return VK_ROUND_UP(cur, VK_PAGE_SIZE);
}

/*
 * Where the stack goes and, a gap below it, where mmap's top-down area
 * starts.  Returns the stack's top.
 */
static uint64_t
exec_layout(struct proc *p, uint64_t size)
{
	struct vm_map *m = p->vm;
	uint64_t top = VK_ROUND_DOWN(m->max - rnd_pages(STACK_RND_PAGES / 64),
	    VK_PAGE_SIZE);

	m->mmap_base = VK_ROUND_DOWN(top - VK_MAX(size, MMAP_GAP_MIN) -
	    rnd_pages(MMAP_RND_PAGES), VK_PAGE_SIZE);
	return top;
}

struct exec_image {
	struct elf_info ei;
	uint64_t bias;
	uint64_t interp_base;      /* AT_BASE: 0 without an interpreter */
	uint64_t entry;            /* where the first instruction is */
	uint64_t top;              /* the stack's top */
};

/* Map the stack and write argv, envp and auxv onto it. */
static int
exec_stack(struct proc *p, const struct exec_image *im, const char *path,
    char *const argv[], char *const envp[], uint64_t *spp)
{
	struct vm_map *m = p->vm;
	uint64_t size = exec_stack_size(p), top = im->top;
	struct stack_args sa = {
		.argv = argv, .envp = envp, .execfn = path,
		.platform = arch_platform(),
	};
	size_t need = stack_strings_size(argv) + stack_strings_size(envp) +
	    strlen(path) + 1024;
	uint8_t *buf;
	long len;
	int r;

	if (need > size / 4)
		return -E2BIG;
	if (!vm_map_range_free(m, top - size, top))
		return -ENOMEM;
	if ((r = vm_map_anon(m, top - size, size, PLAT_PROT_READ |
	    PLAT_PROT_WRITE | (im->ei.stack_exec ? PLAT_PROT_EXEC : 0),
	    VME_STACK)) < 0)
		return r;
	plat_random(sa.random, sizeof(sa.random));
	exec_auxv(&sa, p, &im->ei, im->bias, im->interp_base);
	buf = vk_xmalloc(need);
	len = stack_build(&sa, top, buf, need);
	if (len >= 0)
		r = vm_copyout_map(m, buf + need - (size_t)len,
		    top - (uint64_t)len, (size_t)len);
	free(buf);
	if (len < 0)
		return (int)len;
	*spp = top - (uint64_t)len;
	p->arg_start = sa.arg_start;
	p->arg_end = sa.arg_end;
	p->env_start = sa.env_start;
	p->env_end = sa.env_end;
	return r;
}

static int
exec_read_headers(struct vnode *vn, uint64_t fsize, struct elf_info *ei,
    const char **whyp)
{
	size_t want = (size_t)VK_MIN(fsize, (uint64_t)ELF_HEADER_READ);
	void *hdr = vk_xmalloc(want > 0 ? want : 1);
	long got = vn->ops->read(vn, hdr, want, 0);
	int r;

	if (got < 0)
		r = (int)got;
	else
		r = elf_parse(hdr, (size_t)got, fsize, ei, whyp);
	free(hdr);
	return r;
}

/*
 * The program file, as execve(2) checks it: a regular file (EACCES
 * otherwise) that the caller may execute and nothing has open for
 * writing (ETXTBSY).
 */
static int
exec_open(struct proc *p, const char *path, struct vnode **vpp,
    struct vattr *va, char **canonp)
{
	struct nameidata nd;
	int r;

	if ((r = vfs_lookup(p, AT_FDCWD, path, LOOKUP_FOLLOW, &nd)) < 0)
		return r;
	if (canonp != NULL)
		*canonp = strdup(nd.path);
	*vpp = nd.vp;
	nd.vp = NULL;
	nd_release(&nd);
	if ((*vpp)->type != VREG || ((*vpp)->mount != NULL &&
	    ((*vpp)->mount->flags & MS_NOEXEC)))
		r = -EACCES;
	else if ((r = vfs_access(p, *vpp, 1, false)) == 0 &&
	    (r = vnode_check_exec(*vpp)) == 0)
		r = (*vpp)->ops->getattr(*vpp, va);
	if (r < 0) {
		vnode_rel(*vpp);
		if (canonp != NULL)
			free(*canonp);
	}
	return r;
}

/* Open and check the program interpreter (PT_INTERP) of prep's file. */
static int
exec_interp_open(struct proc *p, struct exec_prep *prep, const char **whyp)
{
	char path[4097];
	struct vattr va;
	long n;
	int r;

	n = prep->vn->ops->read(prep->vn, path, (size_t)prep->ei.interp_len,
	    prep->ei.interp_off);
	if (n != (long)prep->ei.interp_len || path[n - 1] != '\0' ||
	    strlen(path) != (size_t)n - 1) {
		*whyp = "bad ELF interpreter path";
		return -ENOEXEC;
	}
	if ((r = exec_open(p, path, &prep->ivn, &va, NULL)) < 0)
		return r;
	if ((r = exec_read_headers(prep->ivn, va.size, &prep->iei, whyp)) == 0 &&
	    prep->iei.has_interp) {
		*whyp = "the ELF interpreter is itself dynamic";
		r = -ENOEXEC;
	}
	return r;
}

int
exec_prepare(struct proc *p, const char *path, struct exec_prep *prep,
    const char **whyp)
{
	int r;

	memset(prep, 0, sizeof(*prep));
	*whyp = NULL;
	if ((r = exec_open(p, path, &prep->vn, &prep->va, &prep->canon)) < 0)
		return r;
	if ((r = exec_read_headers(prep->vn, prep->va.size, &prep->ei,
	    whyp)) == 0 && prep->ei.has_interp)
		r = exec_interp_open(p, prep, whyp);
	if (r < 0)
		exec_prep_release(prep);
	return r;
}

void
exec_prep_release(struct exec_prep *prep)
{
	if (prep->vn != NULL)
		vnode_rel(prep->vn);
	if (prep->ivn != NULL)
		vnode_rel(prep->ivn);
	free(prep->canon);
	memset(prep, 0, sizeof(*prep));
}

/* Load the interpreter where mmap would put it; returns its load bias. */
static int
exec_interp_load(struct proc *p, struct exec_prep *prep, uint64_t *biasp)
{
	uint64_t va0;
	int r;

	if ((r = vm_map_find_space(p->vm, prep->iei.hi - prep->iei.lo,
	    p->vm->min, p->vm->mmap_base, &va0)) < 0)
		return r;
	*biasp = va0 - prep->iei.lo;
	return exec_load_segments(p->vm, prep->ivn, &prep->iei, *biasp);
}

static void
exec_set_comm(struct proc *p, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base != NULL ? base + 1 : path;
	n = strnlen(base, sizeof(p->comm) - 1);
	memcpy(p->comm, base, n);
	p->comm[n] = '\0';
	memcpy(p->main->comm, p->comm, sizeof(p->comm));
}

int
exec_commit(struct proc *p, struct exec_prep *prep, const char *path,
    char *const argv[], char *const envp[])
{
	struct exec_image im = { .ei = prep->ei };
	struct elf_info *ei = &im.ei;
	uint64_t sp = 0, brk;
	int r;

	if (ei->type == ET_DYN)
		im.bias = ELF_ET_DYN_BASE - ei->lo + rnd_pages(MMAP_RND_PAGES);
	im.entry = ei->entry + im.bias;
	im.top = exec_layout(p, exec_stack_size(p));
	if ((r = exec_load_segments(p->vm, prep->vn, ei, im.bias)) < 0)
		return r;
	if (prep->ivn != NULL) {
		if ((r = exec_interp_load(p, prep, &im.interp_base)) < 0)
			return r;
		im.entry = prep->iei.entry + im.interp_base;
	}
	if ((r = exec_stack(p, &im, path, argv, envp, &sp)) < 0)
		return r;
	brk = ei->hi + im.bias + rnd_pages(BRK_RND_RANGE / VK_PAGE_SIZE);
	p->vm->brk_start = p->vm->brk_cur = brk;
	if ((r = plat_space_flush(p->vm->space)) < 0)
		return r;
	plat_thread_regs_load(p->main->pt);   /* none loaded later over these */
	arch_exec_regs(&p->main->ctx, im.entry, sp);
	exec_set_comm(p, path);
	p->keepcaps = false;
	free(p->exe);
	p->exe = prep->canon;
	prep->canon = NULL;
	proc_set_text(p, prep->vn);
	return 0;
}
