/*
 * Verifies System V semaphores (semget, semop, semtimedop, semctl):
 * all-or-nothing operations, blocking until another process changes the
 * set, timeouts, EINTR from a signal, EIDRM for a set removed under a
 * waiter, GETNCNT and GETZCNT while one waits, a change that lets only
 * some waiters go (and one whose completion lets an earlier waiter go,
 * and one whose IPC_NOWAIT operation fails once it runs), SEM_UNDO
 * applied at exit
 * and cleared by SETVAL, the *_STAT and *_INFO commands, permissions,
 * and Linux's errno for each bad argument.
 */
#include <sys/ipc.h>
#include <sys/sem.h>

#include "guest.h"

#ifndef SEM_STAT_ANY
#define SEM_STAT_ANY 20
#endif

static long
semget_(key_t key, int nsems, int flg)
{
	return syscall(SYS_semget, key, nsems, flg);
}

static long
semop_(long id, struct sembuf *sops, unsigned n)
{
	return syscall(SYS_semop, id, sops, n);
}

static long
semtimedop_(long id, struct sembuf *sops, unsigned n,
    const struct timespec *ts)
{
	return syscall(SYS_semtimedop, id, sops, n, ts);
}

static long
semctl_(long id, int num, int cmd, unsigned long arg)
{
	return syscall(SYS_semctl, id, num, cmd, arg);
}

static long
op1(long id, unsigned short num, short op, short flg)
{
	struct sembuf sb = { num, op, flg };

	return semop_(id, &sb, 1);
}

/* Wait until GETNCNT (or GETZCNT) of num reaches want, up to 5 s. */
static bool
wait_cnt(long id, int num, int cmd, long want)
{
	for (int i = 0; i < 5000; i++) {
		if (semctl_(id, num, cmd, 0) == want)
			return true;
		usleep(1000);
	}
	return false;
}

static void
test_basic(void)
{
	long id = CHECK_OK(semget_(IPC_PRIVATE, 3, 0640));
	unsigned short vals[3] = { 1, 2, 3 }, got[3] = { 0 };
	struct sembuf two[2] = { { 0, -1, 0 }, { 1, -5, IPC_NOWAIT } };
	struct semid_ds ds;

	if (id < 0)
		return;
	CHECK_EQ(semctl_(id, 0, GETVAL, 0), 0);
	CHECK_OK(semctl_(id, 0, SETALL, (unsigned long)vals));
	CHECK_OK(semctl_(id, 0, GETALL, (unsigned long)got));
	CHECK(memcmp(vals, got, sizeof(vals)) == 0, "GETALL");
	CHECK_EQ(semctl_(id, 2, GETVAL, 0), 3);
	CHECK_EQ(semctl_(id, 2, GETPID, 0), getpid());
	/* All or nothing: the second cannot, so the first is undone. */
	CHECK_ERR(semop_(id, two, 2), EAGAIN);
	CHECK_EQ(semctl_(id, 0, GETVAL, 0), 1);
	two[1].sem_op = -2;
	CHECK_OK(semop_(id, two, 2));
	CHECK_EQ(semctl_(id, 0, GETVAL, 0), 0);
	CHECK_EQ(semctl_(id, 1, GETVAL, 0), 0);
	/* Waiting for zero, and ERANGE past SEMVMX. */
	CHECK_OK(op1(id, 0, 0, 0));
	CHECK_ERR(op1(id, 2, 0, IPC_NOWAIT), EAGAIN);
	CHECK_OK(semctl_(id, 2, SETVAL, 32767));
	CHECK_ERR(op1(id, 2, 1, 0), ERANGE);
	CHECK_ERR(semctl_(id, 2, SETVAL, 32768), ERANGE);
	CHECK_ERR(semctl_(id, 2, SETVAL, (unsigned long)-1), ERANGE);
	vals[1] = 40000;
	CHECK_ERR(semctl_(id, 0, SETALL, (unsigned long)vals), ERANGE);
	CHECK_OK(semctl_(id, 0, IPC_STAT, (unsigned long)&ds));
	CHECK_EQ(ds.sem_nsems, 3);
	CHECK_EQ(ds.sem_perm.mode & 0777, 0640);
	CHECK_EQ(ds.sem_perm.cuid, geteuid());
	CHECK(ds.sem_otime > 0, "otime");
	CHECK_EQ(semctl_(id % 32768, 0, SEM_STAT, (unsigned long)&ds), id);
	CHECK_EQ(semctl_(id % 32768, 0, SEM_STAT_ANY, (unsigned long)&ds), id);
	CHECK_OK(semctl_(id, 0, IPC_RMID, 0));
	CHECK_ERR(semctl_(id, 0, GETVAL, 0), EINVAL);
}

