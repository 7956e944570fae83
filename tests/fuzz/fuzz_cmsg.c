/*
 * libFuzzer harness of sendmsg's and recvmsg's control messages
 * (SCM_RIGHTS, SCM_CREDENTIALS): the input is
 *   how:u8 rsize:u8 ssize:u8 control...
 * how's bits: 0-1 the socket type, 2 SO_PASSCRED on the receiver, 3 the
 * first receive peeks, 4 MSG_CMSG_CLOEXEC, 5 the sender drops to uid
 * 65534 first, 6 the message goes twice, 7 the sender closes its files
 * before anything is received.  The control bytes (up to 1024) end at
 * the last byte of the scratch area, so that a parser reading past them
 * faults; ssize picks sendmsg's msg_controllen around their length,
 * rsize recvmsg's from sizes worth trying.
 *
 * pid 1 opens a socket pair (3, 4), a file (5) and a pipe (6, 7), sends
 * from 3 and receives three times on 4.  After each receive the harness
 * walks the control messages the kernel wrote: they lie within what the
 * guest gave, carry at most SCM_MAX_FDS descriptors, each an open one,
 * and credentials an unprivileged sender could not forge.  After the
 * run every file is released again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "tests/fuzz/fuzz_kern.h"
#include "tests/fuzz/fuzz_prog.h"
#include "vkern/kern/proc.h"
#include "vkern/vfs/file.h"
#include "vkern/vfs/socket.h"
#include "vkern/vk.h"
#include "vkern/vm/copyio.h"

/* Where things are in the scratch area. */
#define CM_ONE 0x10   /* an int 1, SO_PASSCRED's value */
#define CM_SMSG 0x100   /* the sender's msghdr and iovec */
#define CM_SIOV 0x180
#define CM_RMSG 0x300   /* the receiver's */
#define CM_RIOV 0x380
#define CM_RDATA 0x400
#define CM_RCTL 0x1000   /* the receiver's control buffer */
#define CM_RCTL_MAX 0x1000
#define CM_SCTL_MAX 1024

#define CM_UNPRIV 65534

/* struct msghdr and struct cmsghdr as an x86-64 guest lays them out. */
struct cm_msghdr {
	uint64_t name;
	uint32_t namelen, pad0;
	uint64_t iov, iovlen, control, controllen;
	int32_t flags;
	uint32_t pad1;
};

struct cm_cmsghdr {
	uint64_t len;
	int32_t level, type;
};

/* What each call of the program is, for the hook. */
enum cm_step { CM_SETUP, CM_OTHER, CM_RECV };

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct {
	const uint8_t *ctl;
	size_t nctl;
	uint64_t scontrol, scontrollen, rcontrollen;
	bool unpriv;
	enum cm_step steps[16];
	unsigned nsteps, step;
} cm;

static void
cm_put_call(struct fz_prog *p, unsigned nr, enum cm_step what)
{
	fz_put_call(p, nr, 0);
	cm.steps[cm.nsteps++] = what;
}

/* The guest's msghdrs, iovecs and the control bytes, once pid 1 runs. */
static void
cm_setup(struct thread *td)
{
	const int one = 1;
	struct cm_msghdr sm = { .iov = FZ_SCRATCH + CM_SIOV, .iovlen = 1,
	    .control = cm.scontrol, .controllen = cm.scontrollen };
	struct cm_msghdr rm = { .iov = FZ_SCRATCH + CM_RIOV, .iovlen = 1,
	    .control = FZ_SCRATCH + CM_RCTL, .controllen = cm.rcontrollen };
	const uint64_t siov[2] = { FZ_SCRATCH + CM_RDATA, 3 };
	const uint64_t riov[2] = { FZ_SCRATCH + CM_RDATA, 64 };

	if (copyout(td, &one, UADDR(FZ_SCRATCH + CM_ONE), sizeof(one)) < 0 ||
	    copyout(td, &sm, UADDR(FZ_SCRATCH + CM_SMSG), sizeof(sm)) < 0 ||
	    copyout(td, siov, UADDR(FZ_SCRATCH + CM_SIOV), sizeof(siov)) < 0 ||
	    copyout(td, &rm, UADDR(FZ_SCRATCH + CM_RMSG), sizeof(rm)) < 0 ||
	    copyout(td, riov, UADDR(FZ_SCRATCH + CM_RIOV), sizeof(riov)) < 0 ||
	    copyout(td, cm.ctl, UADDR(FZ_SCRATCH + FZ_SCRATCH_SIZE - cm.nctl),
	    cm.nctl) < 0)
		abort();
}

/* What recvmsg wrote must be sound; the next receive starts afresh. */
static void
cm_check_recv(struct thread *td)
{
	uint8_t ctl[CM_RCTL_MAX];
	struct cm_msghdr rm;
	struct cm_cmsghdr h;
	uint64_t off = 0;

	if (copyin(td, UADDR(FZ_SCRATCH + CM_RMSG), &rm, sizeof(rm)) < 0)
		abort();
	if (rm.controllen > cm.rcontrollen ||
	    copyin(td, UADDR(FZ_SCRATCH + CM_RCTL), ctl,
	    (size_t)rm.controllen) < 0)
		abort();
	/* The last message's padding may run past the end. */
	while (off < rm.controllen && rm.controllen - off >= sizeof(h)) {
		memcpy(&h, ctl + off, sizeof(h));
		if (h.len < sizeof(h) || h.len > rm.controllen - off ||
		    h.level != SOL_SOCKET)
			abort();
		if (h.type == SCM_RIGHTS) {
			size_t n = (h.len - sizeof(h)) / sizeof(int);
			int fd;

			if (n == 0 || n > SCM_MAX_FDS)
				abort();
			for (size_t i = 0; i < n; i++) {
				memcpy(&fd, ctl + off + sizeof(h) +
				    i * sizeof(int), sizeof(fd));
				if (fd_get(td->proc->fdt, fd) == NULL)
					abort();
			}
		} else if (h.type == SCM_CREDENTIALS) {
			struct ucred uc;

			if (h.len != sizeof(h) + sizeof(uc))
				abort();
			memcpy(&uc, ctl + off + sizeof(h), sizeof(uc));
			if (cm.unpriv && (uc.pid != td->proc->pid ||
			    uc.uid != CM_UNPRIV || uc.gid != CM_UNPRIV))
				abort();
		} else {
			abort();
		}
		off += (h.len + 7) & ~(uint64_t)7;
	}
	rm.controllen = cm.rcontrollen;
	if (copyout(td, &rm, UADDR(FZ_SCRATCH + CM_RMSG), sizeof(rm)) < 0)
		abort();
}

