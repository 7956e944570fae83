/*
 * Verifies the rules a sticky world-writable directory adds to the mode
 * bits: uid 1234 and uid 65534 each make files in a 1777 directory, then
 * each attacks the other's (rename away, unlink, replace, rmdir, explicit
 * times, hard links, following a symlink, O_CREAT opens of a FIFO and a
 * regular file) and must get Linux's errno, per the fs.protected_*
 * sysctls /proc/sys/fs reports; the owners' own operations, the
 * directory owner's and root's succeed where Linux lets them.
 *
 *   fs_sticky [BASE]        all of it in a new directory in BASE (/tmp)
 *   fs_sticky --setup DIR   make the files in DIR, a 1777 directory
 *   fs_sticky --attack DIR  the users attack each other's files there
 *   fs_sticky --own DIR     the owners' and root's own operations
 *
 * The phases split the run so that the files can be made natively on a
 * host directory that is then bound into vkernel, and the host can look
 * at what is left afterwards: every u<uid>.keep as made, with its times
 * at 10^9 s and one link.
 */
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>

#include "guest.h"
#include "fs_common.h"

#define UID_A		1234
#define UID_B		65534
#define KEEP_TIME	1000000000L

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE	(1U << 1)
#endif

/* The call gives err (0: succeeds). */
#define EXPECT(call, err)						\
	((err) == 0 ? CHECK_OK(call) != -1 : FS_CHECK_ERR(call, err))

struct sysctls {
	int hardlinks, symlinks, fifos, regular;
};

static struct sysctls prot;

/* A /proc/sys/fs value, 0 when there is none (protection off). */
static int
read_sysctl(const char *name)
{
	char path[64], buf[16] = "";
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/fs/%s", name);
	if ((fd = open(path, O_RDONLY)) < 0)
		return 0;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return atoi(buf);
}

/* Opens path with flags (and mode 0666) and closes it again. */
static int
open_close(const char *path, int flags)
{
	int fd = open(path, flags, 0666);

	return fd < 0 ? -1 : close(fd);
}

static bool
put_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	return close(fd) == 0 && fchmodat(AT_FDCWD, path, mode, 0) == 0 && ok;
}

/* "u<uid>.<what>" */
static const char *
fname(char *buf, unsigned uid, const char *what)
{
	snprintf(buf, 64, "u%u.%s", uid, what);
	return buf;
}

static int
set_times(const char *path, long sec, int flags)
{
	struct timespec ts[2] = { { sec, 0 }, { sec, 0 } };

	return utimensat(AT_FDCWD, path, ts, flags);
}

/* Runs fn as uid (and gid uid, no groups) in a child; its checks count. */
static void
as_user(unsigned uid, void (*fn)(unsigned))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
		    setresuid(uid, uid, uid) < 0)
			_exit(2);
		fn(uid);
		_exit(guest_failures != 0 ? 1 : 0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "checks as uid %u (status %#x)", uid, pid > 0 ? status : -1);
}

static unsigned
other(unsigned uid)
{
	return uid == UID_A ? UID_B : UID_A;
}

/* What each user makes: files to attack, and some for its own use. */
static void
setup_files(unsigned uid)
{
	char a[64], b[64], text[32];

	umask(0);
	snprintf(text, sizeof(text), "keep-%u", uid);
	CHECK(put_file(fname(a, uid, "keep"), text, 0644), "make %s", a);
	CHECK_OK(set_times(a, KEEP_TIME, 0));
	CHECK(put_file(fname(a, uid, "rw"), "rw", 0666), "make %s", a);
	CHECK(put_file(fname(a, uid, "open"), "open", 0666), "make %s", a);
	CHECK(put_file(fname(a, uid, "mine"), "mine", 0644), "make %s", a);
	CHECK(put_file(fname(a, uid, "tmp"), "tmp", 0644), "make %s", a);
	CHECK_OK(mkfifo(fname(a, uid, "fifo"), 0666));
	CHECK_OK(symlink(fname(b, uid, "keep"), fname(a, uid, "sym")));
	CHECK_OK(symlink(fname(b, uid, "dir"), fname(a, uid, "dirsym")));
	CHECK_OK(mkdir(fname(a, uid, "dir"), 0755));
	CHECK_OK(mkdir(fname(a, uid, "dir2"), 0755));
	if (uid == UID_A) {
		/* A sticky world-writable directory of A's own. */
		CHECK_OK(mkdir("sub", 01777));
		CHECK_OK(chmod("sub", 01777));
	} else {
		CHECK(put_file("sub/b.file", "b", 0666), "make sub/b.file");
		CHECK_OK(mkfifo("sub/b.fifo", 0666));
		CHECK_OK(symlink("b.file", "sub/b.sym"));
	}
}

