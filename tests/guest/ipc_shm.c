/*
 * Verifies System V shared memory (shmget, shmat, shmdt, shmctl): pages
 * shared between attaches and across fork, shm_nattch through fork, exec,
 * exit and shmdt, IPC_RMID while attached, SHM_RDONLY, SHM_RND,
 * SHM_REMAP, SHM_LOCK, a segment larger than memory, the *_STAT and
 * *_INFO commands, the owner's and others' permissions, and Linux's errno
 * for each bad argument.
 */
#include <sys/ipc.h>
#include <sys/shm.h>

#include <fcntl.h>
#include <stdlib.h>

#include "guest.h"

#ifndef SHM_STAT_ANY
#define SHM_STAT_ANY 15
#endif
#define SHM_DEST_   01000
#define SHM_LOCKED_ 02000

static long
shmget_(key_t key, size_t size, int flg)
{
	return syscall(SYS_shmget, key, size, flg);
}

static void *
shmat_(long id, const void *addr, int flg)
{
	return (void *)syscall(SYS_shmat, id, addr, flg);
}

static long
shmdt_(const void *addr)
{
	return syscall(SYS_shmdt, addr);
}

static long
shmctl_(long id, int cmd, void *buf)
{
	return syscall(SYS_shmctl, id, cmd, buf);
}

static unsigned long
nattch(long id)
{
	struct shmid_ds ds;

	if (shmctl_(id, IPC_STAT, &ds) != 0)
		return (unsigned long)-1;
	return ds.shm_nattch;
}

/* A key no other test run uses at the same time. */
static key_t
test_key(int n)
{
	return (key_t)(0x5e000000 | (getpid() & 0xfffff) << 4 | n);
}

static void
test_basic(void)
{
	struct shmid_ds ds;
	long id = CHECK_OK(shmget_(IPC_PRIVATE, 10000, 0640));
	char *a, *b;

	if (id < 0)
		return;
	CHECK_OK(shmctl_(id, IPC_STAT, &ds));
	CHECK_EQ(ds.shm_segsz, 10000);
	CHECK_EQ(ds.shm_perm.mode & 0777, 0640);
	CHECK_EQ(ds.shm_perm.__key, IPC_PRIVATE);
	CHECK_EQ(ds.shm_perm.uid, geteuid());
	CHECK_EQ(ds.shm_perm.cuid, geteuid());
	CHECK_EQ(ds.shm_perm.cgid, getegid());
	CHECK_EQ(ds.shm_cpid, getpid());
	CHECK_EQ(ds.shm_nattch, 0);
	CHECK_EQ(ds.shm_atime, 0);
	CHECK(ds.shm_ctime > 0, "ctime %ld", (long)ds.shm_ctime);
	/* SHM_STAT takes the slot and returns the id. */
	CHECK_EQ(shmctl_(id % 32768, SHM_STAT, &ds), id);
	CHECK_EQ(shmctl_(id % 32768, SHM_STAT_ANY, &ds), id);

	a = shmat_(id, NULL, 0);
	b = shmat_(id, NULL, 0);
	if (CHECK(a != MAP_FAILED && b != MAP_FAILED && a != b, "shmat")) {
		CHECK_EQ((uintptr_t)a % 4096, 0);
		CHECK(all_byte(a, 12288, 0), "fresh segment reads zero");
		strcpy(a, "shared");
		CHECK(strcmp(b, "shared") == 0, "both attaches see a write");
		CHECK_EQ(nattch(id), 2);
		CHECK_OK(shmctl_(id, IPC_STAT, &ds));
		CHECK(ds.shm_atime > 0 && ds.shm_lpid == getpid(), "atime");
		/* shmdt only at an attach's start. */
		CHECK_ERR(shmdt_(a + 4096), EINVAL);
		CHECK_ERR(shmdt_(a + 1), EINVAL);
		CHECK_OK(shmdt_(a));
		CHECK_ERR(shmdt_(a), EINVAL);
		CHECK_EQ(nattch(id), 1);
		CHECK_OK(shmdt_(b));
		CHECK_EQ(nattch(id), 0);
		CHECK_OK(shmctl_(id, IPC_STAT, &ds));
		CHECK(ds.shm_dtime > 0, "dtime");
	}
	/* munmap of a whole attach detaches too. */
	a = shmat_(id, NULL, 0);
	if (CHECK(a != MAP_FAILED, "shmat")) {
		CHECK_OK(munmap(a, 12288));
		CHECK_EQ(nattch(id), 0);
	}
	CHECK_OK(shmctl_(id, IPC_RMID, NULL));
	CHECK_ERR(shmctl_(id, IPC_STAT, &ds), EINVAL);
	CHECK_ERR(shmat_(id, NULL, 0), EINVAL);
}

