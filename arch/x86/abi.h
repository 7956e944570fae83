/*
 * x86-64 layouts of the guest ABI that the UAPI headers do not give in a
 * form the kernel can use directly.  Each is checked against Linux's size.
 */
#ifndef VK_ARCH_X86_ABI_H
#define VK_ARCH_X86_ABI_H

#include <stdint.h>
#include <sys/ioctl.h>

/* struct stat as arch/x86/include/uapi/asm/stat.h lays it out. */
struct arch_stat {
	uint64_t st_dev;
	uint64_t st_ino;
	uint64_t st_nlink;
	uint32_t st_mode;
	uint32_t st_uid;
	uint32_t st_gid;
	uint32_t pad0;
	uint64_t st_rdev;
	int64_t st_size;
	int64_t st_blksize;
	int64_t st_blocks;
	uint64_t st_atime_sec, st_atime_nsec;
	uint64_t st_mtime_sec, st_mtime_nsec;
	uint64_t st_ctime_sec, st_ctime_nsec;
	int64_t unused[3];
};
_Static_assert(sizeof(struct arch_stat) == 144, "x86-64 struct stat");

/* struct termios (the kernel's, not glibc's) and struct winsize. */
struct arch_termios {
	uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_line;
	uint8_t c_cc[19];
};
_Static_assert(sizeof(struct arch_termios) == 36, "struct termios");

/*
 * struct termios2 (<asm/termbits.h>, which cannot share a file with libc's
 * <termios.h>): struct termios with the speeds as numbers, for BOTHER.
 * Its requests are spelt here for the same reason; host-linux/console.c
 * checks them against the UAPI's.
 */
struct arch_termios2 {
	uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_line;
	uint8_t c_cc[19];
	uint32_t c_ispeed, c_ospeed;
};
_Static_assert(sizeof(struct arch_termios2) == 44, "struct termios2");

#define ARCH_TCGETS2	_IOR('T', 0x2A, struct arch_termios2)
#define ARCH_TCSETS2	_IOW('T', 0x2B, struct arch_termios2)
#define ARCH_TCSETSW2	_IOW('T', 0x2C, struct arch_termios2)
#define ARCH_TCSETSF2	_IOW('T', 0x2D, struct arch_termios2)

struct arch_winsize {
	uint16_t ws_row, ws_col, ws_xpixel, ws_ypixel;
};
_Static_assert(sizeof(struct arch_winsize) == 8, "struct winsize");

#endif
