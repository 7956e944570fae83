/*
 * Verifies CPU-time accounting: each thread's CPU clock counts its own
 * time and the process clock all of it; getrusage's RUSAGE_SELF,
 * RUSAGE_THREAD and RUSAGE_CHILDREN (only waited-for children) and
 * times(); ITIMER_PROF, ITIMER_VIRTUAL and POSIX timers on the CPU
 * clocks firing in a loop without syscalls; RLIMIT_CPU's SIGXCPU and then SIGKILL; a sleep on the process
 * clock; and the errnos of bad clocks and bad which values.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>

#include "thr_common.h"

#define MS		1000000LL
#define NSEC		1000000000LL
/* A loop this long takes seconds: a timer that never fires ends it. */
#define SPIN_MAX	4000000000ULL

static int64_t
clock_ns(clockid_t clk)
{
	struct timespec ts = { 0, 0 };

	if (syscall(SYS_clock_gettime, clk, &ts) != 0)
		return -1;
	return (int64_t)ts.tv_sec * NSEC + ts.tv_nsec;
}

static int64_t
tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * NSEC + tv->tv_usec * 1000;
}

static int64_t
ru_ns(int who)
{
	struct rusage ru;

	if (syscall(SYS_getrusage, who, &ru) != 0)
		return -1;
	return tv_ns(&ru.ru_utime) + tv_ns(&ru.ru_stime);
}

/*
 * Spin until clk has gone on by ns, reading it only now and then; a wall
 * clock bound keeps a clock that does not move from hanging the test.
 */
static void
spin_on(clockid_t clk, int64_t ns)
{
	int64_t end = clock_ns(clk) + ns;
	int64_t wall_end = clock_ns(CLOCK_MONOTONIC) + 20 * ns;

	while (clock_ns(clk) < end && clock_ns(CLOCK_MONOTONIC) < wall_end)
		for (volatile int i = 0; i < 200000; i++)
			;
}

#define PROC_CLOCK(pid)	((clockid_t)((~(unsigned)(pid) << 3) | 2))
#define THREAD_CLOCK(tid) ((clockid_t)((~(unsigned)(tid) << 3) | 6))

/* --- thread clocks --- */

static volatile uint32_t go, stop;

static void *
spinner(void *arg)
{
	spin_on(CLOCK_THREAD_CPUTIME_ID, 100 * MS);
	go = 1;
	futex_wake((void *)&go, 1);
	/* Wait, not spin, until the main thread has read our clock. */
	while (!stop)
		futex_wait((void *)&stop, 0, 1000);
	return arg;
}

static void *
idler(void *arg)
{
	while (!stop)
		futex_wait((void *)&stop, 0, 1000);
	return arg;
}