/* The removals and replacements a sticky directory refuses. */
static void
attack_names(unsigned me, unsigned them)
{
	char v[64], v2[64], m[64];

	fname(v, them, "keep");
	fname(m, me, "mine");
	FS_CHECK_ERR(rename(v, fname(v2, me, "stolen")), EPERM);
	FS_CHECK_ERR(unlink(v), EPERM);
	FS_CHECK_ERR(rename(m, v), EPERM);
	FS_CHECK_ERR(syscall(SYS_renameat2, AT_FDCWD, m, AT_FDCWD, v,
	    RENAME_EXCHANGE), EPERM);
	FS_CHECK_ERR(rmdir(fname(v, them, "dir")), EPERM);
	FS_CHECK_ERR(rename(v, fname(v2, me, "dir.stolen")), EPERM);
	FS_CHECK_ERR(unlink(fname(v, them, "sym")), EPERM);
	FS_CHECK_ERR(unlink(fname(v, them, "fifo")), EPERM);
	CHECK(has_text(fname(v, them, "keep"), them == UID_A ? "keep-1234" :
	    "keep-65534"), "%s kept", v);
}

/* Times: explicit ones take the owner, "now" write permission. */
static void
attack_times(unsigned me, unsigned them)
{
	struct timespec now_omit[2] = { { 0, UTIME_NOW }, { 0, UTIME_OMIT } };
	struct timespec now_now[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	struct timeval tv[2] = { { 1, 0 }, { 1, 0 } };
	char v[64], w[64];
	struct stat st;
	int fd;

	(void)me;
	fname(v, them, "keep");
	fname(w, them, "open");
	FS_CHECK_ERR(set_times(v, 1, 0), EPERM);
	FS_CHECK_ERR(set_times(w, 1, 0), EPERM);
	FS_CHECK_ERR(utimes(v, tv), EPERM);
	FS_CHECK_ERR(utimensat(AT_FDCWD, w, now_omit, 0), EPERM);
	FS_CHECK_ERR(utimensat(AT_FDCWD, v, NULL, 0), EACCES);
	FS_CHECK_ERR(utimensat(AT_FDCWD, v, now_now, 0), EACCES);
	FS_CHECK_ERR(utimes(v, NULL), EACCES);
	CHECK_OK(utimensat(AT_FDCWD, w, NULL, 0));
	CHECK_OK(utimensat(AT_FDCWD, w, now_now, 0));
	if ((fd = CHECK_OK(open(v, O_RDONLY))) >= 0) {
		struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };

		FS_CHECK_ERR(futimens(fd, ts), EPERM);
		FS_CHECK_ERR(futimens(fd, NULL), EACCES);
		close(fd);
	}
	CHECK(stat(v, &st) == 0 && st.st_mtime == KEEP_TIME, "%s time kept",
	    v);
}

/* fs.protected_hardlinks: only a safe source links for a non-owner. */
static void
attack_links(unsigned me, unsigned them)
{
	int refuse = prot.hardlinks ? EPERM : 0;
	char v[64], l[64];

	EXPECT(link(fname(v, them, "keep"), fname(l, me, "lkeep")), refuse);
	EXPECT(link(fname(v, them, "fifo"), fname(l, me, "lfifo")), refuse);
	EXPECT(linkat(AT_FDCWD, fname(v, them, "sym"), AT_FDCWD,
	    fname(l, me, "lsym"), 0), refuse);
	/* Readable and writable by all: a safe source. */
	CHECK_OK(link(fname(v, them, "rw"), fname(l, me, "lrw")));
	/* The new name is theirs too, by its inode: it stays. */
	FS_CHECK_ERR(unlink(l), EPERM);
}

