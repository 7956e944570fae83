/*
 * Verifies System V message queues (msgget, msgsnd, msgrcv, msgctl):
 * selection by type (any, equal, MSG_EXCEPT, lowest up to -type),
 * MSG_NOERROR and E2BIG, IPC_NOWAIT, MSG_COPY, a sender blocked on a
 * full queue and a receiver blocked on an empty one across processes,
 * EIDRM and EINTR for waiters, the queue's counters, IPC_SET of
 * msg_qbytes, permissions, and Linux's errno for each bad argument.
 */
#include <sys/ipc.h>
#include <sys/msg.h>

#include "guest.h"

#ifndef MSG_COPY
#define MSG_COPY 040000
#endif
#ifndef MSG_STAT_ANY
#define MSG_STAT_ANY 13
#endif

struct msg {
	long type;
	char text[64];
};

static long
msgget_(key_t key, int flg)
{
	return syscall(SYS_msgget, key, flg);
}

static long
snd(long id, long type, const char *text, int flg)
{
	struct msg m = { .type = type };

	strncpy(m.text, text, sizeof(m.text) - 1);
	return syscall(SYS_msgsnd, id, &m, strlen(text), flg);
}

/* Receive into a fresh buffer; its text is NUL-terminated. */
static long
rcv(long id, struct msg *m, size_t size, long type, int flg)
{
	memset(m, 0, sizeof(*m));
	return syscall(SYS_msgrcv, id, m, size, type, flg);
}

static long
msgctl_(long id, int cmd, void *buf)
{
	return syscall(SYS_msgctl, id, cmd, buf);
}

static unsigned long
qnum(long id)
{
	struct msqid_ds ds;

	return msgctl_(id, IPC_STAT, &ds) == 0 ? ds.msg_qnum :
	    (unsigned long)-1;
}

static void
test_types(void)
{
	long id = CHECK_OK(msgget_(IPC_PRIVATE, 0600));
	struct msqid_ds ds;
	struct msg m;

	if (id < 0)
		return;
	CHECK_OK(snd(id, 5, "five", 0));
	CHECK_OK(snd(id, 2, "two", 0));
	CHECK_OK(snd(id, 7, "seven", 0));
	CHECK_OK(snd(id, 2, "two again", 0));
	CHECK_OK(msgctl_(id, IPC_STAT, &ds));
	CHECK_EQ(ds.msg_qnum, 4);
	CHECK_EQ(ds.msg_cbytes, 4 + 3 + 5 + 9);
	CHECK_EQ(ds.msg_lspid, getpid());
	CHECK(ds.msg_stime > 0 && ds.msg_rtime == 0, "times");
	/* MSG_COPY: the n-th message, left in the queue. */
	CHECK_EQ(rcv(id, &m, 64, 2, MSG_COPY | IPC_NOWAIT), 5);
	CHECK(strcmp(m.text, "seven") == 0 && m.type == 7, "copy %s",
	    m.text);
	CHECK_ERR(rcv(id, &m, 64, 4, MSG_COPY | IPC_NOWAIT), ENOMSG);
	CHECK_ERR(rcv(id, &m, 64, 0, MSG_COPY), EINVAL);
	CHECK_ERR(rcv(id, &m, 64, 0, MSG_COPY | MSG_EXCEPT | IPC_NOWAIT),
	    EINVAL);
	CHECK_EQ(qnum(id), 4);
	/* Lowest type up to 6: the first 2. */
	CHECK_EQ(rcv(id, &m, 64, -6, 0), 3);
	CHECK(m.type == 2 && strcmp(m.text, "two") == 0, "-6: %s", m.text);
	/* Anything but 2: the first other. */
	CHECK_EQ(rcv(id, &m, 64, 2, MSG_EXCEPT), 4);
	CHECK(m.type == 5, "except: %ld", m.type);
	CHECK_EQ(rcv(id, &m, 64, 7, 0), 5);
	CHECK_ERR(rcv(id, &m, 64, 7, IPC_NOWAIT), ENOMSG);
	/* Too long: E2BIG and kept, or cut with MSG_NOERROR. */
	CHECK_ERR(rcv(id, &m, 3, 0, 0), E2BIG);
	CHECK_EQ(qnum(id), 1);
	CHECK_EQ(rcv(id, &m, 3, 0, MSG_NOERROR), 3);
	CHECK(strcmp(m.text, "two") == 0, "cut: %s", m.text);
	CHECK_EQ(qnum(id), 0);
	CHECK_OK(msgctl_(id, IPC_STAT, &ds));
	CHECK_EQ(ds.msg_lrpid, getpid());
	CHECK_EQ(ds.msg_cbytes, 0);
	/* An empty message is a message. */
	CHECK_OK(snd(id, 1, "", 0));
	CHECK_EQ(rcv(id, &m, 0, 0, 0), 0);
	CHECK_EQ(m.type, 1);
	CHECK_OK(msgctl_(id, IPC_RMID, NULL));
	CHECK_ERR(snd(id, 1, "x", 0), EINVAL);
}

