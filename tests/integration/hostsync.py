# A guest's fsync, fdatasync and msync(MS_SYNC) of files and a directory
# beneath an rw --bind reach the host's disk: strace, attached to the
# vkernel process that serves the guest, sees vkernel's own host fsync
# and fdatasync calls, each returning 0, and the host file has the data.
# strace leaves before vkernel exits, where a sanitizer build's leak
# check would wait on it.  Only root may attach strace to vkernel (Yama
# lets an ordinary user trace only its own descendants): skipped else.
# CASE "root" runs vkernel as root, "hostuser" as an unprivileged host
# user.  Usage: hostsync.py VKERNEL CASE
import os
import signal
import subprocess
import sys
import tempfile
import time

GUEST = r"""
echo data > /mnt/f
while [ ! -e /mnt/go ]; do sleep 0.05; done
sync /mnt/f && sync -d /mnt/f && sync /mnt &&
python3 -c '
import mmap, os
fd = os.open("/mnt/m", os.O_RDWR | os.O_CREAT, 0o644)
os.ftruncate(fd, 4096)
m = mmap.mmap(fd, 4096, mmap.MAP_SHARED)
m[0:6] = b"mapped"
m.flush()
' && touch /mnt/synced && echo synced
while [ ! -e /mnt/done ]; do sleep 0.05; done
"""


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def main():
    vkernel, case = sys.argv[1:3]
    if os.geteuid() != 0:
        # strace may attach only to its own descendants (Yama), which
        # vkernel is not: the host side cannot be watched.
        print("skip: strace attaches to vkernel only as root")
        return 77
    d = tempfile.mkdtemp(prefix="vk-hostsync.")
    os.chmod(d, 0o777)
    cmd = [vkernel, "run", "--bind", d + ":/mnt:rw", "--", "sh", "-c", GUEST]
    if case == "hostuser":
        cmd = [os.path.join(os.path.dirname(__file__), "asuser.sh")] + cmd
    vk = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    # The process that serves the guest: the one whose children are the
    # stubs, below the outer one (and setpriv's exec keeps vk.pid).
    inner, end = None, time.time() + 60
    while inner is None and time.time() < end and vk.poll() is None:
        for c in children(vk.pid):
            if children(c):
                inner = c
        time.sleep(0.02)
    if inner is None:
        vk.kill()
        sys.stdout.write(vk.communicate()[0].decode(errors="replace"))
        print("FAIL: no vkernel process below", vk.pid)
        return 1
    log = os.path.join(d, "strace.log")
    st = subprocess.Popen(["strace", "-p", str(inner), "-e",
                           "trace=fsync,fdatasync", "-o", log],
                          stderr=subprocess.PIPE)
    attached = st.stderr.readline().decode(errors="replace")
    if "attached" not in attached:
        vk.kill()
        print("FAIL: strace did not attach:", attached)
        return 1
    open(os.path.join(d, "go"), "w").close()
    end = time.time() + 120
    while (not os.path.exists(os.path.join(d, "synced")) and
           vk.poll() is None and time.time() < end):
        time.sleep(0.05)
    st.send_signal(signal.SIGINT)
    st.wait(timeout=60)
    open(os.path.join(d, "done"), "w").close()
    out = vk.communicate(timeout=120)[0].decode(errors="replace")
    sys.stdout.write(out)
    calls = open(log).read()
    sys.stdout.write(calls)
    ok = vk.returncode == 0 and "synced" in out
    if not ok:
        print("FAIL: the guest ended with %d" % vk.returncode)
    for want, n in (("fsync(", 2), ("fdatasync(", 2)):
        got = sum(1 for line in calls.splitlines()
                  if line.startswith(want) and line.rstrip().endswith("= 0"))
        if got < n:
            print("FAIL: %d host %s...) = 0, not %d" % (got, want, n))
            ok = False
    for name, data in (("f", b"data\n"), ("m", b"mapped")):
        with open(os.path.join(d, name), "rb") as f:
            if not f.read().startswith(data):
                print("FAIL: the host file %s lacks %r" % (name, data))
                ok = False
    return 0 if ok else 1


sys.exit(main())