static void
test_thread_clocks(void)
{
	pthread_t spin, idle;
	clockid_t cs, ci;
	int64_t t0 = clock_ns(CLOCK_MONOTONIC), s, i, p, m;

	CHECK_EQ(pthread_create(&idle, NULL, idler, NULL), 0);
	CHECK_EQ(pthread_create(&spin, NULL, spinner, NULL), 0);
	while (!go)
		futex_wait((void *)&go, 0, 1000);
	CHECK_EQ(pthread_getcpuclockid(spin, &cs), 0);
	CHECK_EQ(pthread_getcpuclockid(idle, &ci), 0);
	s = clock_ns(cs);
	i = clock_ns(ci);
	m = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	p = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	CHECK(s >= 80 * MS, "spinning thread's clock %lld ns", (long long)s);
	CHECK(s <= clock_ns(CLOCK_MONOTONIC) - t0,
	    "a thread's clock ran faster than the wall clock");
	CHECK(i >= 0 && i < 30 * MS, "idle thread's clock %lld ns",
	    (long long)i);
	CHECK(m >= 0 && m < 50 * MS, "main thread's clock %lld ns",
	    (long long)m);
	CHECK(p >= s + i + m, "process %lld < threads %lld", (long long)p,
	    (long long)(s + i + m));
	/* Its own thread's clock, through pthread_getcpuclockid(self). */
	CHECK_EQ(pthread_getcpuclockid(pthread_self(), &cs), 0);
	CHECK(clock_ns(cs) >= m && clock_ns(cs) < 50 * MS,
	    "own clock by id");
	stop = 1;
	futex_wake((void *)&stop, 2);
	CHECK_EQ(pthread_join(spin, NULL), 0);
	CHECK_EQ(pthread_join(idle, NULL), 0);
	/* An exited thread's time stays in the process's. */
	CHECK(clock_ns(CLOCK_PROCESS_CPUTIME_ID) >= p, "process clock fell");
	CHECK(ru_ns(RUSAGE_SELF) >= 80 * MS, "RUSAGE_SELF %lld",
	    (long long)ru_ns(RUSAGE_SELF));
	CHECK(ru_ns(RUSAGE_THREAD) < 50 * MS, "RUSAGE_THREAD %lld",
	    (long long)ru_ns(RUSAGE_THREAD));
	/* Threads made after the spinner ended start from nothing. */
	for (int n = 0; n < 2; n++) {
		stop = 0;
		CHECK_EQ(pthread_create(&idle, NULL, idler, NULL), 0);
		CHECK_EQ(pthread_getcpuclockid(idle, &ci), 0);
		i = clock_ns(ci);
		CHECK(i >= 0 && i < 30 * MS, "new thread's clock %lld ns",
		    (long long)i);
		stop = 1;
		futex_wake((void *)&stop, 1);
		CHECK_EQ(pthread_join(idle, NULL), 0);
	}
}

/* A sleep on the process clock ends once another thread spun that long. */
static void *
spin_until_stop(void *arg)
{
	while (!stop)
		for (volatile int i = 0; i < 100000; i++)
			;
	return arg;
}

static void
test_sleep_process_clock(void)
{
	struct timespec d = { 0, 30 * MS };
	int64_t p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	pthread_t t;

	stop = 0;
	CHECK_EQ(pthread_create(&t, NULL, spin_until_stop, NULL), 0);
	CHECK_EQ(syscall(SYS_clock_nanosleep, CLOCK_PROCESS_CPUTIME_ID, 0, &d,
	    NULL), 0);
	CHECK(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p0 >= 30 * MS,
	    "woke before 30 ms of CPU time");
	stop = 1;
	CHECK_EQ(pthread_join(t, NULL), 0);
	/*
	 * Its own thread's clock does not move while it sleeps: EINVAL by
	 * id, and no sleeping at all on CLOCK_THREAD_CPUTIME_ID (glibc
	 * turns that into the EINVAL clock_nanosleep(2) names).
	 */
	CHECK_ERR(syscall(SYS_clock_nanosleep, THREAD_CLOCK(gettid_raw()), 0,
	    &d, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_THREAD_CPUTIME_ID, 0, &d,
	    NULL), EOPNOTSUPP);
}

/* --- children --- */

static pid_t
spin_child(int64_t ns)
{
	pid_t pid = fork();

	if (pid == 0) {
		spin_on(CLOCK_PROCESS_CPUTIME_ID, ns);
		_exit(0);
	}
	return pid;
}

