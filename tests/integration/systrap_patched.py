#!/usr/bin/env python3
# A hot syscall site is patched under --platform=systrap when vkernel has
# a host CPU of its own, whether or not the host CPU has FSGSBASE: the
# trampoline finds its area through GS without rdgsbase.  systrap_patch's
# "patched" mode calls its getpid site "mov $39, %eax; syscall" 40 times
# and says what the site's bytes in memory are then.
#
# Under systrap they must be the patch; with VKERNEL_NO_PATCH set, under
# ptrace and natively, the program's own bytes.
#
# usage: systrap_patched.py VKERNEL PROG
import os
import subprocess
import sys


def site(cmd, env=None):
    """What PROG patched said of its site, or None when it failed."""
    p = subprocess.run(cmd + ["patched"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, timeout=120)
    if p.returncode != 0:
        print("FAIL: %s exited %d: %s" % (cmd, p.returncode,
                                          p.stderr.decode(errors="replace")))
        return None
    return p.stdout.decode().strip()


def main():
    vkernel, prog = sys.argv[1:3]
    if len(os.sched_getaffinity(0)) < 2:
        print("skip: one host CPU: vkernel has none of its own, and "
              "patches nothing")
        return 77
    off = dict(os.environ, VKERNEL_NO_PATCH="1")
    cases = [
        ("systrap", [vkernel, "run", "--platform=systrap", "--", prog],
         None, "site: patched"),
        ("systrap, VKERNEL_NO_PATCH", [vkernel, "run", "--platform=systrap",
                                       "--", prog], off, "site: original"),
        ("ptrace", [vkernel, "run", "--platform=ptrace", "--", prog], None,
         "site: original"),
        ("native", [prog], None, "site: original"),
    ]
    ok = True
    for name, cmd, env, want in cases:
        got = site(cmd, env)
        print("%s: %s" % (name, got))
        if got != want:
            print("FAIL: %s: want %r" % (name, want))
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
