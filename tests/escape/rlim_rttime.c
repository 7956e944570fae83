/*
 * Verifies RLIMIT_RTTIME (getrlimit(2)): a thread of a real-time policy
 * that computes past the soft limit without blocking gets SIGXCPU, and
 * the soft limit then moves a second on; at the hard limit the process is
 * killed with SIGKILL; a thread that blocks in a system call now and then
 * starts counting again each time, and a thread of SCHED_OTHER is never
 * counted.  As uid 65534 no real-time policy may be taken (EPERM: its
 * RLIMIT_RTPRIO is 0).  Needs root for the real-time policies.
 */
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "../guest/guest.h"

#define MS	1000000LL

static volatile int xcpu;

static void
on_xcpu(int sig)
{
	(void)sig;
	xcpu++;
}

static int64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Computes for ns of CPU time, sleeping 1 ms every nap ns of it if nap. */
static void
compute(int64_t ns, int64_t nap)
{
	struct timespec ms = { 0, 1000000 };
	int64_t t0 = thread_cpu_ns(), last = t0, t;

	while ((t = thread_cpu_ns()) - t0 < ns) {
		if (nap > 0 && t - last >= nap) {
			nanosleep(&ms, NULL);
			last = thread_cpu_ns();
		}
	}
}

static bool
set_fifo(bool on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };

	/* The raw call: musl's sched_setscheduler() only says ENOSYS. */
	return syscall(SYS_sched_setscheduler, 0,
	    on ? SCHED_FIFO : SCHED_OTHER, &sp) == 0;
}

static void
set_rttime(uint64_t soft_us, uint64_t hard_us)
{
	struct rlimit rl = { soft_us, hard_us };

	CHECK_OK(setrlimit(RLIMIT_RTTIME, &rl));
}

static void
test_soft(void)
{
	struct rlimit rl;
	int64_t t0;

	xcpu = 0;
	set_rttime(100000, RLIM_INFINITY);
	compute(150 * MS, 0);
	CHECK_EQ(xcpu, 0);	/* SCHED_OTHER: not counted */
	if (!CHECK(set_fifo(true), "SCHED_FIFO"))
		return;
	t0 = thread_cpu_ns();
	while (xcpu == 0 && thread_cpu_ns() - t0 < 2000 * MS)
		;
	CHECK(xcpu == 1, "SIGXCPU %d times", xcpu);
	CHECK(thread_cpu_ns() - t0 >= 90 * MS, "SIGXCPU after %lld ms",
	    (long long)((thread_cpu_ns() - t0) / MS));
	CHECK_OK(getrlimit(RLIMIT_RTTIME, &rl));
	CHECK_EQ(rl.rlim_cur, 1100000);
	set_fifo(false);

	/* Blocking restarts the count. */
	xcpu = 0;
	set_rttime(150000, RLIM_INFINITY);
	set_fifo(true);
	compute(250 * MS, 40 * MS);
	set_fifo(false);
	CHECK_EQ(xcpu, 0);
}

static void
test_hard(void)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGXCPU, SIG_IGN);
		set_rttime(50000, 150000);
		if (!set_fifo(true))
			_exit(3);
		compute(2000 * MS, 0);
		_exit(4);
	}
	CHECK(pid > 0, "fork");
	if (pid > 0 && waitpid(pid, &st, 0) == pid)
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
		    "at the hard limit: status %#x", st);
}

int
main(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	pid_t pid;
	int st = 0;

	if (getuid() != 0)
		return guest_skip("needs root for SCHED_FIFO");
	signal(SIGXCPU, on_xcpu);
	test_soft();
	test_hard();
	pid = fork();
	if (pid == 0) {
		if (syscall(SYS_setresgid, 65534, 65534, 65534) < 0 ||
		    syscall(SYS_setresuid, 65534, 65534, 65534) < 0)
			_exit(77);
		CHECK_ERR(syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &sp),
		    EPERM);
		_exit(guest_done());
	}
	if (pid > 0 && waitpid(pid, &st, 0) == pid)
		CHECK(WIFEXITED(st) && (WEXITSTATUS(st) == 0 ||
		    WEXITSTATUS(st) == 77), "as uid 65534: status %#x", st);
	return guest_done();
}
