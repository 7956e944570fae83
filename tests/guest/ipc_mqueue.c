/*
 * Verifies POSIX message queues: mq_open's checks and errnos, priority
 * order, O_NONBLOCK, absolute timeouts, EMSGSIZE and EBADF, mq_getsetattr,
 * the descriptor's read line and poll/epoll readiness, a receiver woken
 * by a sender in a forked child, EINTR, notification by signal (SI_MESGQ,
 * the sender's pid) and by thread (libc's SIGEV_THREAD), a registration
 * gone with its process, RLIMIT_MSGQUEUE by real uid, and unlink.
 */
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>

#include "guest.h"

static char qname[64];

static long
mqopen(const char *name, int oflag, unsigned mode, struct mq_attr *attr)
{
	return syscall(SYS_mq_open, name, oflag, mode, attr);
}

static long
snd(long fd, const char *text, unsigned prio, const struct timespec *ts)
{
	return syscall(SYS_mq_timedsend, fd, text, strlen(text), prio, ts);
}

static long
rcv(long fd, char *buf, size_t len, unsigned *prio,
    const struct timespec *ts)
{
	memset(buf, 0, len);
	return syscall(SYS_mq_timedreceive, fd, buf, len, prio, ts);
}

/* A new queue of maxmsg messages of msgsize bytes, named qname. */
static long
fresh(int oflag, long maxmsg, long msgsize)
{
	struct mq_attr a = { .mq_maxmsg = maxmsg, .mq_msgsize = msgsize };

	syscall(SYS_mq_unlink, qname);
	return mqopen(qname, oflag | O_CREAT | O_EXCL, 0600, &a);
}

static void
test_open(void)
{
	struct mq_attr a = { .mq_maxmsg = 0, .mq_msgsize = 16 };
	char longname[300];
	long fd;

	syscall(SYS_mq_unlink, qname);
	CHECK_ERR(mqopen(qname, O_RDWR, 0, NULL), ENOENT);
	CHECK_ERR(mqopen("", O_RDWR | O_CREAT, 0600, NULL), ENOENT);
	CHECK_ERR(mqopen("a/b", O_RDWR | O_CREAT, 0600, NULL), EACCES);
	memset(longname, 'x', 256);
	longname[256] = '\0';
	CHECK_ERR(mqopen(longname, O_RDWR | O_CREAT, 0600, NULL),
	    ENAMETOOLONG);
	CHECK_ERR(mqopen(qname, O_RDWR | O_CREAT, 0600, &a), EINVAL);
	a = (struct mq_attr){ .mq_maxmsg = 4, .mq_msgsize = 0 };
	CHECK_ERR(mqopen(qname, O_RDWR | O_CREAT, 0600, &a), EINVAL);
	a = (struct mq_attr){ .mq_maxmsg = 65537, .mq_msgsize = 16 };
	CHECK_ERR(mqopen(qname, O_RDWR | O_CREAT, 0600, &a), EINVAL);
	CHECK_ERR(mqopen(qname, O_RDWR | O_CREAT, 0600, (void *)8), EFAULT);
	fd = CHECK_OK(mqopen(qname, O_RDWR | O_CREAT | O_CLOEXEC, 0640,
	    NULL));
	CHECK_EQ(fcntl((int)fd, F_GETFD), FD_CLOEXEC);
	CHECK_OK(syscall(SYS_mq_getsetattr, fd, NULL, &a));
	CHECK_EQ(a.mq_maxmsg, 10);
	CHECK_EQ(a.mq_msgsize, 8192);
	CHECK_ERR(mqopen(qname, O_RDWR | O_CREAT | O_EXCL, 0600, NULL),
	    EEXIST);
	CHECK_ERR(mqopen(qname, O_ACCMODE, 0, NULL), EINVAL);
	/* The attributes are read whatever oflag says. */
	CHECK_ERR(mqopen(qname, O_RDWR, 0, (void *)8), EFAULT);
	close((int)fd);
	CHECK_OK(syscall(SYS_mq_unlink, qname));
	CHECK_ERR(syscall(SYS_mq_unlink, qname), ENOENT);
}

