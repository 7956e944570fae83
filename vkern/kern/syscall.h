/*
 * The syscall table's entry format.  The table itself is generated from
 * syscalls.tbl (see gensyscalls.py).
 */
#ifndef VK_KERN_SYSCALL_H
#define VK_KERN_SYSCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct thread;

enum sys_level {
	SYS_LEVEL_NONE,     /* no such number */
	SYS_LEVEL_FULL,
	SYS_LEVEL_PARTIAL,
	SYS_LEVEL_ENOSYS,
	SYS_LEVEL_EPERM,
};

/* How --strace shows an argument or a result. */
enum sys_arg {
	SYS_ARG_INT, SYS_ARG_UINT, SYS_ARG_LONG, SYS_ARG_ULONG, SYS_ARG_HEX,
	SYS_ARG_PTR, SYS_ARG_STR,
};

struct sysent {
	const char *name;
	long (*disp)(struct thread *td, const uint64_t *raw);
	long err;              /* the answer when disp is NULL */
	unsigned char level;
	unsigned char nargs;
	unsigned char ret;
	unsigned char args[6];
	const char *note;
};

extern const struct sysent sysent[];

/*
 * A thread's last system calls, for a crash report (--crash-dir): a few
 * stores when a call starts (sysring_begin) and two when it returns
 * (sysring_end).  A call that has not returned shows as "= ?".
 */
#define SYSRING_LEN 256

struct sysring_ent {
	long nr;
	uint64_t args[6];
	long ret;
	bool done;
};

struct sysring {
	unsigned long n;       /* calls ever begun; the newest is n - 1 */
	struct sysring_ent ent[SYSRING_LEN];
};

static inline void
sysring_begin(struct sysring *r, long nr, const uint64_t *raw)
{
	struct sysring_ent *e = &r->ent[r->n++ % SYSRING_LEN];

	e->nr = nr;
	for (int i = 0; i < 6; i++)
		e->args[i] = raw[i];
	e->done = false;
}

static inline void
sysring_end(struct sysring *r, long ret)
{
	struct sysring_ent *e = &r->ent[(r->n - 1) % SYSRING_LEN];

	if (r->n > 0 && !e->done) {
		e->ret = ret;
		e->done = true;
	}
}

/*
 * Hands every live thread's ring, then those of the last SYSRING_GONE
 * threads to end, oldest call first, to emit as --strace lines, one call
 * each.  For the crash report: it only reads kernel state and guest
 * memory (strings as they are now; a gone thread's as addresses).
 */
typedef void sysring_emit_fn(void *arg, int tid, const char *line,
    size_t len);
void sysring_dump(sysring_emit_fn *emit, void *arg);

/*
 * One ring; sysring_dump's work, apart for unit tests.  mem: the thread
 * whose memory holds the strings, or NULL to show them as addresses.
 */
void sysring_dump_thread(struct thread *mem, int tid,
    const struct sysring *r, sysring_emit_fn *emit, void *arg);

/*
 * A thread that ends leaves its ring here (taking it over), among the
 * last SYSRING_GONE; sysring_gone_free gives them back when the sandbox
 * is gone.
 */
#define SYSRING_GONE 8
void sysring_keep(int tid, struct sysring *r);
void sysring_gone_free(void);

#endif
