/*
 * Unit tests of fd tables (vkern/vfs/vfs_file.c) and of the calls that
 * take fd numbers from the guest (vkern/vfs/sys_open.c), through the
 * syscall table's own decoders with raw 64-bit register values: INT_MAX,
 * INT_MIN, UINT_MAX, 2^31, 2^32, negative numbers and values with high
 * bits set must index nothing out of bounds and get Linux's errnos, and
 * the allocator must give the lowest free fd as a simple reference does,
 * with its bitmaps consistent after any sequence of calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sched.h>
#include <linux/close_range.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <criterion/criterion.h>

#include "tests/unit/fake_platform.h"
#include "vkern/kern/kern.h"
#include "vkern/kmem.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall.h"
#include "vkern/vfs/file.h"
#include "vkern/vm/vm_ram.h"

static struct proc *p1;
static struct fdtable *t;

/* Values a guest register may hold where an fd number goes. */
static const uint64_t bad_fds[] = {
	INT_MAX, (uint32_t)INT_MIN, UINT_MAX, 1ULL << 31,
	(uint64_t)-1, (uint64_t)INT_MIN, (1ULL << 32) | INT_MAX,
	(1ULL << 63) | 0x80000000, 0xffffffff00000000ULL | 0x7fffffff,
};

static void
fdt_setup(void)
{
	struct kern_config cfg = { .mem = 64 << 20, .uid = 0, .gid = 0 };

	kern_init(&cfg);
	cr_assert_eq(proc_create(&p1), 0);
	t = p1->fdt;
}

static void
fdt_teardown(void)
{
	struct proc *p;

	while ((p = proc_first()) != NULL) {
		proc_exit(p, 0);
		proc_free(p);
	}
}

TestSuite(fdtable, .init = fdt_setup, .fini = fdt_teardown);

/* The call nr with raw register values, as the guest made it. */
static long
sc(long nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	uint64_t raw[6] = { a0, a1, a2, 0, 0, 0 };

	cr_assert_not_null(sysent[nr].disp, "no handler for %ld", nr);
	return sysent[nr].disp(p1->main, raw);
}

static struct file *
newfile(void)
{
	return file_alloc(&vn_fileops, NULL, O_RDONLY, "/t");
}

/*
 * Every bitmap agrees with files[]: an fd is open iff its bit is set,
 * close-on-exec only for open fds, a word full iff its summary bit is.
 */
static void
check_table(const struct fdtable *tb)
{
	cr_assert_eq(tb->n % 64, 0);
	for (int w = 0; w < tb->n / 64; w++) {
		uint64_t open = 0;

		for (int b = 0; b < 64; b++)
			if (tb->files[w * 64 + b] != NULL)
				open |= 1ULL << b;
		cr_assert_eq(tb->open[w], open, "word %d", w);
		cr_assert_eq(tb->cloexec[w] & ~open, 0, "word %d", w);
		cr_assert_eq((tb->full[w / 64] >> (w % 64)) & 1,
		    open == ~0ULL, "summary of word %d", w);
	}
}

Test(fdtable, bad_numbers_in_the_table)
{
	struct file *fp = newfile();

	cr_assert_eq(fd_alloc(t, fp, 0, 64, false), 0);
	for (size_t i = 0; i < VK_NELEM(bad_fds); i++) {
		int fd = (int)bad_fds[i];

		cr_assert_null(fd_get(t, fd));
		cr_assert_eq(fd_close(t, fd), -EBADF);
		cr_assert_eq(fd_set_cloexec(t, fd, true), -EBADF);
		cr_assert(!fd_cloexec(t, fd));
		file_ref(fp);
		cr_assert_eq(fd_install(t, fd, fp, false, 1 << 20), -EBADF);
		cr_assert_eq(fp->refs, 1, "a refused install drops its ref");
		fd_close_range(t, (unsigned)fd, UINT_MAX, true);
		fd_close_range(t, (unsigned)fd, UINT_MAX, false);
	}
	cr_assert_eq(fd_next(t, INT_MIN), -1);
	cr_assert_eq(fd_next(t, INT_MAX), -1);
	cr_assert_eq(fd_get(t, 0), fp);
	cr_assert(!fd_cloexec(t, 0));
	file_ref(fp);
	cr_assert_eq(fd_alloc(t, fp, INT_MIN, 64, false), -EINVAL);
	file_ref(fp);
	cr_assert_eq(fd_alloc(t, fp, INT_MAX, 64, false), -EMFILE);
	file_ref(fp);
	cr_assert_eq(fd_alloc(t, fp, 64, 64, false), -EMFILE);
	cr_assert_eq(fp->refs, 1);
	check_table(t);
}

