/*
 * The platform's own internal interfaces, between its files.
 */
#ifndef VK_HOST_HOST_H
#define VK_HOST_HOST_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host-linux/error.h"

struct host_config {
	uint64_t mem;
	const char *trace_path;   /* NULL: stderr */
	bool trace;
};

/*
 * ramfile.c: the RAM file, guest_space bytes for the guest, then nslots
 * control pages, one for each stub (guest process) at once, then nareas
 * thread areas of RAM_AREA_SIZE bytes.
 */
#define RAM_AREA_SIZE 0x8000
int ram_init(uint64_t guest_space, unsigned nslots, unsigned nareas,
    struct vk_error **err);
int ram_fd(void);
/* A free control slot, or -EAGAIN when every one is taken. */
int ram_ctl_alloc(void);
/* Give slot back, its page zeroed for the next stub. */
void ram_ctl_free(unsigned slot);
/* The control page of slot, and its offset in the file. */
void *ram_ctl_page(unsigned slot, uint64_t *offp);
/* The same for thread areas. */
int ram_area_alloc(void);
void ram_area_free(unsigned slot);
void *ram_area(unsigned slot, uint64_t *offp);

/*
 * console.c: remember the host terminal's settings (before the lock-down)
 * and put them back, which exit does by itself; and the names of the
 * host fds 0 to nfds - 1 the guest gets, for /proc/PID/fd.
 */
void console_init(int nfds);
/*
 * console_closed(): host fd fd (0, 1 or 2) was closed when vkernel
 * started, and holds /dev/null only so that nothing else lands there;
 * the guest gets no such fd.
 */
void console_closed(int fd);
void console_restore(void);

/*
 * hostfs.c: openat2() of name beneath dirfd, never through a symlink,
 * the one open the lock-down allows; returns the fd or -errno.
 */
int host_openat2(int dirfd, const char *name, uint64_t flags, uint32_t mode);
/*
 * The fds of the host directories opened at start-up as roots of the
 * guest's root layer and binds, in the order they were opened.
 */
#define HOSTFS_MAX_ROOTS 65
unsigned hostfs_root_fds(const int **fds);

/*
 * cputime.c: the host's CPU-time accounting of stub threads.  Open
 * /proc/PID/task/TID/file (tid 0: /proc/PID/file) for reading, or
 * -errno; a thread's run time from its schedstat, -1 when unreadable;
 * and the user part of total ns by the utime:stime ratio of a stat file.
 */
int cputime_init(void);
int cputime_proc_fd(void);
int cputime_open(int pid, int tid, const char *file);
/* /proc/PID as a pidfd, or -errno. */
int proc_pidfd(int pid);
int64_t cputime_sched_ns(int fd);
int64_t cputime_user_ns(int fd, int64_t total);

/*
 * crash.c: --crash-dir.  crash_init opens (or makes) dir and takes what
 * the report needs before the lock-down; argv is the guest's command
 * line, for the report.  crash_report writes DIR/crash-<time>/ and exits
 * CRASH_EXIT_STATUS; it returns only without --crash-dir or when a report
 * is being written already.  crash_state_report, a host SIGUSR1's, writes
 * DIR/state-<time>/ (without --crash-dir, the guest's threads to stderr)
 * and returns.
 */
#define CRASH_EXIT_STATUS 125
int crash_init(const char *dir, char *const *argv, struct vk_error **err);
int crash_dir_fd(void);
void crash_report(const char *why);
void crash_state_report(void);

/* hostinfo.c */
/* Write all of buf to fd, or as much as the host takes. */
void host_write_all(int fd, const char *buf, size_t len);
/* cpus: how many host CPUs the guest runs on (and sees). */
int hostinfo_init(int cpus, struct vk_error **err);
const cpu_set_t *hostinfo_guest_cpus(void);
/* Every host CPU vkernel may use (more than the guest's, or the same). */
const cpu_set_t *hostinfo_host_cpus(void);
/*
 * Whether an FXSAVE or XSAVE image of size bytes holds an MXCSR that sets
 * only bits this CPU has: restoring another faults, which a host kernel
 * may not check first.
 */
bool hostinfo_mxcsr_ok(const void *img, size_t size);
int trace_open(const char *path, struct vk_error **err);
/*
 * Where what a guest makes vkernel say goes (unsupported calls and the
 * like): appended to path (--log), or nowhere (--quiet).
 */
int guest_log_open(const char *path, struct vk_error **err);
void guest_log_quiet(void);

/*
 * sandbox.c: give up the host powers start-up needed (capabilities but
 * those hostfs acts with, more with read-write binds), be not dumpable,
 * and with Landlock reach host files only beneath the roots hostfs opened
 * (rw[i] for hostfs_root_fds' i-th: writes allowed there too) and /proc.
 * With net_host, Landlock leaves TCP's bind and connect alone.
 */
enum sandbox_landlock {
	SANDBOX_LANDLOCK_AUTO,       /* where the host has it */
	SANDBOX_LANDLOCK_REQUIRED,   /* fail without it */
	SANDBOX_LANDLOCK_OFF,
};
int sandbox_harden(enum sandbox_landlock ll, const bool *rw, unsigned nrw,
    bool net_host, struct vk_error **err);
/* The Landlock ABI applied, 0 for none. */
int sandbox_landlock_abi(void);

/*
 * namespace.c: make the vkernel in its own user, pid and mount namespace
 * (returns in it; the process that called waits for it and ends as it
 * does), and later make its root an empty tmpfs.
 */
enum sandbox_userns {
	SANDBOX_USERNS_AUTO,         /* where the host allows it */
	SANDBOX_USERNS_REQUIRED,     /* fail without it */
	SANDBOX_USERNS_OFF,
};
enum sandbox_ns {
	SANDBOX_NS_NONE,             /* the host's namespaces */
	SANDBOX_NS_PID_MOUNT,        /* pid and mount: root without userns */
	SANDBOX_NS_USER,             /* user, pid and mount */
};
int sandbox_ns_enter(enum sandbox_userns mode, struct vk_error **err);
int sandbox_ns_chroot(struct vk_error **err);
/* Before abort(): have the outer process end by SIGABRT. */
void sandbox_ns_abort(void);
/* Which namespaces the vkernel has; *why: why not more. */
enum sandbox_ns sandbox_ns(const char **why);
/* Whether vkernel was started by root. */
bool sandbox_ns_host_root(void);
/*
 * In a stub before it execs: the host uid and gid stubs run as when root
 * started vkernel (nobody); -errno.
 */
#define SANDBOX_STUB_ID 65534
int sandbox_ns_stub_creds(void);

/*
 * lockdown.c: with net_host, the host socket calls too; with systrap,
 * that platform's.
 */
int lockdown_install(bool net_host, bool systrap, struct vk_error **err);

/*
 * hostnet.c: the host sockets the event loop waits for, as pollfds
 * (valid until the next plat_net_* call); their count.
 */
struct pollfd;
unsigned hostnet_watched(const struct pollfd **pp);

#endif
