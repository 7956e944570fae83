#!/usr/bin/env python3
# Threads that ended leave nothing to grow under --platform=systrap: each
# guest thread is a thread of its process's stub with an area (its
# messages and signal stack, RAM-file pages vkernel maps too), and one
# that ends is kept for the next new thread.  thr_churn starts ROUNDS
# rounds of BURST short-lived threads at once (joined or detached) and
# one of 128 alive together, then pauses: the stubs, counted from the host
# then, keep SPARE of the threads that ended and a few of their own, and
# vkernel's peak RSS after 10,000 threads is within SLACK_MIB of its peak
# after 200.
#
# usage: thr_churn.py [--no-rss] VKERNEL GUEST CASE
#   CASE root:     the guest runs as root
#   CASE user:     the guest drops to uid 65534 itself
#   CASE hostuser: vkernel itself runs as an unprivileged host user
#   --no-rss:      a sanitizer build, whose RSS says nothing
import os
import subprocess
import sys

import peak_rss
from hostprocs import comm, descendants

BURST = 16
SLACK_MIB = 4
# systrap.c's SPARE_MAX.
SPARE = 64
# A stub's control thread and its process's main thread, and a margin.
OWN_THREADS = 4


def stub_threads(pids):
    """The threads of the stubs among pids: vkernel's own are not the
    guest's."""
    n = 0
    for p in pids:
        if comm(p) in (None, "vkernel"):
            continue
        try:
            n += len(os.listdir("/proc/%d/task" % p))
        except OSError:
            pass
    return n


def run(cmd, hostuser):
    """Run cmd, counting its stubs' threads at "churned": (wait status,
    peak RSS in MiB, threads)."""
    if hostuser:
        cmd = [os.path.join(os.path.dirname(__file__), "asuser.sh")] + cmd
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    threads = -1
    for line in proc.stdout:
        text = line.decode(errors="replace")
        sys.stdout.write(text)
        if text.strip() == "churned":
            threads = stub_threads(descendants(proc.pid))
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return status, usage.ru_maxrss / 1024, threads


def main():
    check_rss, vkernel, guest, case = peak_rss.args(sys.argv[1:])
    extra = ["nobody"] if case == "user" else []
    ok = True
    peaks = []
    for rounds in ["12", "625"]:
        cmd = [vkernel, "run", "--platform=systrap", "--", guest, rounds,
               str(BURST)] + extra
        status, peak, threads = run(cmd, case == "hostuser")
        print("%s rounds of %d: peak RSS %.1f MiB, %d stub threads" %
              (rounds, BURST, peak, threads))
        ok = peak_rss.check(rounds + " rounds", status, peak, None) and ok
        if threads < 0 or threads > SPARE + OWN_THREADS:
            print("FAIL: %d stub threads after the rounds" % threads)
            ok = False
        peaks.append(peak)
    if check_rss and peaks[1] - peaks[0] >= SLACK_MIB:
        print("FAIL: peak RSS %.1f MiB above the small run's" %
              (peaks[1] - peaks[0]))
        ok = False
    return 0 if ok else 1


sys.exit(main())
