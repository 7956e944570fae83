/*
 * Signal-driven I/O: the owner of an open file's signals (fcntl(2)
 * F_SETOWN, F_SETOWN_EX, F_GETOWN, F_GETOWN_EX), the signal it gets
 * (F_SETSIG, F_GETSIG), and SIGIO itself.
 *
 * The owner and the signal belong to the open file description, so dup()
 * and fork() share them.  A file whose O_ASYNC is set through F_SETFL
 * (as in Linux, O_ASYNC at open does nothing) and that has an owner joins
 * a list of async files; every poll_wake() looks at their readiness, and
 * a file that became readable or writable since it last looked sends its
 * owner the signal.  Data arriving in a pipe or a local socket signals
 * the readers' owners again, ready before or not, as Linux's pipe_write()
 * and sock_def_readable() do.  A signal goes only where the process
 * that set the owner could send it with kill(2), as Linux's sigio_perm()
 * checks each target with the uids F_SETOWN recorded.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>

#include "vkern/kern/kern.h"
#include "vkern/kern/proc.h"
#include "vkern/vfs/file.h"
#include "vkern/vm/copyio.h"

#define FOWN_SIGMAX 64          /* Linux's _NSIG */

static struct file *fown_async;         /* the async files with owners */

/*
 * Whether a struct pid for id exists in Linux's sense (find_vpid()): a
 * thread, a process, or a group or session, named by that number.
 */
static bool
fown_id_exists(int id)
{
	if (thread_find(id) != NULL)
		return true;
	for (struct proc *p = proc_first(); p != NULL; p = p->next)
		if (!p->exiting && (p->pid == id || p->pgid == id ||
		    p->sid == id))
			return true;
	return false;
}

static bool
fown_listed(const struct file *fp)
{
	for (const struct file *f = fown_async; f != NULL; f = f->own.next)
		if (f == fp)
			return true;
	return false;
}

/* Put fp on the async list or take it off, as its flags and owner say. */
static void
fown_relist(struct file *fp)
{
	bool want = (fp->flags & O_ASYNC) != 0 && fp->own.id != 0;
	struct file **pp;

	if (want == fown_listed(fp))
		return;
	if (want) {
		fp->own.ready = file_poll(fp, POLLIN | POLLOUT);
		fp->own.next = fown_async;
		fown_async = fp;
		return;
	}
	for (pp = &fown_async; *pp != fp; pp = &(*pp)->own.next)
		;
	*pp = fp->own.next;
	fp->own.next = NULL;
}

void
fown_setfl(struct file *fp, int fd)
{
	fp->own.fd = fd;
	fown_relist(fp);
}

void
fown_close(struct file *fp)
{
	fp->flags &= ~(unsigned)O_ASYNC;
	fown_relist(fp);
}

/*
 * Set the owner, after Linux's f_setown() and f_setown_ex() checks, and
 * remember who set it.
 */
static int
fown_set(struct thread *td, struct file *fp, int type, int id)
{
	if (id != 0 && !fown_id_exists(id))
		return -ESRCH;
	fp->own.type = type;
	fp->own.id = id;
	fp->own.uid = td->proc->cred.uid;
	fp->own.euid = td->proc->cred.euid;
	fown_relist(fp);
	return 0;
}

static long
fown_setown(struct thread *td, struct file *fp, int who)
{
	/* A negative who is a group; -INT_MIN would overflow. */
	if (who == INT32_MIN)
		return -EINVAL;
	if (who < 0)
		return fown_set(td, fp, F_OWNER_PGRP, -who);
	return fown_set(td, fp, F_OWNER_PID, who);
}

static long
fown_setown_ex(struct thread *td, struct file *fp, uaddr_t u)
{
	struct f_owner_ex ox;
	int r;

	if ((r = copyin(td, u, &ox, sizeof(ox))) < 0)
		return r;
	if (ox.type != F_OWNER_TID && ox.type != F_OWNER_PID &&
	    ox.type != F_OWNER_PGRP)
		return -EINVAL;
	/* No pid is negative, so such an owner is never found. */
	if (ox.pid < 0)
		return -ESRCH;
	return fown_set(td, fp, ox.type, ox.pid);
}