/* A child blocks; the parent sees it counted, then lets it go. */
static void
test_block(void)
{
	long id = CHECK_OK(semget_(IPC_PRIVATE, 2, 0600));
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int st = -1;
	pid_t pid;

	if (id < 0)
		return;
	/* A timeout gives EAGAIN. */
	CHECK_ERR(semtimedop_(id, &(struct sembuf){ 0, -1, 0 }, 1, &ts),
	    EAGAIN);
	pid = fork();
	if (pid == 0)
		_exit(op1(id, 0, -1, 0) == 0 && op1(id, 1, 0, 0) == 0 ? 0 : 1);
	CHECK(wait_cnt(id, 0, GETNCNT, 1), "GETNCNT 1");
	CHECK_EQ(semctl_(id, 0, GETZCNT, 0), 0);
	CHECK_OK(semctl_(id, 1, SETVAL, 1));
	CHECK_OK(op1(id, 0, 1, 0));
	CHECK(wait_cnt(id, 1, GETZCNT, 1), "GETZCNT 1");
	CHECK_EQ(semctl_(id, 0, GETNCNT, 0), 0);
	CHECK_OK(op1(id, 1, -1, 0));
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "child %#x", st);
	CHECK_EQ(semctl_(id, 0, GETPID, 0), pid);

	/* Removal fails a waiter with EIDRM. */
	pid = fork();
	if (pid == 0) {
		errno = 0;
		_exit(op1(id, 0, -1, 0) == -1 && errno == EIDRM ? 0 : 1);
	}
	CHECK(wait_cnt(id, 0, GETNCNT, 1), "waiter");
	CHECK_OK(semctl_(id, 0, IPC_RMID, 0));
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "EIDRM: %#x", st);
}

/* A child that runs sops and exits 0 with the errno it expects. */
static pid_t
waiter(long id, struct sembuf *sops, unsigned n, int err)
{
	pid_t pid = fork();

	if (pid == 0) {
		errno = 0;
		_exit((semop_(id, sops, n) == 0 ? 0 : errno) == err ? 0 : 1);
	}
	return pid;
}

static bool
reaped(pid_t pid)
{
	int st = -1;

	return waitpid(pid, &st, 0) == pid && st == 0;
}

/*
 * A change lets go only the waiters whose operations can run; one that
 * completes and changes values lets an earlier one go; one whose later
 * IPC_NOWAIT operation cannot run when it is tried fails with EAGAIN
 * and leaves the values as they were.
 */
static void
test_queue(void)
{
	long id = CHECK_OK(semget_(IPC_PRIVATE, 2, 0600));
	struct sembuf two = { 0, -2, 0 }, one = { 0, -1, 0 };
	struct sembuf x = { 1, -1, 0 }, y[2] = { { 0, -1, 0 }, { 1, 1, 0 } };
	struct sembuf z[2] = { { 0, -1, 0 }, { 1, -1, IPC_NOWAIT } };
	pid_t a, b;

	if (id < 0)
		return;
	a = waiter(id, &two, 1, 0);
	CHECK(wait_cnt(id, 0, GETNCNT, 1), "first waiter");
	b = waiter(id, &one, 1, 0);
	CHECK(wait_cnt(id, 0, GETNCNT, 2), "second waiter");
	CHECK_OK(op1(id, 0, 1, 0));
	CHECK(reaped(b), "the waiter for 1");
	CHECK_EQ(semctl_(id, 0, GETNCNT, 0), 1);
	CHECK_EQ(semctl_(id, 0, GETVAL, 0), 0);
	CHECK_OK(op1(id, 0, 2, 0));
	CHECK(reaped(a), "the waiter for 2");

	a = waiter(id, &x, 1, 0);
	CHECK(wait_cnt(id, 1, GETNCNT, 1), "waiter on 1");
	b = waiter(id, y, 2, 0);
	CHECK(wait_cnt(id, 0, GETNCNT, 1), "waiter on 0");
	CHECK_OK(op1(id, 0, 1, 0));
	CHECK(reaped(b) && reaped(a), "both let go");
	CHECK_EQ(semctl_(id, 0, GETVAL, 0), 0);
	CHECK_EQ(semctl_(id, 1, GETVAL, 0), 0);

	a = waiter(id, z, 2, EAGAIN);
	CHECK(wait_cnt(id, 0, GETNCNT, 1), "IPC_NOWAIT waiter");
	CHECK_OK(op1(id, 0, 1, 0));
	CHECK(reaped(a), "EAGAIN once tried");
	CHECK_EQ(semctl_(id, 0, GETVAL, 0), 1);
	CHECK_OK(semctl_(id, 0, IPC_RMID, 0));
}

