/*
 * The encoding of fuzz_syscalls' programs, which gencorpus.py reads too
 * (it parses the #defines and the lists here): keep them one per line.
 *
 * A program is a sequence of events, each
 *   op:u8 thread:u8 ...
 * where thread picks one of the running threads (mod their number) and
 * op % 16 says what happens:
 *   FZ_OP_CLOCK   bound      the clock moves on by a boundary value (ns)
 *   FZ_OP_FAULT   ptr code:u8   the thread faults at ptr
 *   FZ_OP_TRAP    which:u8   a CPU exception (breakpoint, divide, ...)
 *   FZ_OP_HOSTSIG which:u8   the host sends vkernel SIGINT, SIGHUP, ...
 *   anything else: a system call
 *     nr:u16le flags:u8 arg...
 *   with one argument per typed argument of the call's prototype (six
 *   untyped ones for a number outside the table), each a selector byte
 *   (>= 0xf0: eight raw bytes follow) and what its kind reads; then,
 *   with FZ_CALL_SETSP, a pointer for the stack pointer.  Earlier results
 *   (descriptors, pids, addresses) are picked counting back from the
 *   latest: 0 is the last call's.
 * Past the end every byte reads 0.
 */
#ifndef VK_TESTS_FUZZ_PROG_H
#define VK_TESTS_FUZZ_PROG_H

/* /bin/init: a text page holding the syscall site, a scratch area. */
#define FZ_TEXT 0x400000
#define FZ_SYSCALL_SITE 0x400800
#define FZ_SCRATCH 0x10000000
#define FZ_SCRATCH_SIZE 0x10000
/* Where paths are written, in the scratch area (two of 8 KiB). */
#define FZ_PATHAREA 0x8000

#define FZ_OP_CLOCK 11
#define FZ_OP_FAULT 12
#define FZ_OP_TRAP 13
#define FZ_OP_HOSTSIG 14

#define FZ_CALL_SETSP 0x1
#define FZ_CALL_X32 0x2
#define FZ_CALL_RESTART 0x4   /* rerun a call the kernel restarts */

/* A pointer: selector % FZ_PTR_NKINDS, then what each reads. */
#define FZ_PTR_NULL 0
#define FZ_PTR_SCRATCH 1      /* off:u16 */
#define FZ_PTR_EDGE 2         /* back:u8, from the end of the scratch */
#define FZ_PTR_NOWHERE 3      /* bound, in an unmapped page */
#define FZ_PTR_RESULT 4       /* back:u8 off:u16, an earlier address */
#define FZ_PTR_STACK 5        /* below:u16 */
#define FZ_PTR_DATA 6         /* off:u16 fill, as FZ_PTR_SCRATCH, filled */
#define FZ_PTR_NKINDS 8       /* 7: raw:u64 */
/*
 * A fill: hdr:u8; hdr < 0x80: hdr raw bytes; else hdr & 0x7f slots of 8
 * bytes, each kind:u8 (0 pointer, 1 bound, else raw:u64) and its value.
 */

/*
 * A path: selector < 0xe0 indexes this list (mod its length; index 1 is
 * a path longer than PATH_MAX), < 0xe8 reads len:u8 and the bytes, else
 * (below 0xf0) a pointer follows.  Every name the file systems know at
 * boot is here.
 */
