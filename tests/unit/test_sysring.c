/*
 * The rings of recent system calls a crash report shows: each thread
 * keeps its last SYSRING_LEN calls, oldest first, in --strace's format,
 * with "= ?" for the call that has not returned.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/syscall.h"
#include "vkern/kmem.h"
#include "vkern/vm/vm_ram.h"

struct lines {
	int n;
	int tid;
	char first[128], last[128];
};

static void
collect(void *arg, int tid, const char *line, size_t len)
{
	struct lines *l = arg;

	cr_assert_gt(len, 0);
	cr_assert_eq(line[len - 1], '\n');
	if (l->n++ == 0)
		snprintf(l->first, sizeof(l->first), "%.*s", (int)len, line);
	snprintf(l->last, sizeof(l->last), "%.*s", (int)len, line);
	l->tid = tid;
}

static struct sysring ring;

static void
call(long nr, uint64_t a0, uint64_t a1, long ret, bool done)
{
	uint64_t raw[6] = { a0, a1, 0, 0, 0, 0 };

	sysring_begin(&ring, nr, raw);
	if (done)
		sysring_end(&ring, ret);
}

static struct lines
dump(void)
{
	struct lines l = { 0 };

	sysring_dump_thread(NULL, 7, &ring, collect, &l);
	return l;
}

static void
ring_reset(void)
{
	memset(&ring, 0, sizeof(ring));
	/* Room for the kept rings' charge (the fake RAM file's pages). */
	vm_ram_init(1024 * 4096, 1024 * 4096);
}

TestSuite(sysring, .init = ring_reset);

Test(sysring, empty_ring_shows_nothing)
{
	cr_assert_eq(dump().n, 0);
}

Test(sysring, keeps_the_last_256_oldest_first)
{
	struct lines l;

	for (int i = 0; i < 300; i++)
		call(SYS_getppid, 0, 0, i, true);
	l = dump();
	cr_assert_eq(l.n, SYSRING_LEN);
	cr_assert_eq(l.tid, 7);
	cr_assert_str_eq(l.first, "[pid 7] getppid() = 44\n");
	cr_assert_str_eq(l.last, "[pid 7] getppid() = 299\n");
}

Test(sysring, unreturned_call_shows_question_mark)
{
	call(SYS_close, 3, 0, 0, true);
	call(SYS_read, 3, 0x1000, 0, false);
	cr_assert_str_eq(dump().last, "[pid 7] read(3, 0x1000, 0) = ?\n");
	/* Its end comes later, once. */
	sysring_end(&ring, 5);
	sysring_end(&ring, 6);
	cr_assert_str_eq(dump().last, "[pid 7] read(3, 0x1000, 0) = 5\n");
}

Test(sysring, errors_as_strace_shows_them)
{
	call(SYS_close, 99, 0, -EBADF, true);
	cr_assert_str_eq(dump().last,
	    "[pid 7] close(99) = -1 EBADF (Bad file descriptor)\n");
}

Test(sysring, unknown_number_shows_six_raw_arguments)
{
	call(0x7663, 1, 2, -ENOSYS, true);
	cr_assert_str_eq(dump().last, "[pid 7] syscall_30307(0x1, 0x2, 0, 0, "
	    "0, 0) = -1 ENOSYS (Function not implemented)\n");
}

/* A thread that ended leaves its ring to the report, among the last 8. */
Test(sysring, rings_of_gone_threads_are_kept)
{
	struct lines l = { 0 };

	for (int tid = 100; tid < 110; tid++) {
		struct sysring *r = kmem_alloc(sizeof(*r), KM_ZERO);
		uint64_t raw[6] = { 0 };

		cr_assert_not_null(r);
		sysring_begin(r, SYS_exit, raw);
		sysring_keep(tid, r);
	}
	sysring_dump(collect, &l);
	cr_assert_eq(l.n, SYSRING_GONE);
	cr_assert_str_eq(l.first, "[pid 102] exit(0) = ?\n");
	cr_assert_str_eq(l.last, "[pid 109] exit(0) = ?\n");
	sysring_gone_free();
}

Test(sysring, string_of_a_thread_without_memory_is_an_address)
{
	call(SYS_unlink, 0x4000, 0, -ENOENT, true);
	cr_assert_str_eq(dump().last, "[pid 7] unlink(0x4000) = -1 ENOENT "
	    "(No such file or directory)\n");
}
