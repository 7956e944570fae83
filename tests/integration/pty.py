#!/usr/bin/env python3
"""Pseudo-terminals inside vkernel, and the console's name, as a user meets
them: script(1), Python's pty.spawn, tmux driven through the console, and
tty(1), ttyname, ps's TTY column and /proc/PID/stat's tty_nr agreeing.

Usage: pty.py VKERNEL CASE, where VKERNEL "native" runs the same on the
host, to see that the checks hold on Linux.  Each case that is not on the
console also runs with vkernel as host uid 65534 when run as root.
"""
import importlib.util
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# tests/integration/tty.py drives a program on a host pty; it is loaded
# under another name, since "tty" is the module pty.spawn itself needs.
_spec = importlib.util.spec_from_file_location(
    "ttycase", os.path.join(HERE, "tty.py"))
ttycase = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ttycase)
Fail = ttycase.Fail

TIMEOUT = 60


def users(vk):
    """The ways to run vkernel: as the caller, and as 65534 when root."""
    ways = [[]]
    if vk != "native" and os.geteuid() == 0:
        ways.append(["setpriv", "--reuid=65534", "--regid=65534",
                     "--clear-groups"])
    return ways


def run(vk, argv, prefix=()):
    """argv's output, run without a terminal (stdin /dev/null)."""
    if vk != "native":
        vk = os.path.abspath(vk)
        argv = list(prefix) + [vk, "run", "--"] + argv
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=TIMEOUT, cwd="/")
    if p.returncode != 0:
        raise Fail("%r: status %d\n%s%s" % (argv, p.returncode,
                   p.stdout.decode(errors="replace"),
                   p.stderr.decode(errors="replace")))
    return p.stdout.decode(errors="replace")


def check_output(out, pattern, what):
    if not re.fullmatch(pattern, out, re.S):
        raise Fail("%s: %r does not match %r" % (what, out, pattern))


def case_script(vk):
    for prefix in users(vk):
        out = run(vk, ["script", "-qc", "tty; stty size", "/dev/null"],
                  prefix)
        check_output(out, r"/dev/pts/\d+\r\n0 0\r\n", "script")


def case_pyspawn(vk):
    prog = ("import pty; pty.spawn(['sh', '-c', "
            "'tty; stty -a; ps -o tty= -p $$'])")
    want = run("native", ["python3", "-c", prog])
    want = re.sub(r"pts/\d+", "pts/N", want)
    for prefix in users(vk):
        out = run(vk, ["python3", "-c", prog], prefix)
        out = re.sub(r"pts/\d+", "pts/N", out)
        if out != want:
            raise Fail("pty.spawn:\n%s\nnatively:\n%s" % (out, want))


def case_console(vk):
    for prefix in users(vk):
        console_names(vk, prefix)


def console_names(vk, prefix):
    """tty, ttyname, ps and tty_nr name the same terminal."""
    if vk != "native":
        vk = os.path.abspath(vk)
    t = ttycase.Term(vk, ["sh", "-c",
                          "echo name=$(tty) "
                          "py=$(python3 -c 'import os; print(os.ttyname(0))') "
                          "ps=$(ps -o tty= -p $$) "
                          "nr=$(cut -d' ' -f7 /proc/$$/stat) "
                          "rdev=$(stat -L -c '%t:%T' $(tty)) end"], prefix)
    try:
        m = t.expect(r"name=(\S+) py=(\S+) ps=(\S+) nr=(\d+) "
                     r"rdev=([0-9a-f]+):([0-9a-f]+) end")
        st = t.wait()
    finally:
        if t.proc.poll() is None:
            t.proc.kill()
    if st != 0:
        raise Fail("status %d" % st)
    name, py, ps, nr = m.group(1), m.group(2), m.group(3), int(m.group(4))
    major, minor = int(m.group(5), 16), int(m.group(6), 16)
    if vk != "native" and name != "/dev/console":
        raise Fail("the console is %s, not /dev/console" % name)
    if py != name or "/dev/" + ps != name:
        raise Fail("tty %s, ttyname %s, ps %s" % (name, py, ps))
    if nr != (major << 8 | (minor & 0xff) | (minor & ~0xff) << 12):
        raise Fail("tty_nr %d for %s (%d:%d)" % (nr, name, major, minor))


def case_tmux(vk):
    """tmux inside, typed at through the console and its own commands."""
    for prefix in users(vk):
        tmux_case(vk, prefix)


def tmux_case(vk, prefix):
    sock = "/tmp/vk-tmux-%d" % os.getpid()
    # tmux runs a pane's command with $SHELL, or else the user's login
    # shell: nobody's is nologin, so SHELL is set, as a login would.
    t = ttycase.Term(vk, ["env", "TERM=xterm", "SHELL=/bin/sh", "bash",
                          "--norc", "--noprofile", "-i"], prefix)
    try:
        tmux_drive(t, "tmux -S " + sock)
    finally:
        # A failed run leaves nothing behind: vkernel, or the host's tmux.
        if t.proc.poll() is None:
            t.proc.kill()
        if vk == "native":
            subprocess.run(["tmux", "-S", sock, "kill-server"],
                           capture_output=True)


def pane_poll(tm, pattern):
    """A shell loop that waits until pane t shows a line matching pattern."""
    return ("for i in $(seq 150); do " + tm + " capture-pane -p -t t | "
            "grep -q '" + pattern + "' && break; sleep 0.2; done")


def tmux_drive(t, tm):
    t.expect(re.escape(ttycase.PROMPT))
    # sh in the pane: its prompt waited for, then typed at.
    t.run(tm + " new-session -d -x 80 -y 24 -s t sh")
    t.run("until " + tm + " capture-pane -p -t t | grep -q .; "
          "do sleep 0.2; done")
    # The pane's sh answers in its own time: on a loaded machine a fixed
    # sleep was not always enough, so the pane is polled (up to 30 s).
    t.run(tm + " send-keys -t t 'echo $((6*7))' Enter; " +
          pane_poll(tm, "^42$") + "; echo "
          "n=$(" + tm + " capture-pane -p -t t | grep -c '^42$')",
          r"n=1\r\n")
    # Attached: the keys typed go through the console, tmux and its pty.
    # Typed once tmux has drawn its status line ("[t]"), so that it, not
    # bash, has the console.
    t.send(tm + " attach -t t\r")
    t.expect(r"\[t\]")
    time.sleep(0.5)
    t.send("echo $((7*8))x\r")
    t.expect(r"56x")
    # Apart: keys that come within assume-paste-time are not bindings.
    time.sleep(0.5)
    t.send("\x02")
    time.sleep(0.5)
    t.send("d")
    t.expect(r"detached")
    t.expect(re.escape(ttycase.PROMPT))
    t.run("echo n=$(" + tm + " capture-pane -p -t t | grep -c '^56x$')",
          r"n=1\r\n")
    t.run(tm + " kill-server")
    ttycase.finish(t)


if __name__ == "__main__":
    sys.exit(ttycase.main(globals()))
