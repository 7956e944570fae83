/*
 * Throws random System V IPC calls at the kernel: every family's calls
 * with sizes, counts, ids, commands, flags and pointers drawn from
 * hostile values (zero, negative, huge, unmapped, read-only, page edges),
 * with children that attach, undo, wait and are killed in the middle.
 * It checks only that root can remove everything made at the end; the
 * point is that vkernel, run with its sanitizers, survives it without a
 * crash, an assertion or a leak.  Run inside vkernel only: natively its
 * calls would reach the host's own IPC objects.
 *
 * usage: ipc_random [ITERATIONS [SEED]]
 */
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

#include <stdlib.h>

#include "guest.h"
#include "rnd.h"

#define NIDS 16

static long ids[3][NIDS];       /* shm, sem, msg ids made, or -1 */
static char *ro;                /* a read-only page */

/* A size or count: small, at an edge, or absurd. */
static uint64_t
rsize(void)
{
	static const uint64_t v[] = { 0, 1, 2, 7, 4095, 4096, 4097, 8192,
	    65536, 1 << 20, 0x7fffffff, 0x80000000ULL, (uint64_t)-1,
	    (uint64_t)-4096, 1ULL << 40, 1ULL << 62 };

	return (rnd() & 1) ? rnd() % 9000 : pick(v, NELEM(v));
}

/* An id: one made, a neighbour's, or nonsense. */
static long
rid(int fam)
{
	long id = ids[fam][rnd() % NIDS];

	switch (rnd() % 6) {
	case 0:
		return -1;
	case 1:
		return (long)(rnd() % 40);
	case 2:
		return id + 32768;
	case 3:
		return (long)(int)rnd();
	default:
		return id;
	}
}

/* A buffer: good, NULL, unmapped, read-only, or straddling the end. */
static void *
rbuf(char *good, size_t len)
{
	return rnd_buf(good, len, ro);
}

static int
rflags(void)
{
	static const uint64_t v[] = { 0, IPC_CREAT, IPC_EXCL, IPC_NOWAIT,
	    SHM_RDONLY, SHM_RND, SHM_REMAP, SHM_EXEC, SEM_UNDO, MSG_NOERROR,
	    MSG_EXCEPT, 040000, 0777, 0 };

	return (int)(pick(v, NELEM(v)) | pick(v, NELEM(v)) | (rnd() & 0777));
}

static void
add_id(int fam, long id)
{
	if (id >= 0)
		ids[fam][rnd() % NIDS] = id;
}

static void
one_shm(char *buf)
{
	void *a;

	switch (rnd() % 5) {
	case 0:
		add_id(0, syscall(SYS_shmget, (rnd() & 1) ? IPC_PRIVATE :
		    (key_t)(rnd() % 8 + 1), rsize(), rflags()));
		break;
	case 1:
		a = (void *)syscall(SYS_shmat, rid(0), (rnd() & 1) ? NULL :
		    (void *)(uintptr_t)((rnd() & 0x7ffffffff000ULL) | (rnd() % 3)),
		    (int)(rflags() & ~SHM_REMAP) | IPC_NOWAIT);
		if (a != MAP_FAILED && rnd() % 3 == 0)
			syscall(SYS_shmdt, a);
		break;
	case 2:
		syscall(SYS_shmdt, rbuf(buf, 64));
		break;
	default:
		syscall(SYS_shmctl, rid(0), (int)(rnd() % 18) - 1,
		    rbuf(buf, 4096));
		break;
	}
}

static void
one_sem(char *buf)
{
	struct sembuf *sb = (struct sembuf *)buf;
	struct timespec ts = { 0, (long)(rnd() % 3000) };
	unsigned n = (unsigned)(rnd() % 8), i;
	void *sops, *tmo;

	/* Every operation the call may read says IPC_NOWAIT: none blocks. */

	switch (rnd() % 4) {
	case 0:
		add_id(1, syscall(SYS_semget, (rnd() & 1) ? IPC_PRIVATE :
		    (key_t)(rnd() % 8 + 1), (int)rsize(), rflags()));
		break;
	case 1:
		for (i = 0; i < 600; i++)
			sb[i] = (struct sembuf){ (unsigned short)(rnd() % 5),
			    (short)((int)(rnd() % 7) - 3),
			    (short)(rflags() | IPC_NOWAIT) };
		if (rnd() % 4 == 0)
			n = (unsigned)rsize();
		sops = rbuf(buf, 12 * sizeof(*sb));
		tmo = (rnd() & 1) ? &ts : rbuf(buf + 6144, 16);
		/* Operations read from elsewhere may wait: time them out. */
		if (sops != buf && sops != sb + 6)
			tmo = &ts;
		syscall(SYS_semtimedop, rid(1), sops, n, tmo);
		break;
	default:
		syscall(SYS_semctl, rid(1), (int)(rnd() % 6) - 1,
		    (int)(rnd() % 22) - 1, (rnd() & 1) ? rnd() % 40000 :
		    (unsigned long)rbuf(buf, 4096));
		break;
	}
}

