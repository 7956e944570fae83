/*
 * The unit tests' fake platform.
 *
 * It keeps the contracts of vkern/platform.h as far as a process without
 * guests can: the RAM file is a private anonymous mapping that reads zero
 * after a discard, space changes are recorded instead of applied, and
 * hooks that would need a guest or a host file fail with an errno the
 * contract allows.  plat_abort() raises SIGABRT, so that a test can expect
 * a VK_ASSERT to fire with .signal = SIGABRT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>

#include "host-linux/host.h"
#include "tests/unit/fake_platform.h"
#include "vkern/platform.h"

/* The fake's spaces and threads only need to be distinct objects. */
struct plat_space {
	int id;
	struct plat_thread *pt;   /* the one thread, freed with the space */
};

struct plat_thread {
	struct plat_space *sp;
	void *cookie;
};

struct fake_space_call fake_space_calls[FAKE_MAX_CALLS];
unsigned fake_space_ncalls;
struct fake_discard fake_discards[FAKE_MAX_CALLS];
unsigned fake_ndiscards;
struct fake_ram_write fake_ram_writes[FAKE_MAX_CALLS];
unsigned fake_nram_writes;

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

int
plat_space_create(void *cookie, struct arch_context *ctx,
    struct plat_space **spp, struct plat_thread **ptp,
    struct plat_space_info *info)
{
	struct plat_space *sp = calloc(1, sizeof(*sp));
	struct plat_thread *pt = calloc(1, sizeof(*pt));

	if (sp == NULL || pt == NULL) {
		free(sp);
		free(pt);
		return -EAGAIN;
	}
	sp->pt = pt;
	pt->sp = sp;
	pt->cookie = cookie;
	memset(&ctx->regs, 0, sizeof(ctx->regs));
	ctx->dirty = 0;
	*info = (struct plat_space_info){
		.reserved_start = 0x7ffffffff000ULL,
	};
	*spp = sp;
	*ptp = pt;
	return 0;
}

void
plat_space_destroy(struct plat_space *sp)
{
	/* The dummy space of fake_space() was never created. */
	if (sp == &fake_dummy_space)
		return;
	free(sp->pt);
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
	/* No guest code runs under the fake. */
	return -ENOSYS;
}

int
plat_event_wait(struct plat_event *ev, int64_t deadline_ns)
{
	/* Nothing ever happens here: every wait ends at its deadline. */
	*ev = (struct plat_event){ .kind = PLAT_EV_TIMEOUT, .fd = -1 };
	return 0;
}

long
plat_console_read(int fd, void *buf, size_t len)
{
	return -EBADF;
}

long
plat_console_write(int fd, const void *buf, size_t len)
{
	return -EBADF;
}

void
plat_console_watch(int fd, int on)
{
}

int
plat_console_stat(int fd, struct plat_console_stat *st)
{
	return -EBADF;
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
	return -EBADF;
}

long
plat_console_pwrite(int fd, const void *buf, size_t len, int64_t off)
{
	return -EBADF;
}

int64_t
plat_console_lseek(int fd, int64_t off, int whence)
{
	return -EBADF;
}

short
plat_console_poll(int fd, short events)
{
	return 0;
}

int
plat_console_getfl(int fd)
{
	return -EBADF;
}

void
plat_thread_yield(struct plat_thread *pt)
{
}

void
plat_thread_interrupt(struct plat_thread *pt)
{
}

int
plat_space_fork(struct plat_thread *from, void *cookie,
    struct arch_context *ctx, struct plat_space **spp,
    struct plat_thread **ptp)
{
	return -EAGAIN;
}

int
plat_thread_create(struct plat_thread *from, void *cookie,
    struct arch_context *ctx, struct plat_thread **ptp)
{
	return -EAGAIN;
}

void
plat_thread_destroy(struct plat_thread *pt)
{
}

long
plat_thread_fpu_get(struct plat_thread *pt, void *buf, size_t size)
{
	return -EINVAL;
}

int
plat_thread_fpu_set(struct plat_thread *pt, const void *buf, size_t size)
{
	return -EINVAL;
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
plat_log_write(const char *buf, size_t len)
{
	if (fake_nlog_writes++ == 0)
		snprintf(fake_log_first, sizeof(fake_log_first), "%.*s",
		    (int)len, buf);
	/* Panic messages help when an unexpected assert fires. */
	fwrite(buf, 1, len, stderr);
}

void
plat_trace_write(const char *buf, size_t len)
{
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
