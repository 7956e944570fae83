#!/usr/bin/env python3
"""Write the fuzz harnesses' seed corpora and fuzz_syscalls' dictionary.

  gencorpus.py CORPUS_DIR DICT_FILE

CORPUS_DIR gets fuzz_syscalls' programs; CORPUS_DIR-NAME each other
harness's seeds (elf, exec, stack, openhow, sigframe, cmsg).

Every call of vkern/kern/syscalls.tbl gets a program that opens a file and
then makes that call with plausible arguments of the kinds its prototype
gives (gensyscalls.TYPES), so the corpus reaches every call of the table;
a few more play scenarios no single call reaches (processes that wait for
each other, threads on a futex, a signal handler and its return, a #!
script).  The encoding is fuzz_prog.h's, whose #defines and lists are read
from there.
"""
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'vkern', 'kern'))
import gensyscalls  # noqa: E402

UNISTD = '/usr/include/x86_64-linux-gnu/asm/unistd_64.h'


def prog_defs():
    text = open(os.path.join(HERE, 'fuzz_prog.h')).read()
    defs = {m.group(1): int(m.group(2), 0) for m in
            re.finditer(r'#define (FZ_\w+) (0x[0-9a-f]+|\d+)', text)}
    paths = re.findall(r'FZ_PATH\("(.*?)"\)', text)
    bounds = [int(b, 0) for b in re.search(
        r'#define FZ_BOUNDS \\\n(.*?)\n\n', text, re.S).group(1)
        .replace('\\', ' ').replace(',', ' ').split()]
    return defs, paths, bounds


D, PATHS, BOUNDS = prog_defs()
NR = gensyscalls.parse_unistd(UNISTD)
ROWS = gensyscalls.parse_tbl(os.path.join(HERE, '..', '..', 'vkern', 'kern',
                                          'syscalls.tbl'))
NARGS = {r['name']: len(r['args']) for r in ROWS}


def u8(v):
    return bytes([v & 0xff])


def raw(v):
    """Any argument: eight raw bytes."""
    return b'\xf0' + struct.pack('<Q', v & (2**64 - 1))


def path(p):
    return u8(PATHS.index(p))


def scratch(off):
    return u8(D['FZ_PTR_SCRATCH']) + struct.pack('<H', off)


def data(off, b):
    """A pointer to scratch + off, which holds b."""
    return (u8(D['FZ_PTR_DATA']) + struct.pack('<H', off) + u8(len(b)) +
            b)


def rawpath(p):
    """A path not in the dictionary, spelled out."""
    return u8(0xe0) + u8(len(p)) + p.encode()


def fd(n):
    return b'\x04' + u8(n)     # a small descriptor


def bound(v):
    return b'\x00' + u8(BOUNDS.index(v))


def call(name, *args, thread=0, flags=0):
    assert len(args) == NARGS.get(name, 6), name
    return (b'\x00' + u8(thread) + struct.pack('<H', NR[name]) + u8(flags) +
            b''.join(args))


def plausible(kind, name):
    """One argument of kind for the call name."""
    if kind == 'FD':
        return b'\x00\x00'   # what the open returned
    if kind == 'PATH':
        return path('/tmp/new' if name.startswith(('mk', 'symlink', 'link',
                                                   'rename')) else
                    '/tmp/f')
    if kind == 'PTR':
        return scratch(0x100)
    if kind in ('SIZE', 'OFF'):
        return bound(16)
    if kind == 'INT':
        return b'\x01\x01'
    if kind == 'PID':
        return b'\x00'
    if kind == 'ID':
        return b'\x02\x00'
    if kind == 'CLOCK':
        return b'\x00\x01'
    return b'\x00'


O_RDWR = 2
SUN_SOCK = struct.pack('<H', 1) + b'/tmp/sock\0'
SIN_LO = struct.pack('<HH4s8x', 2, 0x5000, bytes([127, 0, 0, 1]))
SCRATCH = D['FZ_SCRATCH']
# At scratch + 0x700: one iovec of 4 bytes at scratch + 0x100, then at
# + 0x740 an SCM_RIGHTS message passing fd 3.
IOV_CMSG = (struct.pack('<QQ', SCRATCH + 0x100, 4).ljust(0x40, b'\0') +
            struct.pack('<QiiI', 20, 1, 1, 3).ljust(24, b'\0'))