#define FZ_LONGPATH 4200
#define FZ_PATH_LONG 1
#define FZ_PATHS \
	FZ_PATH("") \
	FZ_PATH("") \
	FZ_PATH("/") \
	FZ_PATH(".") \
	FZ_PATH("..") \
	FZ_PATH("/bin/init") \
	FZ_PATH("/bin/sh") \
	FZ_PATH("/bin/script") \
	FZ_PATH("/bin/loop") \
	FZ_PATH("/tmp") \
	FZ_PATH("/tmp/f") \
	FZ_PATH("/tmp/d") \
	FZ_PATH("/tmp/d/x") \
	FZ_PATH("/tmp/l") \
	FZ_PATH("/tmp/dangling") \
	FZ_PATH("/tmp/fifo") \
	FZ_PATH("/tmp/new") \
	FZ_PATH("/tmp/sock") \
	FZ_PATH("/tmp/ro") \
	FZ_PATH("f") \
	FZ_PATH("new") \
	FZ_PATH("/etc/passwd") \
	FZ_PATH("/dev/null") \
	FZ_PATH("/dev/zero") \
	FZ_PATH("/dev/full") \
	FZ_PATH("/dev/urandom") \
	FZ_PATH("/dev/tty") \
	FZ_PATH("/dev/console") \
	FZ_PATH("/dev/fd/0") \
	FZ_PATH("/dev/shm") \
	FZ_PATH("/dev/shm/m") \
	FZ_PATH("/dev/pts") \
	FZ_PATH("/proc") \
	FZ_PATH("/proc/self") \
	FZ_PATH("/proc/self/maps") \
	FZ_PATH("/proc/self/status") \
	FZ_PATH("/proc/self/stat") \
	FZ_PATH("/proc/self/fd") \
	FZ_PATH("/proc/self/fd/0") \
	FZ_PATH("/proc/self/fdinfo/0") \
	FZ_PATH("/proc/self/exe") \
	FZ_PATH("/proc/self/cwd") \
	FZ_PATH("/proc/self/root/tmp/f") \
	FZ_PATH("/proc/self/task") \
	FZ_PATH("/proc/self/mem") \
	FZ_PATH("/proc/1/cmdline") \
	FZ_PATH("/proc/2/environ") \
	FZ_PATH("/proc/meminfo") \
	FZ_PATH("/proc/cpuinfo") \
	FZ_PATH("/proc/mounts") \
	FZ_PATH("/proc/sys/fs/protected_fifos") \
	FZ_PATH("/proc/sys/kernel/pid_max") \
	FZ_PATH("/sys") \
	FZ_PATH("/sys/devices/system/cpu/online") \
	FZ_PATH("/tmp/l/x") \
	FZ_PATH("////tmp//./f/") \
	FZ_PATH("/tmp/d/../../tmp/f") \
	FZ_PATH("/tmp/loop1")

/* The tree each run starts from: path, mode, contents or link target. */
#define FZ_INIT NULL     /* contents: /bin/init's ELF image */
#define FZ_FILES \
	{ "/bin", S_IFDIR | 0755, NULL }, \
	{ "/bin/init", S_IFREG | 0755, FZ_INIT }, \
	{ "/bin/sh", S_IFREG | 0755, "#!/bin/init -c\n" }, \
	{ "/bin/script", S_IFREG | 0755, "#! /bin/sh  one two\n" }, \
	{ "/bin/loop", S_IFREG | 0755, "#!/bin/loop\n" }, \
	{ "/etc", S_IFDIR | 0755, NULL }, \
	{ "/etc/passwd", S_IFREG | 0644, "root:x:0:0::/:/bin/sh\n" }, \
	{ "/tmp", S_IFDIR | 01777, NULL }, \
	{ "/tmp/f", S_IFREG | 0666, "0123456789abcdef" }, \
	{ "/tmp/ro", S_IFREG | 0444, "read only" }, \
	{ "/tmp/d", S_IFDIR | 0777, NULL }, \
	{ "/tmp/d/x", S_IFREG | 0600, "x" }, \
	{ "/tmp/l", S_IFLNK | 0777, "/tmp/d" }, \
	{ "/tmp/dangling", S_IFLNK | 0777, "/nonexistent" }, \
	{ "/tmp/loop1", S_IFLNK | 0777, "/tmp/loop2" }, \
	{ "/tmp/loop2", S_IFLNK | 0777, "/tmp/loop1" }, \
	{ "/tmp/fifo", S_IFIFO | 0666, NULL },

/* Sizes, offsets, counts, times and addresses worth trying. */
#define FZ_BOUNDS \
	0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 63, 64, 65, 127, 128, \
	255, 256, 511, 512, 1023, 1024, 4095, 4096, 4097, 8191, 8192, \
	65535, 65536, 1048576, 0x7fffffff, 0x80000000, 0xffffffff, \
	0x100000000, 0x7fffffffffffffff, 0x8000000000000000, \
	0xffffffffffffffff, 0xfffffffffffff000, 0xffffffffffffff9c, \
	0x7ffffffff000, 0x7fffffffe000, 0x800000000000, 0xffff800000000000, \
	0xffffffffff600000, 999999999, 1000000000, 1000000001

#endif