/* Waiters in another process: a full queue, an empty one, removal. */
static void
test_block(void)
{
	long id = CHECK_OK(msgget_(IPC_PRIVATE, 0600));
	struct msqid_ds ds;
	struct msg m;
	int st = -1;
	pid_t pid;

	if (id < 0)
		return;
	CHECK_OK(msgctl_(id, IPC_STAT, &ds));
	ds.msg_qbytes = 8;
	CHECK_OK(msgctl_(id, IPC_SET, &ds));
	CHECK_OK(snd(id, 1, "12345678", 0));
	CHECK_ERR(snd(id, 1, "9", IPC_NOWAIT), EAGAIN);
	pid = fork();
	if (pid == 0)
		_exit(snd(id, 3, "late", 0) == 0 ? 0 : 1);
	usleep(100 * 1000);
	CHECK_EQ(qnum(id), 1);
	CHECK_EQ(rcv(id, &m, 64, 1, 0), 8);
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "sender %#x", st);
	CHECK_EQ(rcv(id, &m, 64, 3, IPC_NOWAIT), 4);

	pid = fork();
	if (pid == 0) {
		struct msg c;

		_exit(rcv(id, &c, 64, 9, 0) == 2 && c.type == 9 ? 0 : 1);
	}
	usleep(100 * 1000);
	CHECK_OK(snd(id, 8, "no", 0));
	CHECK_OK(snd(id, 9, "ok", 0));
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "receiver %#x", st);
	CHECK_EQ(qnum(id), 1);

	pid = fork();
	if (pid == 0) {
		struct msg c;

		errno = 0;
		_exit(rcv(id, &c, 64, 99, 0) == -1 && errno == EIDRM ? 0 : 1);
	}
	usleep(100 * 1000);
	CHECK_OK(msgctl_(id, IPC_RMID, NULL));
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "EIDRM %#x", st);
}

static void
on_alarm(int sig)
{
	(void)sig;
}

static void
test_signal(void)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	long id = CHECK_OK(msgget_(IPC_PRIVATE, 0600));
	struct msg m;

	if (id < 0)
		return;
	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(SIGALRM, &sa, NULL));
	alarm(1);
	CHECK_ERR(rcv(id, &m, 64, 0, 0), EINTR);
	signal(SIGALRM, SIG_DFL);
	CHECK_OK(msgctl_(id, IPC_RMID, NULL));
}