static void
test_order(void)
{
	static const char *want[] = { "b", "d", "a", "c" };
	static const unsigned wprio[] = { 5, 5, 1, 1 };
	long fd = fresh(O_RDWR, 8, 16), ro, wo;
	char buf[16];
	unsigned prio;

	CHECK_OK(snd(fd, "a", 1, NULL));
	CHECK_OK(snd(fd, "b", 5, NULL));
	CHECK_OK(snd(fd, "c", 1, NULL));
	CHECK_OK(snd(fd, "d", 5, NULL));
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(rcv(fd, buf, sizeof(buf), &prio, NULL), 1);
		CHECK(strcmp(buf, want[i]) == 0, "message %d: %s", i, buf);
		CHECK_EQ(prio, wprio[i]);
	}
	CHECK_ERR(snd(fd, "x", 32768, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_mq_timedsend, fd, buf, 17, 0, NULL), EMSGSIZE);
	CHECK_ERR(rcv(fd, buf, 15, NULL, NULL), EMSGSIZE);
	ro = CHECK_OK(mqopen(qname, O_RDONLY, 0, NULL));
	wo = CHECK_OK(mqopen(qname, O_WRONLY, 0, NULL));
	CHECK_ERR(snd(ro, "x", 0, NULL), EBADF);
	CHECK_ERR(rcv(wo, buf, sizeof(buf), NULL, NULL), EBADF);
	CHECK_ERR(snd(0x7fff, "x", 0, NULL), EBADF);
	CHECK_ERR(snd(1, "x", 0, NULL), EBADF);
	close((int)ro);
	close((int)wo);
	close((int)fd);
}

