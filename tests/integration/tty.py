#!/usr/bin/env python3
"""The console as a terminal: an interactive bash inside vkernel, driven
through a pseudo-terminal as a user at a keyboard would drive it.

Each case types at the shell and checks what comes back: line editing,
Ctrl-C and Ctrl-Z reaching the foreground job, jobs/bg/fg, stty seeing
the settings and the window size, a resize reaching the guest, background
jobs stopped by SIGTTIN and SIGTTOU, and the host terminal's settings put
back when vkernel exits (also when it is killed by SIGTERM).

Usage: tty.py VKERNEL CASE [PROG], where VKERNEL "native" runs the shell
on the host itself, to see that the checks hold on Linux.  The case ioctl
runs the guest program PROG (tests/guest/tty_ioctl.c) on the terminal.  VK_OPTS in the
environment adds options to "vkernel run" (VK_OPTS=--strace=FILE).
"""
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time

PROMPT = "PROMPT> "
# Generous: the machine that runs the tests may be slow and busy.
TIMEOUT = 30
VK_OPTS = os.environ.get("VK_OPTS", "").split()


class Fail(Exception):
    pass


def set_size(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def get_size(fd):
    return struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))[:2]


class Term:
    """vkernel running argv on a new pty, which is its controlling tty."""

    def __init__(self, vk, argv, prefix=()):
        """prefix goes before vkernel's command line (setpriv ...)."""
        self.master, self.slave = os.openpty()
        set_size(self.master, 24, 80)
        self.before = termios.tcgetattr(self.slave)
        env = dict(os.environ, PS1=PROMPT, TERM="dumb", HISTFILE="/dev/null")
        env.pop("PROMPT_COMMAND", None)
        # "native" runs argv on the host: what the checks expect of Linux.
        if vk != "native":
            argv = list(prefix) + [vk, "run"] + VK_OPTS + ["--"] + argv
        self.proc = subprocess.Popen(
            argv, stdin=self.slave, stdout=self.slave,
            stderr=self.slave, env=env, start_new_session=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
        self.out = ""
        self.seen = 0

    def read_some(self, timeout):
        r, _, _ = select.select([self.master], [], [], timeout)
        if not r:
            return False
        try:
            data = os.read(self.master, 4096)
        except OSError:
            return False
        self.out += data.decode("utf-8", "replace")
        return len(data) > 0

    def expect(self, pattern, timeout=TIMEOUT):
        """Wait for pattern in the output after what was matched last."""
        end = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            m = rx.search(self.out, self.seen)
            if m:
                self.seen = m.end()
                return m
            left = end - time.monotonic()
            if left <= 0 or (not self.read_some(left) and
                             self.proc.poll() is not None):
                raise Fail("no %r in output:\n%s" % (pattern,
                           self.out[self.seen:]))

    def send(self, s):
        os.write(self.master, s.encode())

    def run(self, line, pattern=None):
        """Type a command line, see pattern, and wait for the next prompt."""
        self.send(line + "\r")
        if pattern is not None:
            self.expect(pattern)
        self.expect(re.escape(PROMPT))

    def settings(self):
        return termios.tcgetattr(self.slave)

    def wait(self, timeout=TIMEOUT):
        end = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < end:
            self.read_some(0.1)
        if self.proc.poll() is None:
            self.proc.kill()
            raise Fail("vkernel did not exit")
        return self.proc.returncode

    def check_restored(self):
        after = self.settings()
        if after != self.before:
            raise Fail("terminal settings not restored:\nbefore %r\nafter  %r"
                       % (self.before, after))


def shell(vk):
    t = Term(vk, ["bash", "--norc", "--noprofile", "-i"])
    t.expect(re.escape(PROMPT))
    return t


def finish(t):
    t.send("exit\r")
    st = t.wait()
    if st != 0:
        raise Fail("exit status %d" % st)
    t.check_restored()


def case_line_edit(vk):
    t = shell(vk)
    # Two typos, rubbed out: the shell runs what is left.
    t.run("echo hellxx\x7f\x7fo wor\x7fr\x7frld", r"\nhello world\r\n")
    finish(t)


def interrupt(t):
    """Ctrl-C the foreground sleep 100: the prompt is back at once."""
    time.sleep(1)
    start = time.monotonic()
    t.send("\x03")
    t.expect(re.escape(PROMPT), timeout=20)
    if time.monotonic() - start > 15:
        raise Fail("Ctrl-C took %.1fs" % (time.monotonic() - start))
    t.run("echo status=$?; jobs | wc -l", r"status=130\r\n\s*0\r\n")


def case_ctrl_c(vk):
    t = shell(vk)
    t.send("sleep 100\r")
    t.expect(r"sleep 100\r\n")
    interrupt(t)
    finish(t)


def case_ctrl_z(vk):
    t = shell(vk)
    t.send("sleep 100\r")
    t.expect(r"sleep 100\r\n")
    time.sleep(1)
    t.send("\x1a")
    t.expect(r"Stopped\s+sleep 100")
    t.expect(re.escape(PROMPT))
    t.run("jobs", r"\[1\]\+\s+Stopped\s+sleep 100")
    t.run("bg", r"\[1\]\+ sleep 100 &")
    t.run("jobs", r"\[1\]\+\s+Running\s+sleep 100")
    t.send("fg\r")
    t.expect(r"\nsleep 100\r\n")
    interrupt(t)
    finish(t)


def case_stty(vk):
    t = shell(vk)
    t.run("stty size", r"\n24 80\r\n")
    t.run("stty -a | head -1", r"rows 24; columns 80")
    # The guest's settings reach the host terminal, and come back.
    t.run("stty -echo intr ^K")
    lflag, cc = t.settings()[3], t.settings()[6]
    if lflag & termios.ECHO or cc[termios.VINTR] != b"\x0b":
        raise Fail("stty -echo intr ^K did not reach the host terminal")
    t.run("stty -a | grep -o -- '-echo \\|intr = ^K' | sort",
          r"-echo \r\nintr = \^K\r\n")
    finish(t)


def case_winch(vk):
    t = shell(vk)
    t.run("trap 'echo WINCH $(stty size)' WINCH")
    # A resize of the host terminal: the host signals vkernel.
    set_size(t.master, 30, 100)
    time.sleep(0.5)
    t.run("", r"WINCH 30 100")
    # The guest resizes its terminal: the host's follows, as on Linux.
    # (Its SIGWINCH goes to stty's group, in the foreground then.)
    t.run("stty rows 40 cols 120")
    t.run("stty size", r"\n40 120\r\n")
    if get_size(t.master) != (40, 120):
        raise Fail("host size %r after stty rows 40 cols 120" %
                   (get_size(t.master),))
    finish(t)


def case_bg_tty(vk):
    t = shell(vk)
    # A background read is stopped by SIGTTIN...
    t.run("cat &")
    time.sleep(1)
    t.run("jobs", r"\[1\]\+\s+Stopped\s+cat")
    t.run("kill -9 %1")
    # ...a background write only with tostop, by SIGTTOU.
    t.run("(sleep 0.5; echo free) &")
    t.expect(r"free")
    t.run("stty tostop")
    t.run("(sleep 0.5; echo blocked) &")
    time.sleep(1.5)
    t.run("jobs", r"\[\d\]\+\s+Stopped\s+\( sleep 0.5; echo blocked \)")
    t.run("fg", r"blocked\r\n")
    finish(t)


def case_sigterm(vk):
    t = Term(vk, ["bash", "-c", "stty raw -echo; echo ready; sleep 100"])
    t.expect(r"ready")
    if t.settings() == t.before:
        raise Fail("stty raw -echo changed nothing")
    t.proc.send_signal(signal.SIGTERM)
    st = t.wait()
    if st != 128 + signal.SIGTERM:
        raise Fail("status %d after SIGTERM" % st)
    t.check_restored()


def case_sigterm_twice(vk):
    # An interactive bash ignores SIGTERM: the second one ends vkernel.
    t = shell(vk)
    t.run("stty -icanon -echo")
    t.proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    t.proc.send_signal(signal.SIGTERM)
    st = t.wait()
    if st != 128 + signal.SIGKILL:
        raise Fail("status %d after two SIGTERMs" % st)
    t.check_restored()


def tiocsti_allowed(vk):
    """Whether TIOCSTI pushes input: root may, others as the sysctl says.
    vkernel's dev.tty.legacy_tiocsti is 0, Linux's is the host's."""
    if os.geteuid() == 0:
        return True
    if vk != "native":
        return False
    try:
        with open("/proc/sys/dev/tty/legacy_tiocsti") as f:
            return f.read().strip() == "1"
    except OSError:
        return True


def case_ioctl(vk, prog):
    # The program checks the ioctls itself; a pushed line is echoed.
    t = Term(vk, [prog])
    if tiocsti_allowed(vk):
        t.expect(r"sti-echo\r\n")
    t.expect(r"ok: tty_ioctl")
    st = t.wait()
    if st != 0:
        raise Fail("exit status %d:\n%s" % (st, t.out))
    t.check_restored()


def main(cases=None):
    """Run the case argv names from cases (this module's by default)."""
    vk, name, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    fn = (cases or globals()).get("case_" + name)
    if fn is None:
        print("unknown case " + name, file=sys.stderr)
        return 2
    try:
        fn(vk, *extra)
    except (Fail, subprocess.TimeoutExpired) as e:
        print("FAIL: %s: %s" % (name, e), file=sys.stderr)
        return 1
    print("ok: " + name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