def msghdr(controllen):
    """A msghdr of the iovec and control buffer at scratch + 0x700."""
    return struct.pack('<QIIQQQQi', 0, 0, 0, SCRATCH + 0x700, 1,
                       SCRATCH + 0x740, controllen, 0).ljust(56, b'\0')

OPEN = call('openat', raw(-100), path('/tmp/f'), raw(O_RDWR), raw(0))
NOPATH = b'\xe8' + u8(D['FZ_PTR_NULL'])     # a path argument of NULL
TMPFS = rawpath('tmpfs')
MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 0x1000, 0x2000, 0x4000, 0x40000
CLONE_NEWNS = 0x20000
OPEN_TREE_CLONE, AT_RECURSIVE, MOVE_MOUNT_F_EMPTY_PATH = 1, 0x8000, 4


def mount_tmpfs(where):
    return call('mount', rawpath('none'), path(where), TMPFS, raw(0), raw(0))


SCENARIOS = {
    # fork; the child writes into a pipe and exits; the parent reads
    # (waiting for it), then reaps it.
    'fork_pipe_wait': (
        call('pipe', scratch(0x40)) +
        call('fork') +
        call('read', fd(3), scratch(0x200), bound(16), thread=1) +
        call('write', fd(4), scratch(0x200), bound(8), thread=0) +
        call('exit_group', raw(3), thread=0) +
        call('wait4', raw(-1), scratch(0x300), raw(0), raw(0))),
    # A thread waits on a futex in the scratch area; another wakes it.
    'clone_futex': (
        call('clone', raw(0x50f00), scratch(0x800), raw(0), raw(0),
             raw(0)) +
        call('futex', raw(0x10000000 + 0x400), raw(0), raw(0), raw(0),
             raw(0), raw(0), thread=0) +
        call('futex', raw(0x10000000 + 0x400), raw(1), raw(1), raw(0),
             raw(0), raw(0)) +
        call('exit', raw(0))),
    # A SIGUSR1 handler runs and returns through its frame.
    'signal_return': (
        call('rt_sigaction', raw(10),
             data(0x500, struct.pack('<QQQQ', 0x400800, 0x04000000,
                                     0x400800, 0)),
             raw(0), raw(8)) +
        call('kill', b'\x00', raw(10)) +
        call('rt_sigreturn')),
    # A #! script whose interpreter is a script, run by a child.
    'exec_script': (
        call('vfork') +
        call('execve', path('/bin/script'), raw(0), raw(0)) +
        call('exit_group', raw(0))),
    # A listening AF_UNIX socket, a forked child that connects, a
    # parent that accepts and reads what the child writes.
    'unix_stream': (
        call('socket', raw(1), raw(1), raw(0)) +
        call('bind', fd(3), data(0x100, SUN_SOCK), raw(len(SUN_SOCK))) +
        call('listen', fd(3), raw(8)) +
        call('fork') +
        call('socket', raw(1), raw(1), raw(0), thread=0) +
        call('connect', fd(4), data(0x100, SUN_SOCK), raw(len(SUN_SOCK)),
             thread=0) +
        call('accept', fd(3), raw(0), raw(0), thread=1) +
        call('write', fd(4), scratch(0x100), bound(8), thread=0) +
        call('read', fd(4), scratch(0x200), bound(16), thread=1) +
        call('exit_group', raw(0), thread=0)),
    # A descriptor passed over a socketpair (SCM_RIGHTS), the sender's
    # end closed with it in flight, then received.
    'scm_rights': (
        call('socketpair', raw(1), raw(1), raw(0), scratch(0x40)) +
        call('getcwd', data(0x700, IOV_CMSG), raw(0)) +
        call('sendmsg', fd(3), data(0x600, msghdr(24)), raw(0)) +
        call('close', fd(3)) +
        call('recvmsg', fd(4), data(0x680, msghdr(64)), raw(0)) +
        call('close', fd(4))),
    # epoll on a pipe: a child waits; the parent's write wakes it.
    'epoll_pipe': (
        call('epoll_create1', raw(0)) +
        call('pipe', scratch(0x40)) +
        call('epoll_ctl', raw(3), raw(1), fd(4),
             data(0x500, struct.pack('<IQ', 1, 7))) +
        call('fork') +
        call('epoll_wait', raw(3), scratch(0x800), raw(8), raw(-1),
             thread=0) +
        call('write', fd(5), scratch(0x100), bound(1), thread=0) +
        call('exit_group', raw(0), thread=0) +
        call('wait4', raw(-1), raw(0), raw(0), raw(0))),
    # A blocked signal read from a signalfd.
    'signalfd': (
        call('rt_sigprocmask', raw(0), data(0x500, struct.pack('<Q', 1 << 9)),
             raw(0), raw(8)) +
        call('signalfd4', raw(-1), data(0x500, struct.pack('<Q', 1 << 9)),
             raw(8), raw(0)) +
        call('kill', b'\x00', raw(10)) +
        call('read', fd(3), scratch(0x800), bound(128))),
    # Memory: a shared mapping of a memfd, grown, moved, torn.
    'memfd_mmap': (
        call('memfd_create', path('f'), raw(0)) +
        call('ftruncate', fd(3), bound(8192)) +
        call('mmap', raw(0), bound(8192), raw(3), raw(1), fd(3), raw(0)) +
        call('mremap', b'\x04\x00\x00\x00', bound(8192), bound(65536),
             raw(1), raw(0)) +
        call('munmap', b'\x04\x00\x00\x10', bound(4096)) +
        call('fork') +
        call('exit_group', raw(0), thread=0)),
    # An unprivileged guest user meets root's files and processes.
    'unprivileged': (
        call('setgroups', raw(0), raw(0)) +
        call('setresgid', raw(65534), raw(65534), raw(65534)) +
        call('setresuid', raw(65534), raw(65534), raw(65534)) +
        call('openat', raw(-100), path('/tmp/d/x'), raw(2), raw(0)) +
        call('kill', raw(1), raw(0)) +
        call('unlink', path('/bin/init')) +
        call('mkdir', path('/tmp/new'), raw(0o700))),
    # A pseudo-terminal: the master unlocked, the slave opened, bytes
    # both ways through the line discipline, its modes, a session whose
    # terminal it becomes, ^C, the master's hang-up.
    'pty': (
        call('openat', raw(-100), rawpath('/dev/ptmx'), raw(0o400402),
             raw(0)) +
        call('getcwd', data(0x500, b'\0' * 64), raw(0)) +
        call('ioctl', fd(3), raw(0x40045431), raw(SCRATCH + 0x500)) +
        call('ioctl', fd(3), raw(0x80045430), raw(SCRATCH + 0x540)) +
        call('openat', raw(-100), rawpath('/dev/pts/0'), raw(O_RDWR),
             raw(0)) +
        call('write', fd(3), data(0x600, b'hi\n'), bound(3)) +
        call('read', fd(4), scratch(0x800), bound(64)) +
        call('ioctl', fd(4), raw(0x5401), raw(SCRATCH + 0x900)) +
        call('ioctl', fd(4), raw(0x5402), raw(SCRATCH + 0x500)) +
        call('write', fd(4), data(0x600, b'ok\n'), bound(3)) +
        call('read', fd(3), scratch(0x800), bound(64)) +
        call('setsid') +
        call('ioctl', fd(4), raw(0x540e), raw(0)) +
        call('ioctl', fd(4), raw(0x540f), raw(SCRATCH + 0x580)) +
        call('write', fd(3), data(0x600, b'\x03'), bound(1)) +
        call('close', fd(3)) +
        call('read', fd(4), scratch(0x800), bound(64))),
    # NETLINK_ROUTE: a link dump and a route get; NETLINK_SOCK_DIAG: the
    # local sockets there are.
    'netlink': (
        call('socket', raw(16), raw(3), raw(0)) +
        call('bind', fd(3), data(0x100, struct.pack('<HHII', 16, 0, 0, 0)),
             raw(12)) +
        call('sendto', fd(3), data(0x200, struct.pack(
            '<IHHII', 32, 18, 0x301, 1, 0) + bytes(16)), raw(32), raw(0),
            raw(0), raw(0)) +
        call('recvfrom', fd(3), scratch(0x1000), bound(8192), raw(0),
             raw(0), raw(0)) +
        call('recvfrom', fd(3), scratch(0x1000), bound(8192), raw(0x40),
             raw(0), raw(0)) +
        call('socketpair', raw(1), raw(1), raw(0), scratch(0x40)) +
        call('socket', raw(16), raw(3), raw(4)) +
        call('sendto', fd(6), data(0x300, struct.pack(
            '<IHHIIBBHIIIII', 40, 20, 0x301, 2, 0, 1, 0, 0, 0xffffffff, 0,
            0x1f, 0, 0)), raw(40), raw(0), raw(0), raw(0)) +
        call('recvmsg', fd(6), data(0x680, msghdr(0)), raw(0)) +
        call('getsockname', fd(6), scratch(0x400), data(0x440, b'\x0c'))),
    # TCP over the loopback: a listener, a forked child that connects,
    # bytes from the child, a shutdown.
    'tcp_loopback': (
        call('socket', raw(2), raw(1), raw(0)) +
        call('bind', fd(3), data(0x100, SIN_LO), raw(16)) +
        call('listen', fd(3), raw(8)) +
        call('fork') +
        call('socket', raw(2), raw(1), raw(0), thread=0) +
        call('connect', fd(4), data(0x100, SIN_LO), raw(16), thread=0) +
        call('accept', fd(3), raw(0), raw(0), thread=1) +
        call('write', fd(4), scratch(0x100), bound(8), thread=0) +
        call('read', fd(4), scratch(0x200), bound(16), thread=1) +
        call('shutdown', fd(4), raw(1), thread=0) +
        call('exit_group', raw(0), thread=0)),
    # A mount namespace of its own, its mounts made private, its table
    # read back.
    'mount_ns': (
        call('unshare', raw(CLONE_NEWNS)) +
        mount_tmpfs('/tmp/d') +
        call('mount', NOPATH, path('/'), NOPATH, raw(MS_REC | MS_PRIVATE),
             raw(0)) +
        call('openat', raw(-100), rawpath('/proc/self/mountinfo'), raw(0),
             raw(0)) +
        call('read', fd(3), scratch(0x1000), bound(4096))),
    # A tmpfs moved to another mount point, then unmounted there.
    'mount_move': (
        mount_tmpfs('/tmp/d') +
        call('mkdir', path('/tmp/new'), raw(0o755)) +
        call('mount', path('/tmp/d'), path('/tmp/new'), NOPATH,
             raw(MS_MOVE), raw(0)) +
        call('umount2', path('/tmp/new'), raw(0))),
    # A detached copy of /tmp with what is on it, attached on /tmp/d,
    # moved by its file, then unmounted; a copy of /dev/shm closed
    # unattached.
    'open_tree_attach': (
        mount_tmpfs('/tmp/d') +
        call('open_tree', raw(-100), path('/tmp'),
             raw(OPEN_TREE_CLONE | AT_RECURSIVE)) +
        call('umount2', path('/tmp/d'), raw(0)) +
        call('move_mount', fd(3), rawpath(''), raw(-100), path('/tmp/d'),
             raw(MOVE_MOUNT_F_EMPTY_PATH)) +
        call('mkdir', path('/tmp/new'), raw(0o755)) +
        call('move_mount', fd(3), rawpath(''), raw(-100),
             path('/tmp/new'), raw(MOVE_MOUNT_F_EMPTY_PATH)) +
        call('close', fd(3)) +
        call('umount2', path('/tmp/new'), raw(0)) +
        call('open_tree', raw(-100), path('/dev/shm'), raw(OPEN_TREE_CLONE)) +
        call('close', fd(3))),
    # A message queue seen as a file of /dev/mqueue: read, listed,
    # removed by unlink.
    'dev_mqueue': (
        call('mq_open', rawpath('q'), raw(0o102), raw(0o600), raw(0)) +
        call('mq_timedsend', fd(3), data(0x100, b'hi'), raw(2), raw(1),
             raw(0)) +
        call('openat', raw(-100), rawpath('/dev/mqueue/q'), raw(0), raw(0)) +
        call('read', fd(4), scratch(0x1000), bound(128)) +
        call('openat', raw(-100), rawpath('/dev/mqueue'), raw(0o200000),
             raw(0)) +
        call('getdents64', fd(5), scratch(0x1000), bound(4096)) +
        call('unlink', rawpath('/dev/mqueue/q'))),
    # A watch on a tmpfs that is then detached: IN_UNMOUNT, IN_IGNORED.
    'inotify_unmount': (
        mount_tmpfs('/tmp/d') +
        call('inotify_init1', raw(0)) +
        call('inotify_add_watch', fd(3), path('/tmp/d'), raw(0xfff)) +
        call('umount2', path('/tmp/d'), raw(2)) +
        call('read', fd(3), scratch(0x1000), bound(4096))),
    # MCL_FUTURE: the mappings made after it are locked.
    'mlockall_future': (
        call('mlockall', raw(3)) +
        call('mmap', raw(0), raw(8192), raw(3), raw(0x22), raw(-1), raw(0)) +
        call('brk', raw(0)) +
        call('munlockall')),
    # A shared mapping of a written file, written back by range.
    'sync_file_range': (
        OPEN +
        call('write', fd(3), scratch(0x100), bound(16)) +
        call('mmap', raw(0), raw(4096), raw(3), raw(1), fd(3), raw(0)) +
        call('sync_file_range', fd(3), raw(0), raw(0), raw(7))),
    # A sleep that only the clock ends.
    'nanosleep_clock': (
        call('nanosleep', data(0x600, struct.pack('<qq', 1, 0)), raw(0)) +
        b'\x0b\x00' + u8(BOUNDS.index(1000000001))),
}


