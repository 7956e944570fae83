#!/usr/bin/env python3
"""Runs a guest program that attacks the sandbox and checks from the host
that nothing happened: a host process the guest aims at (a sleep of
vkernel's own host user) survives, and once vkernel is gone no process it
started is left on the host (the driver is their subreaper and looks).
The guest programs run their attacks as guest root and again as uid
65534; this script runs vkernel as the caller and, with "user", as the
unprivileged host user of asuser.sh (uid 65534 under root).

usage: escape.py VKERNEL PROG CASE root|user
  cpu      esc_cpu HOSTPID
  files    esc_files DIR, with DIR/ro bound read-only and DIR/rw
           read-write: DIR/canary, DIR/ro and DIR/out are unchanged
  host     esc_host HOSTPID VKPID SOCK ABSTRACT, with host AF_UNIX
           sockets listening there: none is connected to
  bomb-*   esc_bomb MODE under a limit: the status the limit gives,
           within a bound, as guest root and as guest uid 65534
"""
import ctypes
import os
import shutil
import socket
import subprocess
import tempfile
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
ASUSER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "..", "integration", "asuser.sh")


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def children():
    """The pids whose parent is this process, zombies reaped first."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return []
        if pid == 0:
            break
    me = str(os.getpid())
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:
            found.append(int(d))
    return found


def no_strays(keep, secs=3.0):
    """Within secs, every child but those in keep is gone."""
    deadline = time.monotonic() + secs
    while True:
        left = [p for p in children() if p not in keep]
        if not left:
            return
        if time.monotonic() > deadline:
            fail("processes left on the host: %s" % left)
        time.sleep(0.05)


def snapshot(top):
    """Every name under top but rw/, with its size, mode, owner, times."""
    out = []
    for root, dirs, files in os.walk(top):
        if root == top and "rw" in dirs:
            dirs.remove("rw")
        for n in dirs + files:
            st = os.lstat(os.path.join(root, n))
            out.append((os.path.join(root, n), st.st_size, st.st_mode,
                        st.st_uid, st.st_gid, st.st_mtime_ns, st.st_nlink))
    with open(os.path.join(top, "canary")) as f:
        out.append(f.read())
    return sorted(out, key=str)


# Bombs: [esc_bomb mode, vkernel options, statuses, most seconds].
BOMBS = {
    "bomb-fork": ["fork", ["--pids", "32", "--timeout", "2"], [124], 8],
    "bomb-thread": ["thread", ["--pids", "32"], [0], 8],
    "bomb-fd": ["fd", ["--fds", "64"], [0], 8],
    "bomb-mem": ["mem", ["--mem", "96M"], [0, 137], 8],
    "bomb-spin": ["spin", ["--timeout", "1"], [124], 6],
}


def run(prefix, vk, opts, prog, args, statuses, most, cmd=None):
    """vkernel run OPTS -- PROG ARGS (or cmd): its status must be one of
    statuses, within most seconds.  Returns the seconds it took."""
    t0 = time.monotonic()
    if cmd is None:
        cmd = [vk, "run"] + opts + ["--", prog] + args
    r = subprocess.run(prefix + cmd, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=60)
    secs = time.monotonic() - t0
    sys.stdout.write(r.stdout.decode(errors="replace"))
    sys.stderr.write(r.stderr.decode(errors="replace")[-4000:])
    if r.returncode not in statuses:
        fail("%s %s: status %d, want %s" % (prog, " ".join(args),
                                            r.returncode, statuses))
    if secs > most:
        fail("%s %s took %.1f s, want at most %d" % (prog, " ".join(args),
                                                     secs, most))
    return secs


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    vk, prog, case, who = sys.argv[1:]
    prefix = []
    if who == "user":
        prefix = [ASUSER]
        r = subprocess.run(prefix + ["test", "-x", vk, "-a", "-x", prog])
        if r.returncode == 77:
            sys.exit(77)
        if r.returncode != 0:
            print("skip: uid 65534 cannot run %s, %s" % (vk, prog))
            sys.exit(77)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        fail("PR_SET_CHILD_SUBREAPER")
    tmp = tempfile.mkdtemp(prefix="vk-escape.")
    os.chmod(tmp, 0o755)
    target = subprocess.Popen(prefix + ["sleep", "60"])
    listeners = []
    try:
        secs = 0.0
        if case == "cpu":
            secs = run(prefix, vk, [], prog, [str(target.pid)], [0], 10)
        elif case == "files":
            for d in ["ro", "rw", "out"]:
                os.mkdir(os.path.join(tmp, d))
                os.chmod(os.path.join(tmp, d), 0o777)
            for f, text in [("canary", "canary\n"), ("ro/f", "ro\n")]:
                with open(os.path.join(tmp, f), "w") as fp:
                    fp.write(text)
                os.chmod(os.path.join(tmp, f), 0o666)
            before = snapshot(tmp)
            secs = run(prefix, vk, ["--bind", tmp + "/ro:/ro", "--bind",
                                    tmp + "/rw:/rw:rw"], prog, [tmp], [0],
                       10)
            if snapshot(tmp) != before:
                fail("host files outside the rw bind changed")
        elif case == "host":
            path = os.path.join(tmp, "sock")
            abstract = "vk-escape-%d" % os.getpid()
            for addr in [path, "\0" + abstract]:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.bind(addr)
                s.listen(8)
                s.setblocking(False)
                listeners.append(s)
            os.chmod(path, 0o777)
            # sh's pid becomes vkernel's own by exec.
            script = 'exec "$0" run -- "$1" "$2" $$ "$3" "$4"'
            args = [str(target.pid), path, abstract]
            secs = run(prefix, vk, [], prog, args, [0], 10,
                       ["sh", "-c", script, vk, prog] + args)
            for s in listeners:
                try:
                    s.accept()
                    fail("a guest connected to a host socket")
                except BlockingIOError:
                    pass
        elif case in BOMBS:
            mode, opts, statuses, most = BOMBS[case]
            # Guest uid 65534 is reached from guest root, or is the guest
            # itself under root's asuser.sh; an ordinary host user's guest
            # is that user, which may not become another.
            passes = [[], ["nobody"]] if os.getuid() == 0 else [[]]
            for guest in passes:
                secs += run(prefix, vk, opts, prog, [mode] + guest,
                            statuses, most)
                no_strays({target.pid})
        else:
            fail("no case " + case)
        if target.poll() is not None:
            fail("the host process the guest aimed at is gone")
        no_strays({target.pid})
        print("ok: escape %s (%s) in %.1f s" % (case, who, secs))
    finally:
        target.kill()
        target.wait()
        for s in listeners:
            s.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