/* Fork shares the attach and counts it; exec and exit let it go. */
static void
test_fork_exec(void)
{
	long id = CHECK_OK(shmget_(IPC_PRIVATE, 4096, 0600));
	volatile int *w;
	char idbuf[32];
	int st = 0;
	pid_t pid;

	if (id < 0)
		return;
	w = shmat_(id, NULL, 0);
	if (!CHECK(w != MAP_FAILED, "shmat"))
		return;
	*w = 1;
	pid = fork();
	if (pid == 0) {
		if (*w != 1 || nattch(id) != 2)
			_exit(1);
		*w = 2;
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "child saw the segment: %#x", st);
	CHECK_EQ(*w, 2);
	CHECK_EQ(nattch(id), 1);

	/* The exec'd child counts the attaches: its own is gone. */
	snprintf(idbuf, sizeof(idbuf), "%ld", id);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "ipc_shm", "nattch", idbuf, NULL);
		_exit(99);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 1, "nattch after exec: %#x", st);
	CHECK_EQ(nattch(id), 1);

	/* Removed while attached: keyless, SHM_DEST, still attachable. */
	CHECK_OK(shmctl_(id, IPC_RMID, NULL));
	{
		struct shmid_ds ds;
		volatile int *w2;

		CHECK_OK(shmctl_(id, IPC_STAT, &ds));
		CHECK(ds.shm_perm.mode & SHM_DEST_, "SHM_DEST %#o",
		    (unsigned)ds.shm_perm.mode);
		CHECK_EQ(ds.shm_perm.__key, IPC_PRIVATE);
		CHECK_EQ(*w, 2);
		w2 = shmat_(id, NULL, 0);
		if (CHECK(w2 != MAP_FAILED, "shmat of a removed segment")) {
			CHECK_EQ(*w2, 2);
			CHECK_OK(shmdt_((void *)w2));
		}
		/* Fork after removal: the child's attach holds it too. */
		pid = fork();
		if (pid == 0)
			_exit(*w == 2 && nattch(id) == 2 ? 0 : 1);
		CHECK(waitpid(pid, &st, 0) == pid && st == 0, "child %#x", st);
	}
	CHECK_OK(shmdt_((void *)w));
	CHECK_ERR(shmctl_(id, IPC_STAT, NULL), EINVAL);
}