/* fs.protected_symlinks, fs.protected_fifos, fs.protected_regular. */
static void
attack_opens(unsigned me, unsigned them)
{
	struct stat st;
	char v[64], p[64];

	(void)me;
	EXPECT(stat(fname(v, them, "sym"), &st), prot.symlinks ? EACCES : 0);
	EXPECT(open_close(v, O_RDONLY), prot.symlinks ? EACCES : 0);
	CHECK_OK(lstat(v, &st));
	/* The directory's owner's links are followed by all. */
	CHECK_OK(stat("root.sym", &st));
	/* Only a link that ends the path is checked. */
	snprintf(p, sizeof(p), "%s/.", fname(v, them, "dirsym"));
	CHECK_OK(stat(p, &st));
	EXPECT(open_close(fname(v, them, "fifo"), O_RDWR | O_CREAT |
	    O_NONBLOCK), prot.fifos ? EACCES : 0);
	EXPECT(open_close(fname(v, them, "open"), O_RDWR | O_CREAT),
	    prot.regular ? EACCES : 0);
	FS_CHECK_ERR(open_close(v, O_RDWR | O_CREAT | O_EXCL), EEXIST);
	CHECK_OK(open_close(v, O_RDWR));
	CHECK_OK(open_close(fname(v, them, "fifo"), O_RDWR | O_NONBLOCK));
}

static void
attack(unsigned me)
{
	unsigned them = other(me);

	attack_names(me, them);
	attack_times(me, them);
	attack_links(me, them);
	attack_opens(me, them);
}

/* What the owners may do with their own files, and A in its directory. */
static void
own(unsigned me)
{
	char a[64], b[64];
	struct stat st;

	CHECK_OK(set_times(fname(a, me, "keep"), KEEP_TIME, 0));
	CHECK_OK(open_close(fname(a, me, "open"), O_RDWR | O_CREAT));
	CHECK_OK(open_close(fname(a, me, "fifo"), O_RDWR | O_CREAT |
	    O_NONBLOCK));
	CHECK_OK(stat(fname(a, me, "sym"), &st));
	CHECK_OK(link(fname(a, me, "keep"), fname(b, me, "keep2")));
	CHECK_OK(unlink(b));
	CHECK_OK(rename(fname(a, me, "tmp"), fname(b, me, "moved")));
	CHECK_OK(rename(fname(a, me, "mine"), b));
	CHECK_OK(unlink(b));
	CHECK_OK(rmdir(fname(a, me, "dir2")));
	if (me == UID_A) {
		/* Its directory's owner removes B's files, but opens none. */
		EXPECT(stat("sub/b.sym", &st), prot.symlinks ? EACCES : 0);
		EXPECT(open_close("sub/b.file", O_RDWR | O_CREAT),
		    prot.regular ? EACCES : 0);
		EXPECT(open_close("sub/b.fifo", O_RDWR | O_CREAT |
		    O_NONBLOCK), prot.fifos ? EACCES : 0);
		CHECK_OK(unlink("sub/b.file"));
		CHECK_OK(unlink("sub/b.fifo"));
	} else {
		CHECK_OK(lstat("sub/b.sym", &st));
		CHECK_OK(unlink("sub/b.sym"));
	}
}

/*
 * In a sticky directory that only its group may write, level 2 of
 * fs.protected_regular refuses too, level 1 of fs.protected_fifos not.
 */