static void
one_msg(char *buf)
{
	switch (rnd() % 4) {
	case 0:
		add_id(2, syscall(SYS_msgget, (rnd() & 1) ? IPC_PRIVATE :
		    (key_t)(rnd() % 8 + 1), rflags()));
		break;
	case 1:
		*(long *)buf = (long)(rnd() % 6) - 1;
		syscall(SYS_msgsnd, rid(2), rbuf(buf, 4096), rsize() % 5000,
		    rflags() | IPC_NOWAIT);
		break;
	case 2:
		syscall(SYS_msgrcv, rid(2), rbuf(buf, 4096), rsize(),
		    (long)(rnd() % 7) - 3, rflags() | IPC_NOWAIT);
		break;
	default:
		syscall(SYS_msgctl, rid(2), (int)(rnd() % 16) - 1,
		    rbuf(buf, 4096));
		break;
	}
}

/* A child that blocks with undo and attaches, to be killed meanwhile. */
static void
child(void)
{
	struct sembuf sb = { 0, -1, SEM_UNDO };
	char m[64];

	syscall(SYS_shmat, ids[0][rnd() % NIDS], NULL, 0);
	sb.sem_op = 1;
	syscall(SYS_semop, ids[1][rnd() % NIDS], &sb, 1);
	sb.sem_op = -5;
	syscall(SYS_semop, ids[1][rnd() % NIDS], &sb, 1);
	syscall(SYS_msgrcv, ids[2][rnd() % NIDS], m, sizeof(m) - 8, 99, 0);
	_exit(0);
}

int
main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 20000;
	/* Room for GETALL of the largest set (semmsl values) and more. */
	static char buf[131072] __attribute__((aligned(4096)));

	if (argc > 2)
		rnd_state = strtoull(argv[2], NULL, 0) | 1;
	memset(ids, 0xff, sizeof(ids));
	ro = guest_anon(4096, PROT_READ);
	CHECK(ro != MAP_FAILED, "mmap");
	for (long i = 0; i < iters; i++) {
		int r = (int)(rnd() % 40);

		if (r == 0) {
			pid_t pid = fork();

			if (pid == 0)
				child();
			if (pid > 0) {
				if (rnd() & 1)
					usleep((useconds_t)(rnd() % 2000));
				kill(pid, SIGKILL);
				waitpid(pid, NULL, 0);
			}
			continue;
		}
		errno = 0;
		if (r % 3 == 0)
			one_shm(buf);
		else if (r % 3 == 1)
			one_sem(buf);
		else
			one_msg(buf);
	}
	/*
	 * Everything still made goes: no slot is left in use.  Only root
	 * can be sure to: a random IPC_SET may have given an object away.
	 */
	if (getuid() != 0)
		return guest_done();
	for (int i = 0; i < 32768; i++) {
		struct shmid_ds ds;
		long id;

		if ((id = syscall(SYS_shmctl, i, SHM_STAT, &ds)) >= 0)
			CHECK_OK(syscall(SYS_shmctl, id, IPC_RMID, NULL));
		if ((id = syscall(SYS_semctl, i, 0, SEM_STAT, &ds)) >= 0)
			CHECK_OK(syscall(SYS_semctl, id, 0, IPC_RMID, 0));
		if ((id = syscall(SYS_msgctl, i, MSG_STAT, &ds)) >= 0)
			CHECK_OK(syscall(SYS_msgctl, id, IPC_RMID, NULL));
	}
	/* Segments still attached here stay, marked SHM_DEST. */
	for (int i = 0; i < 32768; i++) {
		struct shmid_ds ds;

		if (syscall(SYS_shmctl, i, SHM_STAT, &ds) >= 0)
			CHECK(ds.shm_perm.mode & 01000, "slot %d kept", i);
	}
	CHECK_EQ(syscall(SYS_semctl, 0, 0, IPC_INFO, buf), 0);
	CHECK_EQ(syscall(SYS_msgctl, 0, IPC_INFO, buf), 0);
	return guest_done();
}