def elf(etype=2, entry=None, interp=None, loads=None):
    """A small x86-64 executable: a text page, and a PT_INTERP if asked."""
    base = 0x400000 if etype == 2 else 0
    loads = loads or [(5, 0, base, 4096, 4096),
                      (6, 0, D['FZ_SCRATCH'], 0, D['FZ_SCRATCH_SIZE'])]
    phdrs = [struct.pack('<IIQQQQQQ', 1, fl, off, va, va, fs, ms, 4096)
             for fl, off, va, fs, ms in loads]
    if interp is not None:
        phdrs.append(struct.pack('<IIQQQQQQ', 3, 4, 0x200, 0, 0,
                                 len(interp) + 1, len(interp) + 1, 1))
    phdrs.append(struct.pack('<IIQQQQQQ', 0x6474e551, 6, 0, 0, 0, 0, 0, 16))
    eh = (b'\x7fELF\x02\x01\x01' + bytes(9) +
          struct.pack('<HHIQQQIHHHHHH', etype, 62, 1,
                      base + 0x800 if entry is None else entry, 64, 0, 0,
                      64, 56, len(phdrs), 64, 0, 0))
    img = bytearray(4096)
    hdr = eh + b''.join(phdrs)
    img[:len(hdr)] = hdr
    if interp is not None:
        img[0x200:0x200 + len(interp)] = interp.encode()
    img[0x800:0x804] = b'\x0f\x05\xeb\xfc'
    return bytes(img)


