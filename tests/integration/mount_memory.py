#!/usr/bin/env python3
# Unmounted mounts leave nothing in vkernel, and mounts a guest keeps
# alive count against --mem, as vkernel's peak RSS shows from the host:
#
# - loop: mem_mounts mounts and unmounts a tmpfs 20,000 times and then
#   200,000 times (every other one with MNT_DETACH while a file in it is
#   open); both runs must succeed and their peaks differ by less than
#   LOOP_SLACK_MIB, when a mount that stayed would cost a few hundred
#   bytes each;
# - proc: 1,000 children in turn each mount a tmpfs on /proc/self/task
#   with a 256 KiB file in it, which goes when the child is reaped: all
#   must succeed in a --mem that holds about a hundred at once;
# - hold: mem_mounts keeps a file open in each of as many detached
#   tmpfs mounts as it can, which must end on ENOMEM (or ENOSPC for the
#   file, EMFILE, ENFILE) with vkernel's peak within --mem and
#   peak_rss.ALLOWANCE_MIB, and be had again once the files are closed
#   (the guest checks that).
#
# usage: mount_memory.py [--no-rss] VKERNEL GUEST CASE
#   CASE root:     the guest runs as root
#   CASE hostuser: vkernel itself runs as an unprivileged host user
#                  (asuser.sh), whose guest is that user: its mounts are
#                  EPERM, and nothing grows
#   --no-rss:      a sanitizer build, whose RSS says nothing: only the
#                  guest's checks and vkernel's exit count
import sys

import peak_rss

MEM_MIB = 32
LOOP_SLACK_MIB = 4


def main():
    check_rss, vkernel, guest, case = peak_rss.args(sys.argv[1:])
    run = [vkernel, "run", "--mem", "%dM" % MEM_MIB, "--", guest]
    ok = True
    peaks = []
    for rounds in ["20000", "200000"]:
        status, peak = peak_rss.run(run + ["loop", rounds],
                                    case == "hostuser")
        print("%s rounds: peak RSS %.1f MiB" % (rounds, peak))
        ok = peak_rss.check(rounds + " rounds", status, peak, None) and ok
        peaks.append(peak)
    if check_rss and peaks[1] - peaks[0] >= LOOP_SLACK_MIB:
        print("FAIL: 200,000 rounds peak %.1f MiB above 20,000's" %
              (peaks[1] - peaks[0]))
        ok = False
    status, peak = peak_rss.run(run + ["proc", "1000"], case == "hostuser")
    ok = peak_rss.check("proc", status, peak, None) and ok
    status, peak = peak_rss.run(run + ["hold"], case == "hostuser")
    print("hold: peak RSS %.1f MiB (--mem %d MiB)" % (peak, MEM_MIB))
    limit = MEM_MIB + peak_rss.ALLOWANCE_MIB if check_rss else None
    ok = peak_rss.check("hold", status, peak, limit) and ok
    return 0 if ok else 1


sys.exit(main())
