/*
 * System call dispatch, --strace, --stats and the rings of recent calls
 * a crash report shows.
 *
 * A thread that stopped at a syscall comes here with its registers loaded.
 * The number indexes the generated table; the handler's result goes back
 * into rax, or the handler parks the thread and its continuation finishes
 * the call later (sched.c).  Unknown numbers answer -ENOSYS and are logged
 * once each, so that a missing call is never silent.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkern/kern/kcov.h"
#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/kern/syscall.h"
#include "vkern/kern/syscall_gen.h"
#include "vkern/kmem.h"
#include "vkern/platform.h"
#include "vkern/vfs/procfs/procfs.h"
#include "vkern/vm/copyio.h"

struct sys_stat {
	uint64_t calls, errors;
	int64_t ns;
};

static struct sys_stat stats[VK_NSYSCALLS];
static struct sys_stat fault_stats;   /* faults: errors are signals */
static unsigned char logged[VK_NSYSCALLS];

/*
 * Numbers outside the table logged so far: each is told once, and a
 * guest that tries more than fit here is held back by vk_log_guest.
 */
static long logged_out[64];
static unsigned nlogged_out;

/* The table's entry of call nr, or NULL when there is no such call. */
static const struct sysent *
sysent_of(long nr)
{
	return nr >= 0 && nr < VK_NSYSCALLS && sysent[nr].name != NULL ?
	    &sysent[nr] : NULL;
}

/*
 * How many arguments of a call with entry se (NULL: none) vkernel reads
 * or shows: its handler's, or all six of one the table answers itself or
 * does not know.
 */
static unsigned
sysent_nargs(const struct sysent *se)
{
	return se != NULL && se->disp != NULL ? se->nargs : 6;
}

static bool
syscall_logged_once(long nr)
{
	if (nr >= 0 && nr < VK_NSYSCALLS) {
		if (logged[nr])
			return true;
		logged[nr] = 1;
		return false;
	}
	for (unsigned i = 0; i < nlogged_out; i++)
		if (logged_out[i] == nr)
			return true;
	if (nlogged_out < VK_NELEM(logged_out))
		logged_out[nlogged_out++] = nr;
	return false;
}

static void
syscall_log_unsupported(long nr)
{
	const struct sysent *se = sysent_of(nr);

	if (syscall_logged_once(nr))
		return;
	if (se != NULL)
		vk_log_guest("unsupported syscall %s (%ld)", se->name, nr);
	else
		vk_log_guest("unsupported syscall %ld", nr);
}

/* --- --strace --- */

struct tbuf {
	char b[512];
	size_t n;
};

