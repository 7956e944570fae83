/*
 * The run queue and parked threads.
 *
 * The kernel is one event loop (kern_boot.c): it resumes every runnable
 * thread, then waits for the next platform event or the earliest deadline.
 * A syscall that must wait never blocks that loop: its handler fills in
 * td->wait and returns -EPARKED, the thread is parked here, and when its
 * deadline passes or its console fd becomes readable the continuation
 * td->wait.cont runs again and either finishes the call or parks it anew.
 * The same mechanism will carry pipes, futexes and wait4.
 */
#include <errno.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/platform.h"
#include "vkern/vfs/procfs/procfs.h"

static struct thread *runq_head, *runq_tail;
static struct thread *parked;

void
sched_setrun(struct thread *td)
{
	VK_ASSERT(td->state != TD_RUNNABLE && td->state != TD_DEAD);
	td->state = TD_RUNNABLE;
	td->runq_next = NULL;
	if (runq_tail != NULL)
		runq_tail->runq_next = td;
	else
		runq_head = td;
	runq_tail = td;
}

struct thread *
sched_next_runnable(void)
{
	struct thread *td = runq_head;

	if (td != NULL) {
		runq_head = td->runq_next;
		if (runq_head == NULL)
			runq_tail = NULL;
		td->runq_next = NULL;
	}
	return td;
}

void
sched_park(struct thread *td)
{
	td->state = TD_PARKED;
	td->park_next = parked;
	parked = td;
	if (td->wait.console_fd >= 0)
		plat_console_watch(td->wait.console_fd, 1);
}

void
sched_unpark(struct thread *td)
{
	struct thread **pp;

	for (pp = &parked; *pp != NULL; pp = &(*pp)->park_next) {
		if (*pp == td) {
			*pp = td->park_next;
			break;
		}
	}
	td->park_next = NULL;
}

/* Remove a thread from every queue: it is going away. */
void
sched_forget(struct thread *td)
{
	struct thread **pp;

	if (td->state == TD_PARKED)
		sched_unpark(td);
	for (pp = &runq_head; *pp != NULL; pp = &(*pp)->runq_next) {
		if (*pp == td) {
			*pp = td->runq_next;
			break;
		}
	}
	runq_tail = NULL;
	for (struct thread *t = runq_head; t != NULL; t = t->runq_next)
		runq_tail = t;
}

/* Run the continuation of a parked thread: done, or parked again. */
void
sched_wakeup(struct thread *td)
{
	long r;

	VK_ASSERT(td->state == TD_PARKED);
	sched_unpark(td);
	td->state = TD_ONCPU;
	procfs_set_current(td->proc);
	curthread = td;
	r = td->wait.cont(td);
	curthread = NULL;
	if (r == -EPARKED) {
		/* A signal that came while it was being woken ends it now. */
		sched_park(td);
		sig_recheck(td);
		return;
	}
	syscall_finish(td, r);
}

/* Wake every thread whose wait is for console fd. */
void
sched_console_ready(int fd)
{
	struct thread *td, *next;
	bool still = false;

	for (td = parked; td != NULL; td = next) {
		next = td->park_next;
		if (td->wait.console_fd == fd)
			sched_wakeup(td);
	}
	for (td = parked; td != NULL; td = td->park_next)
		if (td->wait.console_fd == fd)
			still = true;
	if (!still)
		plat_console_watch(fd, 0);
}

/*
 * Wake every thread waiting on chan.  The wake-up runs after the current
 * event is handled (its deadline becomes "now"), never in the middle of
 * another thread's syscall: a woken wait4 may free the very process that
 * is exiting.
 */
void
sched_wake_chan(const void *chan)
{
	for (struct thread *td = parked; td != NULL; td = td->park_next)
		if (td->wait.chan == chan)
			td->wait.deadline = 0;
}

int64_t
sched_next_deadline(void)
{
	int64_t d = -1;

	for (struct thread *td = parked; td != NULL; td = td->park_next)
		if (td->wait.deadline >= 0 && (d < 0 || td->wait.deadline < d))
			d = td->wait.deadline;
	return d;
}

void
sched_expire(int64_t now)
{
	struct thread *td, *next;

	for (td = parked; td != NULL; td = next) {
		next = td->park_next;
		if (td->wait.deadline >= 0 && td->wait.deadline <= now)
			sched_wakeup(td);
	}
}