static void
on_alarm(int sig)
{
	(void)sig;
}

/* A signal ends the wait with EINTR, SA_RESTART or not. */
static void
test_signal(void)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	long id = CHECK_OK(semget_(IPC_PRIVATE, 1, 0600));

	if (id < 0)
		return;
	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(SIGALRM, &sa, NULL));
	alarm(1);
	CHECK_ERR(op1(id, 0, -1, 0), EINTR);
	CHECK_OK(semctl_(id, 0, IPC_RMID, 0));
	signal(SIGALRM, SIG_DFL);
}

/* SEM_UNDO: what an exiting process did is undone; SETVAL clears it. */
static void
test_undo(void)
{
	long id = CHECK_OK(semget_(IPC_PRIVATE, 2, 0600));
	int st = -1;
	pid_t pid;

	if (id < 0)
		return;
	CHECK_OK(semctl_(id, 0, SETVAL, 5));
	pid = fork();
	if (pid == 0) {
		if (op1(id, 0, -2, SEM_UNDO) != 0 ||
		    op1(id, 1, 3, SEM_UNDO) != 0 || op1(id, 1, 1, 0) != 0)
			_exit(1);
		_exit(semctl_(id, 0, GETVAL, 0) == 3 ? 0 : 2);
	}
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "child %#x", st);
	CHECK_EQ(semctl_(id, 0, GETVAL, 0), 5);
	CHECK_EQ(semctl_(id, 1, GETVAL, 0), 1);
	CHECK_EQ(semctl_(id, 0, GETPID, 0), pid);
	/* Cleared by SETVAL: the exit changes nothing then. */
	pid = fork();
	if (pid == 0) {
		if (op1(id, 0, -2, SEM_UNDO) != 0 ||
		    semctl_(id, 0, SETVAL, 1) != 0)
			_exit(1);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "child %#x", st);
	CHECK_EQ(semctl_(id, 0, GETVAL, 0), 1);
	/* Clamped at zero when the value went below the adjustment. */
	pid = fork();
	if (pid == 0) {
		if (op1(id, 0, 4, SEM_UNDO) != 0 ||
		    semctl_(id, 1, SETVAL, 0) != 0 || op1(id, 0, -5, 0) != 0)
			_exit(1);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "child %#x", st);
	CHECK_EQ(semctl_(id, 0, GETVAL, 0), 0);
	/* The undo range is that of a value: ERANGE beyond it. */
	CHECK_OK(semctl_(id, 0, SETVAL, 32767));
	CHECK_OK(op1(id, 0, -32767, SEM_UNDO));
	CHECK_OK(op1(id, 0, 1, 0));
	CHECK_ERR(op1(id, 0, -1, SEM_UNDO | IPC_NOWAIT), ERANGE);
	CHECK_OK(semctl_(id, 0, IPC_RMID, 0));
}