def frame(fpstate_ok=True):
    """A signal frame back to the syscall site, and an XSAVE image."""
    sc = struct.pack('<18Q', *([0] * 15 + [D['FZ_SCRATCH'] + 0x800,
                                           D['FZ_SYSCALL_SITE'] + 2, 0x202]))
    sc += struct.pack('<4H', 0x33, 0, 0, 0x2b) + bytes(256 - len(sc) - 8)
    f = struct.pack('<QQQQQQ', 0, 0, 0, 0, 0, 0)[:8]
    f += struct.pack('<QQQiiQ', 0, 0, 0, 0, 0, 0)[:40] + sc + bytes(8)
    f = f.ljust(440, b'\0').ljust(512, b'\0')
    fpu = bytearray(832)
    fpu[0:2] = struct.pack('<H', 0x37f)
    fpu[24:28] = struct.pack('<I', 0x1f80 if fpstate_ok else 0xffffffff)
    fpu[512:520] = struct.pack('<Q', 3)
    return (b'\x00' if fpstate_ok else b'\x01') + f[1:] + bytes(fpu)


def cmsg(kind, *ints):
    """A SOL_SOCKET control message: 1 SCM_RIGHTS, 2 SCM_CREDENTIALS."""
    data = struct.pack('<%di' % len(ints), *ints)
    b = struct.pack('<Qii', 16 + len(data), 1, kind) + data
    return b + bytes(-len(b) % 8)


