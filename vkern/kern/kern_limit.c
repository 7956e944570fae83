/*
 * The sandbox's limits on time: --timeout (wall clock) and --cpu-time
 * (the CPU time of every guest process, the ones gone included).
 *
 * --timeout ends the sandbox as timeout(1) ends its command: SIGTERM to
 * every process, and SIGKILL to what is left LIMIT_GRACE later.
 * --cpu-time acts as an RLIMIT_CPU of the whole sandbox whose hard limit
 * is a second past the soft one, as Linux's check_process_timers() does
 * for one process: SIGXCPU to every process at the limit, SIGKILL a
 * CPU second later.  CPU time is looked at as cputime.c looks at a
 * process's, no sooner than it could have run out (cpu_check_at).
 */
#include <signal.h>
#include <time.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/platform.h"

#define NS 1000000000LL
/* From --timeout's SIGTERM to its SIGKILL. */
#define LIMIT_GRACE (2 * NS)

static struct {
	int64_t wall_at;       /* next wall-clock action, or -1 */
	int64_t cpu_at;        /* next look at CPU time, or -1 */
	int64_t cpu_gone;      /* CPU ns of processes freed */
	enum kern_limit hit;   /* the first limit that acted */
	bool killed;           /* its SIGKILL came */
	bool xcpu;             /* --cpu-time's SIGXCPU went out */
} lim = { -1, -1, 0, KERN_LIMIT_NONE, false, false };

void
limit_start(int64_t now)
{
	const struct kern_config *cfg = kern_cfg();

	lim.wall_at = cfg->timeout_ns > 0 ? now + cfg->timeout_ns : -1;
	lim.cpu_at = cfg->cpu_ns > 0 ? now : -1;
}

int64_t
limit_next(void)
{
	return time_earliest(lim.wall_at, lim.cpu_at);
}

void
limit_proc_gone(const struct proc *p)
{
	lim.cpu_gone += cpu_proc_ns(p, NULL);
}

/*
 * signo to every guest process not yet exiting; SIGKILL ends them.
 * vkernel's init, which runs nothing, ends with the command.
 */
static void
limit_signal_all(int signo)
{
	uint8_t info[128];

	sig_info_user(info, signo, SI_KERNEL, 0, 0);
	for (struct proc *p = proc_first(); p != NULL; p = p->next) {
		if (p->exiting || p->kproc)
			continue;
		if (signo == SIGKILL)
			proc_kill_sig(p, SIGKILL);
		else
			sig_post(p->main, signo, info, 0);
	}
}

/* The first limit to act is the one that ended the sandbox. */
static void
limit_hit(enum kern_limit which, int signo)
{
	if (lim.hit == KERN_LIMIT_NONE)
		lim.hit = which;
	if (signo == SIGKILL && lim.hit == which)
		lim.killed = true;
	limit_signal_all(signo);
}

static void
limit_wall(int64_t now)
{
	if (lim.wall_at < 0 || lim.wall_at > now)
		return;
	if (lim.hit != KERN_LIMIT_TIMEOUT) {
		limit_hit(KERN_LIMIT_TIMEOUT, SIGTERM);
		lim.wall_at = now + LIMIT_GRACE;
	} else {
		limit_hit(KERN_LIMIT_TIMEOUT, SIGKILL);
		lim.wall_at = -1;
	}
}

static void
limit_cpu(int64_t now)
{
	int64_t max = kern_cfg()->cpu_ns, cpu = lim.cpu_gone;

	if (lim.cpu_at < 0 || lim.cpu_at > now)
		return;
	for (struct proc *p = proc_first(); p != NULL; p = p->next)
		cpu += cpu_proc_ns(p, NULL);
	if (cpu >= max + NS) {
		limit_hit(KERN_LIMIT_CPU, SIGKILL);
		lim.cpu_at = -1;
		return;
	}
	if (cpu >= max && !lim.xcpu) {
		lim.xcpu = true;
		limit_hit(KERN_LIMIT_CPU, SIGXCPU);
	}
	lim.cpu_at = cpu_check_at(now, (lim.xcpu ? max + NS : max) - cpu);
}

void
limit_expire(int64_t now)
{
	limit_wall(now);
	limit_cpu(now);
}

void
limit_result(struct kern_result *res)
{
	res->limit = lim.hit;
	res->limit_killed = lim.killed;
}