static void
group_writable(void)
{
	CHECK_OK(mkdir("grp", 0));
	CHECK_OK(chmod("grp", 01770));
	CHECK(put_file("grp/f", "f", 0666), "make grp/f");
	CHECK_OK(mkfifo("grp/p", 0666));
	CHECK_OK(lchown("grp/f", UID_A, UID_A));
	CHECK_OK(lchown("grp/p", UID_A, UID_A));
	EXPECT(open_close("grp/f", O_RDWR | O_CREAT),
	    prot.regular >= 2 ? EACCES : 0);
	EXPECT(open_close("grp/p", O_RDWR | O_CREAT | O_NONBLOCK),
	    prot.fifos >= 2 ? EACCES : 0);
}

/* Root: CAP_FOWNER lifts the owner rules, not the protected_* ones. */
static void
root_checks(void)
{
	struct stat st;
	char v[64];

	EXPECT(stat(fname(v, UID_A, "sym"), &st), prot.symlinks ? EACCES : 0);
	EXPECT(open_close(fname(v, UID_A, "open"), O_RDWR | O_CREAT),
	    prot.regular ? EACCES : 0);
	EXPECT(open_close(fname(v, UID_B, "fifo"), O_RDWR | O_CREAT |
	    O_NONBLOCK), prot.fifos ? EACCES : 0);
	group_writable();
	CHECK_OK(set_times(fname(v, UID_A, "keep"), KEEP_TIME, 0));
	CHECK_OK(link(v, "root.link"));
	CHECK_OK(unlink("root.link"));
	/* Without protected_hardlinks, B's link to it is there too. */
	CHECK(stat(v, &st) == 0 && st.st_uid == UID_A &&
	    st.st_nlink == (prot.hardlinks ? 1 : 2), "%s: uid %u, %lu links",
	    v, (unsigned)st.st_uid, (unsigned long)st.st_nlink);
}

static void
run_setup(void)
{
	CHECK_OK(symlink("u1234.keep", "root.sym"));
	as_user(UID_A, setup_files);
	as_user(UID_B, setup_files);
}

/* Not root (vkernel run by a host user): only the attack of that user. */
static void
run_attack(void)
{
	unsigned me = (unsigned)geteuid();

	if (me == 0) {
		as_user(UID_B, attack);
		as_user(UID_A, attack);
	} else if (CHECK(me == UID_A || me == UID_B, "attack as uid %u", me)) {
		attack(me);
	}
}

static void
run_own(void)
{
	as_user(UID_A, own);
	as_user(UID_B, own);
	root_checks();
}

static const struct {
	const char *name;
	void (*fn)(void);
} phases[] = {
	{ "--setup", run_setup }, { "--attack", run_attack },
	{ "--own", run_own },
};

/* Runs the phase argv names in directory argv[2]; false: no such phase. */
static bool
run_phase(int argc, char **argv)
{
	for (size_t i = 0; argc == 3 && i < sizeof(phases) / sizeof(phases[0]);
	    i++) {
		if (strcmp(argv[1], phases[i].name) != 0)
			continue;
		if (CHECK(chdir(argv[2]) == 0, "chdir %s", argv[2]))
			phases[i].fn();
		return true;
	}
	return false;
}

int
main(int argc, char **argv)
{
	prot.hardlinks = read_sysctl("protected_hardlinks");
	prot.symlinks = read_sysctl("protected_symlinks");
	prot.fifos = read_sysctl("protected_fifos");
	prot.regular = read_sysctl("protected_regular");
	guest_note("protected: hardlinks %d symlinks %d fifos %d regular %d",
	    prot.hardlinks, prot.symlinks, prot.fifos, prot.regular);
	if (run_phase(argc, argv))
		return guest_done();
	/*
	 * The attacks are of one user on another's files, and only root can
	 * become both: without it nothing here runs.
	 */
	if (geteuid() != 0)
		return guest_skip("needs root, to become other users");
	if (!CHECK(scratch_enter_in(argc > 1 ? argv[1] : "/tmp"),
	    "scratch directory") || CHECK_OK(chmod(".", 01777)) == -1)
		return guest_done();
	run_setup();
	run_attack();
	run_own();
	CHECK(scratch_leave(), "root removes everything");
	return guest_done();
}