PARSER_SEEDS = {
    'elf': {
        'exec': elf(), 'dyn': elf(etype=3),
        'interp': elf(interp='/bin/init'),
        'overlap': elf(loads=[(5, 0, 0x400000, 4096, 4096),
                              (6, 0, 0x400000, 4096, 8192)]),
    },
    'exec': {
        'exec': elf(), 'dyn': elf(etype=3),
        'interp': elf(interp='/bin/init'),
        'script': b'#!/bin/init -x\n', 'script_chain': b'#!/bin/script a\n',
        'script_self': b'#!/tmp/new\n', 'script_empty': b'#!\n',
    },
    'stack': {
        'args': struct.pack('<Q', 0x7ffffffde000) + b'\x00\x10\x05' +
                bytes(5) + b'init\0-c\0x\0PATH=/bin\0HOME=/\0',
        'tight': struct.pack('<Q', 0x7ffffffde000) + b'\x40\x00\x20' +
                 bytes(5) + b'a' * 40 + b'\0' + b'b' * 40,
    },
    'openhow': {
        'rdonly': u8(PATHS.index('/tmp/f')) + b'\x03' + bytes(24),
        'creat': u8(PATHS.index('/tmp/new')) + b'\x03' +
                 struct.pack('<QQQ', 0o102, 0o644, 0),
        'beneath': u8(PATHS.index('/tmp/l')) + b'\x03' +
                   struct.pack('<QQQ', 0o200000, 0, 0x08),
        'big': u8(PATHS.index('/tmp/d')) + b'\x05' + bytes(40),
    },
    'sigframe': {'frame': frame(), 'badfpu': frame(False)},
    # how rsize ssize, then the control messages (fuzz_cmsg.c).
    'cmsg': {
        'rights': b'\x00\x0b\x00' + cmsg(1, 3, 5, 6, 7),
        'rights_trunc': b'\x81\x04\x00' + cmsg(1, 5, 6, 7, 5),
        'rights_peek_dgram': b'\x59\x0c\x00' + cmsg(1, 5) + cmsg(1, 6),
        'creds': b'\x04\x0c\x00' + cmsg(2, 1, 0, 0),
        'creds_unpriv': b'\x26\x0c\x00' + cmsg(2, 2, 65534, 65534) +
                        cmsg(1, 7),
        'badfd': b'\x02\x0c\x00' + cmsg(1, 5, 99),
        'past_end': b'\x00\x0c\x01' + cmsg(1, 5),
    },
}


