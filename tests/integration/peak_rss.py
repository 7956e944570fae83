# vkernel run from the host side and measured there, for the tests that
# bound what a guest can make vkernel hold: its wait status and the peak
# RSS of vkernel and its stubs (what wait4 gives for them).
import os
import subprocess
import sys

# vkernel's own text, libraries, stacks and allocator slack, above --mem:
# a plain build takes about 14 MiB to run a small program.
ALLOWANCE_MIB = 16


def args(argv):
    """[--no-rss] VKERNEL GUEST CASE: whether to check the RSS (not in a
    sanitizer build, whose RSS says nothing), and the three."""
    check_rss = argv[0] != "--no-rss"
    vkernel, guest, case = argv if check_rss else argv[1:]
    return check_rss, vkernel, guest, case


def run(cmd, hostuser=False):
    """Run cmd, with vkernel as an unprivileged host user (asuser.sh) if
    hostuser, copying its output: its wait status and peak RSS in MiB."""
    if hostuser:
        cmd = [os.path.join(os.path.dirname(__file__), "asuser.sh")] + cmd
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    out = proc.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0     # reaped above
    sys.stdout.write(out)
    return status, usage.ru_maxrss / 1024


def check(what, status, peak_mib, limit_mib):
    """Whether vkernel exited 0 and, unless limit_mib is None, its peak
    stayed within limit_mib; prints a FAIL line for each that did not."""
    ok = True
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        print("FAIL: %s: vkernel ended with status 0x%x" % (what, status))
        ok = False
    if limit_mib is not None and peak_mib > limit_mib:
        print("FAIL: %s: peak RSS %.1f MiB above %d MiB" %
              (what, peak_mib, limit_mib))
        ok = False
    return ok
