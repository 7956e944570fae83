/*
 * The allow-list.  Keep it short: every entry is host attack surface that
 * a guest which took over the vkernel could reach.  Files are opened,
 * stubs forked and the RAM file created before the lock-down, so open,
 * fork, execve and memfd_create are not here.  The one open after it is
 * openat2 beneath a directory opened at start-up: hostfs's of one name,
 * and /proc's CPU-time files of stub threads and each stub's /proc/PID,
 * its pidfd (host-linux/cputime.c).
 */
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>

#include "arch/x86/abi.h"
#include "seccomp-policy/policy.h"

const struct policy_rule policy_rules[] = {
	/* Guest execution: the ptrace platform. */
	/*
	 * ptrace, only the requests on stubs vkernel already traces (each
	 * traced since its birth): never ATTACH, SEIZE or TRACEME, so no
	 * other host process can be taken.
	 */
	{ "ptrace", POLICY_EQ, 0, PTRACE_SYSEMU,
	    "resume a stub thread to its next system call" },
	{ "ptrace", POLICY_EQ, 0, PTRACE_CONT,
	    "resume a stub thread with or without a signal" },
	{ "ptrace", POLICY_EQ, 0, PTRACE_INTERRUPT,
	    "stop a running stub thread" },
	{ "ptrace", POLICY_EQ, 0, PTRACE_GETREGS,
	    "read a stub thread's registers" },
	{ "ptrace", POLICY_EQ, 0, PTRACE_SETREGS,
	    "set a stub thread's registers" },
	{ "ptrace", POLICY_EQ, 0, PTRACE_GETREGSET,
	    "read a stub thread's FPU state (NT_X86_XSTATE)" },
	{ "ptrace", POLICY_EQ, 0, PTRACE_SETREGSET,
	    "set a stub thread's FPU state" },
	{ "ptrace", POLICY_EQ, 0, PTRACE_POKEUSER,
	    "set a stub thread's debug registers" },
	{ "ptrace", POLICY_EQ, 0, PTRACE_GETSIGINFO,
	    "why a stub thread stopped" },
	{ "ptrace", POLICY_EQ, 0, PTRACE_PEEKSIGINFO,
	    "the signals pending for a stub thread" },
	{ "ptrace", POLICY_EQ, 0, PTRACE_GETEVENTMSG,
	    "the pid a stub's fork or clone made" },
	{ "wait4", POLICY_ANY, 0, 0,
	    "learn why a stub thread stopped" },
	{ "membarrier", POLICY_EQ, 0, MEMBARRIER_CMD_GLOBAL,
	    "a guest's membarrier with threads on several CPUs" },
	{ "pidfd_send_signal", POLICY_EQ, 1, SIGKILL,
	    "kill a stub when its guest process ends, through the /proc/PID "
	    "fd vkernel holds for it; /proc is vkernel's own pid namespace's, "
	    "where nothing but its stubs is (kill is not allowed)" },
	{ "sched_setaffinity", POLICY_ANY, 0, 0,
	    "let a killed stub die on any of vkernel's CPUs; its tid cannot "
	    "be pinned, but in vkernel's pid namespace only stubs have one" },
	{ "ppoll", POLICY_ANY, 0, 0,
	    "sleep until a stub stops, the console is ready or a deadline; "
	    "whether the console is ready" },
	{ "read", POLICY_ANY, 0, 0,
	    "the console's input, and the SIGCHLD signalfd" },
	{ "pread64", POLICY_ANY, 0, 0,
	    "the guest's positioned reads of a console fd; hostfs file reads" },
	{ "pwrite64", POLICY_ANY, 0, 0,
	    "the guest's positioned writes of a console fd; hostfs writes; "
	    "tmpfs data into new pages of the RAM file" },
	{ "lseek", POLICY_ANY, 0, 0,
	    "the guest's seeks on a console fd; hostfs readdir resumes at a "
	    "cookie; where hostfs sendfile writes in the RAM file" },
	{ "sendfile", POLICY_ANY, 0, 0,
	    "hostfs: a host file's bytes into the RAM file (no more than "
	    "pread64 and pwrite64 could move)" },
	{ "fcntl", POLICY_EQ, 1, F_GETFL,
	    "the guest's F_GETFL of a console fd" },
	/* Guest memory. */
	{ "fallocate", POLICY_EQ, 1,
	    FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
	    "give freed guest pages of the RAM file back to the host" },
	/* Output. */
	{ "write", POLICY_ANY, 0, 0,
	    "the console's output, diagnostics and --strace" },
	{ "ioctl", POLICY_EQ, 1, TCGETS,
	    "the console's terminal settings for the guest" },
	{ "ioctl", POLICY_EQ, 1, TCSETS,
	    "the guest's terminal settings to the console; restore them at "
	    "exit" },
	{ "ioctl", POLICY_EQ, 1, TCSETSW,
	    "the guest's terminal settings, after output drains" },
	{ "ioctl", POLICY_EQ, 1, TCSETSF,
	    "the guest's terminal settings, after output drains, input "
	    "flushed" },
	{ "ioctl", POLICY_EQ, 1, ARCH_TCGETS2,
	    "the console's terminal settings with their speeds (termios2)" },
	{ "ioctl", POLICY_EQ, 1, ARCH_TCSETS2,
	    "the guest's termios2 settings to the console" },
	{ "ioctl", POLICY_EQ, 1, ARCH_TCSETSW2,
	    "the guest's termios2 settings, after output drains" },
	{ "ioctl", POLICY_EQ, 1, ARCH_TCSETSF2,
	    "the guest's termios2 settings, after output drains, input "
	    "flushed" },
	{ "ioctl", POLICY_EQ, 1, TCSBRK,
	    "the guest's tcdrain of the console, once TIOCOUTQ reads 0; "
	    "vkernel passes only arg 1 (a rule pins one argument, and arg 0 "
	    "would be a break of a quarter second, no worse)" },
	{ "ioctl", POLICY_EQ, 1, TIOCSBRK,
	    "the guest's break on the console starts (tcsendbreak)" },
	{ "ioctl", POLICY_EQ, 1, TIOCCBRK,
	    "the guest's break on the console ends; also at exit" },
	{ "ioctl", POLICY_EQ, 1, TCFLSH,
	    "the guest's tcflush of the console" },
	{ "ioctl", POLICY_EQ, 1, TCXONC,
	    "the guest's tcflow of the console" },
	{ "ioctl", POLICY_EQ, 1, FIONREAD,
	    "the bytes the console has for the guest to read" },
	{ "ioctl", POLICY_EQ, 1, TIOCOUTQ,
	    "the bytes the console has yet to send" },
	{ "ioctl", POLICY_EQ, 1, TIOCGWINSZ,
	    "the console's window size for the guest" },
	{ "ioctl", POLICY_EQ, 1, TIOCSWINSZ,
	    "the guest sets the console's window size (stty cols)" },
	{ "close", POLICY_ANY, 0, 0,
	    "close the file an exec read its image from, and hostfs files" },
	/*
	 * hostfs: host files beneath the directories opened at start-up,
	 * each reached by one name at a time, never through a symlink.
	 * "Self" flags (AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) pin a call to
	 * the fd itself or to one name, never a symlink's target.
	 */
	{ "openat2", POLICY_EQ, 3, sizeof(struct open_how),
	    "hostfs: open one name beneath a host directory (RESOLVE_BENEATH, "
	    "no symlinks), the only open allowed; also a stub thread's "
	    "/proc schedstat and stat for CPU time; its flags are in memory "
	    "the filter cannot read, so only the struct size is pinned" },
	{ "statx", POLICY_EQ, 2, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
	    "hostfs: stat a host file by its fd or one name, not following "
	    "it; the guest's fstat of a console fd" },
	{ "getdents64", POLICY_ANY, 0, 0, "hostfs: list a host directory" },
	{ "fstatfs", POLICY_ANY, 0, 0,
	    "hostfs: the figures of the host file system a file is on" },
	{ "readlinkat", POLICY_ANY, 0, 0,
	    "hostfs: read a host symlink through its own O_PATH fd" },
	/* hostfs, changes: only read-write binds make them. */
	{ "mkdirat", POLICY_ANY, 0, 0, "hostfs: make a directory" },
	{ "mknodat", POLICY_MASK0, 2, S_IFCHR,
	    "hostfs: make a FIFO or a socket; never a device (S_IFCHR and "
	    "S_IFBLK both have this bit)" },
	{ "symlinkat", POLICY_ANY, 0, 0, "hostfs: make a symlink" },
	{ "fallocate", POLICY_MASK0, 1,
	    (uint32_t)~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE |
	    FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_ZERO_RANGE |
	    FALLOC_FL_INSERT_RANGE | FALLOC_FL_UNSHARE_RANGE),
	    "hostfs: the guest's fallocate of a host file, in the modes "
	    "fallocate(2) documents" },
	{ "fsync", POLICY_ANY, 0, 0,
	    "hostfs: the guest's fsync of a host file or directory" },
	{ "fdatasync", POLICY_ANY, 0, 0,
	    "hostfs: the guest's fdatasync or msync(MS_SYNC) of a host file" },
	{ "unlinkat", POLICY_ANY, 0, 0, "hostfs: unlink and rmdir one name" },
	{ "renameat2", POLICY_MASK0, 4,
	    (uint32_t)~(RENAME_NOREPLACE | RENAME_EXCHANGE),
	    "hostfs: rename(2) and renameat2(2); never RENAME_WHITEOUT" },
	{ "linkat", POLICY_EQ, 4, 0,
	    "hostfs: hard link one name; never AT_SYMLINK_FOLLOW" },
	{ "fchmodat2", POLICY_EQ, 3, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
	    "hostfs: chmod a host file through its own fd" },
	{ "fchmod", POLICY_ANY, 0, 0,
	    "hostfs: chmod on hosts before Linux 6.6 (no fchmodat2)" },
	{ "fchownat", POLICY_EQ, 4, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
	    "hostfs: chown a host file through its own fd" },
	{ "utimensat", POLICY_EQ, 3, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
	    "hostfs: set a host file's times through its own fd" },
	{ "ftruncate", POLICY_ANY, 0, 0,
	    "hostfs, and the console for O_TRUNC: truncate a host file "
	    "open for writing" },
	/* Time and randomness. */
	{ "clock_gettime", POLICY_ANY, 0, 0,
	    "the guest's clocks, when the vdso falls back to the kernel" },
	{ "getrandom", POLICY_ANY, 0, 0,
	    "the guest's getrandom, AT_RANDOM and address randomisation" },
	/* The vkernel's own heap (malloc). */
	{ "mmap", POLICY_MASK0, 2, PROT_EXEC,
	    "malloc's large blocks; never executable memory" },
	{ "munmap", POLICY_ANY, 0, 0, "malloc returns large blocks" },
	{ "mremap", POLICY_ANY, 0, 0, "realloc of large blocks" },
	{ "brk", POLICY_ANY, 0, 0, "malloc's heap" },
	{ "madvise", POLICY_ANY, 0, 0, "malloc trims freed memory" },
	/* Ending. */
	{ "exit_group", POLICY_ANY, 0, 0, "exit with the guest's status" },
	{ "rt_sigprocmask", POLICY_ANY, 0, 0,
	    "abort() unblocks SIGABRT on a vkernel bug" },
	{ "getpid", POLICY_ANY, 0, 0, "abort() signals itself" },
	{ "gettid", POLICY_ANY, 0, 0, "abort() signals itself" },
	{ "tgkill", POLICY_SELF, 0, 0,
	    "abort() on a vkernel bug: die by SIGABRT; its own threads only" },
	{ "rt_sigreturn", POLICY_ANY, 0, 0,
	    "return from a host signal handler" },