def write_to(name, text):
    """Open a file by a path outside the dictionary and write text."""
    return (call('openat', raw(-100), rawpath(name), raw(1), raw(0)) +
            call('write', b'\x00\x00', data(0x100, text), raw(len(text))))


# fuzz_reset's programs: each changes kernel state outside the file tree,
# which the harness must put back before the next run.
RESET = {
    'devfs_attrs': (
        call('chmod', path('/dev/null'), raw(0)) +
        call('chown', path('/dev/tty'), raw(65534), raw(65534)) +
        call('utimensat', raw(-100), path('/dev/zero'), raw(0), raw(0)) +
        call('chmod', path('/dev/pts'), raw(0o700))),
    'uts': (
        call('sethostname', data(0x100, b'fuzz'), raw(4)) +
        call('setdomainname', data(0x100, b'dom'), raw(3))),
    'sysctl_ipc': (
        write_to('/proc/sys/kernel/shmmax', b'4096\n') +
        write_to('/proc/sys/kernel/msgmni', b'1\n') +
        write_to('/proc/sys/kernel/sem', b'1 1 1 1\n')),
    'sysctl_mqueue': (
        write_to('/proc/sys/fs/mqueue/msg_max', b'1\n') +
        write_to('/proc/sys/fs/mqueue/queues_max', b'0\n')),
    'sysctl_vm_net': (
        write_to('/proc/sys/vm/overcommit_memory', b'2\n') +
        write_to('/proc/sys/net/ipv4/ip_local_port_range',
                 b'40000 40001\n')),
    'sysctl_uts': write_to('/proc/sys/kernel/hostname', b'fuzz\n'),
    'mount_umount': (
        mount_tmpfs('/tmp/d') +
        call('umount2', path('/tmp/d'), raw(0))),
    # The second mount hides the first from lookups by its path.
    'mount_over_parent': mount_tmpfs('/tmp/d') + mount_tmpfs('/tmp'),
    'bind_umount': (
        call('mount', path('/tmp'), path('/tmp/d'), NOPATH, raw(MS_BIND),
             raw(0)) +
        call('umount2', path('/tmp/d'), raw(0))),
    # A namespace of its own, with three file systems in it, left at exit.
    'mntns_exit': (
        call('unshare', raw(CLONE_NEWNS)) +
        mount_tmpfs('/tmp/d') +
        call('mount', rawpath('none'), path('/tmp/d'), rawpath('proc'),
             raw(0), raw(0)) +
        call('mount', rawpath('none'), path('/tmp/d'), rawpath('sysfs'),
             raw(0), raw(0))),
    # The root read-only and noexec, /dev/shm's bind read-only, /proc
    # shared: the next run must still exec /bin/init and write the tree.
    'remount': (
        call('mount', NOPATH, path('/'), NOPATH, raw(0x29), raw(0)) +
        call('mount', NOPATH, path('/dev/shm'), NOPATH,
             raw(0x20 | MS_BIND | 1), raw(0)) +
        call('mount', NOPATH, path('/proc'), NOPATH, raw(1 << 20),
             raw(0))),
    'mqueue_left': call('mq_open', rawpath('q'), raw(0o102), raw(0o600),
                        raw(0)),
}


