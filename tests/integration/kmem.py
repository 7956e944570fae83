#!/usr/bin/env python3
# Kernel memory a guest makes vkernel allocate is bounded by --mem: the
# mem_kmem guest program makes pipes, tmpfs names, socket queues, epoll
# items, queued signals and map entries until it meets Linux's errors
# (which it checks itself), and vkernel's peak RSS, read from the host
# side, must stay within --mem plus a fixed allowance for vkernel itself.
#
# usage: kmem.py [--no-rss] VKERNEL GUEST CASE
#   CASE root:     the guest runs as root
#   CASE user:     the guest runs as an unprivileged user (a root guest
#                  drops to uid 65534 first)
#   CASE hostuser: vkernel itself runs as an unprivileged host user
#                  (asuser.sh)
#   --no-rss:      a sanitizer build, whose RSS says nothing: only the
#                  errors and vkernel's exit are checked
import sys

import peak_rss

MEM_MIB = 32


def main():
    check_rss, vkernel, guest, case = peak_rss.args(sys.argv[1:])
    cmd = [vkernel, "run", "--mem", "%dM" % MEM_MIB, "--", guest,
           str(MEM_MIB)]
    if case == "user":
        cmd.append("user")
    status, peak_mib = peak_rss.run(cmd, case == "hostuser")
    print("peak RSS of vkernel and its stubs: %.1f MiB (--mem %d MiB)" %
          (peak_mib, MEM_MIB))
    limit = MEM_MIB + peak_rss.ALLOWANCE_MIB if check_rss else None
    return 0 if peak_rss.check("mem_kmem", status, peak_mib, limit) else 1


sys.exit(main())
