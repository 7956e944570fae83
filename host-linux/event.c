/*
 * The event loop's sleep, common to both platforms: SIGCHLD of the stubs
 * (through a signalfd), the console fds and host sockets the kernel
 * watches, a deadline, and the signals the host sends vkernel itself.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "host-linux/host.h"
#include "host-linux/sigcall.h"
#include "host-linux/stubctl.h"
#include "vkern/platform.h"
#include "vkern/vk.h"

static int sigchld_fd = -1;
static bool watched[3];
static bool child = true;   /* SIGCHLD seen, not yet taken */

/*
 * Signals the host sends vkernel itself (a terminal's Ctrl-C, a kill):
 * the handler only notes them, one flag each and one for any, so that
 * taking one never rewrites another's; the event loop hands them to the
 * kernel.  The loop's blocking waits are sigcalls on the "any" flag: a
 * signal that lands after the loop looked and before it slept ends the
 * sleep as one during it does (the handlers leave out SA_RESTART).
 */
static const int host_sigs[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH,
	SIGTSTP,   /* the guest's to act on: vkernel itself never stops */
};
static volatile sig_atomic_t host_noted[NSIG];
static volatile sig_atomic_t host_any;

/* vkernel's own: a report of the guest's threads (crash.c), not passed on. */
#define HOST_SIG_REPORT SIGUSR1

static void
host_sig_note(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	host_noted[sig] = 1;
	host_any = 1;
	(void)sigcall_note(uc);
}

static bool
host_sig_clear(int sig)
{
	if (!host_noted[sig])
		return false;
	host_noted[sig] = 0;
	return true;
}

/*
 * The next signal noted, or 0.  "Any" is cleared before the flags are
 * read, so one noted during the scan is seen at the next; it is set
 * again when a signal is taken, as others may wait behind it.
 */
int
host_sig_take(void)
{
	if (!host_any)
		return 0;
	host_any = 0;
	if (host_sig_clear(HOST_SIG_REPORT))
		crash_state_report();
	for (unsigned i = 0; i < VK_NELEM(host_sigs); i++) {
		if (host_sig_clear(host_sigs[i])) {
			host_any = 1;
			return host_sigs[i];
		}
	}
	return 0;
}

long
host_sig_call(long nr, long a1, long a2, long a3, long a4, long a5)
{
	return sigcall_raw(&host_any, nr, a1, a2, a3, a4, a5);
}

static int
host_sig_catch(int sig, struct vk_error **err)
{
	struct sigaction sa = {
		.sa_sigaction = host_sig_note,
		.sa_flags = SA_SIGINFO,
	};

	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) < 0)
		return vk_error_make(err, errno, "catch signal %d", sig);
	return 0;
}

int
event_init(struct vk_error **err)
{
	sigset_t chld;
	int r;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &chld, NULL) < 0 ||
	    (sigchld_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		return vk_error_make(err, errno, "watch SIGCHLD");
	for (unsigned i = 0; i < VK_NELEM(host_sigs); i++)
		if ((r = host_sig_catch(host_sigs[i], err)) < 0)
			return r;
	return host_sig_catch(HOST_SIG_REPORT, err);
}

void
plat_console_watch(int fd, int on)
{
	if (fd >= 0 && fd < 3)
		watched[fd] = on != 0;
}

bool
event_any_watched(void)
{
	const struct pollfd *np;

	return watched[0] || watched[1] || watched[2] ||
	    hostnet_watched(&np) > 0;
}

int
event_wait_slow(struct plat_event *ev, int64_t deadline, int bell_fd,
    bool nowait)
{
	static struct pollfd *pfd;
	static unsigned cap;
	const struct pollfd *np;
	unsigned nnet = hostnet_watched(&np);
	struct timespec ts, *tsp = NULL;
	struct signalfd_siginfo ssi;
	unsigned n = 0, ncons, first;
	uint64_t rung;
	int r;

	if (cap < 5 + nnet) {
		cap = 5 + nnet;
		pfd = vk_xrealloc(pfd, cap * sizeof(*pfd));
	}
	pfd[n++] = (struct pollfd){ .fd = sigchld_fd, .events = POLLIN };
	if (bell_fd >= 0)
		pfd[n++] = (struct pollfd){ .fd = bell_fd, .events = POLLIN };
	first = n;
	for (int fd = 0; fd < 3; fd++)
		if (watched[fd])
			pfd[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	ncons = n;
	if (nnet > 0)
		memcpy(&pfd[n], np, nnet * sizeof(*pfd));
	n += nnet;
	if (deadline >= 0) {
		int64_t left = deadline - plat_clock_ns(CLOCK_MONOTONIC);

		if (left <= 0) {
			ev->kind = PLAT_EV_TIMEOUT;
			return 1;
		}
		ts.tv_sec = left / 1000000000;
		ts.tv_nsec = left % 1000000000;
		tsp = &ts;
	}
	if (nowait) {
		ts.tv_sec = ts.tv_nsec = 0;
		tsp = &ts;
	}
	r = (int)host_sig_call(SYS_ppoll, (long)pfd, (long)n, (long)tsp, 0, 0);
	if (r < 0)
		return r == -EINTR ? 0 : r;
	if (r == 0 && nowait)
		return 0;
	if (r == 0) {
		ev->kind = PLAT_EV_TIMEOUT;
		return 1;
	}
	if (bell_fd >= 0 && pfd[1].revents != 0)
		while (read(bell_fd, &rung, sizeof(rung)) > 0)
			;
	for (unsigned i = first; i < n; i++) {
		if (pfd[i].revents != 0) {
			ev->kind = i < ncons ? PLAT_EV_CONSOLE : PLAT_EV_NET;
			ev->fd = pfd[i].fd;
			return 1;
		}
	}
	if (pfd[0].revents != 0) {
		child = true;
		while (read(sigchld_fd, &ssi, sizeof(ssi)) > 0)
			;
	}
	return 0;
}

bool
event_child_take(void)
{
	bool was = child;

	child = false;
	return was;
}