static void
test_children(void)
{
	int64_t c0 = ru_ns(RUSAGE_CHILDREN), c1;
	struct rusage ru;
	struct tms tms;
	siginfo_t si;
	clockid_t clk;
	pid_t a, b;
	int st;

	a = spin_child(100 * MS);
	if (!CHECK(a > 0, "fork"))
		return;
	/* Another process's clock may be read while it lives. */
	CHECK_EQ(clock_getcpuclockid(a, &clk), 0);
	CHECK(clock_ns(clk) >= 0, "child's clock");
	CHECK_EQ(wait4(a, &st, 0, &ru), a);
	CHECK(tv_ns(&ru.ru_utime) + tv_ns(&ru.ru_stime) >= 80 * MS,
	    "wait4's rusage");
	c1 = ru_ns(RUSAGE_CHILDREN);
	CHECK(c1 - c0 >= 80 * MS, "RUSAGE_CHILDREN after wait: %lld",
	    (long long)(c1 - c0));
	/* Reaped: its clock is gone. */
	CHECK_ERR(syscall(SYS_clock_getres, clk, NULL), EINVAL);
	CHECK(times(&tms) != (clock_t)-1, "times");
	CHECK(tms.tms_cutime + tms.tms_cstime >= 8, "times' children");

	b = spin_child(100 * MS);
	if (!CHECK(b > 0, "fork"))
		return;
	/* Exited but not waited for: not counted yet. */
	CHECK_EQ(waitid(P_PID, b, &si, WEXITED | WNOWAIT), 0);
	CHECK(ru_ns(RUSAGE_CHILDREN) - c1 < 30 * MS,
	    "an unwaited child counted");
	CHECK_EQ(waitpid(b, &st, 0), b);
	CHECK(ru_ns(RUSAGE_CHILDREN) - c1 >= 80 * MS,
	    "the second child not counted");
}

/* --- CPU interval timers --- */

static volatile int fired;

static void
on_timer(int sig)
{
	(void)sig;
	fired++;
}

/* Run a loop without syscalls until n signals came (or it gives up). */
static int
loop_until(int n)
{
	fired = 0;
	for (uint64_t i = 0; i < SPIN_MAX && fired < n; i++)
		__asm__ volatile("" ::: "memory");
	return fired;
}

static void
test_itimer(int which, int sig)
{
	struct itimerval v = { { 0, 10000 }, { 0, 20000 } }, old;

	CHECK(signal(sig, on_timer) != SIG_ERR, "signal");
	CHECK_EQ(syscall(SYS_setitimer, which, &v, NULL), 0);
	CHECK_EQ(syscall(SYS_getitimer, which, &old), 0);
	/* Linux may round the value up to its scheduler tick. */
	CHECK(old.it_interval.tv_usec == 10000 && old.it_value.tv_sec == 0 &&
	    old.it_value.tv_usec > 0 && old.it_value.tv_usec <= 30000,
	    "getitimer(%d): %ld.%06ld", which, (long)old.it_value.tv_sec,
	    (long)old.it_value.tv_usec);
	CHECK(loop_until(3) >= 3, "timer %d fired %d times", which, fired);
	memset(&v, 0, sizeof(v));
	CHECK_EQ(syscall(SYS_setitimer, which, &v, &old), 0);
	CHECK_EQ(old.it_interval.tv_usec, 10000);
	CHECK_EQ(syscall(SYS_getitimer, which, &old), 0);
	CHECK(old.it_value.tv_sec == 0 && old.it_value.tv_usec == 0,
	    "disarmed");
	signal(sig, SIG_DFL);
}

/* A POSIX timer on a CPU clock fires during the same kind of loop. */
static void
test_ptimer(clockid_t clk)
{
	struct sigevent ev;
	struct itimerspec v = { { 0, 10 * MS }, { 0, 20 * MS } }, cur;
	int id = -1;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGUSR1;
	CHECK(signal(SIGUSR1, on_timer) != SIG_ERR, "signal");
	if (!CHECK(syscall(SYS_timer_create, clk, &ev, &id) == 0,
	    "timer_create(%d)", (int)clk))
		return;
	CHECK_EQ(syscall(SYS_timer_settime, id, 0, &v, NULL), 0);
	CHECK_EQ(syscall(SYS_timer_gettime, id, &cur), 0);
	CHECK(cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec > 0 &&
	    cur.it_value.tv_nsec <= 30 * MS, "timer_gettime: %ld",
	    cur.it_value.tv_nsec);
	CHECK(loop_until(3) >= 3, "timer on clock %d fired %d times",
	    (int)clk, fired);
	CHECK_EQ(syscall(SYS_timer_delete, id), 0);
	signal(SIGUSR1, SIG_DFL);
}

