#!/usr/bin/env python3
# vkernel lends its CPU under --platform=systrap.  With a host CPU of its
# own (--cpus below the host's count), vkernel spins there for the
# guest's calls, and the guest's threads keep to the guest's CPUs; once
# the spin has stopped (the guest computes), they may use vkernel's CPU
# too, and when calls come without pause again they go back.
#
# The guest computes (no calls) until SIGINT, which vkernel passes to
# it, and then makes calls without pause.  Seen from the host, every
# guest thread (each thread of a stub but its control thread, the
# stub's first) must be allowed on vkernel's own CPU and the guest's
# while the guest computes, and only on the guest's once it calls.  Each
# state must come within WAIT_S; vkernel is then ended.
#
# The guest says "ready" once SIGINT can no longer end it.
#
# usage: systrap_lend.py VKERNEL CASE
#   CASE shell BUSYBOX: busybox sh computes (arithmetic), and its trap
#     makes the calls (an echo to /dev/null);
#   CASE threads: python3 computes in a thread that then ends, and calls
#     first in its main thread (vkernel takes its CPU back), then in a new
#     thread, which is the one that ended, parked, reused.
import os
import signal
import subprocess
import sys
import time

from hostprocs import comm, descendants

WAIT_S = 30
SHELL = ("trap 'while :; do echo x >/dev/null; done' INT; echo ready; "
         "i=0; while :; do i=$((i + 1)); done")
THREADS = """
import os, signal, threading, time
stop = False
def compute():
    n = 0
    while not stop:
        n += 1
def storm(secs):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        os.stat("/")
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
t = threading.Thread(target=compute)
t.start()
print("ready", flush=True)
signal.sigwait({signal.SIGINT})
stop = True
t.join()
storm(1)
u = threading.Thread(target=storm, args=(3600,))
u.start()
u.join()
"""


def allowed(path):
    """The CPUs a task may run on, from its status file, or None."""
    try:
        with open(path + "/status") as f:
            for line in f:
                if line.startswith("Cpus_allowed_list:"):
                    cpus = set()
                    for part in line.split()[1].split(","):
                        lo, _, hi = part.partition("-")
                        cpus.update(range(int(lo), int(hi or lo) + 1))
                    return cpus
    except OSError:
        pass
    return None


def tasks(root):
    """(vkernel's own CPUs: those of its processes allowed on one CPU,
    the guest threads' CPU sets) below root."""
    own, guest = set(), []
    for pid in [root] + descendants(root):
        name = comm(pid)
        if name == "vkernel":
            cpus = allowed("/proc/%d" % pid)
            if cpus is not None and len(cpus) == 1:
                own |= cpus
        elif name is not None and name.startswith("memfd:vkernel"):
            try:
                tids = [int(t) for t in os.listdir("/proc/%d/task" % pid)]
            except OSError:
                continue
            for tid in tids:
                cpus = allowed("/proc/%d/task/%d" % (pid, tid))
                if tid != pid and cpus is not None:
                    guest.append(cpus)
    return own, guest


def wait_for(root, want, what):
    """Whether within WAIT_S want(vkernel's CPU, the host's CPUs, the
    thread's) came to hold for every guest thread; says the last seen on
    failure."""
    host = os.sched_getaffinity(0)
    end = time.monotonic() + WAIT_S
    own, guest = set(), []
    while time.monotonic() < end:
        own, guest = tasks(root)
        if own and guest and all(want(own, host, c) for c in guest):
            print("%s: %d guest thread(s) on CPUs %s (vkernel's: %s)" %
                  (what, len(guest), sorted(guest[0]), sorted(own)))
            return True
        time.sleep(0.05)
    print("FAIL: %s: never came; last seen: vkernel's CPU %s, the guest "
          "threads' CPUs %s" % (what, sorted(own),
                                [sorted(c) for c in guest]))
    return False


def main():
    vkernel, case = sys.argv[1:3]
    if len(os.sched_getaffinity(0)) < 2:
        print("skip: one host CPU: vkernel has none of its own to lend")
        return 77
    if case == "shell":
        guest = [sys.argv[3], "sh", "-c", SHELL]
    else:
        guest = ["/usr/bin/python3", "-c", THREADS]
    proc = subprocess.Popen([vkernel, "run", "--platform=systrap", "--"] +
                            guest, stdout=subprocess.PIPE)
    try:
        # SIGINT before the guest's handler is there would end it.
        if proc.stdout.readline() != b"ready\n":
            print("FAIL: the guest did not start")
            return 1
        ok = wait_for(proc.pid, lambda own, host, c: own < c <= host,
                      "computing, lent")
        proc.send_signal(signal.SIGINT)
        ok = wait_for(proc.pid, lambda own, host, c: c.isdisjoint(own),
                      "calling, taken back") and ok
    finally:
        # The second SIGTERM ends the sandbox at once.
        for _ in range(2):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                time.sleep(0.5)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            print("FAIL: vkernel did not end at SIGTERM")
            ok = False
    return 0 if ok else 1


sys.exit(main())