Test(fdtable, close_range_with_any_registers)
{
	cr_assert_eq(fd_install(t, 5, newfile(), false, 4096), 5);
	cr_assert_eq(fd_install(t, 4000, newfile(), false, 4096), 4000);
	for (size_t i = 0; i < VK_NELEM(bad_fds); i++) {
		if ((uint32_t)bad_fds[i] < 4001)
			continue;
		cr_assert_eq(sc(SYS_close_range, bad_fds[i], UINT_MAX,
		    CLOSE_RANGE_CLOEXEC), 0);
		cr_assert_eq(sc(SYS_close_range, bad_fds[i], ~0ULL, 0), 0);
		cr_assert_eq(sc(SYS_close_range, bad_fds[i], bad_fds[i],
		    CLOSE_RANGE_UNSHARE), 0);
	}
	cr_assert_eq(sc(SYS_close_range, UINT_MAX, 0x80000000, 0), -EINVAL);
	cr_assert_eq(sc(SYS_close_range, 6, 5, 0), -EINVAL);
	cr_assert_eq(sc(SYS_close_range, 0, UINT_MAX, 1), -EINVAL);
	cr_assert_eq(sc(SYS_close_range, 0, UINT_MAX, 1ULL << 31), -EINVAL);
	cr_assert_not_null(fd_get(t, 5));
	cr_assert_not_null(fd_get(t, 4000));
	cr_assert(!fd_cloexec(t, 4000));
	/* Linux reads the low 32 bits of each. */
	cr_assert_eq(sc(SYS_close_range, (1ULL << 32) | 4000, 1ULL << 35 |
	    4000, (1ULL << 40) | CLOSE_RANGE_CLOEXEC), 0);
	cr_assert(fd_cloexec(t, 4000) && !fd_cloexec(t, 5));
	cr_assert_eq(sc(SYS_close_range, 6, UINT_MAX, 1ULL << 32), 0);
	cr_assert_null(fd_get(t, 4000));
	cr_assert_not_null(fd_get(t, 5));
	check_table(t);
}