static void
test_flags(void)
{
	long id = CHECK_OK(shmget_(IPC_PRIVATE, 8192, 0600));
	char *a, *b;

	if (id < 0)
		return;
	a = shmat_(id, NULL, 0);
	if (!CHECK(a != MAP_FAILED, "shmat"))
		return;
	a[0] = 'x';
	/* SHM_RDONLY: readable, never writable. */
	b = shmat_(id, NULL, SHM_RDONLY);
	if (CHECK(b != MAP_FAILED, "SHM_RDONLY")) {
		CHECK_EQ(b[0], 'x');
		CHECK_EQ(guest_probe_write(b), EFAULT);
		CHECK_ERR(mprotect(b, 4096, PROT_READ | PROT_WRITE), EACCES);
		CHECK_OK(shmdt_(b));
	}
	/* An address: page aligned, or rounded with SHM_RND. */
	CHECK_OK(shmdt_(a));
	CHECK_ERR(shmat_(id, a + 100, 0), EINVAL);
	b = shmat_(id, a + 100, SHM_RND);
	CHECK(b == a, "SHM_RND rounds down: %p %p", (void *)b, (void *)a);
	/* The range must be free, unless SHM_REMAP. */
	CHECK_ERR(shmat_(id, a, 0), EINVAL);
	CHECK_ERR(shmat_(id, NULL, SHM_REMAP), EINVAL);
	b = shmat_(id, a, SHM_REMAP);
	CHECK(b == a, "SHM_REMAP over an attach");
	CHECK_EQ(nattch(id), 1);
	CHECK_EQ(a[0], 'x');
	CHECK_OK(shmdt_(a));
	CHECK_EQ(nattch(id), 0);
	CHECK_OK(shmctl_(id, IPC_RMID, NULL));
}

/*
 * A segment larger than the sandbox's memory (--mem 4G by default)
 * attaches: its pages are mapped as they are touched, by the guest or
 * by the kernel writing into them.
 */
static void
test_sparse(void)
{
	size_t size = 8UL << 30;
	long id = shmget_(IPC_PRIVATE, size, 0600);
	char *a;

	if (!CHECK(id >= 0, "shmget 8 GiB"))
		return;
	a = shmat_(id, NULL, 0);
	if (CHECK(a != MAP_FAILED, "shmat 8 GiB")) {
		a[0] = 1;
		a[size - 1] = 2;
		CHECK_EQ(guest_probe_write(a + (size >> 1)), 0);
		CHECK_EQ(guest_probe_read(a + (size >> 2)), 0);
		CHECK(a[0] == 1 && a[size - 1] == 2, "ends");
		CHECK_OK(shmdt_(a));
	}
	CHECK_OK(shmctl_(id, IPC_RMID, NULL));
}

static void
test_errors(void)
{
	key_t key = test_key(1);
	struct shmid_ds ds;
	long id;

	CHECK_ERR(shmget_(IPC_PRIVATE, 0, 0600), EINVAL);
	CHECK_ERR(shmget_(key, 4096, 0600), ENOENT);
	id = CHECK_OK(shmget_(key, 8192, IPC_CREAT | 0600));
	if (id < 0)
		return;
	CHECK_EQ(shmget_(key, 4096, IPC_CREAT | 0600), id);
	CHECK_EQ(shmget_(key, 0, 0), id);
	CHECK_ERR(shmget_(key, 4096, IPC_CREAT | IPC_EXCL | 0600), EEXIST);
	CHECK_ERR(shmget_(key, 8193, 0600), EINVAL);
	CHECK_ERR(shmat_(-1, NULL, 0), EINVAL);
	CHECK_ERR(shmat_(id + 32768, NULL, 0), EINVAL);
	CHECK_ERR(shmctl_(id, 12345, &ds), EINVAL);
	CHECK_ERR(shmctl_(id, -1, &ds), EINVAL);
	CHECK_ERR(shmctl_(-1, IPC_STAT, &ds), EINVAL);
	CHECK_ERR(shmctl_(id, IPC_STAT | 0x100, &ds), EINVAL);
	CHECK_ERR(shmctl_(id, IPC_STAT, (void *)8), EFAULT);
	CHECK_ERR(shmctl_(id, IPC_SET, (void *)8), EFAULT);
	CHECK_ERR(shmctl_(32767, SHM_STAT, &ds), EINVAL);
	CHECK_OK(shmctl_(id, IPC_STAT, &ds));
	ds.shm_perm.uid = (uid_t)-1;
	CHECK_ERR(shmctl_(id, IPC_SET, &ds), EINVAL);
	ds.shm_perm.uid = geteuid();
	ds.shm_perm.mode = 0644 | 0777000;
	CHECK_OK(shmctl_(id, IPC_SET, &ds));
	CHECK_OK(shmctl_(id, IPC_STAT, &ds));
	CHECK_EQ(ds.shm_perm.mode & 07777, 0644);
	CHECK_ERR(shmdt_((void *)4096), EINVAL);
	CHECK_OK(shmctl_(id, IPC_RMID, NULL));
	CHECK_ERR(shmctl_(id, IPC_RMID, NULL), EINVAL);
}