#ifdef VK_SANITIZE
	/* Only in sanitizer builds: what the runtime itself calls. */
	{ "sigaltstack", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "prctl", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "sched_yield", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "futex", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "openat", POLICY_ANY, 0, 0, "sanitizer runtime reads /proc" },
	{ "open", POLICY_ANY, 0, 0, "sanitizer runtime reads /proc" },
	{ "getdents64", POLICY_ANY, 0, 0, "sanitizer runtime reads /proc" },
	{ "clone", POLICY_ANY, 0, 0, "leak checker's tracer thread" },
	{ "exit", POLICY_ANY, 0, 0, "leak checker's tracer thread ends" },
	{ "ptrace", POLICY_ANY, 0, 0,
	    "leak checker's tracer thread attaches to the other threads" },
	{ "clone3", POLICY_ANY, 0, 0, "leak checker's tracer thread" },
	{ "readlink", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "sched_getaffinity", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "rt_sigaction", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "mprotect", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "pipe2", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "getppid", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "setrlimit", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "prlimit64", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "kill", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "waitid", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "getdents", POLICY_ANY, 0, 0, "sanitizer runtime" },
	{ "fcntl", POLICY_ANY, 0, 0, "sanitizer runtime writes a report" },
	{ "newfstatat", POLICY_ANY, 0, 0,
	    "sanitizer runtime: its symbolizer looks at each module of a "
	    "report's stack" },
#endif
};

const unsigned policy_nrules = sizeof(policy_rules) / sizeof(policy_rules[0]);

/* --platform=systrap's own: the hand-off's wake-up of a stub thread. */
const struct policy_rule policy_systrap_rules[] = {
	{ "futex", POLICY_EQ, 1, FUTEX_WAKE,
	    "systrap: wake a stub thread sleeping on its message word, in "
	    "the RAM file (the word is shared: never FUTEX_PRIVATE_FLAG)" },
};

const unsigned policy_systrap_nrules =
    sizeof(policy_systrap_rules) / sizeof(policy_systrap_rules[0]);