Test(fdtable, dup_calls_with_any_registers)
{
	long lim;

	cr_assert_eq(fd_install(t, 3, newfile(), false, 64), 3);
	p1->rlim[RLIMIT_NOFILE].cur = 1024;
	for (size_t i = 0; i < VK_NELEM(bad_fds); i++) {
		uint64_t v = bad_fds[i];

		cr_assert_eq(sc(SYS_close, v, 0, 0), -EBADF);
		cr_assert_eq(sc(SYS_dup, v, 0, 0), -EBADF);
		cr_assert_eq(sc(SYS_dup2, 3, v, 0), -EBADF);
		cr_assert_eq(sc(SYS_dup2, v, v, 0), -EBADF);
		cr_assert_eq(sc(SYS_dup3, 3, v, 0), -EBADF);
		cr_assert_eq(sc(SYS_dup3, v, 4, 0), -EBADF);
		cr_assert_eq(sc(SYS_fcntl, v, F_GETFD, 0), -EBADF);
		cr_assert_eq(sc(SYS_fcntl, v, F_SETFD, FD_CLOEXEC), -EBADF);
		cr_assert_eq(sc(SYS_ioctl, v, FIOCLEX, 0), -EBADF);
		cr_assert_eq(sc(SYS_fcntl, 3, F_DUPFD, v), -EINVAL);
		cr_assert_eq(sc(SYS_fcntl, 3, F_DUPFD_CLOEXEC, v), -EINVAL);
	}
	cr_assert_eq(sc(SYS_dup2, 3, 1024, 0), -EBADF);
	cr_assert_eq(sc(SYS_fcntl, 3, F_DUPFD, 1024), -EINVAL);
	cr_assert_eq(sc(SYS_dup2, 3, 1023, 0), 1023);
	cr_assert_eq(sc(SYS_dup2, (1ULL << 32) | 3, (1ULL << 33) | 3, 0), 3);
	cr_assert_eq(sc(SYS_dup3, 3, 3, 0), -EINVAL);
	cr_assert_eq(sc(SYS_dup3, 3, 10, 1), -EINVAL);
	cr_assert_eq(sc(SYS_dup3, (1ULL << 32) | 3, (1ULL << 32) | 10,
	    (1ULL << 32) | O_CLOEXEC), 10);
	cr_assert(fd_cloexec(t, 10));
	cr_assert_eq(sc(SYS_fcntl, 3, F_DUPFD, (1ULL << 32) | 20), 20);
	cr_assert_eq(sc(SYS_fcntl, 3, F_DUPFD_CLOEXEC, 1ULL << 32), 0);
	cr_assert(fd_cloexec(t, 0));
	cr_assert_eq(sc(SYS_fcntl, (1ULL << 32) | 20, (1ULL << 32) | F_SETFD,
	    FD_CLOEXEC), 0);
	cr_assert_eq(sc(SYS_fcntl, 20, F_GETFD, 0), FD_CLOEXEC);
	cr_assert_eq(sc(SYS_ioctl, (1ULL << 32) | 20, (1ULL << 32) | FIONCLEX,
	    0), 0);
	cr_assert(!fd_cloexec(t, 20));
	cr_assert_eq(sc(SYS_close, (1ULL << 32) | 20, 0, 0), 0);
	cr_assert_null(fd_get(t, 20));

	/* RLIMIT_NOFILE 0: nothing new, as on Linux. */
	p1->rlim[RLIMIT_NOFILE].cur = 0;
	cr_assert_eq(sc(SYS_dup, 3, 0, 0), -EMFILE);
	cr_assert_eq(sc(SYS_fcntl, 3, F_DUPFD, 0), -EINVAL);
	cr_assert_eq(sc(SYS_dup2, 3, 4, 0), -EBADF);
	cr_assert_eq(sc(SYS_dup2, 3, 3, 0), 3);
	/* Past fs.nr_open the table still stops at nr_open. */
	p1->rlim[RLIMIT_NOFILE].cur = RLIM_INFINITY;
	lim = 1 << 20;
	cr_assert_eq(sc(SYS_dup2, 3, (uint64_t)lim, 0), -EBADF);
	cr_assert_eq(sc(SYS_fcntl, 3, F_DUPFD, (uint64_t)lim), -EINVAL);
	cr_assert_eq(sc(SYS_dup2, 3, (uint64_t)lim - 1, 0), lim - 1);
	cr_assert_eq(t->n, lim);
	check_table(t);
}

/* The lowest fd >= from not in ref (a byte per fd). */
static int
ref_lowest(const unsigned char *ref, int from)
{
	while (ref[from])
		from++;
	return from;
}

Test(fdtable, lowest_free_as_a_reference)
{
	enum { LIMIT = 5000, ROUNDS = 200000 };
	unsigned char *ref = calloc(LIMIT + 1, 1), *cx = calloc(LIMIT, 1);
	unsigned seed = 1;
	int nopen = 0;

	for (int i = 0; i < ROUNDS; i++) {
		int op = rand_r(&seed) % 8, fd = rand_r(&seed) % LIMIT, r, want;
		bool c = rand_r(&seed) & 1;

		if (op < 2 && nopen > LIMIT / 2) {
			if (ref[fd]) {
				cr_assert_eq(fd_close(t, fd), 0);
				ref[fd] = cx[fd] = 0;
				nopen--;
			} else {
				cr_assert_eq(fd_close(t, fd), -EBADF);
			}
			continue;
		}
		if (op == 2) {
			nopen += !ref[fd];
			cr_assert_eq(fd_install(t, fd, newfile(), c, LIMIT),
			    fd);
			ref[fd] = 1;
			cx[fd] = c;
			continue;
		}
		if (op == 3) {
			fd_close_range(t, (unsigned)fd, (unsigned)fd + 40, c);
			for (int k = fd; k <= fd + 40 && k < LIMIT; k++) {
				if (c)
					cx[k] = ref[k];
				else if (ref[k])
					nopen--, ref[k] = cx[k] = 0;
			}
			continue;
		}
		if (op > 4)
			fd = 0;
		want = ref_lowest(ref, fd);
		r = fd_alloc(t, newfile(), fd, LIMIT, c);
		cr_assert_eq(r, want < LIMIT ? want : -EMFILE,
		    "round %d: alloc from %d", i, fd);
		if (r >= 0) {
			ref[r] = 1;
			cx[r] = c;
			nopen++;
		}
	}
	check_table(t);
	cr_assert_leq(t->n, (LIMIT + 63) / 64 * 64);
	for (int fd = 0; fd < LIMIT; fd++)
		cr_assert_eq(fd_cloexec(t, fd), cx[fd], "fd %d", fd);
	fd_close_on_exec(t);
	for (int fd = 0; fd < LIMIT; fd++)
		cr_assert_eq(fd_get(t, fd) != NULL, ref[fd] && !cx[fd]);
	check_table(t);
	free(ref);
	free(cx);
}