static void
test_info(void)
{
	struct shminfo si;
	struct shm_info su;
	unsigned long mni = 0;
	long id = CHECK_OK(shmget_(IPC_PRIVATE, 4096, 0600));
	FILE *f = fopen("/proc/sys/kernel/shmmni", "r");

	CHECK(f != NULL && fscanf(f, "%lu", &mni) == 1, "shmmni");
	if (f != NULL)
		fclose(f);
	CHECK(shmctl_(0, IPC_INFO, &si) >= id % 32768, "IPC_INFO");
	CHECK_EQ(si.shmmni, mni);
	CHECK_EQ(si.shmmin, 1);
	CHECK(shmctl_(0, SHM_INFO, &su) >= id % 32768, "SHM_INFO");
	CHECK(su.used_ids >= 1, "used_ids %d", su.used_ids);
	CHECK_ERR(shmctl_(0, IPC_INFO, (void *)8), EFAULT);
	/* SHM_LOCK marks the segment; root and owner alike may. */
	if (getuid() == 0) {
		struct shmid_ds ds;

		CHECK_OK(shmctl_(id, SHM_LOCK, NULL));
		CHECK_OK(shmctl_(id, IPC_STAT, &ds));
		CHECK(ds.shm_perm.mode & SHM_LOCKED_, "SHM_LOCKED");
		CHECK_OK(shmctl_(id, SHM_UNLOCK, NULL));
		CHECK_OK(shmctl_(id, IPC_STAT, &ds));
		CHECK(!(ds.shm_perm.mode & SHM_LOCKED_), "unlocked");
	}
	CHECK_OK(shmctl_(id, IPC_RMID, NULL));
}

/* Someone else's 0600 segment, as uid 65534. */
static void
others(const void *arg)
{
	const long *idkey = arg;
	long id = idkey[0];
	struct shmid_ds ds;

	CHECK_ERR(shmget_((key_t)idkey[1], 4096, 0600), EACCES);
	CHECK_EQ(shmget_((key_t)idkey[1], 4096, 0), id);
	CHECK_ERR(shmat_(id, NULL, 0), EACCES);
	CHECK_ERR(shmat_(id, NULL, SHM_RDONLY), EACCES);
	CHECK_ERR(shmctl_(id, IPC_STAT, &ds), EACCES);
	CHECK_ERR(shmctl_(id % 32768, SHM_STAT, &ds), EACCES);
	CHECK_EQ(shmctl_(id % 32768, SHM_STAT_ANY, &ds), id);
	CHECK_ERR(shmctl_(id, IPC_RMID, NULL), EPERM);
	CHECK_ERR(shmctl_(id, IPC_SET, &ds), EPERM);
	CHECK_ERR(shmctl_(id, SHM_LOCK, NULL), EPERM);
}

static void
test_perms(void)
{
	long id, idkey[2];

	if (getuid() != 0)
		return;
	id = CHECK_OK(shmget_(test_key(2), 4096, IPC_CREAT | 0600));
	if (id < 0)
		return;
	idkey[0] = id;
	idkey[1] = test_key(2);
	guest_as_nobody(others, idkey);
	CHECK_OK(shmctl_(id, IPC_RMID, NULL));
}

static void
tests(void)
{
	test_basic();
	test_fork_exec();
	test_flags();
	test_sparse();
	test_errors();
	test_info();
	test_perms();
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "nattch") == 0)
		return (int)nattch(atol(argv[2]));
	return guest_main_twice(tests);
}
