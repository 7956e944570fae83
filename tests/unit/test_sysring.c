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
static struct thread td = { .tid = 7 };

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

	sysring_dump_thread(&td, &ring, collect, &l);
	return l;
}

static void
ring_reset(void)
{
	memset(&ring, 0, sizeof(ring));
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

Test(sysring, string_of_a_thread_without_memory_is_an_address)
{
	call(SYS_unlink, 0x4000, 0, -ENOENT, true);
	cr_assert_str_eq(dump().last, "[pid 7] unlink(0x4000) = -1 ENOENT "
	    "(No such file or directory)\n");
}