static void __attribute__((format(printf, 2, 3)))
tprintf(struct tbuf *t, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (t->n >= sizeof(t->b))
		return;
	va_start(ap, fmt);
	k = vsnprintf(t->b + t->n, sizeof(t->b) - t->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		t->n = VK_MIN(t->n + (size_t)k, sizeof(t->b) - 1);
}

static void
trace_str(struct tbuf *t, struct thread *td, uint64_t va)
{
	char s[40];
	long n = copyinstr(td, UADDR(va), s, sizeof(s));

	if (n == -EFAULT) {
		tprintf(t, "%#lx", (unsigned long)va);
		return;
	}
	tprintf(t, "\"");
	for (size_t i = 0; i < (n < 0 ? sizeof(s) - 1 : (size_t)n); i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			tprintf(t, "\\%c", c);
		else if (c == '\n')
			tprintf(t, "\\n");
		else if (c < 32 || c >= 127)
			tprintf(t, "\\%o", c);
		else
			tprintf(t, "%c", c);
	}
	tprintf(t, n < 0 ? "\"..." : "\"");
}

static void
trace_val(struct tbuf *t, struct thread *td, unsigned kind, uint64_t v)
{
	switch (kind) {
	case SYS_ARG_INT:
		tprintf(t, "%d", (int)v);
		break;
	case SYS_ARG_UINT:
		tprintf(t, "%u", (unsigned)v);
		break;
	case SYS_ARG_LONG:
		tprintf(t, "%ld", (long)v);
		break;
	case SYS_ARG_ULONG:
		tprintf(t, "%lu", (unsigned long)v);
		break;
	case SYS_ARG_HEX:
		tprintf(t, "%#lx", (unsigned long)v);
		break;
	case SYS_ARG_PTR:
		if (v == 0)
			tprintf(t, "NULL");
		else
			tprintf(t, "%#lx", (unsigned long)v);
		break;
	case SYS_ARG_STR:
		trace_str(t, td, v);
		break;
	}
}

/*
 * The start of a --strace line, up to its arguments' end, for call nr
 * with arguments raw.  Strings are read from td's memory; with td NULL
 * (its process has no memory left) they show as addresses.
 */
static void
trace_args(struct tbuf *t, struct thread *td, int tid, long nr,
    const uint64_t *raw)
{
	const struct sysent *se = sysent_of(nr);
	unsigned nargs = sysent_nargs(se);

	tprintf(t, "[pid %d] ", tid);
	if (se != NULL)
		tprintf(t, "%s(", se->name);
	else
		tprintf(t, "syscall_%ld(", nr);
	for (unsigned i = 0; i < nargs; i++) {
		unsigned kind = se != NULL && se->disp != NULL ? se->args[i] :
		    SYS_ARG_HEX;

		if (i > 0)
			tprintf(t, ", ");
		if (kind == SYS_ARG_STR && td == NULL)
			kind = SYS_ARG_PTR;
		trace_val(t, td, kind, raw[i]);
	}
}

/* The end of the line: result r when done, "?" when it has not returned. */
static void
trace_result(struct tbuf *t, long nr, long r, bool done)
{
	const struct sysent *se = sysent_of(nr);
	bool hex = se != NULL && se->ret != SYS_ARG_LONG;

	if (!done)
		tprintf(t, ") = ?\n");
	else if (r == -ERESTARTSYS_)
		tprintf(t, ") = ? ERESTARTSYS (To be restarted)\n");
	else if (vk_is_err(r))
		tprintf(t, ") = -1 %s (%s)\n", strerrorname_np((int)-r) ?
		    strerrorname_np((int)-r) : "E?", strerror((int)-r));
	else if (hex)
		tprintf(t, ") = %#lx\n", (unsigned long)r);
	else
		tprintf(t, ") = %ld\n", r);
}

/* Whether call nr, done, leaves its caller in another image. */
static bool
trace_replaces_image(long nr)
{
	const struct sysent *se = sysent_of(nr);

	return se != NULL && (strcmp(se->name, "execve") == 0 ||
	    strcmp(se->name, "execveat") == 0);
}

static void
trace_call(struct thread *td, long nr, const uint64_t *raw, long r)
{
	struct tbuf t = { .n = 0 };

	trace_args(&t, td, td->tid, nr, raw);
	trace_result(&t, nr, r, true);
	plat_trace_write(t.b, t.n);
}

void
sysring_dump_thread(struct thread *mem, int tid, const struct sysring *r,
    sysring_emit_fn *emit, void *arg)
{
	unsigned long first = r->n > SYSRING_LEN ? r->n - SYSRING_LEN : 0;

	for (unsigned long i = first; i < r->n; i++) {
		const struct sysring_ent *e = &r->ent[i % SYSRING_LEN];
		struct tbuf t = { .n = 0 };

		trace_args(&t, mem, tid, e->nr, e->args);
		trace_result(&t, e->nr, e->ret, e->done);
		emit(arg, tid, t.b, t.n);
	}
}

/*
 * The rings of the last threads to go, kept for a failure that comes
 * after them, as one while the sandbox is taken down.
 */
static struct {
	int tid;
	struct sysring *ring;
} sysring_gone[SYSRING_GONE];
static unsigned sysring_ngone;

void
sysring_keep(int tid, struct sysring *r)
{
	unsigned i = sysring_ngone++ % SYSRING_GONE;

	kmem_free(sysring_gone[i].ring, sizeof(*r), 0);
	sysring_gone[i].tid = tid;
	sysring_gone[i].ring = r;
}

void
sysring_gone_free(void)
{
	for (unsigned i = 0; i < SYSRING_GONE; i++) {
		kmem_free(sysring_gone[i].ring, sizeof(struct sysring), 0);
		sysring_gone[i].ring = NULL;
	}
}

void
sysring_dump(sysring_emit_fn *emit, void *arg)
{
	for (struct proc *p = proc_first(); p != NULL; p = p->next)
		for (struct thread *td = p->threads; td != NULL; td = td->tnext)
			if (td->ring != NULL)
				sysring_dump_thread(p->vm != NULL ? td : NULL,
				    td->tid, td->ring, emit, arg);
	/* The oldest first. */
	for (unsigned k = 0; k < SYSRING_GONE; k++) {
		unsigned i = (sysring_ngone + k) % SYSRING_GONE;

		if (sysring_gone[i].ring != NULL)
			sysring_dump_thread(NULL, sysring_gone[i].tid,
			    sysring_gone[i].ring, emit, arg);
	}
}

/* Trace a call that does not return: exit, exit_group. */
void
syscall_trace_noreturn(struct thread *td, const char *name, int status)
{
	char b[128];
	int n;

	if (!kern_cfg()->strace)
		return;
	n = snprintf(b, sizeof(b), "[pid %d] %s(%d) = ?\n", td->tid,
	    name, status);
	plat_trace_write(b, (size_t)n);
}

/* --- dispatch --- */

#ifdef VK_CRASH_TEST
/*
 * Only in a -Dcrash_test=true build, for the tests of --crash-dir: this
 * call makes vkernel fail as a bug of its own would.  raw[0] says how:
 * 1, a failed VK_ASSERT; 2, a heap read out of bounds, which a sanitizer
 * reports; 3, a write through a wild pointer.
 */
#define SYSCALL_CRASH_TEST_NR 0x7663

static long
syscall_crash_test(const uint64_t *raw)
{
	volatile char *p;
	long r;

	switch (raw[0]) {
	case 1:
		VK_ASSERT(raw[0] != 1);
		break;
	case 2:
		p = vk_xmalloc(8);
		r = p[8 + raw[1]];
		free((void *)p);
		return r;
	case 3:
		p = (volatile char *)(uintptr_t)raw[1];
		*p = 1;
		break;
	}
	return -EINVAL;
}
#endif

static long
syscall_dispatch(struct thread *td, long nr, const uint64_t *raw)
{
	const struct sysent *se;

#ifdef VK_CRASH_TEST
	if (nr == SYSCALL_CRASH_TEST_NR)
		return syscall_crash_test(raw);
#endif
	if ((se = sysent_of(nr)) == NULL) {
		syscall_log_unsupported(nr);
		return -ENOSYS;
	}
	if (se->disp != NULL)
		return se->disp(td, raw);
	if (se->err == -ENOSYS && se->level == SYS_LEVEL_ENOSYS &&
	    strcmp(se->note, "not implemented") == 0)
		syscall_log_unsupported(nr);
	return se->err;
}

/*
 * The arguments of call nr, the thread's: the platform loads a sixth one
 * only when asked (plat_thread_regs_load), for a call whose six are read
 * or shown (sysent_nargs).
 */
static void
syscall_args(struct thread *td, long nr, uint64_t raw[6])
{
	if (sysent_nargs(sysent_of(nr)) > 5)
		plat_thread_regs_load(td->pt);
	arch_syscall_args(&td->ctx, raw);
}

/*
 * Run the thread's syscall again from its registers: the continuation of
 * a call that parked before it changed anything (a read with no data).
 */
long
syscall_redispatch(struct thread *td)
{
	long nr = arch_syscall_nr(&td->ctx);
	uint64_t raw[6];

	syscall_args(td, nr, raw);
	return syscall_dispatch(td, nr, raw);
}

void
syscall_enter(struct thread *td)
{
	long nr = arch_syscall_nr(&td->ctx);
	uint64_t raw[6];
	struct tbuf pre;   /* not zeroed: it is big, and this path hot */
	int64_t t0 = 0;
	long r;

	pre.n = 0;
	syscall_args(td, nr, raw);
	if (td->ring != NULL)
		sysring_begin(td->ring, nr, raw);
	procfs_set_current(td->proc);
	/* An exec replaces the memory its strings are in: read them first. */
	if (kern_cfg()->strace && trace_replaces_image(nr))
		trace_args(&pre, td, td->tid, nr, raw);
	if (kern_cfg()->stats)
		t0 = plat_clock_ns(1);
	kcov_active = td->kcov;
	r = syscall_dispatch(td, nr, raw);
	kcov_active = NULL;
	if (kern_cfg()->stats && nr >= 0 && nr < VK_NSYSCALLS) {
		stats[nr].calls++;
		stats[nr].ns += plat_clock_ns(1) - t0;
	}
	if (r == -EPARKED) {
		cpu_count(td, &(struct kcount){ .nvcsw = 1 });
		cpu_rt_block(td);
		sched_park(td);
		sig_recheck(td);
		return;
	}
	/* A successful execve loaded a new image: trace the call it was. */
	if (kern_cfg()->strace && arch_syscall_nr(&td->ctx) != nr &&
	    td->state != TD_DEAD && !td->proc->exiting && pre.n > 0) {
		trace_result(&pre, nr, r, true);
		plat_trace_write(pre.b, pre.n);
	}
	syscall_finish(td, r);
}

void
syscall_restart(struct thread *td)
{
	td->ctx.regs.rip -= 2;
	td->ctx.regs.rax = td->ctx.regs.orig_rax;
	td->ctx.dirty |= ARCH_DIRTY_ALL;
}

void
syscall_unrestart(struct thread *td, long r)
{
	td->ctx.regs.rip += 2;
	arch_syscall_set_ret(&td->ctx, r);
}

/*
 * Complete the syscall the thread stopped at: trace it, set its result and
 * make the thread runnable.  A thread whose process is gone is left alone.
 * -ERESTARTSYS_ makes it run the call again after its signals;
 * -EJUSTRETURN_ leaves rax as the handler set it.
 */
void
syscall_finish(struct thread *td, long r)
{
	long nr = arch_syscall_nr(&td->ctx);
	bool just = r == -EJUSTRETURN_;

	if (td->state == TD_DEAD || td->proc->exiting)
		return;
	if (td->ring != NULL)
		sysring_end(td->ring, r);
	if (r == -ERESTARTSYS_) {
		syscall_restart(td);
		td->restarting = true;
		sched_setrun(td);
		return;
	}
	if (just)
		r = (long)td->ctx.regs.rax;
	if (kern_cfg()->strace && nr >= 0) {
		uint64_t raw[6];

		syscall_args(td, nr, raw);
		trace_call(td, nr, raw, r);
	}
	if (kern_cfg()->stats && vk_is_err(r) && nr >= 0 && nr < VK_NSYSCALLS)
		stats[nr].errors++;
	if (!just)
		arch_syscall_set_ret(&td->ctx, r);
	sched_setrun(td);
}

void
kern_stats_fault(int64_t ns, bool signalled)
{
	fault_stats.calls++;
	fault_stats.errors += signalled;
	fault_stats.ns += ns;
}

static void
stats_row(const char *name, const struct sys_stat *st)
{
	char b[160];
	int n;

	n = snprintf(b, sizeof(b), "%-20s %10lu %8lu %12.1f %10lu\n",
	    name, (unsigned long)st->calls, (unsigned long)st->errors,
	    (double)st->ns / 1e3, (unsigned long)(st->ns / (int64_t)st->calls));
	plat_log_write(b, (size_t)n);
}

void
kern_stats_print(void)
{
	char b[160];
	uint64_t total = 0;
	int n;

	n = snprintf(b, sizeof(b), "%-20s %10s %8s %12s %10s\n", "syscall",
	    "calls", "errors", "total_us", "avg_ns");
	plat_log_write(b, (size_t)n);
	for (int i = 0; i < VK_NSYSCALLS; i++) {
		if (stats[i].calls == 0)
			continue;
		total += stats[i].calls;
		stats_row(sysent[i].name, &stats[i]);
	}
	n = snprintf(b, sizeof(b), "%-20s %10lu\n", "total",
	    (unsigned long)total);
	plat_log_write(b, (size_t)n);
	if (fault_stats.calls > 0)
		stats_row("(page fault)", &fault_stats);
}
