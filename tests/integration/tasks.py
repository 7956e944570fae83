# The sandbox's cap on processes plus threads, seen from the host: a guest
# fork bomb and thread bomb (proc_nproc's "cap" mode) under --pids
# never have vkernel run more host threads than the cap allows, and
# vkernel exits 0 after them.
#
# usage: tasks.py VKERNEL PROG CASE
#   CASE root: vkernel as the user running the test; user: as an
#   unprivileged host user (asuser.sh).
import os, subprocess, sys, time

CAP = 64
# Host threads vkernel may keep besides the guest's tasks: each process's
# leader after its main thread ended, and a few spare threads per process.
SLACK = 16

vkernel, prog, case = sys.argv[1:4]
cmd = [vkernel, "run", "--pids", str(CAP), "--", prog, "cap", str(CAP)]
if case == "user":
    cmd = [os.path.join(os.path.dirname(__file__), "asuser.sh")] + cmd


def tracer(pid):
    """vkernel's own process: the child the command makes in its own
    namespaces (untraced), or the command itself when it runs without
    them (its children are stubs, which it traces)."""
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            kid = int(f.read().split()[0])
        with open("/proc/%d/status" % kid) as f:
            if "TracerPid:\t0\n" in f.read():
                return kid
    except (OSError, IndexError):
        pass
    return pid


def traced_by(pid):
    """Host threads whose tracer is pid: every stub thread of vkernel."""
    n = 0
    want = "TracerPid:\t%d\n" % tracer(pid)
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            for t in os.listdir("/proc/%s/task" % p):
                with open("/proc/%s/task/%s/status" % (p, t)) as f:
                    if want in f.read():
                        n += 1
        except OSError:
            pass
    return n


vk = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
most = 0
while vk.poll() is None:
    most = max(most, traced_by(vk.pid))
    time.sleep(0.02)
out = vk.stdout.read().decode(errors="replace")
print(out, end="")
print("most host threads under vkernel: %d (cap %d)" % (most, CAP))
ok = vk.returncode == 0 and most <= CAP + SLACK and most >= CAP // 2
if vk.returncode != 0:
    print("FAIL: vkernel exited %d" % vk.returncode)
if most > CAP + SLACK:
    print("FAIL: %d host threads, more than %d" % (most, CAP + SLACK))
if most < CAP // 2:
    print("FAIL: the bombs never came near the cap (%d)" % most)
sys.exit(0 if ok else 1)