static void
test_nonblock_timeout(void)
{
	long fd = fresh(O_RDWR | O_NONBLOCK, 1, 16);
	struct mq_attr na = { 0 }, oa;
	struct timespec ts, t0, t1;
	char buf[16];

	CHECK_ERR(rcv(fd, buf, sizeof(buf), NULL, NULL), EAGAIN);
	CHECK_OK(snd(fd, "x", 0, NULL));
	CHECK_ERR(snd(fd, "y", 0, NULL), EAGAIN);
	CHECK_OK(syscall(SYS_mq_getsetattr, fd, &na, &oa));
	CHECK_EQ(oa.mq_flags, O_NONBLOCK);
	CHECK_EQ(oa.mq_curmsgs, 1);
	na.mq_flags = O_APPEND;
	CHECK_ERR(syscall(SYS_mq_getsetattr, fd, &na, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_mq_getsetattr, 1, NULL, &oa), EBADF);
	CHECK_OK(syscall(SYS_mq_getsetattr, fd, NULL, &oa));
	CHECK_EQ(oa.mq_flags, 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 100000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_ERR(snd(fd, "y", 0, &ts), ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK((t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec -
	    t0.tv_nsec >= 80000000L, "timed send returned early");
	CHECK_OK(rcv(fd, buf, sizeof(buf), NULL, NULL));
	ts.tv_sec = 0;
	ts.tv_nsec = 1000;
	CHECK_ERR(rcv(fd, buf, sizeof(buf), NULL, &ts), ETIMEDOUT);
	ts.tv_nsec = 1000000000;
	CHECK_ERR(rcv(fd, buf, sizeof(buf), NULL, &ts), EINVAL);
	CHECK_ERR(rcv(fd, buf, sizeof(buf), NULL, (void *)8), EFAULT);
	/* Linux checks the timeout even when the call need not wait. */
	CHECK_OK(snd(fd, "z", 0, NULL));
	CHECK_ERR(rcv(fd, buf, sizeof(buf), NULL, &ts), EINVAL);
	CHECK_ERR(snd(fd, "z", 0, &ts), EINVAL);
	close((int)fd);
}

static void
test_file(void)
{
	long fd = fresh(O_RDWR, 2, 16);
	struct pollfd pfd = { .fd = (int)fd, .events = POLLIN | POLLOUT };
	struct epoll_event ev = { .events = EPOLLIN }, out;
	char line[128];
	int ep = epoll_create1(0);

	CHECK_EQ(poll(&pfd, 1, 0), 1);
	CHECK_EQ(pfd.revents, POLLOUT);
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, (int)fd, &ev));
	CHECK_EQ(epoll_wait(ep, &out, 1, 0), 0);
	CHECK_OK(snd(fd, "abc", 0, NULL));
	CHECK_EQ(epoll_wait(ep, &out, 1, 0), 1);
	CHECK_OK(snd(fd, "de", 0, NULL));
	CHECK_EQ(poll(&pfd, 1, 0), 1);
	CHECK_EQ(pfd.revents, POLLIN);
	memset(line, 0, sizeof(line));
	CHECK_EQ(read((int)fd, line, sizeof(line)), 60);
	CHECK(strcmp(line, "QSIZE:5          NOTIFY:0     SIGNO:0     "
	    "NOTIFY_PID:0     \n") == 0, "read: %s", line);
	CHECK_ERR(write((int)fd, "x", 1), EINVAL);
	close(ep);
	close((int)fd);
}

static void
on_alarm(int sig __attribute__((unused)))
{
}

/* A forked child sends after the parent waits; a signal ends a wait. */
static void
test_wait(void)
{
	long fd = fresh(O_RDWR, 2, 16);
	struct sigaction sa = { .sa_handler = on_alarm };
	char buf[16];
	unsigned prio;
	pid_t pid;
	int st;

	if ((pid = fork()) == 0) {
		usleep(100000);
		_exit(snd(fd, "hi", 7, NULL) == 0 ? 0 : 1);
	}
	CHECK_EQ(rcv(fd, buf, sizeof(buf), &prio, NULL), 2);
	CHECK_EQ(prio, 7);
	waitpid(pid, &st, 0);
	CHECK_EQ(st, 0);
	sigaction(SIGALRM, &sa, NULL);
	ualarm(100000, 0);
	CHECK_ERR(rcv(fd, buf, sizeof(buf), NULL, NULL), EINTR);
	close((int)fd);
}

static void
test_notify_signal(void)
{
	long fd = fresh(O_RDWR, 4, 16);
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL,
	    .sigev_signo = SIGUSR1, .sigev_value.sival_int = 42 };
	struct timespec ts = { 2, 0 };
	siginfo_t si;
	char line[128];
	sigset_t set;
	pid_t pid;
	int st;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	CHECK_OK(syscall(SYS_mq_notify, fd, &ev));
	CHECK_ERR(syscall(SYS_mq_notify, fd, &ev), EBUSY);
	memset(line, 0, sizeof(line));
	CHECK_OK(read((int)fd, line, sizeof(line)));
	CHECK(strncmp(line, "QSIZE:0          NOTIFY:0     SIGNO:10    ",
	    42) == 0, "read: %s", line);
	if ((pid = fork()) == 0) {
		if (syscall(SYS_mq_notify, fd, &ev) != -1 || errno != EBUSY)
			_exit(2);
		_exit(snd(fd, "n", 0, NULL) == 0 ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	CHECK_EQ(st, 0);
	CHECK_EQ(sigtimedwait(&set, &si, &ts), SIGUSR1);
	CHECK_EQ(si.si_code, SI_MESGQ);
	CHECK_EQ(si.si_value.sival_int, 42);
	CHECK_EQ(si.si_pid, pid);
	CHECK_EQ(si.si_uid, getuid());
	/* Once told, no longer registered; a non-empty queue tells no one. */
	CHECK_OK(syscall(SYS_mq_notify, fd, &ev));
	CHECK_OK(snd(fd, "m", 0, NULL));
	ts.tv_sec = 0;
	ts.tv_nsec = 100000000;
	CHECK_ERR(sigtimedwait(&set, &si, &ts), EAGAIN);
	CHECK_OK(syscall(SYS_mq_notify, fd, NULL));
	CHECK_OK(syscall(SYS_mq_notify, fd, NULL));
	ev.sigev_notify = 1234;
	CHECK_ERR(syscall(SYS_mq_notify, fd, &ev), EINVAL);
	ev = (struct sigevent){ .sigev_notify = SIGEV_SIGNAL,
	    .sigev_signo = 65 };
	CHECK_ERR(syscall(SYS_mq_notify, fd, &ev), EINVAL);
	ev.sigev_signo = SIGUSR1;
	CHECK_ERR(syscall(SYS_mq_notify, 1, &ev), EBADF);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	close((int)fd);
}

/* A registration ends with its process's descriptors of the queue. */
static void
test_notify_exit(void)
{
	long fd = fresh(O_RDWR, 4, 16);
	struct sigevent ev = { .sigev_notify = SIGEV_NONE };
	char line[128];
	pid_t pid;
	int st;

	if ((pid = fork()) == 0)
		_exit(syscall(SYS_mq_notify, fd, &ev) == 0 ? 0 : 1);
	waitpid(pid, &st, 0);
	CHECK_EQ(st, 0);
	memset(line, 0, sizeof(line));
	CHECK_OK(read((int)fd, line, sizeof(line)));
	CHECK(strstr(line, "NOTIFY_PID:0 ") != NULL, "read: %s", line);
	CHECK_OK(syscall(SYS_mq_notify, fd, &ev));
	memset(line, 0, sizeof(line));
	CHECK_EQ(lseek((int)fd, 0, SEEK_SET), 0);
	CHECK_OK(read((int)fd, line, sizeof(line)));
	CHECK(strstr(line, "NOTIFY:1 ") != NULL, "read: %s", line);
	close((int)fd);
}

static pthread_mutex_t nt_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nt_cond = PTHREAD_COND_INITIALIZER;
static int nt_value;

static void
notified(union sigval v)
{
	pthread_mutex_lock(&nt_lock);
	nt_value = v.sival_int;
	pthread_cond_signal(&nt_cond);
	pthread_mutex_unlock(&nt_lock);
}

/* libc's SIGEV_THREAD: a netlink socket hears the kernel's cookie. */
static void
test_notify_thread(void)
{
	long fd = fresh(O_RDWR, 4, 16);
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD,
	    .sigev_notify_function = notified, .sigev_value.sival_int = 7 };
	struct timespec ts;
	int r = 0;

	CHECK_OK(mq_notify((mqd_t)fd, &ev));
	CHECK_OK(snd(fd, "t", 0, NULL));
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	pthread_mutex_lock(&nt_lock);
	while (nt_value == 0 && r == 0)
		r = pthread_cond_timedwait(&nt_cond, &nt_lock, &ts);
	pthread_mutex_unlock(&nt_lock);
	CHECK_EQ(nt_value, 7);
	close((int)fd);
}

/* mq_overview(7)'s charge for one message of 1024 bytes. */
#define ONE_QUEUE_BYTES (48 + 1024 + 48)

/*
 * The charge is per real uid, so that root runs this in a child of a uid
 * of its own: another run of the test at the same time is no one else's.
 */
static void
test_rlimit_as(void)
{
	struct rlimit rl = { ONE_QUEUE_BYTES, ONE_QUEUE_BYTES };
	long fd;

	CHECK_OK(setrlimit(RLIMIT_MSGQUEUE, &rl));
	fd = CHECK_OK(fresh(O_RDWR, 1, 1024));
	CHECK_OK(syscall(SYS_mq_unlink, qname));
	CHECK_ERR(fresh(O_RDWR, 1, 1024), EMFILE);
	close((int)fd);
	fd = CHECK_OK(fresh(O_RDWR, 1, 1024));
	CHECK_OK(syscall(SYS_mq_unlink, qname));
	close((int)fd);
	rl.rlim_cur = ONE_QUEUE_BYTES - 1;
	CHECK_OK(setrlimit(RLIMIT_MSGQUEUE, &rl));
	CHECK_ERR(fresh(O_RDWR, 1, 1024), EMFILE);
}

static void
test_rlimit(void)
{
	uid_t uid = 50000 + (uid_t)getpid() % 10000;
	long fd, fd2;
	pid_t pid;
	int st;

	syscall(SYS_mq_unlink, qname);
	if ((pid = fork()) == 0) {
		guest_failures = 0;
		if (getuid() == 0 && setresuid(uid, uid, uid) != 0)
			_exit(2);
		test_rlimit_as();
		_exit(guest_failures != 0);
	}
	waitpid(pid, &st, 0);
	CHECK_EQ(st, 0);
	/* An unlinked queue lives on while open. */
	fd = CHECK_OK(fresh(O_RDWR, 1, 16));
	fd2 = CHECK_OK(mqopen(qname, O_RDWR, 0, NULL));
	CHECK_OK(syscall(SYS_mq_unlink, qname));
	CHECK_OK(snd(fd, "u", 0, NULL));
	close((int)fd);
	{
		char buf[16];

		CHECK_EQ(rcv(fd2, buf, sizeof(buf), NULL, NULL), 1);
	}
	close((int)fd2);
}

int
main(void)
{
	snprintf(qname, sizeof(qname), "vk_mq_test_%d", (int)getpid());
	test_open();
	test_order();
	test_nonblock_timeout();
	test_file();
	test_wait();
	test_notify_signal();
	test_notify_exit();
	test_notify_thread();
	test_rlimit();
	syscall(SYS_mq_unlink, qname);
	return guest_done();
}
