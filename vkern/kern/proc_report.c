/*
 * A report of every guest thread, for someone looking at a sandbox that
 * seems stuck (vkernel's answer to a host SIGUSR1, crash.c): who it is,
 * what it is doing or waiting for, and its signals.  It only reads.
 */
#include <stdint.h>
#include <stdio.h>

#include "vkern/kern/proc.h"
#include "vkern/kern/proc_report.h"

/* Code addresses go out as offsets in the executable, for addr2line. */
extern char __executable_start[];

static const char *const td_state_name[] = {
	[TD_RUNNABLE] = "runnable",
	[TD_ONCPU] = "on-cpu",
	[TD_PARKED] = "parked",
	[TD_STOPPED] = "stopped",
	[TD_DEAD] = "dead",
};

static void
proc_report_thread(const struct proc *p, const struct thread *td,
    proc_report_fn *emit, void *arg)
{
	char line[512], wait[32] = "none", comm[sizeof(td->comm)];
	int n;

	/* The guest names its threads: nothing it names breaks a line. */
	for (size_t i = 0; i < sizeof(comm); i++)
		comm[i] = td->comm[i] == '\0' || (td->comm[i] >= ' ' &&
		    td->comm[i] < 0x7f && td->comm[i] != '"') ?
		    td->comm[i] : '?';

	if (td->state == TD_PARKED && td->wait.cont != NULL)
		snprintf(wait, sizeof(wait), "+%#lx",
		    (unsigned long)((uintptr_t)td->wait.cont -
		    (uintptr_t)__executable_start));
	n = snprintf(line, sizeof(line),
	    "pid %d tid %d ppid %d pgid %d sid %d uid %u comm \"%.16s\" "
	    "%s%s%s wait %s chan %p deadline %lld "
	    "pending %#llx/%#llx blocked %#llx\n",
	    p->pid, td->tid, p->ppid, p->pgid, p->sid, p->cred.euid,
	    comm, (unsigned)td->state < VK_NELEM(td_state_name) ?
	    td_state_name[td->state] : "?",
	    p->exiting ? " exiting" : "", p->stopped ? " stopped" : "",
	    wait,
	    td->wait.chan, (long long)td->wait.deadline,
	    (unsigned long long)td->pending.set,
	    (unsigned long long)p->pending.set,
	    (unsigned long long)td->sigmask);
	emit(arg, line, (size_t)n < sizeof(line) ? (size_t)n :
	    sizeof(line) - 1);
}

void
proc_report(proc_report_fn *emit, void *arg)
{
	char line[128];
	int n;

	for (struct proc *p = proc_first(); p != NULL; p = p->next) {
		if (p->threads == NULL) {
			n = snprintf(line, sizeof(line),
			    "pid %d ppid %d pgid %d: %s\n", p->pid, p->ppid,
			    p->pgid, p->kproc ? "vkernel's init" : "zombie");
			emit(arg, line, (size_t)n);
			continue;
		}
		for (struct thread *td = p->threads; td != NULL;
		    td = td->tnext)
			proc_report_thread(p, td, emit, arg);
	}
}
