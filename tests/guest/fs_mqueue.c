/*
 * Verifies the mqueue file system as guest root: a queue made by
 * mq_open shows as a file of its mode and owner whose read gives
 * Linux's "QSIZE:... NOTIFY:... SIGNO:... NOTIFY_PID:..." line; open(2)
 * of it is a queue descriptor; unlink is mq_unlink, creat makes a queue
 * of the default attributes; no directories, links, renames nor writes;
 * the sticky root keeps another user's queue; a second mount shows the
 * same queues; /dev/mqueue is one when present.  Natively it runs in
 * mount and IPC namespaces of its own (nothing reaches the host's mounts
 * or queues).
 */
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/mqueue.h>

#include "guest.h"

#define MQUEUE_MAGIC 0x19800202

static char dir[64], dir2[64], qname[32];

static long
mq_open_(const char *name, int oflag, unsigned mode, struct mq_attr *attr)
{
	return syscall(SYS_mq_open, name, oflag, mode, attr);
}

static long
mq_attr_of(long fd, struct mq_attr *a)
{
	return syscall(SYS_mq_getsetattr, fd, NULL, a);
}

static bool
listed(const char *d, const char *name)
{
	DIR *dp = opendir(d);
	struct dirent *de;
	bool found = false;

	if (dp == NULL)
		return false;
	while ((de = readdir(dp)) != NULL)
		if (strcmp(de->d_name, name) == 0)
			found = de->d_type == DT_REG;
	closedir(dp);
	return found;
}

/* Whether path reads as Linux's line for these figures. */
static bool
reads_as(const char *path, unsigned long qsize, int notify, int signo,
    int pid)
{
	char want[128], got[128];
	long fd = open(path, O_RDONLY), n;

	if (fd < 0)
		return false;
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	got[n > 0 ? n : 0] = '\0';
	snprintf(want, sizeof(want),
	    "QSIZE:%-10lu NOTIFY:%-5d SIGNO:%-5d NOTIFY_PID:%-6d\n",
	    qsize, notify, signo, pid);
	if (strcmp(want, got) != 0)
		guest_note("read %s: \"%s\", want \"%s\"", path, got, want);
	return strcmp(want, got) == 0;
}

static long
read_num(const char *path)
{
	char buf[32];
	long fd = open(path, O_RDONLY), n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return atol(buf);
}

static void
test_queue_file(void)
{
	struct mq_attr attr = { .mq_maxmsg = 4, .mq_msgsize = 16 }, got;
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
	    .sigev_signo = SIGUSR1 };
	struct stat st;
	char path[128];
	long q, fd;

	snprintf(path, sizeof(path), "%s", guest_join(dir, qname));
	q = mq_open_(qname, O_CREAT | O_EXCL | O_RDWR, 0640, &attr);
	if (!CHECK(q >= 0, "mq_open %s", qname))
		return;
	CHECK(listed(dir, qname), "%s listed", qname);
	CHECK_OK(stat(path, &st));
	CHECK(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0640,
	    "mode %o", st.st_mode);
	CHECK_EQ(st.st_uid, 0);
	CHECK(reads_as(path, 0, 0, 0, 0), "an empty queue's line");
	CHECK_OK(syscall(SYS_mq_timedsend, q, "hello", 5, 1, NULL));
	CHECK(reads_as(path, 5, 0, 0, 0), "the line of one message");
	/* Linux's FILENT_SIZE, whatever is queued. */
	CHECK_OK(stat(path, &st));
	CHECK_EQ(st.st_size, 80);
	/* open(2) of the file is a descriptor of the queue. */
	fd = open(path, O_RDWR);
	CHECK(fd >= 0, "open %s", path);
	CHECK_OK(syscall(SYS_mq_timedsend, fd, "world!", 6, 0, NULL));
	CHECK_OK(mq_attr_of(fd, &got));
	CHECK_EQ(got.mq_curmsgs, 2);
	CHECK_EQ(got.mq_maxmsg, 4);
	CHECK_ERR(write(fd, "x", 1), EINVAL);
	close(fd);
	CHECK_OK(syscall(SYS_mq_notify, q, &sev));
	CHECK(reads_as(path, 11, 0, SIGUSR1, getpid()), "after notify");
	/* unlink is mq_unlink: the name goes, the descriptor stays. */
	CHECK_OK(unlink(path));
	CHECK_ERR(stat(path, &st), ENOENT);
	CHECK_ERR(mq_open_(qname, O_RDWR, 0, NULL), ENOENT);
	CHECK(!listed(dir, qname), "gone from the directory");
	CHECK_OK(mq_attr_of(q, &got));
	CHECK_EQ(got.mq_curmsgs, 2);
	close(q);
}

