/*
 * The unit tests' fake platform.
 *
 * It keeps the contracts of vkern/platform.h as far as a process without
 * guests can: the RAM file is a private anonymous mapping that reads zero
 * after a discard, space changes are recorded instead of applied, and
 * hooks that would need a host file fail with an errno the contract
 * allows.  plat_abort() raises SIGABRT, so that a test can expect a
 * VK_ASSERT to fire with .signal = SIGABRT.
 *
 * Spaces and threads are bookkeeping only: no guest code ever runs.  A
 * test that sets fake_event_source drives guest threads itself: a thread
 * the kernel lets run is "in the guest" until the source makes it stop
 * (at a syscall, a fault) with registers it writes into its context.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "arch/x86/sigframe.h"
#include "host-linux/host.h"
#include "tests/unit/fake_platform.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vk.h"

struct plat_space {
	int id;
	struct plat_thread *threads;   /* freed with the space */
};

struct fake_space_call fake_space_calls[FAKE_MAX_CALLS];
unsigned fake_space_ncalls;
struct fake_discard fake_discards[FAKE_MAX_CALLS];
unsigned fake_ndiscards;
struct fake_ram_write fake_ram_writes[FAKE_MAX_CALLS];
unsigned fake_nram_writes;

struct plat_thread *fake_threads;
int (*fake_event_source)(struct plat_event *ev, int64_t deadline_ns);
bool fake_clock_frozen;
bool fake_console;
int64_t fake_clock_now_ns;

static void *fake_ram;
static struct plat_space fake_dummy_space = { .id = -1 };
static uint64_t fake_rng = 0x9e3779b97f4a7c15ULL;

unsigned fake_nlog_writes;
char fake_log_first[512];
int64_t fake_clock_skew_ns;

void
fake_reset(void)
{
	fake_space_ncalls = 0;
	fake_ndiscards = 0;
	fake_nram_writes = 0;
	fake_nlog_writes = 0;
}

struct plat_space *
fake_space(void)
{
	return &fake_dummy_space;
}

static void
fake_record(enum fake_space_op op, struct plat_space *sp, uint64_t va,
    uint64_t len, int prot, uint64_t ramoff)
{
	if (fake_space_ncalls < FAKE_MAX_CALLS)
		fake_space_calls[fake_space_ncalls] = (struct fake_space_call){
			.op = op, .sp = sp, .va = va, .len = len, .prot = prot,
			.ramoff = ramoff,
		};
	fake_space_ncalls++;
}

/* A fake that is misused is a broken test: say so and stop. */
static void
fake_check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fake_platform: %s\n", what);
		abort();
	}
}