Test(fdtable, grows_to_the_limit_and_copies)
{
	enum { LIMIT = 100000 };
	struct fdtable *c;

	for (int fd = 0; fd < LIMIT; fd++)
		cr_assert_eq(fd_alloc(t, newfile(), 0, LIMIT, fd % 3 == 0),
		    fd);
	cr_assert_eq(fd_alloc(t, newfile(), 0, LIMIT, false), -EMFILE);
	cr_assert_eq(t->n, (LIMIT + 63) / 64 * 64);
	check_table(t);
	for (int fd = 0; fd < LIMIT; fd += 7)
		cr_assert_eq(fd_close(t, fd), 0);
	c = fdt_copy(t);
	check_table(c);
	for (int fd = 0; fd < LIMIT; fd++) {
		cr_assert_eq(fd_get(c, fd), fd_get(t, fd));
		cr_assert_eq(fd_cloexec(c, fd), fd_cloexec(t, fd));
	}
	fdt_rel(c);
	for (int fd = 0; fd < LIMIT; fd += 7)
		cr_assert_eq(fd_alloc(t, newfile(), fd, LIMIT, false), fd);
	check_table(t);
}

Test(fdtable, copy_ends_at_the_highest_open_fd)
{
	struct fdtable *c;

	cr_assert_eq(fd_install(t, 3, newfile(), true, 1 << 20), 3);
	cr_assert_eq(fd_install(t, 70000, newfile(), false, 1 << 20), 70000);
	cr_assert_eq(t->n, 1 << 17);
	c = fdt_copy(t);
	cr_assert_eq(c->n, 70016);
	cr_assert_not_null(fd_get(c, 70000));
	check_table(c);
	fdt_rel(c);
	cr_assert_eq(fd_close(t, 70000), 0);
	c = fdt_copy(t);
	cr_assert_eq(c->n, 64);
	cr_assert(fd_cloexec(c, 3));
	cr_assert_eq(fd_alloc(c, newfile(), 64, 1 << 20, false), 64);
	cr_assert_eq(c->n, 128);
	check_table(c);
	fdt_rel(c);
}

/*
 * The sandbox's file-max: a new file past it is ENFILE, after the fd
 * table's own EMFILE as in Linux; a dup, which makes no file, is not.
 */
Test(fdtable, file_max_refuses_new_files_only)
{
	struct file *fp = newfile();

	cr_assert_eq(fd_alloc(t, fp, 0, 64, false), 0);
	file_max = 0;
	cr_assert_eq(fd_alloc(t, newfile(), 0, 64, false), -ENFILE);
	file_ref(fp);
	cr_assert_eq(fd_alloc(t, fp, 0, 64, false), 1);
	cr_assert_eq(fd_alloc(t, newfile(), 0, 2, false), -EMFILE);
	/* A file put in place by fd_install is no longer new either. */
	cr_assert_eq(fd_install(t, 5, newfile(), false, 64), 5);
	file_ref(fd_get(t, 5));
	cr_assert_eq(fd_alloc(t, fd_get(t, 5), 0, 64, false), 2);
	file_max = UINT64_MAX;
	cr_assert_eq(fd_alloc(t, newfile(), 0, 64, false), 3);
	check_table(t);
}

/*
 * unshare(CLONE_FILES | CLONE_NEWNS) whose mount table copy does not fit
 * fails with ENOMEM and unshares nothing: the fd table is still the one
 * another process shares.
 */
Test(fdtable, unshare_that_does_not_fit_keeps_the_table)
{
	struct fake_block *full;

	t->refs++;    /* as a CLONE_FILES child's would be */
	full = fake_fill(KM_FS);
	cr_assert_eq(sc(SYS_unshare, CLONE_FILES | CLONE_NEWNS, 0, 0),
	    -ENOMEM);
	fake_unfill(full, KM_FS);
	cr_assert_eq(p1->fdt, t, "the fd table was unshared");
	cr_assert_eq(sc(SYS_unshare, CLONE_FILES | CLONE_NEWNS, 0, 0), 0);
	cr_assert_neq(p1->fdt, t);
	fdt_rel(t);
}