static void
test_creat(void)
{
	struct mq_attr got;
	struct stat st, st2;
	char path[128];
	long fd, q;

	snprintf(path, sizeof(path), "%s", guest_join(dir, qname));
	fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0600);
	if (!CHECK(fd >= 0, "creat %s", path))
		return;
	q = mq_open_(qname, O_RDONLY, 0, NULL);
	CHECK(q >= 0, "mq_open of the file creat made");
	CHECK_OK(mq_attr_of(q, &got));
	CHECK_EQ(got.mq_maxmsg, read_num("/proc/sys/fs/mqueue/msg_default"));
	CHECK_EQ(got.mq_msgsize,
	    read_num("/proc/sys/fs/mqueue/msgsize_default"));
	CHECK_ERR(open(path, O_CREAT | O_EXCL | O_RDWR, 0600), EEXIST);
	CHECK_ERR(mq_open_(qname, O_CREAT | O_EXCL | O_RDWR, 0600, NULL),
	    EEXIST);
	CHECK_OK(fchmod(fd, 0604));
	CHECK_OK(stat(path, &st));
	CHECK_EQ(st.st_mode & 07777, 0604);
	CHECK_OK(fstat(q, &st2));
	CHECK_EQ(st2.st_ino, st.st_ino);
	CHECK_ERR(mkdir(guest_join(dir, "d"), 0755), EPERM);
	CHECK_ERR(link(path, guest_join(dir, "l")), EPERM);
	CHECK_ERR(symlink(qname, guest_join(dir, "s")), EPERM);
	CHECK_ERR(rename(path, guest_join(dir, "r")), EPERM);
	CHECK_ERR(rmdir(path), ENOTDIR);
	CHECK_ERR(mknod(guest_join(dir, "f"), S_IFIFO | 0600, 0), EPERM);
	/* A second mount shows the same queues. */
	if (CHECK_OK(guest_mount("none", dir2, "mqueue", 0, NULL)) == 0) {
		CHECK_OK(stat(guest_join(dir2, qname), &st2));
		CHECK_EQ(st2.st_ino, st.st_ino);
		CHECK_EQ(st2.st_dev, st.st_dev);
		CHECK_OK(umount2(dir2, 0));
	}
	close(q);
	close(fd);
}

/* The sticky root: a user makes and removes its own, not root's. */
static void
test_user(void)
{
	char path[128];
	pid_t pid;
	int st;

	snprintf(path, sizeof(path), "%s", guest_join(dir, qname));
	if (!CHECK(mq_open_(qname, O_CREAT | O_RDWR, 0666, NULL) >= 0,
	    "queue for the user"))
		return;
	pid = fork();
	if (pid == 0) {
		char mine[64];
		struct stat sb;
		long fd;

		if (setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		CHECK_ERR(unlink(path), EPERM);
		snprintf(mine, sizeof(mine), "%s.u", qname);
		fd = open(guest_join(dir, mine), O_CREAT | O_EXCL | O_RDWR,
		    0600);
		CHECK(fd >= 0, "the user's creat");
		CHECK_OK(stat(guest_join(dir, mine), &sb));
		CHECK_EQ(sb.st_uid, 65534);
		CHECK_ERR(chown(guest_join(dir, mine), 0, 0), EPERM);
		close(fd);
		CHECK_OK(unlink(guest_join(dir, mine)));
		_exit(guest_done() == 0 ? 0 : 1);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0, "unprivileged child");
	CHECK_OK(unlink(path));
}

int
main(void)
{
	struct statfs sf;

	if (geteuid() != 0) {
		printf("ok: fs_mqueue (not root: nothing to check)\n");
		return 0;
	}
	/* Natively: mounts and queues of our own. */
	if (unshare(CLONE_NEWNS) == 0)
		CHECK_OK(guest_mount(NULL, "/", NULL, MS_PRIVATE | MS_REC,
		    NULL));
	(void)unshare(CLONE_NEWIPC);
	snprintf(dir, sizeof(dir), "/tmp/vkmq.%d", getpid());
	snprintf(dir2, sizeof(dir2), "/tmp/vkmq2.%d", getpid());
	snprintf(qname, sizeof(qname), "vkq.%d", getpid());
	CHECK_OK(mkdir(dir, 0755));
	CHECK_OK(mkdir(dir2, 0755));
	if (CHECK_OK(guest_mount("none", dir, "mqueue", 0, NULL)) == 0) {
		CHECK_OK(statfs(dir, &sf));
		CHECK_EQ(sf.f_type, MQUEUE_MAGIC);
		test_queue_file();
		test_creat();
		test_user();
		if (statfs("/dev/mqueue", &sf) == 0 &&
		    sf.f_type == MQUEUE_MAGIC) {
			CHECK_OK(mq_open_(qname, O_CREAT | O_RDWR, 0600, NULL) <
			    0 ? -1 : 0);
			CHECK(listed("/dev/mqueue", qname), "/dev/mqueue too");
			CHECK_OK(unlink(guest_join("/dev/mqueue", qname)));
		}
		CHECK_OK(umount2(dir, 0));
	}
	rmdir(dir);
	rmdir(dir2);
	return guest_done();
}