static void
test_errors(void)
{
	key_t key = (key_t)(0x5f000000 | (getpid() & 0xfffff) << 4);
	struct sembuf sb = { 0, 1, 0 };
	struct timespec bad = { 0, 1000000000 };
	struct seminfo si;
	long id;

	CHECK_ERR(semget_(IPC_PRIVATE, 0, 0600), EINVAL);
	CHECK_ERR(semget_(IPC_PRIVATE, -1, 0600), EINVAL);
	CHECK_ERR(semget_(IPC_PRIVATE, 1 << 30, 0600), EINVAL);
	CHECK_ERR(semget_(key, 1, 0600), ENOENT);
	id = CHECK_OK(semget_(key, 2, IPC_CREAT | 0600));
	if (id < 0)
		return;
	CHECK_EQ(semget_(key, 1, 0), id);
	CHECK_EQ(semget_(key, 0, 0), id);
	CHECK_ERR(semget_(key, 3, 0), EINVAL);
	CHECK_ERR(semget_(key, 1, IPC_CREAT | IPC_EXCL), EEXIST);
	CHECK_ERR(semop_(id, &sb, 0), EINVAL);
	CHECK_ERR(semop_(-1, &sb, 1), EINVAL);
	CHECK_ERR(semop_(id, &sb, 100000), E2BIG);
	CHECK_ERR(semop_(id, NULL, 1), EFAULT);
	CHECK_ERR(semop_(id + 32768, &sb, 1), EINVAL);
	sb.sem_num = 2;
	CHECK_ERR(semop_(id, &sb, 1), EFBIG);
	sb.sem_num = 0;
	CHECK_ERR(semtimedop_(id, &sb, 1, &bad), EINVAL);
	CHECK_ERR(semtimedop_(id, &sb, 1, (void *)8), EFAULT);
	CHECK_ERR(semctl_(id, 2, GETVAL, 0), EINVAL);
	CHECK_ERR(semctl_(id, -1, SETVAL, 0), EINVAL);
	CHECK_ERR(semctl_(id, 0, 12345, 0), EINVAL);
	CHECK_ERR(semctl_(id, 0, GETALL, 8), EFAULT);
	CHECK_ERR(semctl_(id, 0, SETALL, 8), EFAULT);
	CHECK_ERR(semctl_(id, 0, IPC_STAT, 8), EFAULT);
	CHECK_ERR(semctl_(id, 0, IPC_SET, 8), EFAULT);
	CHECK(semctl_(0, 0, IPC_INFO, (unsigned long)&si) >= 0, "IPC_INFO");
	CHECK_EQ(si.semvmx, 32767);
	CHECK(semctl_(0, 0, SEM_INFO, (unsigned long)&si) >= 0, "SEM_INFO");
	CHECK(si.semusz >= 1, "sets in use %d", si.semusz);
	CHECK_OK(semctl_(id, 0, IPC_RMID, 0));
	CHECK_ERR(semctl_(id, 0, IPC_RMID, 0), EINVAL);
}

/* Someone else's 0600 set, as uid 65534. */
static void
others(const void *arg)
{
	long id = *(const long *)arg;
	struct semid_ds ds;

	CHECK_ERR(op1(id, 0, 1, IPC_NOWAIT), EACCES);
	CHECK_ERR(op1(id, 0, 0, IPC_NOWAIT), EACCES);
	CHECK_ERR(semctl_(id, 0, GETVAL, 0), EACCES);
	CHECK_ERR(semctl_(id, 0, SETVAL, 1), EACCES);
	CHECK_ERR(semctl_(id, 0, IPC_STAT, (unsigned long)&ds), EACCES);
	CHECK_EQ(semctl_(id % 32768, 0, SEM_STAT_ANY, (unsigned long)&ds),
	    id);
	CHECK_ERR(semctl_(id, 0, IPC_RMID, 0), EPERM);
}

static void
test_perms(void)
{
	struct semid_ds ds;
	long id;

	if (getuid() != 0)
		return;
	id = CHECK_OK(semget_(IPC_PRIVATE, 1, 0600));
	if (id < 0)
		return;
	guest_as_nobody(others, &id);
	/* Given to 65534 by IPC_SET, it is theirs to remove. */
	CHECK_OK(semctl_(id, 0, IPC_STAT, (unsigned long)&ds));
	ds.sem_perm.uid = 65534;
	ds.sem_perm.mode = 0604;
	CHECK_OK(semctl_(id, 0, IPC_SET, (unsigned long)&ds));
	CHECK_OK(semctl_(id, 0, IPC_STAT, (unsigned long)&ds));
	CHECK_EQ(ds.sem_perm.uid, 65534);
	CHECK_EQ(ds.sem_perm.cuid, 0);
	CHECK_EQ(ds.sem_perm.mode & 0777, 0604);
	CHECK_OK(semctl_(id, 0, IPC_RMID, 0));
}

static void
tests(void)
{
	test_basic();
	test_block();
	test_queue();
	test_signal();
	test_undo();
	test_errors();
	test_perms();
}

int
main(void)
{
	return guest_main_twice(tests);
}