/* --- RLIMIT_CPU --- */

static int xcpu_fd;

static void
on_xcpu(int sig)
{
	(void)sig;
	(void)!write(xcpu_fd, "x", 1);
}

static void
test_rlimit_cpu(void)
{
	struct rlimit rl = { 1, 2 };
	int fds[2], st;
	char buf[8];
	pid_t pid;

	CHECK_OK(pipe(fds));
	pid = fork();
	if (pid == 0) {
		xcpu_fd = fds[1];
		signal(SIGXCPU, on_xcpu);
		if (setrlimit(RLIMIT_CPU, &rl) != 0)
			_exit(2);
		/* SIGXCPU at 1 s, SIGKILL at 2 s: this loop never ends. */
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	close(fds[1]);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	    "status %#x, want SIGKILL", st);
	CHECK(read(fds[0], buf, sizeof(buf)) >= 1, "no SIGXCPU");
	close(fds[0]);
	CHECK_EQ(getrlimit(RLIMIT_CPU, &rl), 0);
	CHECK(rl.rlim_cur == RLIM_INFINITY, "our own limit changed");
}

/* --- errnos --- */

static void
test_errnos(void)
{
	struct timespec ts;
	struct itimerval v;
	pid_t child;
	int st;

	CHECK_EQ(syscall(SYS_clock_getres, CLOCK_PROCESS_CPUTIME_ID, &ts), 0);
	CHECK(ts.tv_sec == 0 && ts.tv_nsec == 1, "process clock res %ld",
	    ts.tv_nsec);
	CHECK_EQ(syscall(SYS_clock_getres, CLOCK_THREAD_CPUTIME_ID, &ts), 0);
	CHECK_EQ(syscall(SYS_clock_getres, PROC_CLOCK(getpid()), &ts), 0);
	CHECK_EQ(syscall(SYS_clock_gettime, PROC_CLOCK(0), &ts), 0);
	CHECK_EQ(syscall(SYS_clock_gettime, THREAD_CLOCK(gettid_raw()), &ts),
	    0);
	/* No such process; CPUCLOCK_MAX is not a sample. */
	CHECK_ERR(syscall(SYS_clock_getres, PROC_CLOCK(0x3ffffff0), &ts),
	    EINVAL);
	CHECK_ERR(syscall(SYS_clock_gettime, PROC_CLOCK(0x3ffffff0), &ts),
	    EINVAL);
	CHECK_ERR(syscall(SYS_clock_gettime, (clockid_t)((~0u << 3) | 3),
	    &ts), EINVAL);
	/* Another process's thread clock is not ours to read. */
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	CHECK_ERR(syscall(SYS_clock_gettime, THREAD_CLOCK(child), &ts),
	    EINVAL);
	CHECK_EQ(syscall(SYS_clock_gettime, PROC_CLOCK(child), &ts), 0);
	kill(child, SIGKILL);
	CHECK_EQ(waitpid(child, &st, 0), child);
	CHECK_ERR(syscall(SYS_getrusage, 7, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_getitimer, 3, &v), EINVAL);
	CHECK_ERR(syscall(SYS_setitimer, -1, &v, NULL), EINVAL);
}

int
main(void)
{
	test_thread_clocks();
	test_sleep_process_clock();
	test_children();
	test_itimer(ITIMER_PROF, SIGPROF);
	test_itimer(ITIMER_VIRTUAL, SIGVTALRM);
	test_ptimer(CLOCK_PROCESS_CPUTIME_ID);
	test_ptimer(CLOCK_THREAD_CPUTIME_ID);
	test_rlimit_cpu();
	test_errnos();
	return guest_done();
}