def main():
    corpus, dictfile = sys.argv[1:3]
    os.makedirs(corpus + '-reset', exist_ok=True)
    for name, prog in RESET.items():
        with open(os.path.join(corpus + '-reset', name), 'wb') as f:
            f.write(prog)
    for name, seeds in PARSER_SEEDS.items():
        os.makedirs(corpus + '-' + name, exist_ok=True)
        for seed, b in seeds.items():
            with open(os.path.join(corpus + '-' + name, seed), 'wb') as f:
                f.write(b)
    os.makedirs(corpus, exist_ok=True)
    for r in ROWS:
        args = [plausible(gensyscalls.TYPES[t][3], r['name'])
                for t, _ in r['args']]
        with open(os.path.join(corpus, 'call-' + r['name']), 'wb') as f:
            f.write(OPEN + call(r['name'], *args))
    for name, prog in SCENARIOS.items():
        with open(os.path.join(corpus, 'scenario-' + name), 'wb') as f:
            f.write(prog)
    with open(dictfile, 'w') as f:
        f.write('# fuzz_syscalls: generated by gencorpus.py\n')
        for name, nr in sorted(NR.items()):
            f.write('nr_%s="\\x00\\x00\\x%02x\\x%02x"\n' %
                    (name, nr & 0xff, nr >> 8))
        for i, p in enumerate(PATHS):
            if p:
                f.write('path_%d="%s"\n' % (i, p.replace('"', '\\"')))


if __name__ == '__main__':
    main()