void *
plat_ram_base(void)
{
	if (fake_ram == NULL) {
		/* NORESERVE: the tests touch a few pages of the gigabyte. */
		void *p = mmap(NULL, FAKE_RAM_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		fake_check(p != MAP_FAILED, "cannot map the RAM area");
		fake_ram = p;
	}
	return fake_ram;
}

uint64_t
plat_ram_size(void)
{
	return FAKE_RAM_SIZE;
}

void
plat_heap_trim(void)
{
}

void
plat_ram_discard(uint64_t off, uint64_t len)
{
	char *base = plat_ram_base();

	fake_check(off <= FAKE_RAM_SIZE && len <= FAKE_RAM_SIZE - off,
	    "discard beyond the RAM area");
	if (fake_ndiscards < FAKE_MAX_CALLS)
		fake_discards[fake_ndiscards] =
		    (struct fake_discard){ off, len };
	fake_ndiscards++;
	/* Like the host's hole punch: whole pages go, partial ones zero. */
	if (((off | len) & 4095) == 0) {
		if (len > 0)
			fake_check(madvise(base + off, len, MADV_DONTNEED) == 0,
			    "madvise failed");
	} else {
		memset(base + off, 0, len);
	}
}

/* Recorded, then a plain copy: the contract asks for no more. */
void
plat_ram_write(uint64_t off, const void *src, size_t len)
{
	fake_check(off <= FAKE_RAM_SIZE && len <= FAKE_RAM_SIZE - off,
	    "write beyond the RAM area");
	if (fake_nram_writes < FAKE_MAX_CALLS)
		fake_ram_writes[fake_nram_writes] =
		    (struct fake_ram_write){ off, len };
	fake_nram_writes++;
	memcpy((char *)plat_ram_base() + off, src, len);
}

/*
 * A thread of sp, its FPU state from's or, for a space's first, a clean
 * x87/SSE/AVX image.
 */
static int
fake_thread_new(struct plat_space *sp, const struct plat_thread *from,
    void *cookie, struct arch_context *ctx, struct plat_thread **ptp)
{
	struct plat_thread *pt = calloc(1, sizeof(*pt));

	if (pt == NULL)
		return -EAGAIN;
	pt->sp = sp;
	pt->cookie = cookie;
	pt->ctx = ctx;
	if (from != NULL) {
		memcpy(pt->fpu, from->fpu, sizeof(pt->fpu));
	} else {
		uint64_t bv = 7;

		arch_fpu_init_image(pt->fpu, sizeof(pt->fpu));
		memcpy(pt->fpu + 512, &bv, sizeof(bv));
	}
	pt->snext = sp->threads;
	sp->threads = pt;
	pt->next = fake_threads;
	fake_threads = pt;
	*ptp = pt;
	return 0;
}

/* A space with one thread, as plat_space_create or plat_space_fork. */
static int
fake_space_new(const struct plat_thread *from, void *cookie,
    struct arch_context *ctx, struct plat_space **spp,
    struct plat_thread **ptp)
{
	struct plat_space *sp = calloc(1, sizeof(*sp));
	int r;

	if (sp == NULL)
		return -EAGAIN;
	if ((r = fake_thread_new(sp, from, cookie, ctx, ptp)) < 0) {
		free(sp);
		return r;
	}
	*spp = sp;
	return 0;
}

int
plat_space_create(void *cookie, struct arch_context *ctx,
    struct plat_space **spp, struct plat_thread **ptp,
    struct plat_space_info *info)
{
	int r;

	if ((r = fake_space_new(NULL, cookie, ctx, spp, ptp)) < 0)
		return r;
	memset(&ctx->regs, 0, sizeof(ctx->regs));
	ctx->dirty = 0;
	*info = (struct plat_space_info){
		.reserved_start = 0x7ffffffff000ULL,
	};
	return 0;
}

void
plat_space_destroy(struct plat_space *sp)
{
	/* The dummy space of fake_space() was never created. */
	if (sp == &fake_dummy_space)
		return;
	while (sp->threads != NULL)
		plat_thread_destroy(sp->threads);
	free(sp);
}

void
plat_space_map(struct plat_space *sp, uint64_t va, uint64_t len, int prot,
    uint64_t ramoff)
{
	fake_check(sp != NULL, "map in a NULL space");
	fake_record(FAKE_MAP, sp, va, len, prot, ramoff);
}

void
plat_space_unmap(struct plat_space *sp, uint64_t va, uint64_t len)
{
	fake_check(sp != NULL, "unmap in a NULL space");
	fake_record(FAKE_UNMAP, sp, va, len, 0, 0);
}

void
plat_space_protect(struct plat_space *sp, uint64_t va, uint64_t len,
    int prot)
{
	fake_check(sp != NULL, "protect in a NULL space");
	fake_record(FAKE_PROTECT, sp, va, len, prot, 0);
}

int
plat_space_flush(struct plat_space *sp)
{
	return 0;
}

int
plat_thread_run(struct plat_thread *pt)
{
	/* No guest code runs under the fake but what a source plays. */
	if (fake_event_source == NULL)
		return -ENOSYS;
	pt->running = true;
	return 0;
}

int
plat_event_wait(struct plat_event *ev, int64_t deadline_ns)
{
	/* An interrupted thread stops before anything else happens. */
	for (struct plat_thread *pt = fake_threads; pt != NULL;
	    pt = pt->next) {
		if (pt->running && pt->interrupted) {
			pt->running = pt->interrupted = false;
			*ev = (struct plat_event){ .kind = PLAT_EV_STOPPED,
			    .cookie = pt->cookie, .fd = -1 };
			return 0;
		}
	}
	if (fake_event_source != NULL)
		return fake_event_source(ev, deadline_ns);
	/* Nothing ever happens here: every wait ends at its deadline. */
	*ev = (struct plat_event){ .kind = PLAT_EV_TIMEOUT, .fd = -1 };
	return 0;
}

long
plat_console_read(int fd, void *buf, size_t len)
{
	return fake_console ? -EAGAIN : -EBADF;
}

long
plat_console_write(int fd, const void *buf, size_t len)
{
	return fake_console ? (long)len : -EBADF;
}

void
plat_console_watch(int fd, int on)
{
}

int
plat_console_stat(int fd, struct plat_console_stat *st)
{
	if (!fake_console)
		return -EBADF;
	*st = (struct plat_console_stat){ .dev = 0xc, .ino = 100 + fd,
	    .blksize = 4096, .mode = S_IFIFO | 0600, .nlink = 1 };
	return 0;
}

int
plat_console_ioctl(int fd, unsigned long req, void *arg)
{
	return -ENOTTY;
}

int64_t
plat_clock_ns(int clockid)
{
	struct timespec ts;

	if (fake_clock_frozen)
		return fake_clock_now_ns + fake_clock_skew_ns +
		    (clockid == CLOCK_REALTIME ? FAKE_EPOCH_NS : 0);
	if (clock_gettime((clockid_t)clockid, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec +
	    fake_clock_skew_ns;
}

int64_t
plat_clock_res_ns(int clockid)
{
	struct timespec ts;

	if (clock_getres((clockid_t)clockid, &ts) != 0)
		return 1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
fake_reseed(void)
{
	fake_rng = 0x9e3779b97f4a7c15ULL;
}

/* xorshift64* from a fixed seed: tests see the same bytes every run. */
void
plat_random(void *buf, size_t len)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		fake_rng ^= fake_rng >> 12;
		fake_rng ^= fake_rng << 25;
		fake_rng ^= fake_rng >> 27;
		p[i] = (uint8_t)((fake_rng * 0x2545f4914f6cdd1dULL) >> 56);
	}
}

uint64_t
plat_host_auxv(unsigned long type)
{
	return getauxval(type);
}

int
plat_ncpus(void)
{
	return 1;
}

int
plat_cpu_barrier(void)
{
	return 0;
}

/*
 * A small CPU: "GenuineIntel", family 6 model 158 stepping 10, with fpu,
 * sse2, avx (and the hidden osxsave), fsgsbase, avx2 and lm; the fake
 * host's kernel does not show fsgsbase (plat_cpu_flag_shown).
 */
void
plat_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
	memset(out, 0, 4 * sizeof(out[0]));
	switch (leaf) {
	case 0:
		out[0] = 7;
		memcpy(&out[1], "Genu", 4);
		memcpy(&out[3], "ineI", 4);
		memcpy(&out[2], "ntel", 4);
		break;
	case 1:
		out[0] = 0x906ea;
		out[2] = 1U << 27 | 1U << 28;
		out[3] = 1U << 0 | 1U << 26;
		break;
	case 7:
		out[1] = subleaf == 0 ? 1U << 0 | 1U << 5 : 0;
		break;
	case 0x80000000:
		out[0] = 0x80000001;
		break;
	case 0x80000001:
		out[3] = 1U << 29;
		break;
	}
}

int
plat_cpu_flag_shown(const char *name)
{
	return strcmp(name, "fsgsbase") != 0;
}

const char *
plat_cpu_model_name(void)
{
	return NULL;
}

const char *
plat_os_release(void)
{
	return "6.1.0-vkernel-fake";
}

const char *
plat_os_version(void)
{
	return "#1 SMP PREEMPT_DYNAMIC fake";
}

long
plat_console_pread(int fd, void *buf, size_t len, int64_t off)
{
	return fake_console ? -ESPIPE : -EBADF;
}

long
plat_console_pwrite(int fd, const void *buf, size_t len, int64_t off)
{
	return fake_console ? -ESPIPE : -EBADF;
}

int64_t
plat_console_lseek(int fd, int64_t off, int whence)
{
	return fake_console ? -ESPIPE : -EBADF;
}

short
plat_console_poll(int fd, short events)
{
	return fake_console ? events & POLLOUT : 0;
}

int
plat_console_truncate(int fd, uint64_t size)
{
	return fake_console ? -EINVAL : -EBADF;
}

void
plat_console_name(int fd, char *buf, size_t size)
{
	snprintf(buf, size, "pipe:[%d]", 100 + fd);
}

int
plat_console_getfl(int fd)
{
	return fake_console ? O_RDWR : -EBADF;
}

void
plat_thread_yield(struct plat_thread *pt)
{
}

void
plat_thread_interrupt(struct plat_thread *pt)
{
	if (pt->running)
		pt->interrupted = true;
}

int
plat_space_fork(struct plat_thread *from, void *cookie,
    struct arch_context *ctx, struct plat_space **spp,
    struct plat_thread **ptp)
{
	return fake_space_new(from, cookie, ctx, spp, ptp);
}

int
plat_thread_create(struct plat_thread *from, void *cookie,
    struct arch_context *ctx, struct plat_thread **ptp)
{
	return fake_thread_new(from->sp, from, cookie, ctx, ptp);
}

void
plat_thread_destroy(struct plat_thread *pt)
{
	struct plat_thread **pp;

	if (pt == NULL)
		return;
	for (pp = &pt->sp->threads; *pp != pt; pp = &(*pp)->snext)
		;
	*pp = pt->snext;
	for (pp = &fake_threads; *pp != pt; pp = &(*pp)->next)
		;
	*pp = pt->next;
	free(pt);
}

void
plat_thread_regs_load(struct plat_thread *pt)
{
}

long
plat_thread_fpu_get(struct plat_thread *pt, void *buf, size_t size)
{
	size_t n = VK_MIN(size, sizeof(pt->fpu));

	memcpy(buf, pt->fpu, n);
	return (long)n;
}

/*
 * As the host's PTRACE_SETREGSET: an image it would refuse with EINVAL
 * (MXCSR reserved bits, features beyond x87/SSE/AVX, a compacted or
 * dirty header) is refused.
 */
int
plat_thread_fpu_set(struct plat_thread *pt, const void *buf, size_t size)
{
	const uint8_t *b = buf;
	uint64_t bv, comp;
	uint32_t mxcsr;

	if (size != sizeof(pt->fpu))
		return -EINVAL;
	memcpy(&mxcsr, b + 24, sizeof(mxcsr));
	memcpy(&bv, b + 512, sizeof(bv));
	memcpy(&comp, b + 520, sizeof(comp));
	if ((mxcsr & 0xffff0000U) != 0 || (bv & ~7ULL) != 0 || comp != 0)
		return -EINVAL;
	for (size_t i = 528; i < 576; i++)
		if (b[i] != 0)
			return -EINVAL;
	memcpy(pt->fpu, buf, size);
	return 0;
}

int
plat_space_own_release(struct plat_space *sp)
{
	(void)sp;
	return -ENOSYS;
}

int
plat_space_own_reclaim(struct plat_space *sp)
{
	(void)sp;
	return -ENOSYS;
}

int64_t
plat_space_cputime(struct plat_space *sp, int64_t *userp)
{
	if (userp != NULL)
		*userp = 0;
	return 0;
}

int64_t
plat_thread_cputime(struct plat_thread *pt, int64_t *userp)
{
	return plat_space_cputime(NULL, userp);
}

void
plat_guest_log_write(const char *buf, size_t len)
{
	plat_log_write(buf, len);
}

void
plat_log_write(const char *buf, size_t len)
{
	if (fake_nlog_writes++ == 0)
		snprintf(fake_log_first, sizeof(fake_log_first), "%.*s",
		    (int)len, buf);
	/* Panic messages help when an unexpected assert fires. */
	fwrite(buf, 1, len, stderr);
}

/* Only a test that turns --strace on sees it. */
void
plat_trace_write(const char *buf, size_t len)
{
	fwrite(buf, 1, len, stderr);
}

_Noreturn void
plat_abort(void)
{
	abort();
}

/*
 * host-linux's RAM file, for its files that unit tests link (hostfs):
 * there is none, the RAM area is anonymous memory.
 */
int
ram_fd(void)
{
	return -1;
}

/* No network outside: every host socket call is refused. */
int
plat_net_socket(int family, int type)
{
	return -EAFNOSUPPORT;
}

int
plat_net_describe(struct netif_table *t)
{
	return -ENODEV;
}

void
plat_net_close(int h)
{
}

int
plat_net_bind(int h, const struct sockaddr *sa, socklen_t len)
{
	return -EBADF;
}

int
plat_net_listen(int h, int backlog)
{
	return -EBADF;
}

int
plat_net_connect(int h, const struct sockaddr *sa, socklen_t len)
{
	return -EBADF;
}

int
plat_net_accept(int h, struct sockaddr *sa, socklen_t *len)
{
	return -EBADF;
}

int
plat_net_shutdown(int h, int how)
{
	return -EBADF;
}

int
plat_net_name(int h, bool peer, struct sockaddr *sa, socklen_t *len)
{
	return -EBADF;
}

long
plat_net_send(int h, const void *buf, size_t len, int flags,
    const struct sockaddr *sa, socklen_t salen)
{
	return -EBADF;
}

long
plat_net_recv(int h, void *buf, size_t len, int flags, struct sockaddr *sa,
    socklen_t *salen)
{
	return -EBADF;
}

int
plat_net_getopt(int h, int level, int name, void *val, socklen_t *len)
{
	return -EBADF;
}

int
plat_net_setopt(int h, int level, int name, const void *val, socklen_t len)
{
	return -EBADF;
}

long
plat_net_nbytes(int h, bool out)
{
	return -EBADF;
}

short
plat_net_poll(int h)
{
	return POLLNVAL;
}

void
plat_net_watch(int h, short events)
{
}

/* A charged block of fake_fill(): the next, and its own size. */
struct fake_block {
	struct fake_block *next;
	size_t size;
};

struct fake_block *
fake_fill(int km)
{
	static const size_t sizes[] = { 64 * 1024, 256,
	    sizeof(struct fake_block) };
	struct fake_block *list = NULL, *b;

	for (size_t i = 0; i < VK_NELEM(sizes); i++)
		while ((b = kmem_alloc(sizes[i], km)) != NULL) {
			*b = (struct fake_block){ .next = list,
			    .size = sizes[i] };
			list = b;
		}
	return list;
}

void
fake_unfill(struct fake_block *list, int km)
{
	struct fake_block *next;

	for (; list != NULL; list = next) {
		next = list->next;
		kmem_free(list, list->size, km);
	}
}