long
fown_fcntl(struct thread *td, struct file *fp, int cmd, uint64_t arg)
{
	struct f_owner_ex ox;

	switch (cmd) {
	case F_GETOWN:
		/* A group is negative, as Linux has it (see fcntl(2) BUGS). */
		return fp->own.type == F_OWNER_PGRP ? -(long)fp->own.id :
		    fp->own.id;
	case F_SETOWN:
		return fown_setown(td, fp, (int)arg);
	case F_GETOWN_EX:
		ox = (struct f_owner_ex){ .type = fp->own.type,
		    .pid = fp->own.id };
		return copyout(td, &ox, UADDR(arg), sizeof(ox));
	case F_SETOWN_EX:
		return fown_setown_ex(td, fp, UADDR(arg));
	case F_GETSIG:
		return fp->own.sig;
	case F_SETSIG:
		if ((int)arg < 0 || (int)arg > FOWN_SIGMAX)
			return -EINVAL;
		fp->own.sig = (int)arg;
		return 0;
	}
	return -EINVAL;
}

/*
 * The siginfo of a signal-driven I/O signal: F_SETSIG's signal says what
 * happened (si_code POLL_IN or POLL_OUT, si_band, si_fd); plain SIGIO is
 * the kernel's and says nothing.
 */
static void
fown_info(const struct file *fp, short band, uint8_t info[128])
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (fp->own.sig == 0) {
		si.si_signo = SIGIO;
		si.si_code = SI_KERNEL;
	} else {
		si.si_signo = fp->own.sig;
		si.si_code = (band & POLLIN) ? POLL_IN : POLL_OUT;
		si.si_band = band;
		si.si_fd = fp->own.fd;
	}
	_Static_assert(sizeof(si) == 128, "siginfo is 128 bytes");
	memcpy(info, &si, 128);
}

static bool
fown_may_signal(const struct file *fp, const struct proc *p)
{
	return !p->exiting && sig_uids_may_send(fp->own.uid, fp->own.euid, p);
}

/* Post signal sig with info to fp's owner, as far as its setter may. */
static void
fown_post(const struct file *fp, int sig, const uint8_t info[128])
{
	struct thread *td;
	struct proc *p;

	switch (fp->own.type) {
	case F_OWNER_TID:
		if ((td = thread_find(fp->own.id)) != NULL &&
		    fown_may_signal(fp, td->proc))
			sig_post(td, sig, info, SIGPOST_THREAD);
		break;
	case F_OWNER_PID:
		if ((p = proc_find(fp->own.id)) != NULL && fown_may_signal(fp, p))
			sig_post(p->main, sig, info, 0);
		break;
	case F_OWNER_PGRP:
		for (p = proc_first(); p != NULL; p = p->next)
			if (p->pgid == fp->own.id && fown_may_signal(fp, p))
				sig_post(p->main, sig, info, 0);
		break;
	}
}

static void
fown_send(const struct file *fp, short band)
{
	uint8_t info[128];

	fown_info(fp, band, info);
	fown_post(fp, fp->own.sig != 0 ? fp->own.sig : SIGIO, info);
}

/*
 * Urgent data came for socket file fp: its owner gets SIGURG, the
 * kernel's (SI_KERNEL), whether O_ASYNC is set or not, as socket(7) and
 * fcntl(2) say.
 */
void
fown_urgent(const struct file *fp)
{
	siginfo_t si;
	uint8_t info[128];

	if (fp == NULL || fp->own.id == 0)
		return;
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGURG;
	si.si_code = SI_KERNEL;
	memcpy(info, &si, sizeof(info));
	fown_post(fp, SIGURG, info);
}

void
fown_arrived(const void *chan)
{
	for (struct file *fp = fown_async; fp != NULL; fp = fp->own.next)
		if (fp->chan == chan)
			fp->own.arrived = true;
}

void
fown_poll(void)
{
	static bool polling;

	/* A signal posted may wake a signalfd, and so poll_wake() again. */
	if (polling)
		return;
	polling = true;
	for (struct file *fp = fown_async; fp != NULL; fp = fp->own.next) {
		short now = file_poll(fp, POLLIN | POLLOUT);
		short rise = now & ~fp->own.ready & (POLLIN | POLLOUT);

		if (fp->own.arrived)
			rise |= now & POLLIN;
		fp->own.arrived = false;
		fp->own.ready = now;
		if (rise != 0)
			fown_send(fp, rise);
	}
	polling = false;
}
