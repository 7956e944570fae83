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
import os
import subprocess
import sys

MEM_MIB = 32
# vkernel's own text, libraries, stacks and allocator slack, above --mem:
# a plain build takes about 14 MiB to run a small program.
ALLOWANCE_MIB = 16


def main():
    args = sys.argv[1:]
    check_rss = True
    if args[0] == "--no-rss":
        check_rss = False
        args = args[1:]
    vkernel, guest, case = args
    cmd = [vkernel, "run", "--mem", "%dM" % MEM_MIB, "--", guest,
           str(MEM_MIB)]
    if case == "user":
        cmd.append("user")
    elif case == "hostuser":
        cmd = [os.path.join(os.path.dirname(__file__), "asuser.sh")] + cmd
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    out = proc.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0     # reaped above
    sys.stdout.write(out)
    peak_mib = usage.ru_maxrss / 1024
    print("peak RSS of vkernel and its stubs: %.1f MiB (--mem %d MiB)" %
          (peak_mib, MEM_MIB))
    ok = True
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        print("FAIL: vkernel ended with status 0x%x" % status)
        ok = False
    if check_rss and peak_mib > MEM_MIB + ALLOWANCE_MIB:
        print("FAIL: peak RSS %.1f MiB above --mem + %d MiB" %
              (peak_mib, ALLOWANCE_MIB))
        ok = False
    return 0 if ok else 1


sys.exit(main())