static void
cm_after_call(struct thread *td, long r)
{
	if (cm.step >= cm.nsteps)
		return;
	switch (cm.steps[cm.step++]) {
	case CM_SETUP:
		cm_setup(td);
		break;
	case CM_RECV:
		if (r >= 0)
			cm_check_recv(td);
		break;
	default:
		break;
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_boot();
	fz_after_call = cm_after_call;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET,
	    SOCK_STREAM };
	static const uint64_t rsizes[] = { 0, 1, 15, 16, 20, 24, 28, 32, 36,
	    40, 48, 64, 256, 1024, 4096 };
	struct fz_prog prog = { .n = 0 };
	uint8_t how;
	int rflags;
	uint64_t files;

	if (size < 3)
		return 0;
	how = data[0];
	memset(&cm, 0, sizeof(cm));
	cm.ctl = data + 3;
	cm.nctl = VK_MIN(size - 3, CM_SCTL_MAX);
	cm.scontrol = FZ_SCRATCH + FZ_SCRATCH_SIZE - cm.nctl;
	cm.rcontrollen = rsizes[data[1] % VK_NELEM(rsizes)];
	cm.unpriv = (how & 0x20) != 0;
	switch (data[2] % 6) {
	case 0:
		cm.scontrollen = cm.nctl;
		break;
	case 1:
		cm.scontrollen = cm.nctl + 1;   /* one byte past the mapping */
		break;
	case 2:
		cm.scontrollen = cm.nctl - (cm.nctl > 0);
		break;
	case 3:
		cm.scontrollen = (uint64_t)INT_MAX + 1;
		break;
	case 4:
		cm.scontrol = 0;
		cm.scontrollen = cm.nctl;
		break;
	default:
		cm.scontrollen = cm.nctl & ~(uint64_t)7;
		break;
	}
	rflags = MSG_DONTWAIT | (how & 0x10 ? MSG_CMSG_CLOEXEC : 0);

	cm_put_call(&prog, SYS_socketpair, CM_SETUP);
	fz_put_raw(&prog, AF_UNIX);
	fz_put_raw(&prog, (uint64_t)types[how & 3]);
	fz_put_raw(&prog, 0);
	fz_put_raw(&prog, FZ_SCRATCH);
	cm_put_call(&prog, SYS_openat, CM_OTHER);
	fz_put_raw(&prog, (uint64_t)(int64_t)AT_FDCWD);
	fz_put_path(&prog, "/tmp/f");
	fz_put_raw(&prog, O_RDWR);
	fz_put_raw(&prog, 0);
	cm_put_call(&prog, SYS_pipe2, CM_OTHER);
	fz_put_raw(&prog, FZ_SCRATCH + 8);
	fz_put_raw(&prog, 0);
	if (how & 0x04) {
		cm_put_call(&prog, SYS_setsockopt, CM_OTHER);
		fz_put_raw(&prog, 4);
		fz_put_raw(&prog, SOL_SOCKET);
		fz_put_raw(&prog, SO_PASSCRED);
		fz_put_raw(&prog, FZ_SCRATCH + CM_ONE);
		fz_put_raw(&prog, sizeof(int));
	}
	if (cm.unpriv) {
		cm_put_call(&prog, SYS_setresgid, CM_OTHER);
		for (int i = 0; i < 3; i++)
			fz_put_raw(&prog, CM_UNPRIV);
		cm_put_call(&prog, SYS_setresuid, CM_OTHER);
		for (int i = 0; i < 3; i++)
			fz_put_raw(&prog, CM_UNPRIV);
	}
	for (int i = 0; i < (how & 0x40 ? 2 : 1); i++) {
		cm_put_call(&prog, SYS_sendmsg, CM_OTHER);
		fz_put_raw(&prog, 3);
		fz_put_raw(&prog, FZ_SCRATCH + CM_SMSG);
		fz_put_raw(&prog, MSG_DONTWAIT);
	}
	if (how & 0x80) {
		cm_put_call(&prog, SYS_close_range, CM_OTHER);
		fz_put_raw(&prog, 5);
		fz_put_raw(&prog, 7);
		fz_put_raw(&prog, 0);
	}
	for (int i = 0; i < 3; i++) {
		cm_put_call(&prog, SYS_recvmsg, CM_RECV);
		fz_put_raw(&prog, 4);
		fz_put_raw(&prog, FZ_SCRATCH + CM_RMSG);
		fz_put_raw(&prog, (uint64_t)(rflags |
		    (i == 0 && (how & 0x08) ? MSG_PEEK : 0)));
	}
	/* What is still queued goes with the socket. */
	cm_put_call(&prog, SYS_close, CM_OTHER);
	fz_put_raw(&prog, 4);

	files = file_nlive();
	fz_run(prog.b, prog.n);
	if (file_nlive() != files)
		abort();
	return 0;
}