static void
test_errors(void)
{
	key_t key = (key_t)(0x5d000000 | (getpid() & 0xfffff) << 4);
	struct msqid_ds ds;
	struct msginfo mi;
	struct msg m = { .type = 0 };
	long id;

	CHECK_ERR(msgget_(key, 0600), ENOENT);
	id = CHECK_OK(msgget_(key, IPC_CREAT | 0600));
	if (id < 0)
		return;
	CHECK_EQ(msgget_(key, 0), id);
	CHECK_ERR(msgget_(key, IPC_CREAT | IPC_EXCL), EEXIST);
	CHECK_ERR(syscall(SYS_msgsnd, id, &m, 1, 0), EINVAL);
	m.type = 1;
	CHECK_ERR(syscall(SYS_msgsnd, id, &m, 100000, 0), EINVAL);
	CHECK_ERR(syscall(SYS_msgsnd, id, &m, (size_t)-1, 0), EINVAL);
	CHECK_ERR(syscall(SYS_msgsnd, -1, &m, 1, 0), EINVAL);
	CHECK_ERR(syscall(SYS_msgsnd, id, NULL, 1, 0), EFAULT);
	CHECK_ERR(syscall(SYS_msgsnd, id + 32768, &m, 1, 0), EINVAL);
	CHECK_ERR(syscall(SYS_msgrcv, id, &m, (size_t)-1, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_msgrcv, -1, &m, 1, 0, 0), EINVAL);
	CHECK_ERR(msgctl_(id, 12345, &ds), EINVAL);
	CHECK_ERR(msgctl_(id, IPC_STAT, (void *)8), EFAULT);
	CHECK_ERR(msgctl_(id, IPC_SET, (void *)8), EFAULT);
	CHECK(msgctl_(0, IPC_INFO, &mi) >= 0, "IPC_INFO");
	CHECK_EQ(mi.msgssz, 16);
	CHECK(msgctl_(0, MSG_INFO, &mi) >= 0, "MSG_INFO");
	CHECK(mi.msgpool >= 1, "queues %d", mi.msgpool);
	CHECK_EQ(msgctl_(id % 32768, MSG_STAT, &ds), id);
	/* A message lost to a bad buffer is still taken. */
	CHECK_OK(snd(id, 1, "lost", 0));
	CHECK_ERR(syscall(SYS_msgrcv, id, (void *)8, 64, 0, 0), EFAULT);
	CHECK_EQ(qnum(id), 0);
	CHECK_OK(msgctl_(id, IPC_RMID, NULL));
}

static void
others(const void *arg)
{
	long id = *(const long *)arg;
	struct msqid_ds ds;
	struct msg m;

	CHECK_ERR(snd(id, 1, "x", IPC_NOWAIT), EACCES);
	CHECK_ERR(rcv(id, &m, 64, 0, IPC_NOWAIT), EACCES);
	CHECK_ERR(msgctl_(id, IPC_STAT, &ds), EACCES);
	CHECK_EQ(msgctl_(id % 32768, MSG_STAT_ANY, &ds), id);
	CHECK_ERR(msgctl_(id, IPC_RMID, NULL), EPERM);
}

static void
test_perms(void)
{
	struct msqid_ds ds;
	long id = CHECK_OK(msgget_(IPC_PRIVATE, 0600));

	if (id < 0)
		return;
	/*
	 * The owner may lower msg_qbytes; raising it past msgmnb takes
	 * CAP_SYS_RESOURCE, which a container's root may lack.
	 */
	CHECK_OK(msgctl_(id, IPC_STAT, &ds));
	ds.msg_qbytes -= 1;
	CHECK_OK(msgctl_(id, IPC_SET, &ds));
	CHECK_OK(msgctl_(id, IPC_STAT, &ds));
	ds.msg_qbytes += 2;
	if (getuid() != 0)
		CHECK_ERR(msgctl_(id, IPC_SET, &ds), EPERM);
	guest_as_nobody(others, &id);
	CHECK_OK(msgctl_(id, IPC_RMID, NULL));
}

static void
tests(void)
{
	test_types();
	test_block();
	test_signal();
	test_errors();
	test_perms();
}

int
main(void)
{
	return guest_main_twice(tests);
}
